"""Files written whole or not at all: every output of attnrt's Python tools and benchmark
scripts goes through here, so a failure (a full disk, an interrupt) never leaves a half-written
file in place of a good one."""
import os


def write_atomically(path, write):
    """Calls write(f) on a new binary file beside `path`, then renames it onto `path`: readers see
    the old file or the complete new one, never a half-written one. The new file gets the usual
    permissions (0666 less the umask)."""
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    for attempt in range(1000):
        tmp = os.path.join(directory, f".{base}.{os.getpid()}.{attempt}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise OSError(f"cannot create a temporary file beside {path}")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text_atomically(path, text):
    """write_atomically for UTF-8 text."""
    write_atomically(path, lambda f: f.write(text.encode("utf-8")))


def clashing_paths(outputs, inputs=()):
    """The first problem with writing `outputs` (paths, None for an output not asked for)
    given the files a run reads (`inputs`): an output that is one of the inputs (replacing
    it would lose it) or two outputs that are one file. None when there is none. Called
    before any work, so a clash costs nothing."""
    def same(a, b):
        if os.path.abspath(a) == os.path.abspath(b):
            return True
        return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)

    outputs = [p for p in outputs if p]
    for i, out in enumerate(outputs):
        for path in inputs:
            if path and same(out, path):
                return f"the output {out} is the input {path}; choose another output path"
        for other in outputs[i + 1:]:
            if same(out, other):
                return f"two outputs are the same file: {out} and {other}"
    return None

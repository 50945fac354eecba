"""Running a program that prints its result as a JSON object on the last line of its stdout
(attnrt's --json commands, bench/torch_peer.py, bench/llama_cpp_bench.mjs): one place for the
run, the parse and the error that says which command failed and why."""
import json
import shlex
import subprocess

# How much of a failed command's output an error message shows: its end says why it failed.
TAIL_CHARS = 2000


class CommandJsonError(RuntimeError):
    """A command exited non-zero or its last stdout line is not a JSON object. A RuntimeError,
    so the reports that record a failed round and go on (they catch RuntimeError) still do."""


def _tail(label, text):
    text = text.strip()
    if not text:
        return f"\n{label}: (empty)"
    return f"\n{label} ends:\n{text[-TAIL_CHARS:]}"


def last_line_json(text):
    """The JSON object on the last non-blank line of `text`; ValueError saying what is there
    instead."""
    lines = text.strip().splitlines()
    if not lines:
        raise ValueError("no output, so no JSON object")
    try:
        value = json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise ValueError(f"the last line is not JSON ({e}): {lines[-1][:200]!r}") from None
    if not isinstance(value, dict):
        raise ValueError(f"the last line is JSON but not an object: {lines[-1][:200]!r}")
    return value


def run_json(cmd, timeout=None):
    """Runs `cmd` with its output captured as text; returns (the JSON object on its last stdout
    line, the CompletedProcess) so a caller can also read the rest of its output. Raises
    CommandJsonError naming the command, with the ends of its stderr and stdout, when it exits
    non-zero or prints no JSON object last; subprocess.TimeoutExpired past `timeout` seconds."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    what = shlex.join(str(part) for part in cmd)
    if proc.returncode != 0:
        raise CommandJsonError(f"{what} exited {proc.returncode}"
                               + _tail("its stderr", proc.stderr) + _tail("its stdout", proc.stdout))
    try:
        return last_line_json(proc.stdout), proc
    except ValueError as e:
        raise CommandJsonError(f"{what} printed no JSON object on its last stdout line: {e}"
                               + _tail("its stderr", proc.stderr)) from None

#!/usr/bin/env python3
"""Hostile and careless input to the attnrt CLI (issue 17): every case must end in a clear
message and exit code 1 or a usage error, never a signal, an abort or a hang; no file the
command did not create may change; and numbers follow PyTorch's semantics.

Each case is named after the issue item it guards. Cases build their own inputs in a temporary
directory (header-only .npy files with huge dims cost a few bytes). Needs python3 with numpy only.

Usage: hostile_test.py --attnrt PATH --model DEMO.attnrt --lm LM.attnrt [--sanitized] [--only PREFIX]
--sanitized skips the cases that need a memory limit (ulimit -v), which AddressSanitizer's
shadow memory cannot run under. Prints one line per failure and "N passed, M failed"."""
import argparse
import hashlib
import os
import resource
import signal
import stat
import struct
import subprocess
import sys
import tempfile

import numpy as np

CASES = []


def case(item):
    def register(fn):
        CASES.append((item, fn))
        return fn
    return register


class Failure(Exception):
    pass


class Env:
    def __init__(self, attnrt, model, lm, work, sanitized):
        self.attnrt, self.model, self.lm, self.work, self.sanitized = attnrt, model, lm, work, sanitized

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, *args, limits=None, timeout=60):
        """Runs attnrt; returns (code, stdout + stderr). A signal or a timeout is a failure."""
        def preexec():
            for which, value in (limits or {}).items():
                resource.setrlimit(which, (value, value))
        env = dict(os.environ)
        # Sanitized builds: a huge allocation request must return null (then bad_alloc), not abort.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1"
        try:
            p = subprocess.run([self.attnrt, *args], cwd=self.work, capture_output=True, text=True,
                               errors="replace", timeout=timeout, preexec_fn=preexec, env=env)
        except subprocess.TimeoutExpired:
            raise Failure(f"hung (> {timeout} s): attnrt {' '.join(args)}")
        if p.returncode < 0:
            raise Failure(f"killed by signal {-p.returncode} ({signal.Signals(-p.returncode).name}): "
                          f"attnrt {' '.join(args)}")
        if p.returncode == 134 or "terminate called" in p.stderr:
            raise Failure(f"aborted (uncaught exception): attnrt {' '.join(args)}: {p.stderr[-300:]}")
        return p.returncode, p.stdout + p.stderr

    def run_shell(self, command, timeout=60):
        """Runs a shell command line ({attnrt}, {model}, {lm} filled in) in the work directory;
        returns (code, stdout + stderr). A signal or a timeout is a failure."""
        command = command.format(attnrt=self.attnrt, model=self.model, lm=self.lm)
        try:
            p = subprocess.run(["/bin/bash", "-c", "set -o pipefail; " + command], cwd=self.work,
                               capture_output=True, text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f"hung (> {timeout} s): {command}")
        if p.returncode > 128 or p.returncode < 0:
            raise Failure(f"exit {p.returncode} (a signal): {command}: {p.stderr[-300:]}")
        return p.returncode, p.stdout + p.stderr

    def refused(self, *args, needle, limits=None, timeout=60):
        code, out = self.run(*args, limits=limits, timeout=timeout)
        if code == 0:
            raise Failure(f"exit 0 (expected a refusal naming {needle!r}): attnrt {' '.join(args)}")
        if needle not in out:
            raise Failure(f"message lacks {needle!r}: attnrt {' '.join(args)}: {out.strip()[-400:]}")
        return out

    def ok(self, *args):
        code, out = self.run(*args)
        if code != 0:
            raise Failure(f"exit {code}: attnrt {' '.join(args)}: {out.strip()[-400:]}")
        return out


def npy_header_only(path, shape, descr="<f4"):
    """A .npy file whose header promises `shape`; with a zero dim it is complete as is."""
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join(f"{d}, " for d in shape))
    header = text.encode()
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def save(env, name, array):
    np.save(env.path(name), array)
    return name


def small_sdpa_inputs(env):
    rng = np.random.default_rng(1)
    return (save(env, "q.npy", rng.standard_normal((1, 2, 5, 4), dtype=np.float32)),
            save(env, "k.npy", rng.standard_normal((1, 2, 6, 4), dtype=np.float32)),
            save(env, "v.npy", rng.standard_normal((1, 2, 6, 3), dtype=np.float32)))


def softmax_attention(q, k, v, scale, additive=None):
    """float64 reference with PyTorch's softmax; only -inf masks a key."""
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale
    if additive is not None:
        s = s + additive.astype(np.float64)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    return (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


# ---- 1. size products that wrap --------------------------------------------------------

@case("1 zero-size Q (2^30, 2^30, 2, 0) against V (1, 1, 0, 8): output size wraps")
def wrapping_output(env):
    npy_header_only(env.path("q.npy"), (2**30, 2**30, 2, 0))
    npy_header_only(env.path("k.npy"), (1, 1, 0, 0))
    npy_header_only(env.path("v.npy"), (1, 1, 0, 8))
    env.refused("sdpa", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", "o.npy",
                needle="more bytes than size_t can count")


@case("1 --weights-out of Q (1, 1, 2^61+1, 0) against 8 keys: B*H*L*S wraps to 8")
def wrapping_weights(env):
    npy_header_only(env.path("q.npy"), (1, 1, 2**61 + 1, 0))
    npy_header_only(env.path("k.npy"), (1, 1, 8, 0))
    npy_header_only(env.path("v.npy"), (1, 1, 8, 0))
    env.refused("sdpa", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", "o.npy",
                "--weights-out", "w.npy", needle="more bytes than size_t can count")


# ---- 2. embed over its own input ----------------------------------------------------------

@case("2 embed M -o M, and -o a symlink to M: refused, M intact")
def embed_over_model(env):
    model = env.path("m.attnrt")
    with open(env.model, "rb") as src, open(model, "wb") as dst:
        dst.write(src.read())
    before = digest(model)
    os.symlink("m.attnrt", env.path("link.c"))
    os.symlink("m.attnrt", env.path("link.h"))
    # embed writes a .c and a .h: each may be the model under another name.
    for outs in (["-o", "link.c"], ["-o", "./link.c"], ["-o", "x.c", "--header", "link.h"]):
        env.refused("embed", "m.attnrt", *outs, needle="refusing to overwrite an input")
    env.refused("embed", "m.attnrt", "-o", "m.attnrt", needle="must name the .c file")
    if digest(model) != before:
        raise Failure("the model changed")


# ---- 3. exceptions and unbounded reads ------------------------------------------------------

@case("3 a broadcast output of 40 TB from 800 KB of inputs")
def huge_broadcast(env):
    save(env, "q.npy", np.zeros((1, 1, 100000, 1), np.float32))
    save(env, "k.npy", np.zeros((1000, 1, 1, 1), np.float32))
    save(env, "v.npy", np.zeros((1, 1, 1, 100000), np.float32))
    env.refused("sdpa", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", "o.npy",
                needle="cannot allocate the output (1000, 1, 100000, 100000)")


@case("3 --weights-out of 40 GB")
def huge_weights(env):
    save(env, "q.npy", np.zeros((1, 1, 100000, 1), np.float32))
    env.refused("sdpa", "--q", "q.npy", "--k", "q.npy", "--v", "q.npy", "--out", "o.npy",
                "--weights-out", "w.npy", needle="cannot allocate the attention weights")


@case("3 demo --input (1, 50000, 64)")
def demo_huge_input(env):
    save(env, "x.npy", np.zeros((1, 50000, 64), np.float32))
    env.refused("demo", "--input", "x.npy", needle="do not fit the model")
    save(env, "y.npy", np.zeros((1, 50000, 64), np.float32))
    env.refused("demo", "--input", "x.npy", "--expected", "y.npy", needle="cannot allocate")


@case("3 --threads 1024 when threads cannot be created (ulimit -v)")
def threads_cannot_start(env):
    if env.sanitized:
        return "skipped under sanitizers (shadow memory needs more than the limit)"
    q, k, v = small_sdpa_inputs(env)
    env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", "o.npy", "--threads", "1024",
                needle="cannot start worker thread", limits={resource.RLIMIT_AS: 400 << 20})


@case("3 --config /dev/zero is not read without bound")
def config_dev_zero(env):
    # Refused by type since issue 34 (a config must be a regular file), before any read.
    env.refused("convert", "--arch", "mha", "--config", "/dev/zero", "w.safetensors", "-o", "m.attnrt",
                needle="is a device, not a regular file", timeout=20)


@case("3 bench --seconds nan, bench peak --seconds nan")
def bench_nan_seconds(env):
    env.refused("bench", "sdpa", "--seq", "64", "--dim", "8", "--seconds", "nan",
                needle="must be a finite number", timeout=20)
    env.refused("bench", "peak", "--seconds", "nan", needle="must be a finite number", timeout=20)


# ---- 4. a failed write destroys nothing ----------------------------------------------------

@case("4 ulimit -f: a pre-existing --out survives and no temporary is left")
def file_size_limit(env):
    q, k, v = small_sdpa_inputs(env)
    with open(env.path("o.npy"), "w") as f:
        f.write("precious")
    env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", "o.npy",
                needle="File too large", limits={resource.RLIMIT_FSIZE: 64})
    with open(env.path("o.npy")) as f:
        if f.read() != "precious":
            raise Failure("the pre-existing output changed")
    leftovers = [n for n in os.listdir(env.work) if n.startswith(".o.npy")]
    if leftovers:
        raise Failure(f"temporary files left: {leftovers}")


@case("4 a device, a FIFO or a directory as --out is refused, not unlinked")
def device_out(env):
    q, k, v = small_sdpa_inputs(env)
    os.mkfifo(env.path("fifo"))
    for out in ("/dev/null", "fifo"):
        env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", out,
                    needle="is not a regular file")
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode) or not stat.S_ISFIFO(os.stat(env.path("fifo")).st_mode):
        raise Failure("a device or FIFO was replaced")
    os.mkdir(env.path("dir"))
    env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", "dir", needle="is a directory")


@case("4 --out a symlink: the file it names is replaced, the link stays")
def symlink_out(env):
    q, k, v = small_sdpa_inputs(env)
    with open(env.path("target.npy"), "w") as f:
        f.write("old")
    os.symlink("target.npy", env.path("link.npy"))
    env.ok("sdpa", "--q", q, "--k", k, "--v", v, "--out", "link.npy")
    if not os.path.islink(env.path("link.npy")) or np.load(env.path("target.npy")).shape != (1, 2, 5, 3):
        raise Failure("the link was replaced or its target not written")


# ---- 5. outputs that alias inputs or each other --------------------------------------------

@case("5 sdpa --out X --weights-out X; run --out MODEL; a failing --weights-out keeps --out")
def aliasing_outputs(env):
    q, k, v = small_sdpa_inputs(env)
    env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", "x.npy", "--weights-out", "x.npy",
                needle="name the same file")
    env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", q, needle="refusing to overwrite an input")
    with open(env.path("keep.npy"), "w") as f:
        f.write("keep")
    env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", "keep.npy",
                "--weights-out", "missing-dir/w.npy", needle="cannot write into its directory")
    with open(env.path("keep.npy")) as f:
        if f.read() != "keep":
            raise Failure("--out was overwritten although --weights-out failed")
    before = digest(env.model)
    save(env, "x.npy", np.zeros((1, 32, 64), np.float32))
    env.refused("run", env.model, "--input", "x.npy", "--out", env.model,
                needle="refusing to overwrite an input")
    if digest(env.model) != before:
        raise Failure("run --out MODEL changed the model")


# ---- 6. finite scores follow the softmax ---------------------------------------------------

@case("6 Q.K of 1e31 picks the best key; a mask row of float32 min is a uniform softmax")
def huge_finite_scores(env):
    q = save(env, "q.npy", np.full((1, 1, 1, 1), 1e31, np.float32))
    k = save(env, "k.npy", np.array([-1, -1.5, -2], np.float32).reshape(1, 1, 3, 1))
    v = save(env, "v.npy", np.arange(6, dtype=np.float32).reshape(1, 1, 3, 2))
    q2 = save(env, "q2.npy", np.random.default_rng(2).standard_normal((1, 1, 1, 4), dtype=np.float32))
    k2 = save(env, "k2.npy", np.random.default_rng(3).standard_normal((1, 1, 3, 4), dtype=np.float32))
    lowest = np.finfo(np.float32).min
    m = save(env, "m.npy", np.full((1, 3), lowest, np.float32))
    # `attnrt kernels`: one variant per line, its name first (only those this CPU runs).
    kernels = [line.split()[0] for line in env.ok("kernels").splitlines() if line.strip()]
    kernels = [n for n in kernels if n.replace("-", "").isalnum()] + ["auto"]
    for kernel in kernels:
        env.ok("sdpa", "--q", q, "--k", k, "--v", v, "--out", "o.npy", "--kernel", kernel)
        got = np.load(env.path("o.npy")).ravel()
        if not np.allclose(got, [0, 1]):
            raise Failure(f"{kernel}: Q.K of 1e31 gave {got}, PyTorch gives [0 1] (the best key)")
        env.ok("sdpa", "--q", q2, "--k", k2, "--v", v, "--mask", m, "--out", "o.npy", "--kernel", kernel)
        got = np.load(env.path("o.npy")).ravel()
        if not np.allclose(got, [2, 3], atol=1e-5):
            raise Failure(f"{kernel}: a mask row of float32 min gave {got}, PyTorch gives the mean [2 3]")


# ---- 7. config and shape conventions -------------------------------------------------------

@case("7 dropout -5 refused; 3-D Q (6, L, E) against K (3, S, E) refused as torch.matmul does")
def conventions(env):
    with open(env.path("c.json"), "w") as f:
        f.write('{"embed_dim": 8, "num_heads": 2, "dropout": -5}')
    env.refused("convert", "--arch", "mha", "--config", "c.json", "w.safetensors", "-o", "m.attnrt",
                needle="dropout must be in [0, 1)")
    save(env, "q.npy", np.zeros((6, 5, 4), np.float32))
    save(env, "k.npy", np.zeros((3, 7, 4), np.float32))
    env.refused("sdpa", "--q", "q.npy", "--k", "k.npy", "--v", "k.npy", "--out", "o.npy",
                needle="3-D batch sizes do not broadcast")


# ---- 8. every command validates its numbers ------------------------------------------------

@case("8 embed --batch 0 / --seq -1; plan sdpa with 2^32 dims, --dim -1, heads 2 vs kv 8, a model file")
def plan_and_embed_ranges(env):
    env.refused("embed", env.model, "-o", "e.c", "--seq", "4", "--batch", "0", needle="--batch")
    env.refused("embed", env.model, "-o", "e.c", "--seq", "-1", needle="--seq")
    env.refused("plan", "sdpa", "--batch", str(2**32), "--heads", str(2**32), "--seq", "4", "--dim", "4",
                needle="--batch")
    env.refused("plan", "sdpa", "--seq", "4", "--dim", "-1", needle="--dim")
    env.refused("plan", "sdpa", "--seq", "4", "--dim", "4", "--heads", "2", "--kv-heads", "8",
                needle="multiple of key/value heads")
    env.refused("plan", env.model, "sdpa", "--seq", "4", "--dim", "4", needle="takes no model file")
    if os.path.exists(env.path("e.h")) or os.path.exists(env.path("e.c")):
        raise Failure("embed wrote files for a refused plan")


# ---- 9. the scale --------------------------------------------------------------------------

@case("9 --scale 1e-50 (rounds to 0 in float32) and --scale '' are refused by value")
def scale_values(env):
    q, k, v = small_sdpa_inputs(env)
    for bad, needle in (("1e-50", "1e-50"), ("", "got ''"), ("1e39", "1e39"), ("nan", "nan")):
        env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", "o.npy", "--scale", bad, needle=needle)
    env.ok("sdpa", "--q", q, "--k", k, "--v", v, "--out", "o.npy", "--scale", "-0.5")


# ---- 10. messages that say what is wrong ---------------------------------------------------

@case("10 messages: no rows, negative dims, appended bytes, threads 1.5, directory config, one prefix")
def messages(env):
    save(env, "x.npy", np.zeros((0, 5, 64), np.float32))
    env.refused("run", env.model, "--input", "x.npy", "--out", "o.npy", needle="has no rows (batch 0, seq 5)")
    with open(env.path("c.json"), "w") as f:
        f.write('{"embed_dim": -5, "num_heads": 1}')
    out = env.refused("convert", "--arch", "mha", "--config", "c.json", "w.safetensors", "-o", "m.attnrt",
                      needle="got -5")
    if out.count("c.json: ") > 1:
        raise Failure(f"doubled prefix: {out.strip()}")
    with open(env.model, "rb") as src, open(env.path("big.attnrt"), "wb") as dst:
        dst.write(src.read() + b"\0" * 100)
    env.refused("inspect", "big.attnrt", needle="appended")
    q, k, v = small_sdpa_inputs(env)
    env.refused("sdpa", "--q", q, "--k", k, "--v", v, "--out", "o.npy", "--threads", "1.5",
                needle="whole number")
    env.refused("convert", "--arch", "mha", "--config", env.work, "w.safetensors", "-o", "m.attnrt",
                needle="is a directory")


# ---- 11. untrusted bytes -------------------------------------------------------------------

@case("11 escape sequences in names are escaped; a newline in embed's path cannot inject code")
def untrusted_bytes(env):
    name = "evil\x1b[2J\nname.npy"
    with open(env.path(name), "wb") as f:
        f.write(b"not an npy file")
    code, out = env.run("sdpa", "--q", name, "--k", name, "--v", name, "--out", "o.npy")
    if code == 0 or "\x1b" in out or "evil" not in out:
        raise Failure(f"raw escape byte reached the terminal (or the path was not named): {out!r}")
    model = "m\nint evil;\n.attnrt"
    with open(env.model, "rb") as src, open(env.path(model), "wb") as dst:
        dst.write(src.read())
    env.ok("embed", model, "-o", "model_data.c")
    text = ""
    for generated in ("model_data.h", "model_data.c"):
        with open(env.path(generated)) as f:
            text += f.read()
    if any(line.startswith("int evil") for line in text.splitlines()):
        raise Failure("the model path's newline put code into the generated files")


# ---- issue 34: faults and hostile input found under load ----------------------------------

def tiny_llama(env, nan_norm=False, vocab=16, dim=8, kv_scale=1.0, **overrides):
    """Writes a 1-layer llama checkpoint (dim 8, 2 heads, vocab 16 unless given) and its config;
    returns the config after `overrides` (a value None drops the key). nan_norm puts a NaN in
    the final norm, so every logit is NaN; kv_scale multiplies wk and wv (huge keys and values)."""
    config = {"dim": dim, "n_layers": 1, "n_heads": 2, "vocab_size": vocab, "hidden_dim": 16,
              "max_seq_len": 16}
    config.update(overrides)
    config = {k: v for k, v in config.items() if v is not None}
    rng = np.random.default_rng(7)
    d, v, f = dim, vocab, 16
    shapes = {"tok_embeddings.weight": (v, d), "norm.weight": (d,), "output.weight": (v, d),
              "layers.0.attention_norm.weight": (d,), "layers.0.ffn_norm.weight": (d,),
              "layers.0.attention.wq.weight": (d, d), "layers.0.attention.wk.weight": (d, d),
              "layers.0.attention.wv.weight": (d, d), "layers.0.attention.wo.weight": (d, d),
              "layers.0.feed_forward.w1.weight": (f, d), "layers.0.feed_forward.w2.weight": (d, f),
              "layers.0.feed_forward.w3.weight": (f, d)}
    header, blobs, offset = {}, [], 0
    for name, shape in shapes.items():
        a = (np.ones(shape, np.float32) if name.endswith("norm.weight")
             else rng.standard_normal(shape, dtype=np.float32) * 0.3)
        if nan_norm and name == "norm.weight":
            a[0] = np.nan
        if name.endswith(("wk.weight", "wv.weight")):
            a *= np.float32(kv_scale)
        data = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = __import__("json").dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(env.path("w.safetensors"), "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    with open(env.path("c.json"), "w") as out:
        __import__("json").dump(config, out)
    return config


def convert_llama(env, out="lm.attnrt"):
    return ("convert", "--arch", "llama", "--config", "c.json", "w.safetensors", "-o", out)


@case("34.2 generate BIG.attnrt while the file is truncated: an error exit, not SIGBUS (135)")
def truncated_while_mapped(env):
    results = []
    for attempt in range(3):
        with open(env.lm, "rb") as src, open(env.path("big.attnrt"), "wb") as dst:
            dst.write(src.read())
        p = subprocess.Popen([env.attnrt, "generate", "big.attnrt", "--prompt-tokens", "1,2",
                              "--max-new-tokens", "250", "--threads", "1"], cwd=env.work,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.read(1)  # the first token: the weights are mapped and in use
        os.truncate(env.path("big.attnrt"), 4096)
        out, err = p.communicate(timeout=120)
        if p.returncode < 0 or p.returncode > 128:
            raise Failure(f"killed by a signal (exit {p.returncode}) when its model file was truncated")
        if p.returncode == 0:
            results.append("finished before the truncation")
            continue  # every page was read already: try again
        if b"shrank" not in err:
            raise Failure(f"exit {p.returncode} without saying the file shrank: {err.decode()[-300:]}")
        return None
    return "skipped: " + "; ".join(results)


@case("34.4 --tokens/--input/--mask/sdpa --q /dev/zero: refused from the first bytes, not read to the end")
def npy_stream(env):
    limits = None if env.sanitized else {resource.RLIMIT_AS: 1 << 30}
    q, k, v = small_sdpa_inputs(env)
    lm = env.lm
    for args in (("run", lm, "--tokens", "/dev/zero", "--out", "o.npy"),
                 ("run", env.model, "--input", "/dev/zero", "--out", "o.npy"),
                 ("sdpa", "--q", q, "--k", k, "--v", v, "--mask", "/dev/zero", "--out", "o.npy"),
                 ("sdpa", "--q", "/dev/zero", "--k", k, "--v", v, "--out", "o.npy")):
        env.refused(*args, needle="bad magic", limits=limits, timeout=20)
    # A pipe holding a valid array and then endless bytes: the array's bytes, then one more.
    code, out = env.run_shell("cat q.npy /dev/zero | {attnrt} sdpa --q /dev/stdin --k k.npy --v v.npy "
                              "--out o.npy", timeout=20)
    if code == 0 or "trailing data" not in out:
        raise Failure(f"a valid header followed by endless bytes: exit {code}: {out.strip()[-300:]}")
    code, out = env.run_shell("cat q.npy | {attnrt} sdpa --q /dev/stdin --k k.npy --v v.npy --out o.npy")
    if code != 0:
        raise Failure(f"an exact .npy through a pipe was refused: {out.strip()[-300:]}")


def interrupted_write(env, args, temp_prefix, target):
    """Runs attnrt with `args` and, as soon as a temporary file starting with `temp_prefix`
    appears, sends SIGINT, SIGTERM or SIGHUP: the process must end by that signal, leave no
    temporary and `target` as it was. Returns how many signals were caught mid-write."""
    caught = 0
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for _attempt in range(5):
            with open(env.path(target), "w") as f:
                f.write("precious")
            p = subprocess.Popen([env.attnrt, *args], cwd=env.work, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            seen = []
            while p.poll() is None and not seen:
                seen = [n for n in os.listdir(env.work) if n.startswith(temp_prefix)]
            if seen:
                p.send_signal(sig)
            p.wait(timeout=120)
            if not seen or p.returncode != -sig:
                continue  # finished before the signal: try again
            caught += 1
            left = [n for n in os.listdir(env.work) if n.startswith(temp_prefix)]
            if left:
                raise Failure(f"{signal.Signals(sig).name} during attnrt {' '.join(args)} left {left}")
            with open(env.path(target)) as f:
                if f.read() != "precious":
                    raise Failure(f"{signal.Signals(sig).name} changed {target}")
            break
    return caught


@case("34.5 bench lm of a config whose weights add up to terabytes: refused up front, naming the sum")
def bench_lm_too_big(env):
    with open(env.path("big.json"), "w") as f:
        f.write('{"architecture": "llama", "dim": 16384, "n_layers": 32, "n_heads": 128, '
                '"vocab_size": 32000, "hidden_dim": 131072, "max_seq_len": 64}')
    limits = None if env.sanitized else {resource.RLIMIT_AS: 4 << 30}
    env.refused("bench", "lm", "big.json", needle="bytes of weights (the sum of its", limits=limits,
                timeout=120)


@case("34.6 SIGINT/SIGTERM/SIGHUP during convert or embed: no .OUT.tmp-XXXXXX left behind")
def interrupted_outputs(env):
    tiny_llama(env, vocab=1 << 20)  # 64 MB of embeddings: the write takes a while
    caught = interrupted_write(env, convert_llama(env), ".lm.attnrt.tmp-", "lm.attnrt")
    caught += interrupted_write(env, ("embed", env.lm, "-o", "e.c"), ".e.", "e.c")
    if caught == 0:
        return "skipped: every write finished before a signal could reach it"


@case("34.7 a FIFO as MODEL, --config, weights or --plan-from is refused without blocking")
def fifo_inputs(env):
    os.mkfifo(env.path("fifo"))
    tiny_llama(env)
    env.refused("inspect", "fifo", needle="FIFO", timeout=20)
    env.refused("run", "fifo", "--input", "x.npy", "--out", "o.npy", needle="FIFO", timeout=20)
    env.refused("convert", "--arch", "llama", "--config", "fifo", "w.safetensors", "-o", "m.attnrt",
                needle="FIFO", timeout=20)
    env.refused("convert", "--arch", "llama", "--config", "c.json", "fifo", "-o", "m.attnrt",
                needle="FIFO", timeout=20)
    env.refused("embed", env.model, "-o", "e.c", "--plan-from", "fifo", needle="FIFO", timeout=20)


@case("34.13 embed: --seq past max_seq_len, --batch 2 of an LM, a plan with zero or absurd fields")
def embed_shapes(env):
    import json as json_module
    env.refused("embed", env.lm, "-o", "e.c", "--seq", "100000", needle="max_seq_len")
    env.refused("embed", env.lm, "-o", "e.c", "--seq", "8", "--batch", "2", needle="batch 1")
    printed = env.ok("plan", env.lm, "--max-seq", "8", "--json", "--threads", "1")
    plan = json_module.loads(next(line for line in printed.splitlines() if line.startswith("{")))
    for field, value, needle in (("arena_bytes", 0, "arena_bytes 0"), ("threads", 0, "threads 0"),
                                 ("arena_bytes", 10**18, "arena_bytes 1000000000000000000"),
                                 ("arena_bytes", 100, "arena_bytes 100 is less than"),
                                 ("batch", 2, "batch 2"), ("max_seq", 0, "must be at least 1"),
                                 ("max_seq", 100000, "max_seq_len")):
        with open(env.path("p.json"), "w") as f:
            json_module.dump(dict(plan, **{field: value}), f)
        env.refused("embed", env.lm, "-o", "e.c", "--plan-from", "p.json", needle=needle)
    if os.path.exists(env.path("e.c")) or os.path.exists(env.path("e.h")):
        raise Failure("embed wrote files for a refused shape")
    with open(env.path("p.json"), "w") as f:
        json_module.dump(plan, f)
    env.ok("embed", env.lm, "-o", "e.c", "--plan-from", "p.json")


@case("34.9 NaN logits: generate refuses, naming the step, instead of printing token 0")
def nan_logits(env):
    tiny_llama(env, nan_norm=True)
    env.ok(*convert_llama(env))
    env.refused("generate", "lm.attnrt", "--prompt-tokens", "1,2", "--max-new-tokens", "3",
                needle="step 0 (after the prompt): logit of token 0 is NaN")


@case("34.8 an f16 KV cache whose values pass 65504: finite logits (saturated), not inf/NaN")
def f16_cache_overflow(env):
    tiny_llama(env, kv_scale=1e6)  # keys and values of order 1e5-1e6
    env.ok(*convert_llama(env))
    save(env, "t.npy", np.array([[1, 2, 3, 4, 5]], np.int32))
    env.ok("run", "lm.attnrt", "--tokens", "t.npy", "--out", "l.npy", "--kv-dtype", "f16")
    logits = np.load(env.path("l.npy"))
    if not np.all(np.isfinite(logits)):
        raise Failure(f"{int(np.sum(~np.isfinite(logits)))} of {logits.size} logits are not finite")
    env.ok("generate", "lm.attnrt", "--prompt-tokens", "1,2", "--max-new-tokens", "3",
           "--kv-dtype", "f16")


@case("34.10 rope_theta 5e-324: refused (the RoPE table would overflow), not NaN logits")
def tiny_rope_theta(env):
    # head_dim 64: theta^(-62/64) overflows double (with head_dim 4 it does not).
    tiny_llama(env, dim=128, rope_theta=5e-324)
    env.refused(*convert_llama(env), needle="rope_theta is too small")
    tiny_llama(env, dim=128, rope_theta=1e-3)  # small but finite everywhere: still accepted
    env.ok(*convert_llama(env))
    env.ok("generate", "lm.attnrt", "--prompt-tokens", "1,2", "--max-new-tokens", "2")


@case("34.12 stdout to a full disk: exit non-zero, not 0 with the output lost")
def stdout_full(env):
    for command in ("{attnrt} generate {lm} --prompt-tokens 1,2 --max-new-tokens 4 > /dev/full",
                    "{attnrt} inspect {model} > /dev/full",
                    "{attnrt} inspect {model} --json > /dev/full"):
        code, out = env.run_shell(command)
        if code == 0 or "cannot write standard output" not in out:
            raise Failure(f"exit {code}: {command}: {out.strip()[-300:]}")


@case("34.14 run LM --arena-bytes too small: the message's parts add up to its total")
def arena_parts(env):
    save(env, "t.npy", np.array([[1, 2, 3]], np.int32))
    import re
    for arena in ("1000", "5000"):
        out = env.refused("run", env.lm, "--tokens", "t.npy", "--out", "o.npy", "--arena-bytes", arena,
                          needle="the plan needs")
        m = re.search(r"the plan needs (\d+) bytes \(([^)]*)\)", out)
        parts = [int(n) for n in re.findall(r"(\d+)", m.group(2))] if m else []
        if not m or sum(parts) != int(m.group(1)) or "rope table" not in m.group(2):
            raise Failure(f"the parts do not add up to the total: {out.strip()[-300:]}")


@case("34.15 --prompt-tokens '1,2,'; a config {..}\\0{..}; n_kv_heads 0 refused by name")
def lenient_parsing(env):
    env.refused("generate", env.lm, "--prompt-tokens", "1,2,", needle="after the last comma")
    tiny_llama(env)
    with open(env.path("c.json"), "rb") as f:
        text = f.read()
    with open(env.path("c.json"), "wb") as f:
        f.write(text + b"\0" + text)
    env.refused(*convert_llama(env), needle="NUL byte at offset")
    tiny_llama(env, n_kv_heads=0)
    env.refused(*convert_llama(env), needle="'n_kv_heads': 0 is not allowed")
    tiny_llama(env, n_kv_heads=None)  # absent: as many as the query heads
    env.ok(*convert_llama(env))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--model", required=True, help="the demo model (build/.../models/demo.attnrt)")
    ap.add_argument("--lm", required=True, help="the bundled language model (build/.../models/lm.attnrt)")
    ap.add_argument("--sanitized", action="store_true")
    ap.add_argument("--only", default="", help="run only the cases whose name starts with this")
    args = ap.parse_args()
    passed = failed = 0
    for item, fn in CASES:
        if not item.startswith(args.only):
            continue
        with tempfile.TemporaryDirectory(prefix="attnrt_hostile_") as work:
            env = Env(os.path.abspath(args.attnrt), os.path.abspath(args.model),
                      os.path.abspath(args.lm), work, args.sanitized)
            try:
                note = fn(env)
                passed += 1
                print(f"ok   {item}" + (f" ({note})" if note else ""))
            except Failure as e:
                failed += 1
                print(f"FAIL {item}: {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

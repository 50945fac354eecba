# Runs the attnrt CLI from python tests: kernel listing, `attnrt sdpa` on numpy arrays, model
# conversion and runs, and the command line, the check loop and the Failure the model parity
# scripts share.
import argparse
import dataclasses
import json
import os
import subprocess

import numpy as np

from script_setup import import_tools_python

import_tools_python()
from command_json import last_line_json  # noqa: E402


@dataclasses.dataclass
class KernelInfo:
    name: str
    returns_weights: bool


def list_kernels(attnrt):
    """The variants this CPU runs, from `attnrt kernels --json` (a list of objects
    name/isa/family/returns_weights/available)."""
    proc = subprocess.run([attnrt, "kernels", "--json"], capture_output=True, text=True, check=True)
    kernels = [KernelInfo(name=k["name"], returns_weights=bool(k["returns_weights"]))
               for k in json.loads(proc.stdout) if k["available"]]
    if not kernels:
        raise RuntimeError(f"`{attnrt} kernels` listed no kernel")
    return kernels


@dataclasses.dataclass
class SdpaRun:
    returncode: int  # None when attnrt could not be started or timed out (see stderr)
    stderr: str
    out: np.ndarray = None      # None when the run failed
    weights: np.ndarray = None  # None unless asked for and the run succeeded


def write_npy(directory, name, array):
    path = os.path.join(directory, name + ".npy")
    np.save(path, array)
    return path


def run_sdpa(attnrt, workdir, q, k, v, mask=None, causal="none", scale=None, kernel="auto",
             threads=None, want_weights=False, extra_args=()):
    """Writes the inputs into workdir, runs `attnrt sdpa` and reads back what it wrote.

    Inputs may be arrays (written as .npy) or paths to existing files (passed as is,
    so error-path tests can hand over hand-made broken files)."""
    def as_path(name, x):
        return x if isinstance(x, str) else write_npy(workdir, name, x)

    out_path = os.path.join(workdir, "out.npy")
    weights_path = os.path.join(workdir, "weights.npy")
    for stale in (out_path, weights_path):
        if os.path.exists(stale):
            os.remove(stale)
    cmd = [attnrt, "sdpa", "--q", as_path("q", q), "--k", as_path("k", k), "--v", as_path("v", v),
           "--out", out_path, "--causal", causal, "--kernel", kernel]
    if mask is not None:
        cmd += ["--mask", as_path("mask", mask)]
    if scale is not None:
        cmd += ["--scale", repr(float(scale))]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    if want_weights:
        cmd += ["--weights-out", weights_path]
    cmd += list(extra_args)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return SdpaRun(returncode=None, stderr="attnrt sdpa did not finish within 60 s")
    except OSError as e:  # e.g. the binary is being relinked by a concurrent build
        return SdpaRun(returncode=None, stderr=f"could not start {attnrt}: {e}")
    run = SdpaRun(returncode=proc.returncode, stderr=proc.stderr)
    if proc.returncode == 0:
        run.out = np.load(out_path)
        if want_weights:
            run.weights = np.load(weights_path)
    return run


def max_abs_error(got, want):
    """max |got - want| over the finite elements, and the tolerance scale max(1, max|want|).

    NaN and +-inf must sit exactly where `want` has them (PyTorch propagates NaN and inf
    inputs, and so must attnrt); any difference there, or in shape, gives inf."""
    want = np.asarray(want, dtype=np.float64)
    finite_want = want[np.isfinite(want)]
    scale = max(1.0, float(np.max(np.abs(finite_want)))) if finite_want.size else 1.0
    if got is None or got.shape != want.shape:
        return float("inf"), scale
    got = got.astype(np.float64)
    for same_class in (np.isnan, np.isposinf, np.isneginf):
        if not np.array_equal(same_class(got), same_class(want)):
            return float("inf"), scale
    finite = np.isfinite(want)
    if not finite.any():
        return 0.0, scale
    return float(np.max(np.abs(got[finite] - want[finite]))), scale


# ---- language models (llama): convert, run --tokens, generate ------------------------------

def run_cli(cmd, timeout=120):
    """subprocess.run with captured text output; a CompletedProcess with returncode None and the
    reason in stderr when attnrt could not be started or did not finish in time."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, None, "", f"did not finish within {timeout} s")
    except OSError as e:  # e.g. the binary is being relinked by a concurrent build
        return subprocess.CompletedProcess(cmd, None, "", f"could not start {cmd[0]}: {e}")


# Largest relative error (max |got - want| / max(1, max |want|)) allowed against float64 PyTorch
# on the f32 weights, by the type `attnrt convert --dtype` stores weight matrices in.
# q4_0's, q4_K's and q6_K's figures are llama_parity_test's (against the stored weights and
# 8-bit activations, issue 32); they have no f32-weight tolerance, so the other parity scripts
# do not take them.
DTYPE_TOLERANCE = {"f32": 1e-4, "f16": 5e-3, "bf16": 3e-2, "q8": 5e-2, "q4_0": 2e-3,
                   "q4_K": 2e-3, "q6_K": 2e-3}


def parse_parity_arguments(add_arguments=None):
    """The command line of the model parity scripts: --attnrt BIN, --threads N for attnrt, and
    --dtype, the type weight matrices are converted to (DTYPE_TOLERANCE gives its tolerance);
    add_arguments(parser), when given, adds a script's own options."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", choices=sorted(DTYPE_TOLERANCE), default="f32",
                    help="convert weight matrices to this type; the tolerance follows it")
    if add_arguments is not None:
        add_arguments(ap)
    return ap.parse_args()


class Failure(Exception):
    """What a parity script's check raises when attnrt got something wrong (run_checks)."""


def run_checks(checks, stats):
    """Runs a parity script's (description, check) pairs in order and counts stats.passed and
    stats.failed: a check returns a note ("ok" and the note are printed when it is a str) or
    raises Failure, or any other exception (a bug in the test or in a tool it drives), reported
    alike; either way the rest go on."""
    for desc, check in checks:
        try:
            note = check()
        except Failure as e:
            stats.failed += 1
            print(f"FAIL {desc}: {e}", flush=True)
            continue
        except Exception as e:  # a bug in the test or in export_torch.py: report it, go on
            stats.failed += 1
            print(f"FAIL {desc}: {type(e).__name__}: {e}", flush=True)
            continue
        stats.passed += 1
        if isinstance(note, str):
            print(f"ok   {desc}: {note}", flush=True)


def greedy_summary(stats, case_name=lambda case: case):
    """The greedy part of a parity script's summary line, from stats.compared, .generated and
    .near_ties ((case, step) where comparing stopped; case_name(case) names it)."""
    ties = ", ".join(f"{case_name(c)} step {s}" for c, s in stats.near_ties) or "none"
    return (f"greedy {stats.compared} of {stats.generated} tokens compared, all equal; "
            f"near-tie stops: {ties}")


def passed_failed(stats):
    """Prints a parity script's last line, the counts run_checks kept, and returns its exit
    status: 1 when a check failed."""
    print(f"{stats.passed} passed, {stats.failed} failed")
    return 1 if stats.failed else 0


class CaseContext:
    """What a parity script's cases share: the attnrt binary, its --threads, and a scratch
    folder with one numbered subfolder a case (new_dir), so a failure's files are easy to find."""

    def __init__(self, attnrt, threads, workdir):
        self.attnrt, self.threads, self.workdir = attnrt, threads, workdir
        self.count = 0

    def new_dir(self, label):
        self.count += 1
        d = os.path.join(self.workdir, f"{self.count:03d}_{label}")
        os.makedirs(d)
        return d


def convert_model(attnrt, directory, out=None, arch=None, dtype="f32"):
    """`attnrt convert --config DIR/config.json DIR/model.safetensors -o OUT --dtype DTYPE` (the
    config names the architecture unless arch is given); returns (CompletedProcess, OUT)."""
    out = out or os.path.join(directory, "model.attnrt")
    cmd = [attnrt, "convert", "--config", os.path.join(directory, "config.json"),
           os.path.join(directory, "model.safetensors"), "-o", out, "--dtype", dtype]
    if arch:
        cmd[2:2] = ["--arch", arch]
    return run_cli(cmd), out


def run_tokens(attnrt, model, tokens, workdir, threads=None, name="tokens", extra_args=()):
    """`attnrt run MODEL --tokens T.npy --out LOGITS.npy [extra_args]`; tokens is an array
    (written as .npy) or the path of an existing file. Returns (CompletedProcess, logits or
    None)."""
    path = tokens if isinstance(tokens, str) else write_npy(workdir, name, tokens)
    out = os.path.join(workdir, name + "_logits.npy")
    if os.path.exists(out):
        os.remove(out)
    cmd = [attnrt, "run", model, "--tokens", path, "--out", out]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    cmd += list(extra_args)
    proc = run_cli(cmd)
    return proc, (np.load(out) if proc.returncode == 0 else None)


def generate(attnrt, model, prompt_tokens, max_new_tokens, extra_args=()):
    """`attnrt generate MODEL --prompt-tokens a,b,c --max-new-tokens N --json ...`; returns
    (CompletedProcess, the JSON object of its last stdout line or None)."""
    cmd = [attnrt, "generate", model, "--prompt-tokens", ",".join(str(int(t)) for t in prompt_tokens),
           "--max-new-tokens", str(max_new_tokens), "--json", *extra_args]
    proc = run_cli(cmd)
    result = None
    if proc.returncode == 0 and proc.stdout.strip():
        result = last_line_json(proc.stdout)
    return proc, result

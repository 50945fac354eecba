#!/usr/bin/python3
"""PyTorch peer of `attnrt bench sdpa`: times eager attention on the same shapes.

The code timed is what a PyTorch user writes without a fused kernel (Debian's
torch 1.13 has no F.scaled_dot_product_attention):

    scores = q @ k.transpose(-2, -1) * scale
    scores = scores.masked_fill(blocked, -inf)        # causal runs only
    out = torch.softmax(scores, dim=-1) @ v

float32, random inputs of shape (B, H, L, E); the causal mask is built once
outside the timed region (as a model keeps it in a buffer). Warm-up runs, then
timed runs (as many as fit in --seconds, at least 5, or --repeats), median and
minimum wall time in ms, and the median process CPU time (cpu_ms, all threads). Threads: torch.set_num_threads(T), and OMP/OpenBLAS thread counts
set to T before torch loads, so the BLAS underneath uses T threads too.

Memory: the peak of the bytes PyTorch's CPU allocator holds during one call,
from the profiler's memory events (peak_bytes, which includes the output), and
intermediate_bytes = peak_bytes - output bytes, comparable to attnrt's scratch.

BLAS: Debian's torch calls whatever libblas.so.3 resolves to; without
libopenblas0-pthread that is the slow reference BLAS. The script prints the
libraries mapped into the process (/proc/self/maps) and torch's build config,
and exits with status 2 when libopenblas is not loaded (unless
--allow-reference-blas), since the comparison would be meaningless.

Output: a human line per shape, then one JSON object as the last line:
{"blas": {...}, "threads": T, "runs": [{"seq", "seq_kv", "causal", "median_ms",
"min_ms", "gflops", "peak_bytes", "intermediate_bytes", ...}, ...]}.
GFLOP/s counts 2*B*H*L*S*(E+Ev) flops (4*B*H*L*S*E at E == Ev), as attnrt does.
"""
import argparse
import json
import math
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "python"))
from output_files import write_text_atomically  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--seq", type=int, nargs="+", default=[1024],
                    help="queries L; several values sweep (S = L unless --seq-kv)")
    ap.add_argument("--seq-kv", type=int, default=0, help="keys S (default: L)")
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--dim-v", type=int, default=0, help="value dim (default: E)")
    ap.add_argument("--causal", nargs="+", default=["none"],
                    choices=["none", "upper-left", "lower-right"],
                    help="one or more causal rules (each is run for every --seq)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=0, help="0: as many as fit in --seconds, >= 5")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--no-memory", action="store_true", help="skip the profiler memory pass")
    ap.add_argument("--allow-reference-blas", action="store_true")
    ap.add_argument("--json-out", help="also write the JSON object to this file")
    return ap.parse_args(argv)


def set_thread_env(threads):
    # Must happen before torch (and the BLAS it loads) starts its thread pools.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)


def blas_report(torch):
    """Which BLAS this process really uses: mapped libraries and torch's config."""
    a = torch.ones(64, 64)
    _ = a @ a  # make sure the BLAS is loaded and called
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = os.path.basename(path)
            if "blas" in name or "lapack" in name or "mkl" in name:
                libs.add(path)
    config = torch.__config__.show()
    match = re.search(r"\bBLAS_INFO=(\w+)", config)
    blas_info = f"BLAS_INFO={match.group(1) if match else 'unknown'}"
    return {
        "libraries": sorted(libs),
        "openblas_loaded": any("libopenblas" in os.path.basename(p) for p in libs),
        "torch_blas_info": blas_info,
        "libblas_so_3": os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
        if os.path.exists("/usr/lib/x86_64-linux-gnu/libblas.so.3") else None,
    }


def reference_blas_refused(blas, allow_reference_blas, program):
    """Says why and returns True when torch runs on the reference BLAS and that was not allowed:
    its speed would make any comparison with attnrt meaningless."""
    if blas["openblas_loaded"] or allow_reference_blas:
        return False
    print(f"{program}: error: libopenblas is not loaded, so torch runs on the reference BLAS; "
          "install libopenblas0-pthread (or pass --allow-reference-blas)", file=sys.stderr)
    return True


def emit_result(result, json_out):
    """Prints `result` as one JSON line on stdout (what the report scripts parse) and, when
    json_out names a file, writes it there too, indented."""
    if json_out:
        write_text_atomically(json_out, json.dumps(result, indent=1))
    print(json.dumps(result))


def causal_blocked(torch, rule, L, S):
    """True where a query may NOT attend (what masked_fill takes), or None."""
    if rule == "none":
        return None
    offset = 0 if rule == "upper-left" else S - L
    return ~torch.ones(L, S, dtype=torch.bool).tril(diagonal=offset)


def eager_attention(torch, q, k, v, scale, blocked):
    scores = q @ k.transpose(-2, -1) * scale
    if blocked is not None:
        scores = scores.masked_fill(blocked, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def time_runs(fn, warmup, repeats, seconds):
    """(median wall ms, min wall ms, median process CPU ms, runs), as attnrt bench does."""
    def once():
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3
    estimate = min(once()[0] for _ in range(max(1, warmup)))
    count = repeats if repeats > 0 else int(min(1e6, max(5, seconds * 1e3 / max(estimate, 1e-6))))
    runs = [once() for _ in range(count)]
    wall = [w for w, _ in runs]
    return statistics.median(wall), min(wall), statistics.median(c for _, c in runs), count


def peak_call_bytes(torch, fn):
    """Peak bytes held by the CPU allocator during one call (profiler memory events)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    held = peak = 0
    for e in sorted(events, key=lambda e: e.start_us()):
        held += e.nbytes()
        peak = max(peak, held)
    return peak


def run_case(torch, args, L, rule):
    S = args.seq_kv or L
    E, Ev = args.dim, args.dim_v or args.dim
    B, H = args.batch, args.heads
    gen = torch.Generator().manual_seed(1)
    q = torch.rand(B, H, L, E, generator=gen) * 2 - 1
    k = torch.rand(B, H, S, E, generator=gen) * 2 - 1
    v = torch.rand(B, H, S, Ev, generator=gen) * 2 - 1
    blocked = causal_blocked(torch, rule, L, S)
    scale = 1.0 / math.sqrt(E)

    def call():
        return eager_attention(torch, q, k, v, scale, blocked)

    with torch.inference_mode():
        median_ms, min_ms, cpu_ms, runs = time_runs(call, args.warmup, args.repeats, args.seconds)
        peak = None if args.no_memory else peak_call_bytes(torch, call)
    flops = 2.0 * B * H * L * S * (E + Ev)
    out_bytes = B * H * L * Ev * 4
    row = {
        "batch": B, "heads": H, "seq": L, "seq_kv": S, "dim": E, "dim_v": Ev, "causal": rule,
        "threads": args.threads, "median_ms": median_ms, "min_ms": min_ms, "cpu_ms": cpu_ms,
        "runs": runs,
        "gflops": flops / (median_ms * 1e6), "flops": flops,
        "peak_bytes": peak, "intermediate_bytes": None if peak is None else peak - out_bytes,
    }
    mem = "" if peak is None else f", peak {peak} bytes ({peak - out_bytes} besides the output)"
    print(f"torch_peer: B={B} H={H} L={L} S={S} E={E} Ev={Ev} causal {rule}, {args.threads} "
          f"thread(s): median {median_ms:.4f} ms (CPU {cpu_ms:.4f} ms), min {min_ms:.4f} ms over {runs} runs, "
          f"{row['gflops']:.1f} GFLOP/s dense{mem}", flush=True)
    return row


def main(argv=None):
    args = parse_args(argv)
    set_thread_env(args.threads)
    import torch
    torch.set_num_threads(args.threads)
    blas = blas_report(torch)
    print(f"torch_peer: torch {torch.__version__}, {torch.get_num_threads()} thread(s), "
          f"{blas['torch_blas_info']}, BLAS libraries loaded: {', '.join(blas['libraries']) or 'none'}",
          flush=True)
    if reference_blas_refused(blas, args.allow_reference_blas, "torch_peer"):
        return 2
    runs = [run_case(torch, args, L, rule) for rule in args.causal for L in args.seq]
    result = {"torch_version": torch.__version__, "threads": args.threads, "blas": blas,
              "runs": runs}
    emit_result(result, args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

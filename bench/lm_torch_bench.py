#!/usr/bin/python3
"""PyTorch peer of `attnrt bench lm`: prefill and decode speed of an eager Llama with a KV cache.

The model is tools/python/torch_modules.py's Llama (llama2.c's module tree; attention spelled
out as matmul, masked_fill, softmax, matmul, since Debian's torch 1.13 has no
F.scaled_dot_product_attention; a KV cache as Meta's reference keeps it: per layer
(batch, max_seq_len, kv_heads, head_dim) tensors written in place), at a config.json's shape
(default bench/configs/stories15m.json: llama2.c's stories15M, dim 288, 6 layers, 6 heads,
hidden 768, vocab 32000, max_seq_len 256) with random float32 weights as attnrt bench lm makes
them: PyTorch's nn.Linear initialisation (uniform in +-1/sqrt(in)), RMSNorm weights 1,
embeddings tied.

Measured as attnrt bench lm measures (same options, same JSON keys where they mean the same):
  prefill  --prompt-len random tokens (capped at max_seq_len) through an empty cache, logits of
           the last position only; median wall time over runs filling --seconds (at least 3),
           tokens/s and GFLOP/s with attnrt's flop count (2 * layer matrix parameters * tokens,
           the output matrix once, 4 * layers * heads * head_dim * P(P+1)/2 for attention);
  decode   --gen single-token steps ending at context min(prompt_len + gen, max_seq_len), each
           timed alone after an untimed prefill of the tokens before them; rounds repeat until
           at least 3 * gen steps and --seconds have passed; median ms per token.
Threads: torch.set_num_threads(T), and OMP/OpenBLAS/MKL thread counts set to T before torch
loads (bench/torch_peer.py's set_thread_env); --threads defaults to all hardware threads, as
attnrt's does. Runs under torch.inference_mode().

BLAS: as bench/torch_peer.py, exits with status 2 when torch did not load libopenblas (the
reference BLAS would make the comparison meaningless) unless --allow-reference-blas.

Output: a human summary on stderr and one JSON object on stdout (the last line).
Usage: lm_torch_bench.py [CONFIG.json] [--threads T] [--prompt-len 256] [--gen 32]
                         [--seconds 2] [--seed 1] [--json-out FILE] [--attnrt PATH]
(the config is read with the runtime's llama keys and defaults: `attnrt architectures --json`
of --attnrt, else $ATTNRT, else attnrt on PATH)
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_CONFIG = os.path.join(HERE, "configs", "stories15m.json")
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))
from output_files import clashing_paths  # noqa: E402


def load_by_path(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", nargs="?", default=DEFAULT_CONFIG,
                    help="llama config.json (export_torch.py's format)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--prompt-len", type=int, default=256, help="capped at max_seq_len")
    ap.add_argument("--gen", type=int, default=32,
                    help="timed decode steps per round, ending at the longest context")
    ap.add_argument("--seconds", type=float, default=2.0, help="time budget of each measurement")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--allow-reference-blas", action="store_true",
                    help="run even when torch did not load libopenblas (see torch_peer.py)")
    ap.add_argument("--json-out", help="also write the JSON object to this file")
    ap.add_argument("--attnrt", help="the attnrt whose llama record reads the config (default: "
                    "$ATTNRT, else attnrt on PATH)")
    args = ap.parse_args(argv)
    if args.threads < 1 or args.prompt_len < 1 or args.gen < 1 or args.seconds <= 0:
        ap.error("--threads, --prompt-len, --gen and --seconds must be positive")
    return args


def layer_matrix_params(c):
    hd = c["dim"] // c["n_heads"]
    attention = 2 * c["dim"] * c["n_heads"] * hd + 2 * c["dim"] * c["n_kv_heads"] * hd
    return c["n_layers"] * (attention + 3 * c["dim"] * c["hidden_dim"])


def main(argv=None):
    args = parse_args(argv)
    clash = clashing_paths([args.json_out], [args.config])
    if clash:
        print(f"lm_torch_bench: {clash}", file=sys.stderr)
        return 2
    peer = load_by_path("attnrt_torch_peer", os.path.join(HERE, "torch_peer.py"))
    peer.set_thread_env(args.threads)
    import torch
    torch.set_num_threads(args.threads)
    tm = load_by_path("attnrt_torch_modules", os.path.join(ROOT, "tools", "python",
                                                           "torch_modules.py"))
    if args.attnrt is not None:
        tm.runtime.use(args.attnrt)
    with open(args.config) as f:
        try:
            config = tm.resolve_config("llama", json.load(f))
        except (tm.runtime.AttnrtUnavailable, ValueError) as e:
            sys.exit(f"lm_torch_bench.py: error: {args.config}: {e}")
    c = config
    if args.gen >= c["max_seq_len"]:
        sys.exit(f"lm_torch_bench.py: error: --gen {args.gen} leaves no prompt within max_seq_len "
                 f"{c['max_seq_len']}")
    prompt_len = min(args.prompt_len, c["max_seq_len"])
    torch.manual_seed(args.seed)
    model = tm.Llama(config, tie_embeddings=True).eval()  # nn.Linear's U(+-1/sqrt(in)), norms 1
    blas = peer.blas_report(torch)
    if peer.reference_blas_refused(blas, args.allow_reference_blas, "lm_torch_bench.py"):
        return 2
    gen = torch.Generator().manual_seed(args.seed)
    prompt = torch.randint(0, c["vocab_size"], (1, prompt_len), generator=gen)

    with torch.inference_mode():
        # Prefill: the whole prompt into an empty cache, last position's logits.
        cache = model.new_cache(1)
        model(prompt, 0, cache, last_only=True)  # warm-up
        prefill = []
        started = time.perf_counter()
        while len(prefill) < 3 or time.perf_counter() - started < args.seconds:
            t0 = time.perf_counter()
            model(prompt, 0, cache, last_only=True)
            prefill.append((time.perf_counter() - t0) * 1e3)

        # Decode: gen steps ending at the longest context; the prompt before them untimed.
        context = min(prompt_len + args.gen, c["max_seq_len"])
        decode_prompt = context - args.gen
        steps = []
        started = time.perf_counter()
        while len(steps) < 3 * args.gen or time.perf_counter() - started < args.seconds:
            model(prompt[:, :decode_prompt], 0, cache, last_only=True)
            for i in range(args.gen):
                nxt = torch.randint(0, c["vocab_size"], (1, 1), generator=gen)
                t0 = time.perf_counter()
                model(nxt, decode_prompt + i, cache, last_only=True)
                steps.append((time.perf_counter() - t0) * 1e3)

    hd = c["dim"] // c["n_heads"]
    p = float(prompt_len)
    flops = (2.0 * layer_matrix_params(c) * p + 2.0 * c["dim"] * c["vocab_size"]
             + 4.0 * c["n_layers"] * c["n_heads"] * hd * p * (p + 1) / 2)
    prefill_ms, decode_ms = statistics.median(prefill), statistics.median(steps)
    result = {
        "model": os.path.relpath(args.config, ROOT) if args.config.startswith(ROOT) else args.config,
        "peer": "torch eager", "torch_version": torch.__version__,
        "dim": c["dim"], "layers": c["n_layers"], "heads": c["n_heads"],
        "kv_heads": c["n_kv_heads"], "hidden_dim": c["hidden_dim"], "vocab": c["vocab_size"],
        "threads": args.threads, "prompt_tokens": prompt_len,
        "prefill_ms": prefill_ms,
        "prefill_stddev_ms": statistics.stdev(prefill) if len(prefill) > 1 else 0.0,
        "prefill_runs": len(prefill), "prefill_tokens_per_s": 1000.0 * p / prefill_ms,
        "prefill_gflops": flops / (prefill_ms * 1e6),
        "decode_context": context, "decode_steps": args.gen,
        "decode_ms_per_token": decode_ms,
        "decode_stddev_ms": statistics.stdev(steps) if len(steps) > 1 else 0.0,
        "decode_runs": len(steps), "decode_tokens_per_s": 1000.0 / decode_ms,
        "blas": blas,
    }
    print(f"lm_torch_bench: torch {torch.__version__} eager, {args.threads} thread(s), "
          f"{blas['torch_blas_info']}; dim {c['dim']}, {c['n_layers']} layers, {c['n_heads']} "
          f"heads ({c['n_kv_heads']} kv), hidden {c['hidden_dim']}, vocab {c['vocab_size']}",
          file=sys.stderr)
    print(f"  prefill {prompt_len} tokens: {prefill_ms:.2f} ms ({len(prefill)} runs), "
          f"{result['prefill_tokens_per_s']:.0f} tokens/s, {result['prefill_gflops']:.1f} GFLOP/s",
          file=sys.stderr)
    print(f"  decode at context {decode_prompt + 1}..{context}: {decode_ms:.3f} ms/token "
          f"({len(steps)} steps), {result['decode_tokens_per_s']:.1f} tokens/s", file=sys.stderr)
    peer.emit_result(result, args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

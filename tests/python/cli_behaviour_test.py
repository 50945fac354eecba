#!/usr/bin/python3
"""CLI conventions of issue 18 ("a CLI that behaves like its neighbours").

- `--json` leaves only JSON on stdout (prose on stderr) for kernels, inspect,
  plan MODEL, plan sdpa, bench sdpa (one shape and a sweep) and bench peak;
- one default thread count: `plan` plans for the worker count a default `run`
  uses, and a `run --arena-bytes` of exactly that plan succeeds, one byte less
  fails with "arena too small" naming the whole plan;
- every command that runs or plans says how many threads it used;
- `attnrt kernels` has a header line ('#'), `kernels --json` the same variants;
- `run --weights-out` on a single-layer model gives the weights `attnrt sdpa`
  gives for the same projected Q and K, `run --kernel` is honoured, and a model
  with more layers refuses --weights-out;
- `--activations auto|f32` (issue 32): another value is refused naming the option by every
  command that takes it (run, generate, chat, plan, bench lm, embed); embed refuses f32 and a
  --plan-from made with it (the firmware session runs auto); on f32 weights f32 changes
  nothing; `bench lm` on q8 weights names hwy-int8 by default and another kernel with f32,
  in its summary line and its JSON alike;
- `embed --kv-dtype` (a language model's KV-cache storage, as generate, run and plan take it):
  the header records it as NAME_KV_TYPE, an attnrt_kv_type code of attnrt.h (ATTNRT_KV_F32 1,
  F16 2, Q8 4); a --plan-from plan made with another --kv-dtype is refused naming both (it
  sized another cache), and a q8 plan whose arena is smaller than an f32 cache's needs embeds
  with --kv-dtype q8; an encoder refuses --kv-dtype f16 and its header has no NAME_KV_TYPE;
- `bench lm --isa` (issue 32: AVX2 code on an AVX-512 machine): a target this CPU lacks is
  refused naming the option, the value and the targets it has; each target it lists runs,
  and the summary and JSON name the kernels' target as that one or one below it (the int8
  kernel exactly that one), the JSON the option as given;
- tools/python/plot_heatmap.py (behind demo --png) refuses its input as its output, keeping
  the input, and names a missing input without a traceback.

Usage: cli_behaviour_test.py --attnrt PATH --model DEMO.attnrt --lm LM.attnrt --demo-dir models/demo.
Exits 77 (CTest skip) without numpy.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

from script_setup import skip_without_modules

with skip_without_modules():
    import numpy as np

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run(attnrt, *args, ok=True):
    proc = subprocess.run([attnrt, *args], capture_output=True, text=True, timeout=120)
    if ok and proc.returncode != 0:
        raise SystemExit(f"attnrt {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def json_only(attnrt, *args):
    proc = run(attnrt, *args)
    try:
        return json.loads(proc.stdout), proc.stderr
    except ValueError as e:
        check(False, f"attnrt {' '.join(args)}: stdout is not only JSON ({e}): {proc.stdout[:200]!r}")
        return None, proc.stderr


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    tensors = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        tensors[name] = np.frombuffer(blob[8 + n + begin:8 + n + end], np.float32).reshape(t["shape"])
    return tensors


def threads_said(text):
    m = re.search(r"threads: (\d+) \(", text)
    return int(m.group(1)) if m else None


def check_json_outputs(attnrt, model):
    kernels, _ = json_only(attnrt, "kernels", "--json")
    check(isinstance(kernels, list) and kernels and all(
        {"name", "isa", "family", "returns_weights", "available"} <= k.keys() for k in kernels),
        "kernels --json: a list of {name, isa, family, returns_weights, available}")
    listing = run(attnrt, "kernels").stdout.splitlines()
    check(listing and listing[0].startswith("#") and "ISA" in listing[0],
          f"kernels: a '#' header line first, got {listing[:1]}")
    names = [line.split()[0] for line in listing[1:] if line.strip()]
    check(names == [k["name"] for k in kernels or [] if k["available"]],
          "kernels and kernels --json list the same available variants")

    info, _ = json_only(attnrt, "inspect", model, "--json")
    if info:
        for key in ("file_bytes", "checksum", "architecture", "layers", "config", "tensors"):
            check(key in info, f"inspect --json has {key}")
        check(info.get("file_bytes") == os.path.getsize(model), "inspect --json file_bytes")
        check(len(info.get("tensors", [])) == 12, "inspect --json lists the demo's 12 tensors")

    plan, err = json_only(attnrt, "plan", model, "--seq", "32", "--json")
    check(plan is not None and plan.get("arena_bytes", 0) > 0, "plan --json arena_bytes")
    check(threads_said(err) == (plan or {}).get("threads"), "plan --json names its threads on stderr")
    sdpa_plan, err = json_only(attnrt, "plan", "sdpa", "--seq", "64", "--dim", "16", "--json")
    check(sdpa_plan is not None and sdpa_plan.get("scratch_bytes", -1) >= 0, "plan sdpa --json")
    check(threads_said(err) is not None, "plan sdpa --json names its threads on stderr")

    one, err = json_only(attnrt, "bench", "sdpa", "--heads", "1", "--seq", "16", "--dim", "8",
                         "--repeats", "3", "--json")
    check(isinstance(one, dict) and one.get("runs") == 3 and "stddev_ms" in one,
          "bench sdpa --json: one object with runs and stddev_ms")
    check(threads_said(err) is not None, "bench sdpa --json names its threads on stderr")
    sweep, _ = json_only(attnrt, "bench", "sdpa", "--heads", "1", "--seq", "8,16", "--dim", "8",
                         "--repeats", "2", "--json")
    check(isinstance(sweep, list) and len(sweep) == 2, "bench sdpa --seq 8,16 --json: a list of 2")
    causal, _ = json_only(attnrt, "bench", "sdpa", "--heads", "1", "--seq", "64", "--dim", "8",
                          "--causal", "upper-left", "--repeats", "2", "--json")
    if causal:
        # Upper-left with L == S: row i sees i + 1 keys.
        needed = 2.0 * 64 * 65 / 2 * (8 + 8)
        check(causal.get("flops") == needed and causal.get("flops_dense") == 2.0 * 64 * 64 * 16,
              f"causal flops count the visible pairs: {causal.get('flops')} != {needed}")
    peak, _ = json_only(attnrt, "bench", "peak", "--seconds", "0.01", "--trials", "1", "--json")
    check(isinstance(peak, dict) and peak.get("measured_gflops", 0) > 0, "bench peak --json")


def check_default_threads_and_arena(attnrt, model, x_path, work):
    plan, _ = json_only(attnrt, "plan", model, "--seq", "32", "--json")
    out = os.path.join(work, "y.npy")
    proc = run(attnrt, "run", model, "--input", x_path, "--out", out)
    m = re.search(r"arena: planned (\d+) bytes", proc.stdout)
    check(m is not None and int(m.group(1)) == plan["arena_bytes"],
          f"default plan ({plan['arena_bytes']}) == default run's arena ({m and m.group(1)})")
    check(threads_said(proc.stdout) == plan["threads"],
          f"run and plan use one default thread count ({threads_said(proc.stdout)} vs {plan['threads']})")
    exact = run(attnrt, "run", model, "--input", x_path, "--out", out,
                "--arena-bytes", str(plan["arena_bytes"]), ok=False)
    check(exact.returncode == 0, f"run in an arena of exactly the plan succeeds: {exact.stderr}")
    short = run(attnrt, "run", model, "--input", x_path, "--out", out,
                "--arena-bytes", str(plan["arena_bytes"] - 1), ok=False)
    want = (f"arena too small: the plan needs {plan['arena_bytes']} bytes (activations "
            f"{plan['activation_bytes']} + scratch {plan['scratch_bytes']}), have {plan['arena_bytes'] - 1}")
    check(short.returncode != 0 and want in short.stderr,
          f"one byte short names the whole plan: {short.stderr.strip()!r}")
    for args in (["demo", "--model", model, "--repeats", "1"],
                 ["sdpa", "--q", os.path.join(work, "q.npy"), "--k", os.path.join(work, "q.npy"),
                  "--v", os.path.join(work, "q.npy"), "--out", os.path.join(work, "o.npy")],
                 ["bench", "sdpa", "--heads", "1", "--seq", "8", "--dim", "8", "--repeats", "1"]):
        if args[0] == "sdpa":
            np.save(os.path.join(work, "q.npy"), np.ones((1, 1, 4, 8), np.float32))
        if args[0] == "demo":
            args = args + ["--input", os.path.join(os.path.dirname(x_path), "input.npy")]
        proc = run(attnrt, *args, ok=False)
        check(proc.returncode == 0 and threads_said(proc.stdout) == plan["threads"],
              f"{args[0]} runs the default {plan['threads']} thread(s) and says so: "
              f"{proc.stdout[:300]!r} {proc.stderr[:300]!r}")


def check_run_weights(attnrt, model, demo_dir, work):
    x = np.load(os.path.join(demo_dir, "input.npy"))  # (1, 32, 64), batch_first
    w = read_safetensors(os.path.join(demo_dir, "model.safetensors"))
    heads = json.load(open(os.path.join(demo_dir, "config.json")))["nhead"]
    b, seq, d = x.shape
    qkv = x.astype(np.float64) @ w["self_attn.in_proj_weight"].T.astype(np.float64) + \
        w["self_attn.in_proj_bias"].astype(np.float64)
    split = lambda t: t.reshape(b, seq, heads, d // heads).transpose(0, 2, 1, 3).astype(np.float32)
    q, k, v = (split(qkv[..., i * d:(i + 1) * d]) for i in range(3))
    for name, t in (("q", q), ("k", k), ("v", v)):
        np.save(os.path.join(work, f"p{name}.npy"), np.ascontiguousarray(t))
    run(attnrt, "sdpa", "--q", os.path.join(work, "pq.npy"), "--k", os.path.join(work, "pk.npy"),
        "--v", os.path.join(work, "pv.npy"), "--out", os.path.join(work, "so.npy"),
        "--weights-out", os.path.join(work, "sw.npy"))
    sdpa_weights = np.load(os.path.join(work, "sw.npy"))
    x_path = os.path.join(demo_dir, "input.npy")
    for kernel in ("auto", "reference"):
        y, wo = os.path.join(work, f"ry_{kernel}.npy"), os.path.join(work, f"rw_{kernel}.npy")
        proc = run(attnrt, "run", model, "--input", x_path, "--out", y, "--weights-out", wo,
                   "--kernel", kernel, ok=False)
        check(proc.returncode == 0, f"run --weights-out --kernel {kernel}: {proc.stderr.strip()}")
        if proc.returncode != 0:
            continue
        got = np.load(wo)
        check(got.shape == (b, heads, seq, seq), f"run weights shape {got.shape}")
        err = float(np.max(np.abs(got - sdpa_weights))) if got.shape == sdpa_weights.shape else 1.0
        check(err <= 1e-5, f"run --weights-out ({kernel}) matches sdpa --weights-out: max err {err}")
        check(kernel == "auto" or f"kernel {kernel}" in proc.stdout, f"run names --kernel {kernel}")
    expected = np.load(os.path.join(demo_dir, "expected.npy"))
    y = np.load(os.path.join(work, "ry_reference.npy"))
    check(float(np.max(np.abs(y - expected))) <= 1e-4, "run --kernel reference output matches PyTorch's")
    bad = run(attnrt, "run", model, "--input", x_path, "--out", os.path.join(work, "z.npy"),
              "--kernel", "no-such-kernel", ok=False)
    check(bad.returncode != 0 and "no-such-kernel" in bad.stderr, "run --kernel with an unknown name fails")
    flash = [k for k in json.loads(run(attnrt, "kernels", "--json").stdout)
             if k["available"] and not k["returns_weights"]]
    if flash:
        proc = run(attnrt, "run", model, "--input", x_path, "--out", os.path.join(work, "z.npy"),
                   "--weights-out", os.path.join(work, "zw.npy"), "--kernel", flash[0]["name"], ok=False)
        check(proc.returncode != 0 and "cannot return attention weights" in proc.stderr,
              f"run --weights-out with {flash[0]['name']} is refused: {proc.stderr.strip()}")
        check(not os.path.exists(os.path.join(work, "z.npy")), "a refused run writes no --out")
    same = run(attnrt, "run", model, "--input", x_path, "--out", os.path.join(work, "s.npy"),
               "--weights-out", os.path.join(work, "s.npy"), ok=False)
    check(same.returncode != 0 and "same file" in same.stderr, "--out and --weights-out must differ")


def check_language_model_options(attnrt, model, x_path, work):
    """KV-cache options on a model without a KV cache are refused by name, nothing written."""
    out = os.path.join(work, "lm_opts.npy")
    for args, needle in [
        (["run", model, "--input", x_path, "--out", out, "--kv-dtype", "f16"], "--kv-dtype"),
        (["run", model, "--input", x_path, "--out", out, "--chunk", "4"], "--chunk"),
        (["plan", model, "--seq", "8", "--kv-dtype", "q8"], "--kv-dtype"),
    ]:
        if os.path.exists(out):
            os.remove(out)
        proc = run(attnrt, *args, ok=False)
        check(proc.returncode != 0 and needle in proc.stderr and "language model" in proc.stderr,
              f"attnrt {' '.join(args[:1] + args[2:])} on an encoder is refused naming {needle}: "
              f"exit {proc.returncode}, {proc.stderr.strip()!r}")
        check(not os.path.exists(out), f"a refused {args[0]} writes no --out")
    run(attnrt, "plan", model, "--seq", "8", "--kv-dtype", "f32")  # f32 is what it does anyway


def check_activations_option(attnrt, model, x_path, work):
    """--activations: refusals by name, embed's record of it, the kernel bench lm names."""
    out = os.path.join(work, "act.npy")
    c_out = os.path.join(work, "act.c")
    for args in (["run", model, "--input", x_path, "--out", out],
                 ["generate", "--prompt-tokens", "1,2"],
                 ["chat", model],
                 ["plan", model, "--seq", "8"],
                 ["bench", "lm", model],
                 ["embed", model, "-o", c_out]):
        proc = run(attnrt, *args, "--activations", "int8", ok=False)
        check(proc.returncode > 0 and
              "--activations" in proc.stderr and "int8" in proc.stderr,
              f"attnrt {args[0]} --activations int8 is refused naming the option and value: "
              f"exit {proc.returncode}, {proc.stderr.strip()[-300:]!r}")
    check(not os.path.exists(out) and not os.path.exists(c_out), "a refused command writes nothing")

    # embed records the setting for attnrt_model_set_activations; a plan made with the other
    # setting counted another kernel's scratch and is refused, naming both.
    plan, _ = json_only(attnrt, "plan", model, "--seq", "8", "--json", "--activations", "f32")
    check(plan is not None and plan.get("activations") == "f32", f"plan --json activations: {plan}")
    f32_plan = os.path.join(work, "f32_plan.json")
    with open(f32_plan, "w") as f:
        json.dump(plan, f)
    proc = run(attnrt, "embed", model, "-o", c_out, "--plan-from", f32_plan, ok=False)
    check(proc.returncode > 0 and '--activations "f32"' in proc.stderr
          and "--activations auto" in proc.stderr and not os.path.exists(c_out),
          f"embed (auto) --plan-from an f32-activations plan is refused: {proc.stderr.strip()!r}")
    run(attnrt, "embed", model, "-o", c_out, "--plan-from", f32_plan, "--activations", "f32")
    with open(c_out[:-2] + ".h") as f:
        header = f.read()
    check("#define ATTNRT_MODEL_ACTIVATIONS 1\n" in header and
          f"#define ATTNRT_MODEL_ARENA_BYTES {plan['arena_bytes']}u\n" in header,
          f"embed --activations f32 records ATTNRT_ACTIVATIONS_F32 and the f32 plan: {header!r}")
    os.remove(c_out)
    os.remove(c_out[:-2] + ".h")
    auto_plan, _ = json_only(attnrt, "plan", model, "--seq", "8", "--json")
    check(auto_plan is not None and auto_plan.get("activations") == "auto",
          f"plan --json says activations auto by default: {auto_plan}")

    # f32 weights run on f32 activations anyway: the option changes nothing.
    outs = []
    for extra in ([], ["--activations", "f32"]):
        path = os.path.join(work, f"act{len(outs)}.npy")
        run(attnrt, "run", model, "--input", x_path, "--out", path, *extra)
        outs.append(np.load(path))
    check(np.array_equal(outs[0], outs[1]), "run --activations f32 on f32 weights changes the output")

    # bench lm on random q8 weights: the kernel that ran, in the summary and the JSON.
    config = os.path.join(work, "tiny_llama.json")
    with open(config, "w") as f:
        json.dump({"architecture": "llama", "dim": 64, "n_layers": 1, "n_heads": 2,
                   "n_kv_heads": 2, "vocab_size": 64, "hidden_dim": 96, "max_seq_len": 32}, f)
    for activations, rounded in (("auto", True), ("f32", False)):
        result, prose = json_only(attnrt, "bench", "lm", config, "--dtype", "q8", "--threads", "1",
                                  "--prompt-len", "8", "--gen", "2", "--seconds", "0.01",
                                  "--activations", activations, "--json")
        shown = re.search(r"\blinear q8:(\S+) on \S+; ", prose)  # one type: "linear q8:KERNEL on ISA; "
        name = shown.group(1) if shown else None
        check(result is not None and name == result.get("linear_kernel") and
              result.get("activations") == activations and (name == "hwy-int8") == rounded,
              f"bench lm --dtype q8 --activations {activations}: summary names {name!r}, JSON "
              f"{result and result.get('linear_kernel')!r} ({'hwy-int8' if rounded else 'not hwy-int8'} "
              f"expected): {prose.strip()[:300]!r}")


def check_isa_option(attnrt, work):
    """bench lm --isa: refused by name outside this CPU's targets; each listed one runs."""
    config = os.path.join(work, "isa_llama.json")
    with open(config, "w") as f:
        json.dump({"architecture": "llama", "dim": 64, "n_layers": 1, "n_heads": 2,
                   "n_kv_heads": 2, "vocab_size": 64, "hidden_dim": 96, "max_seq_len": 32}, f)
    bench = ["bench", "lm", config, "--dtype", "q8", "--threads", "1", "--prompt-len", "8",
             "--gen", "2", "--seconds", "0.01"]
    proc = run(attnrt, *bench, "--isa", "mips64", ok=False)
    listed = re.search(r"\(best, ([a-z0-9_, ]+)\)", proc.stderr)
    check(proc.returncode > 0 and "--isa mips64" in proc.stderr and listed is not None,
          f"bench lm --isa mips64 is refused naming it and the targets there are: exit "
          f"{proc.returncode}, {proc.stderr.strip()[-300:]!r}")
    targets = listed.group(1).split(", ") if listed else []
    # Highway's order: best first. Under --isa T every kernel runs T or a target below it.
    for i, target in enumerate(targets):
        if target in ("emu128", "scalar", "ssse3"):
            continue  # no int8 kernel of their own: another one runs (SteerableTargets' rule)
        result, prose = json_only(attnrt, *bench, "--isa", target, "--json")
        shown = re.search(r"\blinear q8:hwy-int8 on (\S+); ", prose)
        check(result is not None and shown is not None and shown.group(1) == target.upper() and
              result.get("isa_option") == target and
              str(result.get("isa", "")).lower() in targets[i:],
              f"bench lm --isa {target}: the int8 kernel runs on {target.upper()} and the JSON "
              f"says so: {result and (result.get('isa'), result.get('isa_option'))}, "
              f"{prose.strip()[:200]!r}")
    result, _ = json_only(attnrt, *bench, "--json")
    check(result is not None and result.get("isa_option") == "best",
          f"bench lm without --isa records isa_option best: {result and result.get('isa_option')}")


def check_embed_kv_dtype(attnrt, model, lm, work):
    """embed --kv-dtype: recorded for a language model, the plan's checked, refused elsewhere."""
    c_out = os.path.join(work, "kv.c")
    h_out = c_out[:-2] + ".h"

    def header():
        with open(h_out) as f:
            text = f.read()
        os.remove(c_out)
        os.remove(h_out)
        return text

    # 256 positions: an f32 cache is 393216 bytes there, a q8 one 114688, so the q8 plan's arena
    # is smaller than what an f32 session needs before any scratch.
    plans = {}
    for kv in ("f32", "q8"):
        plan, _ = json_only(attnrt, "plan", lm, "--max-seq", "256", "--threads", "1",
                            "--kv-dtype", kv, "--json")
        check(plan is not None and plan.get("kv_dtype") == kv, f"plan --kv-dtype {kv} --json: {plan}")
        plans[kv] = os.path.join(work, f"plan_{kv}.json")
        with open(plans[kv], "w") as f:
            json.dump(plan, f)
    q8_arena = json.load(open(plans["q8"]))["arena_bytes"]
    f32_plan = json.load(open(plans["f32"]))
    check(q8_arena < f32_plan["arena_bytes"] - f32_plan["scratch_bytes"],
          f"the q8 plan's arena ({q8_arena}) is smaller than an f32 session needs before scratch "
          f"(this test's premise): {f32_plan}")

    proc = run(attnrt, "embed", lm, "-o", c_out, "--plan-from", plans["q8"], ok=False)
    check(proc.returncode > 0 and '--kv-dtype "q8"' in proc.stderr and "--kv-dtype f32" in proc.stderr
          and not os.path.exists(c_out) and not os.path.exists(h_out),
          f"embed (f32 cache) --plan-from a q8-cache plan is refused naming both, nothing written: "
          f"exit {proc.returncode}, {proc.stderr.strip()!r}")
    # At 48 positions the q8 plan's arena passes for an f32 session's before scratch: only the
    # type says it is too small (an embed that ignored it wrote it into the header).
    short, _ = json_only(attnrt, "plan", lm, "--max-seq", "48", "--threads", "1", "--kv-dtype",
                         "q8", "--json")
    plans["q8_48"] = os.path.join(work, "plan_q8_48.json")
    with open(plans["q8_48"], "w") as f:
        json.dump(short, f)
    proc = run(attnrt, "embed", lm, "-o", c_out, "--plan-from", plans["q8_48"], ok=False)
    check(proc.returncode > 0 and '--kv-dtype "q8"' in proc.stderr and not os.path.exists(c_out),
          f"embed (f32 cache) --plan-from a 48-position q8-cache plan is refused: "
          f"exit {proc.returncode}, {proc.stderr.strip()!r}")
    proc = run(attnrt, "embed", lm, "-o", c_out, "--plan-from", plans["f32"], "--kv-dtype", "q8",
               ok=False)
    check(proc.returncode > 0 and '--kv-dtype "f32"' in proc.stderr and not os.path.exists(c_out),
          f"embed --kv-dtype q8 --plan-from an f32-cache plan is refused: {proc.stderr.strip()!r}")

    run(attnrt, "embed", lm, "-o", c_out, "--plan-from", plans["q8"], "--kv-dtype", "q8")
    text = header()
    check("#define ATTNRT_MODEL_KV_TYPE 4\n" in text and
          f"#define ATTNRT_MODEL_ARENA_BYTES {q8_arena}u\n" in text,
          f"embed --kv-dtype q8 records ATTNRT_KV_Q8 (4) beside the q8 plan's arena: {text!r}")
    run(attnrt, "embed", lm, "-o", c_out, "--plan-from", plans["f32"])
    check("#define ATTNRT_MODEL_KV_TYPE 1\n" in header(),
          "embed of a language model records its default cache, ATTNRT_KV_F32 (1)")
    run(attnrt, "embed", lm, "-o", c_out, "--seq", "16", "--kv-dtype", "f16")
    check("#define ATTNRT_MODEL_KV_TYPE 2\n" in header(),
          "embed --seq 16 --kv-dtype f16 records ATTNRT_KV_F16 (2)")

    proc = run(attnrt, "embed", model, "-o", c_out, "--kv-dtype", "f16", ok=False)
    check(proc.returncode > 0 and "--kv-dtype" in proc.stderr and "language model" in proc.stderr
          and not os.path.exists(c_out),
          f"embed --kv-dtype f16 of an encoder is refused by name: {proc.stderr.strip()!r}")
    run(attnrt, "embed", model, "-o", c_out)
    check("KV_TYPE" not in header(), "an encoder's header names no KV-cache type")


def check_demo_png(attnrt, work):
    """demo --png: a compressed PNG with room for axes and a colour bar (larger than the bare
    32 x 32 matrix at any cell size the old writer used), no temporary file left; a target in a
    missing directory fails with a message and leaves nothing behind."""
    png = os.path.join(work, "heat.png")
    run(attnrt, "demo", "--png", png)
    with open(png, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "demo --png: not a PNG signature")
    width, height = struct.unpack(">II", data[16:24])
    check(width >= 500 and height >= 400, f"demo --png: {width}x{height} has no room for axes")
    # A stored (uncompressed) 8-bit RGB image would be at least width * height * 3 bytes.
    check(len(data) < width * height * 3 // 2, f"demo --png: {len(data)} bytes is not compressed")
    check(sorted(os.listdir(work)) == ["heat.png"],
          f"demo --png left other files: {os.listdir(work)}")
    bad = os.path.join(work, "missing", "heat.png")
    proc = run(attnrt, "demo", "--png", bad, ok=False)
    check(proc.returncode != 0 and "heat.png" in proc.stderr,
          f"demo --png into a missing directory: exit {proc.returncode}, {proc.stderr[-200:]!r}")
    check(sorted(os.listdir(work)) == ["heat.png"], f"a failed --png left files: {os.listdir(work)}")


def check_heatmap_keeps_its_input(work):
    """tools/python/plot_heatmap.py (what demo --png runs) refuses its input as its output and
    leaves the input file as it was; a missing input is a message, not a traceback."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "python",
                          "plot_heatmap.py")
    weights = os.path.join(work, "w.npy")
    np.save(weights, np.eye(4, dtype=np.float32))
    with open(weights, "rb") as f:
        before = f.read()
    same = subprocess.run([sys.executable, script, weights, weights], capture_output=True, text=True)
    with open(weights, "rb") as f:
        after = f.read()
    check(same.returncode == 2 and "is the input" in same.stderr and after == before,
          f"plot_heatmap IN IN: exit {same.returncode}, {same.stderr[-200:]!r}, input kept {after == before}")
    missing = subprocess.run([sys.executable, script, os.path.join(work, "none.npy"),
                              os.path.join(work, "x.png")], capture_output=True, text=True)
    check(missing.returncode == 2 and "cannot read" in missing.stderr and "Traceback" not in missing.stderr,
          f"plot_heatmap on a missing input: exit {missing.returncode}, {missing.stderr[-200:]!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--model", required=True, help="the converted demo model (build/models/demo.attnrt)")
    ap.add_argument("--lm", required=True, help="the converted byte-level LM (build/models/lm.attnrt)")
    ap.add_argument("--demo-dir", required=True, help="models/demo (input, expected, safetensors)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        check_json_outputs(args.attnrt, args.model)
        check_default_threads_and_arena(args.attnrt, args.model,
                                        os.path.join(args.demo_dir, "input.npy"), work)
        check_run_weights(args.attnrt, args.model, args.demo_dir, work)
        check_language_model_options(args.attnrt, args.model,
                                     os.path.join(args.demo_dir, "input.npy"), work)
        act_dir = os.path.join(work, "activations")
        os.mkdir(act_dir)
        check_activations_option(args.attnrt, args.model,
                                 os.path.join(args.demo_dir, "input.npy"), act_dir)
        isa_dir = os.path.join(work, "isa")
        os.mkdir(isa_dir)
        check_isa_option(args.attnrt, isa_dir)
        kv_dir = os.path.join(work, "kv")
        os.mkdir(kv_dir)
        check_embed_kv_dtype(args.attnrt, args.model, args.lm, kv_dir)
        png_dir = os.path.join(work, "png")
        os.mkdir(png_dir)
        check_demo_png(args.attnrt, png_dir)
        check_heatmap_keeps_its_input(work)
    if failures:
        print(f"cli_behaviour_test: {len(failures)} failure(s)")
        return 1
    print("cli_behaviour_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

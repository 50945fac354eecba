#!/usr/bin/python3
"""Trains a tiny byte-level Llama (vocab 256: token = byte) on the King James Bible with PyTorch
on the CPU and writes it for attnrt: OUT_DIR/model.safetensors, OUT_DIR/config.json (through
tools/python/export_torch.py's export_state_dict, float32, tied embeddings) and OUT_DIR/README.md (text,
command, steps, losses, wall time, CPU, a greedy sample).

  train_byte_llama.py [--out-dir models/lm] [--text FILE] [--train-seconds 560] [--steps N]
                      [--seed 1234] [--threads 2] [--attnrt PATH]
                      [model and optimiser options, see --help]

The llama config keys and defaults are the runtime's (`attnrt architectures --json` of --attnrt,
else $ATTNRT, else attnrt on PATH; see tools/python/attnrt_architectures.py).

Text: by default the King James Version as Debian's bible-kjv prints it (`bible -l4000
gen1:1-rev22:21`; packages bible-kjv and bible-kjv-text, installed by tools/setup.sh), one verse
per line without its number, chapter headings dropped: 4.0 MB of ASCII. The KJV text is in the
public domain. --text FILE trains on a file's bytes instead. Every 20th 16 KiB block of the text
is held out for validation (5%); training windows are drawn from the others.

Time: training stops after --train-seconds of wall time (default 560 s; at most 780), then the
held-out evaluation (--eval-tokens bytes of each split, ~30 s), the export and a sample follow,
so a default run ends within about 11 minutes on 2 cores and never past 15. Without --steps the
learning-rate schedule (linear warm-up over --warmup steps, then cosine decay to
--min-lr-ratio) follows the clock, elapsed / train-seconds, so the run uses its whole budget
however fast the (shared) machine is at the moment, and a rerun takes a few more or fewer
steps. With --steps N the schedule follows the step count only and the run is a deterministic
function of the seed and N (same torch, same --threads); the budget then only cuts a run that
is too slow (a warning says so).

Progress goes to stderr (step, loss, learning rate, elapsed seconds, bytes per second); the
last line on stdout is a JSON summary. Needs torch and numpy (/usr/bin/python3 on Debian 12).
"""
import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time

# Before torch starts its OpenMP pool: workers that sleep instead of spinning while they wait.
# On a 2-core machine shared with other work, spinning threads made 2-thread steps several
# times slower than 1-thread ones (a descheduled worker holds the others at every barrier).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
sys.path.insert(0, _HERE)
from machine_info import cpu_model  # noqa: E402
import export_torch  # noqa: E402
import output_files  # noqa: E402  (tools/python/export_torch.py; loads tools/python/torch_modules.py)

tm = export_torch.tm

BIBLE_COMMAND = ["bible", "-l4000", "gen1:1-rev22:21"]
BLOCK = 16384          # held-out split: every 20th block of this many bytes
HELD_OUT_EVERY = 20
MAX_TRAIN_SECONDS = 780
SAMPLE_PROMPT = "And God said"


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=os.path.join(_REPO, "models", "lm"))
    ap.add_argument("--text", help="train on this file's bytes instead of the KJV Bible")
    ap.add_argument("--train-seconds", type=float, default=560.0,
                    help=f"wall-clock budget of the training loop (at most {MAX_TRAIN_SECONDS})")
    ap.add_argument("--steps", type=int, help="fixed number of steps (deterministic schedule)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dim", type=int, default=96)
    ap.add_argument("--n-layers", type=int, default=4)
    ap.add_argument("--n-heads", type=int, default=4)
    ap.add_argument("--n-kv-heads", type=int, default=2)
    ap.add_argument("--hidden-dim", type=int, default=288)
    ap.add_argument("--max-seq-len", type=int, default=256)
    ap.add_argument("--rope-style", choices=tm.ROPE_STYLES, default="interleaved")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=256, help="training window (<= max-seq-len)")
    ap.add_argument("--short-seq", type=int, default=128,
                    help="window for the first --short-fraction of the steps (cheaper attention)")
    ap.add_argument("--short-fraction", type=float, default=0.6)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--min-lr-ratio", type=float, default=0.1)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--eval-tokens", type=int, default=32768,
                    help="bytes of each split scored at the end (windows of --max-seq-len)")
    ap.add_argument("--sample-bytes", type=int, default=200)
    ap.add_argument("--log-every", type=float, default=15.0, help="seconds between progress lines")
    ap.add_argument("--attnrt", help="the attnrt whose llama record the config follows (default: "
                    f"${tm.runtime.ENV}, else attnrt on PATH)")
    args = ap.parse_args(argv)
    if args.attnrt is not None:
        tm.runtime.use(args.attnrt)
    try:
        tm.architectures()  # before training, not after it
    except tm.runtime.AttnrtUnavailable as e:
        ap.error(str(e))
    if not 0 < args.train_seconds <= MAX_TRAIN_SECONDS:
        ap.error(f"--train-seconds must be in (0, {MAX_TRAIN_SECONDS}]")
    if args.steps is not None and args.steps <= 0:
        ap.error("--steps must be positive")
    if not 0 < args.short_seq <= args.seq <= args.max_seq_len:
        ap.error("need 0 < --short-seq <= --seq <= --max-seq-len")
    return args


# ---- text ----------------------------------------------------------------------------------

def kjv_text():
    """The KJV as bible-kjv prints it, one verse per line without its number."""
    try:
        proc = subprocess.run(BIBLE_COMMAND, capture_output=True, stdin=subprocess.DEVNULL,
                              check=True)
    except FileNotFoundError:
        sys.exit("train_byte_llama.py: error: `bible` not found: install bible-kjv "
                 "(tools/setup.sh does), or give --text FILE")
    verses = []
    for line in proc.stdout.decode("ascii").splitlines():
        m = re.match(r"^\s+\d+ (.+)$", line)
        if m:
            verses.append(m.group(1).strip())
    if len(verses) < 30000:
        sys.exit(f"train_byte_llama.py: error: `{' '.join(BIBLE_COMMAND)}` printed only "
                 f"{len(verses)} verses")
    return ("\n".join(verses) + "\n").encode("ascii")


def split(data):
    """(train, validation) uint8 arrays: every HELD_OUT_EVERY-th block of BLOCK bytes held out."""
    blocks = [data[i:i + BLOCK] for i in range(0, len(data), BLOCK)]
    val = b"".join(b for i, b in enumerate(blocks) if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1)
    train = b"".join(b for i, b in enumerate(blocks) if i % HELD_OUT_EVERY != HELD_OUT_EVERY - 1)
    return np.frombuffer(train, dtype=np.uint8), np.frombuffer(val, dtype=np.uint8)


# ---- model ---------------------------------------------------------------------------------

def build(args):
    config = tm.resolve_config("llama", {
        "dim": args.dim, "n_layers": args.n_layers, "n_heads": args.n_heads,
        "n_kv_heads": args.n_kv_heads, "vocab_size": 256, "hidden_dim": args.hidden_dim,
        "max_seq_len": args.max_seq_len, "rope_style": args.rope_style})
    torch.manual_seed(args.seed)
    model = tm.Llama(config, tie_embeddings=True)
    # llama2.c's initialisation: N(0, 0.02), the residual projections (wo, w3) scaled down.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * args.n_layers) if name.endswith(("wo.weight", "w3.weight")) \
                    else 0.02
                torch.nn.init.normal_(p, 0.0, std)
    return model, config


def optimizer(model, args):
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}],
                             lr=args.lr, betas=(0.9, 0.95))


def learning_rate(args, step, progress):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    cosine = 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))
    return args.lr * (args.min_lr_ratio + (1.0 - args.min_lr_ratio) * cosine)


def batch(data, rng, size, seq):
    starts = rng.randint(0, len(data) - seq - 1, size=size)
    rows = np.stack([data[s:s + seq + 1] for s in starts]).astype(np.int64)
    x = torch.from_numpy(rows)
    return x[:, :-1], x[:, 1:]


def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def evaluate(model, data, tokens, seq):
    """Mean loss (nats per byte) over consecutive windows of seq bytes from the start of data."""
    windows = min(tokens // seq, (len(data) - 1) // seq)
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, windows, 8):
            rows = [data[w * seq:w * seq + seq + 1] for w in range(i, min(windows, i + 8))]
            x = torch.from_numpy(np.stack(rows).astype(np.int64))
            loss = loss_of(model, x[:, :-1], x[:, 1:])
            total += float(loss) * x[:, 1:].numel()
            count += x[:, 1:].numel()
    return total / count


def greedy_sample(model, prompt, count):
    tokens = torch.tensor([list(prompt.encode("ascii"))], dtype=torch.int64)
    count = min(count, model.max_seq_len - tokens.shape[1])
    generated, _ = tm.llama_generate(model, tokens, count)
    return bytes(generated[0].tolist()).decode("ascii", errors="replace")


# ---- training ------------------------------------------------------------------------------

def log(message):
    print(f"train_byte_llama: {message}", file=sys.stderr, flush=True)


def train(model, train_data, args):
    opt = optimizer(model, args)
    rng = np.random.RandomState(args.seed)
    total = args.steps
    started = time.monotonic()
    last_log, step, losses = started - args.log_every, 0, []
    while True:
        elapsed = time.monotonic() - started
        if total is not None and step >= total:
            break
        if elapsed >= args.train_seconds:
            if total is not None:
                log(f"warning: the {args.train_seconds:.0f} s budget ended the run at step {step} "
                    f"of {total}")
            break
        progress = step / total if total is not None else elapsed / args.train_seconds
        lr = learning_rate(args, step, progress)
        for group in opt.param_groups:
            group["lr"] = lr
        seq = args.short_seq if progress < args.short_fraction else args.seq
        x, y = batch(train_data, rng, args.batch * args.seq // seq, seq)
        loss = loss_of(model, x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss))
        step += 1
        now = time.monotonic()
        if now - last_log >= args.log_every:
            last_log = now
            recent = sum(losses[-20:]) / len(losses[-20:])
            log(f"step {step}{'/' + str(total) if total else ''} loss {recent:.4f} lr {lr:.2e} seq {seq} "
                f"elapsed {now - started:.1f} s ({step * args.batch * args.seq / (now - started):.0f} "
                f"bytes/s)")
    seconds = time.monotonic() - started
    log(f"trained {step} steps in {seconds:.1f} s; mean loss of the last 20 steps "
        f"{sum(losses[-20:]) / len(losses[-20:]):.4f}")
    return step, seconds, losses


def write_readme(path, info):
    c = info["config"]
    size = info["file_bytes"]
    text = f"""# models/lm: a tiny byte-level Llama trained on the King James Bible

A decoder-only Llama (`architecture` `llama`, llama2.c's module names) over bytes: vocabulary
256, token = byte. Written by `tools/python/train_byte_llama.py` (which also wrote this file) through
`tools/python/export_torch.py`'s `export_state_dict`: float32 `model.safetensors`
({size / 1e6:.2f} MB, tied embeddings: no `output.weight`, the output uses
`tok_embeddings.weight`) and `config.json`.

| | |
|---|---|
| dim, layers, heads, kv heads | {c['dim']}, {c['n_layers']}, {c['n_heads']}, {c['n_kv_heads']} (grouped-query attention) |
| hidden_dim (SwiGLU), max_seq_len | {c['hidden_dim']}, {c['max_seq_len']} |
| RoPE | {c['rope_style']}, theta {c['rope_theta']:g}; RMSNorm eps {c['norm_eps']:g} |
| parameters | {info['parameters']:,} |

## Text

{info['text_source']}

## Training

    {info['command']}

{info['steps']} steps of AdamW (lr {info['lr']:g}, warm-up, cosine decay to {info['min_lr_ratio']:g}x,
weight decay {info['weight_decay']:g}, gradient clip 1.0), {info['batch_bytes']} bytes a step
({info['short']}), seed {info['seed']}, {info['threads']} threads, torch {torch.__version__},
on {info['cpu']} (a 2-core machine shared with other work). Training {info['train_seconds']:.0f} s,
the whole run {info['wall_seconds']:.0f} s. {info['steps_note']}

| | loss (nats/byte) | perplexity | bits/byte |
|---|---|---|---|
| train (first {info['eval_bytes']:,} bytes of the training split) | {info['train_loss']:.4f} | {math.exp(info['train_loss']):.3f} | {info['train_loss'] / math.log(2):.3f} |
| validation (first {info['eval_bytes']:,} held-out bytes) | {info['val_loss']:.4f} | {math.exp(info['val_loss']):.3f} | {info['val_loss'] / math.log(2):.3f} |

(The mean training loss of the last 20 steps was {info['last_loss']:.4f}.)

## Sample

Greedy (temperature 0) continuation of `{SAMPLE_PROMPT}` by the PyTorch model, {len(info['sample'])} bytes:

```
{SAMPLE_PROMPT}{info['sample']}
```

With attnrt (the same greedy continuation, up to float rounding):

    attnrt convert --config models/lm/config.json models/lm/model.safetensors -o lm.attnrt
    attnrt generate lm.attnrt --prompt "{SAMPLE_PROMPT}" --max-new-tokens 200 --temperature 0
"""
    output_files.write_text_atomically(path, text)


def main(argv=None):
    args = parse_args(argv)
    run_started = time.monotonic()
    torch.set_num_threads(args.threads)
    if args.text:
        with open(args.text, "rb") as f:
            data = f.read()
        source = f"`{args.text}` ({len(data):,} bytes)."
    else:
        data = kjv_text()
        source = (f"The King James Version of the Bible (1611), from the Debian package "
                  f"`bible-kjv-text` as its reader `bible-kjv` prints it (both installed by "
                  f"`tools/setup.sh`): `{' '.join(BIBLE_COMMAND)}`, one verse per line without "
                  f"its number, chapter headings dropped: {len(data):,} bytes of ASCII. Licence: "
                  f"the text is in the public domain (the package's copyright file: \"The "
                  f"copyright for the King James Version text of the Bible is expired\"); the "
                  f"`bible` program (GPL-2+) is only run, not shipped. Every "
                  f"{HELD_OUT_EVERY}th block of {BLOCK} bytes is held out for validation.")
    train_data, val_data = split(data)
    log(f"text {len(data)} bytes: {len(train_data)} for training, {len(val_data)} held out")
    model, config = build(args)
    parameters = sum(p.numel() for p in model.parameters())
    log(f"llama {json.dumps(config)}: {parameters} parameters")
    model.train()
    steps, train_seconds, losses = train(model, train_data, args)
    model.eval()
    val_loss = evaluate(model, val_data, args.eval_tokens, args.max_seq_len)
    train_loss = evaluate(model, train_data, args.eval_tokens, args.max_seq_len)
    log(f"train loss {train_loss:.4f}, validation loss {val_loss:.4f} "
        f"(perplexity {math.exp(val_loss):.3f})")
    sample = greedy_sample(model, SAMPLE_PROMPT, args.sample_bytes)
    log(f"greedy sample: {SAMPLE_PROMPT}{sample!r}")
    os.makedirs(args.out_dir, exist_ok=True)
    export_torch.export_state_dict(model.state_dict(), "llama", config, args.out_dir,
                                   {"source": "tools/python/train_byte_llama.py", "seed": args.seed,
                                    "steps": steps})
    file_bytes = os.path.getsize(os.path.join(args.out_dir, "model.safetensors"))
    wall = time.monotonic() - run_started
    command = "nice -n 5 /usr/bin/python3 tools/python/train_byte_llama.py " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    steps_note = (f"`--steps {steps}` reproduces these weights exactly (same torch and threads)."
                  if args.steps is not None else
                  f"Without `--steps` the schedule followed the clock and the step count the "
                  f"machine's speed, so a rerun differs a little; "
                  f"`--steps {steps}` runs as many steps on a schedule that follows the step "
                  f"count alone, the same weights every time (same torch and threads).")
    short = (f"windows of {args.short_seq} bytes for the first {args.short_fraction:.0%} of the "
             f"schedule, then {args.seq}" if args.short_seq < args.seq else f"windows of {args.seq}")
    info = {"config": config, "file_bytes": file_bytes, "parameters": parameters,
            "text_source": source, "command": command.strip(), "steps": steps, "lr": args.lr,
            "min_lr_ratio": args.min_lr_ratio, "weight_decay": args.weight_decay,
            "batch_bytes": args.batch * args.seq, "short": short, "seed": args.seed,
            "threads": args.threads, "cpu": cpu_model(), "train_seconds": train_seconds,
            "wall_seconds": wall, "steps_note": steps_note, "eval_bytes": args.eval_tokens,
            "train_loss": train_loss, "val_loss": val_loss,
            "last_loss": sum(losses[-20:]) / len(losses[-20:]), "sample": sample}
    write_readme(os.path.join(args.out_dir, "README.md"), info)
    summary = {"steps": steps, "train_seconds": round(train_seconds, 1),
               "wall_seconds": round(wall, 1), "train_loss": round(train_loss, 4),
               "val_loss": round(val_loss, 4), "val_perplexity": round(math.exp(val_loss), 3),
               "parameters": parameters, "file_bytes": file_bytes, "sample": sample}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
import shlex
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
sys.path.insert(0, _HERE)
import lm_training  # noqa: E402  (sets OMP_WAIT_POLICY before torch starts its pool)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import export_torch  # noqa: E402
import kjv  # noqa: E402
import output_files  # noqa: E402

tm = lm_training.tm

BLOCK = 16384          # held-out split: every kjv.HELD_OUT_EVERY-th block of this many bytes
SAMPLE_PROMPT = "And God said"


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=os.path.join(_REPO, "models", "lm"))
    ap.add_argument("--text", help="train on this file's bytes instead of the KJV Bible")
    ap.add_argument("--sample-bytes", type=int, default=200)
    lm_training.add_arguments(ap, dim=96, hidden_dim=288, rope_style="interleaved")
    args = ap.parse_args(argv)
    lm_training.check_arguments(ap, args)
    return args


def split(data):
    """(train, validation) uint8 arrays: every kjv.HELD_OUT_EVERY-th block of BLOCK bytes held out."""
    return kjv.split_blocks(np.frombuffer(data, dtype=np.uint8), BLOCK)


def greedy_sample(model, prompt, count):
    tokens = torch.tensor([list(prompt.encode("ascii"))], dtype=torch.int64)
    count = min(count, model.max_seq_len - tokens.shape[1])
    generated, _ = tm.llama_generate(model, tokens, count)
    return bytes(generated[0].tolist()).decode("ascii", errors="replace")


def log(message):
    print(f"train_byte_llama: {message}", file=sys.stderr, flush=True)


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

{info['training']}

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
        data = kjv.text_bytes("train_byte_llama.py")
        source = (kjv.source_description(len(data)) + f" Every {kjv.HELD_OUT_EVERY}th block "
                  f"of {BLOCK} bytes is held out for validation.")
    train_data, val_data = split(data)
    log(f"text {len(data)} bytes: {len(train_data)} for training, {len(val_data)} held out")
    model, config = lm_training.build(args, 256)
    parameters = sum(p.numel() for p in model.parameters())
    log(f"llama {json.dumps(config)}: {parameters} parameters")
    model.train()
    steps, train_seconds, losses = lm_training.train(model, train_data, args, log)
    model.eval()
    val_loss = lm_training.evaluate(model, val_data, args.eval_tokens, args.max_seq_len)
    train_loss = lm_training.evaluate(model, train_data, args.eval_tokens, args.max_seq_len)
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
    info = {"config": config, "file_bytes": file_bytes, "parameters": parameters,
            "text_source": source, "command": command.strip(),
            "training": lm_training.training_paragraph(args, steps, train_seconds, wall),
            "eval_bytes": args.eval_tokens,
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

#!/usr/bin/python3
"""Trains a small Llama on the King James Bible tokenized by the byte-level BPE tokenizer that
tools/python/train_bpe_tokenizer.py wrote into OUT_DIR, and completes OUT_DIR as a Hugging Face
LlamaForCausalLM folder: config.json, model.safetensors (bf16, HF names, tied embeddings; see
tools/python/hf_llama_folder.py) beside the tokenizer files, and README.md (text, commands,
losses, a greedy sample by PyTorch and by attnrt).

  train_bpe_tokenizer.py [--out-dir models/lm-bpe]           (first: the tokenizer files)
  train_bpe_llama.py [--out-dir models/lm-bpe] [--steps N] [--train-seconds 560]
                     [--seed 1234] [--threads 2] [--attnrt PATH] [model and optimiser options]

Data: every verse (tools/python/kjv.py) becomes <|begin_of_text|> + its tokens +
<|end_of_text|>, the verses back to back in order; every 20th block of 4096 tokens is held out.
The ids are those of tools/python/byte_level_bpe.py's Encoder, which applies the merges as
Hugging Face's tokenizers does (equal on every verse). The training loop, schedule and
initialisation are tools/python/lm_training.py's (shared with train_byte_llama.py); RoPE is
rotate_half ("half"), as a Hugging Face Llama computes it. After training the weights are
rounded to bfloat16, the dtype the folder stores, and the losses and sample are those of the
rounded model. attnrt (--attnrt, else $ATTNRT, else on PATH) supplies the llama record and,
at the end, converts the folder and runs the sample through `attnrt generate`.

Progress goes to stderr; the last line on stdout is a JSON summary."""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
sys.path.insert(0, _HERE)
import lm_training  # noqa: E402  (sets OMP_WAIT_POLICY before torch starts its pool)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import byte_level_bpe as bpe  # noqa: E402
from command_json import run_json  # noqa: E402
import hf_llama_folder  # noqa: E402
import kjv  # noqa: E402
import output_files  # noqa: E402
from train_bpe_tokenizer import BOS, EOS  # noqa: E402

tm = lm_training.tm
BLOCK = 4096
SAMPLE_PROMPT = "And God said"


def log(message):
    print(f"train_bpe_llama: {message}", file=sys.stderr, flush=True)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=os.path.join(_REPO, "models", "lm-bpe"))
    ap.add_argument("--sample-tokens", type=int, default=48)
    lm_training.add_arguments(ap, dim=128, hidden_dim=352, rope_style="half")
    args = ap.parse_args(argv)
    lm_training.check_arguments(ap, args)
    if not os.path.isfile(os.path.join(args.out_dir, "tokenizer.json")):
        ap.error(f"no tokenizer.json in {args.out_dir}: run train_bpe_tokenizer.py first")
    return args


def token_stream(encoder, verses):
    bos, eos = encoder.vocab[BOS], encoder.vocab[EOS]
    ids = []
    for verse in verses:
        ids.append(bos)
        ids.extend(encoder.encode(verse))
        ids.append(eos)
    return np.array(ids, dtype=np.uint16)


def greedy_ids(model, prompt_ids, count):
    generated, _ = tm.llama_generate(model, torch.tensor([prompt_ids]), count)
    return generated[0].tolist()


def attnrt_sample(folder, prompt, count):
    """What attnrt makes of the folder: (tokenize output, generate --json tokens, detokenize
    output of those), run on a model converted into a temporary file."""
    attnrt = tm.runtime.attnrt_path()
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "lm-bpe.attnrt")
        subprocess.run([attnrt, "convert", folder, "-o", model], check=True, capture_output=True)
        tokens = subprocess.run([attnrt, "tokenize", model, "--text", prompt], check=True,
                                capture_output=True, text=True).stdout.strip()
        ids = run_json([attnrt, "generate", model, "--prompt-tokens", tokens,
                        "--max-new-tokens", str(count), "--temperature", "0", "--json"])[0]["tokens"]
        text = subprocess.run([attnrt, "detokenize", model, "--ids", ",".join(map(str, ids))],
                              check=True, capture_output=True, text=True).stdout
    return tokens, ids, text.rstrip("\n")


def loss_row(label, loss, bytes_per_token):
    bits_per_byte = loss / math.log(2) / bytes_per_token
    return f"| {label} | {loss:.4f} | {math.exp(loss):.2f} | {bits_per_byte:.3f} |"


def write_readme(path, info):
    c = info["config"]
    t = info["tokens"]
    text = f"""# models/lm-bpe: a small Llama with a BPE tokenizer, trained on the King James Bible

A Hugging Face `LlamaForCausalLM` folder, as `save_pretrained` writes one: `config.json`,
`model.safetensors` (bfloat16, HF tensor names, rotate_half RoPE, tied embeddings: no
`lm_head.weight`; {info['file_bytes'] / 1e6:.2f} MB), `tokenizer.json` (byte-level BPE,
{c['vocab_size']} tokens), `tokenizer_config.json` (ChatML `chat_template`) and
`generation_config.json`. Everything here was written by the repo's scripts:
`tools/python/train_bpe_tokenizer.py` (the tokenizer files) and `tools/python/train_bpe_llama.py`
(the weights, config.json and this file). The build converts the folder into
`build/<preset>/models/lm-bpe.attnrt`; by hand:

    attnrt convert models/lm-bpe -o lm-bpe.attnrt

| | |
|---|---|
| hidden_size, layers, heads, kv heads | {c['dim']}, {c['n_layers']}, {c['n_heads']}, {c['n_kv_heads']} (grouped-query attention, head_dim {c['dim'] // c['n_heads']}) |
| intermediate_size (SwiGLU), max_position_embeddings | {c['hidden_dim']}, {c['max_seq_len']} |
| RoPE | rotate_half, theta {c['rope_theta']:g}; RMSNorm eps {c['norm_eps']:g} |
| parameters | {info['parameters']:,} |

## Tokenizer

Our own byte-level BPE (GPT-2's scheme, as Llama 3, Qwen and SmolLM use it), learned from the
KJV verses: ids 0-3 are the special tokens `<|begin_of_text|>` (BOS), `<|end_of_text|>` (EOS),
`<|im_start|>` and `<|im_end|>` (ChatML turns), 4-259 the 256 bytes, then {info['merges']}
merges. Pre-tokenizer ByteLevel with GPT-2's split regex, decoder ByteLevel, and a
TemplateProcessing post-processor that puts BOS in front, so `tokenizer(text)` starts with id 0.
generation_config.json stops at EOS or `<|im_end|>`. Hugging Face's Rust `tokenizers` (the
`@anush008/tokenizers` binding) gave the same ids as the encoder that made the training data on
all 31,102 verses (the CTest `bundled_training_ids`), and `tests/tokenizer/tokenizer_exactness_test.py` checks
that `attnrt tokenize` / `detokenize` give its ids and decodes on the tokenizer test corpus.

    nice -n 5 /usr/bin/python3 tools/python/train_bpe_tokenizer.py

## Text

{info['text_source']} Each verse is one document: BOS, its tokens, EOS ({t['verses']:,} verses,
{t['total']:,} tokens, {t['bytes_per_token']:.2f} bytes of text a token). Every
{kjv.HELD_OUT_EVERY}th block of {BLOCK} tokens is held out for validation.

## Training

    {info['command']}

{info['training']}

Losses of the bf16 weights as shipped, over the first {info['eval_tokens']:,} tokens of each split
(bits/byte: per byte of text, comparable with models/lm's):

| | loss (nats/token) | perplexity | bits/byte |
|---|---|---|---|
{loss_row('train', info['train_loss'], t['bytes_per_token'])}
{loss_row('validation (held out)', info['val_loss'], t['bytes_per_token'])}

(The mean training loss of the last 20 steps, float32 weights, was {info['last_loss']:.4f}.)

## Sample

Greedy (temperature 0) continuation of `{SAMPLE_PROMPT}` (with BOS) by the PyTorch model,
{len(info['sample_ids'])} tokens, decoded:

```
{SAMPLE_PROMPT}{info['sample_text']}
```

With attnrt:

    $ attnrt tokenize lm-bpe.attnrt --text "{SAMPLE_PROMPT}"
    {info['attnrt_prompt']}
    $ attnrt generate lm-bpe.attnrt --prompt-tokens {info['attnrt_prompt']} --max-new-tokens {len(info['sample_ids'])} --temperature 0
    {' '.join(str(i) for i in info['attnrt_ids'])}
    $ attnrt detokenize lm-bpe.attnrt --ids {','.join(str(i) for i in info['attnrt_ids'])}
    {info['attnrt_text']}

{info['attnrt_agreement']}
"""
    output_files.write_text_atomically(path, text)


def main(argv=None):
    args = parse_args(argv)
    run_started = time.monotonic()
    torch.set_num_threads(args.threads)
    with open(os.path.join(args.out_dir, "tokenizer.json"), encoding="utf-8") as f:
        encoder = bpe.encoder_of(json.load(f))
    verses = kjv.verses("train_bpe_llama.py")
    stream = token_stream(encoder, verses)
    text_bytes = sum(len(v) for v in verses)
    tokens = {"verses": len(verses), "total": len(stream),
              "bytes_per_token": text_bytes / (len(stream) - 2 * len(verses))}
    train_data, val_data = kjv.split_blocks(stream, BLOCK)
    log(f"{len(verses)} verses, {len(stream)} tokens: {len(train_data)} for training, "
        f"{len(val_data)} held out")
    model, config = lm_training.build(args, len(encoder.vocab))
    parameters = sum(p.numel() for p in model.parameters())
    log(f"llama {json.dumps(config)}: {parameters} parameters")
    model.train()
    steps, train_seconds, losses = lm_training.train(model, train_data, args, log, "tokens")
    model.eval()
    hf_llama_folder.round_to_bf16_(model)
    val_loss = lm_training.evaluate(model, val_data, args.eval_tokens, args.max_seq_len)
    train_loss = lm_training.evaluate(model, train_data, args.eval_tokens, args.max_seq_len)
    log(f"bf16 weights: train loss {train_loss:.4f}, validation loss {val_loss:.4f} "
        f"(perplexity {math.exp(val_loss):.2f})")
    prompt_ids = [encoder.vocab[BOS]] + encoder.encode(SAMPLE_PROMPT)
    sample_ids = greedy_ids(model, prompt_ids, args.sample_tokens)
    inverse = {i: t for t, i in encoder.vocab.items()}
    sample_text = "".join(inverse[i] if i < 4 else encoder.decode([i]).decode(
        "utf-8", errors="replace") for i in sample_ids)
    log(f"greedy sample: {SAMPLE_PROMPT}{sample_text!r}")
    file_bytes = hf_llama_folder.write(args.out_dir, model, config, encoder.vocab[BOS],
                                       encoder.vocab[EOS])
    attnrt_prompt, attnrt_ids, attnrt_text = attnrt_sample(args.out_dir, SAMPLE_PROMPT,
                                                           args.sample_tokens)
    same = attnrt_ids == sample_ids and attnrt_prompt == ",".join(map(str, prompt_ids))
    agreement = ("attnrt's prompt ids and greedy tokens equal PyTorch's." if same else
                 f"attnrt's tokens differ from PyTorch's {sample_ids} (float rounding near a "
                 f"tie, or a bug: tests/python/bundled_lm_bpe_test.py checks the logits).")
    log(agreement)
    wall = time.monotonic() - run_started
    command = "nice -n 5 /usr/bin/python3 tools/python/train_bpe_llama.py " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    info = {"config": config, "file_bytes": file_bytes, "parameters": parameters,
            "merges": len(encoder.rank), "tokens": tokens,
            "text_source": kjv.source_description(text_bytes + len(verses)),
            "command": command.strip(),
            "training": lm_training.training_paragraph(args, steps, train_seconds, wall, "tokens"),
            "eval_tokens": args.eval_tokens,
            "train_loss": train_loss, "val_loss": val_loss,
            "last_loss": sum(losses[-20:]) / len(losses[-20:]), "sample_ids": sample_ids,
            "sample_text": sample_text, "attnrt_prompt": attnrt_prompt, "attnrt_ids": attnrt_ids,
            "attnrt_text": attnrt_text, "attnrt_agreement": agreement}
    write_readme(os.path.join(args.out_dir, "README.md"), info)
    print(json.dumps({"steps": steps, "train_seconds": round(train_seconds, 1),
                      "wall_seconds": round(wall, 1), "train_loss": round(train_loss, 4),
                      "val_loss": round(val_loss, 4), "val_perplexity": round(math.exp(val_loss), 2),
                      "parameters": parameters, "file_bytes": file_bytes,
                      "sample_ids": sample_ids, "attnrt_ids": attnrt_ids, "sample": sample_text}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

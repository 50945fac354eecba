#!/usr/bin/python3
"""Trains a byte-level BPE tokenizer (GPT-2 style, as Llama 3, Qwen and SmolLM ship theirs) on the
King James Bible and writes it as Hugging Face files: OUT_DIR/tokenizer.json (the `tokenizers`
library's format), OUT_DIR/tokenizer_config.json (with a ChatML chat_template) and
OUT_DIR/generation_config.json (the eos ids).

  train_bpe_tokenizer.py [--out-dir models/lm-bpe] [--vocab-size 2048] [--text FILE]

Text: the KJV as tools/python/kjv.py reads it (Debian's bible-kjv), one verse a word-count
source; --text FILE uses a file's lines instead (ASCII). The merges are learned by
tools/python/byte_level_bpe.py (deterministic: the same text gives the same files).

Vocabulary (ids in this order): the special tokens <|begin_of_text|> (BOS), <|end_of_text|>
(EOS), <|im_start|>, <|im_end|> (ChatML's turn markers, for chat templates), then the 256 byte
characters in byte order, then one token per learned merge, up to --vocab-size in all.
tokenizer.json: pre-tokenizer ByteLevel (add_prefix_space false, use_regex true: GPT-2's split
regex), model BPE (no unk token, no byte fallback: every byte has a token), decoder ByteLevel,
post-processor TemplateProcessing putting BOS in front (as Llama 3's does);
the four specials are added tokens (special, not normalized). tokenizer_config.json names
PreTrainedTokenizerFast, so transformers keeps the template (no add_bos_token key, as Llama 3).

The last line on stdout is a JSON summary (vocabulary size, merges, file sizes)."""
import argparse
import collections
import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
sys.path.insert(0, _HERE)
import byte_level_bpe as bpe  # noqa: E402
import kjv  # noqa: E402
import output_files  # noqa: E402

BOS, EOS, IM_START, IM_END = "<|begin_of_text|>", "<|end_of_text|>", "<|im_start|>", "<|im_end|>"
SPECIALS = (BOS, EOS, IM_START, IM_END)
# ChatML as SmolLM and Qwen write it (no system turn added when none is given).
CHAT_TEMPLATE = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
                 "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if "
                 "add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
MODEL_MAX_LENGTH = 256


def added_token(token_id, content):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


def tokenizer_json(merges):
    vocab = {}
    for token in SPECIALS + tuple(bpe.byte_chars()):
        vocab[token] = len(vocab)
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    byte_level = {"add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added_token(vocab[t], t) for t in SPECIALS],
        "normalizer": None,
        "pre_tokenizer": dict(type="ByteLevel", **byte_level),
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": BOS, "type_id": 1}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {BOS: {"id": BOS, "ids": [vocab[BOS]], "tokens": [BOS]}}},
        "decoder": dict(type="ByteLevel", **byte_level),
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }


def tokenizer_config(vocab):
    return {
        "added_tokens_decoder": {str(vocab[t]): {k: v for k, v in added_token(vocab[t], t).items()
                                                 if k != "id"} for t in SPECIALS},
        "bos_token": BOS, "chat_template": CHAT_TEMPLATE, "clean_up_tokenization_spaces": False,
        "eos_token": EOS, "model_max_length": MODEL_MAX_LENGTH, "pad_token": EOS,
        "tokenizer_class": "PreTrainedTokenizerFast",
    }


def generation_config(vocab):
    return {"bos_token_id": vocab[BOS], "eos_token_id": [vocab[EOS], vocab[IM_END]],
            "pad_token_id": vocab[EOS]}


def write_json(path, value, sort_keys):
    # as `tokenizers` and transformers write them: indented, non-ASCII as is
    output_files.write_text_atomically(
        path, json.dumps(value, indent=2, ensure_ascii=False, sort_keys=sort_keys) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-dir", default=os.path.join(_REPO, "models", "lm-bpe"))
    ap.add_argument("--vocab-size", type=int, default=2048)
    ap.add_argument("--text", help="learn from this ASCII file's lines instead of the KJV Bible")
    args = ap.parse_args(argv)
    base = len(SPECIALS) + 256
    if args.vocab_size <= base:
        ap.error(f"--vocab-size must exceed {base} (the special and byte tokens)")
    if args.text:
        try:
            with open(args.text, encoding="ascii") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            ap.error(f"--text {args.text}: {e} (the trainer pre-tokenizes ASCII text only)")
    else:
        lines = kjv.verses("train_bpe_tokenizer.py")
    words = collections.Counter(w for line in lines for w in bpe.pretokenize(line))
    merges = bpe.learn_merges(words, args.vocab_size - base)
    tj = tokenizer_json(merges)
    vocab = tj["model"]["vocab"]
    os.makedirs(args.out_dir, exist_ok=True)
    files = {"tokenizer.json": (tj, False), "tokenizer_config.json": (tokenizer_config(vocab), True),
             "generation_config.json": (generation_config(vocab), True)}
    for name, (value, sort_keys) in files.items():
        write_json(os.path.join(args.out_dir, name), value, sort_keys)
    print(json.dumps({"vocab_size": len(vocab), "merges": len(merges), "lines": len(lines),
                      "distinct_words": len(words),
                      "bytes": {n: os.path.getsize(os.path.join(args.out_dir, n)) for n in files}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

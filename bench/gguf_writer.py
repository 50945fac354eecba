#!/usr/bin/python3
"""Writes a Llama model as a GGUF file, so llama.cpp runs the same model as attnrt.

  gguf_writer.py --config models/lm/config.json --safetensors models/lm/model.safetensors -o lm.gguf
  gguf_writer.py --config bench/configs/stories15m.json --random -o stories15m.gguf
  gguf_writer.py --config bench/configs/smollm2_135m.json --random --type Q4_0 -o smollm2_q4_0.gguf

--type stores every matrix (the embedding too, which is also the tied output) as that ggml
type: F32 (default), F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K (rows a multiple of the type's block:
32, or 256 for the K-quants); norms stay F32. The block encoders are tools/python/gguf_writer.py's
(round-to-nearest, valid ggml blocks); `attnrt convert` of the file keeps F32/F16/BF16/Q4_0 as
they are and Q8_0 as q8, so both engines run the same weights.

The config is attnrt's llama config; weights come from Meta-layout safetensors or are random
(--random, seeded); the vocabulary is a stand-in of byte tokens. This is the command line of
tools/python/llama_gguf.py, which says what the file holds.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "python"))
import llama_gguf  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--safetensors")
    src.add_argument("--random", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--type", choices=llama_gguf.MATRIX_TYPES, default="F32",
                    help="ggml type of every matrix (norms stay F32)")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    try:
        with open(args.config) as f:
            c = json.load(f)
        if c.get("architecture", "llama") != "llama":
            raise ValueError("only llama configs")
        weights = (llama_gguf.random_weights(c, args.seed) if args.random
                   else llama_gguf.read_safetensors(args.safetensors))
        llama_gguf.write_gguf(args.out, c, llama_gguf.gguf_names(c, weights),
                              "attnrt " + args.config, args.type)
    except KeyError as e:  # a config without a key the file needs
        sys.exit(f"gguf_writer: {args.config} has no {e}")
    except (OSError, ValueError) as e:  # unreadable files, a type the rows do not fit, ...
        sys.exit(f"gguf_writer: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

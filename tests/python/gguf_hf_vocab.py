"""Real Hugging Face vocabularies as GGUF tokenizer keys, written the way llama.cpp's
convert_hf_to_gguf.py writes them, for gguf_models.build(tokenizer=...):

- sentencepiece(folder): tokenizer.ggml.model "llama": the tokens by id, types UNKNOWN (the unk
  token), CONTROL (the other added tokens that are special or look special: <|...|>, <pad>,
  <mask>, <unused...>), USER_DEFINED (the other added tokens, U+2581 in them turned into
  spaces as the converter "pre-normalizes" them), BYTE (<0xNN>), NORMAL; scores as a
  SentencePiece BPE model has them (0 for those special and byte tokens, then falling with the
  piece id: the merge order), or `score(id)` to give equal scores on purpose;
- byte_level_bpe(folder, pre): tokenizer.ggml.model "gpt2": the tokens by id ("[PAD<id>]" for
  ids no token has), CONTROL for added tokens that are special or look special,
  USER_DEFINED for the other added tokens (U+2581 turned into spaces), NORMAL for the rest;
  the merges as "a b"; `pre`.
The special ids and add_bos_token are given by the caller, as the converter reads them from
tokenizer_config.json and the post-processor.
"""
import json
import os
import re

from script_setup import import_tools_python

import_tools_python()
import gguf_writer as W  # noqa: E402  (tools/python)

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, BYTE = 1, 2, 3, 4, 6


def _load(folder):
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        return json.load(f)


def _by_id(j):
    tokens = {i: t for t, i in j["model"]["vocab"].items()}
    added = {a["id"]: a for a in j["added_tokens"]}
    for i, a in added.items():
        tokens[i] = a["content"]
    return tokens, added


def _specials(w, ids):
    for key, value in ids.items():
        if isinstance(value, bool):
            w.add("tokenizer.ggml." + key, W.BOOL, value)
        else:
            w.add("tokenizer.ggml." + key, W.U32, value)


def sentencepiece(folder, ids, score=None, add_space_prefix=None):
    def write(w):
        tokens, added = _by_id(_load(folder))
        n = max(tokens) + 1
        texts, types, scores = [], [], []
        for i in range(n):
            t = tokens[i]
            texts.append(t)
            if i in added and t == "<unk>":
                types.append(UNKNOWN)
            elif i in added:
                types.append(CONTROL if added[i]["special"] or _looks_special(t) else USER_DEFINED)
                if types[-1] == USER_DEFINED:
                    texts[-1] = t.replace("\u2581", " ")
            elif re.fullmatch(r"<0x[0-9A-F]{2}>", t):
                types.append(BYTE)
            else:
                types.append(NORMAL)
            scores.append(0.0 if types[-1] != NORMAL else
                          float(score(i)) if score else -float(i))
        w.add("tokenizer.ggml.model", W.STRING, "llama")
        w.add("tokenizer.ggml.tokens", W.ARRAY, texts, W.STRING)
        w.add("tokenizer.ggml.scores", W.ARRAY, scores, W.F32)
        w.add("tokenizer.ggml.token_type", W.ARRAY, types, W.I32)
        if add_space_prefix is not None:
            w.add("tokenizer.ggml.add_space_prefix", W.BOOL, add_space_prefix)
        _specials(w, ids)
        return n
    return write


def _looks_special(t):
    return (t in ("<pad>", "<mask>") or (t.startswith("<|") and t.endswith("|>")) or
            (t.startswith("<unused") and t.endswith(">")))


def byte_level_bpe(folder, pre, ids):
    def write(w):
        j = _load(folder)
        tokens, added = _by_id(j)
        n = max(tokens) + 1
        texts, types = [], []
        for i in range(n):
            if i not in tokens:
                texts.append("[PAD%d]" % i)
                types.append(USER_DEFINED)
            elif i in added:
                types.append(CONTROL if added[i]["special"] or _looks_special(tokens[i])
                             else USER_DEFINED)
                texts.append(tokens[i] if types[-1] == CONTROL else tokens[i].replace("\u2581", " "))
            else:
                texts.append(tokens[i])
                types.append(NORMAL)
        merges = [m if isinstance(m, str) else " ".join(m) for m in j["model"]["merges"]]
        w.add("tokenizer.ggml.model", W.STRING, "gpt2")
        w.add("tokenizer.ggml.pre", W.STRING, pre)
        w.add("tokenizer.ggml.tokens", W.ARRAY, texts, W.STRING)
        w.add("tokenizer.ggml.token_type", W.ARRAY, types, W.I32)
        w.add("tokenizer.ggml.merges", W.ARRAY, merges, W.STRING)
        _specials(w, ids)
        return n
    return write

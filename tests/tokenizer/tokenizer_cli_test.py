#!/usr/bin/env python3
"""`attnrt tokenize` / `detokenize` as a user drives them: every way to give the tokenizer (a
tokenizer.json, its folder, a model file), every way to give the text or ids, the output forms,
and clear errors with a non-zero exit for bad input. Uses a small tokenizer written here; the
exactness against Hugging Face is tokenizer_exactness_test.py's job.

    tokenizer_cli_test.py --attnrt BIN --model-file-tool BIN
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

GA = "\u0120"  # the byte-level alphabet's space


def small_tokenizer():
    tokens = ["a", "b", "c", "ab", "abc", GA, GA + "a", "<|end|>"]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 7, "content": "<|end|>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "<|end|>", "type_id": 0}}],
                           "pair": [], "special_tokens": {"<|end|>": {
                               "id": "<|end|>", "ids": [7], "tokens": ["<|end|>"]}}},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "fuse_unk": False,
                  "byte_fallback": False, "vocab": {t: i for i, t in enumerate(tokens)},
                  "merges": ["a b", ["ab", "c"], [GA, "a"]]},
    }


class Checker:
    def __init__(self, attnrt):
        self.attnrt = attnrt
        self.passed = 0
        self.failed = 0

    def run(self, *args, stdin=None):
        p = subprocess.run([self.attnrt] + list(args), input=stdin, capture_output=True,
                           timeout=120)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {name} {detail}")

    def expect_out(self, name, args, want, stdin=None):
        rc, out, err = self.run(*args, stdin=stdin)
        self.check(name, rc == 0 and out == want, f"rc={rc} out={out!r} want={want!r} err={err!r}")

    def expect_error(self, name, args, needle, stdin=None, partial=""):
        """`partial`: what a batch printed for its lines before the bad one."""
        rc, out, err = self.run(*args, stdin=stdin)
        self.check(name, rc != 0 and needle in err and out == partial,
                   f"rc={rc} out={out!r} err={err!r} (wanted an error with {needle!r})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnrt", required=True)
    ap.add_argument("--model-file-tool", required=True)
    args = ap.parse_args()
    c = Checker(args.attnrt)
    with tempfile.TemporaryDirectory() as work:
        folder = os.path.join(work, "hf")
        os.makedirs(folder)
        tj = os.path.join(folder, "tokenizer.json")
        with open(tj, "w", encoding="utf-8") as f:
            json.dump(small_tokenizer(), f)
        model = os.path.join(work, "model.attnrt")
        subprocess.run([args.model_file_tool, model, f"hf.tokenizer.json={tj}"], check=True)
        bare_model = os.path.join(work, "bare.attnrt")
        subprocess.run([args.model_file_tool, bare_model], check=True)
        compact = os.path.join(work, "compact.attnrt")
        subprocess.run([args.model_file_tool, "--compact-only", compact,
                        f"hf.tokenizer.json={tj}"], check=True)

        for form, source in (("tokenizer.json", tj), ("folder", folder), ("model", model),
                             ("compact form", compact)):
            c.expect_out(f"{form}: ids", ["tokenize", source, "--text", "abcab ab"], "4,3,5,3,7\n")
            c.expect_out(f"{form}: --no-special", ["tokenize", source, "--text", "abcab ab",
                                                   "--no-special"], "4,3,5,3\n")
            c.expect_out(f"{form}: --json", ["tokenize", source, "--text", "abc", "--json"],
                         '{"ids":[4,7]}\n')
            c.expect_out(f"{form}: detokenize", ["detokenize", source, "--ids", "4, 7,6"],
                         "abc<|end|> a\n")
            c.expect_out(f"{form}: --skip-special --json",
                         ["detokenize", source, "--ids", "4,7,6,123456", "--skip-special",
                          "--json"], '{"text":"abc a"}\n')
        c.expect_out("empty text", ["tokenize", tj, "--text", ""], "7\n")
        c.expect_out("empty text --no-special", ["tokenize", tj, "--text", "", "--no-special"], "\n")
        text_file = os.path.join(work, "text.txt")
        with open(text_file, "wb") as f:
            f.write(b"ab\nc")
        c.expect_out("--text-file", ["tokenize", tj, "--text-file", text_file, "--no-special"],
                     "3,2\n")  # the newline's byte-level token is not in the vocabulary
        c.expect_out("--text-file -", ["tokenize", tj, "--text-file", "-", "--no-special"],
                     "3,2\n", stdin=b"ab\nc")
        batch = os.path.join(work, "batch.jsonl")
        with open(batch, "w", encoding="utf-8") as f:
            f.write('"abc"\n\n"ab ab"\n""\n')
        c.expect_out("--batch", ["tokenize", tj, "--batch", batch, "--json"],
                     '{"ids":[4,7]}\n{"ids":[3,5,3,7]}\n{"ids":[7]}\n')
        c.expect_out("detokenize --batch", ["detokenize", tj, "--batch", "-"],
                     "abc\n a\n\n", stdin=b"[4]\n[6]\n[]\n")

        # Errors: a message naming the problem, nothing on stdout, exit non-zero.
        bad_text = os.path.join(work, "bad.txt")
        with open(bad_text, "wb") as f:
            f.write(b"ab\xffc")
        c.expect_error("invalid UTF-8 file", ["tokenize", tj, "--text-file", bad_text],
                       "not valid UTF-8 (byte 2)")
        c.expect_error("invalid UTF-8 argument", ["tokenize", tj, "--text", b"a\xff"],
                       "--text: the text is not valid UTF-8 (byte 1)")
        c.expect_error("invalid UTF-8 from stdin", ["tokenize", tj, "--text-file", "-"],
                       "not valid UTF-8", stdin=b"\xc3")
        c.expect_error("no text", ["tokenize", tj], "exactly one of --text")
        c.expect_error("two texts", ["tokenize", tj, "--text", "a", "--batch", batch],
                       "exactly one of --text")
        c.expect_error("no ids", ["detokenize", tj], "exactly one of --ids")
        for bad in ("1,,2", "-1", "4294967296", "x", "1,", " "):
            c.expect_error(f"bad --ids {bad!r}", ["detokenize", tj, "--ids", bad], "--ids")
        c.expect_error("bad batch line", ["tokenize", tj, "--batch", "-"],
                       "line 2: expected a JSON string", stdin=b'"ab"\n[1]\n', partial="3,7\n")
        c.expect_error("bad batch JSON", ["detokenize", tj, "--batch", "-"], "line 1: not valid JSON",
                       stdin=b"[1,\n")
        c.expect_error("bad ids in a batch", ["detokenize", tj, "--batch", "-"], "list of token ids",
                       stdin=b"[-3]\n")
        c.expect_error("missing file", ["tokenize", os.path.join(work, "none.json"), "--text", "a"],
                       "none.json")
        c.expect_error("model without a tokenizer", ["tokenize", bare_model, "--text", "a"],
                       "has no tokenizer")
        c.expect_error("not JSON", ["tokenize", text_file, "--text", "a"], "tokenizer.json")
        for field, value, needle in (
                ("model", {"type": "Unigram", "vocab": []}, "model type 'Unigram'"),
                ("normalizer", {"type": "Lowercase"}, "normalizer 'Lowercase'"),
                ("pre_tokenizer", {"type": "Whitespace"}, "pre-tokenizer 'Whitespace'"),
                ("decoder", {"type": "WordPiece"}, "decoder 'WordPiece'"),
                ("post_processor", {"type": "Nonsense"}, "post-processor 'Nonsense'")):
            t = small_tokenizer()
            t[field] = value
            path = os.path.join(work, f"refused_{field}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(t, f)
            c.expect_error(f"refuses {needle}", ["tokenize", path, "--text", "a"], needle)
            refused_model = os.path.join(work, f"refused_{field}.attnrt")
            subprocess.run([args.model_file_tool, refused_model, f"hf.tokenizer.json={path}"],
                           check=True)
            c.expect_error(f"refuses {needle} in a model", ["detokenize", refused_model,
                                                             "--ids", "1"], needle)
        # A compact form from another version: the hf.* files are read instead; alone, an error.
        stale = os.path.join(work, "stale.bin")
        magic = b"attnrt tokenizer, compact form"
        raw = len(magic).to_bytes(4, "little") + magic + (99).to_bytes(4, "little")
        with open(stale, "wb") as f:
            f.write(raw.replace(b"\x01", b"\x01\x03").replace(b"\x00", b"\x01\x02"))
        stale_model = os.path.join(work, "stale.attnrt")
        subprocess.run([args.model_file_tool, stale_model, f"hf.tokenizer.json={tj}",
                        f"tokenizer.compact={stale}"], check=True)
        c.expect_out("stale compact form falls back", ["tokenize", stale_model, "--text", "abc"],
                     "4,7\n")
        subprocess.run([args.model_file_tool, stale_model, f"tokenizer.compact={stale}"],
                       check=True)
        c.expect_error("stale compact form alone", ["tokenize", stale_model, "--text", "abc"],
                       "has version 99")
        # A model converted from GGUF: a stale compact form falls back to gguf.tokenizer.
        gguf_tokenizer = os.path.join(work, "gguf_tokenizer.json")
        with open(gguf_tokenizer, "w", encoding="utf-8") as f:
            json.dump({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2",
                       "tokenizer.ggml.tokens": ["a", "b", "c", "ab"],
                       "tokenizer.ggml.merges": ["a b"]}, f)
        subprocess.run([args.model_file_tool, stale_model, f"gguf.tokenizer={gguf_tokenizer}",
                        f"tokenizer.compact={stale}"], check=True)
        c.expect_out("stale compact form falls back to GGUF's", ["tokenize", stale_model,
                                                                "--text", "abc"], "3,2\n")
        damaged = os.path.join(work, "damaged.bin")
        with open(damaged, "wb") as f:
            f.write(raw.replace(b"\x01", b"\x01\x03").replace(b"\x00", b"\x01\x02")[:-3])
        subprocess.run([args.model_file_tool, stale_model, f"hf.tokenizer.json={tj}",
                        f"tokenizer.compact={damaged}"], check=True)
        c.expect_error("damaged compact form", ["tokenize", stale_model, "--text", "abc"],
                       "damaged")

        # A tokenizer_config.json beside tokenizer.json applies (transformers reads the folder).
        with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump({"clean_up_tokenization_spaces": True, "tokenizer_class": "GPT2Tokenizer",
                       "additional_special_tokens": ["abc"]}, f)
        c.expect_out("config beside tokenizer.json", ["detokenize", tj, "--ids", "4,6",
                                                      "--skip-special"], " a\n")
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())

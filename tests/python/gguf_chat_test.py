#!/usr/bin/python3
"""A model converted from a GGUF file generates and chats as a Hugging Face one does (issues 31
and 33): `attnrt convert` stores the file's end-of-generation ids (tokenizer.ggml.eos/eot/
eom_token_id) as the lm.eos_token_* metadata, and `chat` reads tokenizer.chat_template and the
bos/eos token texts from the kept tokenizer metadata. A byte-level BPE tokenizer
(gguf_models.bpe_tokenizer) gains ChatML's <|im_start|> / <|im_end|> as control tokens and a
ChatML template; eot names <|im_end|>. Checks: the eos ids `inspect --json` shows; an eot id
outside the vocabulary refused by name; `generate --prompt` runs; `chat` recognises ChatML from the GGUF's template and feeds
turn 1 exactly as ChatML renders it, turn 2 only its own tokens; without a template `chat`
refuses, naming --template. Exits 77 without numpy."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import script_setup

with script_setup.skip_without_modules():
    import numpy as np  # noqa: F401  (gguf_writer needs it)

import gguf_models
from case_tally import Tally

script_setup.import_tools_python()
import gguf_writer as W  # noqa: E402

VOCAB = 320
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
          "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}"
          "{{ '<|im_start|>assistant\\n' }}{% endif %}")


def chatml_tokenizer(template=CHATML, eot=None):
    def write(w):
        start = len(w.kv)
        gguf_models.bpe_tokenizer(w, VOCAB)
        keys = {k: i for i, (k, *_rest) in enumerate(w.kv) if i >= start}
        tokens = list(w.kv[keys["tokenizer.ggml.tokens"]][2])
        types = list(w.kv[keys["tokenizer.ggml.token_type"]][2])
        tokens[-3:-1] = ["<|im_start|>", "<|im_end|>"]  # two merged pairs make room
        types[-3:-1] = [3, 3]
        merges = [m for m in w.kv[keys["tokenizer.ggml.merges"]][2]
                  if m.replace(" ", "") in tokens]
        w.kv[keys["tokenizer.ggml.tokens"]] = ("tokenizer.ggml.tokens", W.ARRAY, tokens, W.STRING)
        w.kv[keys["tokenizer.ggml.token_type"]] = ("tokenizer.ggml.token_type", W.ARRAY, types,
                                                   W.I32)
        w.kv[keys["tokenizer.ggml.merges"]] = ("tokenizer.ggml.merges", W.ARRAY, merges, W.STRING)
        w.add("tokenizer.ggml.eot_token_id", W.U32, VOCAB - 2 if eot is None else eot)
        if template is not None:
            w.add("tokenizer.chat_template", W.STRING, template)
        return VOCAB
    return write


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attnrt", required=True)
    attnrt = parser.parse_args().attnrt
    tally = Tally()

    def run(*argv, stdin=None):
        return subprocess.run([attnrt, *argv], input=stdin, capture_output=True, text=True,
                              timeout=300)

    with tempfile.TemporaryDirectory() as work:
        def convert(name, write):
            path, out = os.path.join(work, name + ".gguf"), os.path.join(work, name + ".attnrt")
            gguf_models.build("qwen2", tokenizer=write)[0].write(path)
            return run("convert", path, "-o", out), out

        conv, model = convert("chatml", chatml_tokenizer())
        tally.case(conv.returncode == 0, "convert", conv.stderr.strip()[-300:])

        shown = json.loads(run("inspect", model, "--json").stdout or "{}")
        config = shown.get("config", {})
        eos = sorted({VOCAB - 1, VOCAB - 2})
        stored = [config.get(f"lm.eos_token_id.{i}") for i in range(2)]
        tally.case(sorted(x for x in stored if x is not None) == eos and
                   config.get("lm.eos_token_count") == 2, "eos ids stored (eos, eot)",
                   f"stored {stored}")

        gen = run("generate", model, "--prompt", "hello there", "--max-new-tokens", "4",
                  "--json")
        report = json.loads(gen.stdout) if gen.returncode == 0 else {}
        tally.case(gen.returncode == 0 and report.get("end") in ("length", "eos"),
                   "generate --prompt", gen.stderr.strip()[-300:] or f"end {report.get('end')}")

        chat = run("chat", model, "--max-new-tokens", "3", "--verbose",
                   stdin="hi\nhow are you\n")
        stats = [json.loads(line[len("chat: stats "):]) for line in chat.stderr.splitlines()
                 if line.startswith("chat: stats ")]
        want = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
        tally.case(chat.returncode == 0 and len(stats) == 2 and stats[0].get("fed_text") == want,
                   "chat: ChatML from tokenizer.chat_template",
                   f"turn 1 fed {stats[0].get('fed_text')!r}" if stats else
                   chat.stderr.strip()[-300:])

        conv, bare = convert("bare", chatml_tokenizer(template=None))
        refused = run("chat", bare, stdin="hi\n")
        tally.case(conv.returncode == 0 and refused.returncode != 0 and
                   "--template" in refused.stderr,
                   "chat without a template refused, naming --template", refused.stderr.strip()[-300:])

        conv, _ = convert("bad_eot", chatml_tokenizer(eot=VOCAB + 5))
        tally.case(conv.returncode != 0 and "tokenizer.ggml.eot_token_id" in conv.stderr,
                   "eot id outside the vocabulary refused by name", conv.stderr.strip()[-300:])
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

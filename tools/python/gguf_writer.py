"""A small GGUF writer (llama.cpp's model format, version 3, little-endian) for attnrt's tests
and benchmarks (tools/python/llama_gguf.py writes the benchmarks' llama models with it), with
numpy encoders for the tensor types attnrt imports: F32, F16, BF16 and the ggml block types
Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K (block layouts of ggml-common.h).

The encoders are simple round-to-nearest quantizers, not llama.cpp's optimized ones: any
block they write is a valid block, and the tests compare attnrt with llama.cpp on the same
file, so only the layout matters. `decode` inverts each (for the tests' own checks).

Layout: "GGUF", u32 version, u64 tensor count, u64 key count, the keys (u64-length string,
u32 type, value), the tensor infos (name, u32 n_dims, u64 ne[] fastest first, u32 type,
u64 offset), zero padding to general.alignment (32), the tensor data, each aligned.
"""
import struct

import numpy as np

from output_files import write_atomically

# Value types.
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
_SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
           BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}

# ggml tensor types: id, values per block, bytes per block.
GGML = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
        "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84),
        "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210),
        "BF16": (30, 1, 2), "IQ2_XXS": (16, 256, 66)}


def _f16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16)


def _f16_bytes(x):
    return _f16(x).view(np.uint8).reshape(*np.shape(x), 2)


# ---- block encoders: rows of `cols` values (a multiple of the block) -> uint8 blocks ----

def _blocks(x, n):
    x = np.asarray(x, dtype=np.float32)
    return x.reshape(-1, n)


def encode_q8_0(x):
    b = _blocks(x, 32)
    amax = np.abs(b).max(axis=1)
    d = _f16(amax / 127.0)
    inv = np.where(d.astype(np.float32) > 0, 1.0 / np.maximum(d.astype(np.float32), 1e-30), 0.0)
    q = np.clip(np.rint(b * inv[:, None]), -127, 127).astype(np.int8)
    return np.concatenate([d.view(np.uint8).reshape(-1, 2), q.view(np.uint8)], axis=1)


def _nibbles(q):  # (blocks, 32) values 0..15 -> (blocks, 16) bytes, low = first half
    return (q[:, :16] | (q[:, 16:] << 4)).astype(np.uint8)


def encode_q4_0(x):
    b = _blocks(x, 32)
    idx = np.abs(b).argmax(axis=1)
    mx = b[np.arange(len(b)), idx]
    d = _f16(mx / -8.0)
    df = d.astype(np.float32)
    inv = np.where(df != 0, 1.0 / np.where(df != 0, df, 1), 0.0)
    q = np.clip(np.rint(b * inv[:, None]) + 8, 0, 15).astype(np.uint8)
    return np.concatenate([d.view(np.uint8).reshape(-1, 2), _nibbles(q)], axis=1)


def _min_scale(b, levels):
    lo, hi = b.min(axis=1), b.max(axis=1)
    d = _f16((hi - lo) / levels)
    m = _f16(lo)
    df = d.astype(np.float32)
    inv = np.where(df != 0, 1.0 / np.where(df != 0, df, 1), 0.0)
    q = np.clip(np.rint((b - m.astype(np.float32)[:, None]) * inv[:, None]), 0, levels)
    return d, m, q.astype(np.uint32)


def encode_q4_1(x):
    d, m, q = _min_scale(_blocks(x, 32), 15)
    return np.concatenate([d.view(np.uint8).reshape(-1, 2), m.view(np.uint8).reshape(-1, 2),
                           _nibbles(q.astype(np.uint8))], axis=1)


def _high_bits(q):  # bit 4 of value j -> bit j of a little-endian u32
    h = ((q >> 4) & 1).astype(np.uint32) << np.arange(32, dtype=np.uint32)
    return h.sum(axis=1).astype("<u4").view(np.uint8).reshape(-1, 4)


def encode_q5_0(x):
    b = _blocks(x, 32)
    idx = np.abs(b).argmax(axis=1)
    d = _f16(b[np.arange(len(b)), idx] / -16.0)
    df = d.astype(np.float32)
    inv = np.where(df != 0, 1.0 / np.where(df != 0, df, 1), 0.0)
    q = np.clip(np.rint(b * inv[:, None]) + 16, 0, 31).astype(np.uint32)
    return np.concatenate([d.view(np.uint8).reshape(-1, 2), _high_bits(q),
                           _nibbles((q & 15).astype(np.uint8))], axis=1)


def encode_q5_1(x):
    d, m, q = _min_scale(_blocks(x, 32), 31)
    return np.concatenate([d.view(np.uint8).reshape(-1, 2), m.view(np.uint8).reshape(-1, 2),
                           _high_bits(q), _nibbles((q & 15).astype(np.uint8))], axis=1)


def _pack_k4_scales(sc, mn):  # (blocks, 8) 6-bit scales and mins -> (blocks, 12) bytes
    out = np.zeros((len(sc), 12), dtype=np.uint8)
    out[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)
    out[:, 4:8] = (mn[:, 0:4] & 63) | ((mn[:, 4:8] >> 4) << 6)
    out[:, 8:12] = (sc[:, 4:8] & 15) | ((mn[:, 4:8] & 15) << 4)
    return out


def _encode_qk(x, levels):
    """Q4_K (levels 15) / Q5_K (31): 8 sub-blocks of 32 with 6-bit scale and min."""
    b = _blocks(x, 256).reshape(-1, 8, 32)
    lo = np.minimum(b.min(axis=2), 0)
    hi = b.max(axis=2)
    scale = (hi - lo) / levels
    mins = -lo
    d = _f16(scale.max(axis=1) / 63)
    dmin = _f16(mins.max(axis=1) / 63)
    df, dmf = d.astype(np.float32), dmin.astype(np.float32)
    sc = np.clip(np.rint(scale / np.where(df > 0, df, 1)[:, None]), 0, 63).astype(np.uint8)
    mn = np.clip(np.rint(mins / np.where(dmf > 0, dmf, 1)[:, None]), 0, 63).astype(np.uint8)
    step = df[:, None] * sc
    off = dmf[:, None] * mn
    q = np.clip(np.rint((b + off[:, :, None]) / np.where(step > 0, step, 1)[:, :, None]), 0, levels)
    q = q.astype(np.uint8)  # (blocks, 8, 32)
    # Sub-blocks 2i and 2i+1 share 32 bytes: low nibbles the first, high the second.
    nib = (q[:, 0::2, :] & 15) | ((q[:, 1::2, :] & 15) << 4)
    head = [d.view(np.uint8).reshape(-1, 2), dmin.view(np.uint8).reshape(-1, 2),
            _pack_k4_scales(sc, mn)]
    if levels == 31:  # qh[l] bit 2i: sub-block 2i's fifth bit of value l; 2i+1: bit 2i+1
        hb = (q >> 4) & 1
        qh = np.zeros((len(q), 32), dtype=np.uint8)
        for s in range(8):
            qh |= (hb[:, s, :] << s).astype(np.uint8)
        head.append(qh)
    return np.concatenate(head + [nib.reshape(len(q), 128)], axis=1)


def encode_q4_k(x):
    return _encode_qk(x, 15)


def encode_q5_k(x):
    return _encode_qk(x, 31)


def encode_q6_k(x):
    """16 sub-blocks of 16 with int8 scales, values -32..31."""
    b = _blocks(x, 256).reshape(-1, 16, 16)
    scale = np.abs(b).max(axis=2) / 31
    d = _f16(np.abs(scale).max(axis=1) / 127)
    df = d.astype(np.float32)
    sc = np.clip(np.rint(scale / np.where(df > 0, df, 1)[:, None]), -128, 127).astype(np.int8)
    step = df[:, None] * sc
    q = np.clip(np.rint(b / np.where(step != 0, step, 1)[:, :, None]), -32, 31) + 32
    q = q.astype(np.uint8).reshape(-1, 256)
    ql = np.zeros((len(q), 128), dtype=np.uint8)
    qh = np.zeros((len(q), 64), dtype=np.uint8)
    for half in range(2):  # 128 values each: ql 64 bytes, qh 32 bytes
        v = q[:, half * 128:(half + 1) * 128]
        l = slice(half * 64, half * 64 + 64)
        ql[:, l] = np.concatenate([(v[:, 0:32] & 15) | ((v[:, 64:96] & 15) << 4),
                                   (v[:, 32:64] & 15) | ((v[:, 96:128] & 15) << 4)], axis=1)
        qh[:, half * 32:half * 32 + 32] = ((v[:, 0:32] >> 4) | ((v[:, 32:64] >> 4) << 2) |
                                           ((v[:, 64:96] >> 4) << 4) | ((v[:, 96:128] >> 4) << 6))
    return np.concatenate([ql, qh, sc.view(np.uint8), d.view(np.uint8).reshape(-1, 2)], axis=1)


# ---- decoders (ggml's dequantize_row_*), for the tests' own checks ----

def _half(b, at):
    return b[:, at:at + 2].copy().view(np.float16).astype(np.float32)[:, 0]


def decode(type_name, raw, count):
    b = np.frombuffer(bytes(raw), dtype=np.uint8)
    gid, blk, size = GGML[type_name]
    if type_name == "F32":
        return b.view("<f4").astype(np.float32)
    if type_name == "F16":
        return b.view("<f2").astype(np.float32)
    if type_name == "BF16":
        return (b.view("<u2").astype(np.uint32) << 16).view(np.float32)
    b = b.reshape(-1, size)
    if type_name == "Q8_0":
        return (b[:, 2:].view(np.int8).astype(np.float32) * _half(b, 0)[:, None]).reshape(-1)
    if type_name in ("Q4_0", "Q4_1", "Q5_0", "Q5_1"):
        mn = type_name.endswith("_1")
        d = _half(b, 0)
        m = _half(b, 2) if mn else np.zeros_like(d)
        at = 4 if mn else 2
        q = np.concatenate([b[:, -16:] & 15, b[:, -16:] >> 4], axis=1).astype(np.int32)
        if type_name.startswith("Q5"):
            qh = b[:, at:at + 4].copy().view("<u4")[:, 0]
            q |= (((qh[:, None] >> np.arange(32, dtype=np.uint32)) & 1) << 4).astype(np.int32)
        if not mn:
            q -= 8 if type_name == "Q4_0" else 16
        return (q * d[:, None] + m[:, None]).astype(np.float32).reshape(-1)
    if type_name in ("Q4_K", "Q5_K"):
        d, dmin = _half(b, 0), _half(b, 2)
        s = b[:, 4:16].astype(np.int32)
        sc = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 15) | ((s[:, 0:4] >> 6) << 4)], axis=1)
        mn = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)], axis=1)
        qs = b[:, -128:].reshape(-1, 4, 32).astype(np.int32)
        q = np.stack([qs & 15, qs >> 4], axis=2).reshape(-1, 8, 32)
        if type_name == "Q5_K":
            qh = b[:, 16:48].astype(np.int32)
            q = q + ((qh[:, None, :] >> np.arange(8)[None, :, None]) & 1) * 16
        y = (d[:, None] * sc)[:, :, None] * q - (dmin[:, None] * mn)[:, :, None]
        return y.astype(np.float32).reshape(-1)
    if type_name == "Q6_K":
        ql, qh = b[:, 0:128].astype(np.int32), b[:, 128:192].astype(np.int32)
        sc = b[:, 192:208].view(np.int8).astype(np.float32)
        d = _half(b, 208)
        out = np.zeros((len(b), 256), dtype=np.float32)
        for half in range(2):
            l, h = ql[:, half * 64:half * 64 + 64], qh[:, half * 32:half * 32 + 32]
            q = [(l[:, 0:32] & 15) | ((h & 3) << 4), (l[:, 32:64] & 15) | (((h >> 2) & 3) << 4),
                 (l[:, 0:32] >> 4) | (((h >> 4) & 3) << 4), (l[:, 32:64] >> 4) | (((h >> 6) & 3) << 4)]
            for k in range(4):
                s = sc[:, half * 8 + 2 * k: half * 8 + 2 * k + 2]
                part = (d[:, None] * np.repeat(s, 16, axis=1)).astype(np.float32) * (q[k] - 32)
                out[:, half * 128 + 32 * k: half * 128 + 32 * k + 32] = part
        return out.reshape(-1)
    raise ValueError(type_name)


ENCODERS = {"Q8_0": encode_q8_0, "Q4_0": encode_q4_0, "Q4_1": encode_q4_1, "Q5_0": encode_q5_0,
            "Q5_1": encode_q5_1, "Q4_K": encode_q4_k, "Q5_K": encode_q5_k, "Q6_K": encode_q6_k}


def encode(type_name, values):
    """C-order float values -> the type's bytes (rows along the last axis)."""
    v = np.ascontiguousarray(values, dtype=np.float32)
    if type_name == "F32":
        return v.astype("<f4").tobytes()
    if type_name == "F16":
        return v.astype("<f2").tobytes()
    if type_name == "BF16":
        bits = v.view(np.uint32)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return rounded.astype("<u2").tobytes()
    return ENCODERS[type_name](v.reshape(-1)).tobytes()


class GgufWriter:
    def __init__(self, arch, alignment=32, version=3):
        self.version = version
        self.alignment = alignment
        self.kv = []       # (key, type, value, element type)
        self.tensors = []  # (name, ne, type id, bytes)
        self.add("general.architecture", STRING, arch)
        if alignment != 32:
            self.add("general.alignment", U32, alignment)

    def add(self, key, vtype, value, element_type=None):
        self.kv.append((key, vtype, value, element_type))

    def tensor(self, name, values, type_name="F32", shape=None):
        """Adds a tensor from C-order float values, encoded as `type_name`."""
        values = np.asarray(values, dtype=np.float32)
        shape = values.shape if shape is None else shape
        gid = GGML[type_name][0]
        self.tensors.append((name, list(reversed(shape)), gid, encode(type_name, values)))

    def raw_tensor(self, name, ne, type_id, data):
        self.tensors.append((name, list(ne), type_id, bytes(data)))

    @staticmethod
    def _string(s):
        b = s.encode() if isinstance(s, str) else bytes(s)
        return struct.pack("<Q", len(b)) + b

    def _value(self, vtype, value, element_type):
        if vtype == STRING:
            return self._string(value)
        if vtype == ARRAY:
            parts = [struct.pack("<IQ", element_type, len(value))]  # joined once: vocabularies are long
            for item in value:
                if element_type == ARRAY:
                    parts.append(self._value(ARRAY, item[1], item[0]))
                else:
                    parts.append(self._value(element_type, item, None))
            return b"".join(parts)
        return struct.pack(_SCALAR[vtype], value)

    def header(self):
        out = bytearray(b"GGUF" + struct.pack("<IQQ", self.version, len(self.tensors), len(self.kv)))
        for key, vtype, value, et in self.kv:
            out += self._string(key) + struct.pack("<I", vtype) + self._value(vtype, value, et)
        offset = 0
        self._offsets = []
        for name, ne, gid, data in self.tensors:
            out += self._string(name) + struct.pack("<I", len(ne))
            out += b"".join(struct.pack("<Q", n) for n in ne)
            out += struct.pack("<IQ", gid, offset)
            self._offsets.append(offset)
            offset += -(-len(data) // self.alignment) * self.alignment
        return bytes(out)

    def bytes(self):
        out = bytearray(self.header())
        out += b"\0" * (-len(out) % self.alignment)
        for (name, ne, gid, data), offset in zip(self.tensors, self._offsets):
            out += data
            out += b"\0" * (-len(data) % self.alignment)
        return bytes(out)

    def write(self, path):
        write_atomically(path, lambda f: f.write(self.bytes()))

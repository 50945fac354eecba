#!/usr/bin/env python3
"""Independent Python writer and reader of the attnrt flat weight file (runtime/FORMAT.md).

Written from FORMAT.md alone, without the C++ code, so the tests can check that the C++ reader
accepts these files and that the C++ writer produces them byte for byte. Also writes the libFuzzer
seed corpus (tests/fuzz/corpus/weight_file/).

    weight_files.py write OUT_DIR      write the sample files (the fuzz seed corpus)
    weight_files.py check DIR          exit 1 unless DIR holds exactly what `write` would write
    weight_files.py dump FILE...       parse each file strictly and print what it holds
"""
import math
import os
import struct
import sys

import numpy as np

MAGIC = b"ATTNRTWF"
VERSION = 1  # an f32-only file; a file with any other type is version 2
TYPED_VERSION = 2
HEADER_SIZE = 128
TENSOR_ENTRY = 64
METADATA_ENTRY = 24
CHECKSUM_AT = 104
DTYPE_F32, DTYPE_F16, DTYPE_BF16, DTYPE_Q8, DTYPE_Q4_0, DTYPE_Q4_K, DTYPE_Q6_K = 1, 2, 3, 4, 5, 6, 7
DTYPE_CODES = {"f32": DTYPE_F32, "f16": DTYPE_F16, "bf16": DTYPE_BF16, "q8": DTYPE_Q8,
               "q4_0": DTYPE_Q4_0, "q4_K": DTYPE_Q4_K, "q6_K": DTYPE_Q6_K}
SUPER_BLOCK = 256
SUPER_BLOCK_BYTES = {"q4_K": 144, "q6_K": 210}
Q8_BLOCK = 32
Q4_0_BLOCK, Q4_0_BLOCK_BYTES = 32, 18
TYPE_INT, TYPE_FLOAT, TYPE_STRING = 1, 2, 3


def crc32c(data, crc=0):
    """CRC32C (Castagnoli), reflected polynomial 0x82F63B78, init and final xor 0xFFFFFFFF."""
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283  # the CRC32C check value (RFC 3720 lists more)


def file_checksum(image):
    return crc32c(bytes(image[:CHECKSUM_AT]) + b"\0\0\0\0" + bytes(image[CHECKSUM_AT + 4:]))


def align_up(n, a):
    return (n + a - 1) // a * a


def sample_values(seed, count):
    """Values every test derives the same way: seed + 0.25 * k (exact in float32)."""
    return [seed + 0.25 * k for k in range(count)]


def matrix_view(shape):
    """FORMAT.md's rows x cols view: dims[0] rows of the rest; rank 0 and 1 are one row."""
    if len(shape) >= 2:
        return shape[0], math.prod(shape[1:])
    return 1, math.prod(shape)


def f16_bits(x):
    return int(np.array([x], dtype=np.float32).astype(np.float16).view(np.uint16)[0])


def f16_value(bits):
    return float(np.array([bits], dtype=np.uint16).view(np.float16)[0])


def bf16_bits(x):
    """Round the f32 bits to their upper half, nearest, ties to even (NaN stays NaN, quiet)."""
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def q8_row(row):
    """One row as FORMAT.md's q8: per block of 32, scale = f16(max|x| / 127) computed in f32, values
    round(x / scale) half away from zero, clamped to [-127, 127]; returns (int8 list, scale bits)."""
    values, scales = [], []
    for b0 in range(0, len(row), Q8_BLOCK):
        block = np.array(row[b0:b0 + Q8_BLOCK], dtype=np.float32)
        amax = np.float32(np.max(np.abs(block))) if len(block) else np.float32(0)
        bits = f16_bits(float(amax / np.float32(127)))
        scales.append(bits)
        scale = np.float32(f16_value(bits))
        inv = np.float32(1) / scale if scale > 0 else np.float32(0)
        q = np.clip(block * inv, np.float32(-127), np.float32(127))
        values.extend(int(v) for v in np.where(q < 0, q - np.float32(0.5), q + np.float32(0.5)).astype(np.int32))
    return values, scales


def q4_0_row(row):
    """One row as FORMAT.md's q4_0 reference writer: per block of 32, m the value of largest
    magnitude (first on ties), d = f16(m / -8) in f32, one f16 step larger in magnitude when
    8.5 |d| < |m|; nibbles round(x / d) clamped to [-8, 7], halves away from zero, plus 8; a short
    block padded with nibble 8. Returns the row's bytes."""
    out = bytearray()
    for b0 in range(0, len(row), Q4_0_BLOCK):
        block = np.array(row[b0:b0 + Q4_0_BLOCK], dtype=np.float32)
        first = int(np.argmax(np.abs(block)))
        m, amax = block[first], np.abs(block)[first]
        bits = f16_bits(float(m / np.float32(-8)))
        if np.float32(f16_value(bits & 0x7FFF)) * np.float32(8.5) < amax:
            bits += 1
        d = np.float32(f16_value(bits))
        inv = np.float32(1) / d if d != 0 else np.float32(0)
        q = np.clip(block * inv, np.float32(-8), np.float32(7))
        nibbles = list(np.where(q < 0, q - np.float32(0.5), q + np.float32(0.5)).astype(np.int32) + 8)
        nibbles += [8] * (Q4_0_BLOCK - len(nibbles))
        half = Q4_0_BLOCK // 2
        out.extend(struct.pack("<H", bits))
        out.extend(bytes(int(nibbles[j]) | int(nibbles[j + half]) << 4 for j in range(half)))
    return bytes(out)


F32 = np.float32


def f16_at_least(target, k):
    """FORMAT.md's "smallest f16 h with k * h >= target", starting from f16(f32(target / k)) and
    going up one f16 step at a time (k * h is exact in f32); 0x7C00 when none is finite."""
    if not target > 0:
        return 0
    bits = f16_bits(float(F32(target) / F32(k)))
    while bits < 0x7C00 and f16_value(bits) * k < target:
        bits += 1
    return min(bits, 0x7C00)


def smallest_multiple(unit, target, limit):
    """The smallest integer n in [0, limit] with unit * n >= target (limit when none is)."""
    if not (target > 0 and unit > 0):
        return 0
    n = 0
    while n < limit and unit * n < target:
        n += 1
    return n


def q4_k_row(row):
    """One row (a multiple of 256 values) as FORMAT.md's q4_K reference writer."""
    out = bytearray()
    for b0 in range(0, len(row), SUPER_BLOCK):
        v = np.array(row[b0:b0 + SUPER_BLOCK], dtype=np.float32)
        subs = v.reshape(8, 32)
        lo = [min(F32(0), F32(s.min())) for s in subs]
        hi = [F32(s.max()) for s in subs]
        dmin_bits = f16_at_least(max(-x for x in lo), 63)
        dmin = f16_value(dmin_bits)
        m = [smallest_multiple(dmin, -x, 63) for x in lo]
        t = [F32(hi[s]) + F32(dmin * m[s]) for s in range(8)]
        d_bits = f16_at_least(max(max(t), F32(0)), 945)
        d = f16_value(d_bits)
        sc = [smallest_multiple(15 * d, t[s], 63) for s in range(8)]
        scales = bytearray(12)
        for s in range(4):  # sub-blocks 0..3 in 6 bits; 4..7 in nibbles plus the spare top bits
            scales[s] = sc[s] | (sc[s + 4] >> 4) << 6
            scales[s + 4] = m[s] | (m[s + 4] >> 4) << 6
            scales[s + 8] = (sc[s + 4] & 15) | (m[s + 4] & 15) << 4
        q = []
        for s in range(8):
            step, offset = F32(d * sc[s]), F32(dmin * m[s])
            inv = F32(1) / step if step > 0 else F32(0)
            for x in subs[s]:
                r = min(max(F32(F32(x + offset) * inv), F32(0)), F32(15))
                q.append(int(F32(r + F32(0.5))))
        out.extend(struct.pack("<HH", d_bits, dmin_bits) + scales)
        for g in range(4):  # 32 bytes per 64 values: low nibbles the first 32, high the next
            out.extend(bytes(q[64 * g + l] | q[64 * g + 32 + l] << 4 for l in range(32)))
    return bytes(out)


def q6_k_row(row):
    """One row (a multiple of 256 values) as FORMAT.md's q6_K reference writer."""
    out = bytearray()
    for b0 in range(0, len(row), SUPER_BLOCK):
        v = np.array(row[b0:b0 + SUPER_BLOCK], dtype=np.float32)
        mx = []
        for s in range(16):
            sub = v[16 * s:16 * s + 16]
            mx.append(sub[int(np.argmax(np.abs(sub)))])
        d_bits = f16_at_least(max(abs(float(x)) for x in mx), 4064)
        d = f16_value(d_bits)
        sc = []
        for x in mx:
            n = smallest_multiple(32 * d, abs(float(x)), 127)
            sc.append(-n if x > 0 else n)
        q = []
        for j in range(SUPER_BLOCK):
            step = F32(d * sc[j // 16])
            r = F32(v[j] / step) if step != 0 else F32(0)
            r = min(max(r, F32(-32)), F32(31))
            q.append(int(F32(r - F32(0.5)) if r < 0 else F32(r + F32(0.5))) + 32)
        ql, qh = bytearray(128), bytearray(64)
        for j in range(SUPER_BLOCK):
            h, c, l = j // 128, j % 128 // 32, j % 32
            ql[64 * h + 32 * (c % 2) + l] |= (q[j] & 15) << (0 if c < 2 else 4)
            qh[32 * h + l] |= (q[j] >> 4) << (2 * c)
        out.extend(ql + qh + struct.pack("<16b", *sc) + struct.pack("<H", d_bits))
    return bytes(out)


def k_value(dtype, block, j):
    """Value j of a q4_K or q6_K super-block, from FORMAT.md's layout (exact products in f32,
    so float64 math rounded once to f32 gives the same value)."""
    if dtype == "q4_K":
        d, dmin = f16_value(struct.unpack_from("<H", block, 0)[0]), f16_value(struct.unpack_from("<H", block, 2)[0])
        s = j // 32
        if s < 4:
            sc, m = block[4 + s] & 63, block[8 + s] & 63
        else:
            sc = (block[8 + s] & 15) | (block[s] >> 6) << 4
            m = (block[8 + s] >> 4) | (block[4 + s] >> 6) << 4
        byte = block[16 + j // 64 * 32 + j % 32]
        q = byte & 15 if j % 64 < 32 else byte >> 4
        return float(F32(F32(d * sc) * q) - F32(dmin * m))
    h, c, l = j // 128, j % 128 // 32, j % 32
    low = block[64 * h + 32 * (c % 2) + l]
    q = (low & 15 if c < 2 else low >> 4) | ((block[128 + 32 * h + l] >> (2 * c)) & 3) << 4
    sc = struct.unpack_from("<b", block, 192 + j // 16)[0]
    d = f16_value(struct.unpack_from("<H", block, 208)[0])
    return float(F32(d * sc) * F32(q - 32))


def tensor_bytes(dtype, shape, values):
    """The data bytes of one tensor in its stored type."""
    if dtype == "f32":
        return struct.pack("<%df" % len(values), *values)
    if dtype in ("f16", "bf16"):
        to_bits = f16_bits if dtype == "f16" else bf16_bits
        return struct.pack("<%dH" % len(values), *[to_bits(v) for v in values])
    rows, cols = matrix_view(shape)
    if dtype == "q4_0":
        return b"".join(q4_0_row(values[r * cols:(r + 1) * cols]) for r in range(rows))
    if dtype in SUPER_BLOCK_BYTES:
        assert cols % SUPER_BLOCK == 0, "q4_K and q6_K rows are whole super-blocks"
        encode_row = q4_k_row if dtype == "q4_K" else q6_k_row
        return b"".join(encode_row(values[r * cols:(r + 1) * cols]) for r in range(rows))
    plane, scales = bytearray(), []
    for r in range(rows):
        q, s = q8_row(values[r * cols:(r + 1) * cols])
        plane.extend(struct.pack("<%db" % len(q), *q))
        scales.extend(s)
    plane.extend(bytes(align_up(len(plane), 64) - len(plane)))
    return bytes(plane) + struct.pack("<%dH" % len(scales), *scales)


def widen(dtype, shape, data):
    """Values of stored bytes, as the runtime widens them (q8: f32 scale times q, in f32)."""
    n = math.prod(shape)
    if dtype == "f32":
        return list(struct.unpack("<%df" % n, data))
    if dtype == "f16":
        return [f16_value(b) for b in struct.unpack("<%dH" % n, data)]
    if dtype == "bf16":
        return [struct.unpack("<f", struct.pack("<I", b << 16))[0]
                for b in struct.unpack("<%dH" % n, data)]
    rows, cols = matrix_view(shape)
    if dtype in SUPER_BLOCK_BYTES:
        size = SUPER_BLOCK_BYTES[dtype]
        return [k_value(dtype, data[i // SUPER_BLOCK * size:(i // SUPER_BLOCK + 1) * size], i % SUPER_BLOCK)
                for i in range(n)]
    if dtype == "q4_0":  # f16 d times (nibble - 8): exact in f32
        blocks = (cols + Q4_0_BLOCK - 1) // Q4_0_BLOCK
        values = []
        for i in range(n):
            r, c = divmod(i, cols)
            at = (r * blocks + c // Q4_0_BLOCK) * Q4_0_BLOCK_BYTES
            j = c % Q4_0_BLOCK
            byte = data[at + 2 + j % (Q4_0_BLOCK // 2)]
            nibble = byte & 15 if j < Q4_0_BLOCK // 2 else byte >> 4
            d = f16_value(struct.unpack_from("<H", data, at)[0])
            values.append(float(np.float32(d) * np.float32(nibble - 8)))
        return values
    q = struct.unpack("<%db" % n, data[:n])
    blocks = (cols + Q8_BLOCK - 1) // Q8_BLOCK
    scales = struct.unpack("<%dH" % (rows * blocks), data[align_up(n, 64):])
    return [float(np.float32(f16_value(scales[(i // cols) * blocks + (i % cols) // Q8_BLOCK])) *
                  np.float32(q[i])) for i in range(n)]


def stored_size(dtype, shape):
    n = math.prod(shape)
    if dtype == "f32":
        return 4 * n
    if dtype in ("f16", "bf16"):
        return 2 * n
    rows, cols = matrix_view(shape)
    if dtype in SUPER_BLOCK_BYTES:
        return SUPER_BLOCK_BYTES[dtype] * rows * cols // SUPER_BLOCK if cols % SUPER_BLOCK == 0 else None
    if dtype == "q4_0":
        return Q4_0_BLOCK_BYTES * rows * ((cols + Q4_0_BLOCK - 1) // Q4_0_BLOCK)
    return align_up(n, 64) + 2 * rows * ((cols + Q8_BLOCK - 1) // Q8_BLOCK)


def split_tensor(t):
    """(shape, values) is f32; (shape, values, dtype) names the stored type."""
    return (t[0], t[1], t[2]) if len(t) == 3 else (t[0], t[1], "f32")


def encode(tensors, metadata, alignment=64):
    """tensors: {name: (shape, [float...][, dtype])}; metadata: {key: int | float | str}.

    Lays the file out in FORMAT.md's canonical order."""
    names = sorted(tensors, key=lambda s: s.encode())
    keys = sorted(metadata, key=lambda s: s.encode())
    tensor_table = HEADER_SIZE
    metadata_table = tensor_table + TENSOR_ENTRY * len(names)
    string_table = metadata_table + METADATA_ENTRY * len(keys)

    strings = bytearray()

    def add_string(s):
        offset = len(strings)
        strings.extend(s.encode() + b"\0")
        return offset

    name_refs = [(add_string(n), len(n.encode())) for n in names]
    key_refs, value_refs = [], []
    for k in keys:
        key_refs.append((add_string(k), len(k.encode())))
        v = metadata[k]
        value_refs.append((add_string(v), len(v.encode())) if isinstance(v, str) else None)

    data_section = align_up(string_table + len(strings), alignment)
    end = data_section
    placements = []
    stored = {}
    for n in names:
        shape, values, dtype = split_tensor(tensors[n])
        assert len(values) == math.prod(shape)
        stored[n] = tensor_bytes(dtype, shape, values)
        offset = align_up(end, alignment)
        placements.append(offset)
        end = offset + len(stored[n])

    typed = any(split_tensor(t)[2] != "f32" for t in tensors.values())
    image = bytearray(end)
    struct.pack_into("<8sIIQII II QQ QQ QQ QQ", image, 0, MAGIC,
                     TYPED_VERSION if typed else VERSION, HEADER_SIZE, end, 0,
                     alignment, len(names), len(keys), tensor_table, TENSOR_ENTRY * len(names),
                     metadata_table, METADATA_ENTRY * len(keys), string_table, len(strings),
                     data_section, end - data_section)
    for i, n in enumerate(names):
        shape, values, dtype = split_tensor(tensors[n])
        dims = list(shape) + [0] * (4 - len(shape))
        struct.pack_into("<IIBB6x4QQQ", image, tensor_table + TENSOR_ENTRY * i, *name_refs[i],
                         DTYPE_CODES[dtype], len(shape), *dims, placements[i], len(stored[n]))
        image[placements[i]:placements[i] + len(stored[n])] = stored[n]
    for i, k in enumerate(keys):
        v = metadata[k]
        at = metadata_table + METADATA_ENTRY * i
        if isinstance(v, str):
            struct.pack_into("<IIB7xII", image, at, *key_refs[i], TYPE_STRING, *value_refs[i])
        elif isinstance(v, float):
            struct.pack_into("<IIB7xd", image, at, *key_refs[i], TYPE_FLOAT, v)
        else:
            struct.pack_into("<IIB7xq", image, at, *key_refs[i], TYPE_INT, v)
    image[string_table:string_table + len(strings)] = strings
    struct.pack_into("<I", image, CHECKSUM_AT, file_checksum(image))
    return bytes(image)


class BadFile(Exception):
    pass


def decode(image):
    """Strict reader following FORMAT.md's validation rules; returns (alignment, tensors, metadata)."""
    def need(cond, what):
        if not cond:
            raise BadFile(what)

    need(len(image) >= HEADER_SIZE, "shorter than the header")
    (magic, version, header_size, file_size, flags, alignment, n_tensors, n_meta, tt, tt_size,
     mt, mt_size, st, st_size, ds, ds_size, checksum) = struct.unpack_from(
         "<8sIIQII II QQ QQ QQ QQ I", image, 0)
    need(magic == MAGIC, "magic")
    need(version in (VERSION, TYPED_VERSION), "version")
    need(header_size == HEADER_SIZE, "header_size")
    need(file_size == len(image), "file_size")
    need(checksum == file_checksum(image), "checksum")
    need(flags == 0, "flags")
    need(image[108:128] == bytes(20), "reserved")
    need(alignment in [1 << b for b in range(6, 17)], "alignment")
    sections = [(tt, tt_size), (mt, mt_size), (st, st_size), (ds, ds_size)]
    for off, size in sections:
        need(HEADER_SIZE <= off and off + size <= len(image), "section bounds")
    need(tt_size == TENSOR_ENTRY * n_tensors and tt % 8 == 0, "tensor table")
    need(mt_size == METADATA_ENTRY * n_meta and mt % 8 == 0, "metadata table")
    need(ds % alignment == 0, "data_offset alignment")
    for i, (a, asz) in enumerate(sections):
        for b, bsz in sections[i + 1:]:
            need(asz == 0 or bsz == 0 or a + asz <= b or b + bsz <= a, "sections overlap")
    strings = image[st:st + st_size]

    def string(off, length, allow_empty=False):
        need(off + length < len(strings), "string past the string table")
        need(length > 0 or allow_empty, "empty string")
        need(strings[off + length] == 0 and 0 not in strings[off:off + length], "string NUL")
        return strings[off:off + length].decode()

    tensors, previous_name, previous_end = {}, None, 0
    for i in range(n_tensors):
        name_off, name_len, dtype, rank, reserved, *rest = struct.unpack_from(
            "<IIBB6s4QQQ", image, tt + TENSOR_ENTRY * i)
        dims, offset, nbytes = rest[:4], rest[4], rest[5]
        name = string(name_off, name_len)
        names_of = {code: name for name, code in DTYPE_CODES.items()}
        need(dtype in names_of and (dtype == DTYPE_F32 or version == TYPED_VERSION), "dtype")
        kind = names_of[dtype]
        need(rank <= 4 and not any(dims[rank:]) and reserved == bytes(6), "rank")
        need(nbytes == stored_size(kind, dims[:rank]), "byte_size")
        need(offset % alignment == 0 and ds <= offset and offset + nbytes <= ds + ds_size, "data")
        need(previous_name is None or previous_name < name.encode(), "tensor order")
        need(offset >= previous_end, "tensor data order")
        previous_name, previous_end = name.encode(), offset + nbytes
        values = widen(kind, dims[:rank], bytes(image[offset:offset + nbytes]))
        tensors[name] = (tuple(dims[:rank]), values) if kind == "f32" else (tuple(dims[:rank]), values, kind)
    metadata, previous_key = {}, None
    for i in range(n_meta):
        key_off, key_len, kind, reserved = struct.unpack_from("<IIB7s", image, mt + METADATA_ENTRY * i)
        key = string(key_off, key_len)
        need(reserved == bytes(7), "metadata reserved")
        need(previous_key is None or previous_key < key.encode(), "metadata order")
        previous_key = key.encode()
        value_at = mt + METADATA_ENTRY * i + 16
        if kind == TYPE_INT:
            metadata[key] = struct.unpack_from("<q", image, value_at)[0]
        elif kind == TYPE_FLOAT:
            metadata[key] = struct.unpack_from("<d", image, value_at)[0]
        elif kind == TYPE_STRING:
            metadata[key] = string(*struct.unpack_from("<II", image, value_at), allow_empty=True)
        else:
            raise BadFile("metadata type")
    return alignment, tensors, metadata


def tensor(seed, shape):
    return (shape, sample_values(seed, math.prod(shape)))


def typed_values(seed, count):
    """Values that f16, bf16, q8 and q4_0 must round: seed + 0.1234567 k, alternating in sign and scale,
    computed in float64 then rounded to float32 (deterministic IEEE arithmetic, as the C++ test
    computes them)."""
    return [struct.unpack("<f", struct.pack("<f", seed + 0.1234567 * k * (1.0 if k % 2 == 0 else -1.5)))[0]
            for k in range(count)]


def typed(seed, shape, dtype):
    return (shape, typed_values(seed, math.prod(shape)), dtype)


# Values at the edges of the conversions: f16 ties (1 + 2^-11 rounds to 1, 1 + 3 * 2^-11 up),
# the f16 maximum, f16 subnormals, a bf16 tie, signed zero.
EDGE_VALUES = [1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 65504.0, -65504.0, 2.0 ** -24, 3 * 2.0 ** -25,
               1e-8, -0.0, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 0.1, -7.5]


# The sample files. tests/weight_file/weight_file_test.cc describes the same files and checks
# that the C++ reader sees exactly this and that the C++ writer produces the same bytes.
SAMPLES = {
    "empty.wf": ({}, {}, 64),
    "metadata_only.wf": ({}, {"arch": "mha", "eps": 1e-5, "n_heads": 4, "note": ""}, 64),
    "example.wf": ({"w": ((2,), [1.0, -2.0])}, {"arch": "demo", "eps": 1e-5, "n_heads": 2}, 64),
    "ranks.wf": ({
        "scalar": tensor(3.5, ()),
        "vector": tensor(-1.0, (3,)),
        "matrix": tensor(10.0, (2, 3)),
        "cube": tensor(-20.0, (1, 2, 2)),
        "rank4": tensor(0.0, (1, 1, 2, 2)),
        "zero_rows": tensor(0.0, (0, 3)),
    }, {"min_int": -(1 << 63), "neg_zero": -0.0, "big": float("inf"), "greeting": "h\u00e9llo"}, 64),
    "align128.wf": ({"a.weight": tensor(1.0, (5,)), "b.weight": tensor(2.0, (3, 1))},
                    {"arch": "align_test"}, 128),
    "self_attention.wf": ({
        "w_q": tensor(-8.0, (8, 8)), "w_k": tensor(-4.0, (8, 8)),
        "w_v": tensor(0.0, (8, 8)), "w_o": tensor(4.0, (8, 8)),
    }, {"arch": "self_attention", "d_model": 8, "n_heads": 1, "causal": 0}, 64),
    # Version 2: every stored type, q8 with a partial last block (40 = 32 + 8), a conv-shaped q8
    # tensor (one row per output channel) and an all-zero q8 block.
    "typed.wf": ({
        "bias": typed(0.5, (4,), "f32"),
        "bf16_vector": typed(-3.0, (7,), "bf16"),
        "edges_bf16": ((12,), EDGE_VALUES, "bf16"),
        "edges_f16": ((12,), EDGE_VALUES, "f16"),
        "f16_matrix": typed(2.0, (3, 5), "f16"),
        "q8_conv": typed(1.0, (2, 1, 3, 3), "q8"),
        "q8_matrix": typed(-1.0, (3, 40), "q8"),
        "q8_zeros": ((2, 3), [0.0] * 6, "q8"),
    }, {"arch": "typed_test"}, 64),
    # q4_0 (GGUF's block layout): a partial last block (40 = 32 + 8), a conv-shaped tensor, an
    # all-zero block, tiny blocks whose f16 scale is subnormal or would flush to zero (the
    # one-step rule), and both signs as the block's largest value.
    "typed_q4_0.wf": ({
        "q4_0_conv": typed(1.0, (2, 1, 3, 3), "q4_0"),
        "q4_0_matrix": typed(-1.0, (3, 40), "q4_0"),
        "q4_0_signs": ((2, 4), [1.0, -0.5, 0.25, 0.875, -1.0, 0.5, -0.25, 0.875], "q4_0"),
        "q4_0_tiny": ((3, 5), [v * s for s in (1e-4, 1e-6, 3e-8) for v in (1.0, -0.3, 0.7, 0.05, -1.1)],
                      "q4_0"),
        "q4_0_zeros": ((2, 3), [0.0] * 6, "q4_0"),
    }, {"arch": "typed_test"}, 64),
    # GGUF's k-quant super-blocks (rows of 256 values): a two-block row, a conv-shaped tensor, an
    # all-zero tensor, a row of tiny values (subnormal f16 scales) and one of large values.
    "typed_kquant.wf": ({
        "q4_K_conv": typed(2.0, (2, 2, 8, 16), "q4_K"),
        "q4_K_matrix": typed(-1.0, (3, 512), "q4_K"),
        "q4_K_tiny": ((1, 256), [v * 1e-6 for v in typed_values(0.5, 256)], "q4_K"),
        "q4_K_zeros": ((2, 256), [0.0] * 512, "q4_K"),
        "q6_K_large": ((1, 256), [v * 1e5 for v in typed_values(3.0, 256)], "q6_K"),
        "q6_K_matrix": typed(-1.0, (3, 512), "q6_K"),
        "q6_K_tiny": ((1, 256), [v * 1e-6 for v in typed_values(0.5, 256)], "q6_K"),
        "q6_K_zeros": ((2, 256), [0.0] * 512, "q6_K"),
    }, {"arch": "typed_test"}, 64),
}


def main(argv):
    if len(argv) == 3 and argv[1] == "write":
        os.makedirs(argv[2], exist_ok=True)
        for name, (tensors, metadata, alignment) in SAMPLES.items():
            image = encode(tensors, metadata, alignment)
            got_alignment, got, got_metadata = decode(image)
            assert (got_alignment, got_metadata) == (alignment, metadata), name
            for k, t in tensors.items():
                shape, values, dtype = split_tensor(t)
                widened = split_tensor(got[k])
                assert widened[0] == tuple(shape) and widened[2] == dtype, (name, k)
                if dtype == "f32":
                    assert widened[1] == values, (name, k)
            assert set(got) == set(tensors), name
            with open(os.path.join(argv[2], name), "wb") as f:
                f.write(image)
        return 0
    if len(argv) == 3 and argv[1] == "check":
        stale = []
        for name, (tensors, metadata, alignment) in SAMPLES.items():
            with open(os.path.join(argv[2], name), "rb") as f:
                if f.read() != encode(tensors, metadata, alignment):
                    stale.append(name)
        if stale:
            print("stale sample files (rerun `write`): %s" % ", ".join(stale), file=sys.stderr)
            return 1
        print("%d sample files match FORMAT.md as this script encodes it" % len(SAMPLES))
        return 0
    if len(argv) >= 3 and argv[1] == "dump":
        for path in argv[2:]:
            with open(path, "rb") as f:
                alignment, tensors, metadata = decode(f.read())
            print("%s: alignment %d" % (path, alignment))
            for k, v in metadata.items():
                print("  meta %s = %r" % (k, v))
            for k, t in tensors.items():
                shape, values, dtype = split_tensor(t)
                print("  tensor %s %s %s %s" % (k, dtype, shape, values[:8]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

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

MAGIC = b"ATTNRTWF"
VERSION = 1
HEADER_SIZE = 128
TENSOR_ENTRY = 64
METADATA_ENTRY = 24
CHECKSUM_AT = 104
DTYPE_F32 = 1
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


def encode(tensors, metadata, alignment=64):
    """tensors: {name: (shape, [float...])}; metadata: {key: int | float | str}.

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
    for n in names:
        shape, values = tensors[n]
        assert len(values) == math.prod(shape)
        offset = align_up(end, alignment)
        placements.append(offset)
        end = offset + 4 * len(values)

    image = bytearray(end)
    struct.pack_into("<8sIIQII II QQ QQ QQ QQ", image, 0, MAGIC, VERSION, HEADER_SIZE, end, 0,
                     alignment, len(names), len(keys), tensor_table, TENSOR_ENTRY * len(names),
                     metadata_table, METADATA_ENTRY * len(keys), string_table, len(strings),
                     data_section, end - data_section)
    for i, n in enumerate(names):
        shape, values = tensors[n]
        dims = list(shape) + [0] * (4 - len(shape))
        struct.pack_into("<IIBB6x4QQQ", image, tensor_table + TENSOR_ENTRY * i, *name_refs[i],
                         DTYPE_F32, len(shape), *dims, placements[i], 4 * len(values))
        struct.pack_into("<%df" % len(values), image, placements[i], *values)
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
    need(version == VERSION, "version")
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
        need(dtype == DTYPE_F32, "dtype")
        need(rank <= 4 and not any(dims[rank:]) and reserved == bytes(6), "rank")
        need(nbytes == 4 * math.prod(dims[:rank]), "byte_size")
        need(offset % alignment == 0 and ds <= offset and offset + nbytes <= ds + ds_size, "data")
        need(previous_name is None or previous_name < name.encode(), "tensor order")
        need(offset >= previous_end, "tensor data order")
        previous_name, previous_end = name.encode(), offset + nbytes
        tensors[name] = (tuple(dims[:rank]),
                         list(struct.unpack_from("<%df" % (nbytes // 4), image, offset)))
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
}


def main(argv):
    if len(argv) == 3 and argv[1] == "write":
        os.makedirs(argv[2], exist_ok=True)
        for name, (tensors, metadata, alignment) in SAMPLES.items():
            image = encode(tensors, metadata, alignment)
            expected = {k: (tuple(s), v) for k, (s, v) in tensors.items()}
            assert decode(image) == (alignment, expected, metadata), name
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
            for k, (shape, values) in tensors.items():
                print("  tensor %s %s %s" % (k, shape, values[:8]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""Writes the committed seed corpus for npy_fuzzer into corpus/npy/ (tiny valid and invalid .npy).

Pure Python (no numpy) so the bytes are the same on every machine; rerun after changing it.
Usage: make_npy_corpus.py [OUT_DIR]
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "python"))
from output_files import write_atomically  # noqa: E402

MAGIC = b"\x93NUMPY"


def npy(dict_text, payload=b"", major=1, pad=True):
    """A .npy image: preamble, header padded as numpy pads it, then payload."""
    fmt = "<H" if major == 1 else "<I"
    header = dict_text.encode("ascii")
    if pad:
        prefix = len(MAGIC) + 2 + struct.calcsize(fmt)
        header += b" " * (63 - (prefix + len(header)) % 64) + b"\n"
    return MAGIC + bytes([major, 0]) + struct.pack(fmt, len(header)) + header + payload


def d(descr="<f4", shape="(2, 3)", fortran="False"):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


SEEDS = {
    # Accepted.
    "ok_f32_2x3": npy(d(), f32(0, 1, 2, 3, 4, 5)),
    "ok_f32_5": npy(d(shape="(5,)"), f32(-0.0, float("inf"), float("-inf"), 1e-45, float("nan"))),
    "ok_f32_scalar": npy(d(shape="()"), f32(3.5)),
    "ok_f32_empty": npy(d(shape="(0, 3)")),
    "ok_bool_2x2": npy(d("|b1", "(2, 2)"), bytes([1, 0, 0, 1])),
    "ok_v2": npy(d(shape="(1,)"), f32(1), major=2),
    "ok_v3_bool": npy(d("|b1", "(3,)"), bytes([0, 1, 1]), major=3),
    "ok_reordered": npy("{\"shape\": (1, 1), \"descr\": \"=f4\", \"fortran_order\": False}",
                        f32(2)),
    "ok_unpadded": npy(d(shape="(2L,)"), f32(1, 2), pad=False),
    # Rejected.
    "bad_magic": b"\x93NUMPX\x01\x00" + npy(d())[8:],
    "bad_short": MAGIC + b"\x01",
    "bad_version": npy(d(shape="()"), f32(1))[:6] + b"\x04\x00" + npy(d(shape="()"), f32(1))[8:],
    "bad_header_len": MAGIC + b"\x01\x00\xff\xff{}",
    "bad_fortran": npy(d(fortran="True"), f32(0, 1, 2, 3, 4, 5)),
    "bad_f64": npy(d("<f8", "(1,)"), struct.pack("<d", 1.0)),
    "bad_bigendian": npy(d(">f4", "(1,)"), struct.pack(">f", 1.0)),
    "bad_truncated": npy(d(), f32(0, 1, 2)),
    "bad_trailing": npy(d(shape="()"), f32(1, 2)),
    "bad_bool_byte": npy(d("|b1", "(2,)"), bytes([1, 2])),
    "bad_missing_key": npy("{'descr': '<f4', 'shape': ()}", f32(1)),
    "bad_duplicate_key": npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}"),
    "bad_overflow": npy(d(shape="(4294967296, 4294967296)")),
    "bad_negative": npy(d(shape="(-1,)")),
    "bad_not_tuple": npy(d(shape="(5)"), f32(1, 2, 3, 4, 5)),
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "npy")
    os.makedirs(out_dir, exist_ok=True)
    for name, data in SEEDS.items():
        assert len(data) < 1024, name
        write_atomically(os.path.join(out_dir, name + ".npy"), lambda f, data=data: f.write(data))


if __name__ == "__main__":
    main()

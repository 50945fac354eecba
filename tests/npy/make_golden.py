#!/usr/bin/python3
"""Golden .npy files written by real numpy for npy_test.cc (run by CMake at build time).

Usage: make_golden.py OUT_DIR             write the golden files into OUT_DIR
       make_golden.py --check-f32-2d FILE exit 0 iff numpy loads FILE as the f32_2d array

npy_test.cc recomputes every value below in C++; keep the two in step.
"""
import os
import sys

import numpy as np
from numpy.lib import format as npformat


def f32_2d():
    # (3, 4): i / 7 - 1 in float32 arithmetic, i = 0..11.
    return np.arange(12, dtype=np.float32).reshape(3, 4) / np.float32(7) - np.float32(1)


def arrays():
    return {
        "f32_2d": f32_2d(),
        # (2, 3, 4): True where i % 3 == 0.
        "bool_3d": (np.arange(24).reshape(2, 3, 4) % 3) == 0,
        # (5,): values whose bits must survive exactly.
        "f32_1d": np.array([-0.0, np.inf, -np.inf, 1e-45, np.nan], dtype=np.float32),
        "f32_0d": np.array(3.5, dtype=np.float32),
        "f32_empty": np.zeros((0, 3), dtype=np.float32),
        "f64_reject": np.arange(4, dtype=np.float64),
        "fortran_reject": np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
        "bigendian_reject": np.arange(3, dtype=">f4"),
    }


def write_all(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, arr in arrays().items():
        np.save(os.path.join(out_dir, name + ".npy"), arr)
    # Newer format versions, written by numpy's own writer.
    for major in (2, 3):
        with open(os.path.join(out_dir, "f32_2d_v%d.npy" % major), "wb") as f:
            npformat.write_array(f, f32_2d(), version=(major, 0))


def check_f32_2d(path):
    arr = np.load(path)
    ok = arr.dtype == np.float32 and arr.shape == (3, 4) and \
        np.array_equal(arr.view(np.uint32), f32_2d().view(np.uint32))
    if not ok:
        print("numpy read %s as %s %r, expected float32 (3, 4) %r" % (path, arr.dtype, arr, f32_2d()))
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check-f32-2d":
        sys.exit(check_f32_2d(sys.argv[2]))
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write_all(sys.argv[1])

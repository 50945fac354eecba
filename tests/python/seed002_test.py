#!/usr/bin/python3
# Worked examples from seed 002 (/work/shared/seeds/002_*.txt) replayed through `attnrt sdpa`.
"""Usage: seed002_test.py --attnrt PATH

1. Self-attention of the seed's 10x10 positional embeddings with identity
   projections (Q = K = V = embeddings, scale 1/sqrt(10)): attnrt's --weights-out
   must reproduce the attention weights the seed printed, to the precision of the
   printing (half a unit in the last printed digit, plus float32 slack).
2. The seed's 3x4 "weights x values" example: with Q = K = 0 and a float mask
   log(A), softmax gives back A, so attnrt's output must be O = A V (float64;
   the seed's printed O is wrong, see EXAMPLE_O).

Every kernel `attnrt kernels` lists is checked. Prints failures and
`N passed, M failed`; exits 1 if any failed, 77 (CTest skip) without numpy.
"""
import argparse
import decimal
import sys
import tempfile

from script_setup import skip_without_modules

with skip_without_modules():
    import numpy as np

from attnrt_cli import list_kernels, max_abs_error, run_sdpa  # noqa: E402

# pos_encoded_embeddings from the seed, shape (1, 10 tokens, 10 features).
EMBEDDINGS = np.array([[
    [0.0171, 1.0654, 0.4616, 0.9196, 0.7193, -0.7430, 0.7120, 0.4198, 2.7427, 0.2844],
    [0.9161, -0.4999, 1.8302, 1.2182, 0.0651, 2.0396, 0.3780, 0.4085, 1.3560, -1.3176],
    [-0.3461, 0.2526, 0.4120, 0.0398, 1.6146, 2.6475, -0.1887, -0.6907, -0.4066, 1.2899],
    [-0.8345, -0.4657, -0.5635, 1.1514, 0.1762, 1.8148, -1.4084, 0.9153, -1.1734, 1.1989],
    [-0.3981, -0.7277, -1.2657, 1.9887, -0.2399, 0.0412, 1.9375, 0.6083, 0.2095, 1.5739],
    [-1.5240, 1.2359, 0.5596, -0.1529, -0.4064, -0.0906, -1.6746, 0.2480, -0.2364, 0.8417],
    [0.6992, -1.1193, 0.5642, 1.3861, -0.5185, 0.6701, -0.5353, 1.8013, 0.7900, -0.9430],
    [-0.3550, 2.1032, 1.8690, 0.7174, -1.7692, 0.8200, -0.9620, 1.8325, 0.3009, 1.0083],
    [1.5902, -0.8516, 3.2954, -0.5147, 0.1798, 1.8522, -1.0186, 0.6484, 0.9932, 0.4030],
    [-0.5990, -0.4916, 0.5419, -0.0293, -0.3465, 1.1548, -1.1130, -0.8118, 0.3455, 0.9474],
]], dtype=np.float32)

# The attention weights as the seed printed them (torch's float32 softmax). Rows
# 0-5 are complete; the seed cuts row 6 inside its last number, so only its first
# nine entries are kept; rows 7-9 are not shown at all. Kept as text because the
# number of printed digits sets the tolerance.
PRINTED_WEIGHT_ROWS = {
    0: "7.3184e-01 6.2401e-02 1.1852e-02 4.6762e-03 4.7721e-02 "
       "1.7182e-02 3.3077e-02 5.0123e-02 2.8682e-02 1.2444e-02",
    1: "2.1827e-02 5.5053e-01 1.8606e-02 7.1228e-03 5.4294e-03 "
       "2.3020e-03 8.6020e-02 2.3070e-02 2.7458e-01 1.0511e-02",
    2: "8.2410e-03 3.6988e-02 6.4774e-01 1.1087e-01 1.4939e-02 "
       "2.1167e-02 7.0524e-03 1.7324e-02 7.8172e-02 5.7510e-02",
    3: "3.7856e-03 1.6485e-02 1.2908e-01 5.8624e-01 4.1934e-02 "
       "5.1750e-02 3.5914e-02 5.7137e-02 2.3607e-02 5.4067e-02",
    4: "3.5522e-02 1.1554e-02 1.5992e-02 3.8558e-02 8.4793e-01 "
       "5.4186e-03 2.2487e-02 1.0397e-02 2.1783e-03 9.9621e-03",
    5: "2.6416e-02 1.0118e-02 4.6799e-02 9.8277e-02 1.1191e-02 "
       "3.6500e-01 1.6342e-02 3.1902e-01 3.0851e-02 7.5989e-02",
    6: "3.2410e-02 2.4096e-01 9.9376e-03 4.3468e-02 2.9600e-02 "
       "1.0415e-02 4.0505e-01 6.6205e-02 1.4415e-01",
}
# Both torch (which printed the numbers) and attnrt compute in float32; their
# results may differ by a few float32 ulps on top of the printing's rounding.
FLOAT32_SLACK = 1e-6

# The 3x4 example: attention weights A and values V as the seed gives them.
EXAMPLE_A = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.4, 0.1, 0.5]]
EXAMPLE_V = [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]]
# O = A V in float64: 0.62 0.72 0.82 0.92 / 0.50 0.60 0.70 0.80 / 0.54 0.64 0.74 0.84.
# The seed's printed O (0.62 0.74 0.86 0.98 / 0.42 0.54 0.66 0.78 / 0.64 0.76 0.88
# 1.00) is right only at [0, 0]; its own expansion, e.g. 0.2*0.2 + 0.3*0.6 +
# 0.5*1.0 = 0.72, contradicts the rest, so the expected values come from float64
# math, not from the printout.
EXAMPLE_O = np.array(EXAMPLE_A, dtype=np.float64) @ np.array(EXAMPLE_V, dtype=np.float64)
EXAMPLE_TOLERANCE = 1e-5


def printed_value_and_tolerance(token):
    """0.5 unit in the last printed digit ("7.3184e-01" -> 5e-6), plus float32 slack."""
    exponent = decimal.Decimal(token).as_tuple().exponent
    value = float(token)
    return value, 0.5 * 10.0 ** exponent + FLOAT32_SLACK * abs(value)


def check_embedding_weights(attnrt, kernel, workdir, report):
    run = run_sdpa(attnrt, workdir, EMBEDDINGS, EMBEDDINGS, EMBEDDINGS, kernel=kernel.name,
                   want_weights=True)
    where = f"embedding self-attention weights, kernel {kernel.name}"
    if run.returncode != 0:
        report(False, f"{where}: exit {run.returncode}: {run.stderr.strip()}")
        return
    if run.weights.shape != (1, 10, 10):
        report(False, f"{where}: weights shape {run.weights.shape}, want (1, 10, 10)")
        return
    worst = 0.0  # largest |error| / tolerance over the printed entries
    for row, text in PRINTED_WEIGHT_ROWS.items():
        for col, token in enumerate(text.split()):
            want, tolerance = printed_value_and_tolerance(token)
            got = float(run.weights[0, row, col])
            worst = max(worst, abs(got - want) / tolerance)
            if not abs(got - want) <= tolerance:
                report(False, f"{where}: [{row}, {col}] = {got:.6e}, printed {token} "
                              f"(tolerance {tolerance:.2g})")
                return
    report(True, f"{where}: worst |error| / tolerance {worst:.2f}")


def check_weights_times_values(attnrt, kernel, workdir, report):
    # Q = K = 0 makes every score 0, so the scores are just the mask log(A) and
    # softmax returns A (its rows already sum to 1).
    zeros = np.zeros((3, 4), dtype=np.float32)
    log_a = np.log(np.array(EXAMPLE_A, dtype=np.float64)).astype(np.float32)
    values = np.array(EXAMPLE_V, dtype=np.float32)
    run = run_sdpa(attnrt, workdir, zeros, zeros, values, mask=log_a, kernel=kernel.name,
                   want_weights=kernel.returns_weights)
    where = f"3x4 weights x values example, kernel {kernel.name}"
    if run.returncode != 0:
        report(False, f"{where}: exit {run.returncode}: {run.stderr.strip()}")
        return
    compared = [("output", run.out, EXAMPLE_O)]
    if kernel.returns_weights:
        compared.append(("weights", run.weights, EXAMPLE_A))
    for what, got, want in compared:
        err, _ = max_abs_error(got, want)
        if not err <= EXAMPLE_TOLERANCE:
            report(False, f"{where}: {what} max|err| {err:.3g} > {EXAMPLE_TOLERANCE:g}")
            return
    report(True, where)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attnrt", required=True, help="path to the attnrt binary")
    args = parser.parse_args()

    counts = {True: 0, False: 0}

    def report(ok, line):
        counts[ok] += 1
        print(("ok   " if ok else "FAIL ") + line, flush=True)

    with tempfile.TemporaryDirectory(prefix="attnrt_seed002_") as workdir:
        for kernel in list_kernels(args.attnrt):
            if kernel.returns_weights:
                check_embedding_weights(args.attnrt, kernel, workdir, report)
            check_weights_times_values(args.attnrt, kernel, workdir, report)
    print(f"{counts[True]} passed, {counts[False]} failed")
    return 1 if counts[False] else 0


if __name__ == "__main__":
    sys.exit(main())

# How the standalone python tests end: one "FAIL ..." line per failure, a summary line, and
# the exit code CTest reads (0 passed, 1 failed).


def report(failures, summary):
    for f in failures:
        print("FAIL " + f)
    print(summary)
    return 1 if failures else 0

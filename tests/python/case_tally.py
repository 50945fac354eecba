# The one-line-per-case report the GGUF test scripts share: "ok  " or "FAIL", the case and what
# was measured, then the closing "N passed, N failed" line CTest logs show, and the exit code.
class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def case(self, ok, line, detail=None):
        print(f"{'ok  ' if ok else 'FAIL'} {line}", flush=True)
        if detail and not ok:
            print(f"     {detail}", flush=True)
        self.passed += bool(ok)
        self.failed += not ok

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0

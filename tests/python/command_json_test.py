#!/usr/bin/python3
"""tools/python/command_json.py, which every benchmark report runs its --json commands through:
the JSON object on the last stdout line comes back with the process, and a command that fails,
prints nothing or prints something else last raises an error that names the command and shows
the end of its stderr. Standard library only; the commands are small python programs."""
import sys

from case_tally import Tally
from script_setup import import_tools_python

import_tools_python()
from command_json import CommandJsonError, last_line_json, run_json  # noqa: E402


def program(code):
    """The command line that runs `code` with this python."""
    return [sys.executable, "-c", code]


def error_of(cmd):
    """The CommandJsonError run_json raises for cmd, or None when it raises none."""
    try:
        run_json(cmd, timeout=60)
    except CommandJsonError as e:
        return str(e)
    return None


def main():
    tally = Tally()

    cmd = program("import sys; print('prose first'); print('{\"ms\": 1.5}');"
                  " print('said on stderr', file=sys.stderr)")
    try:
        result, proc = run_json(cmd, timeout=60)
        tally.case(result == {"ms": 1.5} and "prose first" in proc.stdout
                   and "said on stderr" in proc.stderr,
                   "the last stdout line's object, the rest of the output kept",
                   f"got {result!r}, stdout {proc.stdout!r}, stderr {proc.stderr!r}")
    except CommandJsonError as e:
        tally.case(False, "the last stdout line's object, the rest of the output kept", str(e))

    error = error_of(program("import sys; print('{}'); print('disk full', file=sys.stderr);"
                             " sys.exit(3)"))
    tally.case(error is not None and "exited 3" in error and "disk full" in error
               and "sys.exit(3)" in error,
               "a failing command: its exit code, its stderr and the command named", error)

    error = error_of(program("import sys; print('why', file=sys.stderr)"))
    tally.case(error is not None and "no JSON object" in error and "no output" in error
               and "why" in error, "no stdout at all: said so, with the stderr", error)

    error = error_of(program("print('{\"a\": 1}'); print('done')"))
    tally.case(error is not None and "'done'" in error and "not JSON" in error,
               "a last line that is not JSON: the line shown", error)

    error = error_of(program("print('[1, 2]')"))
    tally.case(error is not None and "not an object" in error,
               "JSON that is not an object refused", error)

    try:
        run_json([sys.executable + "-no-such-program"])
        tally.case(False, "a missing program raises OSError", "run_json returned")
    except OSError:
        tally.case(True, "a missing program raises OSError")

    tally.case(last_line_json("a\n{\"k\": [1]}\n\n") == {"k": [1]},
               "last_line_json skips trailing blank lines")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

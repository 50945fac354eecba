# What the standalone python tests share before their own code: where the repository is, and
# the skip when their python lacks a module they need (numpy, torch, torchvision). CTest runs
# each script as a program, so its folder is first on sys.path and `import script_setup` works.
import contextlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS_PYTHON = os.path.join(ROOT, "tools", "python")  # export_torch, torch_modules, output_files
SKIP_RETURN_CODE = 77  # tests/python/CMakeLists.txt maps this to a CTest skip


@contextlib.contextmanager
def skip_without_modules():
    """Wraps a script's imports of optional modules: when one is missing, says which and exits
    with SKIP_RETURN_CODE, so a python without torch skips the test instead of failing it."""
    try:
        yield
    except ImportError as missing:
        print(f"SKIP: {missing}", file=sys.stderr)
        sys.exit(SKIP_RETURN_CODE)


def import_tools_python():
    """Makes tools/python's modules importable (the PyTorch side of export, output_files)."""
    if TOOLS_PYTHON not in sys.path:
        sys.path.insert(0, TOOLS_PYTHON)

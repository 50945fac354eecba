# What the scripts that ask llama.cpp (node-llama-cpp, tests/llamacpp/*.mjs) share: where
# tools/setup.sh installs it, and the skip when node or the package is missing.
import os
import shutil
import sys

import script_setup

DEFAULT_DIR = os.path.join(script_setup.ROOT, "build", "test-deps", "llamacpp", "node_modules")


def add_argument(parser):
    parser.add_argument("--oracle-dir", default=DEFAULT_DIR,
                        help="node_modules holding node-llama-cpp (tools/setup.sh)")


def node_or_skip(oracle_dir):
    """The node executable, or None after saying why the test skips (then return
    script_setup.SKIP_RETURN_CODE)."""
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(oracle_dir, "node-llama-cpp")):
        print(f"SKIP: no node or no llama.cpp oracle in {oracle_dir} (tools/setup.sh)",
              file=sys.stderr)
        return None
    return node

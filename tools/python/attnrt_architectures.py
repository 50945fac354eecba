"""The architectures attnrt knows, read from the runtime itself.

`attnrt architectures --json` lists the C++ records (models/src/arch_*.cc): every architecture's
name, config keys (type, required, default, fixed, "same as" another key) and tensor names. That
list is the one source: tools/python keeps no second copy of it. torch_modules.py and
export_torch.py ask this module, which runs the binary once per path and keeps the answer.

Which attnrt: the path given to use() (the scripts' --attnrt option), else the ATTNRT environment
variable, else `attnrt` on PATH. When there is none, or it does not answer with the list,
AttnrtUnavailable (a RuntimeError) says which one was tried and how to name another. The path may
be a launcher (a cross build runs attnrt through qemu that way). Standard library only.
"""
import json
import os
import re
import shutil
import subprocess

ENV = "ATTNRT"
HOW_TO_NAME = (f"pass --attnrt PATH, set {ENV}=PATH, or put attnrt on PATH (a source checkout "
               f"builds it as build/release/bin/attnrt: cmake --preset release && "
               f"cmake --build --preset release)")

_chosen = None
_records = {}  # path -> {name: Architecture}


class AttnrtUnavailable(RuntimeError):
    """No attnrt binary to read the architectures from, or it did not list them."""


class Key:
    """One config key of a record: name, type ("int", "float", "bool", "string"), required,
    default (None where the record has none, or derives it), fixed (only the default is
    accepted), same_as (the key whose value a null default takes, e.g. kdim's embed_dim) and
    hf_name (the key in the family's Hugging Face config.json, or None)."""

    def __init__(self, entry):
        self.name = entry["name"]
        self.type = entry["type"]
        self.required = bool(entry["required"])
        self.default = entry["default"]
        self.fixed = bool(entry["fixed"])
        self.same_as = entry.get("default_same_as")
        self.hf_name = entry.get("hf_name")

    def __repr__(self):
        return f"Key({self.name!r}, {self.type}, default={self.default!r})"


class Architecture:
    """One record: name, torch_module, language_model, image_input, keys (name -> Key, in the
    record's order), layer_prefix ("{i}" stands for the layer index), layer_tensors and
    model_tensors (lists of {"name", "present_when", ...} as the runtime prints them)."""

    def __init__(self, entry):
        self.name = entry["name"]
        self.torch_module = entry["torch_module"]
        self.language_model = bool(entry["language_model"])
        self.image_input = bool(entry["image_input"])
        self.keys = {k["name"]: Key(k) for k in entry["config_keys"]}
        self.layer_prefix = entry["layer_prefix"]
        self.layer_tensors = list(entry["layer_tensors"])
        self.model_tensors = list(entry["model_tensors"])

    def tensor_pattern(self):
        """A regex whose fullmatch accepts every tensor name this record can hold."""
        prefix = re.escape(self.layer_prefix).replace(r"\{i\}", r"\d+")
        names = [prefix + re.escape(t["name"]) for t in self.layer_tensors]
        names += [re.escape(t["name"]) for t in self.model_tensors]
        return re.compile("|".join(names))


def use(path):
    """Reads the architectures from the attnrt at `path` from now on (None: $ATTNRT or PATH).
    Also sets ATTNRT for child processes, so a script run from here finds the same binary."""
    global _chosen
    _chosen = path
    if path is not None:
        os.environ[ENV] = path


def attnrt_path():
    """The attnrt to ask: use()'s path, else $ATTNRT, else `attnrt` on PATH."""
    if _chosen is not None:
        return _chosen
    if os.environ.get(ENV):
        return os.environ[ENV]
    found = shutil.which("attnrt")
    if found is None:
        raise AttnrtUnavailable("tools/python reads the model architectures from the attnrt "
                                "runtime (`attnrt architectures --json`) and found no attnrt: "
                                + HOW_TO_NAME)
    return found


def _read(path):
    command = f"`{path} architectures --json`"
    if not os.path.isfile(path):
        raise AttnrtUnavailable(f"attnrt {path!r}: no such file ({HOW_TO_NAME})")
    try:
        proc = subprocess.run([path, "architectures", "--json"], capture_output=True, text=True)
    except OSError as e:
        raise AttnrtUnavailable(f"cannot run attnrt {path!r}: {e}") from None
    if proc.returncode != 0:
        raise AttnrtUnavailable(f"{command} exited with status {proc.returncode}: "
                                f"{proc.stderr.strip()[-500:]}")
    try:
        listed = json.loads(proc.stdout)
        return {entry["name"]: Architecture(entry) for entry in listed}
    except (ValueError, TypeError, KeyError) as e:
        raise AttnrtUnavailable(f"{command} did not print the architecture list "
                                f"({type(e).__name__}: {e})") from None


def records(path=None):
    """name -> Architecture, in the runtime's order, from `path` or attnrt_path()."""
    path = path or attnrt_path()
    if path not in _records:
        _records[path] = _read(path)
    return _records[path]


def names():
    """The architecture names (the `--arch` values), in the runtime's order."""
    return tuple(records())


def record(arch):
    """The Architecture named arch; ValueError listing the known names otherwise."""
    known = records()
    if arch not in known:
        raise ValueError(f"unknown architecture {arch!r} (expected one of {', '.join(known)})")
    return known[arch]

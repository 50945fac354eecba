"""The safetensors container as attnrt's Python tools write it (Debian has no safetensors
package): an unsigned 64-bit little-endian header length N, N bytes of compact JSON padded with
spaces to a multiple of 8 (so the data buffer starts 8-byte aligned, as the reference writer
pads it), then the tensors' bytes back to back in the header's order.

Standard library only: tools/python/export_torch.py writes checkpoints with it, and the fuzz corpus
generator (tests/fuzz/make_convert_corpus.py) builds seeds with it without importing torch; the
Python tests read the files back with read_file."""
import json


def header_bytes(tensors, metadata=None, extra=None):
    """The length prefix and padded JSON header of a safetensors image whose data buffer holds
    `tensors` back to back: (name, dtype, shape, byte count) in data order, dtype a safetensors
    name ("F32", "F16", "BF16", ...). `metadata` becomes "__metadata__" as given (str -> str for
    a valid file); `extra` adds or replaces header entries after the tensors' (the fuzz corpus
    writes broken ones with it)."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape, size in tensors:
        if name in header:
            raise ValueError(f"duplicate tensor name {name!r}")
        header[name] = {"dtype": dtype, "shape": [int(d) for d in shape],
                        "data_offsets": [offset, offset + size]}
        offset += size
    if extra:
        header.update(extra)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text


def read_file(path):
    """The tensors of a safetensors file: name -> (dtype, shape tuple, raw bytes), in the
    header's order, "__metadata__" left out."""
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    header.pop("__metadata__", None)
    data = blob[8 + n:]
    return {name: (e["dtype"], tuple(e["shape"]), data[e["data_offsets"][0]:e["data_offsets"][1]])
            for name, e in header.items()}

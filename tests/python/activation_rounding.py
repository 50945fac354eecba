"""The integer kernels' 8-bit rounding of a Linear's input (kernels/include/attnrt/kernels/
activation_blocks.h), for references of the weight types attnrt runs on 8-bit activations (q8,
q4_0; issue 32): llama_parity_test.py and hf_parity_test.py apply it to every weight matmul's
input.

attnrt's float32 activations differ from torch's float64 ones by float32 rounding (~1e-6
relative: ~1e-4 of a step at 127 steps), so a value that close to a step's half (exact ties
excepted: those are ties in both) may round to either step in attnrt. One such flip moved a
logit of these small models by 2.5e-3 relative. A check can allow, per logit, the spread of the
reference between rounding every such value down and every one up (`rounding`).
"""
import torch

AMBIGUOUS = 1e-4  # steps
INTEGER_ACTIVATION_TYPES = ("q8", "q4_0")


def round_activations(x, rounding="even"):
    """activation_blocks.h's rounding of the last dim in float32, returned in x's dtype: blocks
    of 32 (the last zero-padded), d = amax / 127, q = round_half_even(x * (127 / amax)), blocks
    with amax < 2^-100 zeros; with rounding "down" / "up", values within AMBIGUOUS of a step's
    half go that way."""
    x32 = x.float()
    k = x32.shape[-1]
    padded = torch.nn.functional.pad(x32, (0, (-k) % 32))
    blocks = padded.reshape(*padded.shape[:-1], -1, 32)
    amax = blocks.abs().amax(dim=-1, keepdim=True)
    live = amax >= 2.0 ** -100
    safe = torch.where(live, amax, torch.ones_like(amax))
    d = torch.where(live, safe / 127, torch.zeros_like(amax))
    t = blocks * (127 / safe)
    q = torch.round(t)
    if rounding != "even":
        half = torch.floor(t) + 0.5
        near = (t - half).abs()
        moved = torch.floor(t) + (1 if rounding == "up" else 0)
        q = torch.where((near > 0) & (near < AMBIGUOUS), moved, q)
    q = torch.where(live, q, torch.zeros_like(q))
    out = (q.double() * d.double()).reshape(padded.shape)[..., :k]
    return out.to(x.dtype)

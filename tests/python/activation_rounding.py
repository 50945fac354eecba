"""The integer kernels' 8-bit rounding of a Linear's input (kernels/include/attnrt/kernels/
activation_blocks.h), for references of the weight types attnrt runs on 8-bit activations (q8,
q4_0, q4_K, q6_K; issue 32): llama_parity_test.py and hf_parity_test.py apply it to every weight matmul's
input.

Near ties. attnrt's float32 activations differ from torch's float64 ones by float32 rounding
(~1e-6 relative: ~1e-4 of a step at 127 steps), so a value that close to a step's half may round
to either step in attnrt; exact halves in the reference too, since attnrt's value is not the
reference's. One such value rounded the other way moves its Linear's outputs by a weight times
a step (~1/127 of the block's largest value) in that token's row, and every later layer rounds
that row's activations anew: the logits of that token (and, through attention, of the later
tokens of its sequence) may move by 1e-2 relative. Issue 32: in `mqa rope half tied` the
first feed-forward input of the last token had t = -14.4999857 in the reference and
-14.500002 in attnrt on NEON (1.3e-6 relative apart, as large as on SVE or x86, where it fell
on the reference's side); attnrt rounded it to -15, the reference to -14, and that token's
logits moved 7e-3 (relative) from the half-to-even reference. Rounding every near tie up and
every one down does not bound that (with two near ties in a sequence attnrt may round one each
way; that case had two), nor does a wider window. NearTies records the near ties of a reference pass and rounds chosen ones the other
way, so a check can find the rounding that attnrt's output shows it made and compare against
that reference, still exact (llama_parity_test.matched_reference).
"""
import torch

AMBIGUOUS = 1e-4  # steps from a half (exact halves included)
INTEGER_ACTIVATION_TYPES = ("q8", "q4_0", "q4_K", "q6_K")


class NearTies:
    """round_activations's near ties. `seen[s]`: the keys of the near ties met in sequence s
    (the leading index of a (batch, seq, K) input), in the order met; `flip`: keys rounded to the
    other neighbour. A key is the value's index and its t = x * (127 / amax) as float32 bits, so
    one input reaching several Linears (wq, wk, wv) is one near tie, rounded alike in each."""

    def __init__(self, flip=()):
        self.flip = set(flip)
        self.seen = {}

    def visit(self, t, q):
        """Records the near ties of t (blocks of 32 of one input) and flips those in self.flip
        in q, t's rounding (in place)."""
        near = (t - (torch.floor(t) + 0.5)).abs() < AMBIGUOUS
        if not bool(near.any()):
            return
        bits = t.contiguous().view(torch.int32)
        for index in torch.nonzero(near).tolist():
            at = tuple(index)
            key = (at, int(bits[at]))
            keys = self.seen.setdefault(index[0] if t.dim() > 3 else 0, [])
            if key not in keys:
                keys.append(key)
            if key in self.flip:
                low = torch.floor(t[at])
                q[at] = low + 1 if bool(q[at] == low) else low


def round_activations(x, ties=None):
    """activation_blocks.h's rounding of the last dim in float32, returned in x's dtype: blocks
    of 32 (the last zero-padded), d = amax / 127, q = round_half_even(x * (127 / amax)), blocks
    with amax < 2^-100 zeros; with `ties` (NearTies), its near ties recorded and its chosen ones
    rounded to the other neighbour."""
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
    if ties is not None:
        ties.visit(torch.where(live, t, torch.zeros_like(t)), q)
    q = torch.where(live, q, torch.zeros_like(q))
    out = (q.double() * d.double()).reshape(padded.shape)[..., :k]
    return out.to(x.dtype)

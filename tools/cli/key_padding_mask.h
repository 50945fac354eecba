// PyTorch's key_padding_mask for `attnrt run`: bool (batch, seq), True = padding
// (ignore this key), as nn.TransformerEncoder's src_key_padding_mask and
// nn.MultiheadAttention's key_padding_mask take it; or float (batch, seq), added.
// attnrt's kernels take one mask with SDPA semantics (bool True = may attend), so
// the padding mask is turned into that convention and merged with --mask here.
#pragma once

#include <string>

#include "npy/npy.h"

namespace attnrt::cli {

// `mask` (may be null): SDPA-semantics mask broadcastable to (batch, heads, seq, seq).
// On success *out is one mask with SDPA semantics: bool (batch, 1, 1, seq) for a bool
// padding mask alone, otherwise (batch, H, L, S) with H, L, S taken from `mask`.
bool MergeKeyPaddingMask(const npy::Array* mask, const npy::Array& padding, size_t batch,
                         size_t seq, npy::Array* out, std::string* error);

}  // namespace attnrt::cli

// Scaled dot-product attention as the runtime offers it: shape binding with
// PyTorch broadcasting, validation, kernel choice, scratch planning and a run
// inside the caller's arena.
//
// Semantics are torch.nn.functional.scaled_dot_product_attention's, with two
// documented choices: a query row that may attend to no key yields zeros (PyTorch
// yields NaN), and a mask combines with a causal rule (PyTorch forbids both).
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_kernel.h"
#include "attnrt/kernels/sdpa_params.h"
#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/status.h"
#include "attnrt/runtime/tensor_shape.h"

namespace attnrt {

// Fills the sizes and C-order strides of `p` from the tensor shapes:
//   q (..., L, E), k (..., S, E), v (..., S, Ev), leading dims none, (B) or (B, H),
//   broadcast right-aligned as torch.matmul does; query heads must be a multiple
//   of key/value heads (grouped-query attention). `mask` (may be null) must
//   broadcast to (..., L, S); `mask_kind` says how to read it. Leaves pointers
//   alone. `out` and `weights` receive the output shapes (..., L, Ev), (..., L, S).
Status BindSdpaShapes(const TensorShape& q, const TensorShape& k, const TensorShape& v,
                      const TensorShape* mask, MaskKind mask_kind, SdpaParams* p,
                      TensorShape* out, TensorShape* weights);

// Sets p's mask kind and strides for a mask of shape `mask` that must broadcast
// to the scores (B, Hq, L, S) of an already bound `p`; `score_rank` is the
// rank the caller's scores have (a mask may not have more dimensions).
Status BindSdpaMask(const TensorShape& mask, MaskKind kind, size_t score_rank, SdpaParams* p);

// 1/sqrt(E), PyTorch's default scale (1 when E == 0, where PyTorch divides by 0).
float DefaultSdpaScale(size_t qk_dim);

// Checks a fully filled block against a kernel: head grouping, pointers, a
// finite scale, weights only from variants that return them, and the per-score
// variants: a window only with a causal rule, a softcap of 0 or finite > 0,
// finite ALiBi slopes and sink logits (one per query head).
Status ValidateSdpa(const SdpaParams& p, const SdpaKernel& kernel);

// The variant `auto` picks for this call: the materialized one when weights are
// wanted, the decode one for up to 16 queries, otherwise the flash one.
const SdpaKernel& ChooseSdpaKernel(const SdpaParams& p);

// Exact arena bytes a RunSdpa with `workers` workers needs (scratch only: the
// tensors themselves are the caller's).
Status SdpaScratchBytes(const SdpaParams& p, const SdpaKernel& kernel, size_t workers,
                        size_t* bytes);

// Validates, takes scratch from `arena` (released before returning) and runs.
Status RunSdpa(const SdpaParams& p, const SdpaKernel& kernel, Arena* arena, Executor* executor);

}  // namespace attnrt

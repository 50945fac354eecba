// SdpaProblem: one SDPA call with its tensors, set up the same way for every timing
// of attention (`attnrt bench sdpa`, bench/sdpa_bench.cc): shapes bound as the
// runtime binds a caller's (BindSdpaShapes), q, k and v filled uniform(-1, 1) from a
// seed, K and V narrowed to a typed KV cache on request (NarrowSdpaKv), and the
// scratch a kernel needs for a worker count, allocated. Host only (it allocates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "attnrt/kernels/sdpa_kernel.h"
#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/status.h"
#include "host/aligned_buffer.h"

namespace attnrt {

struct SdpaProblemShape {
  size_t batch = 1;
  size_t heads = 1;     // query heads
  size_t kv_heads = 0;  // 0: heads
  size_t q_len = 1;
  size_t kv_len = 0;  // 0: q_len
  size_t dim = 64;    // E, of queries and keys
  size_t dim_v = 0;   // 0: dim
  CausalKind causal = CausalKind::kNone;
  size_t window = 0;
  float softcap = 0.0f;
  KvType kv_type = KvType::kF32;  // f16 / q8: the kernel reads a typed KV cache
  uint32_t seed = 1;
};

class SdpaProblem {
 public:
  // Binds the shapes, fills q, k, v and narrows K and V when shape.kv_type asks;
  // errors name what failed (a bad shape, a size that overflows).
  Status Build(const SdpaProblemShape& shape);
  // Sizes and allocates `kernel`'s scratch for `workers` workers; arena() then
  // holds exactly that.
  Status PlanScratch(const SdpaKernel& kernel, size_t workers);
  // Frees the f32 K and V a typed cache was narrowed from, so that only the typed
  // bytes are in the caches' way, as in a model. (f32 problems keep them: the
  // kernel reads them.)
  void DropF32KeysAndValues();

  const SdpaProblemShape& shape() const { return shape_; }
  const SdpaParams& params() const { return params_; }
  const std::vector<float>& k() const { return k_; }
  const std::vector<float>& v() const { return v_; }
  const std::vector<float>& out() const { return out_; }
  size_t scratch_bytes() const { return scratch_bytes_; }
  Arena* arena() { return arena_.get(); }

 private:
  SdpaProblemShape shape_;
  SdpaParams params_;
  std::vector<float> q_, k_, v_, out_, k_scales_, v_scales_;
  std::vector<uint8_t> k_typed_, v_typed_;
  size_t scratch_bytes_ = 0;
  std::unique_ptr<AlignedBuffer> buffer_;
  std::unique_ptr<Arena> arena_;
};

// Flops of the two matrix products: 2*S*E for Q.K^T plus 2*S*Ev for P.V per query
// row and (batch, head). Dense counts every (query, key) pair, 2*B*H*L*S*(E+Ev);
// with `only_visible_pairs` only the pairs the causal rule and the window leave
// (about half for causal L == S): the work the call needs, which headline GFLOP/s
// use. Softmax and masking are not counted.
double SdpaMatmulFlops(const SdpaParams& p, bool only_visible_pairs);

}  // namespace attnrt

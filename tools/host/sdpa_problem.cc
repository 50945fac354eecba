#include "host/sdpa_problem.h"

#include <random>

#include "attnrt/runtime/checked_math.h"
#include "attnrt/runtime/sdpa.h"
#include "attnrt/runtime/sdpa_kv.h"

namespace attnrt {
namespace {

void Fill(size_t count, std::mt19937* rng, std::vector<float>* t) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  t->resize(count);
  for (float& x : *t) x = uniform(*rng);
}

}  // namespace

Status SdpaProblem::Build(const SdpaProblemShape& shape) {
  shape_ = shape;
  SdpaProblemShape& s = shape_;
  if (s.kv_heads == 0) s.kv_heads = s.heads;
  if (s.kv_len == 0) s.kv_len = s.q_len;
  if (s.dim_v == 0) s.dim_v = s.dim;
  const TensorShape qs{4, {s.batch, s.heads, s.q_len, s.dim}};
  const TensorShape ks{4, {s.batch, s.kv_heads, s.kv_len, s.dim}};
  const TensorShape vs{4, {s.batch, s.kv_heads, s.kv_len, s.dim_v}};
  TensorShape out_shape, weights_shape;
  params_ = SdpaParams();
  ATTNRT_RETURN_IF_ERROR(
      BindSdpaShapes(qs, ks, vs, nullptr, MaskKind::kNone, &params_, &out_shape, &weights_shape));
  params_.causal = s.causal;
  params_.window = s.window;
  params_.softcap = s.softcap;

  size_t q_count = 0, k_count = 0, v_count = 0, out_count = 0;
  if (!CheckedProduct(qs.dims, 4, &q_count) || !CheckedProduct(ks.dims, 4, &k_count) ||
      !CheckedProduct(vs.dims, 4, &v_count) ||
      !CheckedProduct(out_shape.dims, out_shape.rank, &out_count)) {
    return Status::Error(StatusCode::kOverflow, "SDPA problem: tensor sizes overflow");
  }
  std::mt19937 rng(s.seed);
  Fill(q_count, &rng, &q_);
  Fill(k_count, &rng, &k_);
  Fill(v_count, &rng, &v_);
  out_.assign(out_count, 0.0f);
  params_.q = q_.data();
  params_.k = k_.data();
  params_.v = v_.data();
  params_.out = out_.data();
  if (s.kv_type == KvType::kF32) return Status::Ok();

  size_t k_bytes, v_bytes, k_scale_n, v_scale_n;
  if (!TypedKvBytes(s.kv_type, k_count, params_.qk_dim, &k_bytes, &k_scale_n) ||
      !TypedKvBytes(s.kv_type, v_count, params_.v_dim, &v_bytes, &v_scale_n)) {
    return Status::Error(StatusCode::kOverflow, "SDPA problem: typed key/value sizes overflow");
  }
  k_typed_.resize(k_bytes);
  v_typed_.resize(v_bytes);
  k_scales_.resize(k_scale_n);
  v_scales_.resize(v_scale_n);
  return NarrowSdpaKv(s.kv_type, k_count, v_count, k_typed_.data(), v_typed_.data(),
                      k_scales_.data(), v_scales_.data(), &params_);
}

Status SdpaProblem::PlanScratch(const SdpaKernel& kernel, size_t workers) {
  ATTNRT_RETURN_IF_ERROR(SdpaScratchBytes(params_, kernel, workers, &scratch_bytes_));
  buffer_ = std::make_unique<AlignedBuffer>(scratch_bytes_);
  if (!buffer_->ok()) {
    return Status::Error(StatusCode::kInvalidArgument, "cannot allocate %z bytes of scratch",
                         scratch_bytes_);
  }
  arena_ = std::make_unique<Arena>(buffer_->data(), scratch_bytes_);
  return Status::Ok();
}

void SdpaProblem::DropF32KeysAndValues() {
  if (params_.kv_type == KvType::kF32) return;
  std::vector<float>().swap(k_);
  std::vector<float>().swap(v_);
}

double SdpaMatmulFlops(const SdpaParams& p, bool only_visible_pairs) {
  double pairs = 0;
  if (!only_visible_pairs || p.causal == CausalKind::kNone) {  // a window needs a causal rule
    pairs = static_cast<double>(p.q_len) * static_cast<double>(p.kv_len);
  } else {
    // The causal rule and the window leave row i the keys [begin, end).
    for (size_t i = 0; i < p.q_len; ++i) {
      const size_t end = CausalVisibleKeys(p, i), begin = VisibleKeyBegin(p, i);
      pairs += end > begin ? static_cast<double>(end - begin) : 0.0;
    }
  }
  return 2.0 * static_cast<double>(p.batch * p.q_heads) * pairs *
         static_cast<double>(p.qk_dim + p.v_dim);
}

}  // namespace attnrt

// reference: the oracle every other variant is tested against.
//
// Plain scalar loops over one query row at a time, accumulating in double. No
// tiling, no SIMD, no cleverness: it should be obviously right when read.
// Non-finite inputs follow PyTorch's math: a NaN or +inf score of an allowed key
// makes the whole row NaN (max NaN, or exp(inf - inf)); -inf scores weigh 0; a row
// with no allowed key gives zeros. The variants (window, ALiBi, softcap, sinks) are
// applied straight from their definitions in sdpa_params.h. An f16 or q8 KV cache
// is widened exactly, element by element (KvView), so the oracle of a typed call
// is the exact attention over the values the cache holds.
#include <cmath>

#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/sdpa_kernel.h"
#include "kernels/blocked/sdpa_mask.h"

namespace attnrt {
namespace {

const char* ScalarIsa() { return "scalar"; }
bool Always() { return true; }

// One work item per (batch, query head, query row).
size_t ReferenceWorkItems(const SdpaParams& p) { return p.batch * p.q_heads * p.q_len; }

// Room for one row of double scores.
size_t ReferenceScratchFloats(const SdpaParams& p) { return 2 * p.kv_len + 2; }

// Keys or values of one (batch, kv head), whatever their storage type: element e
// of row j widened exactly (q8 times its row scale, in double).
struct KvView {
  KvType type;
  const void* data;  // at row 0 of (b, g)
  size_t base;       // element index of row 0 of (b, g)
  size_t row;        // element stride between rows
  const float* scales;  // q8: scale of row 0 of (b, g); nullptr otherwise
  size_t scale_row;

  double At(size_t j, size_t e) const {
    const double x = WidenKvElement(type, data, base + j * row + e);
    return scales == nullptr ? x : x * double(scales[j * scale_row]);
  }
};

KvView KvViewOf(const SdpaParams& p, const float* f32, const void* typed, const Strides3& st,
                const float* scales, const Strides3& scale_st, size_t b, size_t g) {
  KvView view;
  view.type = p.kv_type;
  view.data = p.kv_type == KvType::kF32 ? static_cast<const void*>(f32) : typed;
  view.base = b * st.batch + g * st.head;
  view.row = st.row;
  view.scales = nullptr;
  view.scale_row = scale_st.row;
  if (p.kv_type == KvType::kQ8) {
    view.scales = scales + b * scale_st.batch + g * scale_st.head;
  }
  return view;
}

void ReferenceRow(const SdpaParams& p, size_t b, size_t h, size_t i, double* scores) {
  const size_t group = p.q_heads / p.kv_heads;
  const size_t g = h / group;
  const float* q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i * p.q_strides.row;
  const KvView k = KvViewOf(p, p.k, p.k_data, p.k_strides, p.k_scales, p.k_scale_strides, b, g);
  const KvView v = KvViewOf(p, p.v, p.v_data, p.v_strides, p.v_scales, p.v_scale_strides, b, g);
  const uint8_t* mask_row = p.mask_kind == MaskKind::kNone ? nullptr : MaskRowBytes(p, b, h, i);
  float* out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i * p.out_strides.row;
  float* w = p.weights == nullptr ? nullptr
                                  : p.weights + b * p.weights_strides.batch +
                                        h * p.weights_strides.head + i * p.weights_strides.row;

  // Masked keys score -inf; every finite score, however negative, is a score.
  const double masked = -INFINITY;
  const long long diag = DiagonalKey(p, i);
  double max_score = masked;
  for (size_t j = 0; j < p.kv_len; ++j) {
    double dot = 0.0;
    for (size_t e = 0; e < p.qk_dim; ++e) dot += double(q[e]) * k.At(j, e);
    float bias;
    const bool allowed = KeyAllowed(p, mask_row, i, j, &bias);
    double score = dot * p.scale;
    if (p.softcap > 0.0f) score = p.softcap * std::tanh(score / p.softcap);
    // PyTorch adds a float mask to float32 scores: -FLT_MAX plus any ordinary score
    // is -FLT_MAX (a row padded with it is uniform), and an overflow is -inf.
    if (p.mask_kind == MaskKind::kAdditive) score = static_cast<float>(score) + bias;
    if (p.alibi_slopes != nullptr) {
      score += double(p.alibi_slopes[h]) * double(static_cast<long long>(j) - diag);
    }
    scores[j] = allowed ? score : masked;
    // A NaN score makes the max NaN for good, and with it every weight, as in PyTorch.
    if (std::isnan(scores[j]) || scores[j] > max_score) max_score = scores[j];
  }

  // No allowed key (max -inf): zeros, not exp(-inf - -inf) = NaN, sink or not.
  const bool dead = max_score == masked;
  // A sink joins the denominator only; the max it takes part in keeps exp in range.
  const double sink = p.sinks == nullptr ? masked : double(p.sinks[h]);
  const double top = std::isnan(max_score) || max_score >= sink ? max_score : sink;
  double sum = dead ? 0.0 : std::exp(sink - top);
  for (size_t j = 0; j < p.kv_len; ++j) {
    scores[j] = dead ? 0.0 : std::exp(scores[j] - top);
    sum += scores[j];
  }
  const double inv = dead ? 0.0 : 1.0 / sum;
  for (size_t c = 0; c < p.v_dim; ++c) {
    double acc = 0.0;
    for (size_t j = 0; j < p.kv_len; ++j) acc += scores[j] * v.At(j, c);
    out[c] = static_cast<float>(acc * inv);
  }
  if (w != nullptr) {
    for (size_t j = 0; j < p.kv_len; ++j) w[j] = static_cast<float>(scores[j] * inv);
  }
}

void ReferenceRun(const SdpaParams& p, size_t begin, size_t end, float* scratch, float*) {
  double* scores = reinterpret_cast<double*>(scratch);
  for (size_t item = begin; item < end; ++item) {
    const size_t i = item % p.q_len;
    const size_t h = (item / p.q_len) % p.q_heads;
    const size_t b = item / (p.q_len * p.q_heads);
    ReferenceRow(p, b, h, i, scores);
  }
}

}  // namespace

extern const SdpaKernel kSdpaReference = MakeSdpaKernel(
    {"reference", SdpaAlgorithm::kReference, SdpaFamily::kReference, /*returns_weights=*/true,
     /*reads_typed_kv=*/true},
    {ScalarIsa, Always, ReferenceScratchFloats, ReferenceWorkItems, ReferenceRun});

}  // namespace attnrt

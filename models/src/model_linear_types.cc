// The matrices the forward passes hand to Linear (model.h): which types they are stored in
// (ModelMultipliesType), and the kernels' packed copies of them (ModelPackedBytes,
// PackModelWeights).
#include <cstdint>
#include <initializer_list>

#include "attnrt/kernels/linear.h"
#include "attnrt/models/model.h"
#include "attnrt/runtime/checked_math.h"

namespace attnrt {
namespace {

// f(w) for every matrix a forward pass multiplies through Linear: each layer's projections,
// vit's patch, the output or classifier head. Absent ones (no feed-forward block,
// single-head's missing output projection, an encoder's head) have a null weight, are never
// run, and are not passed to f.
template <class ModelT, class F>
void ForEachLinearMatrix(ModelT& model, F f) {
  const size_t layers = model.config.num_layers < kMaxLayers ? model.config.num_layers : kMaxLayers;
  for (size_t l = 0; l < layers; ++l) {
    auto& w = model.layers[l];
    for (auto* m : {&w.q, &w.k, &w.v, &w.o, &w.ff1, &w.ff2, &w.ff3}) {
      if (m->weight != nullptr) f(*m);
    }
  }
  if (model.patch.weight != nullptr) f(model.patch);
  if (model.head.weight != nullptr) f(model.head);
}

// The LinearParams fields that decide a packed copy and what it holds.
LinearParams PackParams(const LinearWeights& w, LinearActivations activations) {
  LinearParams p{};
  p.in = w.in;
  p.out = w.out;
  p.w = w.weight;
  p.w_type = w.type;
  p.w_scales = w.scale_plane;
  p.activations = activations;
  return p;
}

}  // namespace

bool ModelMultipliesType(const Model& model, WeightType type) {
  bool found = false;
  ForEachLinearMatrix(model, [&](const LinearWeights& w) { found = found || w.type == type; });
  return found;
}

Status ModelPackedBytes(const Model& model, LinearActivations activations, size_t* bytes) {
  size_t total = 0;
  bool overflow = false;
  ForEachLinearMatrix(model, [&](const LinearWeights& w) {
    size_t aligned;
    if (!CheckedAlignUp(LinearPackedBytes(PackParams(w, activations)), kPackedAlignment,
                        &aligned) ||
        !CheckedAdd(total, aligned, &total)) {
      overflow = true;
    }
  });
  if (overflow) {
    return Status::Error(StatusCode::kOverflow, "the packed copies of the weights overflow size_t");
  }
  *bytes = total;
  return Status::Ok();
}

Status PackModelWeights(Model* model, LinearActivations activations, void* buffer,
                        size_t bytes) {
  size_t need;
  ATTNRT_RETURN_IF_ERROR(ModelPackedBytes(*model, activations, &need));
  if (need > bytes) {
    return Status::Error(StatusCode::kBufferTooSmall,
                         "the packed copies of the weights need %z bytes, the buffer has %z", need,
                         bytes);
  }
  if (reinterpret_cast<uintptr_t>(buffer) % kPackedAlignment != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the buffer for packed weights is not %z-byte aligned", kPackedAlignment);
  }
  uint8_t* at = static_cast<uint8_t*>(buffer);
  ForEachLinearMatrix(*model, [&](LinearWeights& w) {
    const LinearParams p = PackParams(w, activations);
    const size_t n = LinearPackedBytes(p);
    if (n == 0) return;
    PackLinearWeights(p, at);
    w.packed = at;
    at += (n + kPackedAlignment - 1) / kPackedAlignment * kPackedAlignment;  // checked above
  });
  return Status::Ok();
}

}  // namespace attnrt

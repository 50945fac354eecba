// The matrices the forward passes hand to Linear (model.h): which types they are stored in
// (ModelMultipliesType), and the kernels' packed copies of them (ModelPackedBytes,
// PackModelWeights).
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <tuple>

#include "attnrt/kernels/linear.h"
#include "attnrt/models/model.h"
#include "attnrt/runtime/checked_math.h"

namespace attnrt {
namespace {

// f(w) for every matrix a forward pass multiplies through Linear: each layer's projections,
// vit's patch, the output or classifier head. Absent ones (no feed-forward block,
// single-head's missing output projection, an encoder's head) have a null weight, are never
// run, and are not passed to f.
template <class F>
void ForEachLinearMatrix(const Model& model, F f) {
  const size_t layers = model.config.num_layers < kMaxLayers ? model.config.num_layers : kMaxLayers;
  for (size_t l = 0; l < layers; ++l) {
    const LayerWeights& w = model.layers[l];
    for (const LinearWeights* m : {&w.q, &w.k, &w.v, &w.o, &w.ff1, &w.ff2, &w.ff3}) {
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

// (weight, in, out): the packed table's order and its key (addresses as integers: `<` on
// pointers into different objects is unspecified).
bool PackedBefore(const PackedMatrix& a, const PackedMatrix& b) {
  const uintptr_t wa = reinterpret_cast<uintptr_t>(a.weight);
  const uintptr_t wb = reinterpret_cast<uintptr_t>(b.weight);
  return std::tie(wa, a.in, a.out) < std::tie(wb, b.in, b.out);
}

}  // namespace

bool ModelMultipliesType(const Model& model, WeightType type) {
  bool found = false;
  ForEachLinearMatrix(model, [&](const LinearWeights& w) { found = found || w.type == type; });
  return found;
}

Status ModelPackedBytes(const Model& model, LinearActivations activations, size_t* bytes) {
  size_t copies = 0, count = 0;
  bool overflow = false;
  ForEachLinearMatrix(model, [&](const LinearWeights& w) {
    const size_t n = LinearPackedBytes(PackParams(w, activations));
    size_t aligned;
    if (n == 0) return;
    ++count;
    if (!CheckedAlignUp(n, kPackedAlignment, &aligned) || !CheckedAdd(copies, aligned, &copies)) {
      overflow = true;
    }
  });
  size_t table = 0;
  if (overflow || !CheckedMul(count, sizeof(PackedMatrix), &table) ||
      !CheckedAlignUp(table, kPackedAlignment, &table) || !CheckedAdd(table, copies, bytes)) {
    return Status::Error(StatusCode::kOverflow, "the packed copies of the weights overflow size_t");
  }
  if (count == 0) *bytes = 0;
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
  size_t count = 0;
  ForEachLinearMatrix(*model, [&](const LinearWeights& w) {
    if (LinearPackedBytes(PackParams(w, activations)) != 0) ++count;
  });
  if (count == 0) return Status::Ok();
  // The table, then the copies (sizes checked by ModelPackedBytes).
  PackedMatrix* table = static_cast<PackedMatrix*>(buffer);
  uint8_t* at = static_cast<uint8_t*>(buffer) +
                (count * sizeof(PackedMatrix) + kPackedAlignment - 1) / kPackedAlignment *
                    kPackedAlignment;
  size_t i = 0;
  ForEachLinearMatrix(*model, [&](const LinearWeights& w) {
    const LinearParams p = PackParams(w, activations);
    const size_t n = LinearPackedBytes(p);
    if (n == 0) return;
    PackLinearWeights(p, at);
    table[i++] = PackedMatrix{w.weight, w.in, w.out, at};
    at += (n + kPackedAlignment - 1) / kPackedAlignment * kPackedAlignment;
  });
  std::sort(table, table + count, PackedBefore);
  model->packed = table;
  model->packed_count = count;
  return Status::Ok();
}

const void* FindPackedCopy(const Model& model, const LinearWeights& w) {
  if (model.packed_count == 0) return nullptr;
  const PackedMatrix key{w.weight, w.in, w.out, nullptr};
  const PackedMatrix* end = model.packed + model.packed_count;
  const PackedMatrix* it = std::lower_bound(model.packed, end, key, PackedBefore);
  return it != end && !PackedBefore(key, *it) ? it->packed : nullptr;
}

}  // namespace attnrt

// ModelMultipliesType (model.h): the matrices the forward passes hand to Linear, by type.
#include "attnrt/models/model.h"

#include <initializer_list>

namespace attnrt {

bool ModelMultipliesType(const Model& model, WeightType type) {
  // Absent matrices (no feed-forward block, single-head's missing output projection, an
  // encoder's head) keep a null weight and are never run.
  const auto stored_as = [type](const LinearWeights& w) {
    return w.weight != nullptr && w.type == type;
  };
  const size_t layers = model.config.num_layers < kMaxLayers ? model.config.num_layers : kMaxLayers;
  for (size_t l = 0; l < layers; ++l) {
    const LayerWeights& w = model.layers[l];
    for (const LinearWeights* m : {&w.q, &w.k, &w.v, &w.o, &w.ff1, &w.ff2, &w.ff3}) {
      if (stored_as(*m)) return true;
    }
  }
  return stored_as(model.patch) || stored_as(model.head);
}

}  // namespace attnrt

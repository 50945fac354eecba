// LoadModel: binds a weight file's tensors to a Model through the architecture
// record (each tensor's name, shape and slot), checking names and shapes.
#include <cstring>

#include "attnrt/models/model.h"
#include "attnrt/models/model_spec.h"
#include "tensor_enumeration.h"

namespace attnrt {
namespace {

bool SameShape(const TensorShape& a, const TensorShape& b) {
  if (a.rank != b.rank) return false;
  for (size_t i = 0; i < a.rank; ++i) {
    if (a.dims[i] != b.dims[i]) return false;
  }
  return true;
}

Status WrongShape(const TensorSpec& spec) {
  const TensorShape& s = spec.shape;
  const char* format = s.rank == 1   ? "tensor '%s' has the wrong shape: the config implies (%z,)"
                       : s.rank == 2 ? "tensor '%s' has the wrong shape: the config implies (%z, %z)"
                       : s.rank == 3
                           ? "tensor '%s' has the wrong shape: the config implies (%z, %z, %z)"
                           : "tensor '%s' has the wrong shape: the config implies (%z, %z, %z, %z)";
  return Status::Error(StatusCode::kBadFile, format, spec.name, s.dims[0], s.dims[1], s.dims[2],
                       s.dims[3]);
}

const float** SlotAddress(Model* m, const TensorEntry& e) {
  LayerWeights& l = m->layers[e.layer];
  switch (e.record->slot) {
    case Slot::kInProjWeight: return &l.q.weight;
    case Slot::kInProjBias: return &l.q.bias;
    case Slot::kQWeight: return &l.q.weight;
    case Slot::kKWeight: return &l.k.weight;
    case Slot::kVWeight: return &l.v.weight;
    case Slot::kOutWeight: return &l.o.weight;
    case Slot::kOutBias: return &l.o.bias;
    case Slot::kFf1Weight: return &l.ff1.weight;
    case Slot::kFf1Bias: return &l.ff1.bias;
    case Slot::kFf2Weight: return &l.ff2.weight;
    case Slot::kFf2Bias: return &l.ff2.bias;
    case Slot::kFf3Weight: return &l.ff3.weight;
    case Slot::kNorm1Weight: return &l.norm1_weight;
    case Slot::kNorm1Bias: return &l.norm1_bias;
    case Slot::kNorm2Weight: return &l.norm2_weight;
    case Slot::kNorm2Bias: return &l.norm2_bias;
    case Slot::kFinalNormWeight: return &m->final_norm_weight;
    case Slot::kFinalNormBias: return &m->final_norm_bias;
    case Slot::kPatchWeight: return &m->patch.weight;
    case Slot::kPatchBias: return &m->patch.bias;
    case Slot::kClassToken: return &m->class_token;
    case Slot::kPosEmbedding: return &m->pos_embedding;
    case Slot::kHeadWeight: return &m->head.weight;
    case Slot::kHeadBias: return &m->head.bias;
    case Slot::kTokenEmbedding: return &m->token_embedding;
  }
  return nullptr;
}

// Widths of every projection; PyTorch's stacked in_proj is split into q, k, v.
void SetDims(Model* m) {
  const ModelConfig& c = m->config;
  const size_t qk = c.heads * c.qk_dim, v = c.heads * c.v_dim;
  for (size_t i = 0; i < c.num_layers; ++i) {
    LayerWeights& l = m->layers[i];
    l.q.in = l.k.in = l.v.in = c.model_dim;
    l.q.out = qk;
    l.k.out = c.kv_heads * c.qk_dim;
    l.v.out = c.kv_heads * c.v_dim;
    l.o.in = v;
    l.o.out = c.model_dim;
    l.ff1.in = l.ff2.out = c.model_dim;
    l.ff1.out = l.ff2.in = c.ff_dim;
    l.ff3.in = c.model_dim;
    l.ff3.out = c.ff_dim;
    if (l.k.weight == nullptr) {  // stacked in_proj
      l.k.weight = l.q.weight + qk * c.model_dim;
      l.v.weight = l.k.weight + qk * c.model_dim;
      if (l.q.bias != nullptr) {
        l.k.bias = l.q.bias + qk;
        l.v.bias = l.k.bias + qk;
      }
    }
  }
  m->patch.in = c.channels * c.patch_size * c.patch_size;
  m->patch.out = c.model_dim;
  m->head.in = c.model_dim;
  m->head.out = c.out_dim;
  // A language model without its own output matrix shares the token embedding.
  if (m->token_embedding != nullptr && m->head.weight == nullptr) {
    m->head.weight = m->token_embedding;
  }
}

}  // namespace

Status LoadModel(const WeightFile& file, Model* model) {
  *model = Model{};
  ATTNRT_RETURN_IF_ERROR(ReadModelConfig(file, &model->config));
  const ModelConfig& c = model->config;
  const size_t n = ModelTensorCount(c);
  size_t found = 0;  // tensors of the record present in the file
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    TensorEntry entry;
    if (!ModelTensorAt(c, i, &spec) || !ModelTensorEntryAt(c, i, &entry)) {
      return Status::Error(StatusCode::kBadFile, "architecture %s has no name for tensor %z",
                           ArchitectureName(c.arch), i);
    }
    WeightTensor t;
    if (!file.FindTensor(spec.name, &t).ok()) {
      if (spec.optional) continue;
      return Status::Error(StatusCode::kBadFile, "missing tensor '%s' required by the config",
                           spec.name);
    }
    if (!SameShape(t.shape, spec.shape)) return WrongShape(spec);
    *SlotAddress(model, entry) = t.data;
    ++found;
  }
  // Names in a weight file are unique, so any further tensor is not in the record: name it.
  for (size_t i = 0; found != file.tensor_count() && i < file.tensor_count(); ++i) {
    WeightTensor t;
    ATTNRT_RETURN_IF_ERROR(file.TensorAt(i, &t));
    bool expected = false;
    for (size_t j = 0; j < n && !expected; ++j) {
      TensorSpec spec;
      expected = ModelTensorAt(c, j, &spec) && std::strcmp(t.name, spec.name) == 0;
    }
    if (!expected) {
      return Status::Error(StatusCode::kBadFile, "unexpected tensor '%s' for architecture %s",
                           t.name, ArchitectureName(c.arch));
    }
  }
  SetDims(model);
  return Status::Ok();
}

}  // namespace attnrt

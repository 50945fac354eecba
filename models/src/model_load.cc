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

// The matrix a matrix slot (SlotIsMatrix) fills, or nullptr for a slot that holds an f32 vector.
LinearWeights* MatrixSlot(Model* m, const TensorEntry& e) {
  LayerWeights& l = m->layers[e.layer];
  if (!SlotIsMatrix(e.record->slot)) return nullptr;
  switch (e.record->slot) {
    case Slot::kInProjWeight: return &l.q;
    case Slot::kQWeight: return &l.q;
    case Slot::kKWeight: return &l.k;
    case Slot::kVWeight: return &l.v;
    case Slot::kOutWeight: return &l.o;
    case Slot::kFf1Weight: return &l.ff1;
    case Slot::kFf2Weight: return &l.ff2;
    case Slot::kFf3Weight: return &l.ff3;
    case Slot::kPatchWeight: return &m->patch;
    case Slot::kHeadWeight: return &m->head;
    case Slot::kTokenEmbedding: return &m->token_embedding;
    default: return nullptr;
  }
}

// The f32 vector a vector slot fills (norms, biases, class token, position embedding).
const float** VectorSlot(Model* m, const TensorEntry& e) {
  LayerWeights& l = m->layers[e.layer];
  switch (e.record->slot) {
    case Slot::kInProjBias: return &l.q.bias;
    case Slot::kQBias: return &l.q.bias;
    case Slot::kKBias: return &l.k.bias;
    case Slot::kVBias: return &l.v.bias;
    case Slot::kOutBias: return &l.o.bias;
    case Slot::kFf1Bias: return &l.ff1.bias;
    case Slot::kFf2Bias: return &l.ff2.bias;
    case Slot::kNorm1Weight: return &l.norm1_weight;
    case Slot::kNorm1Bias: return &l.norm1_bias;
    case Slot::kNorm2Weight: return &l.norm2_weight;
    case Slot::kNorm2Bias: return &l.norm2_bias;
    case Slot::kQNormWeight: return &l.q_norm_weight;
    case Slot::kKNormWeight: return &l.k_norm_weight;
    case Slot::kPostAttnNormWeight: return &l.post_attn_norm_weight;
    case Slot::kPostFfnNormWeight: return &l.post_ffn_norm_weight;
    case Slot::kFinalNormWeight: return &m->final_norm_weight;
    case Slot::kFinalNormBias: return &m->final_norm_bias;
    case Slot::kPatchBias: return &m->patch.bias;
    case Slot::kClassToken: return &m->class_token;
    case Slot::kPosEmbedding: return &m->pos_embedding;
    case Slot::kHeadBias: return &m->head.bias;
    default: return nullptr;
  }
}

// Points a slot at a tensor's bytes. Matrices may be stored in any type the linear kernels
// read; vectors are read as f32 by the norm and elementwise kernels, so another type there is
// refused by name rather than misread.
Status BindSlot(Model* m, const TensorEntry& e, const WeightTensor& t) {
  if (LinearWeights* w = MatrixSlot(m, e)) {
    w->weight = t.raw;
    w->type = t.dtype;
    const WeightTypeInfo& info = *FindWeightType(t.dtype);  // the reader checked the code
    if (info.scales == WeightScales::kF16Plane) {
      w->scale_plane = static_cast<const uint8_t*>(t.raw) +
                       ScalePlaneOffset(info, TensorMatrixRows(t.shape), TensorMatrixCols(t.shape));
    }
    return Status::Ok();
  }
  if (t.dtype != WeightType::kF32) {
    return Status::Error(StatusCode::kBadFile,
                         "tensor '%s' is stored as %s; attnrt reads it only as f32 (only weight "
                         "matrices and embeddings may be stored in another type)",
                         t.name, WeightTypeName(t.dtype));
  }
  *VectorSlot(m, e) = t.data;
  return Status::Ok();
}

// Rows [first, first + rows) of a stored matrix with `in` columns: the same type, pointers
// into the parent's planes (a q8 slice keeps the parent's scale plane, offset by rows).
LinearWeights MatrixRows(const LinearWeights& w, size_t first, size_t in) {
  const WeightTypeInfo& info = *FindWeightType(w.type);
  LinearWeights slice = w;
  slice.weight = static_cast<const uint8_t*>(w.weight) + ValueRowsBytes(info, first, in);
  if (info.scales == WeightScales::kF16Plane) {
    slice.scale_plane =
        static_cast<const uint8_t*>(w.scale_plane) + 2 * first * WeightBlocksPerRow(info, in);
  }
  slice.bias = w.bias != nullptr ? w.bias + first : nullptr;
  return slice;
}

// Widths of every projection; PyTorch's stacked in_proj is split into q, k, v.
void SetDims(Model* m) {
  const ModelConfig& c = m->config;
  const size_t qk = c.heads * c.qk_dim, v = c.heads * c.v_dim;
  for (size_t i = 0; i < c.num_layers; ++i) {
    LayerWeights& l = m->layers[i];
    if (l.k.weight == nullptr) {  // stacked in_proj: q, k, v are its row blocks
      const LinearWeights stacked = l.q;
      l.k = MatrixRows(stacked, qk, c.model_dim);
      l.v = MatrixRows(stacked, 2 * qk, c.model_dim);
    }
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
  }
  m->patch.in = c.channels * c.patch_size * c.patch_size;
  m->patch.out = c.model_dim;
  m->token_embedding.in = c.model_dim;
  m->token_embedding.out = c.vocab_size;
  // A language model without its own output matrix shares the token embedding.
  if (m->token_embedding.weight != nullptr && m->head.weight == nullptr) {
    m->head = m->token_embedding;
  }
  m->head.in = c.model_dim;
  m->head.out = c.out_dim;
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
    ATTNRT_RETURN_IF_ERROR(BindSlot(model, entry, t));
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

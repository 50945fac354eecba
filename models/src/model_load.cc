// LoadModel: binds a weight file's tensors to an architecture, checking names
// and shapes against model_spec.
#include <cstring>

#include "attnrt/models/model.h"
#include "attnrt/models/model_spec.h"

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
  if (spec.shape.rank == 2) {
    return Status::Error(StatusCode::kBadFile,
                         "tensor '%s' has the wrong shape: the config implies (%z, %z)", spec.name,
                         spec.shape.dims[0], spec.shape.dims[1]);
  }
  return Status::Error(StatusCode::kBadFile, "tensor '%s' has the wrong shape: the config implies (%z,)",
                       spec.name, spec.shape.dims[0]);
}

Status FindChecked(const WeightFile& file, const TensorSpec& spec, const float** data) {
  WeightTensor t;
  if (!file.FindTensor(spec.name, &t).ok()) {
    return Status::Error(StatusCode::kBadFile, "missing tensor '%s' required by the config",
                         spec.name);
  }
  if (!SameShape(t.shape, spec.shape)) return WrongShape(spec);
  *data = t.data;
  return Status::Ok();
}

// Which Model field a state_dict key fills.
const float** Slot(Model* m, const char* name) {
  struct Entry {
    const char* suffix;
    const float** slot;
  };
  const Entry entries[] = {
      {"in_proj_weight", &m->q.weight},   {"in_proj_bias", &m->q.bias},
      {"out_proj.weight", &m->o.weight},  {"out_proj.bias", &m->o.bias},
      {"linear1.weight", &m->ff1.weight}, {"linear1.bias", &m->ff1.bias},
      {"linear2.weight", &m->ff2.weight}, {"linear2.bias", &m->ff2.bias},
      {"norm1.weight", &m->norm1_weight}, {"norm1.bias", &m->norm1_bias},
      {"norm2.weight", &m->norm2_weight}, {"norm2.bias", &m->norm2_bias},
      {"W_q.weight", &m->q.weight},       {"W_k.weight", &m->k.weight},
      {"W_v.weight", &m->v.weight},       {"W_o.weight", &m->o.weight},
      {"query_proj.weight", &m->q.weight}, {"key_proj.weight", &m->k.weight},
      {"value_proj.weight", &m->v.weight},
  };
  const size_t len = std::strlen(name);
  for (const Entry& e : entries) {
    const size_t n = std::strlen(e.suffix);
    if (len >= n && std::strcmp(name + len - n, e.suffix) == 0) return e.slot;
  }
  return nullptr;
}

void SetDims(Model* m) {
  const ModelConfig& c = m->config;
  const size_t qk = c.heads * c.qk_dim, v = c.heads * c.v_dim;
  m->q.in = m->k.in = m->v.in = c.model_dim;
  m->q.out = m->k.out = qk;
  m->v.out = v;
  m->o.in = v;
  m->o.out = c.out_dim;
  m->ff1.in = m->ff2.out = c.model_dim;
  m->ff1.out = m->ff2.in = c.ff_dim;
  // PyTorch stores q, k and v stacked in one in_proj matrix (and bias).
  if (c.arch == Architecture::kMha || c.arch == Architecture::kEncoderLayer) {
    m->k.weight = m->q.weight + qk * c.model_dim;
    m->v.weight = m->k.weight + qk * c.model_dim;
    if (m->q.bias != nullptr) {
      m->k.bias = m->q.bias + qk;
      m->v.bias = m->k.bias + qk;
    }
  }
}

}  // namespace

Status LoadModel(const WeightFile& file, Model* model) {
  *model = Model{};
  ATTNRT_RETURN_IF_ERROR(ReadModelConfig(file, &model->config));
  TensorSpec specs[kMaxModelTensors];
  const size_t n = ModelTensorSpecs(model->config, specs);
  for (size_t i = 0; i < n; ++i) {
    const float** slot = Slot(model, specs[i].name);
    if (slot == nullptr) return Status::Error(StatusCode::kBadFile, "no slot for '%s'", specs[i].name);
    ATTNRT_RETURN_IF_ERROR(FindChecked(file, specs[i], slot));
  }
  if (file.tensor_count() != n) {
    for (size_t i = 0; i < file.tensor_count(); ++i) {
      WeightTensor t;
      ATTNRT_RETURN_IF_ERROR(file.TensorAt(i, &t));
      bool expected = false;
      for (size_t j = 0; j < n; ++j) expected = expected || std::strcmp(t.name, specs[j].name) == 0;
      if (!expected) {
        return Status::Error(StatusCode::kBadFile, "unexpected tensor '%s' for architecture %s",
                             t.name, ArchitectureName(model->config.arch));
      }
    }
  }
  SetDims(model);
  return Status::Ok();
}

}  // namespace attnrt

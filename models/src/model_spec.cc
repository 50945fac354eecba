// Expected tensor names and shapes per architecture (see model_spec.h). Names
// are PyTorch state_dict keys; bias tensors exist only when the config has bias.
#include "attnrt/models/model_spec.h"

namespace attnrt {
namespace {

class SpecList {
 public:
  explicit SpecList(TensorSpec* specs) : specs_(specs) {}
  void Matrix(const char* name, size_t rows, size_t cols) { Add(name, TensorShape{2, {rows, cols}}); }
  void Vector(const char* name, size_t n) { Add(name, TensorShape{1, {n}}); }
  size_t count() const { return count_; }

 private:
  void Add(const char* name, const TensorShape& shape) {
    if (count_ < kMaxModelTensors) specs_[count_++] = TensorSpec{name, shape};
  }
  TensorSpec* specs_;
  size_t count_ = 0;
};

// nn.MultiheadAttention's parameters under `prefix` ("" or "self_attn.").
void AddMultiheadAttention(const ModelConfig& c, bool encoder, SpecList* list) {
  const size_t e = c.model_dim;
  list->Matrix(encoder ? "self_attn.in_proj_weight" : "in_proj_weight", 3 * e, e);
  if (c.bias) list->Vector(encoder ? "self_attn.in_proj_bias" : "in_proj_bias", 3 * e);
  list->Matrix(encoder ? "self_attn.out_proj.weight" : "out_proj.weight", e, e);
  if (c.bias) list->Vector(encoder ? "self_attn.out_proj.bias" : "out_proj.bias", e);
}

}  // namespace

size_t ModelTensorSpecs(const ModelConfig& c, TensorSpec* specs) {
  SpecList list(specs);
  switch (c.arch) {
    case Architecture::kMha:
      AddMultiheadAttention(c, false, &list);
      break;
    case Architecture::kEncoderLayer:
      AddMultiheadAttention(c, true, &list);
      list.Matrix("linear1.weight", c.ff_dim, c.model_dim);
      if (c.bias) list.Vector("linear1.bias", c.ff_dim);
      list.Matrix("linear2.weight", c.model_dim, c.ff_dim);
      if (c.bias) list.Vector("linear2.bias", c.model_dim);
      list.Vector("norm1.weight", c.model_dim);
      if (c.bias) list.Vector("norm1.bias", c.model_dim);
      list.Vector("norm2.weight", c.model_dim);
      if (c.bias) list.Vector("norm2.bias", c.model_dim);
      break;
    case Architecture::kSelfAttention:
      list.Matrix("W_q.weight", c.qk_dim, c.model_dim);
      list.Matrix("W_k.weight", c.qk_dim, c.model_dim);
      list.Matrix("W_v.weight", c.v_dim, c.model_dim);
      list.Matrix("W_o.weight", c.model_dim, c.v_dim);
      break;
    case Architecture::kSingleHead:
      list.Matrix("query_proj.weight", c.qk_dim, c.model_dim);
      list.Matrix("key_proj.weight", c.qk_dim, c.model_dim);
      list.Matrix("value_proj.weight", c.v_dim, c.model_dim);
      break;
  }
  return list.count();
}

}  // namespace attnrt

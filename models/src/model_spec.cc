// Enumerating a model's tensors from its architecture record (see model_spec.h):
// the per-layer tensors of every layer under the record's layer prefix, then the
// whole-model tensors; only those present for this config (bias, final norm).
#include "attnrt/models/model_spec.h"

#include "architecture_record.h"
#include "tensor_enumeration.h"

namespace attnrt {
namespace {

// Appends `text` to name[*len], replacing "{i}" by the decimal layer index.
bool AppendPattern(const char* text, size_t layer, char* name, size_t* len) {
  for (const char* p = text; *p != '\0'; ++p) {
    if (p[0] == '{' && p[1] == 'i' && p[2] == '}') {
      char digits[24];
      size_t n = 0;
      size_t v = layer;
      do {
        digits[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
      } while (v != 0);
      while (n > 0) {
        if (*len + 1 >= kMaxTensorName) return false;
        name[(*len)++] = digits[--n];
      }
      p += 2;
      continue;
    }
    if (*len + 1 >= kMaxTensorName) return false;
    name[(*len)++] = *p;
  }
  name[*len] = '\0';
  return true;
}

size_t DimValue(const ModelConfig& c, Dim d) {
  switch (d) {
    case Dim::kModel: return c.model_dim;
    case Dim::kModel3: return 3 * c.model_dim;
    case Dim::kQkAll: return c.heads * c.qk_dim;
    case Dim::kVAll: return c.heads * c.v_dim;
    case Dim::kKvAll: return c.kv_heads * c.qk_dim;
    case Dim::kVocab: return c.vocab_size;
    case Dim::kFf: return c.ff_dim;
    case Dim::kOut: return c.out_dim;
    case Dim::kTokens: return VitTokens(c);
    case Dim::kChannels: return c.channels;
    case Dim::kPatch: return c.patch_size;
    case Dim::kHeadDim: return c.qk_dim;
    case Dim::kMaxSeq: return c.max_seq_len;
    case Dim::kOne: return 1;
  }
  return 0;
}

bool Present(const ModelConfig& c, When when) {
  switch (when) {
    case When::kAlways: return true;
    case When::kBias: return c.bias;
    case When::kFinalNorm: return c.final_norm;
    case When::kFinalNormBias: return c.final_norm && c.bias;
    case When::kOptional: return true;
  }
  return false;
}

const char* PresentWhen(When when) {
  switch (when) {
    case When::kAlways: return "always";
    case When::kBias: return "bias";
    case When::kFinalNorm: return "final_norm";
    case When::kFinalNormBias: return "final_norm and bias";
    case When::kOptional: return "optional";
  }
  return "always";
}

}  // namespace

const char* ArchitectureLayerPrefix(Architecture arch) { return RecordFor(arch).layer_prefix; }

const char* ArchitectureHfLayerPrefix(Architecture arch) {
  return RecordFor(arch).hf_layer_prefix;
}

size_t ArchitectureTensorPatternCount(Architecture arch) {
  const ArchitectureRecord& r = RecordFor(arch);
  return r.layer_tensor_count + r.model_tensor_count;
}

bool ArchitectureTensorPatternAt(Architecture arch, size_t i, TensorPattern* pattern) {
  const ArchitectureRecord& r = RecordFor(arch);
  pattern->per_layer = i < r.layer_tensor_count;
  const TensorRecord* t = nullptr;
  if (pattern->per_layer) {
    t = &r.layer_tensors[i];
  } else if (i - r.layer_tensor_count < r.model_tensor_count) {
    t = &r.model_tensors[i - r.layer_tensor_count];
  }
  if (t == nullptr) return false;
  pattern->name = t->name;
  pattern->present_when = PresentWhen(t->when);
  pattern->hf_name = t->hf_name;
  return true;
}

bool ModelTensorEntryAt(const ModelConfig& c, size_t i, TensorEntry* entry) {
  const ArchitectureRecord& r = RecordFor(c.arch);
  for (size_t layer = 0; layer < c.num_layers; ++layer) {
    for (size_t t = 0; t < r.layer_tensor_count; ++t) {
      if (!Present(c, r.layer_tensors[t].when)) continue;
      if (i-- != 0) continue;
      entry->record = &r.layer_tensors[t];
      entry->layer = layer;
      entry->per_layer = true;
      return true;
    }
  }
  for (size_t t = 0; t < r.model_tensor_count; ++t) {
    if (!Present(c, r.model_tensors[t].when)) continue;
    if (i-- != 0) continue;
    entry->record = &r.model_tensors[t];
    entry->layer = 0;
    entry->per_layer = false;
    return true;
  }
  return false;
}

size_t ModelTensorCount(const ModelConfig& c) {
  TensorEntry entry;
  size_t n = 0;
  while (ModelTensorEntryAt(c, n, &entry)) ++n;
  return n;
}

bool ModelTensorAt(const ModelConfig& c, size_t i, TensorSpec* spec) {
  TensorEntry e;
  if (!ModelTensorEntryAt(c, i, &e)) return false;
  size_t len = 0;
  spec->name[0] = '\0';
  if (e.per_layer && !AppendPattern(RecordFor(c.arch).layer_prefix, e.layer, spec->name, &len)) {
    return false;
  }
  if (!AppendPattern(e.record->name, e.layer, spec->name, &len)) return false;
  const ArchitectureRecord& r = RecordFor(c.arch);
  len = 0;
  spec->hf_name[0] = '\0';
  if (e.record->hf_name != nullptr && (!e.per_layer || r.hf_layer_prefix != nullptr) &&
      ((e.per_layer && !AppendPattern(r.hf_layer_prefix, e.layer, spec->hf_name, &len)) ||
       !AppendPattern(e.record->hf_name, e.layer, spec->hf_name, &len))) {
    return false;
  }
  spec->optional = e.record->when == When::kOptional;
  spec->matrix = SlotIsMatrix(e.record->slot);
  spec->role = SlotRole(e.record->slot);
  spec->layer = e.per_layer ? e.layer : 0;
  spec->shape = TensorShape{};
  spec->shape.rank = e.record->rank;
  for (size_t d = 0; d < e.record->rank; ++d) spec->shape.dims[d] = DimValue(c, e.record->dims[d]);
  return true;
}

}  // namespace attnrt

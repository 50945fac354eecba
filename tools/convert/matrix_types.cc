// Per-class weight types for the converter (see matrix_types.h).
#include "convert/matrix_types.h"

#include "attnrt/models/model_spec.h"
#include "attnrt/runtime/checked_math.h"
#include "convert/tensor_encoding.h"

namespace attnrt {
namespace {

constexpr const char* kClassNames[kMatrixClassCount] = {"embed", "output", "attn",
                                                        "attn_v", "ffn",   "ffn_down"};

const char* ClassName(MatrixClass c) { return kClassNames[static_cast<size_t>(c)]; }

bool Fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

// The classes of a matrix, narrowest first (at most two).
struct Classes {
  MatrixClass at[2];
  size_t count = 0;
};

Classes ClassesOf(MatrixRole role, bool output_tied) {
  Classes c;
  const auto add = [&c](MatrixClass k) { c.at[c.count++] = k; };
  switch (role) {
    case MatrixRole::kEmbedding:
      add(MatrixClass::kEmbed);
      if (output_tied) add(MatrixClass::kOutput);
      break;
    case MatrixRole::kOutput: add(MatrixClass::kOutput); break;
    case MatrixRole::kAttentionValue: add(MatrixClass::kAttnV); add(MatrixClass::kAttn); break;
    case MatrixRole::kAttention: add(MatrixClass::kAttn); break;
    case MatrixRole::kMlpDown: add(MatrixClass::kFfnDown); add(MatrixClass::kFfn); break;
    case MatrixRole::kMlp: add(MatrixClass::kFfn); break;
    case MatrixRole::kNone: break;
  }
  return c;
}

// llama.cpp's use_more_bits: the first and last eighth of the layers and every third between.
bool UseMoreBits(size_t layer, size_t layers) {
  return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

// q4_K_M's type for a matrix (see matrix_types.h).
WeightType Q4_K_MType(const TensorSpec& spec, size_t layers, bool output_tied) {
  const bool output = spec.role == MatrixRole::kOutput ||
                      (spec.role == MatrixRole::kEmbedding && output_tied);
  const bool raised = (spec.role == MatrixRole::kAttentionValue ||
                       spec.role == MatrixRole::kMlpDown) && UseMoreBits(spec.layer, layers);
  return output || raised ? WeightType::kQ6_K : WeightType::kQ4_K;
}

// The option that asked for a matrix's type, for messages.
struct Choice {
  TensorStorage storage;
  std::string asked_by;  // "--dtype-for attn=q4_K", "--dtype q4_K_M", ...
};

Choice Choose(const MatrixTypeRequest& r, const TensorSpec& spec, const Classes& classes,
              size_t layers, bool output_tied) {
  Choice c;
  for (size_t i = 0; i < classes.count; ++i) {
    const size_t k = static_cast<size_t>(classes.at[i]);
    if (r.named[k]) {
      c.storage.type = r.class_type[k];
      c.asked_by = std::string("--dtype-for ") + kClassNames[k] + "=" +
                   WeightTypeName(c.storage.type);
      return c;
    }
  }
  if (r.q4_K_M) {
    c.storage.type = Q4_K_MType(spec, layers, output_tied);
    c.asked_by = std::string("--dtype ") + kQ4_K_MPreset;
  } else if (r.has_default) {
    c.storage.type = r.default_type;
    c.asked_by = std::string("--dtype ") + WeightTypeName(r.default_type);
  } else {
    c.storage.keep = true;
  }
  return c;
}

// The matrix view of the weight file: dims[0] rows of the product of the rest; false when
// that product overflows (the writer then refuses the tensor by name).
bool RowWidth(const TensorShape& shape, size_t* cols) {
  const size_t first = shape.rank >= 2 ? 1 : 0;
  return CheckedProduct(shape.dims + first, shape.rank - first, cols);
}

}  // namespace

std::string MatrixClassNames() {
  std::string names;
  for (const char* n : kClassNames) names += (names.empty() ? "" : ", ") + std::string(n);
  return names;
}

MatrixTypeRequest AllMatricesAs(WeightType type) {
  MatrixTypeRequest r;
  r.has_default = true;
  r.default_type = type;
  return r;
}

std::string DescribeRequest(const MatrixTypeRequest& r) {
  std::string text = r.q4_K_M        ? std::string(kQ4_K_MPreset)
                     : r.has_default ? std::string(WeightTypeName(r.default_type))
                                     : std::string("f32");
  std::string classes;
  for (size_t k = 0; k < kMatrixClassCount; ++k) {
    if (!r.named[k]) continue;
    classes += (classes.empty() ? "; " : ", ") + std::string(kClassNames[k]) + " " +
               WeightTypeName(r.class_type[k]);
  }
  return text + classes;
}

bool SetDtype(const std::string& value, MatrixTypeRequest* request, std::string* error) {
  if (value == kQ4_K_MPreset) {
    request->q4_K_M = true;
    return true;
  }
  if (!ParseWeightType(value.c_str(), &request->default_type)) {
    return Fail(error, "--dtype " + value + " is neither a weight type (" + WeightTypeNames() +
                           ") nor the preset " + kQ4_K_MPreset);
  }
  request->has_default = true;
  return true;
}

bool AddDtypeFor(const std::string& arg, MatrixTypeRequest* request, std::string* error) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos) {
    return Fail(error, "--dtype-for " + arg + " is not CLASS=TYPE (classes: " +
                           MatrixClassNames() + ")");
  }
  const std::string name = arg.substr(0, eq), type = arg.substr(eq + 1);
  size_t k = 0;
  while (k < kMatrixClassCount && name != kClassNames[k]) ++k;
  if (k == kMatrixClassCount) {
    return Fail(error, "--dtype-for " + arg + ": '" + name + "' is not a tensor class (" +
                           MatrixClassNames() + ")");
  }
  WeightType t;
  if (!ParseWeightType(type.c_str(), &t)) {
    return Fail(error, "--dtype-for " + arg + ": '" + type + "' is not a weight type (" +
                           WeightTypeNames() + ")");
  }
  if (request->named[k]) {
    return Fail(error, "--dtype-for names class " + name + " twice (" + name + "=" +
                           WeightTypeName(request->class_type[k]) + ", " + arg + ")");
  }
  request->named[k] = true;
  request->class_type[k] = t;
  return true;
}

bool ChooseTensorStorage(const MatrixTypeRequest& request, const ModelConfig& config,
                         bool output_tied, std::vector<TensorStorage>* storage,
                         std::string* error) {
  storage->clear();
  bool used[kMatrixClassCount] = {};
  const size_t n = ModelTensorCount(config);
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec)) {
      return Fail(error, "internal: tensor " + std::to_string(i) + " of the architecture has no name");
    }
    storage->push_back(TensorStorage{});
    const bool absent = output_tied && spec.optional && spec.role == MatrixRole::kOutput;
    if (!spec.matrix || absent) continue;
    const Classes classes = ClassesOf(spec.role, output_tied);
    for (size_t c = 0; c < classes.count; ++c) used[static_cast<size_t>(classes.at[c])] = true;
    const Choice choice = Choose(request, spec, classes, config.num_layers, output_tied);
    storage->back() = choice.storage;
    if (choice.storage.keep) continue;
    const WeightTypeInfo& info = *FindWeightType(choice.storage.type);
    size_t cols = 0;
    if (RowWidth(spec.shape, &cols) && !RowWidthIsStorable(info, cols)) {
      const std::string cls = ClassName(classes.at[0]);
      return Fail(error, "tensor '" + std::string(spec.name) + "' (class " + cls +
                             "): rows of " + std::to_string(cols) + " values are not whole " +
                             info.name + " blocks of " + std::to_string(info.block) +
                             " values, as " + choice.asked_by +
                             " asks (GGUF's k-quants store no short block); give the class "
                             "another type, e.g. --dtype-for " + cls + "=q8");
    }
  }
  for (size_t k = 0; k < kMatrixClassCount; ++k) {
    if (request.named[k] && !used[k]) {
      std::string here;
      for (size_t j = 0; j < kMatrixClassCount; ++j) {
        if (used[j]) here += (here.empty() ? "" : ", ") + std::string(kClassNames[j]);
      }
      return Fail(error, std::string("--dtype-for ") + kClassNames[k] + "=" +
                             WeightTypeName(request.class_type[k]) + ": this " +
                             ArchitectureName(config.arch) + " model has no matrix of class " +
                             kClassNames[k] + " (its classes: " + here + ")");
    }
  }
  return true;
}

}  // namespace attnrt

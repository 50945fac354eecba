// The four architectures attnrt runs and their hyperparameters.
//
// Config keys are the PyTorch constructor arguments, so a config.json written
// for torch converts as is. The same key list drives the converter (which
// rejects unknown keys and fills defaults) and the runtime loader (which reads
// the keys back from the weight file's metadata): one source of truth.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/runtime/status.h"

namespace attnrt {

class WeightFile;

enum class Architecture : uint8_t {
  kMha,            // torch.nn.MultiheadAttention(batch_first=True)
  kEncoderLayer,   // torch.nn.TransformerEncoderLayer(batch_first=True), eval mode
  kSelfAttention,  // seed 003 SelfAttention: bias-free W_q, W_k, W_v, W_o
  kSingleHead,     // seed 001 SingleHeadAttention: bias-free projections, always causal
};

enum class Activation : uint8_t { kRelu, kGelu };

enum class ConfigType : uint8_t { kInt, kFloat, kBool, kString };

// One accepted config key; `required` keys have no default.
struct ConfigKey {
  const char* name;
  ConfigType type;
  bool required;
  double default_number;       // for kInt / kFloat / kBool
  const char* default_string;  // for kString
};

struct ModelConfig {
  Architecture arch = Architecture::kMha;
  size_t model_dim = 0;   // embed_dim / d_model / embedding_dim: width of x and y
  size_t heads = 1;
  size_t qk_dim = 0;      // per head
  size_t v_dim = 0;       // per head
  size_t out_dim = 0;     // width of y
  size_t ff_dim = 0;      // encoder-layer feed-forward width
  bool bias = false;
  bool norm_first = false;
  bool always_causal = false;
  Activation activation = Activation::kRelu;
  float layer_norm_eps = 1e-5f;
};

// "mha", "encoder-layer", "self-attention", "single-head".
const char* ArchitectureName(Architecture arch);
Status ParseArchitecture(const char* name, Architecture* arch);

// The keys an architecture accepts; *count receives their number.
const ConfigKey* ArchitectureConfigKeys(Architecture arch, size_t* count);

// Reads the architecture and every config key from a weight file's metadata
// and derives the model's dimensions, checking them (e.g. heads divide embed_dim).
Status ReadModelConfig(const WeightFile& file, ModelConfig* config);

}  // namespace attnrt

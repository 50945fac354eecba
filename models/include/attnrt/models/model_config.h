// The architectures attnrt runs and their hyperparameters.
//
// Config keys are the PyTorch constructor arguments, so a config.json written
// for torch converts as is. Each architecture is described once, in its record
// (models/src/arch_*.cc): config keys with defaults and checks, tensors with
// their state_dict names and shapes, and the forward pass. The converter, the
// loader, `inspect` and the forward pass all read that record.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/rope.h"
#include "attnrt/kernels/sdpa_params.h"
#include "attnrt/runtime/status.h"

namespace attnrt {

class WeightFile;

enum class Architecture : uint8_t {
#define ATTNRT_ARCHITECTURE(enumerator, name, record) enumerator,
#include "attnrt/models/architectures.inc"
#undef ATTNRT_ARCHITECTURE
};

enum class Activation : uint8_t { kRelu, kGelu, kGeluTanh };

enum class ConfigType : uint8_t { kInt, kFloat, kBool, kString };

// One accepted config key. `required` keys have no default. A `fixed` key is
// accepted only at its default value: PyTorch has the option, attnrt does not
// implement the others, and a config that sets them is refused by name.
struct ConfigKey {
  const char* name;
  ConfigType type;
  bool required;
  double default_number;       // for kInt / kFloat / kBool; kInt -1: "same as the first key"
  // For kString. For an int key, "null": the default is None, and an absent (or
  // null) key is not recorded in the weight file; with `fixed`, only null is accepted.
  const char* default_string;
  bool fixed = false;
  // The key's name in a Hugging Face config.json of the family (e.g. "hidden_size"
  // for llama's "dim"), for importers; nullptr where the family has none.
  const char* hf_name = nullptr;
};

// True when the key's default is None: an absent (or null) key is not recorded in
// the weight file and the reader treats it as "not set". An int or float key says so
// with default_string "null", a string key with no default_string.
inline bool KeyDefaultIsNone(const ConfigKey& k) {
  return k.type == ConfigType::kString ? k.default_string == nullptr
                                       : k.type != ConfigType::kBool && k.default_string != nullptr;
}

struct ModelConfig {
  Architecture arch = Architecture::kMha;
  size_t model_dim = 0;   // embed_dim / d_model / hidden_dim: width of a token
  size_t heads = 1;
  size_t kv_heads = 1;    // key/value heads (grouped-query attention); == heads except llama
  size_t qk_dim = 0;      // per head
  size_t v_dim = 0;       // per head
  size_t out_dim = 0;     // width of an output row (num_classes for vit)
  size_t ff_dim = 0;      // feed-forward width (dim_feedforward / mlp_dim)
  size_t num_layers = 1;
  bool bias = false;
  bool norm_first = false;
  bool batch_first = true;        // false: input and output are (seq, batch, dim)
  CausalKind causal = CausalKind::kNone;  // stored in the model, applied without a flag
  Activation activation = Activation::kRelu;
  float layer_norm_eps = 1e-5f;
  bool final_norm = false;        // encoder: a final LayerNorm `norm.*`
  float final_norm_eps = 1e-5f;
  // vit: (batch, channels, image_size, image_size) images cut into patch_size squares.
  size_t image_size = 0;
  size_t patch_size = 0;
  size_t channels = 0;
  // llama: token ids in [0, vocab_size) -> logits (out_dim == vocab_size); RMSNorm
  // with layer_norm_eps; RoPE; positions up to max_seq_len.
  size_t vocab_size = 0;
  size_t max_seq_len = 0;
  double rope_theta = 10000.0;
  RopeStyle rope_style = RopeStyle::kInterleaved;
  // RoPE's stretching to long contexts (rope_scaling), the dims of each head it
  // rotates (Phi-3's partial_rotary_factor: the first rotary_dim, the rest pass
  // through; == qk_dim unless set) and Gemma 3's theta of its sliding-window layers
  // (0: rope_theta; those layers are not scaled).
  RopeScaling rope_scaling;
  size_t rotary_dim = 0;
  double rope_local_theta = 0.0;
  // llama: Mistral's sliding window W: a query attends to itself and the W - 1
  // positions before it. 0: no window (full causal attention). window_layers: bit l
  // set when layer l attends within the window (every layer unless the family has a
  // per-layer pattern, as Gemma 3's layer_types).
  size_t sliding_window = 0;
  uint64_t window_layers = 0;
  // Language models: the attention score scale (0: 1/sqrt(qk_dim)) and the tanh
  // softcap C of the scores, C * tanh(s / C) (0: none), for families that set them.
  float attention_scale = 0.0f;
  float attention_softcap = 0.0f;
};

// Longest layer stack a model may have (Model holds one LayerWeights per layer).
constexpr size_t kMaxLayers = 32;

static_assert(kMaxLayers <= 64, "window_layers holds one bit per layer");

// window_layers with every one of n layers (1 <= n <= 64) set.
constexpr uint64_t AllLayers(size_t n) { return ~uint64_t{0} >> (64 - n); }

// The architecture's name in architectures.inc ("mha", "llama", ...).
const char* ArchitectureName(Architecture arch);
// The PyTorch module an architecture reproduces, for messages and help.
const char* ArchitectureModule(Architecture arch);
Status ParseArchitecture(const char* name, Architecture* arch);
// True for image models (vit): input (batch, channels, H, W) instead of token rows.
bool ArchitectureTakesImages(Architecture arch);
// True for language models (llama): token ids in, logits out, run through
// language_model.h (a KV cache in the arena) instead of RunModel.
bool ArchitectureIsLanguageModel(Architecture arch);
// Every architecture name, comma separated, for help texts.
const char* ArchitectureNames();
size_t ArchitectureCount();
Architecture ArchitectureAt(size_t i);

// The keys an architecture accepts; *count receives their number.
const ConfigKey* ArchitectureConfigKeys(Architecture arch, size_t* count);

// Reads the architecture and every config key from a weight file's metadata
// and derives the model's dimensions, checking them (e.g. heads divide embed_dim).
Status ReadModelConfig(const WeightFile& file, ModelConfig* config);

}  // namespace attnrt

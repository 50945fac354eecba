// How a decoder-only language-model family computes: the recipe its record
// (architecture_record.h) hands the one forward pass (language_model.cc), so a
// family is data, not a fork of that pass. The kinds are the ways the published
// families differ (Llama, Mistral, Qwen2/3, Gemma 3, Phi-3, GPT-2); the numbers
// that go with them (eps, rope theta, window, scales) are the model's, in
// ModelConfig, read from its config by the record.
//
// A kind the forward pass does not run yet is refused by name before a session
// starts (UnsupportedRecipeStep), never run approximately.
#pragma once

#include <cstdint>

namespace attnrt {

enum class NormKind : uint8_t {
  kRms,         // x / rms(x) * w (Llama, Qwen, Mistral, Phi-3)
  kRmsOnePlus,  // x / rms(x) * (1 + w) (Gemma)
  kLayerNorm,   // (x - mean) / std * w + b (GPT-2)
};

enum class MlpKind : uint8_t {
  kSwiGlu,     // down(silu(gate x) * up x): ff1 = gate, ff3 = up, ff2 = down
  kGeGluTanh,  // down(gelu_tanh(gate x) * up x) (Gemma)
  kGeluTanh,   // ff2(gelu_tanh(ff1 x)) (GPT-2's gelu_new)
  kGeluErf,    // ff2(gelu(ff1 x)), the exact erf GELU
};

enum class PositionKind : uint8_t {
  kRope,     // rotary, style and theta in ModelConfig
  kLearned,  // a (max_seq_len, dim) table added to the embeddings (GPT-2's wpe)
};

enum class ResidualKind : uint8_t {
  kPreNorm,   // x += attn(norm1 x); x += mlp(norm2 x)
  kSandwich,  // x += post_norm1(attn(norm1 x)); x += post_norm2(mlp(norm2 x)) (Gemma)
};

enum class EmbeddingScale : uint8_t {
  kNone,
  kSqrtDim,  // embeddings times sqrt(dim) (Gemma)
};

struct LmRecipe {
  NormKind norm = NormKind::kRms;
  MlpKind mlp = MlpKind::kSwiGlu;
  PositionKind position = PositionKind::kRope;
  ResidualKind residual = ResidualKind::kPreNorm;
  EmbeddingScale embedding_scale = EmbeddingScale::kNone;
  bool qk_norm = false;  // per-head RMSNorm of q and k before RoPE (Qwen3, Gemma 3)
};

// The name of the first step of `recipe` the forward pass cannot run yet (e.g.
// "norm rms(1+w)"), or nullptr when it runs all of them.
const char* UnsupportedRecipeStep(const LmRecipe& recipe);

}  // namespace attnrt

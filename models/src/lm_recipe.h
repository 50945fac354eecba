// How a decoder-only language-model family computes: the recipe its record
// (architecture_record.h) hands the one forward pass (language_model.cc), so a
// family is data, not a fork of that pass. The kinds are the ways the published
// families differ (Llama, Mistral, Qwen2/3, Gemma 3, Phi-3, GPT-2); the numbers
// that go with them (eps, rope theta, window, scales) are the model's, in
// ModelConfig, read from its config by the record.
// Gemma's RMSNorm with (1 + w) is not a kind: importers store 1 + w, as llama.cpp's
// converter does, and the plain RMSNorm runs it.
#pragma once

#include <cstdint>

namespace attnrt {

enum class NormKind : uint8_t {
  kRms,         // x / rms(x) * w (Llama, Qwen, Mistral, Phi-3)
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

}  // namespace attnrt

// llama: a decoder-only Llama as Meta's reference code and llama2.c's model.py
// name it (tok_embeddings, layers.{i}.attention.{wq,wk,wv,wo},
// feed_forward.{w1,w2,w3}, attention_norm / ffn_norm / norm, output). RMSNorm,
// RoPE (interleaved or half pairs), SwiGLU, grouped-query attention, causal, no
// biases. It runs through language_model.h: tokens in, logits out, a KV cache in
// the arena; the record has no batch forward of float rows.
#include "arch_llama.h"

namespace attnrt {

namespace {

constexpr TensorRecord kLlamaLayerTensors[] = {ATTNRT_LLAMA_LAYER_TENSORS};

}  // namespace

const LmRecipe kLlamaRecipe = {NormKind::kRms, MlpKind::kSwiGlu, PositionKind::kRope,
                               ResidualKind::kPreNorm, EmbeddingScale::kNone, false};

const ArchitectureRecord kLlamaRecord =
    DecoderRecord("Llama (Meta reference / llama2.c Transformer)", kLlamaKeys,
                  kLlamaLayerTensors, &kLlamaRecipe);

}  // namespace attnrt

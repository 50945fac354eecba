// Builds small converted models in memory (random weights, every architecture)
// for the model tests, through the same writer the converter uses.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attnrt/models/model.h"
#include "attnrt/models/model_spec.h"
#include "convert/weight_file_writer.h"

namespace attnrt::testing {

struct ModelFixture {
  std::vector<uint8_t> bytes;  // the flat weight file
  WeightFile file;
  Model model;
};

// The keys of a small nn.TransformerEncoderLayer (also each layer of the encoder).
inline void SetEncoderLayerConfig(const char* activation, bool bias, bool norm_first,
                                  WeightFileWriter* w) {
  w->SetInt("d_model", 24);
  w->SetInt("nhead", 2);
  w->SetInt("dim_feedforward", 40);
  w->SetString("activation", activation);
  w->SetFloat("layer_norm_eps", 1e-5);
  w->SetInt("norm_first", norm_first);
  w->SetInt("bias", bias);
  w->SetFloat("dropout", 0);
  w->SetInt("batch_first", 1);
}

// The sizes every small decoder of the fixture shares (dim 24, 2 layers, 4 heads, vocab 37,
// hidden 40, max_seq_len 48).
inline void SetDecoderSizes(WeightFileWriter* w) {
  w->SetInt("dim", 24);
  w->SetInt("n_layers", 2);
  w->SetInt("n_heads", 4);
  w->SetInt("vocab_size", 37);
  w->SetInt("hidden_dim", 40);
  w->SetFloat("norm_eps", 1e-5);
  w->SetInt("max_seq_len", 48);
}

// Every key but "arch" of a small grouped-query llama (2 kv heads); `half_rope` picks the
// half RoPE style.
inline void SetLlamaConfig(bool half_rope, WeightFileWriter* w) {
  SetDecoderSizes(w);
  w->SetInt("n_kv_heads", 2);
  w->SetFloat("rope_theta", 10000);
  w->SetString("rope_style", half_rope ? "half" : "interleaved");
  w->SetInt("multiple_of", 256);
  w->SetFloat("dropout", 0);
}

// `arch` with small dimensions; `bias` and `norm_first` vary the encoder layer
// (for llama: an untied output matrix, and the half RoPE style; sliding_window,
// when not 0, is recorded for llama). Weight matrices and embedding tables are stored as
// `matrix_type` (the rest f32, as the converter stores them).
inline bool MakeModel(Architecture arch, bool bias, bool norm_first, ModelFixture* out,
                      std::string* error, size_t sliding_window = 0,
                      WeightType matrix_type = WeightType::kF32) {
  WeightFileWriter w;
  w.SetString("arch", ArchitectureName(arch));
  switch (arch) {
    case Architecture::kMha:
      w.SetInt("embed_dim", 24);
      w.SetInt("num_heads", 3);
      w.SetInt("bias", bias);
      w.SetFloat("dropout", 0);
      w.SetInt("batch_first", 1);
      break;
    case Architecture::kEncoderLayer:
      SetEncoderLayerConfig("gelu", bias, norm_first, &w);
      break;
    case Architecture::kSelfAttention:
      w.SetInt("d_model", 20);
      w.SetInt("d_k", 12);
      w.SetInt("d_v", 7);
      break;
    case Architecture::kSingleHead:
      w.SetInt("embedding_dim", 20);
      w.SetInt("attention_dim", 9);
      break;
    case Architecture::kEncoder:  // a stack of the layer above, with the other activation
      SetEncoderLayerConfig("relu", bias, norm_first, &w);
      w.SetInt("num_layers", 3);
      w.SetInt("final_norm", 1);
      w.SetFloat("final_norm_eps", 1e-5);
      break;
    case Architecture::kVit:
      w.SetInt("image_size", 16);
      w.SetInt("patch_size", 4);
      w.SetInt("num_layers", 2);
      w.SetInt("num_heads", 2);
      w.SetInt("hidden_dim", 16);
      w.SetInt("mlp_dim", 24);
      w.SetFloat("dropout", 0);
      w.SetFloat("attention_dropout", 0);
      w.SetInt("num_classes", 5);
      break;
    case Architecture::kLlama:  // `bias`: untied output
    case Architecture::kQwen2:
    case Architecture::kQwen3:
      SetLlamaConfig(/*half_rope=*/norm_first, &w);
      if (sliding_window != 0) w.SetInt("sliding_window", static_cast<int64_t>(sliding_window));
      break;
    case Architecture::kGemma3:  // a sliding layer (W 5, its own theta), then a global one
      SetLlamaConfig(/*half_rope=*/true, &w);
      w.SetInt("head_dim", 8);  // heads * head_dim (32) is not dim (24)
      w.SetInt("sliding_window", 5);
      w.SetString("layer_types", "sliding_attention,full_attention");
      w.SetFloat("rope_local_theta", 500);
      w.SetFloat("query_pre_attn_scalar", 10);
      break;
    case Architecture::kGpt2:
      SetDecoderSizes(&w);
      break;
  }
  // Derive the tensor list from a metadata-only file, as the converter does.
  std::vector<uint8_t> meta;
  WeightFile meta_file;
  ModelConfig config;
  if (!w.Serialize(&meta, error)) return false;
  if (!WeightFile::Open(meta.data(), meta.size(), &meta_file).ok() ||
      !ReadModelConfig(meta_file, &config).ok()) {
    *error = "bad fixture config";
    return false;
  }
  const size_t n = ModelTensorCount(config);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  for (size_t i = 0; i < n; ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec)) return false;
    if (spec.optional && !bias) continue;  // llama: tied output
    const TensorShape& s = spec.shape;
    std::vector<size_t> shape(s.dims, s.dims + s.rank);
    size_t count = 1;
    for (size_t d : shape) count *= d;
    std::vector<float> values(count);
    for (float& v : values) v = normal(rng);
    const WeightType type = spec.matrix ? matrix_type : WeightType::kF32;
    if (!w.AddTensor(spec.name, shape, values.data(), type, error)) return false;
  }
  if (!w.Serialize(&out->bytes, error)) return false;
  Status st = WeightFile::Open(out->bytes.data(), out->bytes.size(), &out->file);
  if (st.ok()) st = LoadModel(out->file, &out->model);
  if (!st.ok()) *error = st.message();
  return st.ok();
}

}  // namespace attnrt::testing

// The GGUF architectures attnrt imports (general.architecture), as data: the attnrt
// record each becomes, how llama.cpp's keys under "<arch>." and its tensor names map
// onto the record's, and what is fused in the file. Learned from llama.cpp's loader and
// graphs (src/models/<arch>.cpp) and converter (convert_hf_to_gguf.py):
// - llama: RoPE on adjacent pairs (llama.cpp's converter permuted Hugging Face q and k
//   for it), so the record's rope_style "interleaved" reads the file as it is; Llama 3.1
//   scaling is a rope_freqs tensor of per-pair divisors;
// - qwen2, qwen3, gemma3, phi3: NEOX RoPE (rotate_half): rope_style "half";
// - gemma3 stores 1 + w in its norms already; phi3 keeps q|k|v and gate|up fused;
// - gpt2 stores (out, in) matrices with q|k|v fused.
// Host-only (tools layer).
#pragma once

#include <cstddef>
#include <string>

#include "attnrt/models/model_config.h"

namespace attnrt {

// A key under "<arch>." the family knows: `ours` is the record key it is copied to, or
// nullptr when the importer's config step reads it (checks, derived keys, or a key
// llama.cpp reads and that attnrt accepts only at values that do not change the math).
struct GgufKeyRule {
  const char* key;
  const char* ours;
};

// A tensor name in the file (per-layer names after "blk.N.") and the record's name for
// it (per-layer names after the record's layer prefix).
struct GgufTensorRule {
  const char* gguf;
  const char* ours;
};

struct GgufFamily {
  const char* arch;     // general.architecture
  Architecture record;  // the attnrt record it becomes
  const char* rope_style;  // "interleaved" or "half"; nullptr without RoPE (gpt2)
  const GgufKeyRule* keys;
  size_t key_count;
  const GgufTensorRule* layer_tensors;
  size_t layer_tensor_count;
  const GgufTensorRule* model_tensors;
  size_t model_tensor_count;
  bool fused_gate_up;   // ffn_up holds gate | up (phi3)
  bool sliding_window;  // <arch>.attention.sliding_window is the record's window (llama)
};

// The family of a general.architecture value, or nullptr.
const GgufFamily* FindGgufFamily(const std::string& arch);
// Every supported general.architecture, comma separated, for messages.
std::string GgufFamilyNames();

// Keys every family knows (the common hyper-parameters), searched after the family's own.
extern const GgufKeyRule kGgufCommonKeys[];
extern const size_t kGgufCommonKeyCount;

}  // namespace attnrt

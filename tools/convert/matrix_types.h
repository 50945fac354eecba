// Which weight type each matrix of a model is stored in, as `attnrt convert` is asked:
//   --dtype TYPE            every matrix no class below names (a weight type, or the preset
//                           q4_K_M: llama.cpp's Q4_K_M mix)
//   --dtype-for CLASS=TYPE  the matrices of one class (repeatable, each class once)
// Norms, biases and the other vectors stay f32 whatever is asked.
//
// Classes (MatrixRole of model_spec.h, grouped):
//   embed     the token embedding table, ViT's patch projection
//   output    a language model's output layer, a classifier's head
//   attn      every attention projection: q, k, v, o, the stacked in_proj
//   attn_v    the separate v projection (also in attn)
//   ffn       every MLP projection: gate, up, down
//   ffn_down  the MLP's down projection (also in ffn)
// A model whose output layer is its token embedding (tied) stores one table, of class embed
// and output both.
//
// Per matrix the first that applies wins: its narrow class named (attn_v, ffn_down), its wide
// class (attn, ffn; embed, then output for a tied table), the q4_K_M rule, the --dtype type.
// Where none applies (a GGUF file without --dtype) the matrix keeps the file's type.
//
// q4_K_M, as llama.cpp's llama_tensor_get_type picks for a dense model: q6_K for the output
// layer (the token embedding when tied) and for attn_v and ffn_down in layers i < n/8,
// i >= 7n/8 and every third between ((i - n/8) % 3 == 2), about half of n layers; q4_K for
// every other matrix. Where llama.cpp differs: it stores a fused qkv as Q5_K (attnrt has no
// q5_K: a stacked in_proj is q4_K) and falls back to another type for rows that are not whole
// 256-value blocks, which attnrt refuses by name instead.
//
// No file I/O, no printing (the convert fuzzers drive the importers that call this).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnrt/kernels/weight_type.h"
#include "attnrt/models/model_config.h"

namespace attnrt {

enum class MatrixClass : uint8_t { kEmbed, kOutput, kAttn, kAttnV, kFfn, kFfnDown };
inline constexpr size_t kMatrixClassCount = 6;

// "embed, output, attn, attn_v, ffn, ffn_down", for help texts and messages.
std::string MatrixClassNames();

// The preset --dtype accepts beside the weight types.
inline constexpr const char kQ4_K_MPreset[] = "q4_K_M";

struct MatrixTypeRequest {
  bool has_default = false;  // --dtype TYPE was given
  WeightType default_type = WeightType::kF32;
  bool q4_K_M = false;  // --dtype q4_K_M was given
  bool named[kMatrixClassCount] = {};
  WeightType class_type[kMatrixClassCount] = {};
};

// What `--dtype TYPE` alone asks: every matrix as `type`.
MatrixTypeRequest AllMatricesAs(WeightType type);

// --dtype VALUE: a weight type's name or the preset's.
bool SetDtype(const std::string& value, MatrixTypeRequest* request, std::string* error);

// --dtype-for CLASS=TYPE; refuses an unknown class or type and a class given twice.
bool AddDtypeFor(const std::string& arg, MatrixTypeRequest* request, std::string* error);

// "q4_K", "q4_K_M", "f32; attn_v q6_K, ffn q8": the request in words, for the command's
// summary line ("f32" where nothing was asked: the inputs other than GGUF default to it).
std::string DescribeRequest(const MatrixTypeRequest& request);

// How one tensor of the model is stored.
struct TensorStorage {
  bool keep = false;  // the matrix keeps the input's type (only where nothing was asked)
  WeightType type = WeightType::kF32;
};

// The storage of every tensor of the model, in ModelTensorAt order: f32 for vectors, the
// request's type (or keep) for matrices. `output_tied`: the model has no output matrix of its
// own (it reads the token embedding); the optional output tensor then gets an entry no one
// reads. Refuses by name a class no matrix of this model is in, and a matrix whose rows its
// type cannot hold (naming the tensor, its class and the option that chose the type).
bool ChooseTensorStorage(const MatrixTypeRequest& request, const ModelConfig& config,
                         bool output_tied, std::vector<TensorStorage>* storage,
                         std::string* error);

}  // namespace attnrt

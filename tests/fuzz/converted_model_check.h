// What the fuzzers of `attnrt convert` (convert_input, gguf_input) require of a conversion that
// succeeded: the file serializes, the runtime opens it and loads it as a model whose config is
// the one the conversion derived. A violation aborts, naming the fuzzer, the check and a detail.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnrt/models/model.h"
#include "attnrt/runtime/weight_file.h"
#include "convert/weight_file_writer.h"

namespace attnrt::fuzz {

[[noreturn]] inline void Die(const char* fuzzer, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s: %s\n", fuzzer, what, detail.c_str());
  std::abort();
}

// The writer's file serialized into *bytes and opened by the runtime as *file.
inline void RequireOpens(const char* fuzzer, const WeightFileWriter& writer,
                         std::vector<uint8_t>* bytes, WeightFile* file) {
  std::string error;
  if (!writer.Serialize(bytes, &error)) Die(fuzzer, "a converted file does not serialize", error);
  const Status status = WeightFile::Open(bytes->data(), bytes->size(), file);
  if (!status.ok()) Die(fuzzer, "the runtime refuses a converted file", status.message());
}

inline void RequireLoadsAs(const char* fuzzer, const WeightFile& file, const ModelConfig& config) {
  Model model;
  const Status status = LoadModel(file, &model);
  if (!status.ok()) Die(fuzzer, "the runtime cannot load a converted model", status.message());
  const ModelConfig& got = model.config;
  const bool same = got.arch == config.arch && got.model_dim == config.model_dim &&
                    got.heads == config.heads && got.kv_heads == config.kv_heads &&
                    got.qk_dim == config.qk_dim && got.v_dim == config.v_dim &&
                    got.out_dim == config.out_dim && got.ff_dim == config.ff_dim &&
                    got.num_layers == config.num_layers && got.vocab_size == config.vocab_size &&
                    got.rotary_dim == config.rotary_dim &&
                    got.sliding_window == config.sliding_window &&
                    got.window_layers == config.window_layers;
  if (!same) {
    Die(fuzzer, "the loaded config differs from the derived one", ArchitectureName(config.arch));
  }
}

}  // namespace attnrt::fuzz

// Reading a Hugging Face model folder as save_pretrained writes it: its JSON files
// (hf_import.h's HfFolderFiles) and its weights, model.safetensors or the shards that
// model.safetensors.index.json lists, merged into one SafetensorsFile. Every file is
// untrusted input: the index must name each tensor once, in a shard of the folder that
// holds it, and each shard must hold only the tensors the index gives it.
// Host-only (tools layer).
#pragma once

#include <functional>
#include <string>

#include "convert/hf_import.h"
#include "host/safetensors.h"

namespace attnrt {

// True when `path` is a directory (convert's sign that it was given a folder).
bool IsDirectory(const std::string& path);

// config.json (required) and the other kept files that are present.
bool ReadHfFolderFiles(const std::string& dir, HfFolderFiles* out, std::string* error);

// The weights; `progress(i, n, path)` is called before shard i of n is read.
bool ReadHfCheckpoint(const std::string& dir, SafetensorsFile* out, std::string* error,
                      const std::function<void(size_t, size_t, const std::string&)>& progress);

}  // namespace attnrt

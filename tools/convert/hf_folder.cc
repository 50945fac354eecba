// See hf_folder.h.
#include "convert/hf_folder.h"

#include <sys/stat.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "host/json_config.h"
#include "host/regular_file.h"

namespace attnrt {
namespace {

using Json = nlohmann::json;

// Limits that keep a hostile folder from making convert read forever: a config and a
// generation config are small; Gemma 3's tokenizer.json is 33 MB.
constexpr size_t kMaxConfigBytes = size_t{1} << 20;
constexpr size_t kMaxTokenizerBytes = size_t{256} << 20;
constexpr size_t kMaxIndexBytes = size_t{64} << 20;

bool Fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// A shard name from the index: a file name in the folder, nothing that leaves it.
bool PlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

}  // namespace

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool ReadHfFolderFiles(const std::string& dir, HfFolderFiles* out, std::string* error) {
  out->dir = dir;
  out->texts.clear();
  for (size_t i = 0; i < kHfKeptFileCount; ++i) {
    const std::string name = kHfKeptFiles[i];
    const std::string path = dir + "/" + name;
    if (name != "config.json" && !Exists(path)) continue;
    if (name == "config.json" && !Exists(path)) {
      return Fail(error, dir + " is a folder without config.json: not a Hugging Face model "
                               "folder (or give a safetensors file with --config)");
    }
    const bool tokenizer = name == "tokenizer.json";
    std::string text;
    if (!ReadRegularFileText(path, tokenizer ? kMaxTokenizerBytes : kMaxConfigBytes,
                             "a JSON file", &text, error)) {
      return false;
    }
    // Kept byte for byte, but only valid JSON (a damaged tokenizer is refused now,
    // not when a user first asks for text).
    Json parsed;
    if (!ParseJson(text.data(), text.size(), path, 64, &parsed, error)) return false;
    out->texts[name] = std::move(text);
  }
  return true;
}

bool ReadHfCheckpoint(const std::string& dir, SafetensorsFile* out, std::string* error,
                      const std::function<void(size_t, size_t, const std::string&)>& progress) {
  out->tensors.clear();
  out->metadata.clear();
  const std::string single = dir + "/model.safetensors";
  const std::string index_path = dir + "/model.safetensors.index.json";
  if (!Exists(index_path)) {
    if (!Exists(single)) {
      return Fail(error, dir + ": no model.safetensors and no model.safetensors.index.json "
                               "(attnrt reads safetensors weights; pytorch_model.bin is not read)");
    }
    progress(0, 1, single);
    return ReadSafetensorsFile(single, out, error);
  }
  std::string text;
  Json index;
  if (!ReadRegularFileText(index_path, kMaxIndexBytes, "a JSON index", &text, error) ||
      !ParseJson(text.data(), text.size(), index_path, 8, &index, error)) {
    return false;
  }
  const auto map = index.find("weight_map");
  if (!index.is_object() || map == index.end() || !map->is_object()) {
    return Fail(error, index_path + ": must be an object with a \"weight_map\" object");
  }
  // shard file -> the tensors the index puts there
  std::map<std::string, std::set<std::string>> shards;
  for (const auto& item : map->items()) {
    if (!item.value().is_string() || !PlainFileName(item.value().get<std::string>())) {
      return Fail(error, index_path + ": weight_map entry '" + item.key() +
                             "' must name a file in the folder, got " + item.value().dump());
    }
    shards[item.value().get<std::string>()].insert(item.key());
  }
  if (shards.empty()) return Fail(error, index_path + ": weight_map lists no tensors");
  size_t i = 0;
  for (const auto& shard : shards) {
    const std::string path = dir + "/" + shard.first;
    if (!Exists(path)) {
      return Fail(error, index_path + ": shard '" + shard.first + "' (" +
                             std::to_string(shard.second.size()) + " tensors) is missing");
    }
    progress(i++, shards.size(), path);
    SafetensorsFile part;
    if (!ReadSafetensorsFile(path, &part, error)) return false;
    std::set<std::string> found;
    for (SafetensorsTensor& t : part.tensors) {
      if (shard.second.count(t.name) == 0) {
        return Fail(error, path + ": tensor '" + t.name + "' is not given to this shard by " +
                               "model.safetensors.index.json");
      }
      found.insert(t.name);
      out->tensors.push_back(std::move(t));
    }
    for (const std::string& name : shard.second) {
      if (found.count(name) == 0) {
        return Fail(error, path + ": missing tensor '" + name +
                               "' (model.safetensors.index.json puts it in this shard)");
      }
    }
  }
  return true;
}

}  // namespace attnrt

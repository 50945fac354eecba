// attnrt inspect: what a converted model file holds: architecture, config,
// tensors (name, dtype, shape, offset, bytes) and checksum status. With --json
// only one JSON object on stdout: file, file_bytes, format_version, alignment,
// checksum, architecture, module, layers, causal, layout, (language models:
// tied_embeddings, sliding_window, null without one), config, tensors.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/model_file.h"

namespace attnrt::cli {
namespace {

void PrintMetadata(const WeightMetadata& md) {
  switch (md.type) {
    case WeightMetadataType::kInt:
      std::printf("  %-18s %" PRId64 "\n", Printable(md.key).c_str(), md.int_value);
      break;
    case WeightMetadataType::kFloat:
      std::printf("  %-18s %g\n", Printable(md.key).c_str(), md.float_value);
      break;
    case WeightMetadataType::kString:
      // A kept file (a tokenizer.json of megabytes) is named by its size; --json has it all.
      if (md.string_len > 120) {
        std::printf("  %-18s (%u bytes of text; inspect --json shows it)\n",
                    Printable(md.key).c_str(), static_cast<unsigned>(md.string_len));
        break;
      }
      std::printf("  %-18s \"%s\"\n", Printable(md.key).c_str(), Printable(md.string_value).c_str());
      break;
  }
}

const char* LayoutName(const ModelConfig& c) {
  if (ArchitectureIsLanguageModel(c.arch)) return "tokens";
  return ArchitectureTakesImages(c.arch) ? "images" : c.batch_first ? "batch_first" : "seq_first";
}

// What a run takes and returns, in words.
const char* LayoutText(const ModelConfig& c) {
  if (ArchitectureIsLanguageModel(c.arch)) {
    return "tokens (batch, seq) int ids -> logits (batch, seq, vocab); KV cache in the arena";
  }
  if (ArchitectureTakesImages(c.arch)) return "images (batch, channels, H, W) -> (batch, classes)";
  return c.batch_first ? "batch_first (batch, seq, dim)"
                       : "seq-first (seq, batch, dim), batch_first false";
}

// Llama without output.weight: the output layer reads the token embedding.
bool TiedOutput(const Model& m) {
  return m.token_embedding.weight != nullptr && m.head.weight == m.token_embedding.weight;
}

// Bytes the same file would have with every tensor f32: the canonical layout (FORMAT.md) with
// each tensor at the next aligned offset after the previous one, from where the data starts.
size_t FileBytesAsF32(const WeightFile& f, const uint8_t* base) {
  size_t end = 0;
  for (size_t i = 0; i < f.tensor_count(); ++i) {
    WeightTensor t;
    if (!f.TensorAt(i, &t).ok()) continue;
    const size_t offset = static_cast<const uint8_t*>(t.raw) - base;
    if (i == 0) end = offset;
    const size_t aligned = (end + f.alignment() - 1) / f.alignment() * f.alignment();
    end = aligned + TensorMatrixRows(t.shape) * TensorMatrixCols(t.shape) * 4;
  }
  return f.tensor_count() == 0 ? f.file_size() : end;
}

int InspectJson(const std::string& path, const OpenedModel& m) {
  const WeightFile& f = m.file;
  const ModelConfig& c = m.model.config;
  char checksum[16];
  std::snprintf(checksum, sizeof(checksum), "0x%08x", f.checksum());
  nlohmann::ordered_json j;
  j["file"] = path;
  j["file_bytes"] = f.file_size();
  j["file_bytes_as_f32"] = FileBytesAsF32(f, m.mapping.data());
  j["format_version"] = f.format_version();
  j["alignment"] = f.alignment();
  j["checksum"] = {{"algorithm", "crc32c"}, {"value", checksum}, {"verified", true}};
  j["architecture"] = ArchitectureName(c.arch);
  j["module"] = ArchitectureModule(c.arch);
  j["layers"] = c.num_layers;
  j["causal"] = c.causal != CausalKind::kNone;
  j["layout"] = LayoutName(c);
  if (ArchitectureIsLanguageModel(c.arch)) {
    j["tied_embeddings"] = TiedOutput(m.model);
    j["sliding_window"] = c.sliding_window == 0 ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(c.sliding_window);
  }
  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  for (size_t i = 0; i < f.metadata_count(); ++i) {
    WeightMetadata md;
    if (!f.MetadataAt(i, &md).ok()) continue;
    switch (md.type) {
      case WeightMetadataType::kInt: config[md.key] = md.int_value; break;
      case WeightMetadataType::kFloat: config[md.key] = md.float_value; break;
      case WeightMetadataType::kString: config[md.key] = md.string_value; break;
    }
  }
  j["config"] = config;
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (size_t i = 0; i < f.tensor_count(); ++i) {
    WeightTensor t;
    if (!f.TensorAt(i, &t).ok()) continue;
    const size_t offset = static_cast<const uint8_t*>(t.raw) - m.mapping.data();
    tensors.push_back({{"name", t.name}, {"dtype", WeightTypeName(t.dtype)},
                       {"shape", ToVector(t.shape)},
                       {"offset", offset}, {"bytes", t.bytes}});
  }
  j["tensors"] = tensors;
  // Names come from the file: bytes that are not UTF-8 become U+FFFD rather than an exception.
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  return 0;
}

int InspectCommand(const std::string& path, bool json) {
  std::string error;
  OpenedModel m;
  if (!OpenModel(path, &m, &error)) return ReportError("inspect", error);
  if (json) return InspectJson(path, m);
  const WeightFile& f = m.file;
  std::printf("file: %s (%zu bytes, format version %u, data alignment %zu)\n", Printable(path).c_str(),
              f.file_size(), f.format_version(), f.alignment());
  std::printf("checksum: crc32c 0x%08x verified\n", f.checksum());
  const size_t as_f32 = FileBytesAsF32(f, m.mapping.data());
  std::printf("size: %zu bytes = %.3fx the %zu bytes of the same file in f32\n", f.file_size(),
              as_f32 == 0 ? 1.0 : double(f.file_size()) / double(as_f32), as_f32);
  const ModelConfig& c = m.model.config;
  std::printf("architecture: %s (%s), %zu layer(s)%s\n", ArchitectureName(c.arch),
              ArchitectureModule(c.arch), c.num_layers,
              c.causal != CausalKind::kNone ? ", causal (applied on every run)" : "");
  std::printf("layout: %s\n", LayoutText(c));
  if (ArchitectureIsLanguageModel(c.arch)) {
    std::printf("output: %s\n", TiedOutput(m.model) ? "tied to tok_embeddings.weight (no output.weight)"
                                                    : "output.weight");
    if (c.sliding_window != 0) {
      std::printf("attention: sliding window %zu (a query sees itself and the %zu positions "
                  "before it; the KV cache keeps window - 1 + chunk positions)\n",
                  c.sliding_window, c.sliding_window - 1);
    } else {
      std::printf("attention: full causal (no sliding window)\n");
    }
  }
  std::printf("config:\n");
  for (size_t i = 0; i < f.metadata_count(); ++i) {
    WeightMetadata md;
    if (f.MetadataAt(i, &md).ok()) PrintMetadata(md);
  }
  std::printf("tensors (%zu):\n", f.tensor_count());
  size_t width = 4;  // the name column fits the longest name
  for (size_t i = 0; i < f.tensor_count(); ++i) {
    WeightTensor t;
    if (f.TensorAt(i, &t).ok()) width = std::max(width, Printable(t.name).size());
  }
  const int w = static_cast<int>(std::min<size_t>(width, 96));
  std::printf("  %-*s %-5s %-14s %10s %10s\n", w, "name", "dtype", "shape", "offset", "bytes");
  for (size_t i = 0; i < f.tensor_count(); ++i) {
    WeightTensor t;
    if (!f.TensorAt(i, &t).ok()) continue;
    const size_t offset = static_cast<const uint8_t*>(t.raw) - m.mapping.data();
    std::printf("  %-*s %-5s %-14s %10zu %10zu\n", w, Printable(t.name).c_str(),
                WeightTypeName(t.dtype),
                npy::ShapeString(ToVector(t.shape)).c_str(), offset, t.bytes);
  }
  return 0;
}

}  // namespace

void AddInspectCommand(CLI::App& app, int* exit_code) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("inspect", "Show a converted model's architecture, config and tensors");
  cmd->add_option("model", *path, "Converted model file")->required();
  cmd->add_flag("--json", *json, "Print only a JSON object (file, checksum, architecture, config, tensors)");
  cmd->callback([path, json, exit_code] { *exit_code = InspectCommand(*path, *json); });
}

}  // namespace attnrt::cli

// attnrt convert: a Hugging Face model folder, a GGUF file (llama.cpp's, told by its
// magic), or a PyTorch checkpoint (safetensors, state_dict names) plus its constructor
// config (JSON) -> one flat weight file the runtime reads in place.
//
// This file holds the options and the file I/O; the conversion itself (config ->
// architecture -> metadata -> checked tensors) is convert_core.h, which the
// convert-input fuzzer drives too.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "attnrt/models/model_config.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "convert/convert_core.h"
#include "convert/gguf_file.h"
#include "convert/gguf_import.h"
#include "convert/hf_folder.h"
#include "convert/hf_import.h"
#include "convert/hf_tokenizer.h"
#include "cli/weight_dtype_option.h"
#include "convert/matrix_types.h"
#include "convert/tensor_encoding.h"
#include "convert/weight_file_writer.h"
#include "host/json_config.h"
#include "host/mapped_file.h"
#include "host/regular_file.h"
#include "host/safetensors.h"
#include "tokenizer/tokenizer.h"

namespace attnrt::cli {
namespace {

struct ConvertOptions {
  std::string arch, config, weights, out;
  std::string dtype = "f32";
  bool dtype_given = false;  // a GGUF keeps each tensor's type unless --dtype is given
  std::vector<std::string> dtype_for;  // --dtype-for CLASS=TYPE, each class once
};

// torch.save writes a zip archive (or, before PyTorch 1.6, a pickle): say what to do instead
// of reporting a safetensors header error.
bool RefuseTorchArchive(const std::string& path, std::string* error) {
  // Only a regular file is peeked at (a FIFO would block here); ReadSafetensorsFile then
  // says what is wrong with anything else.
  int err = 0;
  std::string what;
  std::FILE* f = OpenRegularStream(path, &err, &what);
  if (f == nullptr) return false;
  unsigned char magic[4] = {0, 0, 0, 0};
  const size_t n = std::fread(magic, 1, sizeof(magic), f);
  std::fclose(f);
  const bool zip = n == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
  const bool pickle = n >= 2 && magic[0] == 0x80 && magic[1] >= 2 && magic[1] <= 5;
  if (!zip && !pickle) return false;
  *error = path + " is a torch.save archive, not safetensors: export it first with\n"
           "  python3 tools/python/export_torch.py --module " + path +
           " --out-dir DIR   (a state_dict also needs --arch and --config)\n"
           "then convert DIR/model.safetensors with --config DIR/config.json";
  return true;
}

// A folder or GGUF file says its own architecture and config: --config and --arch are refused
// (`is_a` names the input and where its config is), then the paths are checked.
bool CheckSelfDescribing(const ConvertOptions& o, const std::string& is_a, const char* label,
                         std::string* error) {
  if (!o.config.empty() || !o.arch.empty()) {
    *error = o.weights + " is " + is_a + " architecture and config (leave out --config and --arch)";
    return false;
  }
  return CheckOutputPaths({{label, o.weights}}, {{"--out", o.out}}, error);
}

// The first bytes of `path` (up to `want`), read only from a regular file (a FIFO would block
// here); 0 when it cannot be read.
size_t PeekFileStart(const std::string& path, uint8_t* bytes, size_t want) {
  int err = 0;
  std::string what;
  std::FILE* f = OpenRegularStream(path, &err, &what);
  if (f == nullptr) return 0;
  const size_t n = std::fread(bytes, 1, want, f);
  std::fclose(f);
  return n;
}

// True when `path` is a regular file that starts with GGUF's magic.
bool IsGgufFile(const std::string& path) {
  uint8_t magic[4] = {0, 0, 0, 0};
  return HasGgufMagic(magic, PeekFileStart(path, magic, sizeof(magic)));
}

// True when `path` starts as a safetensors file does: an 8-byte header length, then the JSON
// header's '{'. Only used to word a refusal; the reader checks the file in full.
bool LooksLikeSafetensors(const std::string& path) {
  uint8_t start[9] = {};
  return PeekFileStart(path, start, sizeof(start)) == sizeof(start) && start[8] == '{';
}

// llama.cpp's tokenizer translated once, here, into the compact form, so that loading it skips
// the translation; a tokenizer attnrt refuses is noted and left to `gguf.tokenizer` (tokenize
// names the problem), the weights convert all the same.
void KeepCompactTokenizer(const GgufFile& gguf, const std::string& path, WeightFileWriter* writer) {
  std::string json, compact, error;
  if (!GgufTokenizerJson(gguf, path, &json, &error) || json.empty()) return;
  if (Tokenizer::CompileGguf(json, path, &compact, &error)) {
    writer->SetString(Tokenizer::kCompactMetadataKey, compact);
    return;
  }
  std::fprintf(stderr, "attnrt convert: note: %s (the weights convert; tokenize refuses it)\n",
               error.c_str());
}

// A GGUF file: its metadata says the architecture and config; matrices keep their types
// (Q8_0 as q8) unless --dtype or --dtype-for re-encodes them, each re-encoded one's loss
// printed.
int ConvertGgufFile(const ConvertOptions& o, const MatrixTypeRequest& types) {
  const char* cmd = "convert";
  std::string error;
  if (!CheckSelfDescribing(o, "a GGUF file: its metadata says the", "weights", &error)) {
    return ReportError(cmd, error);
  }
  MappedFile file;
  GgufFile gguf;
  WeightFileWriter writer;
  ModelConfig config;
  GgufImport import;
  std::vector<GgufTensorNote> notes;
  if (!file.Open(o.weights, &error) ||
      !ReadGguf(file.data(), file.size(), o.weights, &gguf, &error) ||
      !PrepareGgufConversion(gguf, o.weights, &writer, &config, &import, &error)) {
    return ReportError(cmd, error);
  }
  KeepCompactTokenizer(gguf, o.weights, &writer);
  if (!AddGgufTensors(import, config, gguf, o.weights, types, &writer, &notes, &error) ||
      !writer.WriteFile(o.out, &error)) {
    return ReportError(cmd, error);
  }
  std::map<std::string, size_t> kept;
  for (const GgufTensorNote& n : notes) {
    if (n.reencoded) {
      std::printf("convert: %s (%s) -> %s: relative RMS error %.3e\n", n.gguf_name.c_str(), n.from,
                  WeightTypeName(n.to), n.relative_rms);
    } else {
      ++kept[std::string(n.from) + " as " + WeightTypeName(n.to)];
    }
  }
  std::string summary;
  for (const auto& k : kept) {
    summary += (summary.empty() ? "" : ", ") + std::to_string(k.second) + " " + k.first;
  }
  std::printf("convert: GGUF %s (%s), %zu layer(s), %s -> %s (%zu tensors; matrices kept: %s)\n",
              import.family->arch, ArchitectureName(config.arch), config.num_layers,
              o.weights.c_str(), o.out.c_str(), gguf.tensors.size(),
              summary.empty() ? "none" : summary.c_str());
  return 0;
}

// A Hugging Face folder: config.json, safetensors (sharded or not), tokenizer files.
int ConvertHfFolder(const ConvertOptions& o, const MatrixTypeRequest& types) {
  const char* cmd = "convert";
  std::string error;
  if (!CheckSelfDescribing(o, "a Hugging Face folder: its config.json says the", "folder",
                           &error)) {
    return ReportError(cmd, error);
  }
  HfFolderFiles files;
  WeightFileWriter writer;
  ModelConfig config;
  HfImport import;
  SafetensorsFile st;
  if (!ReadHfFolderFiles(o.weights, &files, &error) ||
      !PrepareHfConversion(files, &writer, &config, &import, &error)) {
    return ReportError(cmd, error);
  }
  // A tokenizer the engine refuses stays as the folder's JSON (tokenize names the refusal):
  // the weights still convert for --prompt-tokens.
  bool compiled = files.texts.count("tokenizer.json") != 0;
  if (compiled && !AddCompactTokenizer(files, &writer, &error)) {
    std::fprintf(stderr, "convert: note: tokenizer kept as JSON only: %s\n", error.c_str());
    compiled = false;
  }
  // Every file of the folder that was read is an input --out must not name (-o
  // DIR/model.safetensors would replace the weights it was made from).
  std::vector<std::string> read = {o.weights + "/model.safetensors.index.json"};
  for (const auto& kept : files.texts) read.push_back(o.weights + "/" + kept.first);
  const auto progress = [&read](size_t i, size_t n, const std::string& path) {
    std::fprintf(stderr, "convert: reading %s (%zu of %zu)\n", path.c_str(), i + 1, n);
    read.push_back(path);
  };
  if (!ReadHfCheckpoint(o.weights, &st, &error, progress)) return ReportError(cmd, error);
  std::vector<PathArg> inputs;
  for (const std::string& path : read) inputs.push_back({"folder file", path});
  if (!CheckOutputPaths(inputs, {{"--out", o.out}}, &error)) return ReportError(cmd, error);
  const size_t tensors = st.tensors.size();
  if (!AddHfTensors(import, config, &st, o.weights, types, &writer, &error) ||
      !writer.WriteFile(o.out, &error)) {
    return ReportError(cmd, error);
  }
  std::printf("convert: %s (%s), %zu layer(s), %s -> %s (%zu tensors, matrices as %s%s)\n",
              import.family->architecture, ArchitectureName(config.arch), config.num_layers,
              o.weights.c_str(), o.out.c_str(), tensors, DescribeRequest(types).c_str(),
              compiled ? ", tokenizer kept and compiled"
                       : files.texts.count("tokenizer.json") ? ", tokenizer kept" : "");
  return 0;
}

int ConvertCommand(const ConvertOptions& o) {
  const char* cmd = "convert";
  std::string error;
  // Without --dtype nothing is asked for unnamed classes: a GGUF keeps its types, the other
  // inputs store f32.
  MatrixTypeRequest types;
  if (o.dtype_given && !SetDtype(o.dtype, &types, &error)) return ReportError(cmd, error);
  for (const std::string& arg : o.dtype_for) {
    if (!AddDtypeFor(arg, &types, &error)) return ReportError(cmd, error);
  }
  if (IsDirectory(o.weights)) return ConvertHfFolder(o, types);
  if (IsGgufFile(o.weights)) return ConvertGgufFile(o, types);
  if (o.config.empty()) {
    if (!LooksLikeSafetensors(o.weights)) {
      return ReportError(cmd, o.weights + " is neither a Hugging Face folder, a GGUF file (no "
                              "GGUF magic) nor a safetensors checkpoint (no JSON header)");
    }
    return ReportError(cmd, "--config is required with a safetensors file (a Hugging Face "
                            "folder needs none: give the folder)");
  }
  if (!CheckOutputPaths({{"--config", o.config}, {"weights", o.weights}}, {{"--out", o.out}},
                        &error)) {
    return ReportError(cmd, error);
  }
  JsonConfig json;
  SafetensorsFile st;
  if (!LoadJsonConfig(o.config, &json, &error)) return ReportError(cmd, error);
  WeightFileWriter writer;
  ModelConfig config;
  if (!PrepareConversion(json, o.config, o.arch, &writer, &config, &error)) {
    return ReportError(cmd, error);
  }
  std::fprintf(stderr, "convert: reading %s\n", o.weights.c_str());
  if (RefuseTorchArchive(o.weights, &error)) return ReportError(cmd, error);
  if (!ReadSafetensorsFile(o.weights, &st, &error) ||
      !AddCheckpointTensors(config, st, o.weights, types, &writer, &error) ||
      !writer.WriteFile(o.out, &error)) {
    return ReportError(cmd, error);
  }
  std::printf("convert: %s, %zu layer(s), %s -> %s (%zu tensors, matrices as %s)\n",
              ArchitectureName(config.arch), config.num_layers, o.weights.c_str(), o.out.c_str(),
              st.tensors.size(), DescribeRequest(types).c_str());
  return 0;
}

}  // namespace

void AddConvertCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Convert a Hugging Face model folder, a GGUF file, or a PyTorch safetensors checkpoint + "
      "JSON config, into a flat weight file");
  std::vector<std::string> arch_names;
  for (size_t i = 0; i < ArchitectureCount(); ++i) {
    arch_names.push_back(ArchitectureName(ArchitectureAt(i)));
  }
  cmd->add_option("--arch", o->arch,
                  std::string("Architecture: ") + ArchitectureNames() +
                      " (default: the config's \"architecture\" key, as export_torch.py writes it)")
      ->check(CLI::IsMember(arch_names));
  cmd->add_option("--config", o->config,
                  "JSON config: the PyTorch constructor arguments (with a safetensors file)");
  cmd->add_option("weights", o->weights,
                  "Checkpoint .safetensors (state_dict names), a Hugging Face model folder "
                  "(config.json, model.safetensors or its shards, tokenizer files: " +
                      HfFamilyNames() + "), or a GGUF file (" + GgufFamilyNames() + ")")
      ->required();
  cmd->add_option("-o,--out", o->out, "Model file to write")->required();
  AddWeightDtypeOption(cmd, &o->dtype,
                       "Storage of weight matrices and embeddings (q8: int8, one f16 scale per "
                       "32 weights of a row; q4_0: GGUF's Q4_0, 4 bits and one f16 scale per 32 "
                       "weights; q4_K, q6_K: GGUF's k-quant super-blocks of 256 weights, rows "
                       "a multiple of 256; runtime/FORMAT.md), for every class --dtype-for "
                       "does not name. q4_K_M is llama.cpp's mix: q6_K for the output layer "
                       "(the token embedding when tied) and for attn_v and ffn_down in about "
                       "half the layers (the first and last eighth, every third between), "
                       "q4_K for the rest. Norms, biases and position embeddings stay f32. A "
                       "GGUF file's matrices keep their types (Q8_0 as q8; Q4_0, Q4_K and Q6_K "
                       "as they are) unless --dtype or --dtype-for asks for one",
                       {kQ4_K_MPreset});
  cmd->add_option("--dtype-for", o->dtype_for,
                  "CLASS=TYPE: store one class of weight matrices as TYPE, over --dtype; "
                  "repeatable, each class once. Classes: embed (token embedding, ViT patch "
                  "projection), output (output layer or classifier head; a tied model's "
                  "embedding is both), attn (q, k, v, o, in_proj), attn_v (v alone), ffn "
                  "(gate, up, down), ffn_down (down alone); the narrower class wins. "
                  "Example: --dtype q4_K --dtype-for output=q6_K --dtype-for attn_v=q6_K")
      ->type_name("CLASS=TYPE")
      ->take_all()
      ->allow_extra_args(false);
  cmd->callback([o, exit_code, cmd] {
    o->dtype_given = cmd->count("--dtype") > 0;
    *exit_code = ConvertCommand(*o);
  });
}

}  // namespace attnrt::cli

// Test helper: writes a weight file whose string metadata holds files byte for byte, as
// `attnrt convert HF_DIR` keeps a Hugging Face folder's tokenizer files:
//   tokenizer_model_file [--compact|--compact-only] OUT [hf.tokenizer.json=PATH]
//                        [hf.tokenizer_config.json=PATH] [KEY=PATH...]
// --compact adds the tokenizer's compact form ("tokenizer.compact", Tokenizer::Compile) made
// from those two files; --compact-only keeps only that (not the two files). The tokenizer tests give such a file to `attnrt tokenize` in place of a
// converted model.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "convert/weight_file_writer.h"
#include "tokenizer/tokenizer.h"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool compact_only = mode == "--compact-only";
  const bool compact = compact_only || mode == "--compact";
  const int first = compact ? 2 : 1;
  if (argc <= first) {
    std::fprintf(stderr, "usage: %s [--compact|--compact-only] OUT [KEY=PATH...]\n", argv[0]);
    return 2;
  }
  attnrt::WeightFileWriter writer;
  writer.SetString("arch", "tokenizer_only");
  std::string files[2];  // tokenizer.json, tokenizer_config.json
  for (int i = first + 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    std::ifstream in(eq == std::string::npos ? "" : arg.substr(eq + 1), std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read '%s' (expected KEY=PATH)\n", arg.c_str());
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string key = arg.substr(0, eq);
    const bool is_file = key == "hf.tokenizer.json" || key == "hf.tokenizer_config.json";
    if (is_file) files[key == "hf.tokenizer.json" ? 0 : 1] = text.str();
    if (!is_file || !compact_only) writer.SetString(key, text.str());
  }
  std::string error;
  if (compact) {
    std::string form;
    if (!attnrt::Tokenizer::Compile(files[0], files[1], "tokenizer", &form, &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    writer.SetString(attnrt::Tokenizer::kCompactMetadataKey, form);
  }
  if (!writer.WriteFile(argv[first], &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  return 0;
}

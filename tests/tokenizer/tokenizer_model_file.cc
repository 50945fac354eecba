// Test helper: writes a weight file whose string metadata holds files byte for byte, as
// `attnrt convert HF_DIR` keeps a Hugging Face folder's tokenizer files:
//   tokenizer_model_file OUT [hf.tokenizer.json=PATH] [hf.tokenizer_config.json=PATH ...]
// The tokenizer tests give such a file to `attnrt tokenize` in place of a converted model.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "convert/weight_file_writer.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT [KEY=PATH...]\n", argv[0]);
    return 2;
  }
  attnrt::WeightFileWriter writer;
  writer.SetString("arch", "tokenizer_only");
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    std::ifstream in(eq == std::string::npos ? "" : arg.substr(eq + 1), std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read '%s' (expected KEY=PATH)\n", arg.c_str());
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    writer.SetString(arg.substr(0, eq), text.str());
  }
  std::string error;
  if (!writer.WriteFile(argv[1], &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  return 0;
}

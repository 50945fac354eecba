// attnrt tokenize / detokenize: text -> token ids -> text with a model's Hugging Face
// tokenizer, giving what transformers gives: `tokenizer(text)["input_ids"]` and
// `tokenizer.decode(ids, skip_special_tokens=...)` (tools/tokenizer/tokenizer.h says what is
// supported). The tokenizer comes from a converted model file or a tokenizer.json
// (cli/tokenizer_source.h); a model converted from a GGUF file gives llama.cpp's tokenize with
// special tokens parsed instead (docs/gguf.md). --batch takes JSON Lines and prints one result per line, so one
// load serves many texts.
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/tokenizer_source.h"
#include "host/mapped_file.h"

namespace attnrt::cli {
namespace {

using Json = nlohmann::json;

struct TokenizeOptions {
  std::string model, text, text_file, ids, batch;
  bool has_text = false;
  bool no_special = false;
  bool skip_special = false;
  bool json = false;
};

// The whole of `path` ("-": standard input).
bool ReadInput(const std::string& path, std::string* out, std::string* error) {
  if (path == "-") {
    out->assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    if (std::cin.bad()) {
      *error = "cannot read standard input";
      return false;
    }
    return true;
  }
  MappedFile file;
  if (!file.Open(path, error)) return false;
  out->assign(reinterpret_cast<const char*>(file.data()), file.size());
  return true;
}

// "1,2,3" -> ids (whitespace around commas allowed); each a token id in [0, 2^32).
bool ParseIds(const std::string& text, std::vector<uint32_t>* ids, std::string* error) {
  ids->clear();
  size_t at = 0;
  while (true) {
    const size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos
                                                                         : comma - at);
    const size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    const std::string digits = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    bool ok = !digits.empty() && digits.size() <= 10;
    uint64_t v = 0;
    for (char c : digits) {
      ok = ok && c >= '0' && c <= '9';
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!ok || v > UINT32_MAX) {
      *error = "--ids: '" + Printable(digits) + "' is not a token id (0 to 4294967295)";
      return false;
    }
    ids->push_back(static_cast<uint32_t>(v));
    if (comma == std::string::npos) return true;
    at = comma + 1;
  }
}

// One JSON line of a detokenize batch: a list of token ids.
bool BatchIds(const Json& line, std::vector<uint32_t>* ids) {
  ids->clear();
  if (!line.is_array()) return false;
  for (const Json& v : line) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > UINT32_MAX) return false;
    ids->push_back(v.get<uint32_t>());
  }
  return true;
}

void PrintIds(const std::vector<uint32_t>& ids, bool json) {
  if (json) {
    std::printf("%s\n", Json{{"ids", ids}}.dump().c_str());
    return;
  }
  std::string line;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) line += ',';
    line += std::to_string(ids[i]);
  }
  std::printf("%s\n", line.c_str());
}

void PrintText(const std::string& text, bool json) {
  if (json) {
    std::printf("%s\n", Json{{"text", text}}.dump(-1, ' ', false, Json::error_handler_t::replace)
                            .c_str());
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
}

// Calls `each` on every line of a JSON Lines file (blank lines skipped); false with the line
// number on a line that is not JSON or that `each` refuses.
template <typename Each>
bool ForEachJsonLine(const std::string& path, Each each, std::string* error) {
  std::string all;
  if (!ReadInput(path, &all, error)) return false;
  std::istringstream in(all);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const Json j = Json::parse(line, nullptr, false);
    std::string why;
    if (j.is_discarded() || !each(j, &why)) {
      *error = "--batch " + path + ": line " + std::to_string(number) + ": " +
               (why.empty() ? "not valid JSON" : why);
      return false;
    }
  }
  return true;
}

int TokenizeCommand(const TokenizeOptions& o) {
  const char* cmd = "tokenize";
  const int given = (o.has_text ? 1 : 0) + (o.text_file.empty() ? 0 : 1) + (o.batch.empty() ? 0 : 1);
  if (given != 1) return ReportError(cmd, "give exactly one of --text, --text-file and --batch");
  std::string error;
  Tokenizer tokenizer;
  if (!LoadTokenizer(o.model, &tokenizer, &error)) return ReportError(cmd, error);
  std::vector<uint32_t> ids;
  if (!o.batch.empty()) {
    auto each = [&](const Json& line, std::string* why) {
      if (!line.is_string()) {
        *why = "expected a JSON string";
        return false;
      }
      if (!tokenizer.Encode(line.get_ref<const std::string&>(), !o.no_special, &ids, why)) {
        return false;
      }
      PrintIds(ids, o.json);
      return true;
    };
    return ForEachJsonLine(o.batch, each, &error) ? 0 : ReportError(cmd, error);
  }
  std::string text = o.text;
  if (!o.text_file.empty() && !ReadInput(o.text_file, &text, &error)) {
    return ReportError(cmd, error);
  }
  if (!tokenizer.Encode(text, !o.no_special, &ids, &error)) {
    return ReportError(cmd, (o.has_text ? "--text: " : o.text_file + ": ") + error);
  }
  PrintIds(ids, o.json);
  return 0;
}

int DetokenizeCommand(const TokenizeOptions& o) {
  const char* cmd = "detokenize";
  if (o.ids.empty() == o.batch.empty()) {
    return ReportError(cmd, "give exactly one of --ids 1,2,3 and --batch");
  }
  std::vector<uint32_t> ids;
  std::string error, text;
  if (!o.ids.empty() && !ParseIds(o.ids, &ids, &error)) return ReportError(cmd, error);
  Tokenizer tokenizer;
  if (!LoadTokenizer(o.model, &tokenizer, &error)) return ReportError(cmd, error);
  if (!o.batch.empty()) {
    auto each = [&](const Json& line, std::string* why) {
      if (!BatchIds(line, &ids)) {
        *why = "expected a list of token ids (0 to 4294967295)";
        return false;
      }
      if (!tokenizer.Decode(ids, o.skip_special, &text, why)) return false;
      PrintText(text, o.json);
      return true;
    };
    return ForEachJsonLine(o.batch, each, &error) ? 0 : ReportError(cmd, error);
  }
  if (!tokenizer.Decode(ids, o.skip_special, &text, &error)) return ReportError(cmd, error);
  PrintText(text, o.json);
  return 0;
}

// The subcommand with the options both share: the tokenizer source, --batch and --json.
CLI::App* AddTokenizerSubcommand(CLI::App& app, const char* name, const char* description,
                                 TokenizeOptions* o, const char* batch_help,
                                 const char* json_help) {
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->add_option("model", o->model,
                  "A converted model (the Hugging Face tokenizer `attnrt convert HF_DIR` keeps, "
                  "or llama.cpp's tokenizer from a GGUF file), a tokenizer.json (with the "
                  "tokenizer_config.json beside it, if any) or a folder holding them")
      ->required();
  cmd->add_option("--batch", o->batch, batch_help);
  cmd->add_flag("--json", o->json, json_help);
  return cmd;
}

}  // namespace

void AddTokenizeCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<TokenizeOptions>();
  CLI::App* cmd = AddTokenizerSubcommand(
      app, "tokenize",
      "Text to token ids with a model's Hugging Face tokenizer, as transformers' "
      "tokenizer(text)[\"input_ids\"] gives them",
      o.get(),
      "JSON Lines file ('-': standard input), one JSON string per line: prints one line of ids "
      "for each",
      "Print {\"ids\": [...]} instead of 1,2,3");
  cmd->add_option("--text", o->text, "The text (UTF-8)")
      ->each([o](const std::string&) { o->has_text = true; });
  cmd->add_option("--text-file", o->text_file, "Read the text from a file ('-': standard input)");
  cmd->add_flag("--no-special", o->no_special,
                "Leave out the special tokens the tokenizer adds around the text (BOS, EOS): "
                "add_special_tokens=False");
  cmd->callback([o, exit_code] { *exit_code = TokenizeCommand(*o); });
}

void AddDetokenizeCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<TokenizeOptions>();
  CLI::App* cmd = AddTokenizerSubcommand(
      app, "detokenize",
      "Token ids to text with a model's Hugging Face tokenizer, as transformers' "
      "tokenizer.decode(ids) gives it (ids that name no token are left out)",
      o.get(),
      "JSON Lines file ('-': standard input), one list of ids per line: prints one text for each",
      "Print {\"text\": ...} (one line, escaped) instead of the text and a newline");
  cmd->add_option("--ids", o->ids, "Token ids: 1,2,3");
  cmd->add_flag("--skip-special", o->skip_special,
                "Leave out special tokens: skip_special_tokens=True");
  cmd->callback([o, exit_code] { *exit_code = DetokenizeCommand(*o); });
}

}  // namespace attnrt::cli

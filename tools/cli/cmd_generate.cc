// attnrt generate: text (or token ids) from a language model, token by token.
//
// The prompt goes through the model in one Feed (prefill, chunked by the
// session); each generated token is fed back as one decode step over the KV
// cache. The cache holds exactly prompt + max_new_tokens positions, so what
// would pass the model's max_seq_len is refused before any work. Tokens stream
// as they are produced: text for a model with a tokenizer (--prompt is encoded
// with it, special tokens added as Hugging Face does; decoded text is released
// whole, cli/text_streamer.h), raw bytes for a byte-level model (vocab 256), ids
// otherwise; with --json they go to stderr and stdout holds one JSON object.
// Generation stops at the model's eos ids and at a --stop string (not printed).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnrt/kernels/linear.h"
#include "attnrt/models/sampling.h"
#include "cli/activations_option.h"
#include "cli/chunk_option.h"
#include "cli/decode_loop.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/kv_dtype_option.h"
#include "cli/linear_report.h"
#include "cli/lm_runner.h"
#include "cli/model_file.h"
#include "cli/model_text.h"
#include "cli/option_checks.h"
#include "cli/text_streamer.h"
#include "cli/sampling_option.h"
#include "cli/thread_option.h"
#include "host/thread_pool.h"

namespace attnrt::cli {
namespace {

constexpr size_t kByteVocab = 256;  // a byte-level model: token = byte

struct GenerateOptions {
  std::string model, prompt_tokens, prompt;
  std::vector<std::string> stops;
  std::string kv_dtype = "f32";
  std::string activations = "auto";
  bool has_prompt = false;
  bool ignore_eos = false;
  size_t max_new_tokens = 64;
  SamplingOptions sampling;
  size_t threads = 0;
  size_t chunk = 0;  // tokens per pass; 0: the session's default
  bool json = false;
};

// "1,2,3" -> ids; whitespace around commas is allowed.
bool ParseTokenList(const std::string& text, std::vector<int64_t>* ids, std::string* error) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    const std::string digits = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(digits, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (digits.empty() || used != digits.size()) {
      *error = "--prompt-tokens: '" + Printable(digits) + "' is not an integer token id";
      return false;
    }
    ids->push_back(v);
  }
  // getline drops an empty item after a final comma: "1,2," must fail as "1,,2" does.
  const size_t last = text.find_last_not_of(" \t");
  if (last != std::string::npos && text[last] == ',') {
    *error = "--prompt-tokens: '' (after the last comma) is not an integer token id";
    return false;
  }
  if (ids->empty()) {
    *error = "--prompt-tokens: no token ids";
    return false;
  }
  return true;
}

// How generated tokens are shown.
enum class Shown { kText, kBytes, kIds };

// The prompt's ids: --prompt-tokens as given, --prompt encoded by the model's tokenizer (or
// byte by byte for a byte-level model without one).
bool PromptIds(const GenerateOptions& o, const ModelText& text, bool bytes,
               std::vector<int64_t>* ids, std::string* error) {
  if (o.has_prompt == !o.prompt_tokens.empty()) {
    *error = "give exactly one of --prompt TEXT and --prompt-tokens 1,2,3";
    return false;
  }
  if (!o.has_prompt) return ParseTokenList(o.prompt_tokens, ids, error);
  if (!text.tokenizer_error.empty()) {
    *error = "--prompt: " + text.tokenizer_error;
    return false;
  }
  if (text.has_tokenizer) {
    std::vector<uint32_t> encoded;
    if (!text.tokenizer.Encode(o.prompt, true, &encoded, error)) {
      *error = "--prompt: " + *error;
      return false;
    }
    if (encoded.empty()) {
      *error = "--prompt is empty and the tokenizer adds no token: give some text";
      return false;
    }
    ids->assign(encoded.begin(), encoded.end());
    return true;
  }
  if (!bytes) {
    *error = "--prompt needs a model with a tokenizer (convert a Hugging Face folder that has "
             "tokenizer.json) or a byte-level model (vocab 256): give --prompt-tokens";
    return false;
  }
  if (o.prompt.empty()) {
    *error = "--prompt is empty: give at least one byte";
    return false;
  }
  for (unsigned char ch : o.prompt) ids->push_back(ch);
  return true;
}

int GenerateCommand(const GenerateOptions& o) {
  const char* cmd = "generate";
  std::string error;
  // Without a model argument: the bundled byte-level model this build converted.
  const std::string path = o.model.empty() ? ATTNRT_LM_MODEL : o.model;
  OpenedModel m;
  if (!OpenModel(path, &m, &error, ActivationsFromName(o.activations))) {
    return ReportError(cmd, o.model.empty() ? error + " (the bundled model is converted by the "
                                                      "build; give a model file)"
                                            : error);
  }
  const ModelConfig& c = m.model.config;
  if (!ArchitectureIsLanguageModel(c.arch)) {
    return ReportError(cmd, std::string(ArchitectureName(c.arch)) +
                                " is not a language model (generate runs llama models)");
  }
  ModelText text;
  if (!LoadModelText(m, path, &text, &error)) return ReportError(cmd, error);
  if (!text.tokenizer_error.empty() && !o.has_prompt) {
    std::fprintf(stderr, "generate: note: printing token ids: %s\n",
                 text.tokenizer_error.c_str());
  }
  const bool bytes = c.vocab_size == kByteVocab && !text.has_tokenizer;
  const Shown shown = text.has_tokenizer ? Shown::kText : bytes ? Shown::kBytes : Shown::kIds;
  if (!o.stops.empty() && shown == Shown::kIds) {
    return ReportError(cmd, "--stop needs text: this model has no tokenizer and is not "
                            "byte-level");
  }
  for (const std::string& stop : o.stops) {
    if (stop.empty()) return ReportError(cmd, "--stop: an empty string would stop at once");
  }
  std::vector<int64_t> ids;
  if (!PromptIds(o, text, bytes, &ids, &error)) return ReportError(cmd, error);
  std::vector<int32_t> prompt;
  if (!TokenIds(ids, ids.size(), c.vocab_size, &prompt, &error)) {
    return ReportError(cmd, "prompt: " + error);
  }
  const size_t positions = prompt.size() + o.max_new_tokens;
  if (positions > c.max_seq_len) {
    return ReportError(cmd, "the prompt (" + std::to_string(prompt.size()) + " tokens) plus " +
                                std::to_string(o.max_new_tokens) + " new tokens is " +
                                std::to_string(positions) + " positions, more than the model's "
                                "max_seq_len " + std::to_string(c.max_seq_len));
  }

  CommandPool workers(o.threads);
  ThreadPool& pool = workers.pool;
  LmShape shape;
  shape.max_seq = positions;
  shape.chunk = std::min(o.chunk, positions);  // longer than the session: one pass
  shape.kv_type = KvDtype(o.kv_dtype);
  shape.linear_activations = ActivationsFromName(o.activations);
  LmRunner lm;
  if (!StartLm(m.model, shape, pool.workers(), 0, &lm, &error)) return ReportError(cmd, error);
  DecodeBuffers buffers(c.vocab_size);
  uint64_t rng = SamplingSeed(o.sampling.seed);
  DecodeRequest request;
  request.max_new_tokens = o.max_new_tokens;
  if (!o.ignore_eos) request.stop_ids = text.eos;
  request.sampling = o.sampling.params();
  request.rng = &rng;

  std::FILE* stream = ProseStream(o.json);
  if (shown != Shown::kIds) {
    std::fwrite(o.prompt.data(), 1, o.prompt.size(), stream);
    std::fflush(stream);
  }
  // Text (and bytes under --stop) is released through the streamer; plain bytes and ids as
  // they come, as before.
  TextStreamer streamer(
      [&](const std::vector<uint32_t>& all, std::string* out, std::string* why) {
        if (shown == Shown::kBytes) {
          out->assign(all.begin(), all.end());
          return true;
        }
        return text.tokenizer.Decode(all, false, out, why);
      },
      o.stops);
  const bool streamed = shown == Shown::kText || !o.stops.empty();
  size_t count = 0;
  auto on_token = [&](int32_t next, bool* stop, std::string* why) {
    ++count;
    if (streamed) {
      std::string more;
      if (!streamer.Push(static_cast<uint32_t>(next), &more, stop, why)) return false;
      std::fwrite(more.data(), 1, more.size(), stream);
    } else if (shown == Shown::kBytes) {
      std::fputc(next, stream);
    } else {
      std::fprintf(stream, "%s%d", count == 1 ? "" : " ", next);
    }
    std::fflush(stream);
    return true;
  };
  const auto start = std::chrono::steady_clock::now();
  const Status st = lm.session.Feed(prompt.data(), prompt.size(), buffers.logits.data(), &pool);
  const double prefill_ms = MsSince(start);
  if (!st.ok()) {
    std::fputc('\n', stream);
    return ReportStatus(cmd, st);
  }
  DecodeResult result;
  std::string rest;
  if (!DecodeTokens(&lm.session, request, &buffers, &pool, on_token, &result, &error) ||
      (streamed && !streamer.Finish(&rest, &error))) {
    std::fputc('\n', stream);
    return ReportError(cmd, error);
  }
  std::fwrite(rest.data(), 1, rest.size(), stream);
  std::fputc('\n', stream);
  std::fflush(stream);

  const std::vector<int32_t>& generated = result.tokens;
  const double ms_per_token =
      result.decode_steps == 0 ? 0.0 : result.decode_ms / static_cast<double>(result.decode_steps);
  std::FILE* prose = stderr;  // timing is prose: it never mixes with the streamed text on stdout
  // The kernels the matrices ran on, per weight type, so a timing says whether activations
  // were rounded (and for which matrices, in a file that mixes types).
  const std::vector<LinearUse> linear = ModelLinearUses(m.model, shape.linear_activations);
  std::fprintf(prose,
               "generate: %zu prompt tokens, %zu new (end: %s); prefill %.2f ms (%.0f tokens/s), "
               "decode %.3f ms/token (%.1f tokens/s), linear %s; %s\n",
               prompt.size(), generated.size(), DecodeEndName(result.end), prefill_ms,
               prefill_ms > 0 ? 1000.0 * static_cast<double>(prompt.size()) / prefill_ms : 0.0,
               ms_per_token, ms_per_token > 0 ? 1000.0 / ms_per_token : 0.0,
               LinearUsesText(linear).c_str(), workers.Describe().c_str());
  if (o.json) {
    nlohmann::ordered_json j;
    // As Hugging Face's generate returns them: the eos that ended the text included.
    std::vector<int32_t> all = generated;
    if (result.end == DecodeEnd::kStopToken) all.push_back(result.stop_token);
    j["tokens"] = all;
    if (streamed) {
      j["text"] = streamer.released();
    } else if (shown == Shown::kBytes) {
      // Bytes that are not valid UTF-8 are replaced rather than failing the dump.
      j["text"] = std::string(generated.begin(), generated.end());
    }
    j["end"] = DecodeEndName(result.end);
    j["prompt_tokens"] = prompt.size();
    j["prefill_ms"] = prefill_ms;
    j["decode_ms_per_token"] = ms_per_token;
    j["tokens_per_s"] = ms_per_token > 0 ? 1000.0 / ms_per_token : 0.0;
    j["threads"] = pool.workers();
    AddThreadsJson(workers, &j);
    AddLinearUsesJson(linear, &j);
    j["activations"] = o.activations;
    j["temperature"] = o.sampling.temperature;
    j["seed"] = o.sampling.seed;
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  }
  return 0;
}

}  // namespace

void AddGenerateCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "generate",
      "Generate text from a language model (token ids for a model without a tokenizer)");
  cmd->add_option("model", o->model,
                  "Converted language model (its tokenizer, kept by `attnrt convert HF_DIR`, "
                  "encodes --prompt and decodes the output); default: the bundled byte-level "
                  "model (models/lm, converted by the build)");
  cmd->add_option("--prompt-tokens", o->prompt_tokens, "Prompt as token ids: 1,2,3");
  cmd->add_option("--prompt", o->prompt,
                  "Prompt text, encoded by the model's tokenizer with its special tokens (BOS) "
                  "as Hugging Face adds them; a byte-level model takes one token per byte")
      ->each([o](const std::string&) { o->has_prompt = true; });
  cmd->add_option("--max-new-tokens", o->max_new_tokens, "Tokens to generate")
      ->capture_default_str()
      ->check(WholeNumber(1, kMaxDim));
  AddSamplingOptions(cmd, &o->sampling);
  cmd->add_flag("--ignore-eos", o->ignore_eos,
                "Generate past the model's end-of-generation ids, to --max-new-tokens (as "
                "llama.cpp's --ignore-eos; for benchmarks and comparisons)");
  cmd->add_option("--stop", o->stops,
                  "Stop when the generated text contains this string (not printed); repeatable")
      ->take_all()
      ->allow_extra_args(false);
  AddThreadsOption(*cmd, &o->threads);
  AddKvDtypeOption(cmd, &o->kv_dtype, "attention reads it widened");
  AddActivationsOption(cmd, &o->activations, "the report line names the kernel that ran");
  AddChunkOption(cmd, &o->chunk, "prompt + new tokens");
  cmd->add_flag("--json", o->json,
                "Stream tokens to stderr and print one JSON object on stdout: tokens (the "
                "generated ids, an eos that ended them included), text, end, prefill_ms, decode_ms_per_token, tokens_per_s (decode), "
                "linear_kernels (the Linear kernel of each weight type the model stores)");
  cmd->callback([o, exit_code] { *exit_code = GenerateCommand(*o); });
}

}  // namespace attnrt::cli

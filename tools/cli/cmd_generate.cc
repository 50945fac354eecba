// attnrt generate: text (or token ids) from a language model, token by token.
//
// The prompt goes through the model in one Feed (prefill, chunked by the
// session); each generated token is fed back as one decode step over the KV
// cache. The cache holds exactly prompt + max_new_tokens positions, so what
// would pass the model's max_seq_len is refused before any work. Tokens stream
// as they are produced: raw bytes for a byte-level model (vocab 256), ids
// otherwise; with --json they go to stderr and stdout holds one JSON object.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnrt/kernels/linear.h"
#include "attnrt/models/sampling.h"
#include "cli/chunk_option.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/kv_dtype_option.h"
#include "host/mapping_guard.h"
#include "cli/lm_runner.h"
#include "cli/model_file.h"
#include "cli/option_checks.h"
#include "cli/thread_option.h"
#include "host/thread_pool.h"

namespace attnrt::cli {
namespace {

constexpr size_t kByteVocab = 256;  // a byte-level model: token = byte

struct GenerateOptions {
  std::string model, prompt_tokens, prompt;
  std::string kv_dtype = "f32";
  bool has_prompt = false;
  size_t max_new_tokens = 64;
  float temperature = 0.0f;
  size_t top_k = 0;
  float top_p = 1.0f;
  uint64_t seed = 0;
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

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

int GenerateCommand(const GenerateOptions& o) {
  const char* cmd = "generate";
  std::string error;
  // Without a model argument: the bundled byte-level model this build converted.
  const std::string path = o.model.empty() ? ATTNRT_LM_MODEL : o.model;
  OpenedModel m;
  if (!OpenModel(path, &m, &error)) {
    return ReportError(cmd, o.model.empty() ? error + " (the bundled model is converted by the "
                                                      "build; give a model file)"
                                            : error);
  }
  const ModelConfig& c = m.model.config;
  if (!ArchitectureIsLanguageModel(c.arch)) {
    return ReportError(cmd, std::string(ArchitectureName(c.arch)) +
                                " is not a language model (generate runs llama models)");
  }
  const bool bytes = c.vocab_size == kByteVocab;
  std::vector<int64_t> ids;
  if (o.has_prompt == !o.prompt_tokens.empty()) {
    return ReportError(cmd, "give exactly one of --prompt TEXT and --prompt-tokens 1,2,3");
  }
  if (o.has_prompt) {
    if (!bytes) {
      return ReportError(cmd, "--prompt needs a byte-level model (vocab 256); this one has vocab " +
                                  std::to_string(c.vocab_size) + ": give --prompt-tokens");
    }
    if (o.prompt.empty()) return ReportError(cmd, "--prompt is empty: give at least one byte");
    for (unsigned char ch : o.prompt) ids.push_back(ch);
  } else if (!ParseTokenList(o.prompt_tokens, &ids, &error)) {
    return ReportError(cmd, error);
  }
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
  LmRunner lm;
  if (!StartLm(m.model, shape, pool.workers(), 0, &lm, &error)) return ReportError(cmd, error);
  std::vector<float> logits(c.vocab_size), probabilities(c.vocab_size);
  std::vector<uint32_t> order(c.vocab_size);
  SamplingParams sampling;
  sampling.temperature = o.temperature;
  sampling.top_k = o.top_k;
  sampling.top_p = o.top_p;
  uint64_t rng = SamplingSeed(o.seed);

  std::FILE* stream = ProseStream(o.json);
  if (bytes) {
    std::fwrite(o.prompt.data(), 1, o.prompt.size(), stream);
    std::fflush(stream);
  }
  auto start = std::chrono::steady_clock::now();
  Status st = lm.session.Feed(prompt.data(), prompt.size(), logits.data(), &pool);
  const double prefill_ms = MsSince(start);
  std::vector<int32_t> generated;
  double decode_ms = 0.0;
  size_t decode_steps = 0;
  while (st.ok() && generated.size() < o.max_new_tokens) {
    // The model file shrank underneath its mapping: these logits came from zero pages.
    std::string why;
    if (!MappedInputsIntact(&why)) {
      std::fputc('\n', stream);
      return ReportError(cmd, "step " + std::to_string(generated.size()) + ": " + why);
    }
    // A broken model (or cache) gives logits nothing can be chosen from: say at which step.
    const Status finite = CheckLogits(logits.data(), c.vocab_size);
    if (!finite.ok()) {
      std::fputc('\n', stream);
      return ReportError(cmd, "step " + std::to_string(generated.size()) + " (" +
                                  (generated.empty() ? "after the prompt" : "a generated token") +
                                  "): " + finite.message());
    }
    const int32_t next = static_cast<int32_t>(SampleToken(
        logits.data(), c.vocab_size, sampling, &rng, probabilities.data(), order.data()));
    generated.push_back(next);
    if (bytes) {
      std::fputc(next, stream);
    } else {
      std::fprintf(stream, "%s%d", generated.size() == 1 ? "" : " ", next);
    }
    std::fflush(stream);
    if (generated.size() == o.max_new_tokens) break;  // the last token is never fed
    start = std::chrono::steady_clock::now();
    st = lm.session.Feed(&next, 1, logits.data(), &pool);
    decode_ms += MsSince(start);
    ++decode_steps;
  }
  std::fputc('\n', stream);
  std::fflush(stream);
  if (!st.ok()) return ReportStatus(cmd, st);

  const double ms_per_token = decode_steps == 0 ? 0.0 : decode_ms / static_cast<double>(decode_steps);
  std::FILE* prose = stderr;  // timing is prose: it never mixes with the streamed text on stdout
  std::fprintf(prose,
               "generate: %zu prompt tokens, %zu new; prefill %.2f ms (%.0f tokens/s), decode "
               "%.3f ms/token (%.1f tokens/s), linear %s; %s\n",
               prompt.size(), generated.size(), prefill_ms,
               prefill_ms > 0 ? 1000.0 * static_cast<double>(prompt.size()) / prefill_ms : 0.0,
               ms_per_token, ms_per_token > 0 ? 1000.0 / ms_per_token : 0.0, LinearIsa(),
               workers.Describe().c_str());
  if (o.json) {
    nlohmann::ordered_json j;
    j["tokens"] = generated;
    if (bytes) {
      std::string text(generated.begin(), generated.end());
      // Bytes that are not valid UTF-8 are replaced rather than failing the dump.
      j["text"] = text;
    }
    j["prompt_tokens"] = prompt.size();
    j["prefill_ms"] = prefill_ms;
    j["decode_ms_per_token"] = ms_per_token;
    j["tokens_per_s"] = ms_per_token > 0 ? 1000.0 / ms_per_token : 0.0;
    j["threads"] = pool.workers();
    AddThreadsJson(workers, &j);
    j["temperature"] = o.temperature;
    j["seed"] = o.seed;
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  }
  return 0;
}

}  // namespace

void AddGenerateCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "generate", "Generate tokens (or text, for a byte-level model) from a language model");
  cmd->add_option("model", o->model,
                  "Converted language model (llama); default: the bundled byte-level model "
                  "(models/lm, converted by the build)");
  cmd->add_option("--prompt-tokens", o->prompt_tokens, "Prompt as token ids: 1,2,3");
  cmd->add_option("--prompt", o->prompt,
                  "Prompt text, for byte-level models (vocab 256: one token per byte)")
      ->each([o](const std::string&) { o->has_prompt = true; });
  cmd->add_option("--max-new-tokens", o->max_new_tokens, "Tokens to generate")
      ->capture_default_str()
      ->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--temperature", o->temperature,
                  "Sampling temperature; 0 is greedy (argmax)")
      ->capture_default_str()
      ->check(FiniteNumber(0.0, 100.0));
  cmd->add_option("--top-k", o->top_k, "Sample among the k most likely tokens (0: all)")
      ->capture_default_str()
      ->check(WholeNumber(0, kMaxDim));
  cmd->add_option("--top-p", o->top_p,
                  "Nucleus sampling: the fewest most likely tokens whose probability reaches p")
      ->capture_default_str()
      ->check(FiniteNumber(1e-6, 1.0));
  cmd->add_option("--seed", o->seed, "Random seed for sampling")
      ->capture_default_str()
      ->check(WholeNumber(0, UINT64_MAX));
  AddThreadsOption(*cmd, &o->threads);
  AddKvDtypeOption(cmd, &o->kv_dtype, "attention reads it widened");
  AddChunkOption(cmd, &o->chunk, "prompt + new tokens");
  cmd->add_flag("--json", o->json,
                "Stream tokens to stderr and print one JSON object on stdout: tokens (the "
                "generated ids), prefill_ms, decode_ms_per_token, tokens_per_s (decode)");
  cmd->callback([o, exit_code] { *exit_code = GenerateCommand(*o); });
}

}  // namespace attnrt::cli

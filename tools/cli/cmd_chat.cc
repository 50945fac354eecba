// attnrt chat: a multi-turn conversation with a language model on stdin/stdout, in the model's
// chat template (cli/chat_template.h). One line of input is one user turn; EOF ends the chat,
// so `attnrt chat M < file` runs a scripted conversation. The KV cache is kept across turns:
// a turn feeds only its own text (what the template writes after the previous reply, the user
// message, the generation prompt), never the conversation again. A reply ends at the
// template's end-of-turn token or one of the model's eos ids (that token enters the cache, as
// the template would have written it), or after --max-new-tokens (the template's reply end is
// then fed with the next turn). When a turn no longer fits in --context positions the chat
// says so and ends.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/activations_option.h"
#include "cli/chat_template.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/decode_loop.h"
#include "cli/kv_dtype_option.h"
#include "cli/lm_runner.h"
#include "cli/model_text.h"
#include "cli/option_checks.h"
#include "cli/sampling_option.h"
#include "cli/text_streamer.h"
#include "cli/thread_option.h"

namespace attnrt::cli {
namespace {

constexpr size_t kDefaultContext = 4096;

struct ChatOptions {
  std::string model, system, template_name;
  std::string kv_dtype = "f32";
  std::string activations = "auto";
  size_t context = 0;  // 0: min(max_seq_len, kDefaultContext)
  size_t max_new_tokens = 256;
  SamplingOptions sampling;
  size_t threads = 0;
  bool verbose = false;
};

// The template: --template's family, else the one the model's chat_template is recognised as.
bool ChooseTemplate(const ChatOptions& o, const OpenedModel& m, const std::string& path,
                    ChatTemplate* t, std::string* error) {
  ChatConfig config;
  if (!ReadChatConfig(m, path, &config, error)) return false;
  if (!o.template_name.empty()) {
    ChatFamily family;
    if (!ChatFamilyByName(o.template_name, &family, error)) return false;
    *t = NamedChatTemplate(family, config.bos_token, config.eos_token);
    return true;
  }
  if (config.chat_template.empty()) {
    *error = path + ": the model has no chat_template (tokenizer_config.json); give --template "
             "NAME (" + ChatFamilyNames() + ")";
    return false;
  }
  if (!RecogniseChatTemplate(config.chat_template, config.bos_token, config.eos_token, t,
                             error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

void PrintStats(size_t turn, size_t prefill, size_t before, size_t after_prefill,
                const DecodeResult& r, double prefill_ms, const std::string& fed) {
  nlohmann::ordered_json j;
  j["turn"] = turn;
  j["prefill_tokens"] = prefill;
  j["position_before"] = before;
  j["position_after_prefill"] = after_prefill;
  j["reply_tokens"] = r.tokens;
  j["end"] = DecodeEndName(r.end);
  j["end_token"] = r.stop_token;
  j["prefill_ms"] = prefill_ms;
  j["decode_ms_per_token"] =
      r.decode_steps == 0 ? 0.0 : r.decode_ms / static_cast<double>(r.decode_steps);
  j["fed_text"] = fed;
  std::fprintf(stderr, "chat: stats %s\n",
               j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
}

int ChatCommand(const ChatOptions& o) {
  const char* cmd = "chat";
  std::string error;
  OpenedModel m;
  if (!OpenModel(o.model, &m, &error, ActivationsFromName(o.activations))) {
    return ReportError(cmd, error);
  }
  const ModelConfig& c = m.model.config;
  if (!ArchitectureIsLanguageModel(c.arch)) {
    return ReportError(cmd, std::string(ArchitectureName(c.arch)) + " is not a language model");
  }
  ModelText text;
  if (!LoadModelText(m, o.model, &text, &error)) return ReportError(cmd, error);
  if (!text.tokenizer_error.empty()) return ReportError(cmd, text.tokenizer_error);
  if (!text.has_tokenizer) {
    return ReportError(cmd, o.model + ": the model has no tokenizer (convert a Hugging Face "
                                      "folder that has tokenizer.json)");
  }
  ChatTemplate t;
  if (!ChooseTemplate(o, m, o.model, &t, &error)) return ReportError(cmd, error);
  if (!o.system.empty() && !t.takes_system) {
    return ReportError(cmd, std::string("--system: the model's ") + ChatFamilyName(t.family) +
                                " chat template refuses a system message (\"System role not "
                                "supported\"); leave --system out or give --template");
  }
  int32_t end_id = 0;
  if (!SingleTokenId(text.tokenizer, EndOfTurnToken(t), &end_id, &error)) {
    return ReportError(cmd, std::string("template ") + ChatFamilyName(t.family) +
                                ": its end-of-turn token " + error);
  }
  const size_t context = o.context != 0 ? o.context : std::min(c.max_seq_len, kDefaultContext);
  if (context > c.max_seq_len) {
    return ReportError(cmd, "--context " + std::to_string(context) +
                                " is more than the model's max_seq_len " +
                                std::to_string(c.max_seq_len));
  }
  CommandPool workers(o.threads);
  ThreadPool& pool = workers.pool;
  LmShape shape;
  shape.max_seq = context;
  shape.kv_type = KvDtype(o.kv_dtype);
  shape.linear_activations = ActivationsFromName(o.activations);
  LmRunner lm;
  if (!StartLm(m.model, shape, pool.workers(), 0, &lm, &error)) return ReportError(cmd, error);
  DecodeBuffers buffers(c.vocab_size);
  uint64_t rng = SamplingSeed(o.sampling.seed);
  DecodeRequest request;
  request.stop_ids = text.eos;
  if (std::find(text.eos.begin(), text.eos.end(), end_id) == text.eos.end()) {
    request.stop_ids.push_back(end_id);
  }
  request.feed_last = true;
  request.sampling = o.sampling.params();
  request.rng = &rng;
  auto decode = [&](const std::vector<uint32_t>& ids, std::string* out, std::string* why) {
    return text.tokenizer.Decode(ids, false, out, why);
  };

  const bool interactive = isatty(STDIN_FILENO) != 0;
  std::string line, pending;  // pending: what the template writes after the previous reply
  for (size_t turn = 0;;) {
    if (interactive) {
      std::fputs("> ", stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line)) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string fed = pending + UserTurnText(t, turn, o.system, line);
    std::vector<uint32_t> encoded;
    if (!text.tokenizer.Encode(fed, false, &encoded, &error)) {
      return ReportError(cmd, "turn " + std::to_string(turn + 1) + ": " + error);
    }
    const size_t before = lm.session.position();
    // The turn and at least one reply token must fit.
    if (before + encoded.size() + 1 > context) {
      std::fprintf(stderr,
                   "chat: the context is full: turn %zu needs %zu positions and one for the "
                   "reply, %zu of %zu are used (--context %zu); start a new chat\n",
                   turn + 1, encoded.size(), before, context, context);
      return 0;
    }
    const std::vector<int32_t> ids(encoded.begin(), encoded.end());
    const auto start = std::chrono::steady_clock::now();
    const Status st = lm.session.Feed(ids.data(), ids.size(), buffers.logits.data(), &pool);
    const double prefill_ms = MsSince(start);
    if (!st.ok()) return ReportStatus(cmd, st);
    request.max_new_tokens = std::min(o.max_new_tokens, context - lm.session.position());
    TextStreamer streamer(decode, {});
    auto on_token = [&](int32_t id, bool* stop, std::string* why) {
      std::string more;
      if (!streamer.Push(static_cast<uint32_t>(id), &more, stop, why)) return false;
      std::fwrite(more.data(), 1, more.size(), stdout);
      std::fflush(stdout);
      return true;
    };
    DecodeResult r;
    std::string rest;
    if (!DecodeTokens(&lm.session, request, &buffers, &pool, on_token, &r, &error) ||
        !streamer.Finish(&rest, &error)) {
      std::fputc('\n', stdout);
      return ReportError(cmd, "turn " + std::to_string(turn + 1) + ": " + error);
    }
    std::fwrite(rest.data(), 1, rest.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    ++turn;
    if (o.verbose) PrintStats(turn, ids.size(), before, before + ids.size(), r, prefill_ms, fed);
    const bool full = !r.last_fed || lm.session.position() >= context;
    if (full) {
      std::fprintf(stderr, "chat: the context is full (%zu positions, --context %zu)%s; start "
                           "a new chat\n",
                   context, context, r.end == DecodeEnd::kStopToken ? "" : ": the reply was cut");
      return 0;
    }
    // A reply that ended with the template's end token: the template's text after that token
    // comes next; one cut by --max-new-tokens or ended by another eos id (<|endoftext|>): the
    // template's whole reply end.
    pending = r.end == DecodeEnd::kStopToken && r.stop_token == end_id ? AfterEndOfTurn(t)
                                                                        : ReplyEnd(t);
  }
  return 0;
}

}  // namespace

void AddChatCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ChatOptions>();
  CLI::App* cmd = app.add_subcommand(
      "chat",
      "Chat with a language model in its chat template: one line of standard input per user "
      "turn (EOF ends), replies streamed to standard output, the KV cache kept across turns");
  cmd->add_option("model", o->model,
                  "Converted language model with a tokenizer (`attnrt convert HF_DIR`)")
      ->required();
  cmd->add_option("--system", o->system, "System message (the template decides where it goes)");
  cmd->add_option("--template", o->template_name,
                  "Chat template to use instead of the model's: " + ChatFamilyNames());
  cmd->add_option("--context", o->context,
                  "Positions the conversation may take (KV cache size); default: the model's "
                  "max_seq_len, at most " + std::to_string(kDefaultContext))
      ->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--max-new-tokens", o->max_new_tokens, "Most tokens of one reply")
      ->capture_default_str()
      ->check(WholeNumber(1, kMaxDim));
  AddSamplingOptions(cmd, &o->sampling);
  AddThreadsOption(*cmd, &o->threads);
  AddKvDtypeOption(cmd, &o->kv_dtype, "attention reads it widened");
  AddActivationsOption(cmd, &o->activations, "applies to every Linear layer");
  cmd->add_flag("--verbose", o->verbose,
                "After each reply, a line 'chat: stats {json}' on stderr: the turn's prefill "
                "tokens and positions, the reply's ids, why it ended, timing, the text fed");
  cmd->callback([o, exit_code] { *exit_code = ChatCommand(*o); });
}

}  // namespace attnrt::cli

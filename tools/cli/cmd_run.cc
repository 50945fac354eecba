// attnrt run: one forward pass of a converted model on a (B, L, E) .npy input
// (or, for a language model, (B, T) token ids to (B, T, vocab) logits),
// optionally with a chosen SDPA kernel (--kernel) and, for a single-layer model,
// its attention weights (--weights-out), as `attnrt sdpa` takes them.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/activations_option.h"
#include "cli/chunk_option.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/kv_dtype_option.h"
#include "cli/linear_report.h"
#include "cli/option_checks.h"
#include "cli/kernel_choice.h"
#include "cli/key_padding_mask.h"
#include "cli/lm_runner.h"
#include "cli/model_file.h"
#include "cli/thread_option.h"
#include "host/aligned_buffer.h"
#include "host/thread_pool.h"
#include "output/output_file.h"

namespace attnrt::cli {
namespace {

struct RunOptions {
  std::string model, input, tokens, out, weights_out, mask, key_padding_mask;
  std::string kv_dtype = "f32";  // language models only
  std::string causal = "none";
  std::string kernel = "auto";
  std::string activations = "auto";  // --activations: integer weights' Linear inputs
  size_t threads = 0;
  size_t arena_bytes = 0;  // 0: the plan's size
  size_t chunk = 0;        // language models: tokens per pass; 0: the session's default
};

// The mask the model gets: --mask as given, or merged with --key-padding-mask.
bool LoadMasks(const RunOptions& o, size_t batch, size_t seq, npy::Array* mask,
               std::string* error) {
  npy::Array given, padding;
  const bool has_mask = !o.mask.empty(), has_padding = !o.key_padding_mask.empty();
  if (has_mask && !LoadNpy(o.mask, "mask", &given, error)) return false;
  if (!has_padding) {
    *mask = std::move(given);
    return true;
  }
  if (!LoadNpy(o.key_padding_mask, "key padding mask", &padding, error)) return false;
  if (!MergeKeyPaddingMask(has_mask ? &given : nullptr, padding, batch, seq, mask, error)) {
    *error = o.key_padding_mask + ": " + *error;
    return false;
  }
  return true;
}

// A language model: (batch, T) token ids -> (batch, T, vocab) logits, through a
// session whose cache holds exactly T positions.
int RunLanguageModel(const RunOptions& o, const Model& model) {
  const char* cmd = "run";
  const ModelConfig& c = model.config;
  std::string error;
  if (o.tokens.empty()) {
    return ReportError(cmd, std::string(ArchitectureName(c.arch)) +
                                " is a language model: give --tokens T.npy ((batch, seq) int32 "
                                "or int64 token ids), not --input");
  }
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--input", &o.input},
                                    {"--mask", &o.mask},
                                    {"--key-padding-mask", &o.key_padding_mask},
                                    {"--weights-out", &o.weights_out}}) {
    if (!value->empty()) {
      return ReportError(cmd, std::string(flag) + " does not apply to a language model (" +
                                  ArchitectureName(c.arch) + " is causal and takes --tokens)");
    }
  }
  if (o.kernel != "auto" || o.causal != "none") {
    return ReportError(cmd, "--kernel and --causal do not apply to a language model: prefill "
                            "runs the flash kernel, decode steps the decode kernel, always causal");
  }
  npy::Array ids;
  if (!npy::ReadIntegerFile(o.tokens, &ids, &error)) return ReportError(cmd, error);
  if (ids.shape.size() != 2 || ids.shape[0] == 0 || ids.shape[1] == 0) {
    return ReportError(cmd, "tokens " + o.tokens + " must be (batch, seq) with both >= 1, got " +
                                npy::ShapeString(ids.shape));
  }
  const size_t batch = ids.shape[0], seq = ids.shape[1];
  std::vector<int32_t> tokens;
  if (!TokenIds(ids.i64, seq, c.vocab_size, &tokens, &error)) {
    return ReportError(cmd, o.tokens + ": " + error);
  }
  if (seq > c.max_seq_len) {
    return ReportError(cmd, o.tokens + " has " + std::to_string(seq) +
                                " tokens per sequence, more than the model's max_seq_len " +
                                std::to_string(c.max_seq_len));
  }
  const std::vector<size_t> y_shape = {batch, seq, c.vocab_size};
  std::vector<float> y;
  if (!AllocateFloats(y_shape, "logits", &y, &error)) return ReportError(cmd, error);
  CommandPool workers(o.threads);
  ThreadPool& pool = workers.pool;
  LmShape shape;
  shape.batch = batch;
  shape.max_seq = seq;
  shape.chunk = std::min(o.chunk, seq);  // a longer chunk than the input means one pass
  shape.all_logits = true;
  shape.kv_type = KvDtype(o.kv_dtype);
  shape.linear_activations = ActivationsFromName(o.activations);
  LmRunner lm;
  if (!StartLm(model, shape, pool.workers(), o.arena_bytes, &lm, &error)) {
    return ReportError(cmd, error);
  }
  const auto start = std::chrono::steady_clock::now();
  const Status st = lm.session.Feed(tokens.data(), seq, y.data(), &pool);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!st.ok()) {
    return ReportError(cmd, RunFailureMessage(st, LmPlannedArena(lm.plan, lm.arena->capacity())));
  }
  if (!npy::WriteFloat32(o.out, y_shape, y.data(), &error)) return ReportError(cmd, error);
  std::printf("run: %s, %zu layer(s), tokens %s -> logits %s -> %s, %.3f ms, %s, linear %s\n",
              ArchitectureName(c.arch), c.num_layers, npy::ShapeString(ids.shape).c_str(),
              npy::ShapeString(y_shape).c_str(), o.out.c_str(), ms,
              DescribeThreads(o.threads).c_str(),
              LinearUsesText(ModelLinearUses(model, shape.linear_activations)).c_str());
  std::printf("arena: planned %zu bytes (kv cache %zu, activations %zu, scratch %zu), used %zu\n",
              lm.plan.arena_bytes, lm.plan.kv_cache_bytes, lm.plan.activation_bytes,
              lm.plan.scratch_bytes, lm.arena->high_water());
  return 0;
}

int RunModelCommand(const RunOptions& o) {
  const char* cmd = "run";
  std::string error;
  if (!CheckOutputPaths({{"model", o.model}, {"--input", o.input}, {"--tokens", o.tokens},
                         {"--mask", o.mask}, {"--key-padding-mask", o.key_padding_mask}},
                        {{"--out", o.out}, {"--weights-out", o.weights_out}}, &error)) {
    return ReportError(cmd, error);
  }
  OpenedModel m;
  if (!OpenModel(o.model, &m, &error, ActivationsFromName(o.activations))) {
    return ReportError(cmd, error);
  }
  const ModelConfig& c = m.model.config;
  if (ArchitectureIsLanguageModel(c.arch)) return RunLanguageModel(o, m.model);
  if (o.chunk != 0 || o.kv_dtype != "f32") {
    return ReportError(cmd, std::string(o.chunk != 0 ? "--chunk" : "--kv-dtype") +
                                " applies to language models only, not " +
                                ArchitectureName(c.arch));
  }
  if (o.input.empty()) {
    return ReportError(cmd, std::string("give --input X.npy (") + ArchitectureName(c.arch) +
                                " takes float rows" +
                                (o.tokens.empty() ? ")" : "; --tokens is for language models)"));
  }

  npy::Array x, mask;
  if (!LoadNpy(o.input, "input", &x, &error)) return ReportError(cmd, error);
  ModelInput in;
  TensorShape x_shape;
  if (x.dtype != npy::DType::kFloat32) {
    return ReportError(cmd, "input " + o.input + " must be float32, got bool");
  }
  if (!ToTensorShape(x.shape, "input " + o.input, &x_shape, &error)) return ReportError(cmd, error);
  Status st = ModelBatchAndSeq(c, x_shape, &in.batch, &in.seq);
  if (!st.ok()) {
    return ReportError(cmd, "input " + o.input + ": " + st.message() + ", got " +
                                npy::ShapeString(x.shape));
  }
  in.x = x.f32.data();
  in.causal = ParseCausal(o.causal);
  if (!o.mask.empty() || !o.key_padding_mask.empty()) {
    if (!LoadMasks(o, in.batch, in.seq, &mask, &error) ||
        !ToTensorShape(mask.shape, "mask", &in.mask_shape, &error)) {
      return ReportError(cmd, error);
    }
    const bool is_bool = mask.dtype == npy::DType::kBool;
    in.mask_kind = is_bool ? MaskKind::kBool : MaskKind::kAdditive;
    in.mask = is_bool ? static_cast<const void*>(mask.b8.data())
                      : static_cast<const void*>(mask.f32.data());
  }

  const bool want_weights = !o.weights_out.empty();
  if (want_weights && c.num_layers != 1) {
    return ReportError(cmd, "--weights-out: attention weights are returned for single-layer models "
                            "only (this one has " + std::to_string(c.num_layers) + " layers)");
  }
  SdpaParams shape = ModelSdpaShape(c, in);
  static float weights_marker;  // any non-null address: kernel choice sees weights wanted
  if (want_weights) shape.weights = &weights_marker;
  const SdpaKernel* kernel = nullptr;  // auto: chosen per call by the models layer
  if (o.kernel != "auto") {
    if (!ResolveKernel(o.kernel, shape, &kernel, &error)) return ReportError(cmd, error);
    if (want_weights && !kernel->returns_weights) {
      return ReportError(cmd, std::string("kernel '") + kernel->name +
                                  "' cannot return attention weights (--weights-out)");
    }
  }
  in.kernel = kernel;
  in.linear_activations = ActivationsFromName(o.activations);

  CommandPool workers(o.threads);
  ThreadPool& pool = workers.pool;
  ModelPlan plan;
  st = PlanModel(m.model, in.batch, in.seq, pool.workers(), &plan, want_weights, kernel,
                 in.linear_activations);
  if (!st.ok()) return ReportStatus(cmd, st);
  TensorShape y_dims;
  st = ModelOutputShape(c, in.batch, in.seq, &y_dims);
  if (!st.ok()) return ReportStatus(cmd, st);
  const size_t arena_bytes = o.arena_bytes != 0 ? o.arena_bytes : plan.arena_bytes;
  AlignedBuffer buffer(arena_bytes);
  if (!buffer.ok()) {
    return ReportError(cmd, "cannot allocate the arena of " + std::to_string(arena_bytes) + " bytes");
  }
  Arena arena(buffer.data(), arena_bytes);
  const std::vector<size_t> y_shape = ToVector(y_dims);
  const std::vector<size_t> weights_shape = {in.batch, c.heads, in.seq, in.seq};
  std::vector<float> y, weights;
  if (!AllocateFloats(y_shape, "output", &y, &error) ||
      (want_weights && !AllocateFloats(weights_shape, "attention weights", &weights, &error))) {
    return ReportError(cmd, error);
  }
  if (want_weights) in.weights = weights.data();

  const auto start = std::chrono::steady_clock::now();
  st = RunModel(m.model, in, y.data(), &arena, &pool);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!st.ok()) {
    const PlannedArena planned{plan.activation_bytes, plan.scratch_bytes, plan.arena_bytes,
                               arena_bytes};
    return ReportError(cmd, RunFailureMessage(st, planned) +
                                (o.mask.empty() ? "" : " (mask " + o.mask + " " +
                                                           npy::ShapeString(mask.shape) + ")"));
  }
  // Both outputs are written in full before either replaces its target.
  OutputFile out_file, weights_file;
  if (!out_file.Open(o.out, &error) || !npy::WriteFloat32To(&out_file, y_shape, y.data(), &error)) {
    return ReportError(cmd, error);
  }
  if (want_weights &&
      (!weights_file.Open(o.weights_out, &error) ||
       !npy::WriteFloat32To(&weights_file, weights_shape, weights.data(), &error))) {
    return ReportError(cmd, error);
  }
  if (!out_file.Commit(&error) || (want_weights && !weights_file.Commit(&error))) {
    return ReportError(cmd, error);
  }
  std::printf("run: %s, %zu layer(s)%s, out %s -> %s%s, %.3f ms, %s, kernel %s\n",
              ArchitectureName(c.arch), c.num_layers,
              c.causal != CausalKind::kNone ? ", causal (stored in the model)" : "",
              npy::ShapeString(y_shape).c_str(), o.out.c_str(),
              want_weights ? (", weights " + npy::ShapeString(weights_shape) + " -> " + o.weights_out).c_str() : "",
              ms, DescribeThreads(o.threads).c_str(), kernel != nullptr ? kernel->name : "auto");
  std::printf("arena: planned %zu bytes (activations %zu + scratch %zu), have %zu, used %zu bytes\n",
              plan.arena_bytes, plan.activation_bytes, plan.scratch_bytes, arena_bytes,
              arena.high_water());
  return 0;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a converted model on one input");
  cmd->add_option("model", o->model, "Converted model file (attnrt convert)")->required();
  cmd->add_option("--input", o->input,
                  "Input float32 .npy: (batch, seq, dim), or (seq, batch, dim) for a model "
                  "converted with batch_first false, or (batch, 3, H, W) images for vit");
  cmd->add_option("--tokens", o->tokens,
                  "Language models (llama): (batch, seq) int32 or int64 token ids .npy; --out "
                  "gets the float32 logits (batch, seq, vocab)");
  cmd->add_option("--out", o->out, "Output .npy to write (same layout; (batch, classes) for vit)")
      ->required();
  cmd->add_option("--weights-out", o->weights_out,
                  "Also write the attention weights (batch, heads, seq, seq) .npy (single-layer "
                  "models only; runs a kernel that returns weights)");
  cmd->add_option("--mask", o->mask,
                  "Attention mask with SDPA semantics, broadcastable to (batch, heads, seq, seq): "
                  "bool True = MAY attend (the opposite of nn.MultiheadAttention's bool attn_mask), "
                  "or float32 added to the scores");
  cmd->add_option("--key-padding-mask", o->key_padding_mask,
                  "PyTorch key_padding_mask (batch, seq): bool True = padding, IGNORE this key "
                  "(as src_key_padding_mask), or float32 added; combines with --mask");
  AddCausalOption(*cmd, &o->causal);
  AddKernelOption(*cmd, &o->kernel);
  AddThreadsOption(*cmd, &o->threads);
  cmd->add_option("--arena-bytes", o->arena_bytes,
                  "Run in an arena of this many bytes instead of the plan's size (to check a plan "
                  "as firmware with a fixed arena would)")
      ->check(WholeNumber(1, uint64_t{1} << 48));
  AddKvDtypeOption(cmd, &o->kv_dtype, "language models (--tokens) only");
  AddActivationsOption(cmd, &o->activations, "applies to every Linear layer");
  AddChunkOption(cmd, &o->chunk, "seq");
  cmd->callback([o, exit_code] { *exit_code = RunModelCommand(*o); });
}

}  // namespace attnrt::cli

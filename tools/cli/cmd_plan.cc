// attnrt plan: exact arena bytes by region, for a model (`plan MODEL --seq N`)
// or for one SDPA call (`plan sdpa --batch B --heads H --seq N --dim D ...`).
// Both plan for the worker count the other commands run with by default (one per
// physical core; --threads). With --json stdout holds only one JSON object
// {"arena_bytes": ..., "scratch_bytes": ..., "threads": ..., ...}; the table goes to stderr.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "attnrt/runtime/sdpa.h"
#include "attnrt/runtime/checked_math.h"
#include "cli/activations_option.h"
#include "cli/chunk_option.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/kv_dtype_option.h"
#include "cli/linear_report.h"
#include "cli/option_checks.h"
#include "cli/kernel_choice.h"
#include "cli/lm_runner.h"
#include "cli/model_file.h"
#include "cli/thread_option.h"

namespace attnrt::cli {
namespace {

struct PlanModelOptions {
  std::string model;
  size_t seq = 0, batch = 1, threads = 0, max_seq = 0, chunk = 0;
  std::string kv_dtype = "f32";  // language models only
  std::string kernel = "auto";
  std::string activations = "auto";  // picks the Linear kernel, whose scratch the plan counts
  bool weights = false, json = false;
};

struct PlanSdpaOptions {
  size_t batch = 1, heads = 1, kv_heads = 0, seq = 0, seq_kv = 0, dim = 0, dim_v = 0, threads = 0;
  std::string kernel = "auto";
  std::string causal = "none";
  bool weights = false, json = false;
};

// What every model plan ends with: the weights line under the table and, for --json,
// the fields that describe the model (after the plan's own byte counts).
// The Linear kernels' packed copies of the weights the commands that run the model allocate
// beside the arena (model.h's ModelPackedBytes; 0 if the sum overflows, which a run refuses).
size_t PackedWeightBytes(const OpenedModel& m, LinearActivations activations) {
  size_t bytes = 0;
  return ModelPackedBytes(m.model, activations, &bytes).ok() ? bytes : 0;
}
void PrintWeightBytes(std::FILE* prose, const OpenedModel& m, LinearActivations activations) {
  std::fprintf(prose, "  weights     %12zu bytes (read in place, not in the arena)\n",
               m.file.file_size());
  const size_t packed = PackedWeightBytes(m, activations);
  if (packed != 0) {
    std::fprintf(prose, "  packed      %12zu bytes (the Linear kernels' copies of weights, "
                        "not in the arena: model.h)\n", packed);
  }
}
void AddModelFields(nlohmann::ordered_json* j, const OpenedModel& m, size_t batch,
                    LinearActivations activations) {
  (*j)["weight_file_bytes"] = m.file.file_size();
  (*j)["packed_weight_bytes"] = PackedWeightBytes(m, activations);
  // What `embed --plan-from` checks: a firmware session runs auto.
  (*j)["activations"] = ActivationsName(activations);
  AddLinearUsesJson(ModelLinearUses(m.model, activations), j);
  (*j)["architecture"] = ArchitectureName(m.model.config.arch);
  (*j)["layers"] = m.model.config.num_layers;
  (*j)["batch"] = batch;
}

// A language model's session: KV cache for --max-seq positions, RoPE table, one chunk.
int PlanLanguageModel(const PlanModelOptions& o, const OpenedModel& m) {
  const ModelConfig& c = m.model.config;
  if (o.seq != 0 || o.weights || o.kernel != "auto") {
    return ReportError("plan", std::string(ArchitectureName(c.arch)) +
                                   " is a language model: plan it with --max-seq N [--batch B] "
                                   "[--chunk C] (--seq, --weights and --kernel do not apply)");
  }
  LmShape shape;
  shape.batch = o.batch;
  shape.max_seq = o.max_seq != 0 ? o.max_seq : c.max_seq_len;
  shape.chunk = o.chunk;
  shape.kv_type = KvDtype(o.kv_dtype);
  shape.linear_activations = ActivationsFromName(o.activations);
  const size_t threads = ResolveThreads(o.threads);
  LmPlan plan;
  Status st = CheckLmShape(m.model, shape, &shape);
  if (st.ok()) st = PlanLm(m.model, shape, threads, &plan);
  if (!st.ok()) return ReportStatus("plan", st);
  std::FILE* prose = ProseStream(o.json);
  std::fprintf(prose,
               "plan: %s, %zu layer(s), batch %zu, max_seq %zu, chunk %zu, KV cache %s, linear %s; "
               "%s\n",
               ArchitectureName(c.arch), c.num_layers, shape.batch, shape.max_seq, shape.chunk,
               KvTypeName(shape.kv_type),
               LinearUsesText(ModelLinearUses(m.model, shape.linear_activations)).c_str(),
               DescribeThreads(o.threads).c_str());
  if (c.sliding_window != 0) {
    std::fprintf(prose,
                 "  sliding window %zu: the cache keeps %zu of %zu positions per sequence "
                 "(min(max_seq, window - 1 + chunk))\n",
                 c.sliding_window, plan.cache_rows, shape.max_seq);
  }
  std::fprintf(prose, "%s", LmPlanText(plan).c_str());
  PrintWeightBytes(prose, m, shape.linear_activations);
  if (o.json) {
    nlohmann::ordered_json j;
    j["arena_bytes"] = plan.arena_bytes;
    j["kv_cache_bytes"] = plan.kv_cache_bytes;
    j["kv_cache_rows"] = plan.cache_rows;
    j["kv_dtype"] = KvTypeName(shape.kv_type);
    j["sliding_window"] = c.sliding_window == 0 ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(c.sliding_window);
    j["rope_table_bytes"] = plan.rope_table_bytes;
    j["activation_bytes"] = plan.activation_bytes;
    j["scratch_bytes"] = plan.scratch_bytes;
    AddModelFields(&j, m, shape.batch, shape.linear_activations);
    j["max_seq"] = shape.max_seq;
    j["chunk"] = shape.chunk;
    j["threads"] = threads;
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

int PlanModelCommand(const PlanModelOptions& o) {
  std::string error;
  OpenedModel m;
  if (!OpenModel(o.model, &m, &error)) return ReportError("plan", error);
  const ModelConfig& c = m.model.config;
  if (ArchitectureIsLanguageModel(c.arch)) return PlanLanguageModel(o, m);
  if (o.max_seq != 0 || o.chunk != 0 || o.kv_dtype != "f32") {
    return ReportError("plan", "--max-seq, --chunk and --kv-dtype plan a language model's KV "
                               "cache; " + std::string(ArchitectureName(c.arch)) +
                                   " takes --seq N");
  }
  const bool images = ArchitectureTakesImages(c.arch);
  if (!images && o.seq == 0) {
    return ReportError("plan", "give --seq N for a sequence model (" +
                                   std::string(ArchitectureName(c.arch)) + ")");
  }
  const size_t threads = ResolveThreads(o.threads);
  const SdpaKernel* kernel = nullptr;
  if (o.kernel != "auto") {
    SdpaParams p;  // only for the message naming what auto would run instead
    p.batch = o.batch;
    p.q_heads = p.kv_heads = c.heads;
    p.q_len = p.kv_len = images ? VitTokens(c) : o.seq;
    p.qk_dim = c.qk_dim;
    p.v_dim = c.v_dim;
    if (!ResolveKernel(o.kernel, p, &kernel, &error)) return ReportError("plan", error);
  }
  ModelPlan plan;
  const LinearActivations activations = ActivationsFromName(o.activations);
  const Status st =
      PlanModel(m.model, o.batch, o.seq, threads, &plan, o.weights, kernel, activations);
  if (!st.ok()) return ReportStatus("plan", st);
  std::FILE* prose = ProseStream(o.json);
  if (images) {
    // An image model's sequence is fixed by its config: one token per patch plus the class token.
    std::fprintf(prose, "plan: %s, batch %zu images of %zux%zu (%zu tokens each), %s\n",
                 ArchitectureName(c.arch), o.batch, c.image_size, c.image_size, VitTokens(c),
                 DescribeThreads(o.threads).c_str());
  } else {
    std::fprintf(prose, "plan: %s, %zu layer(s), batch %zu, seq %zu, %s\n",
                 ArchitectureName(c.arch), c.num_layers, o.batch, o.seq,
                 DescribeThreads(o.threads).c_str());
  }
  std::fprintf(prose, "  activations %12zu bytes\n  scratch     %12zu bytes\n  arena       %12zu bytes\n",
               plan.activation_bytes, plan.scratch_bytes, plan.arena_bytes);
  PrintWeightBytes(prose, m, activations);
  if (o.json) {
    nlohmann::ordered_json j;
    j["arena_bytes"] = plan.arena_bytes;
    j["scratch_bytes"] = plan.scratch_bytes;
    j["activation_bytes"] = plan.activation_bytes;
    AddModelFields(&j, m, o.batch, activations);
    j["seq"] = images ? VitTokens(c) : o.seq;
    j["threads"] = threads;
    j["kernel"] = kernel != nullptr ? kernel->name : "auto";
    j["weights"] = o.weights;
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

int PlanSdpaCommand(const PlanSdpaOptions& o) {
  // The shapes go through the same binding `sdpa` and `bench` use: heads that do
  // not divide and sizes that overflow are refused here as there.
  const size_t kv_heads = o.kv_heads == 0 ? o.heads : o.kv_heads;
  const size_t seq_kv = o.seq_kv == 0 ? o.seq : o.seq_kv, dim_v = o.dim_v == 0 ? o.dim : o.dim_v;
  SdpaParams p;
  TensorShape out_shape, weights_shape;
  const Status bound = BindSdpaShapes(Shape4(o.batch, o.heads, o.seq, o.dim),
                                      Shape4(o.batch, kv_heads, seq_kv, o.dim),
                                      Shape4(o.batch, kv_heads, seq_kv, dim_v), nullptr,
                                      MaskKind::kNone, &p, &out_shape, &weights_shape);
  if (!bound.ok()) return ReportStatus("plan", bound);
  p.causal = ParseCausal(o.causal);
  // Any non-null address tells kernel choice that weights are wanted.
  static float weights_marker;
  if (o.weights) p.weights = &weights_marker;
  const SdpaKernel* kernel = nullptr;
  std::string error;
  if (!ResolveKernel(o.kernel, p, &kernel, &error)) return ReportError("plan", error);
  if (o.weights && !kernel->returns_weights) {
    return ReportError("plan", std::string("kernel '") + kernel->name +
                                   "' cannot return attention weights");
  }
  const size_t threads = ResolveThreads(o.threads);
  size_t scratch = 0;
  const Status st = SdpaScratchBytes(p, *kernel, threads, &scratch);
  if (!st.ok()) return ReportStatus("plan", st);
  // BindSdpaShapes checked that every one of these byte counts fits size_t.
  const size_t f = sizeof(float);
  const size_t q = p.batch * p.q_heads * p.q_len * p.qk_dim * f;
  const size_t k = p.batch * p.kv_heads * p.kv_len * p.qk_dim * f;
  const size_t v = p.batch * p.kv_heads * p.kv_len * p.v_dim * f;
  size_t kv;
  if (!CheckedAdd(k, v, &kv)) return ReportError("plan", "key + value bytes overflow size_t");
  const size_t out = p.batch * p.q_heads * p.q_len * p.v_dim * f;
  const size_t w = o.weights ? p.batch * p.q_heads * p.q_len * p.kv_len * f : 0;
  std::FILE* prose = ProseStream(o.json);
  std::fprintf(prose, "plan sdpa: kernel %s (%s), %s\n", kernel->name, kernel->isa(),
               DescribeThreads(o.threads).c_str());
  std::fprintf(prose,
               "  scratch     %12zu bytes (arena)\n  q           %12zu bytes\n  k+v         %12zu bytes\n"
               "  out         %12zu bytes\n  weights     %12zu bytes\n",
               scratch, q, kv, out, w);
  if (o.json) {
    nlohmann::ordered_json j;
    j["kernel"] = kernel->name;
    j["isa"] = kernel->isa();
    j["threads"] = threads;
    j["arena_bytes"] = scratch;
    j["scratch_bytes"] = scratch;
    j["q_bytes"] = q;
    j["kv_bytes"] = kv;
    j["out_bytes"] = out;
    j["weights_bytes"] = w;
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

}  // namespace

void AddPlanCommand(CLI::App& app, int* exit_code) {
  auto mo = std::make_shared<PlanModelOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Exact arena bytes by region for a model (plan MODEL --seq N) or an SDPA call (plan sdpa ...)");
  cmd->add_option("model", mo->model, "Converted model file");
  cmd->add_option("--seq", mo->seq, "Sequence length (not for vit: its token count is fixed)")->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--batch", mo->batch, "Batch size")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--max-seq", mo->max_seq,
                  "Language models: positions the KV cache holds (default: the model's max_seq_len)")
      ->check(WholeNumber(1, kMaxDim));
  AddKvDtypeOption(cmd, &mo->kv_dtype, "language models only");
  AddActivationsOption(cmd, &mo->activations,
                       "plans the scratch of the kernel that value picks, for a run with the "
                       "same --activations");
  AddChunkOption(cmd, &mo->chunk, "--max-seq");
  AddThreadsOption(*cmd, &mo->threads);
  cmd->add_option("--kernel", mo->kernel,
                  "Plan for `run --kernel NAME` (see `attnrt kernels`), or auto")
      ->capture_default_str();
  cmd->add_flag("--weights", mo->weights, "Plan for `run --weights-out` (single-layer models)");
  cmd->add_flag("--json", mo->json, "Print only a JSON object on stdout (the table goes to stderr)");

  auto so = std::make_shared<PlanSdpaOptions>();
  CLI::App* sdpa = cmd->add_subcommand("sdpa", "Scratch and tensor bytes of one SDPA call");
  const CLI::Validator dim = WholeNumber(1, kMaxDim);
  sdpa->add_option("--batch", so->batch, "Batch size")->capture_default_str()->check(dim);
  sdpa->add_option("--heads", so->heads, "Query heads")->capture_default_str()->check(dim);
  sdpa->add_option("--kv-heads", so->kv_heads, "Key/value heads (default: --heads)")->check(dim);
  sdpa->add_option("--seq", so->seq, "Query length L")->required()->check(dim);
  sdpa->add_option("--seq-kv", so->seq_kv, "Key length S (default: --seq)")->check(dim);
  sdpa->add_option("--dim", so->dim, "Query/key dim E")->required()->check(dim);
  sdpa->add_option("--dim-v", so->dim_v, "Value dim Ev (default: --dim)")->check(dim);
  AddKernelOption(*sdpa, &so->kernel);
  AddCausalOption(*sdpa, &so->causal);
  AddThreadsOption(*sdpa, &so->threads);
  sdpa->add_flag("--weights", so->weights, "Plan for returning attention weights");
  sdpa->add_flag("--json", so->json, "Print only a JSON object on stdout (the table goes to stderr)");
  sdpa->callback([so, mo, exit_code] {
    // `plan MODEL sdpa ...` would plan a bare SDPA call and ignore MODEL: refuse it.
    if (!mo->model.empty()) {
      *exit_code = ReportError("plan", "`plan sdpa` plans one SDPA call and takes no model file (got " +
                                           mo->model + "); use `attnrt plan MODEL --seq N`");
      return;
    }
    *exit_code = PlanSdpaCommand(*so);
  });

  cmd->callback([sdpa, mo, exit_code] {
    if (sdpa->parsed()) return;
    if (mo->model.empty()) {
      *exit_code = ReportError("plan", "give a model file (and --seq N), or use `attnrt plan sdpa ...`");
      return;
    }
    *exit_code = PlanModelCommand(*mo);
  });
}

}  // namespace attnrt::cli

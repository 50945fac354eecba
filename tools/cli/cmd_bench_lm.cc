// attnrt bench lm: prefill and decode speed of a language model, beside the two
// references that say how good they are, measured in the same run:
//   prefill: GFLOP/s against this machine's FMA peak (bench peak), counting the
//     flops the pass does: 2 * (layer matrix parameters) * tokens, the output
//     matrix once (only the last token's logits are computed) and the causal
//     attention pairs;
//   decode: ms per token against read_ms, one vectorized read of every weight
//     byte a step reads plus the KV bytes it reads (a decode step is memory
//     bound: it can not be faster than reading what it needs once).
// The model is a converted file, or a config.json (random weights at that
// shape, tied embeddings), e.g. bench/configs/stories15m.json.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "attnrt/models/language_model.h"
#include "attnrt/models/model_spec.h"
#include "cli/activations_option.h"
#include "cli/bench_timing.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/isa_option.h"
#include "cli/kv_dtype_option.h"
#include "cli/linear_report.h"
#include "cli/weight_dtype_option.h"
#include "convert/config_metadata.h"
#include "cli/lm_runner.h"
#include "cli/model_file.h"
#include "cli/option_checks.h"
#include "cli/thread_option.h"
#include "convert/tensor_encoding.h"
#include "host/fma_peak.h"
#include "host/memory_read.h"
#include "cli/bench_model_memory.h"
#include "host/thread_pool.h"

namespace attnrt::cli {
namespace {

struct BenchLmOptions {
  std::string model;
  size_t prompt_len = 256;  // capped to the model's max_seq_len
  size_t gen = 32;
  size_t threads = 0;
  double seconds = 2.0;
  unsigned seed = 1;
  std::string dtype = "f32";  // weight matrices of a config's random model
  std::string kv_dtype = "f32";
  std::string activations = "auto";
  std::string isa = "best";
  bool json = false;
};

// The model under test: a mapped file, or random weights built from a config.
struct BenchModel {
  OpenedModel opened;
  std::vector<uint8_t> bytes;  // the in-memory weight file of a config's random model
  WeightFile file;
  Model model;
  std::unique_ptr<AlignedBuffer> packed;  // the Linear kernels' packed weight copies
};

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Random weights at a config's shape: matrices uniform in +-1/sqrt(in), norms 1;
// optional tensors (llama's output.weight) left out, so embeddings are tied.
bool RandomModel(const std::string& path, unsigned seed, WeightType matrix_type, BenchModel* m,
                 std::string* error) {
  JsonConfig json;
  if (!LoadJsonConfig(path, &json, error)) return false;
  std::string arch_name;
  if (!json.Has("architecture") || !json.GetString("architecture", &arch_name, error)) {
    if (error->empty()) *error = path + " has no \"architecture\" key";
    return false;
  }
  Architecture arch;
  const Status st = ParseArchitecture(arch_name.c_str(), &arch);
  if (!st.ok()) {
    *error = path + ": " + st.message();
    return false;
  }
  WeightFileWriter writer;
  ModelConfig config;
  if (!WriteConfigMetadata(arch, json, &writer, error) || !DeriveConfig(writer, &config, error)) {
    return false;
  }
  if (!CheckRandomModelFits(config, matrix_type, error)) return false;
  std::mt19937 rng(seed);
  for (size_t i = 0; i < ModelTensorCount(config); ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec)) return false;
    if (spec.optional) continue;
    const std::vector<size_t> shape = ToVector(spec.shape);
    std::vector<float> values;
    if (!AllocateFloats(shape, spec.name, &values, error)) return false;
    if (spec.shape.rank == 1) {
      std::fill(values.begin(), values.end(), 1.0f);
    } else {
      const float a = 1.0f / std::sqrt(static_cast<float>(shape.back()));
      std::uniform_real_distribution<float> uniform(-a, a);
      for (float& v : values) v = uniform(rng);
    }
    const WeightType type = spec.matrix ? matrix_type : WeightType::kF32;
    if (!writer.AddTensor(spec.name, shape, values.data(), type, error)) return false;
  }
  if (!writer.Serialize(&m->bytes, error)) return false;
  Status s = WeightFile::Open(m->bytes.data(), m->bytes.size(), &m->file);
  if (s.ok()) s = LoadModel(m->file, &m->model);
  if (!s.ok()) {
    *error = s.message();
    return false;
  }
  return true;
}

bool OpenBenchModel(const std::string& path, unsigned seed, const std::string& dtype,
                    BenchModel* m, std::string* error) {
  WeightType matrix_type;
  if (!ParseWeightType(dtype.c_str(), &matrix_type)) {
    *error = "--dtype " + dtype + " is not one of " + WeightTypeNames();
    return false;
  }
  if (EndsWith(path, ".json")) return RandomModel(path, seed, matrix_type, m, error);
  if (matrix_type != WeightType::kF32) {
    *error = "--dtype applies to a config.json's random weights; a converted model keeps the "
             "types it was converted with (attnrt convert --dtype)";
    return false;
  }
  if (!OpenModel(path, &m->opened, error)) return false;
  m->model = m->opened.model;
  return true;
}

// Every weight span a decode step reads (the embedding row is noise). A typed matrix
// is its value plane, plus its scale plane for a kF16Plane type (q8).
std::vector<ByteSpan> WeightSpans(const Model& m) {
  const ModelConfig& c = m.config;
  std::vector<ByteSpan> spans;
  const auto linear = [&](const LinearWeights& w) {
    const WeightTypeInfo& info = *FindWeightType(w.type);
    spans.push_back({w.weight, ValueRowsBytes(info, w.out, w.in)});
    if (info.scales == WeightScales::kF16Plane) {
      spans.push_back({w.scale_plane, 2 * w.out * WeightBlocksPerRow(info, w.in)});
    }
  };
  for (size_t l = 0; l < c.num_layers; ++l) {
    const LayerWeights& w = m.layers[l];
    for (const LinearWeights* lw : {&w.q, &w.k, &w.v, &w.o, &w.ff1, &w.ff2, &w.ff3}) linear(*lw);
    spans.push_back({w.norm1_weight, c.model_dim * sizeof(float)});
    spans.push_back({w.norm2_weight, c.model_dim * sizeof(float)});
  }
  spans.push_back({m.final_norm_weight, c.model_dim * sizeof(float)});
  linear(m.head);
  return spans;
}

size_t LayerMatrixParams(const Model& m) {
  size_t n = 0;
  for (size_t l = 0; l < m.config.num_layers; ++l) {
    const LayerWeights& w = m.layers[l];
    for (const LinearWeights* lw : {&w.q, &w.k, &w.v, &w.o, &w.ff1, &w.ff2, &w.ff3}) {
      n += lw->in * lw->out;
    }
  }
  return n;
}

struct PrefillRun {
  LmRunner* lm;
  const std::vector<int32_t>* prompt;
  Executor* executor;
  std::vector<float>* logits;
  Status status;
};

void PrefillOnce(void* context) {
  PrefillRun& r = *static_cast<PrefillRun*>(context);
  r.lm->session.Reset();
  const Status st = r.lm->session.Feed(r.prompt->data(), r.prompt->size(), r.logits->data(), r.executor);
  if (!st.ok()) r.status = st;
}

int RunBenchLm(const BenchLmOptions& o) {
  const char* cmd = "bench lm";
  std::string error;
  SelectIsa(o.isa);  // before the load: the panel copies are packed for the target that runs
  BenchModel bm;
  if (!OpenBenchModel(o.model, o.seed, o.dtype, &bm, &error) ||
      !PackForKernels(&bm.model, ActivationsFromName(o.activations), &bm.packed, &error)) {
    return ReportError(cmd, error);
  }
  const Model& model = bm.model;
  const ModelConfig& c = model.config;
  if (!ArchitectureIsLanguageModel(c.arch)) {
    return ReportError(cmd, std::string(ArchitectureName(c.arch)) + " is not a language model");
  }
  std::FILE* prose = ProseStream(o.json);
  CommandPool workers(o.threads);
  ThreadPool& pool = workers.pool;
  const size_t prompt_len = std::min(o.prompt_len, c.max_seq_len);
  if (o.gen >= c.max_seq_len) {
    return ReportError(cmd, "--gen " + std::to_string(o.gen) + " leaves no prompt within max_seq_len " +
                                std::to_string(c.max_seq_len));
  }
  std::mt19937 rng(o.seed);
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(c.vocab_size - 1));
  std::vector<int32_t> prompt(prompt_len);
  for (int32_t& t : prompt) t = token(rng);
  std::vector<float> logits(c.vocab_size);
  Progress progress(cmd);

  // Prefill: the whole prompt through a session that holds exactly it.
  LmShape prefill_shape;
  prefill_shape.max_seq = prompt_len;
  prefill_shape.kv_type = KvDtype(o.kv_dtype);
  prefill_shape.linear_activations = ActivationsFromName(o.activations);
  LmRunner prefill;
  if (!StartLm(model, prefill_shape, pool.workers(), 0, &prefill, &error)) return ReportError(cmd, error);
  PrefillRun pr{&prefill, &prompt, &pool, &logits, Status::Ok()};
  progress.StartShape("prefill " + std::to_string(prompt_len) + " tokens");
  const Timing prefill_time = TimeRuns(PrefillOnce, &pr, 1, 0, o.seconds, &progress);
  progress.EndShape(prefill_time.runs);
  if (!pr.status.ok()) return ReportStatus(cmd, pr.status);

  // Decode: `gen` steps ending at the longest context the model allows for this
  // prompt, each timed alone; the prompt before them is fed untimed each round.
  const size_t context = std::min(prompt_len + o.gen, c.max_seq_len);
  const size_t decode_prompt = context - o.gen;
  LmShape decode_shape;
  decode_shape.max_seq = context;
  decode_shape.kv_type = KvDtype(o.kv_dtype);
  decode_shape.linear_activations = ActivationsFromName(o.activations);
  LmRunner decode;
  if (!StartLm(model, decode_shape, pool.workers(), 0, &decode, &error)) return ReportError(cmd, error);
  std::vector<double> steps, step_cpu;  // wall and process CPU ms per step
  progress.StartShape("decode " + std::to_string(o.gen) + " steps");
  const auto decode_start = Clock::now();
  do {
    decode.session.Reset();
    Status st = decode.session.Feed(prompt.data(), decode_prompt, logits.data(), &pool);
    for (size_t i = 0; i < o.gen && st.ok(); ++i) {
      const int32_t next = token(rng);
      const auto start = Clock::now();
      const double cpu_start = ProcessCpuMs();
      st = decode.session.Feed(&next, 1, logits.data(), &pool);
      steps.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      step_cpu.push_back(ProcessCpuMs() - cpu_start);
    }
    if (!st.ok()) return ReportStatus(cmd, st);
    progress.Update(steps.size(), steps.size());
  } while (steps.size() < 3 * o.gen || SecondsSince(decode_start) < o.seconds);
  progress.EndShape(steps.size());
  const double decode_ms = Median(steps);

  // The read reference: every weight byte plus the keys and values of the mean
  // context of the timed steps (read from the start of the decode arena, which
  // is where the cache lives; what matters is the byte count).
  SpanRead rr;
  rr.spans = WeightSpans(model);
  rr.executor = &pool;
  size_t weight_bytes = 0;
  for (const ByteSpan& s : rr.spans) weight_bytes += s.bytes;
  const size_t mean_context = decode_prompt + (o.gen + 1) / 2;
  // A typed cache reads its element bytes per value plus a q8 scale per row.
  const KvType kv_type = KvDtype(o.kv_dtype);
  const size_t kv_row_bytes = c.qk_dim * KvElementBytes(kv_type) +
                              (kv_type == KvType::kQ8 ? sizeof(float) : 0);
  const size_t kv_bytes = 2 * c.num_layers * c.kv_heads * mean_context * kv_row_bytes;
  rr.spans.push_back({decode.buffer->data(), kv_bytes});
  const Timing read_time = TimeRuns(ReadSpansOnce, &rr, 2, 0, o.seconds / 2, nullptr);

  const FmaPeak peak = MeasureFmaPeak(0.05, 3);
  const size_t params = LayerMatrixParams(model);
  const double P = static_cast<double>(prompt_len);
  const double attention_flops = 4.0 * static_cast<double>(c.num_layers * c.heads * c.qk_dim) *
                                 P * (P + 1) / 2;
  const double prefill_flops = 2.0 * static_cast<double>(params) * P +
                               2.0 * static_cast<double>(model.head.in * model.head.out) +
                               attention_flops;
  const double gflops = prefill_flops / (prefill_time.median_ms * 1e6);
  const double peak_fraction =
      peak.measured_gflops > 0 ? gflops / (peak.measured_gflops * static_cast<double>(pool.workers())) : 0;

  nlohmann::ordered_json j;
  j["model"] = o.model;
  j["dim"] = c.model_dim;
  j["layers"] = c.num_layers;
  j["heads"] = c.heads;
  j["kv_heads"] = c.kv_heads;
  j["hidden_dim"] = c.ff_dim;
  j["vocab"] = c.vocab_size;
  j["threads"] = pool.workers();
  AddThreadsJson(workers, &j);
  // The kernels the matrices ran on, per weight type (hwy-int8 for q8, q4_0 and the k-quants
  // unless --activations f32).
  const std::vector<LinearUse> linear = ModelLinearUses(model, ActivationsFromName(o.activations));
  j["isa"] = LinearIsa();
  j["isa_option"] = o.isa;
  AddLinearUsesJson(linear, &j);
  j["activations"] = o.activations;
  // Memory outside the arena: the Linear kernels' packed weight copies (model.h).
  j["packed_weight_bytes"] = bm.packed != nullptr ? bm.packed->size() : 0;
  j["kv_dtype"] = o.kv_dtype;
  j["prompt_tokens"] = prompt_len;
  j["prefill_ms"] = prefill_time.median_ms;
  j["prefill_stddev_ms"] = prefill_time.stddev_ms;
  j["prefill_cpu_ms"] = prefill_time.cpu_median_ms;
  j["prefill_runs"] = prefill_time.runs;
  j["prefill_tokens_per_s"] = 1000.0 * P / prefill_time.median_ms;
  j["prefill_gflops"] = gflops;
  j["fma_peak_gflops_per_core"] = peak.measured_gflops;
  j["prefill_peak_fraction"] = peak_fraction;
  j["decode_context"] = context;
  j["decode_steps"] = o.gen;
  j["decode_ms_per_token"] = decode_ms;
  // CPU time of all workers per step (on a shared, loaded machine wall time includes the
  // time other processes held the cores; with 1 thread this is the step's own work).
  j["decode_cpu_ms_per_token"] = Median(step_cpu);
  j["decode_stddev_ms"] = SampleStddev(steps);
  j["decode_runs"] = steps.size();
  j["weight_bytes"] = weight_bytes;
  j["kv_read_bytes"] = kv_bytes;
  j["read_ms"] = read_time.median_ms;
  j["decode_read_ratio"] = decode_ms / read_time.median_ms;
  j["kv_cache_bytes"] = decode.plan.kv_cache_bytes;
  j["arena_bytes"] = decode.plan.arena_bytes;

  std::fprintf(prose,
               "bench lm: %s, dim %zu, %zu layers, %zu heads (%zu kv), hidden %zu, vocab %zu; "
               "linear %s; KV cache %s\n  %s\n",
               o.model.c_str(), c.model_dim, c.num_layers, c.heads, c.kv_heads, c.ff_dim,
               c.vocab_size, LinearUsesText(linear).c_str(), o.kv_dtype.c_str(),
               workers.Describe().c_str());
  std::fprintf(prose,
               "  prefill %zu tokens: %.2f ms (stddev %.2f, %zu runs; CPU %.2f ms), %.0f tokens/s, "
               "%.1f GFLOP/s = %.0f%% of the FMA peak (%.1f GFLOP/s per core)\n",
               prompt_len, prefill_time.median_ms, prefill_time.stddev_ms, prefill_time.runs,
               prefill_time.cpu_median_ms,
               1000.0 * P / prefill_time.median_ms, gflops, 100.0 * peak_fraction,
               peak.measured_gflops);
  std::fprintf(prose,
               "  decode at context %zu..%zu: %.3f ms/token (stddev %.3f, %zu steps), %.1f tokens/s\n",
               decode_prompt + 1, context, decode_ms, SampleStddev(steps), steps.size(),
               1000.0 / decode_ms);
  std::fprintf(prose,
               "  read of the %zu weight + %zu KV bytes a step needs: %.3f ms; decode is x%.2f of it\n",
               weight_bytes, kv_bytes, read_time.median_ms,
               decode_ms / read_time.median_ms);
  if (o.json) std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchLmCommand(CLI::App& bench, int* exit_code) {
  auto o = std::make_shared<BenchLmOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "lm",
      "Prefill and decode speed of a language model (a converted file, or a config.json for "
      "random weights at that shape, e.g. bench/configs/stories15m.json), with the FMA peak "
      "and a plain read of the bytes a decode step needs (read_ms) measured in the same run");
  cmd->add_option("model", o->model, "Converted llama model, or a llama config.json")->required();
  cmd->add_option("--prompt-len", o->prompt_len, "Prefill tokens (capped at max_seq_len)")
      ->capture_default_str()
      ->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--gen", o->gen, "Timed decode steps per round, ending at the longest context")
      ->capture_default_str()
      ->check(WholeNumber(1, kMaxDim));
  AddThreadsOption(*cmd, &o->threads);
  cmd->add_option("--seconds", o->seconds, "Time budget of each measurement (a cap)")
      ->capture_default_str()
      ->check(FiniteNumber(0.001, 3600));
  cmd->add_option("--seed", o->seed, "Seed of the random weights and tokens")->capture_default_str();
  AddWeightDtypeOption(cmd, &o->dtype,
                       "Weight matrices of a config.json's random model (as attnrt convert "
                       "--dtype)");
  AddKvDtypeOption(cmd, &o->kv_dtype, "of the prefill and decode sessions");
  AddActivationsOption(cmd, &o->activations, "the summary and JSON name the kernel that ran");
  AddIsaOption(cmd, &o->isa);
  cmd->add_flag("--json", o->json, "Print only a JSON object on stdout (the summary goes to stderr)");
  cmd->callback([o, exit_code] { *exit_code = RunBenchLm(*o); });
}

}  // namespace attnrt::cli

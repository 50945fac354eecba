// attnrt bench: times SDPA on random inputs of a given shape (`bench sdpa`) and
// measures the machine's fp32 FMA peak (`bench peak`), each with a one-line
// summary and, with --json, a JSON object as the last line for scripts
// (bench/run_speed_report.py).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnrt/runtime/checked_math.h"
#include "attnrt/runtime/sdpa.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/kernel_choice.h"
#include "cli/option_checks.h"
#include "host/aligned_buffer.h"
#include "host/fma_peak.h"
#include "host/memory_read.h"
#include "host/thread_pool.h"

namespace attnrt::cli {
namespace {

struct BenchSdpaOptions {
  size_t batch = 1;
  size_t heads = 8;
  size_t kv_heads = 0;  // 0: same as heads
  size_t seq = 1024;
  size_t seq_kv = 0;  // 0: same as seq
  size_t dim = 64;
  size_t dim_v = 0;  // 0: same as dim
  std::string causal = "none";
  std::string kernel = "auto";
  size_t threads = 1;
  size_t warmup = 2;
  size_t repeats = 0;  // 0: as many as fit in `seconds`, at least kMinRepeats
  double seconds = 1.0;
  unsigned seed = 1;
  bool json = false;
};

struct BenchPeakOptions {
  double seconds = 0.1;
  int trials = 5;
  bool json = false;
};

constexpr size_t kMinRepeats = 5;

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double cpu_median_ms = 0;  // process CPU time per run, all workers together
  size_t runs = 0;
};

double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

struct RunTime {
  double wall_ms;
  double cpu_ms;
};

RunTime TimeOnce(void (*run)(void*), void* context) {
  const double cpu0 = ProcessCpuMs();
  const auto start = std::chrono::steady_clock::now();
  run(context);
  const double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return {wall, ProcessCpuMs() - cpu0};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Warm-up runs (at least one; they also estimate one run's time), then the timed
// runs: `repeats` of them, or when 0 as many as fit in `seconds` (at least
// kMinRepeats). The median wall time is the headline number; the minimum shows
// the noise. CPU time is kept too: on a machine shared with other work, a
// one-thread run's CPU time is close to what its wall time would be alone.
Timing TimeRuns(void (*run)(void*), void* context, size_t warmup, size_t repeats, double seconds) {
  double estimate = TimeOnce(run, context).wall_ms;
  for (size_t i = 1; i < warmup; ++i) estimate = std::min(estimate, TimeOnce(run, context).wall_ms);
  size_t count = repeats;
  if (count == 0) {
    const double fit = seconds * 1000.0 / std::max(estimate, 1e-6);
    count = static_cast<size_t>(std::clamp(fit, static_cast<double>(kMinRepeats), 1e6));
  }
  std::vector<double> wall(count), cpu(count);
  for (size_t i = 0; i < count; ++i) {
    const RunTime t = TimeOnce(run, context);
    wall[i] = t.wall_ms;
    cpu[i] = t.cpu_ms;
  }
  Timing timing;
  timing.runs = count;
  timing.min_ms = *std::min_element(wall.begin(), wall.end());
  timing.median_ms = Median(wall);
  timing.cpu_median_ms = Median(cpu);
  return timing;
}

std::vector<float> RandomFloats(size_t count, std::mt19937* rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = uniform(*rng);
  return v;
}


// Flops of the two matrix products, counted densely: 2*L*S*E for Q.K^T plus
// 2*L*S*Ev for P.V per (batch, head), i.e. 4*B*H*L*S*E when Ev == E. Softmax
// and masking are not counted. With `causal_only_visible`, only the (query, key)
// pairs the causal rule leaves are counted (about half for L == S).
double MatmulFlops(const SdpaParams& p, bool causal_only_visible) {
  double pairs = 0;
  if (!causal_only_visible || p.causal == CausalKind::kNone) {
    pairs = static_cast<double>(p.q_len) * static_cast<double>(p.kv_len);
  } else {
    for (size_t i = 0; i < p.q_len; ++i) pairs += static_cast<double>(CausalVisibleKeys(p, i));
  }
  return 2.0 * static_cast<double>(p.batch * p.q_heads) * pairs *
         static_cast<double>(p.qk_dim + p.v_dim);
}

struct SdpaRun {
  const SdpaParams* params;
  const SdpaKernel* kernel;
  Arena* arena;
  Executor* executor;
  Status status;
};

void RunSdpaOnce(void* context) {
  SdpaRun& r = *static_cast<SdpaRun*>(context);
  r.status = RunSdpa(*r.params, *r.kernel, r.arena, r.executor);
}

struct ReadRun {
  FloatSpan spans[2];
  Executor* executor;
  double sink;
};

void ReadKeysAndValuesOnce(void* context) {
  ReadRun& r = *static_cast<ReadRun*>(context);
  r.sink += SumFloats(r.spans, 2, r.executor);
}

int RunBenchSdpa(const BenchSdpaOptions& o) {
  const char* cmd = "bench sdpa";
  const size_t kv_heads = o.kv_heads == 0 ? o.heads : o.kv_heads;
  const size_t seq_kv = o.seq_kv == 0 ? o.seq : o.seq_kv;
  const size_t dim_v = o.dim_v == 0 ? o.dim : o.dim_v;
  const TensorShape qs = Shape4(o.batch, o.heads, o.seq, o.dim);
  const TensorShape ks = Shape4(o.batch, kv_heads, seq_kv, o.dim);
  const TensorShape vs = Shape4(o.batch, kv_heads, seq_kv, dim_v);
  SdpaParams p;
  TensorShape out_shape, weights_shape;
  Status st = BindSdpaShapes(qs, ks, vs, nullptr, MaskKind::kNone, &p, &out_shape, &weights_shape);
  if (!st.ok()) return ReportStatus(cmd, st);
  p.causal = ParseCausal(o.causal);

  size_t q_count = 0, k_count = 0, v_count = 0, out_count = 0;
  if (!CheckedProduct(qs.dims, 4, &q_count) || !CheckedProduct(ks.dims, 4, &k_count) ||
      !CheckedProduct(vs.dims, 4, &v_count) ||
      !CheckedProduct(out_shape.dims, out_shape.rank, &out_count)) {
    return ReportError(cmd, "tensor sizes overflow");
  }
  std::mt19937 rng(o.seed);
  const std::vector<float> q = RandomFloats(q_count, &rng);
  const std::vector<float> k = RandomFloats(k_count, &rng);
  const std::vector<float> v = RandomFloats(v_count, &rng);
  std::vector<float> out(out_count);
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.out = out.data();

  const SdpaKernel* kernel = nullptr;
  std::string error;
  if (!ResolveKernel(o.kernel, p, &kernel, &error)) return ReportError(cmd, error);
  ThreadPool pool(o.threads == 0 ? DefaultThreadCount() : o.threads);
  size_t scratch_bytes = 0;
  st = SdpaScratchBytes(p, *kernel, pool.workers(), &scratch_bytes);
  if (!st.ok()) return ReportStatus(cmd, st);
  AlignedBuffer buffer(scratch_bytes);
  if (!buffer.ok()) {
    return ReportError(cmd, "cannot allocate " + std::to_string(scratch_bytes) + " bytes of scratch");
  }
  Arena arena(buffer.data(), scratch_bytes);

  SdpaRun sdpa{&p, kernel, &arena, &pool, Status::Ok()};
  RunSdpaOnce(&sdpa);  // fails fast on a refused call before any timing
  if (!sdpa.status.ok()) return ReportStatus(cmd, sdpa.status);
  const Timing t = TimeRuns(RunSdpaOnce, &sdpa, o.warmup, o.repeats, o.seconds);
  if (!sdpa.status.ok()) return ReportStatus(cmd, sdpa.status);

  const double flops = MatmulFlops(p, false);
  const double flops_needed = MatmulFlops(p, true);
  nlohmann::json j;
  j["median_ms"] = t.median_ms;
  j["min_ms"] = t.min_ms;
  j["cpu_ms"] = t.cpu_median_ms;
  j["runs"] = t.runs;
  j["gflops"] = flops / (t.median_ms * 1e6);
  j["gflops_needed"] = flops_needed / (t.median_ms * 1e6);
  j["flops"] = flops;
  j["flops_needed"] = flops_needed;
  j["kernel"] = kernel->name;
  j["isa"] = kernel->isa();
  j["threads"] = pool.workers();
  j["scratch_bytes"] = scratch_bytes;
  j["batch"] = o.batch;
  j["heads"] = o.heads;
  j["kv_heads"] = kv_heads;
  j["seq"] = o.seq;
  j["seq_kv"] = seq_kv;
  j["dim"] = o.dim;
  j["dim_v"] = dim_v;
  j["causal"] = o.causal;

  std::string read_note;
  if (o.seq == 1) {
    // Decode reads all of K and V once; the plain read of the same bytes with the
    // same workers is the floor it is compared against.
    ReadRun read{{{k.data(), k.size()}, {v.data(), v.size()}}, &pool, 0.0};
    const Timing r = TimeRuns(ReadKeysAndValuesOnce, &read, o.warmup, o.repeats, o.seconds);
    j["read_ms"] = r.median_ms;
    j["read_min_ms"] = r.min_ms;
    j["read_cpu_ms"] = r.cpu_median_ms;
    j["read_bytes"] = (k.size() + v.size()) * sizeof(float);
    j["read_ratio"] = t.median_ms / r.median_ms;
    char buf[128];
    std::snprintf(buf, sizeof(buf), ", plain read of K+V %.4f ms (x%.2f)", r.median_ms,
                  t.median_ms / r.median_ms);
    read_note = buf;
  }

  std::printf(
      "bench sdpa: %s (%s), %zu thread(s), B=%zu H=%zu Hkv=%zu L=%zu S=%zu E=%zu Ev=%zu causal %s: "
      "median %.4f ms (CPU %.4f ms), min %.4f ms over %zu runs, %.1f GFLOP/s dense, scratch %zu "
      "bytes%s\n",
      kernel->name, kernel->isa(), pool.workers(), o.batch, o.heads, kv_heads, o.seq, seq_kv, o.dim,
      dim_v, o.causal.c_str(), t.median_ms, t.cpu_median_ms, t.min_ms, t.runs, flops / (t.median_ms * 1e6),
      scratch_bytes, read_note.c_str());
  if (o.json) std::printf("%s\n", j.dump().c_str());
  return 0;
}

int RunBenchPeak(const BenchPeakOptions& o) {
  const FmaPeak peak = MeasureFmaPeak(o.seconds, o.trials);
  std::printf("bench peak: %s, %zu fp32 lanes, measured %.1f GFLOP/s on one core (best of %d)",
              peak.isa.c_str(), peak.lanes, peak.measured_gflops, o.trials);
  if (peak.clock_mhz > 0) {
    std::printf("; clock %.0f MHz (%s): theoretical %.1f GFLOP/s with %zu FMA units, measured %.2f "
                "FMA/cycle",
                peak.clock_mhz, peak.clock_source.c_str(), peak.theoretical_gflops,
                peak.assumed_fma_units, peak.fma_per_cycle);
  }
  std::printf("\n");
  if (o.json) {
    nlohmann::json j;
    j["isa"] = peak.isa;
    j["lanes"] = peak.lanes;
    j["measured_gflops"] = peak.measured_gflops;
    j["clock_mhz"] = peak.clock_mhz;
    j["clock_source"] = peak.clock_source;
    j["assumed_fma_units"] = peak.assumed_fma_units;
    j["theoretical_gflops"] = peak.theoretical_gflops;
    j["fma_per_cycle"] = peak.fma_per_cycle;
    j["threads"] = 1;
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

void AddBenchSdpa(CLI::App& bench, int* exit_code) {
  auto o = std::make_shared<BenchSdpaOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "sdpa",
      "Time SDPA on random float32 inputs (B, H, L, E): warm-up, repeated runs, median.\n"
      "GFLOP/s counts the two matrix products densely, 2*B*H*L*S*(E+Ev) flops "
      "(= 4*B*H*L*S*E when Ev == E), also for causal calls; gflops_needed in the JSON "
      "counts only the (query, key) pairs the causal rule leaves. With L == 1 the plain "
      "vectorized read of the same K and V bytes is timed too (read_ms). cpu_ms is the "
      "process CPU time per run (all workers): on a shared machine a one-thread run's "
      "cpu_ms is close to its wall time on an idle one.");
  cmd->add_option("--batch", o->batch, "Batch size B")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--heads", o->heads, "Query heads H")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--kv-heads", o->kv_heads, "Key/value heads (default: H)")->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--seq", o->seq, "Queries L")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--seq-kv", o->seq_kv, "Keys S (default: L)")->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--dim", o->dim, "Query/key dim E")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--dim-v", o->dim_v, "Value dim Ev (default: E)")->check(WholeNumber(1, kMaxDim));
  AddCausalOption(*cmd, &o->causal);
  AddKernelOption(*cmd, &o->kernel);
  cmd->add_option("--threads", o->threads, "Worker threads (0: all hardware threads)")
      ->capture_default_str()
      ->check(ThreadCount());
  cmd->add_option("--warmup", o->warmup, "Untimed runs first (at least 1 is always made)")
      ->capture_default_str()
      ->check(WholeNumber(0, 1000000));
  cmd->add_option("--repeats", o->repeats,
                  "Timed runs (0: as many as fit in --seconds, at least 5)")
      ->capture_default_str()
      ->check(WholeNumber(0, 1000000));
  cmd->add_option("--seconds", o->seconds, "Time budget of the timed runs when --repeats is 0")
      ->capture_default_str()
      ->check(FiniteNumber(0.001, 3600));
  cmd->add_option("--seed", o->seed, "Seed of the random inputs")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print a JSON object with every number as the last line");
  cmd->callback([o, exit_code] {
    try {
      *exit_code = RunBenchSdpa(*o);
    } catch (const std::bad_alloc&) {
      *exit_code = ReportError("bench sdpa", "not enough memory for the tensors of this shape");
    }
  });
}

void AddBenchPeak(CLI::App& bench, int* exit_code) {
  auto o = std::make_shared<BenchPeakOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "peak",
      "Measure the fp32 FMA peak of one core for the SIMD target the kernels use "
      "(12 independent FMA chains; see tools/host/fma_peak.h)");
  cmd->add_option("--seconds", o->seconds, "Length of one trial")
      ->capture_default_str()
      ->check(FiniteNumber(0.001, 3600));
  cmd->add_option("--trials", o->trials, "Trials; the best is reported")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", o->json, "Print a JSON object as the last line");
  cmd->callback([o, exit_code] { *exit_code = RunBenchPeak(*o); });
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks: SDPA timing and the machine's FMA peak");
  bench->require_subcommand(1);
  AddBenchSdpa(*bench, exit_code);
  AddBenchPeak(*bench, exit_code);
}

}  // namespace attnrt::cli

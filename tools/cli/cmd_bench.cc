// attnrt bench: times SDPA on random inputs of given shapes (`bench sdpa`, one
// row per --seq value: median, stddev, runs, GFLOP/s) and measures the machine's
// fp32 FMA peak (`bench peak`). The default output is a table for people; with
// --json stdout holds only JSON for scripts (bench/run_speed_report.py): one
// object for one shape, a list of them for a sweep; prose then goes to stderr.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnrt/runtime/sdpa.h"
#include "cli/cli_common.h"
#include "cli/bench_timing.h"
#include "cli/commands.h"
#include "cli/kv_dtype_option.h"
#include "cli/kernel_choice.h"
#include "cli/option_checks.h"
#include "cli/thread_option.h"
#include "host/fma_peak.h"
#include "host/memory_read.h"
#include "host/sdpa_problem.h"
#include "host/thread_pool.h"

namespace attnrt::cli {
namespace {

struct BenchSdpaOptions {
  size_t batch = 1;
  size_t heads = 8;
  size_t kv_heads = 0;  // 0: same as heads
  std::vector<size_t> seqs = {1024};
  size_t seq_kv = 0;  // 0: same as each seq
  size_t dim = 64;
  size_t dim_v = 0;  // 0: same as dim
  std::string causal = "none";
  size_t window = 0;      // sliding window (needs a causal rule); 0 = off
  double softcap = 0.0;   // logit softcap; 0 = off
  std::string kernel = "auto";
  size_t threads = 0;  // 0: DefaultWorkerCount()
  size_t warmup = 2;
  size_t repeats = 0;  // 0: as many as fit in `seconds`, at least kMinRepeats
  double seconds = 1.0;
  double peak_gflops = 0;  // one core's, from `attnrt bench peak`; 0: unknown
  unsigned seed = 1;
  bool json = false;
  std::string kv_dtype = "f32";  // KV cache storage: f32, f16, q8
};


struct BenchPeakOptions {
  double seconds = 0.1;
  int trials = 5;
  bool json = false;
};

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

// Benchmarks one shape (query length `seq`) on `pool`; fills *j with every number.
int BenchShape(const BenchSdpaOptions& o, size_t seq, ThreadPool* pool, Progress* progress,
               nlohmann::ordered_json* j) {
  const char* cmd = "bench sdpa";
  SdpaProblemShape shape;
  shape.batch = o.batch;
  shape.heads = o.heads;
  shape.kv_heads = o.kv_heads;
  shape.q_len = seq;
  shape.kv_len = o.seq_kv;
  shape.dim = o.dim;
  shape.dim_v = o.dim_v;
  shape.causal = ParseCausal(o.causal);
  shape.window = o.window;
  shape.softcap = static_cast<float>(o.softcap);
  // --kv-dtype f16 / q8: the kernel reads K and V narrowed as a KV cache stores them.
  shape.kv_type = KvDtype(o.kv_dtype);
  shape.seed = o.seed;
  SdpaProblem problem;
  Status st = problem.Build(shape);
  if (!st.ok()) return ReportStatus(cmd, st);
  const SdpaParams& p = problem.params();
  const size_t kv_heads = problem.shape().kv_heads, seq_kv = problem.shape().kv_len;
  const size_t dim_v = problem.shape().dim_v;

  const SdpaKernel* kernel = nullptr;
  std::string error;
  if (!ResolveKernel(o.kernel, p, &kernel, &error)) return ReportError(cmd, error);
  st = problem.PlanScratch(*kernel, pool->workers());
  if (!st.ok()) return ReportStatus(cmd, st);
  const size_t scratch_bytes = problem.scratch_bytes();
  const PlannedArena planned{0, scratch_bytes, scratch_bytes, scratch_bytes};

  SdpaRun sdpa{&p, kernel, problem.arena(), pool, Status::Ok()};
  RunSdpaOnce(&sdpa);  // fails fast on a refused call before any timing
  if (!sdpa.status.ok()) return ReportError(cmd, RunFailureMessage(sdpa.status, planned));
  progress->StartShape("L=" + std::to_string(seq) + " S=" + std::to_string(seq_kv));
  const Timing t = TimeRuns(RunSdpaOnce, &sdpa, o.warmup, o.repeats, o.seconds, progress);
  progress->EndShape(t.runs);
  if (!sdpa.status.ok()) return ReportError(cmd, RunFailureMessage(sdpa.status, planned));

  const double flops_dense = SdpaMatmulFlops(p, false);
  const double flops_needed = SdpaMatmulFlops(p, true);
  nlohmann::ordered_json& r = *j;
  r["median_ms"] = t.median_ms;
  r["min_ms"] = t.min_ms;
  r["stddev_ms"] = t.stddev_ms;
  r["cpu_ms"] = t.cpu_median_ms;
  r["runs"] = t.runs;
  r["capped_by_seconds"] = t.capped;
  // flops / gflops count the work the call needs (causal: visible pairs only);
  // the *_dense pair counts every (query, key) pair.
  r["flops"] = flops_needed;
  r["gflops"] = flops_needed / (t.median_ms * 1e6);
  r["flops_needed"] = flops_needed;
  r["gflops_needed"] = flops_needed / (t.median_ms * 1e6);
  r["flops_dense"] = flops_dense;
  r["gflops_dense"] = flops_dense / (t.median_ms * 1e6);
  if (o.peak_gflops > 0) {
    r["peak_gflops"] = o.peak_gflops * static_cast<double>(pool->workers());
    r["pct_peak"] = 100.0 * r["gflops"].get<double>() / r["peak_gflops"].get<double>();
  }
  r["kernel"] = kernel->name;
  r["isa"] = kernel->isa();
  r["threads"] = pool->workers();
  r["scratch_bytes"] = scratch_bytes;
  r["batch"] = o.batch;
  r["heads"] = o.heads;
  r["kv_heads"] = kv_heads;
  r["seq"] = seq;
  r["seq_kv"] = seq_kv;
  r["dim"] = o.dim;
  r["dim_v"] = dim_v;
  r["causal"] = o.causal;
  r["window"] = o.window;
  r["softcap"] = o.softcap;
  r["kv_dtype"] = o.kv_dtype;

  // (The plain-read floor is of f32 K and V: with a typed cache, compare --kv-dtype runs.)
  if (seq == 1 && shape.kv_type == KvType::kF32) {
    // Decode reads all of K and V once (with a window, the keys it leaves: the last W
    // of each head); the plain read of the same bytes with the same workers is the
    // floor it is compared against.
    SpanRead read{{}, pool, 0};
    const size_t end = p.window == 0 ? seq_kv : CausalVisibleKeys(p, 0);
    const size_t begin = std::min(VisibleKeyBegin(p, 0), end);
    for (size_t head = 0; head < o.batch * kv_heads; ++head) {
      read.spans.push_back({problem.k().data() + (head * seq_kv + begin) * o.dim,
                            (end - begin) * o.dim * sizeof(float)});
      read.spans.push_back({problem.v().data() + (head * seq_kv + begin) * dim_v,
                            (end - begin) * dim_v * sizeof(float)});
    }
    size_t read_bytes = 0;
    for (const ByteSpan& span : read.spans) read_bytes += span.bytes;
    progress->StartShape("L=1 S=" + std::to_string(seq_kv) + " plain read of K+V");
    const Timing rt = TimeRuns(ReadSpansOnce, &read, o.warmup, o.repeats, o.seconds, progress);
    progress->EndShape(rt.runs);
    r["read_ms"] = rt.median_ms;
    r["read_min_ms"] = rt.min_ms;
    r["read_cpu_ms"] = rt.cpu_median_ms;
    r["read_bytes"] = read_bytes;
    r["read_ratio"] = t.median_ms / rt.median_ms;
  }
  return 0;
}

// The table: one row per shape.
void PrintTable(std::FILE* f, const BenchSdpaOptions& o, const std::vector<nlohmann::ordered_json>& rows) {
  const nlohmann::ordered_json& first = rows.front();
  std::fprintf(f, "bench sdpa: %s, B=%zu H=%zu Hkv=%zu E=%zu Ev=%zu causal %s",
               DescribeThreads(o.threads).c_str(), o.batch, o.heads, first["kv_heads"].get<size_t>(),
               o.dim, first["dim_v"].get<size_t>(), o.causal.c_str());
  if (o.window != 0) std::fprintf(f, " window %zu", o.window);
  if (o.softcap != 0) std::fprintf(f, " softcap %g", o.softcap);
  if (o.kv_dtype != "f32") std::fprintf(f, " kv %s", o.kv_dtype.c_str());
  std::fprintf(f, "\n");
  const bool peak = o.peak_gflops > 0;
  std::fprintf(f, "%7s %7s  %-24s %-7s %10s %9s %10s %10s %6s %9s%s %12s\n", "L", "S", "kernel",
               "ISA", "median ms", "stddev", "min ms", "CPU ms", "runs", "GFLOP/s",
               peak ? "  % peak" : "", "scratch B");
  bool capped = false;
  for (const nlohmann::ordered_json& r : rows) {
    char pct[16] = "";
    if (peak) std::snprintf(pct, sizeof(pct), " %7.1f", r["pct_peak"].get<double>());
    capped = capped || r["capped_by_seconds"].get<bool>();
    std::fprintf(f, "%7zu %7zu  %-24s %-7s %10.4f %9.4f %10.4f %10.4f %6zu %9.1f%s %12zu\n",
                 r["seq"].get<size_t>(), r["seq_kv"].get<size_t>(),
                 r["kernel"].get<std::string>().c_str(), r["isa"].get<std::string>().c_str(),
                 r["median_ms"].get<double>(), r["stddev_ms"].get<double>(), r["min_ms"].get<double>(),
                 r["cpu_ms"].get<double>(), r["runs"].get<size_t>(), r["gflops"].get<double>(), pct,
                 r["scratch_bytes"].get<size_t>());
    if (r.contains("read_ms")) {
      std::fprintf(f, "%7s %7s  plain read of K+V (%zu bytes): median %.4f ms, attention is x%.2f of it\n",
                   "", "", r["read_bytes"].get<size_t>(), r["read_ms"].get<double>(),
                   r["read_ratio"].get<double>());
    }
  }
  std::fprintf(f, "GFLOP/s = 2*B*H*(visible query-key pairs)*(E+Ev) / median%s; stddev over the runs%s.\n",
               o.causal == "none" ? "" : " (causal: only the pairs the rule leaves; gflops_dense in --json counts all)",
               capped ? "; --seconds cut some rows short of the planned runs" : "");
  if (!peak) {
    std::fprintf(f, "(--peak GFLOPS, one core's from `attnrt bench peak`, adds a %% of peak column)\n");
  }
}

int RunBenchSdpa(const BenchSdpaOptions& o) {
  CommandPool workers(o.threads);
  ThreadPool& pool = workers.pool;
  Progress progress("bench sdpa");
  std::vector<nlohmann::ordered_json> rows;
  for (size_t seq : o.seqs) {
    nlohmann::ordered_json j;
    const int code = BenchShape(o, seq, &pool, &progress, &j);
    if (code != 0) return code;
    AddThreadsJson(workers, &j);
    rows.push_back(std::move(j));
  }
  if (o.json) {
    std::fprintf(stderr, "bench sdpa: %zu shape(s); %s\n", rows.size(), workers.Describe().c_str());
    const nlohmann::ordered_json out = rows.size() == 1 ? rows.front() : nlohmann::ordered_json(rows);
    std::printf("%s\n", out.dump().c_str());
  } else {
    PrintTable(stdout, o, rows);
  }
  return 0;
}

int RunBenchPeak(const BenchPeakOptions& o) {
  const FmaPeak peak = MeasureFmaPeak(o.seconds, o.trials);
  std::FILE* prose = ProseStream(o.json);
  std::fprintf(prose, "bench peak: %s, %zu fp32 lanes, measured %.1f GFLOP/s on one core (1 thread, best of %d)",
               peak.isa.c_str(), peak.lanes, peak.measured_gflops, o.trials);
  if (peak.clock_mhz > 0) {
    std::fprintf(prose,
                 "; clock %.0f MHz (%s): theoretical %.1f GFLOP/s with %zu FMA units, measured %.2f "
                 "FMA/cycle",
                 peak.clock_mhz, peak.clock_source.c_str(), peak.theoretical_gflops,
                 peak.assumed_fma_units, peak.fma_per_cycle);
  }
  std::fprintf(prose, "\n");
  if (o.json) {
    nlohmann::ordered_json j;
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
      "Time SDPA on random float32 inputs (B, H, L, E), one table row per --seq value: "
      "warm-up, repeated runs, median, stddev.\n"
      "GFLOP/s counts the flops the two matrix products need, 2*B*H*(visible query-key "
      "pairs)*(E+Ev): 2*B*H*L*S*(E+Ev) without a causal rule, about half of it for a "
      "causal L == S (gflops_dense in the JSON counts every pair). With L == 1 the plain "
      "vectorized read of the same K and V bytes is timed too (read_ms). CPU ms is the "
      "process CPU time per run (all workers): on a shared machine a one-thread run's "
      "CPU time is close to its wall time on an idle one.");
  cmd->add_option("--batch", o->batch, "Batch size B")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--heads", o->heads, "Query heads H")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--kv-heads", o->kv_heads, "Key/value heads (default: H)")->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--seq", o->seqs, "Queries L; a comma-separated list sweeps (256,512,1024)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--seq-kv", o->seq_kv, "Keys S (default: each L)")->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--dim", o->dim, "Query/key dim E")->capture_default_str()->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--dim-v", o->dim_v, "Value dim Ev (default: E)")->check(WholeNumber(1, kMaxDim));
  AddCausalOption(*cmd, &o->causal);
  cmd->add_option("--window", o->window,
                  "Sliding window W (needs --causal): each query sees its last W keys; 0 = off");
  cmd->add_option("--softcap", o->softcap, "Logit softcap C > 0 (0 = off)")
      ->check(FiniteNumber(0, 1e30));
  AddKernelOption(*cmd, &o->kernel);
  AddThreadsOption(*cmd, &o->threads);
  cmd->add_option("--warmup", o->warmup, "Untimed runs first (at least 1 is always made)")
      ->capture_default_str()
      ->check(WholeNumber(0, 1000000));
  cmd->add_option("--repeats", o->repeats,
                  "Timed runs (0: as many as fit in --seconds, at least 5)")
      ->capture_default_str()
      ->check(WholeNumber(0, 1000000));
  cmd->add_option("--seconds", o->seconds,
                  "Time budget of each shape's timed runs when --repeats is 0, and a cap in any "
                  "case: timing stops once it is spent (after at least one run)")
      ->capture_default_str()
      ->check(FiniteNumber(0.001, 3600));
  cmd->add_option("--peak", o->peak_gflops,
                  "One core's fp32 peak in GFLOP/s (`attnrt bench peak`): adds % of peak "
                  "(times the thread count)")
      ->check(FiniteNumber(0.001, 1e9));
  cmd->add_option("--seed", o->seed, "Seed of the random inputs")->capture_default_str();
  AddKvDtypeOption(cmd, &o->kv_dtype, "the kernel reads K and V narrowed from the random f32 inputs as a KV cache stores them");
  cmd->add_flag("--json", o->json,
                "Print only JSON on stdout: an object with every number for one --seq, a list "
                "of them for a sweep");
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
  cmd->add_flag("--json", o->json, "Print only a JSON object on stdout (the summary goes to stderr)");
  cmd->callback([o, exit_code] { *exit_code = RunBenchPeak(*o); });
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks: SDPA timing, language model prefill/decode, the machine's FMA peak");
  bench->require_subcommand(1);
  AddBenchSdpa(*bench, exit_code);
  AddBenchPeak(*bench, exit_code);
  AddBenchLmCommand(*bench, exit_code);
}

}  // namespace attnrt::cli

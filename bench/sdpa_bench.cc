// Google Benchmark suite for every SDPA variant in the registry, on every
// Highway target this CPU supports (the best one by default), through the
// runtime exactly as a caller runs it (BindSdpaShapes, SdpaScratchBytes, RunSdpa).
//
// Shapes: B=1, H=8, E=Ev=64, one thread unless --attnrt_threads says otherwise.
//   sdpa/<variant>/<isa>/<mask>/<seq>   L = S = seq, mask none or causal upper-left,
//                                       seq 64..8192 (powers of 2); reference stops at
//                                       1024, variants that keep an L x S block
//                                       (the ones that return weights) at 4096.
//   decode/<variant>/<isa>/<S>          L = 1, S = 64..8192, causal lower-right.
//   read_kv/<S>                         the plain vectorized read of the same K and V
//                                       bytes a decode step reads (its floor).
//   decode_kv/<variant>/<isa>/kv:<t>/shape:<s>
//                                       one decode step over a KV cache of S = 4096
//                                       keys stored as kv type t (KvType code:
//                                       1 f32, 2 f16, 4 q8), shape 0: Hq 8, Hkv 4,
//                                       E = Ev = 64; shape 1: stories15M, Hq = Hkv = 6,
//                                       E = Ev = 48. Variants that read a typed cache.
// Counters:
//   GFLOPs        2*B*H*L*S*(E+Ev) flops (4*B*H*L*S*E at E == Ev) per second: the two
//                 matrix products counted densely, also for causal runs.
//   GFLOPs_needed the same count over only the (query, key) pairs the causal rule
//                 leaves (about half of the dense count at L == S); equals GFLOPs
//                 without a mask.
//   scratch_bytes SdpaScratchBytes for the run's worker count.
// Complexity(oNSquared) fits time against seq for each square family; decode
// families fit oN against S.
//
// Own flags (before or among Google Benchmark's):
//   --attnrt_isa=best|all   which Highway targets to run (default best)
//   --attnrt_max_seq=N      largest seq of every sweep (default 8192)
//   --attnrt_threads=T      workers (default 1)
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "attnrt/kernels/kv_store.h"
#include "attnrt/runtime/sdpa.h"
#include "host/aligned_buffer.h"
#include "host/memory_read.h"
#include "host/sdpa_problem.h"
#include "host/thread_pool.h"
#include "hwy/targets.h"

namespace attnrt {
namespace {

constexpr size_t kHeads = 8;
constexpr size_t kDim = 64;
constexpr size_t kMinSeq = 64;
constexpr size_t kMaxSeq = 8192;
constexpr size_t kReferenceMaxSeq = 1024;  // scalar loops: minutes beyond this
constexpr size_t kLxSMaxSeq = 4096;        // an L x S float block per head: 64 MiB at 4096
constexpr size_t kKvDecodeKeys = 4096;     // decode_kv's cache length

struct SuiteOptions {
  bool all_isas = false;
  size_t max_seq = kMaxSeq;
  size_t threads = 1;
};

// The problem of one benchmark shape (tools/host/sdpa_problem.h, as `attnrt bench
// sdpa` builds it), with its scratch for `kernel`, built outside the timed loop.
bool BuildProblem(const SdpaProblemShape& shape, const SdpaKernel& kernel, size_t workers,
                  SdpaProblem* problem, benchmark::State* state) {
  Status st = problem->Build(shape);
  if (st.ok()) st = problem->PlanScratch(kernel, workers);
  if (!st.ok()) state->SkipWithError(st.message());
  return st.ok();
}

// Times RunSdpa on the problem until Google Benchmark has enough iterations.
void TimeProblem(SdpaProblem* problem, const SdpaKernel& kernel, Executor* executor,
                 benchmark::State* state) {
  for (auto _ : *state) {
    const Status st = RunSdpa(problem->params(), kernel, problem->arena(), executor);
    if (!st.ok()) {
      state->SkipWithError(st.message());
      break;
    }
    benchmark::DoNotOptimize(problem->out().data());
    benchmark::ClobberMemory();
  }
}

// Runs one SDPA shape; `target` is the Highway target to force (0: no forcing).
void BenchSdpa(benchmark::State& state, const SdpaKernel* kernel, int64_t target, bool decode,
               CausalKind causal, size_t threads) {
  if (target != 0) hwy::SetSupportedTargetsForTest(target);
  const size_t n = static_cast<size_t>(state.range(0));
  ThreadPool pool(threads);
  SdpaProblemShape shape;
  shape.heads = kHeads;
  shape.q_len = decode ? 1 : n;
  shape.kv_len = n;
  shape.dim = kDim;
  shape.causal = causal;
  SdpaProblem problem;
  if (BuildProblem(shape, *kernel, pool.workers(), &problem, &state)) {
    TimeProblem(&problem, *kernel, &pool, &state);
  }
  state.SetComplexityN(static_cast<int64_t>(n));
  state.SetLabel(kernel->isa());
  const auto rate = benchmark::Counter::kIsIterationInvariantRate;
  state.counters["GFLOPs"] =
      benchmark::Counter(SdpaMatmulFlops(problem.params(), false) / 1e9, rate);
  state.counters["GFLOPs_needed"] =
      benchmark::Counter(SdpaMatmulFlops(problem.params(), true) / 1e9, rate);
  state.counters["scratch_bytes"] = static_cast<double>(problem.scratch_bytes());
  if (target != 0) hwy::SetSupportedTargetsForTest(0);
}

// One decode step over a typed cache: args (kv type code, shape).
void BenchKvDecode(benchmark::State& state, const SdpaKernel* kernel, int64_t target,
                   size_t threads) {
  if (target != 0) hwy::SetSupportedTargetsForTest(target);
  const KvType type = static_cast<KvType>(state.range(0));
  ThreadPool pool(threads);
  const bool stories = state.range(1) != 0;
  SdpaProblemShape shape;
  shape.heads = stories ? 6 : 8;
  shape.kv_heads = stories ? 6 : 4;
  shape.q_len = 1;
  shape.kv_len = kKvDecodeKeys;
  shape.dim = stories ? 48 : 64;
  shape.causal = CausalKind::kLowerRight;
  shape.kv_type = type;
  SdpaProblem problem;
  if (BuildProblem(shape, *kernel, pool.workers(), &problem, &state)) {
    problem.DropF32KeysAndValues();
    TimeProblem(&problem, *kernel, &pool, &state);
  }
  state.SetLabel(std::string(kernel->isa()) + " " + KvTypeName(type));
  const SdpaParams& p = problem.params();
  const size_t kv_bytes = p.kv_heads * p.kv_len * (p.qk_dim + p.v_dim) * KvElementBytes(type);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kv_bytes));
  state.counters["scratch_bytes"] = static_cast<double>(problem.scratch_bytes());
  if (target != 0) hwy::SetSupportedTargetsForTest(0);
}

// The plain read of the K and V a decode step over S keys reads.
void BenchReadKeysAndValues(benchmark::State& state, size_t threads) {
  const size_t n = static_cast<size_t>(state.range(0));
  ThreadPool pool(threads);
  const std::vector<float> k(kHeads * n * kDim, 0.5f), v(kHeads * n * kDim, 0.25f);
  const ByteSpan spans[2] = {{k.data(), k.size() * sizeof(float)}, {v.data(), v.size() * sizeof(float)}};
  for (auto _ : state) benchmark::DoNotOptimize(ReadSpans(spans, 2, &pool));
  state.SetComplexityN(static_cast<int64_t>(n));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>((k.size() + v.size()) * sizeof(float)));
  state.counters["scratch_bytes"] = 0;
}

size_t MaxSeqFor(const SdpaKernel& kernel, const SuiteOptions& o) {
  size_t cap = kMaxSeq;
  if (kernel.algorithm == SdpaAlgorithm::kReference) cap = kReferenceMaxSeq;
  else if (kernel.returns_weights) cap = kLxSMaxSeq;
  return cap < o.max_seq ? cap : o.max_seq;
}

void Sweep(benchmark::internal::Benchmark* b, size_t max_seq) {
  for (size_t n = kMinSeq; n <= max_seq; n *= 2) b->Arg(static_cast<int64_t>(n));
  // Wall time is the headline; CPU time covers every worker so the two can be compared.
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
}

// The Highway targets to run a hwy-family kernel on: 0 (whatever dispatch picks)
// unless every target was asked for.
std::vector<int64_t> TargetsFor(const SdpaKernel& kernel, const SuiteOptions& o) {
  if (!o.all_isas || kernel.family != SdpaFamily::kHwy) return {0};
  return hwy::SupportedAndGeneratedTargets();
}

std::string IsaName(const SdpaKernel& kernel, int64_t target) {
  return target == 0 ? kernel.isa() : hwy::TargetName(target);
}

void RegisterAll(const SuiteOptions& o) {
  for (size_t i = 0; i < SdpaKernelCount(); ++i) {
    const SdpaKernel* kernel = &SdpaKernelAt(i);
    if (!kernel->available()) continue;
    const size_t max_seq = MaxSeqFor(*kernel, o);
    for (int64_t target : TargetsFor(*kernel, o)) {
      const std::string prefix = std::string(kernel->name) + "/" + IsaName(*kernel, target);
      for (CausalKind causal : {CausalKind::kNone, CausalKind::kUpperLeft}) {
        const std::string name =
            "sdpa/" + prefix + (causal == CausalKind::kNone ? "/none" : "/causal");
        auto* b = benchmark::RegisterBenchmark(name.c_str(), BenchSdpa, kernel, target, false,
                                               causal, o.threads);
        Sweep(b, max_seq);
        b->Complexity(benchmark::oNSquared);
      }
      auto* d = benchmark::RegisterBenchmark(("decode/" + prefix).c_str(), BenchSdpa, kernel,
                                             target, true, CausalKind::kLowerRight, o.threads);
      Sweep(d, o.max_seq);
      d->Complexity(benchmark::oN);
      if (kernel->reads_typed_kv && kernel->algorithm != SdpaAlgorithm::kReference) {
        auto* kv = benchmark::RegisterBenchmark(("decode_kv/" + prefix).c_str(), BenchKvDecode,
                                                kernel, target, o.threads);
        for (int64_t shape : {0, 1}) {
          for (KvType t : {KvType::kF32, KvType::kF16, KvType::kQ8}) {
            kv->Args({static_cast<int64_t>(t), shape});
          }
        }
        kv->ArgNames({"kv", "shape"})->Unit(benchmark::kMicrosecond)->UseRealTime();
      }
    }
  }
  auto* r = benchmark::RegisterBenchmark("read_kv", BenchReadKeysAndValues, o.threads);
  Sweep(r, o.max_seq);
  r->Complexity(benchmark::oN);
}

// Takes this suite's own --attnrt_* flags out of argv (Google Benchmark rejects
// flags it does not know).
SuiteOptions ParseSuiteFlags(int* argc, char** argv) {
  SuiteOptions o;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--attnrt_isa=", 13) == 0) {
      o.all_isas = std::strcmp(a + 13, "all") == 0;
    } else if (std::strncmp(a, "--attnrt_max_seq=", 17) == 0) {
      o.max_seq = std::strtoull(a + 17, nullptr, 10);
    } else if (std::strncmp(a, "--attnrt_threads=", 17) == 0) {
      const size_t t = std::strtoull(a + 17, nullptr, 10);
      o.threads = t == 0 ? DefaultThreadCount() : t;
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  return o;
}

}  // namespace
}  // namespace attnrt

int main(int argc, char** argv) {
  const attnrt::SuiteOptions options = attnrt::ParseSuiteFlags(&argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  attnrt::RegisterAll(options);
  benchmark::AddCustomContext("attnrt_threads", std::to_string(options.threads));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

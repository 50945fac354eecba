// Google Benchmark suite for Linear (y = x W^T + bias) with each stored weight
// type (f32, f16, bf16, q8, q4_0), one thread, on the best Highway target (or every
// target this CPU supports with --attnrt_isa=all). The integer types run twice: as
// `auto` runs them (8-bit activations, the integer kernel: <type>) and with f32
// activations (the exact path: <type>-f32act). Where the kernel reads a packed copy of the
// weights (LinearParams::w_packed: q4_0's panels on AVX2 and AVX-512), <type> runs from it,
// as a model run does, and <type>-stored from the weights as stored.
//
// Shapes are llama2.c's stories15M (dim 288, hidden 768, 6 layers, vocab 32000):
//   linear/<type>/<isa>/<N>x<K>        decode GEMV, rows = 1: 288x288 (wq, wk, wv,
//                                      wo), 768x288 (w1, w3), 288x768 (w2), 32000x288
//                                      (the classifier); N = out, K = in.
//   read/<type>/<isa>/<N>x<K>          a plain vectorized read of the same weight
//                                      bytes: the floor of the memory-bound GEMV.
//   token/<type>/<isa>                 one decode step's Linear calls in model order
//                                      (6 x {3 x 288x288, 288x288, 2 x 768x288,
//                                      288x768}, then 32000x288), rows = 1: the
//                                      weight-reading part of ms/token.
//   read_token/<type>/<isa>            the plain read of all those bytes.
//   prefill/<type>/<isa>/256x288x768   rows = 256, K = 288, N = 768 (w1 over a
//                                      256-token prompt): the packed path.
// Counters: bytes_per_second = weight bytes (in their stored type) per second;
// GFLOPs = 2 * rows * K * N per second (prefill). Time in ms. The label names the
// kernel and its instruction set.
//
// Own flags (before or among Google Benchmark's):
//   --attnrt_isa=best|all   which Highway targets to run (default best)
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/linear_kernel.h"
#include "host/aligned_buffer.h"
#include "host/memory_read.h"
#include "hwy/targets.h"
#include "tests/kernels_nn/typed_weights.h"

namespace attnrt {
namespace {

using testing::TypedMatrix;

struct Shape {
  size_t out, in;
};

constexpr size_t kLayers = 6;
// One layer's decode-step matrices in call order: wq, wk, wv, wo, w1, w3, w2.
constexpr Shape kLayerShapes[] = {{288, 288}, {288, 288}, {288, 288}, {288, 288},
                                  {768, 288}, {768, 288}, {288, 768}};
constexpr Shape kClassifier = {32000, 288};
constexpr Shape kGemvShapes[] = {{288, 288}, {768, 288}, {288, 768}, {32000, 288}};
constexpr size_t kPrefillRows = 256;

size_t Bytes(WeightType t, const Shape& s) {
  size_t bytes = 0;
  MatrixBytes(t, s.out, s.in, &bytes);
  return bytes;
}

// A random N(0, 0.05) weight matrix stored as `type`.
std::unique_ptr<TypedMatrix> RandomWeights(WeightType type, const Shape& s, std::mt19937* rng) {
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::vector<float> values(s.out * s.in);
  for (float& v : values) v = normal(*rng);
  return std::make_unique<TypedMatrix>(type, s.out, s.in, false, values.data());
}

// One Linear call's operands, built outside the timed loop.
struct LinearCall {
  std::unique_ptr<TypedMatrix> w;
  std::vector<float> x, y;
  LinearParams p{};

  std::unique_ptr<AlignedBuffer> packed;  // the kernel's packed copy of w, if it reads one

  LinearCall(WeightType type, const Shape& s, size_t rows, std::mt19937* rng,
             LinearActivations activations, bool pack)
      : w(RandomWeights(type, s, rng)), x(rows * s.in), y(rows * s.out) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& v : x) v = normal(*rng);
    p.rows = rows;
    p.in = s.in;
    p.out = s.out;
    p.x = x.data();
    p.x_stride = s.in;
    p.w = w->data();
    p.w_type = type;
    p.bias = nullptr;
    p.y = y.data();
    p.y_stride = s.out;
    p.activations = activations;
    const size_t packed_bytes = pack ? LinearPackedBytes(p) : 0;
    if (packed_bytes != 0) {
      packed = std::make_unique<AlignedBuffer>(packed_bytes);
      PackLinearWeights(p, packed->data());
      p.w_packed = packed->data();
    }
  }
};

// Runs every call of `calls` in order, each as one range of all its items (one thread).
void RunCalls(std::vector<LinearCall>& calls, float* scratch) {
  for (LinearCall& c : calls) LinearRun(c.p, 0, LinearWorkItems(c.p), scratch);
}

class ForcedTarget {
 public:
  explicit ForcedTarget(int64_t target) : target_(target) {
    if (target_ != 0) hwy::SetSupportedTargetsForTest(target_);
  }
  ~ForcedTarget() {
    if (target_ != 0) hwy::SetSupportedTargetsForTest(0);
  }

 private:
  int64_t target_;
};

// Times `calls`; bytes_per_second counts their weight bytes.
void TimeCalls(benchmark::State& state, std::vector<LinearCall>& calls) {
  size_t scratch_floats = 0, bytes = 0;
  double flops = 0;
  for (const LinearCall& c : calls) {
    scratch_floats = std::max(scratch_floats, LinearScratchFloats(c.p));
    bytes += Bytes(c.p.w_type, {c.p.out, c.p.in});
    flops += 2.0 * double(c.p.rows) * double(c.p.in) * double(c.p.out);
  }
  AlignedBuffer scratch(scratch_floats * sizeof(float));
  float* s = reinterpret_cast<float*>(scratch.data());
  for (auto _ : state) {
    RunCalls(calls, s);
    benchmark::ClobberMemory();
  }
  const LinearKernel& kernel = AutoLinearKernel(calls[0].p.w_type, calls[0].p.activations);
  state.SetLabel(std::string(kernel.name) + " " + kernel.isa());
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  state.counters["GFLOPs"] =
      benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// What a benchmark runs: a weight type and the activations its calls ask for.
struct Variant {
  WeightType type;
  LinearActivations activations;
  bool packed = true;  // from the kernel's packed copy of the weights, where it reads one
};

// One call of shape `s` on `rows` rows of input.
std::vector<LinearCall> OneCall(Variant v, Shape s, size_t rows) {
  std::mt19937 rng(1);
  std::vector<LinearCall> calls;
  calls.emplace_back(v.type, s, rows, &rng, v.activations, v.packed);
  return calls;
}

void BenchGemv(benchmark::State& state, Variant v, Shape s, int64_t target) {
  ForcedTarget forced(target);
  std::vector<LinearCall> calls = OneCall(v, s, 1);
  TimeCalls(state, calls);
}

void BenchPrefill(benchmark::State& state, Variant v, int64_t target) {
  ForcedTarget forced(target);
  std::vector<LinearCall> calls = OneCall(v, Shape{768, 288}, kPrefillRows);
  TimeCalls(state, calls);
}

std::vector<LinearCall> TokenCalls(Variant v) {
  std::mt19937 rng(1);
  std::vector<LinearCall> calls;
  for (size_t l = 0; l < kLayers; ++l) {
    for (const Shape& s : kLayerShapes) {
      calls.emplace_back(v.type, s, 1, &rng, v.activations, v.packed);
    }
  }
  calls.emplace_back(v.type, kClassifier, 1, &rng, v.activations, v.packed);
  return calls;
}

void BenchToken(benchmark::State& state, Variant v, int64_t target) {
  ForcedTarget forced(target);
  std::vector<LinearCall> calls = TokenCalls(v);
  TimeCalls(state, calls);
}

// The plain read of the weight bytes of `calls` (their buffers, in order).
void TimeReads(benchmark::State& state, const std::vector<LinearCall>& calls) {
  size_t bytes = 0;
  for (const LinearCall& c : calls) bytes += Bytes(c.p.w_type, {c.p.out, c.p.in});
  std::vector<ByteSpan> spans;
  for (const LinearCall& c : calls) spans.push_back({c.p.w, Bytes(c.p.w_type, {c.p.out, c.p.in})});
  SerialExecutor serial;
  for (auto _ : state) benchmark::DoNotOptimize(ReadSpans(spans.data(), spans.size(), &serial));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

void BenchReadGemv(benchmark::State& state, Variant v, Shape s, int64_t target) {
  ForcedTarget forced(target);
  TimeReads(state, OneCall(v, s, 1));
}

void BenchReadToken(benchmark::State& state, Variant v, int64_t target) {
  ForcedTarget forced(target);
  TimeReads(state, TokenCalls(v));
}

std::string ShapeName(const Shape& s) {
  return std::to_string(s.out) + "x" + std::to_string(s.in);
}

void RegisterAll(bool all_isas) {
  std::vector<int64_t> targets = {0};
  if (all_isas) targets = hwy::SupportedAndGeneratedTargets();
  for (int64_t target : targets) {
    std::vector<Variant> variants;
    for (const WeightTypeInfo& info : kWeightTypes) {  // every type of weight_types.inc
      variants.push_back({info.type, LinearActivations::kAuto});
      LinearParams probe{};
      probe.in = kClassifier.in;
      probe.out = kClassifier.out;
      probe.w_type = info.type;
      ForcedTarget forced(target);
      if (LinearPackedBytes(probe) != 0) {
        variants.push_back({info.type, LinearActivations::kAuto, false});
      }
      if (AutoLinearKernel(info.type).quantizes_activations) {
        variants.push_back({info.type, LinearActivations::kF32});
      }
    }
    for (const Variant& v : variants) {
      std::string isa;
      {
        ForcedTarget forced(target);
        isa = AutoLinearKernel(v.type, v.activations).isa();
      }
      const char* mode =
          v.activations == LinearActivations::kF32 ? "-f32act" : (v.packed ? "" : "-stored");
      const std::string suffix = std::string(WeightTypeName(v.type)) + mode + "/" + isa;
      for (const Shape& s : kGemvShapes) {
        benchmark::RegisterBenchmark(("linear/" + suffix + "/" + ShapeName(s)).c_str(), BenchGemv,
                                     v, s, target)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("read/" + suffix + "/" + ShapeName(s)).c_str(),
                                     BenchReadGemv, v, s, target)
            ->Unit(benchmark::kMicrosecond);
      }
      benchmark::RegisterBenchmark(("token/" + suffix).c_str(), BenchToken, v, target)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("read_token/" + suffix).c_str(), BenchReadToken, v, target)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("prefill/" + suffix + "/256x288x768").c_str(), BenchPrefill,
                                   v, target)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace attnrt

int main(int argc, char** argv) {
  bool all_isas = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--attnrt_isa=", 13) == 0) {
      all_isas = std::strcmp(argv[i] + 13, "all") == 0;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  attnrt::RegisterAll(all_isas);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

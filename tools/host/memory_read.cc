// Vectorized parallel sum of float arrays (see memory_read.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "host/memory_read.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attnrt {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Four accumulators so the loop is bound by loads, not by add latency.
float SumChunk(const float* HWY_RESTRICT x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, x + i));
    s1 = hn::Add(s1, hn::LoadU(d, x + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, x + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, x + i + 3 * N));
  }
  for (; i + N <= n; i += N) s0 = hn::Add(s0, hn::LoadU(d, x + i));
  float sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < n; ++i) sum += x[i];
  return sum;
}

}  // namespace HWY_NAMESPACE
}  // namespace attnrt
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <vector>

#include "host/memory_read.h"

namespace attnrt {

HWY_EXPORT(SumChunk);

namespace {

// 16 KiB: small enough to balance two workers on short arrays, large enough
// that handing out a chunk costs nothing next to reading it.
constexpr size_t kChunkFloats = 4096;

// One slot per worker, a cache line apart so workers never share a line.
struct alignas(64) WorkerSum {
  double value = 0;
};

struct SumJob {
  const FloatSpan* spans;
  size_t span_count;
  const size_t* first_chunk;  // chunk index where each span starts
  WorkerSum* sums;
};

void SumChunks(void* context, size_t begin, size_t end, size_t worker) {
  const SumJob& job = *static_cast<const SumJob*>(context);
  size_t span = 0;
  for (size_t chunk = begin; chunk < end; ++chunk) {
    while (chunk >= job.first_chunk[span + 1]) ++span;
    const size_t offset = (chunk - job.first_chunk[span]) * kChunkFloats;
    const size_t left = job.spans[span].count - offset;
    job.sums[worker].value += HWY_DYNAMIC_DISPATCH(SumChunk)(
        job.spans[span].data + offset, left < kChunkFloats ? left : kChunkFloats);
  }
}

}  // namespace

double SumFloats(const FloatSpan* spans, size_t span_count, Executor* executor) {
  std::vector<size_t> first_chunk(span_count + 1, 0);
  for (size_t s = 0; s < span_count; ++s) {
    first_chunk[s + 1] = first_chunk[s] + (spans[s].count + kChunkFloats - 1) / kChunkFloats;
  }
  std::vector<WorkerSum> sums(executor->workers());
  SumJob job{spans, span_count, first_chunk.data(), sums.data()};
  executor->ParallelFor(first_chunk[span_count], SumChunks, &job);
  double total = 0;
  for (const WorkerSum& s : sums) total += s.value;
  return total;
}

}  // namespace attnrt
#endif  // HWY_ONCE

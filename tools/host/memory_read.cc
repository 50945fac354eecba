// The plain read of byte spans (see memory_read.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "host/memory_read.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "kernels/hwy/integer_sum-inl.h"

ATTNRT_HWY_BEGIN

// Words i .. i + N of `bytes`. Spans need not be 4-byte aligned: LoadU takes any
// address (an unaligned vector load on x86 and NEON, a byte copy on SCALAR).
template <class D>
HWY_INLINE hn::Vec<D> LoadWords(D d, const uint8_t* HWY_RESTRICT bytes, size_t i) {
  return hn::LoadU(d, reinterpret_cast<const uint32_t*>(bytes) + i);
}

// Four accumulators so the loop is bound by loads, not by add latency.
uint32_t SumWords(const uint8_t* HWY_RESTRICT bytes, size_t count) {
  const hn::ScalableTag<uint32_t> d;
  const size_t N = hn::Lanes(d);
  const size_t n = count / 4;
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, LoadWords(d, bytes, i));
    s1 = hn::Add(s1, LoadWords(d, bytes, i + N));
    s2 = hn::Add(s2, LoadWords(d, bytes, i + 2 * N));
    s3 = hn::Add(s3, LoadWords(d, bytes, i + 3 * N));
  }
  for (; i + N <= n; i += N) s0 = hn::Add(s0, LoadWords(d, bytes, i));
  // Modulo 2^32 (the checksum's contract), through the one integer reduction
  // that is defined on every target (integer_sum-inl.h says why).
  uint32_t sum = static_cast<uint32_t>(
      SumOfLanesExact(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < n; ++i) {
    uint32_t word;
    std::memcpy(&word, bytes + 4 * i, sizeof(word));
    sum += word;
  }
  for (size_t b = 4 * n; b < count; ++b) sum += bytes[b];  // a tail of 1-3 bytes
  return sum;
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_HWY_END

#if HWY_ONCE
#include <vector>

#include "host/memory_read.h"

namespace attnrt {

HWY_EXPORT(SumWords);
HWY_EXPORT(TargetName);

const char* MemoryReadIsa() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

namespace {

// 16 KiB: small enough to balance two workers on short arrays, large enough
// that handing out a chunk costs nothing next to reading it.
constexpr size_t kChunkBytes = 16384;

// One slot per worker, a cache line apart so workers never share a line.
struct alignas(64) WorkerSum {
  uint64_t value = 0;
};

struct SumJob {
  const ByteSpan* spans;
  size_t span_count;
  const size_t* first_chunk;  // chunk index where each span starts
  WorkerSum* sums;
};

void SumChunks(void* context, size_t begin, size_t end, size_t worker) {
  const SumJob& job = *static_cast<const SumJob*>(context);
  size_t span = 0;
  for (size_t chunk = begin; chunk < end; ++chunk) {
    while (chunk >= job.first_chunk[span + 1]) ++span;
    const size_t offset = (chunk - job.first_chunk[span]) * kChunkBytes;
    const size_t left = job.spans[span].bytes - offset;
    job.sums[worker].value += HWY_DYNAMIC_DISPATCH(SumWords)(
        static_cast<const uint8_t*>(job.spans[span].data) + offset,
        left < kChunkBytes ? left : kChunkBytes);
  }
}

}  // namespace

uint64_t ReadSpans(const ByteSpan* spans, size_t span_count, Executor* executor) {
  std::vector<size_t> first_chunk(span_count + 1, 0);
  for (size_t s = 0; s < span_count; ++s) {
    first_chunk[s + 1] = first_chunk[s] + (spans[s].bytes + kChunkBytes - 1) / kChunkBytes;
  }
  std::vector<WorkerSum> sums(executor->workers());
  SumJob job{spans, span_count, first_chunk.data(), sums.data()};
  executor->ParallelFor(first_chunk[span_count], SumChunks, &job);
  uint64_t total = 0;
  for (const WorkerSum& s : sums) total += s.value;
  return total;
}

}  // namespace attnrt
#endif  // HWY_ONCE

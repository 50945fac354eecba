// The "plain read" reference of memory-bound benchmarks (decode steps, the decode
// GEMV): one vectorized pass that reads every byte of some buffers once, spread over
// the same executor the kernel uses, on the Highway target dynamic dispatch picks (so
// a forced target, hwy::SetSupportedTargetsForTest, applies to it as to the kernel).
// A decode step must read its weights, keys and values at least once, so its time over
// this read's time says how close it is to memory speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnrt/runtime/executor.h"

namespace attnrt {

// Bytes to read, whatever they encode (f32, f16, int8 and scales alike).
struct ByteSpan {
  const void* data;
  size_t bytes;
};

// Reads every byte of `spans` (in chunks of a few KiB handed out over `executor`'s
// workers) and returns the sum of each span's 32-bit words (from its start, native
// byte order) and of its 1-3 tail bytes, modulo 2^32 in the low 32 bits, so the reads
// cannot be optimized away. Integer adds: any bit pattern reads at the same speed (no
// NaN or denormal paths).
uint64_t ReadSpans(const ByteSpan* spans, size_t span_count, Executor* executor);

// One plain read as a benchmark times it (TimeRuns(ReadSpansOnce, &read, ...)): the spans,
// the executor, and the running sum that keeps the reads from being optimized away.
struct SpanRead {
  std::vector<ByteSpan> spans;
  Executor* executor = nullptr;
  uint64_t sink = 0;
};

// ReadSpans of a SpanRead (`context`), its sum added to the sink.
inline void ReadSpansOnce(void* context) {
  SpanRead& r = *static_cast<SpanRead*>(context);
  r.sink += ReadSpans(r.spans.data(), r.spans.size(), r.executor);
}

// The Highway target ReadSpans dispatches to now (e.g. "AVX3"), so tests can run it
// on every target and benchmark reports can name it.
const char* MemoryReadIsa();

}  // namespace attnrt

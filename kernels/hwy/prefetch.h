// Software prefetch of weight streams ahead of their use: each weight byte of a decode step
// is read once, then not again until the next step has walked the whole model.
//
// x86: prefetchnta (GCC/Clang's locality 0). On the Zen 5 EPYC (1 thread, alternating
// builds, median of 2-3 rounds each) it beat prefetcht1 (locality 2) everywhere it moved:
// SmolLM2-135M decode f32 18.8 -> 17.0 ms, f16 10.0 -> 9.1 ms, q4_0 2.40 -> 2.27 ms (q8
// level), and from cache stories15M f16 0.99 -> 0.89 ms, q4_0 0.177 -> 0.158 ms,
// kquant_512 q4_K 0.88 -> 0.63 ms (q6_K, f32 level): the lines arrive without displacing the
// L2 and L3 lines the step still reads (the activations, the KV cache, the other weights
// of a cache-resident model).
// Never t0 (locality 3): on the Zen 4 each t0 prefetch held one of the L1's few miss
// buffers until its line arrived, stalling the loads the kernel waited on (SmolLM2-135M
// f16 decode 2.6x a plain read of its bytes with t0, 1.45x with t1; q8 2.4x -> 1.25x).
// Elsewhere locality 2 as before (PLDL2KEEP on AArch64, nothing on cores without a prefetch
// instruction): not measured on hardware here.
#pragma once

namespace attnrt {

// Always inlined: GCC 12 finds an out-of-line prefetch wrapper free of side effects, marks it
// const and deletes the calls (every prefetch vanished from the Highway targets' code).
__attribute__((always_inline)) inline void PrefetchWeights(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_prefetch(p, 0, 0);
#else
  __builtin_prefetch(p, 0, 2);
#endif
}

}  // namespace attnrt

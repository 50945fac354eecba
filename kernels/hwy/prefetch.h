// Software prefetch of weight rows ahead of their use, into L2 (GCC/Clang's locality 2:
// prefetcht1 on x86, PLDL2KEEP on AArch64, nothing on cores without a prefetch instruction).
// Why L2 and not L1: a decode step streams every weight from DRAM, and L1 prefetches (t0)
// each hold one of the L1's few miss buffers until their line arrives, so a run of them
// stalls the loads the kernel is waiting on. On the Zen 4 EPYC (1 thread, SmolLM2-135M
// decode) t0 -> t1 took f16 from 2.6x a plain read of its bytes to 1.45x, and the int8
// kernel's q8 from 2.4x (t0) to 1.25x.
#pragma once

namespace attnrt {

// Always inlined: GCC 12 finds an out-of-line prefetch wrapper free of side effects, marks it
// const and deletes the calls (every prefetch vanished from the Highway targets' code).
__attribute__((always_inline)) inline void PrefetchToL2(const void* p) {
  __builtin_prefetch(p, 0, 2);
}

}  // namespace attnrt

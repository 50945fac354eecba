// Measures this machine's fp32 FMA peak on one core, for the SIMD instruction set
// the attention kernels dispatch to, so benchmarks can report "% of peak".
//
// Method: one thread runs 12 independent chains acc = acc * m + a of full-width
// fp32 vectors (Highway MulAdd, dynamic dispatch to the best target, as the
// kernels do). 12 chains cover an FMA latency of 4-6 cycles on two FMA units, so
// the loop is bound by FMA throughput, not latency. Flops counted: 2 per lane
// per MulAdd, over the thread's CPU time (so time-slicing by other processes on
// a shared machine does not lower it). The best of several trials is kept.
// The theoretical figure lanes x 2 x FMA units x clock is printed beside it when
// the clock can be read; the FMA unit count is an assumption (2, as on x86 cores
// since Haswell and Zen, and AVX-512 Xeons with two 512-bit ports), which is why
// the measured number, not the theoretical one, is the reference for "% of peak".
#pragma once

#include <cstddef>
#include <string>

namespace attnrt {

struct FmaPeak {
  std::string isa;                 // Highway target the loop ran on, e.g. "AVX3"
  size_t lanes = 0;                // fp32 lanes per vector on that target
  double measured_gflops = 0;      // best trial, one thread
  double clock_mhz = 0;            // 0 when the clock could not be read
  std::string clock_source;        // where clock_mhz came from, or "unknown"
  size_t assumed_fma_units = 2;    // per core, for the theoretical figure only
  double theoretical_gflops = 0;   // lanes * 2 * units * clock; 0 without a clock
  // measured / (lanes * 2 * clock): FMA instructions retired per cycle at the read
  // clock (above 2 means the core runs faster than the clock that was read).
  double fma_per_cycle = 0;
};

// Runs `trials` trials of about `seconds_per_trial` each on the calling thread.
FmaPeak MeasureFmaPeak(double seconds_per_trial, int trials);

// The nominal or maximum core clock in MHz (cpufreq's cpuinfo_max_freq, else
// /proc/cpuinfo "cpu MHz"); 0 when neither exists. `source` says which.
double ReadCpuClockMhz(std::string* source);

}  // namespace attnrt

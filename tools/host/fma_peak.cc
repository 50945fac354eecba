// FMA peak measurement (see fma_peak.h): per-target chain loop, dispatch, clock.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "host/fma_peak.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"

ATTNRT_HWY_BEGIN

// One round: chain = chain * m + a for every chain (one vector FMA each, independent).
template <class V, class... Chains>
HWY_INLINE void StepChains(V m, V a, Chains&... chains) {
  ((chains = hn::MulAdd(chains, m, a)), ...);
}

// Runs `rounds` rounds of 12 independent MulAdd chains (12 vector FMAs a round)
// and returns a value that depends on every chain, so none can be dropped.
// The multiplier is just below 1 so values settle instead of overflowing.
float FmaChains(size_t rounds) {
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, 0.9999f);
  const auto a = hn::Set(d, 1e-4f);
  auto c0 = hn::Set(d, 0.0f), c1 = hn::Set(d, 0.1f), c2 = hn::Set(d, 0.2f);
  auto c3 = hn::Set(d, 0.3f), c4 = hn::Set(d, 0.4f), c5 = hn::Set(d, 0.5f);
  auto c6 = hn::Set(d, 0.6f), c7 = hn::Set(d, 0.7f), c8 = hn::Set(d, 0.8f);
  auto c9 = hn::Set(d, 0.9f), c10 = hn::Set(d, 1.0f), c11 = hn::Set(d, 1.1f);
  for (size_t i = 0; i < rounds; ++i) {
    StepChains(m, a, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11);
  }
  const auto sum = hn::Add(hn::Add(hn::Add(hn::Add(c0, c1), hn::Add(c2, c3)),
                                   hn::Add(hn::Add(c4, c5), hn::Add(c6, c7))),
                           hn::Add(hn::Add(c8, c9), hn::Add(c10, c11)));
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

size_t FmaLanes() { return hn::Lanes(hn::ScalableTag<float>()); }
const char* FmaIsa() { return hwy::TargetName(HWY_TARGET); }

ATTNRT_HWY_END

#if HWY_ONCE
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "host/fma_peak.h"

namespace attnrt {

HWY_EXPORT(FmaChains);
HWY_EXPORT(FmaLanes);
HWY_EXPORT(FmaIsa);

namespace {

constexpr double kChains = 12;

// CPU time of this thread, not wall time: a trial that other processes push off
// the core still measures what the core does while the loop runs.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double SecondsFor(size_t rounds, volatile float* sink) {
  const double start = ThreadCpuSeconds();
  *sink = HWY_DYNAMIC_DISPATCH(FmaChains)(rounds);
  return ThreadCpuSeconds() - start;
}

// Doubles the round count until one call takes at least `seconds`/4, then
// scales it to about `seconds` (timer resolution stops mattering long before).
size_t RoundsFor(double seconds, volatile float* sink) {
  size_t rounds = 1 << 14;
  double t = SecondsFor(rounds, sink);
  while (t < seconds / 4) {
    rounds *= 2;
    t = SecondsFor(rounds, sink);
  }
  return static_cast<size_t>(static_cast<double>(rounds) * seconds / t) + 1;
}

}  // namespace

double ReadCpuClockMhz(std::string* source) {
  std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (max_freq >> khz && khz > 0) {
    *source = "cpufreq cpuinfo_max_freq";
    return khz / 1000.0;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const double mhz = std::strtod(line.c_str() + colon + 1, nullptr);
    if (mhz > 0) {
      *source = "/proc/cpuinfo cpu MHz";
      return mhz;
    }
  }
  *source = "unknown";
  return 0;
}

FmaPeak MeasureFmaPeak(double seconds_per_trial, int trials) {
  FmaPeak peak;
  peak.isa = HWY_DYNAMIC_DISPATCH(FmaIsa)();
  peak.lanes = HWY_DYNAMIC_DISPATCH(FmaLanes)();
  volatile float sink = 0;
  const size_t rounds = RoundsFor(seconds_per_trial, &sink);
  const double flops = static_cast<double>(rounds) * kChains * 2.0 * static_cast<double>(peak.lanes);
  for (int t = 0; t < (trials < 1 ? 1 : trials); ++t) {
    const double gflops = flops / SecondsFor(rounds, &sink) / 1e9;
    if (gflops > peak.measured_gflops) peak.measured_gflops = gflops;
  }
  peak.clock_mhz = ReadCpuClockMhz(&peak.clock_source);
  if (peak.clock_mhz > 0) {
    const double flops_per_cycle_per_unit = 2.0 * static_cast<double>(peak.lanes);
    const double ghz = peak.clock_mhz / 1000.0;
    peak.theoretical_gflops =
        flops_per_cycle_per_unit * static_cast<double>(peak.assumed_fma_units) * ghz;
    peak.fma_per_cycle = peak.measured_gflops / (flops_per_cycle_per_unit * ghz);
  }
  return peak;
}

}  // namespace attnrt
#endif  // HWY_ONCE

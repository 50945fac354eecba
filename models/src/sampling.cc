// Next-token choice (see sampling.h).
#include "attnrt/models/sampling.h"

#include <algorithm>
#include <cmath>

namespace attnrt {
namespace {

size_t Argmax(const float* logits, size_t vocab) {
  size_t best = 0;
  bool found = false;
  for (size_t i = 0; i < vocab; ++i) {
    if (std::isnan(logits[i])) continue;
    if (!found || logits[i] > logits[best]) best = i;
    found = true;
  }
  return best;
}

}  // namespace

// splitmix64: a full-period 64-bit generator with well-mixed output.
uint64_t SamplingSeed(uint64_t seed) { return seed ^ 0x9e3779b97f4a7c15ull; }

float SamplingUniform(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);  // 24 bits: exact in float
}

Status CheckLogits(const float* logits, size_t vocab) {
  bool finite = false;
  for (size_t i = 0; i < vocab; ++i) {
    if (std::isnan(logits[i]) || logits[i] == INFINITY) {
      return Status::Error(StatusCode::kInvalidArgument, "logit of token %z is %s", i,
                           std::isnan(logits[i]) ? "NaN" : "+inf");
    }
    finite = finite || std::isfinite(logits[i]);
  }
  if (!finite) {
    return Status::Error(StatusCode::kInvalidArgument, "all %z logits are -inf", vocab);
  }
  return Status::Ok();
}

size_t SampleToken(const float* logits, size_t vocab, const SamplingParams& params,
                   uint64_t* state, float* probabilities, uint32_t* order) {
  if (vocab == 0) return 0;
  const size_t best = Argmax(logits, vocab);
  if (!(params.temperature > 0.0f) || std::isnan(logits[best])) return best;
  // Candidates in descending logit order (ties by index), NaN dropped.
  size_t n = 0;
  for (size_t i = 0; i < vocab; ++i) {
    if (!std::isnan(logits[i])) order[n++] = static_cast<uint32_t>(i);
  }
  const auto before = [logits](uint32_t a, uint32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  size_t keep = n;
  if (params.top_k != 0 && params.top_k < keep) keep = params.top_k;
  std::partial_sort(order, order + keep, order + n, before);
  // Softmax of logit / temperature over the kept candidates, in double for the sums.
  const double inv_t = 1.0 / params.temperature;
  const double top = static_cast<double>(logits[order[0]]);
  double total = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    const double e = std::exp((static_cast<double>(logits[order[i]]) - top) * inv_t);
    probabilities[i] = static_cast<float>(e);
    total += e;
  }
  // Nucleus: the fewest leading candidates whose probability mass reaches top_p.
  if (params.top_p < 1.0f) {
    double mass = 0.0;
    size_t k = 0;
    while (k < keep) {
      mass += probabilities[k] / total;
      ++k;
      if (mass >= params.top_p) break;
    }
    keep = k;
    total = 0.0;
    for (size_t i = 0; i < keep; ++i) total += probabilities[i];
  }
  const double r = static_cast<double>(SamplingUniform(state)) * total;
  double acc = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    acc += probabilities[i];
    if (r < acc) return order[i];
  }
  return order[keep - 1];
}

}  // namespace attnrt

// Issue 17 item 6: finite scores and finite additive-mask values, however negative,
// follow PyTorch's softmax; only -inf, a False bool entry and the causal rule mask a
// key. (The kernels once used -1e30 as the masked score and treated anything at or
// below it as masked: a huge logit gave zeros instead of the best key's value, and a
// Hugging Face padding mask of float32's lowest value gave zeros instead of a uniform
// softmax.) Every variant, the reference included, is compared with a float64
// computation written here, since the reference itself changed with the fix.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/sdpa.h"
#include "host/aligned_buffer.h"
#include "host/thread_pool.h"
#include "kernels/sdpa_tester.h"

namespace attnrt::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kLowest = std::numeric_limits<float>::lowest();  // -FLT_MAX, HF's padding

// One head (B = H = 1), explicit Q (L x E), K (S x E), V (S x Ev) and an optional
// float (L x S) mask.
struct Problem {
  size_t L = 1, S = 1, E = 1, Ev = 1;
  std::vector<float> q, k, v, mask;  // mask empty: none
  CausalKind causal = CausalKind::kNone;
  size_t workers = 1;
};

// Sizes the tensors and fills Q, K, V with normals (scale 1), no mask.
Problem Shaped(size_t L, size_t S, size_t E, size_t Ev, uint32_t seed) {
  Problem p;
  p.L = L, p.S = S, p.E = E, p.Ev = Ev;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  p.q.resize(L * E);
  p.k.resize(S * E);
  p.v.resize(S * Ev);
  for (auto* t : {&p.q, &p.k, &p.v}) {
    for (float& x : *t) x = normal(rng);
  }
  return p;
}

bool CausallyVisible(const Problem& p, size_t i, size_t j) {
  if (p.causal == CausalKind::kNone) return true;
  const long long offset =
      p.causal == CausalKind::kLowerRight ? static_cast<long long>(p.S) - static_cast<long long>(p.L) : 0;
  return static_cast<long long>(j) <= static_cast<long long>(i) + offset;
}

// PyTorch's math in float64, except that the float mask is added to the float32
// score as PyTorch does (so -FLT_MAX + an ordinary score is -FLT_MAX). Keys masked by
// -inf or the causal rule weigh 0; a row without any other key gives zeros.
void Expected(const Problem& p, std::vector<float>* out, std::vector<float>* weights) {
  out->assign(p.L * p.Ev, 0.0f);
  weights->assign(p.L * p.S, 0.0f);
  const double scale = 1.0 / std::sqrt(static_cast<double>(p.E));
  std::vector<double> s(p.S);
  for (size_t i = 0; i < p.L; ++i) {
    double max = -INFINITY;
    for (size_t j = 0; j < p.S; ++j) {
      double dot = 0.0;
      for (size_t e = 0; e < p.E; ++e) dot += double(p.q[i * p.E + e]) * double(p.k[j * p.E + e]);
      double score = dot * scale;
      if (!p.mask.empty()) score = static_cast<float>(score) + p.mask[i * p.S + j];
      s[j] = CausallyVisible(p, i, j) ? score : -INFINITY;
      max = std::max(max, s[j]);
    }
    if (max == -INFINITY) continue;  // dead row: zeros
    double sum = 0.0;
    for (size_t j = 0; j < p.S; ++j) sum += (s[j] = std::exp(s[j] - max));
    for (size_t j = 0; j < p.S; ++j) {
      (*weights)[i * p.S + j] = static_cast<float>(s[j] / sum);
      for (size_t c = 0; c < p.Ev; ++c) {
        (*out)[i * p.Ev + c] += static_cast<float>(s[j] / sum * p.v[j * p.Ev + c]);
      }
    }
  }
}

class SdpaExtremeScoresTest : public SdpaRegistryTest {
 protected:
  // Runs the problem on the variant (with weights when it returns them) and
  // compares with Expected.
  void CheckProblem(const Problem& pr, const char* what) {
    SCOPED_TRACE(::testing::Message() << what << ": L=" << pr.L << " S=" << pr.S << " E=" << pr.E
                                      << " Ev=" << pr.Ev << " causal=" << int(pr.causal)
                                      << " workers=" << pr.workers);
    const TensorShape q{2, {pr.L, pr.E, 0, 0}}, k{2, {pr.S, pr.E, 0, 0}};
    const TensorShape v{2, {pr.S, pr.Ev, 0, 0}}, m{2, {pr.L, pr.S, 0, 0}};
    const bool masked = !pr.mask.empty();
    SdpaParams p;
    TensorShape out_shape, weights_shape;
    ASSERT_TRUE(BindSdpaShapes(q, k, v, masked ? &m : nullptr,
                               masked ? MaskKind::kAdditive : MaskKind::kNone, &p, &out_shape,
                               &weights_shape)
                    .ok());
    p.q = pr.q.data();
    p.k = pr.k.data();
    p.v = pr.v.data();
    p.mask = masked ? pr.mask.data() : nullptr;
    p.causal = pr.causal;
    std::vector<float> out(pr.L * pr.Ev, NAN), weights;
    p.out = out.data();
    const bool with_weights = kernel().returns_weights;
    if (with_weights) {
      weights.assign(pr.L * pr.S, NAN);
      p.weights = weights.data();
    }
    ThreadPool pool(pr.workers);
    size_t bytes = 0;
    ASSERT_TRUE(SdpaScratchBytes(p, kernel(), pool.workers(), &bytes).ok());
    AlignedBuffer buffer(bytes);
    Arena arena(buffer.data(), bytes);
    const Status st = RunSdpa(p, kernel(), &arena, &pool);
    ASSERT_TRUE(st.ok()) << st.message();
    std::vector<float> want_out, want_weights;
    Expected(pr, &want_out, &want_weights);
    EXPECT_LE(MaxRelativeError(out, want_out), kSdpaTolerance) << "output";
    if (with_weights) {
      EXPECT_LE(MaxRelativeError(weights, want_weights), kSdpaTolerance) << "weights";
    }
    // Rows that may attend no key: exact zeros, not NaN and not merely small.
    for (size_t i = 0; i < pr.L; ++i) {
      bool any = false;
      for (size_t j = 0; j < pr.S && !any; ++j) {
        any = CausallyVisible(pr, i, j) && (pr.mask.empty() || pr.mask[i * pr.S + j] != -kInf);
      }
      if (any) continue;
      for (size_t c = 0; c < pr.Ev; ++c) ASSERT_EQ(out[i * pr.Ev + c], 0.0f) << "dead row " << i;
      for (size_t j = 0; j < weights.size() / pr.L; ++j) {
        ASSERT_EQ(weights[i * pr.S + j], 0.0f) << "dead row " << i;
      }
    }
  }
};
ATTNRT_INSTANTIATE_PER_VARIANT(SdpaExtremeScoresTest);

// The reproduction: Q = 1e31, K = [-1, -1.5, -2], V = arange(6) as (3, 2).
// Every score is finite and below -1e30; PyTorch attends the best key: [0, 1].
TEST_P(SdpaExtremeScoresTest, HugeNegativeLogitsAttendTheBestKey) {
  Problem p;
  p.L = 1, p.S = 3, p.E = 1, p.Ev = 2;
  p.q = {1e31f};
  p.k = {-1.0f, -1.5f, -2.0f};
  p.v = {0, 1, 2, 3, 4, 5};
  CheckProblem(p, "issue repro");

  // The same across flash tiles, query blocks and decode splits: every score of
  // every row is below -1e30, the best key sits anywhere.
  for (size_t L : {1, 3, 70}) {
    for (size_t S : {65, 200, 2100}) {
      Problem big = Shaped(L, S, 4, 9, static_cast<uint32_t>(L * 10000 + S));
      std::mt19937 rng(static_cast<uint32_t>(S));
      std::uniform_real_distribution<float> gap(1.0f, 2.0f);
      for (size_t i = 0; i < L; ++i) {
        for (size_t e = 0; e < 4; ++e) big.q[i * 4 + e] = e == 0 ? (i % 2 ? 2e31f : 1e31f) : 0.0f;
      }
      for (size_t j = 0; j < S; ++j) big.k[j * 4] = -gap(rng);  // scores -0.5e31 .. -2e31
      big.causal = L == 70 ? CausalKind::kLowerRight : CausalKind::kNone;
      big.workers = S == 2100 ? 2 : 1;
      CheckProblem(big, "huge negative logits");
    }
  }
}

// Float masks of float32's lowest value (Hugging Face's padding) and -3e38: a row of
// them is a uniform softmax (score + -FLT_MAX is -FLT_MAX in float32), one key at 0
// among them takes all the weight, -inf beside them weighs 0, a row of -inf is zeros.
TEST_P(SdpaExtremeScoresTest, LowestFloatMaskRowsFollowPyTorch) {
  for (size_t S : {3, 65, 200, 2100}) {
    for (CausalKind causal : {CausalKind::kNone, CausalKind::kUpperLeft}) {
      const size_t L = 70;  // crosses flash's 64-query blocks
      Problem p = Shaped(L, S, 16, 17, static_cast<uint32_t>(S * 3 + int(causal)));
      p.causal = causal;
      p.mask.assign(L * S, 0.0f);
      std::mt19937 rng(static_cast<uint32_t>(S));
      std::uniform_real_distribution<float> bias(-2.0f, 2.0f);
      for (size_t i = 0; i < L; ++i) {
        float* row = p.mask.data() + i * S;
        const size_t one = (i * 37) % S;  // a key the row may see, unless causal hides it
        for (size_t j = 0; j < S; ++j) {
          switch (i % 7) {
            case 0: row[j] = kLowest; break;                              // uniform
            case 1: row[j] = -3e38f; break;                               // uniform
            case 2: row[j] = j == one ? 0.0f : kLowest; break;            // one key
            case 3: row[j] = j % 3 == 0 ? -kInf : kLowest; break;         // mixed
            case 4: row[j] = -kInf; break;                                // dead
            case 5: row[j] = j % 5 == 0 ? kLowest : bias(rng); break;     // padded keys
            default: row[j] = j == one ? -kInf : kLowest; break;          // mixed
          }
        }
      }
      p.workers = S == 2100 ? 2 : 1;
      CheckProblem(p, "lowest-float mask");
    }
  }
}

// Decode-shaped calls (few queries, keys across several splits): splits whose keys
// are all -FLT_MAX next to splits of ordinary keys, splits of -inf only next to
// splits of -FLT_MAX only, and rows all -FLT_MAX across every split (uniform).
TEST_P(SdpaExtremeScoresTest, LowestFloatMaskAcrossDecodeSplits) {
  const size_t L = 4, S = 4100;
  Problem p = Shaped(L, S, 64, 64, 7);
  p.mask.assign(L * S, 0.0f);
  for (size_t j = 0; j < S; ++j) {
    const size_t split = j / 1024;
    p.mask[0 * S + j] = split == 2 ? 0.5f : kLowest;
    p.mask[1 * S + j] = split % 2 == 0 ? -kInf : kLowest;
    p.mask[2 * S + j] = kLowest;
    p.mask[3 * S + j] = -kInf;
  }
  for (size_t workers : {1, 2}) {
    p.workers = workers;
    CheckProblem(p, "decode splits");
  }
  // Huge negative logits in a decode call: the best key is in the last split.
  Problem h = Shaped(1, S, 1, 8, 9);
  h.q = {1e31f};
  for (size_t j = 0; j < S; ++j) h.k[j] = -2.0f + static_cast<float>(j) / S;
  CheckProblem(h, "decode huge logits");
}

}  // namespace
}  // namespace attnrt::testing

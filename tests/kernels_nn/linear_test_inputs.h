// One Linear test case and its inputs, shared by linear_test.cc (the f32-activation path of
// every weight type) and linear_int8_test.cc (the integer kernel `auto` runs for q8 and
// q4_0): the shape, the random x, weights and bias in guarded buffers, the weights in the
// case's type (typed_weights.h), the LinearParams of a call, and a run of the work items
// split into ranges with poisoned, guarded scratch.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attnrt/kernels/linear.h"
#include "attnrt/kernels/sdpa_kernel.h"  // kScratchAlignment
#include "host/aligned_buffer.h"
#include "kernels_nn/nn_test_buffers.h"
#include "kernels_nn/typed_weights.h"

namespace attnrt::testing {

struct LinearCase {
  size_t M = 1, K = 1, N = 1;
  WeightType type = WeightType::kF32;
  bool bias = true;
  bool misalign = false;
  size_t x_pad = 0, y_pad = 0;  // stride - width
  float x_scale = 1.0f, w_scale = 1.0f;
  uint32_t seed = 1;

  // A case for the split tests: `shape` {M, K, N}, misaligned buffers, padded rows of y.
  static LinearCase ForSplits(const size_t (&shape)[3], WeightType type, uint32_t seed) {
    LinearCase c{shape[0], shape[1], shape[2], type};
    c.misalign = true;
    c.y_pad = 3;
    c.seed = seed;
    return c;
  }

  std::string Describe() const {
    std::ostringstream s;
    s << WeightTypeName(type) << " M=" << M << " K=" << K << " N=" << N
      << (bias ? " bias" : " no-bias") << (misalign ? " misaligned" : "")
      << " x_stride=" << K + x_pad << " y_stride=" << N + y_pad << " x*" << x_scale << " w*"
      << w_scale << " seed=" << seed;
    return s.str();
  }
};

// The calls ask for `activations` unless they name others.
class LinearInputs {
 public:
  LinearInputs(const LinearCase& c, LinearActivations activations)
      : c_(c),
        activations_(activations),
        x_(c.M * (c.K + c.x_pad), c.misalign),
        w_(c.N * c.K, c.misalign),
        bias_(c.N, c.misalign) {
    std::mt19937 rng(c.seed);
    x_.FillNormal(&rng, c.x_scale);
    w_.FillNormal(&rng, c.w_scale);
    bias_.FillNormal(&rng, c.x_scale * c.w_scale);
    // w_ becomes the decoded values of the typed weights (unchanged for f32).
    typed_ = std::make_unique<TypedMatrix>(c.type, c.N, c.K, c.misalign, w_.data());
  }

  // `typed`: the weights in c.type; otherwise their decoded f32 values.
  LinearParams Params(GuardedFloats* y, bool typed = true) const {
    return Params(y, activations_, typed);
  }
  LinearParams Params(GuardedFloats* y, LinearActivations a, bool typed = true) const {
    LinearParams p;
    p.rows = c_.M;
    p.in = c_.K;
    p.out = c_.N;
    p.x = x_.data();
    p.x_stride = c_.K + c_.x_pad;
    p.w = typed ? typed_->data() : w_.data();
    p.w_type = typed ? c_.type : WeightType::kF32;
    p.bias = c_.bias ? bias_.data() : nullptr;
    p.y = y->data();
    p.y_stride = c_.N + c_.y_pad;
    p.activations = a;
    p.w_packed = typed ? packed_ : nullptr;
    p.x_prepared = typed ? prepared_ : nullptr;
    return p;
  }

  // Runs from here on read the weights' packed copy at `packed` (LinearParams::w_packed;
  // nullptr: the weights as stored).
  void UsePacked(const void* packed) { packed_ = packed; }
  // Runs from here on read x as PrepareLinearActivations wrote it at `prepared`
  // (LinearParams::x_prepared; nullptr: each range prepares its own).
  void UsePrepared(const float* prepared) { prepared_ = prepared; }

  GuardedFloats NewOutput() const {
    return GuardedFloats::Filled(c_.M * (c_.N + c_.y_pad), c_.misalign, kUntouched);
  }

  // Runs the items as the ranges [0, cuts[0]), [cuts[0], cuts[1]), ..., [cuts.back(), items)
  // through linear.h's entry points, each with freshly poisoned scratch guarded at its end.
  // Empty string when all went well.
  std::string Run(const std::vector<size_t>& cuts, GuardedFloats* y, bool typed = true) const {
    return Run(cuts, y, activations_, typed);
  }
  std::string Run(const std::vector<size_t>& cuts, GuardedFloats* y, LinearActivations a,
                  bool typed = true) const {
    const LinearParams p = Params(y, a, typed);
    const size_t items = LinearWorkItems(p);
    const size_t floats = LinearScratchFloats(p);
    AlignedBuffer buffer((floats + GuardedFloats::kGuard) * sizeof(float));
    float* scratch = reinterpret_cast<float*>(buffer.data());
    if (reinterpret_cast<uintptr_t>(scratch) % kScratchAlignment != 0) return "scratch misaligned";
    size_t begin = 0;
    for (size_t i = 0; i <= cuts.size(); ++i) {
      const size_t end = i < cuts.size() ? cuts[i] : items;
      if (end < begin || end > items) return "bad cut";
      std::fill(scratch, scratch + floats, std::nanf(""));
      std::fill(scratch + floats, scratch + floats + GuardedFloats::kGuard, kUntouched);
      LinearRun(p, begin, end, scratch);
      for (size_t g = 0; g < GuardedFloats::kGuard; ++g) {
        if (scratch[floats + g] != kUntouched) return "wrote past the end of scratch";
      }
      begin = end;
    }
    if (!y->GuardsIntact()) return "wrote outside y";
    if (!x_.GuardsIntact() || !w_.GuardsIntact() || !bias_.GuardsIntact() ||
        !typed_->GuardsIntact()) {
      return "wrote outside inputs";
    }
    return "";
  }

  // Runs the call whole, then split at item 1, the middle, the last item, three cuts and
  // every item: each split must give the whole call's bits. Fails unless there are more
  // than `min_items` items.
  void ExpectSplitsGiveIdenticalBits(size_t min_items) const {
    GuardedFloats whole = NewOutput();
    ASSERT_EQ(Run({}, &whole), "") << c_.Describe();
    const size_t items = Items();
    ASSERT_GT(items, min_items) << c_.Describe();
    std::vector<std::vector<size_t>> splits = {{1}, {items / 2}, {items - 1}};
    if (items >= 3) splits.push_back({1, items / 3, items - 2});
    std::vector<size_t> singles;
    for (size_t i = 1; i < items; ++i) singles.push_back(i);
    splits.push_back(singles);
    for (const auto& cuts : splits) {
      GuardedFloats parts = NewOutput();
      ASSERT_EQ(Run(cuts, &parts), "") << c_.Describe();
      EXPECT_TRUE(parts.SameBitsAs(whole)) << c_.Describe() << " split into " << cuts.size() + 1;
    }
  }

  size_t Items() const {
    GuardedFloats y = NewOutput();
    return LinearWorkItems(Params(&y));
  }

 protected:
  LinearCase c_;
  LinearActivations activations_;
  GuardedFloats x_, w_, bias_;
  std::unique_ptr<TypedMatrix> typed_;
  const void* packed_ = nullptr;
  const float* prepared_ = nullptr;
};

// Random x (M x K), weight values (N x K) and bias (N) from `normal`, and outputs got and want
// (M x N), each a vector of exactly the data's size (no guards, no padding), so a
// sanitizer build reports any read past the end.
struct ExactSizeLinearBuffers {
  ExactSizeLinearBuffers(size_t M, size_t K, size_t N, std::mt19937* rng,
                         std::normal_distribution<float>* normal)
      : x(M * K), w(N * K), bias(N), got(M * N), want(M * N) {
    for (std::vector<float>* v : {&x, &w, &bias}) {
      for (float& e : *v) e = (*normal)(*rng);
    }
  }
  std::vector<float> x, w, bias, got, want;
};

// All work items of `p` in one call, with scratch of exactly LinearScratchFloats.
inline void RunLinearExactScratch(const LinearParams& p) {
  AlignedBuffer scratch(LinearScratchFloats(p) * sizeof(float));
  LinearRun(p, 0, LinearWorkItems(p), reinterpret_cast<float*>(scratch.data()));
}

}  // namespace attnrt::testing

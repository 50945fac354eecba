// What the row-norm tests (LayerNormRows, RmsNormRows) share: rows of n floats read at one
// stride and written at another, each with guards, a split of the rows into two calls, the
// in-place expectation, and the check that a split gives the same bits as one call.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>

#include "kernels_nn/nn_test_buffers.h"

namespace attnrt::testing {

// What every row-norm case sets: its rows, their layout, eps and the seed of its data.
struct RowNormLayout {
  size_t rows = 3, n = 16;
  size_t x_pad = 0, y_pad = 0;
  bool misalign = false;
  float eps = 1e-5f;
  uint32_t seed = 1;

  std::string DescribeLayout() const {
    std::ostringstream s;
    s << "rows=" << rows << " n=" << n << " x_pad=" << x_pad << " y_pad=" << y_pad
      << (misalign ? " misaligned" : "") << " eps=" << eps << " seed=" << seed;
    return s.str();
  }
};

// The buffers and runs of a row-norm tester `Derived`, which fills x and defines
// Norm(x, rows, y): the op on `rows` rows at XStride() into y at YStride(). `Case` is a
// RowNormLayout with the op's own fields.
template <class Derived, class Case>
class RowNormTester {
 public:
  explicit RowNormTester(const Case& c) : c_(c), x_(c.rows * XStride(), c.misalign) {}

  size_t XStride() const { return c_.n + c_.x_pad; }
  size_t YStride() const { return c_.n + c_.y_pad; }
  const GuardedFloats& x() const { return x_; }
  GuardedFloats& x() { return x_; }

  GuardedFloats NewOutput() const {
    return GuardedFloats::Filled(c_.rows * YStride(), c_.misalign, kUntouched);
  }

  // Rows [0, split) and [split, rows) in two calls.
  GuardedFloats Run(size_t split) const {
    GuardedFloats y = NewOutput();
    self().Norm(x_.data(), split, y.data());
    self().Norm(x_.data() + split * XStride(), c_.rows - split, y.data() + split * YStride());
    return y;
  }

  // All rows in one call with y = x (the case's y_pad must equal its x_pad).
  GuardedFloats RunInPlace() const {
    GuardedFloats y = x_;
    self().Norm(y.data(), c_.rows, y.data());
    return y;
  }

  // An in-place call's expected output: `want` (out of place, at x's stride, kUntouched in the
  // padding) with the padding keeping x's values.
  GuardedFloats InPlaceWant(GuardedFloats want) const {
    for (size_t r = 0; r < c_.rows; ++r) {
      for (size_t j = c_.n; j < XStride(); ++j) want[r * XStride() + j] = x_[r * XStride() + j];
    }
    return want;
  }

 protected:
  const Derived& self() const { return static_cast<const Derived&>(*this); }

  Case c_;
  GuardedFloats x_;
};

// Each of `widths`, in four variants (vary(&c, variant) sets the op's own fields for
// variant 0..3), with rows, paddings and seeds changing from case to case: every case
// against the reference.
template <class Tester, class Case, class Vary>
void ExpectWidthsMatchReference(std::initializer_list<size_t> widths, Vary vary) {
  uint32_t seed = 0;
  for (size_t n : widths) {
    for (int variant = 0; variant < 4; ++variant) {
      Case c;
      c.rows = 1 + seed % 5;
      c.n = n;
      c.x_pad = seed % 3;
      c.y_pad = seed % 4 == 1 ? 7 : 0;
      c.seed = ++seed;
      vary(&c, variant);
      Tester(c).ExpectMatchesReference();
    }
  }
}

// Every split of 9 rows into two calls gives the bits of one call.
template <class Tester, class Case>
void ExpectRowSplitsGiveIdenticalBits() {
  Case c;
  c.rows = 9;
  c.n = 45;
  c.y_pad = 2;
  c.seed = 300;
  const Tester t(c);
  const GuardedFloats whole = t.Run(0);
  for (size_t split = 1; split <= c.rows; ++split) {
    EXPECT_TRUE(t.Run(split).SameBitsAs(whole)) << "split at " << split;
  }
}

}  // namespace attnrt::testing

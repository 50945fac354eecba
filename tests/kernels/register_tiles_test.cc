// The Highway building blocks of the kernels (kernel-internal -inl.h code), called
// directly on every target this CPU supports (per-target suites):
//
// The register tiles at both widths, against plain double loops: QKBlock4Rows and
// PVBlock4Rows (sdpa_tiles-inl.h) and Tile6Rows (linear_tiles-inl.h) with 2 and 4
// vectors per row. The SDPA drivers pick 4 only on AVX-512 and SCALAR, Linear only on
// AArch64, so without this test AVX2 and SSE4 would never run the wide blocks. Rows
// repeat as tails pass them (the last real row again), and nothing outside a block's
// columns may change. QKRows4 and PVRows4 are checked over widths that mix both block
// sizes.
//
// SumOfLanesExact (integer_sum-inl.h) against a scalar sum in 64 bits: lanes at the
// int32 and uint32 extremes, where a reduction that adds in `int` overflows (AVX3's
// hn::SumOfLanes does, and UBSan stops it: issue 28), and random lanes. Run in the
// ASan + UBSan stage too, where an overflowing reduction fails the test.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/register_tiles_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "kernels/hwy/hwy_namespace.h"
#include "hwy/tests/hwy_gtest.h"
#include "tests/kernels_nn/nn_target_fixture.h"
#include "kernels/hwy/integer_sum-inl.h"
#include "kernels/hwy/linear_tiles-inl.h"
#include "kernels/hwy/sdpa_tiles-inl.h"

ATTNRT_HWY_BEGIN
namespace {

// Where the 4 (or 6) row pointers of a tile point: distinct rows, and the tails
// a driver passes when fewer rows are left (the last real row repeated).
const std::vector<std::vector<size_t>> kRowsOf4 = {{0, 1, 2, 3}, {0, 1, 2, 2}, {0, 1, 1, 1},
                                                   {0, 0, 0, 0}};
const std::vector<std::vector<size_t>> kRowsOf6 = {
    {0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 3, 3}, {0, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0}};

// Left untouched by every tile: any write outside a block's columns shows.
constexpr float kUntouched = 12345.0f;

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = uniform(rng);
  return x;
}

hwy::AlignedFreeUniquePtr<float[]> AlignedCopy(const std::vector<float>& x) {
  auto copy = hwy::AllocateAligned<float>(x.size() + 1);  // hwy refuses 0 bytes
  for (size_t i = 0; i < x.size(); ++i) copy[i] = x[i];
  return copy;
}

// A float sum of n terms is within about n * 2^-24 of the sum of their magnitudes.
void ExpectClose(float got, double want, double magnitude, const char* what, size_t row,
                 size_t col) {
  EXPECT_NEAR(got, want, 1e-5 * magnitude + 1e-6) << what << " row " << row << " col " << col;
}

// scores[r][c0 + i] for i < kVecs * N from QKBlock4Rows on the row pointers `rows`.
template <size_t kVecs>
void CheckQKBlock(const std::vector<size_t>& rows, size_t dim) {
  const size_t N = hn::Lanes(DF());
  const size_t width = kVecs * N, c0 = 2 * N, ldk = c0 + width + N;
  const size_t q_stride = dim + 3, lds = ldk + 1;
  const float scale = 0.375f;
  const auto kt = AlignedCopy(RandomFloats(dim * ldk, uint32_t(dim + kVecs)));
  const std::vector<float> q = RandomFloats(4 * q_stride + 1, uint32_t(dim * 7 + 1));
  std::vector<float> s(4 * lds + 1, kUntouched);
  const float* q_row[4];
  float* s_row[4];
  for (size_t r = 0; r < 4; ++r) {
    q_row[r] = q.data() + 1 + rows[r] * q_stride;  // +1: queries need no alignment
    s_row[r] = s.data() + 1 + rows[r] * lds + c0;
  }
  QKBlock4Rows<kVecs>(q_row[0], q_row[1], q_row[2], q_row[3], kt.get() + c0, ldk, dim, scale,
                      s_row[0], s_row[1], s_row[2], s_row[3]);
  for (size_t row = 0; row < 4; ++row) {
    const bool written = rows[0] == row || rows[1] == row || rows[2] == row || rows[3] == row;
    for (size_t c = 0; c < ldk; ++c) {
      const float got = s[1 + row * lds + c];
      if (!written || c < c0 || c >= c0 + width) {
        EXPECT_EQ(got, kUntouched) << "QK wrote row " << row << " col " << c;
        continue;
      }
      double want = 0.0, magnitude = 0.0;
      for (size_t e = 0; e < dim; ++e) {
        const double term = double(q[1 + row * q_stride + e]) * kt[e * ldk + c];
        want += term;
        magnitude += std::fabs(term);
      }
      ExpectClose(got, scale * want, scale * magnitude, "QK", row, c);
    }
  }
}

// o[r][c0 + i] += sum_j P(r, j) * vt[j][c0 + i] from PVBlock4Rows, P row-major
// (pstride 1) or key-major (pstride = 4 rows).
template <size_t kVecs>
void CheckPVBlock(const std::vector<size_t>& rows, size_t keys, bool key_major) {
  const size_t N = hn::Lanes(DF());
  const size_t width = kVecs * N, c0 = 2 * N, ldv = c0 + width + 2 * N;
  const size_t pstride = key_major ? 4 : 1, row_stride = key_major ? 1 : keys + 1;
  const auto vt = AlignedCopy(RandomFloats(keys * ldv, uint32_t(keys + kVecs)));
  const std::vector<float> p = RandomFloats(4 * (keys + 1), uint32_t(keys * 5 + 2));
  std::vector<float> o_init = RandomFloats(4 * ldv, uint32_t(keys * 3 + 3));
  for (size_t i = 0; i < o_init.size(); ++i) {
    if (i % ldv < c0 || i % ldv >= c0 + width) o_init[i] = kUntouched;
  }
  const auto o = AlignedCopy(o_init);
  const float* p_row[4];
  float* o_row[4];
  for (size_t r = 0; r < 4; ++r) {
    p_row[r] = p.data() + rows[r] * row_stride;
    o_row[r] = o.get() + rows[r] * ldv + c0;
  }
  PVBlock4Rows<kVecs>(p_row[0], p_row[1], p_row[2], p_row[3], pstride, vt.get() + c0, ldv, keys,
                      o_row[0], o_row[1], o_row[2], o_row[3]);
  for (size_t row = 0; row < 4; ++row) {
    const bool written = rows[0] == row || rows[1] == row || rows[2] == row || rows[3] == row;
    for (size_t c = 0; c < ldv; ++c) {
      const float got = o[row * ldv + c];
      if (!written || c < c0 || c >= c0 + width) {
        EXPECT_EQ(got, o_init[row * ldv + c]) << "PV wrote row " << row << " col " << c;
        continue;
      }
      double want = o_init[row * ldv + c], magnitude = std::fabs(want);
      for (size_t j = 0; j < keys; ++j) {
        const double term = double(p[row * row_stride + j * pstride]) * vt[j * ldv + c];
        want += term;
        magnitude += std::fabs(term);
      }
      ExpectClose(got, want, magnitude, "PV", row, c);
    }
  }
}

void TestQKBlockBothWidths() {
  for (const auto& rows : kRowsOf4) {
    for (size_t dim : {0, 1, 2, 5, 16, 37}) {
      CheckQKBlock<2>(rows, dim);
      CheckQKBlock<4>(rows, dim);
    }
  }
}

void TestPVBlockBothWidths() {
  for (const auto& rows : kRowsOf4) {
    for (size_t keys : {0, 1, 3, 8, 29}) {
      for (bool key_major : {false, true}) {
        CheckPVBlock<2>(rows, keys, key_major);
        CheckPVBlock<4>(rows, keys, key_major);
      }
    }
  }
}

// QKRows4 and PVRows4 over whole padded rows: 2, 4, 6 and 10 vectors, so AVX-512
// runs both its 4-vector blocks and a 2-vector rest, and the others only 2-vector
// blocks. Rows 0, 1, 2, 2 (a tail).
void TestRows4OverMixedWidths() {
  const size_t N = hn::Lanes(DF());
  const size_t dim = 9, keys = 11;
  const size_t rows[4] = {0, 1, 2, 2};
  for (size_t vectors : {2, 4, 6, 10}) {
    const size_t ld = vectors * N;
    const auto kt = AlignedCopy(RandomFloats(dim * ld, uint32_t(vectors)));
    const std::vector<float> q = RandomFloats(3 * dim, uint32_t(vectors + 1));
    auto s = AlignedCopy(std::vector<float>(3 * ld, kUntouched));
    QKRows4(q.data(), q.data() + dim, q.data() + 2 * dim, q.data() + 2 * dim, kt.get(), ld, dim,
            1.0f, s.get(), s.get() + ld, s.get() + 2 * ld, s.get() + 2 * ld);
    const std::vector<float> p = RandomFloats(3 * keys, uint32_t(vectors + 2));
    const auto vt = AlignedCopy(RandomFloats(keys * ld, uint32_t(vectors + 3)));
    const std::vector<float> o_init = RandomFloats(3 * ld, uint32_t(vectors + 4));
    const auto o = AlignedCopy(o_init);
    float* o_row[4];
    for (size_t r = 0; r < 4; ++r) o_row[r] = o.get() + rows[r] * ld;
    PVRows4(p.data(), p.data() + keys, p.data() + 2 * keys, p.data() + 2 * keys, 1, vt.get(), ld,
            keys, o_row[0], o_row[1], o_row[2], o_row[3]);
    for (size_t row = 0; row < 3; ++row) {
      for (size_t c = 0; c < ld; ++c) {
        double qk = 0.0, qk_magnitude = 0.0;
        for (size_t e = 0; e < dim; ++e) {
          qk += double(q[row * dim + e]) * kt[e * ld + c];
          qk_magnitude += std::fabs(double(q[row * dim + e]) * kt[e * ld + c]);
        }
        ExpectClose(s[row * ld + c], qk, qk_magnitude, "QKRows4", row, c);
        double pv = o_init[row * ld + c], pv_magnitude = std::fabs(pv);
        for (size_t j = 0; j < keys; ++j) {
          pv += double(p[row * keys + j]) * vt[j * ld + c];
          pv_magnitude += std::fabs(double(p[row * keys + j]) * vt[j * ld + c]);
        }
        ExpectClose(o[row * ld + c], pv, pv_magnitude, "PVRows4", row, c);
      }
    }
  }
}

// y_r[0 .. nr) = (accumulate ? y_r : bias) + sum_k x_r[k] * panel[k][..] from
// Tile6Rows, nr = kVecs vectors; y rows and bias misaligned (LoadU/StoreU).
template <size_t kVecs>
void CheckTile6Rows(const std::vector<size_t>& rows, size_t depth, bool accumulate) {
  const size_t nr = kVecs * hn::Lanes(DF());
  const size_t x_stride = depth + 1, y_stride = nr + 3;
  const auto panel = AlignedCopy(RandomFloats(depth * nr, uint32_t(depth + kVecs)));
  const std::vector<float> x = RandomFloats(6 * x_stride + 1, uint32_t(depth * 3 + 1));
  const std::vector<float> bias = RandomFloats(nr + 1, uint32_t(depth + 7));
  std::vector<float> y_init = RandomFloats(6 * y_stride + 1, uint32_t(depth * 5 + 2));
  for (size_t i = 0; i < y_init.size(); ++i) {
    if (i == 0 || (i - 1) % y_stride >= nr) y_init[i] = kUntouched;
  }
  std::vector<float> y = y_init;
  const float* x_row[6];
  float* y_row[6];
  for (size_t r = 0; r < 6; ++r) {
    x_row[r] = x.data() + 1 + rows[r] * x_stride;
    y_row[r] = y.data() + 1 + rows[r] * y_stride;
  }
  Tile6Rows<kVecs>(x_row, panel.get(), depth, accumulate, bias.data() + 1, y_row);
  for (size_t row = 0; row < 6; ++row) {
    bool written = false;
    for (size_t r : rows) written = written || r == row;
    for (size_t c = 0; c < y_stride; ++c) {
      const size_t at = 1 + row * y_stride + c;
      if (!written || c >= nr) {
        EXPECT_EQ(y[at], y_init[at]) << "Linear wrote row " << row << " col " << c;
        continue;
      }
      double want = accumulate ? y_init[at] : bias[1 + c];
      double magnitude = std::fabs(want);
      for (size_t k = 0; k < depth; ++k) {
        const double term = double(x[1 + row * x_stride + k]) * panel[k * nr + c];
        want += term;
        magnitude += std::fabs(term);
      }
      ExpectClose(y[at], want, magnitude, "Linear", row, c);
    }
  }
  EXPECT_EQ(y[0], kUntouched) << "Linear wrote before the first row";
}

void TestTile6RowsBothWidths() {
  for (const auto& rows : kRowsOf6) {
    for (size_t depth : {0, 1, 7, 32}) {
      for (bool accumulate : {false, true}) {
        CheckTile6Rows<2>(rows, depth, accumulate);
        CheckTile6Rows<4>(rows, depth, accumulate);
      }
    }
  }
}

template <class T>
std::vector<std::vector<T>> LanePatterns(size_t lanes) {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  std::vector<std::vector<T>> patterns = {std::vector<T>(lanes, kMin),
                                          std::vector<T>(lanes, kMax),
                                          std::vector<T>(lanes, T{1})};
  std::vector<T> alternating(lanes);
  for (size_t i = 0; i < lanes; ++i) alternating[i] = (i % 2) ? kMin : kMax;
  patterns.push_back(alternating);
  std::mt19937 rng(11);
  for (int r = 0; r < 8; ++r) {
    std::vector<T> random(lanes);
    for (T& v : random) v = static_cast<T>(rng());
    patterns.push_back(random);
  }
  return patterns;
}

template <class T>
void CheckExactSums() {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  auto buffer = hwy::AllocateAligned<T>(lanes);
  for (const std::vector<T>& pattern : LanePatterns<T>(lanes)) {
    using Wide = decltype(SumOfLanesExact(d, hn::Zero(d)));
    Wide expected = 0;
    for (T v : pattern) expected += static_cast<Wide>(v);
    for (size_t i = 0; i < lanes; ++i) buffer[i] = pattern[i];
    EXPECT_EQ(SumOfLanesExact(d, hn::Load(d, buffer.get())), expected)
        << lanes << " lanes, first lane " << pattern[0];
  }
}

void TestSumOfLanesExact() {
  CheckExactSums<int32_t>();
  CheckExactSums<uint32_t>();
}

}  // namespace
ATTNRT_HWY_END

#if HWY_ONCE
namespace attnrt {
namespace {

// Not HWY_BEFORE_TEST: a static-dispatch build (32-bit ARM) reports no supported
// target, which would leave the suites uninstantiated; KernelTargets falls back.
ATTNRT_PER_TARGET_SUITE(SdpaTilesTest);
HWY_EXPORT_AND_TEST_P(SdpaTilesTest, TestQKBlockBothWidths);
HWY_EXPORT_AND_TEST_P(SdpaTilesTest, TestPVBlockBothWidths);
HWY_EXPORT_AND_TEST_P(SdpaTilesTest, TestRows4OverMixedWidths);

ATTNRT_PER_TARGET_SUITE(LinearTilesTest);
HWY_EXPORT_AND_TEST_P(LinearTilesTest, TestTile6RowsBothWidths);

ATTNRT_PER_TARGET_SUITE(IntegerSumTest);
HWY_EXPORT_AND_TEST_P(IntegerSumTest, TestSumOfLanesExact);

}  // namespace
}  // namespace attnrt
#endif  // HWY_ONCE

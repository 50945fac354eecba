// The non-attention kernel list (kernels/nn_variants.inc): `auto` takes, per op, the
// highest-ranked kernel that serves it, the op headers' entry points run it, and every
// listed kernel matches the scalar reference through the list alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/nn_kernel.h"
#include "attnrt/kernels/rope.h"

namespace attnrt {
namespace {

template <class Op>
void ExpectAutoIsHighestRanked(Op NnKernel::*op, const char* op_name) {
  const NnKernel& chosen = AutoNnKernel(op);
  EXPECT_NE(chosen.*op, nullptr) << op_name;
  EXPECT_STREQ(chosen.name, "hwy") << op_name;  // Highway on every platform today
  for (size_t i = 0; i < NnKernelCount(); ++i) {
    const NnKernel& k = NnKernelAt(i);
    if (k.*op != nullptr) {
      EXPECT_LE(k.rank, chosen.rank) << k.name << " " << op_name;
    }
  }
}

TEST(NnKernelList, AutoIsTheHighestRankedKernelOfEachOp) {
  ASSERT_GE(NnKernelCount(), 2u);
  ASSERT_NE(FindNnKernel("reference"), nullptr);
  ASSERT_NE(FindNnKernel("hwy"), nullptr);
  EXPECT_EQ(FindNnKernel("nope"), nullptr);
  ExpectAutoIsHighestRanked(&NnKernel::layer_norm_rows, "layer_norm_rows");
  ExpectAutoIsHighestRanked(&NnKernel::rms_norm_rows, "rms_norm_rows");
  ExpectAutoIsHighestRanked(&NnKernel::rope_rows, "rope_rows");
  ExpectAutoIsHighestRanked(&NnKernel::gelu, "gelu");
  ExpectAutoIsHighestRanked(&NnKernel::relu, "relu");
  ExpectAutoIsHighestRanked(&NnKernel::add, "add");
  ExpectAutoIsHighestRanked(&NnKernel::silu_mul, "silu_mul");
  ExpectAutoIsHighestRanked(&NnKernel::gelu_tanh, "gelu_tanh");
  ExpectAutoIsHighestRanked(&NnKernel::gelu_tanh_mul, "gelu_tanh_mul");
  ExpectAutoIsHighestRanked(&NnKernel::scale, "scale");
  ExpectAutoIsHighestRanked(&NnKernel::erf, "erf");
  ExpectAutoIsHighestRanked(&NnKernel::softmax_exp, "softmax_exp");
  ExpectAutoIsHighestRanked(&NnKernel::store_kv_rows, "store_kv_rows");
  EXPECT_STREQ(LayerNormIsa(), AutoNnKernel(&NnKernel::layer_norm_rows).isa());
  EXPECT_STREQ(RopeIsa(), AutoNnKernel(&NnKernel::rope_rows).isa());
  EXPECT_STREQ(ElementwiseIsa(), AutoNnKernel(&NnKernel::gelu).isa());
  EXPECT_STREQ(StoreKvRowsIsa(), AutoNnKernel(&NnKernel::store_kv_rows).isa());
}

std::vector<float> Wave(size_t n, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(step * float(i)) * 2.0f;
  return v;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, const char* kernel,
                const char* op) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 2e-5f * (1.0f + std::fabs(want[i])))
        << kernel << " " << op << " at " << i;
  }
}

// An entry's in-place elementwise op (nullptr: not served) and its oracle, each run by
// `call(op, data)` on a copy of x.
template <class Op, class Call>
void ExpectInPlaceOpMatches(Op op, Op reference, Call call, const std::vector<float>& x,
                            const char* kernel, const char* op_name) {
  if (op == nullptr) return;
  std::vector<float> got = x, want = x;
  call(op, got.data());
  call(reference, want.data());
  ExpectNear(got, want, kernel, op_name);
}

// Each entry's ops, called through the list, give the public oracles' values; the
// entry points of the op headers give the `auto` entry's values exactly.
TEST(NnKernelList, EveryKernelMatchesTheReference) {
  const size_t rows = 3, n = 37, heads = 2, head_dim = 18;
  const std::vector<float> x = Wave(rows * n, 0.37f), gamma = Wave(n, 0.11f),
                           beta = Wave(n, 0.23f), up = Wave(rows * n, 0.05f);
  std::vector<float> table(RopeTableFloats(rows + 4, head_dim));
  RopeTable(rows + 4, head_dim, 10000.0, table.data());
  for (size_t i = 0; i < NnKernelCount(); ++i) {
    const NnKernel& k = NnKernelAt(i);
    std::vector<float> got(x.size()), want(x.size());
    if (k.layer_norm_rows != nullptr) {
      k.layer_norm_rows(x.data(), n, rows, n, gamma.data(), beta.data(), 1e-5f, got.data(), n);
      ReferenceLayerNormRows(x.data(), n, rows, n, gamma.data(), beta.data(), 1e-5f,
                             want.data(), n);
      ExpectNear(got, want, k.name, "layer_norm");
    }
    if (k.rms_norm_rows != nullptr) {
      k.rms_norm_rows(x.data(), n, rows, n, gamma.data(), 1e-5f, got.data(), n);
      ReferenceRmsNormRows(x.data(), n, rows, n, gamma.data(), 1e-5f, want.data(), n);
      ExpectNear(got, want, k.name, "rms_norm");
    }
    if (k.rope_rows != nullptr) {
      for (RopeStyle style : {RopeStyle::kInterleaved, RopeStyle::kHalf}) {
        std::vector<float> q = Wave(rows * heads * head_dim, 0.3f), r = q;
        k.rope_rows(q.data(), heads * head_dim, rows, heads, head_dim, 4, table.data(), style);
        ReferenceRopeRows(r.data(), heads * head_dim, rows, heads, head_dim, 4, 10000.0, style);
        ExpectNear(q, r, k.name, "rope");
      }
    }
    const size_t len = x.size();
    const auto unary = [len](auto op, float* v) { op(v, len); };
    const auto times_up = [len, &up](auto op, float* v) { op(v, up.data(), len); };
    const auto scaled = [len](auto op, float* v) { op(v, len, 33.941125f); };
    ExpectInPlaceOpMatches(k.gelu, &ReferenceGeluInPlace, unary, x, k.name, "gelu");
    ExpectInPlaceOpMatches(k.relu, &ReferenceReluInPlace, unary, x, k.name, "relu");
    ExpectInPlaceOpMatches(k.add, &ReferenceAddInPlace, times_up, x, k.name, "add");
    ExpectInPlaceOpMatches(k.silu_mul, &ReferenceSiluMulInPlace, times_up, x, k.name, "silu_mul");
    ExpectInPlaceOpMatches(k.gelu_tanh, &ReferenceGeluTanhInPlace, unary, x, k.name, "gelu_tanh");
    ExpectInPlaceOpMatches(k.gelu_tanh_mul, &ReferenceGeluTanhMulInPlace, times_up, x, k.name,
                           "gelu_tanh_mul");
    ExpectInPlaceOpMatches(k.scale, &ReferenceScaleInPlace, scaled, x, k.name, "scale");
    if (k.store_kv_rows != nullptr) {
      // The reference entry's f16 and q8 rows are those of the auto entry, bit for bit.
      const NnKernel& ref = *FindNnKernel("reference");
      std::vector<float> row = x;
      row[n + 5] = NAN;  // row 1 stores a NaN scale
      for (size_t row_i = 0; row_i < n; ++row_i) row[2 * n + row_i] = 0.0f;  // row 2: zeros
      const auto store = [&](const NnKernel& kernel, KvType type, void* dst, float* scales) {
        return kernel.store_kv_rows(type, row.data(), n, rows, n, dst, n, scales, 1);
      };
      std::vector<uint16_t> h(x.size()), hr(x.size());
      ASSERT_TRUE(store(k, KvType::kF16, h.data(), nullptr));
      ASSERT_TRUE(store(ref, KvType::kF16, hr.data(), nullptr));
      EXPECT_EQ(h, hr) << k.name;
      std::vector<int8_t> q(x.size()), qr(x.size());
      std::vector<float> s(rows), sr(rows);
      ASSERT_TRUE(store(k, KvType::kQ8, q.data(), s.data()));
      ASSERT_TRUE(store(ref, KvType::kQ8, qr.data(), sr.data()));
      EXPECT_EQ(q, qr) << k.name;
      EXPECT_EQ(s[0], sr[0]) << k.name;
      EXPECT_TRUE(std::isnan(s[1]) && std::isnan(sr[1])) << k.name;
      EXPECT_EQ(s[2], 0.0f) << k.name;
      EXPECT_EQ(sr[2], 0.0f) << k.name;
      EXPECT_FALSE(store(k, static_cast<KvType>(9), got.data(), nullptr));
    }
  }
}

}  // namespace
}  // namespace attnrt

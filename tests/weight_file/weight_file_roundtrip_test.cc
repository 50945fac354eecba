// Writer -> reader round trips, lookups, writer input checks, and agreement with the independent
// Python implementation of FORMAT.md (tests/weight_file/weight_files.py): the C++ reader must read
// its files and the C++ writer must produce them byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "attnrt/runtime/weight_file.h"
#include "common/bit_patterns.h"
#include "convert/weight_file_writer.h"
#include "weight_file/weight_file_test_util.h"

namespace attnrt {
namespace weight_file_test {
namespace {

using testing::Bits;

struct TensorSpec {
  std::string name;
  std::vector<size_t> shape;
  std::vector<float> values;  // what was written, before any rounding to the stored type
  WeightType type = WeightType::kF32;
};

size_t Elements(const std::vector<size_t>& shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

TensorSpec Sample(const std::string& name, float seed, std::vector<size_t> shape) {
  return {name, shape, SampleValues(seed, Elements(shape))};
}

// weight_files.py's typed_values: seed + 0.1234567 k, alternating sign and scale, in float64.
TensorSpec Typed(const std::string& name, double seed, std::vector<size_t> shape, WeightType type) {
  std::vector<float> values(Elements(shape));
  for (size_t k = 0; k < values.size(); ++k) {
    values[k] = static_cast<float>(seed + 0.1234567 * double(k) * (k % 2 == 0 ? 1.0 : -1.5));
  }
  return {name, shape, values, type};
}

// The largest |value| of the quantization block (`block` values along a row, the row's last
// block shorter) that holds value k of t.
double BlockAmax(const TensorSpec& t, size_t k, size_t block) {
  const size_t cols = t.shape.size() >= 2 ? Elements(t.shape) / t.shape[0] : t.values.size();
  const size_t first = k / cols * cols + (k % cols) / block * block;
  double amax = 0;
  for (size_t i = first; i < std::min(first + block, k / cols * cols + cols); ++i) {
    amax = std::max(amax, std::fabs(double(t.values[i])));
  }
  return amax;
}

// q4_K and q6_K (weight_q4_K.h, weight_q6_K.h), from the super-block of 256 that holds value k
// (rows are whole super-blocks). q4_K: dmin <= max(-lo) / 63 and d <= max t / 945, each up one
// f16 step (2^-10 relative, 2^-24 absolute); sub-block s's step is at most t_s / 15 + d with t_s
// <= hi_s - lo_s + dmin; values within half a step. q6_K: d <= max |x| / 4064 likewise, the
// step at most a_s / 32 + d, values within one step (the clamp at 31; half a step otherwise).
double SuperBlockAllowedError(const TensorSpec& t, size_t k) {
  const size_t first = k / 256 * 256;  // rows are whole super-blocks
  const auto up = [](double v) { return v * (1 + std::ldexp(1.0, -10)) + std::ldexp(1.0, -24); };
  const size_t sub = t.type == WeightType::kQ4_K ? 32 : 16;
  std::vector<double> lo(256 / sub, 0.0), hi(256 / sub, -1e300), amax(256 / sub, 0.0);
  for (size_t i = 0; i < 256; ++i) {
    const double v = t.values[first + i];
    lo[i / sub] = std::min(lo[i / sub], v);
    hi[i / sub] = std::max(hi[i / sub], v);
    amax[i / sub] = std::max(amax[i / sub], std::fabs(v));
  }
  const size_t s = (k - first) / sub;
  // The stored value is one f32 rounding away from its exact level.
  const double rounding = std::fabs(double(t.values[k])) * std::ldexp(1.0, -22);
  if (t.type == WeightType::kQ6_K) {
    const double d = up(*std::max_element(amax.begin(), amax.end()) / 4064);
    return (amax[s] / 32 + d) * (1 + 1e-6) + rounding;
  }
  double max_mn = 0;
  for (double l : lo) max_mn = std::max(max_mn, -l);
  const double dmin = up(max_mn / 63);
  double max_t = 0;
  for (size_t j = 0; j < lo.size(); ++j) max_t = std::max(max_t, hi[j] - lo[j] + dmin);
  const double d = up(max_t / 945);
  return ((hi[s] - lo[s] + dmin) / 15 + d) * 0.5 * (1 + 1e-5) + rounding;
}

// The largest |stored - written| the type allows for value k of t, from float64 math on the
// written values: half a unit in the last place for f16 (11 significant bits, subnormal step
// 2^-24) and bf16 (8 bits), half a quantization step plus the f16 rounding of the scale for q8.
double AllowedError(const TensorSpec& t, size_t k) {
  const double x = std::fabs(double(t.values[k]));
  switch (t.type) {
    case WeightType::kF32: return 0.0;
    case WeightType::kF16: return std::max(x * std::ldexp(1.0, -11), std::ldexp(1.0, -25));
    case WeightType::kBF16: return x * std::ldexp(1.0, -8);
    case WeightType::kQ8: {
      const double amax = BlockAmax(t, k, kQ8Block);
      return amax / 127.0 * 0.5 + amax * std::ldexp(1.0, -10);
    }
    case WeightType::kQ4_0: {
      // The step |d| is amax / 8 rounded to f16, or (tiny blocks, weight_q4_0.h) at most one
      // f16 subnormal step above amax / 8.5; values of the sign opposite to the block's largest
      // one clamp at 7 steps (under 1 + 2^-8 steps of error), the rest are within half a step.
      const double amax = BlockAmax(t, k, kQ4_0Block);
      const double step = std::max(amax / 8.0 * (1 + std::ldexp(1.0, -11)),
                                   amax / 8.5 + std::ldexp(1.0, -24));
      return step * (1 + std::ldexp(1.0, -8));
    }
    case WeightType::kQ4_K:
    case WeightType::kQ6_K:
      return SuperBlockAllowedError(t, k);
  }
  return 0.0;
}

// Checks that `file` holds `t` (exactly for f32, within the type's rounding otherwise).
void ExpectTensor(const WeightFile& file, const TensorSpec& t) {
  SCOPED_TRACE(t.name);
  WeightTensor got;
  const Status st = file.FindTensor(t.name.c_str(), &got);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(std::string(got.name), t.name);  // usable as a C string
  EXPECT_EQ(got.name_len, t.name.size());
  EXPECT_EQ(got.dtype, t.type);
  ASSERT_EQ(got.shape.rank, t.shape.size());
  for (size_t d = 0; d < t.shape.size(); ++d) EXPECT_EQ(got.shape.dims[d], t.shape[d]);
  if (t.type != WeightType::kF32) {
    EXPECT_EQ(got.data, nullptr);  // only f32 tensors are handed out as floats
    const size_t rows = TensorMatrixRows(got.shape), cols = TensorMatrixCols(got.shape);
    size_t bytes = 0;
    ASSERT_TRUE(MatrixBytes(t.type, rows, cols, &bytes));
    ASSERT_EQ(got.bytes, bytes);
    const void* scales = static_cast<const uint8_t*>(got.raw) + Q8ScalesOffset(rows, cols);
    std::vector<float> row(cols);
    for (size_t r = 0; r < rows; ++r) {
      WidenMatrixRow(t.type, got.raw, scales, cols, r, row.data());
      for (size_t c = 0; c < cols; ++c) {
        const size_t k = r * cols + c;
        ASSERT_LE(std::fabs(double(row[c]) - double(t.values[k])), AllowedError(t, k))
            << "value " << k << ": wrote " << t.values[k] << ", reads " << row[c];
      }
    }
    return;
  }
  ASSERT_EQ(got.bytes, t.values.size() * 4);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(got.data) % 4, 0u);
  for (size_t k = 0; k < t.values.size(); ++k) ASSERT_EQ(Bits(got.data[k]), Bits(t.values[k])) << k;
}

Bytes Serialize(const WeightFileWriter& w) {
  Bytes out;
  std::string error;
  EXPECT_TRUE(w.Serialize(&out, &error)) << error;
  return out;
}

WeightFile OpenOk(const Bytes& bytes) {
  WeightFile file;
  const Status st = WeightFile::Open(bytes.data(), bytes.size(), &file);
  EXPECT_TRUE(st.ok()) << st.message();
  return file;
}

TEST(WeightFileRoundTrip, TensorsOfEveryRankAndAllMetadataTypes) {
  const std::vector<TensorSpec> tensors = {
      Sample("scalar", 3.5f, {}),
      Sample("vector", -1.0f, {3}),
      Sample("matrix", 10.0f, {2, 3}),
      Sample("cube", -20.0f, {1, 2, 2}),
      Sample("rank4", 0.0f, {2, 1, 3, 2}),
      Sample("zero_rows", 0.0f, {0, 3}),
      {"specials",
       {4},
       {-0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(),
        std::nanf("")}},
  };
  WeightFileWriter w;
  std::string error;
  // Added out of order on purpose: the file is sorted whatever the insertion order.
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
    ASSERT_TRUE(w.AddTensorF32(it->name, it->shape, it->values.data(), &error)) << error;
  }
  w.SetString("arch", "self_attention");
  w.SetInt("d_model", 64);
  w.SetInt("min", std::numeric_limits<int64_t>::min());
  w.SetFloat("eps", 1e-5);
  w.SetFloat("neg_zero", -0.0);
  w.SetString("empty", "");
  const Bytes bytes = Serialize(w);
  const WeightFile file = OpenOk(bytes);

  ASSERT_EQ(file.tensor_count(), tensors.size());
  for (const TensorSpec& t : tensors) ExpectTensor(file, t);
  int64_t i = 0;
  double f = 0;
  const char* s = nullptr;
  size_t len = 0;
  ASSERT_TRUE(file.GetInt("d_model", &i).ok());
  EXPECT_EQ(i, 64);
  ASSERT_TRUE(file.GetInt("min", &i).ok());
  EXPECT_EQ(i, std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(file.GetFloat("eps", &f).ok());
  EXPECT_EQ(Bits(f), Bits(1e-5));
  ASSERT_TRUE(file.GetFloat("neg_zero", &f).ok());
  EXPECT_EQ(Bits(f), Bits(-0.0));
  ASSERT_TRUE(file.GetString("arch", &s, &len).ok());
  EXPECT_EQ(std::string(s, len), "self_attention");
  EXPECT_EQ(s[len], '\0');
  ASSERT_TRUE(file.GetString("empty", &s, &len).ok());
  EXPECT_EQ(len, 0u);
  EXPECT_EQ(s[0], '\0');

  EXPECT_EQ(file.format_version(), 1u);
  EXPECT_EQ(file.alignment(), 64u);
  EXPECT_EQ(file.file_size(), bytes.size());
  EXPECT_EQ(file.checksum(), Get32(bytes, kChecksum));
}

TEST(WeightFileRoundTrip, IterationIsSortedBytewise) {
  WeightFileWriter w;
  std::string error;
  const float one = 1.0f;
  // "\xc3\xa9" (e acute) sorts after "z" as unsigned bytes, before it as signed chars.
  for (const char* name : {"z", "\xc3\xa9", "B", "a", "ab"}) {
    ASSERT_TRUE(w.AddTensorF32(name, {1}, &one, &error)) << error;
  }
  w.SetInt("y", 1);
  w.SetFloat("x", 2.0);
  w.SetString("\xc3\xa9t\xc3\xa9", "summer");
  const Bytes bytes = Serialize(w);  // must outlive `file`, which points into it
  const WeightFile file = OpenOk(bytes);
  const char* expected[] = {"B", "a", "ab", "z", "\xc3\xa9"};
  ASSERT_EQ(file.tensor_count(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    WeightTensor t;
    ASSERT_TRUE(file.TensorAt(i, &t).ok());
    EXPECT_STREQ(t.name, expected[i]);
  }
  ASSERT_EQ(file.metadata_count(), 3u);
  WeightMetadata m;
  ASSERT_TRUE(file.MetadataAt(0, &m).ok());
  EXPECT_STREQ(m.key, "x");
  EXPECT_EQ(m.type, WeightMetadataType::kFloat);
  EXPECT_EQ(m.float_value, 2.0);
  ASSERT_TRUE(file.MetadataAt(1, &m).ok());
  EXPECT_STREQ(m.key, "y");
  EXPECT_EQ(m.type, WeightMetadataType::kInt);
  EXPECT_EQ(m.int_value, 1);
  ASSERT_TRUE(file.MetadataAt(2, &m).ok());
  EXPECT_STREQ(m.key, "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(m.type, WeightMetadataType::kString);
  EXPECT_EQ(std::string(m.string_value, m.string_len), "summer");
}

TEST(WeightFileRoundTrip, LookupFailuresNameTheKey) {
  const Bytes bytes = SmallFile();
  const WeightFile file = OpenOk(bytes);
  WeightTensor t;
  Status st = file.FindTensor("nope", &t);
  EXPECT_EQ(st.code(), StatusCode::kBadFile);
  EXPECT_STREQ(st.message(), "weight file: missing tensor 'nope'");
  int64_t i;
  double f;
  const char* s;
  size_t len;
  st = file.GetInt("d_model", &i);
  EXPECT_EQ(st.code(), StatusCode::kBadFile);
  EXPECT_STREQ(st.message(), "weight file: missing metadata key 'd_model'");
  st = file.GetInt("arch", &i);
  EXPECT_EQ(st.code(), StatusCode::kBadFile);
  EXPECT_STREQ(st.message(), "weight file: metadata 'arch' is not an integer");
  EXPECT_STREQ(file.GetFloat("n_heads", &f).message(),
               "weight file: metadata 'n_heads' is not a float");
  EXPECT_STREQ(file.GetString("eps", &s, &len).message(),
               "weight file: metadata 'eps' is not a string");
  EXPECT_EQ(file.TensorAt(2, &t).code(), StatusCode::kInvalidArgument);
  WeightMetadata m;
  EXPECT_EQ(file.MetadataAt(3, &m).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(file.FindTensor(nullptr, &t).code(), StatusCode::kInvalidArgument);
  // A prefix or an extension of a stored name is not that name.
  EXPECT_FALSE(file.FindTensor("", &t).ok());
  EXPECT_FALSE(file.FindTensor("aa", &t).ok());
  EXPECT_FALSE(file.GetString("arc", &s, &len).ok());
}

TEST(WeightFileRoundTrip, EmptyWriterGivesAValidEmptyFile) {
  const Bytes bytes = Serialize(WeightFileWriter());
  EXPECT_EQ(bytes.size(), 128u);
  const WeightFile file = OpenOk(bytes);
  EXPECT_EQ(file.tensor_count(), 0u);
  EXPECT_EQ(file.metadata_count(), 0u);
  WeightTensor t;
  EXPECT_STREQ(file.FindTensor("x", &t).message(), "weight file: missing tensor 'x'");
}

TEST(WeightFileRoundTrip, DataHonoursTheChosenAlignment) {
  for (size_t alignment : {64u, 128u, 4096u, 65536u}) {
    WeightFileWriter w;
    std::string error;
    ASSERT_TRUE(w.SetAlignment(alignment, &error)) << error;
    const std::vector<float> v = SampleValues(0.0f, 7);
    ASSERT_TRUE(w.AddTensorF32("p", {7}, v.data(), &error));
    ASSERT_TRUE(w.AddTensorF32("q", {1, 7}, v.data(), &error));
    const Bytes bytes = Serialize(w);
    const WeightFile file = OpenOk(bytes);
    EXPECT_EQ(file.alignment(), alignment);
    for (size_t i = 0; i < 2; ++i) {
      WeightTensor t;
      ASSERT_TRUE(file.TensorAt(i, &t).ok());
      const size_t offset = reinterpret_cast<const uint8_t*>(t.data) - bytes.data();
      EXPECT_EQ(offset % alignment, 0u) << alignment;
    }
  }
}

TEST(WeightFileWriter, SameContentSameBytesWhateverTheOrder) {
  const std::vector<float> v = SampleValues(2.0f, 4);
  std::string error;
  WeightFileWriter w1, w2;
  ASSERT_TRUE(w1.AddTensorF32("x", {4}, v.data(), &error));
  ASSERT_TRUE(w1.AddTensorF32("y", {2, 2}, v.data(), &error));
  w1.SetInt("n", 1);
  w1.SetString("arch", "a");
  ASSERT_TRUE(w2.AddTensorF32("y", {2, 2}, v.data(), &error));
  ASSERT_TRUE(w2.AddTensorF32("x", {4}, v.data(), &error));
  w2.SetString("arch", "a");
  w2.SetFloat("n", 5.0);
  w2.SetInt("n", 1);  // replaces the float
  EXPECT_EQ(Serialize(w1), Serialize(w2));
}

TEST(WeightFileWriter, RefusesBadInputs) {
  WeightFileWriter w;
  std::string error;
  const float v[4] = {1, 2, 3, 4};
  ASSERT_TRUE(w.AddTensorF32("a", {4}, v, &error));
  EXPECT_FALSE(w.AddTensorF32("a", {4}, v, &error));
  EXPECT_NE(error.find("duplicate tensor name 'a'"), std::string::npos) << error;
  EXPECT_FALSE(w.AddTensorF32("", {4}, v, &error));
  EXPECT_FALSE(w.AddTensorF32(std::string("n\0ul", 4), {4}, v, &error));
  EXPECT_FALSE(w.AddTensorF32("r5", {1, 1, 1, 1, 4}, v, &error));
  EXPECT_NE(error.find("rank 5"), std::string::npos) << error;
  EXPECT_FALSE(w.AddTensorF32("null", {4}, nullptr, &error));
  EXPECT_TRUE(w.AddTensorF32("null_but_empty", {0}, nullptr, &error)) << error;
  // SIZE_MAX / 4 + 1 (2^62 or 2^30) elements: the count fits size_t, the bytes do not.
  const size_t huge = SIZE_MAX / 4 + 1;
  EXPECT_FALSE(w.AddTensorF32("huge", {huge, 4}, v, &error));
  EXPECT_NE(error.find("tensor 'huge': element count overflows"), std::string::npos) << error;
  EXPECT_FALSE(w.AddTensorF32("huge_bytes", {huge}, v, &error));
  EXPECT_NE(error.find("tensor 'huge_bytes': element count overflows"), std::string::npos)
      << error;
  for (size_t bad : {0u, 32u, 96u, 131072u}) {
    EXPECT_FALSE(w.SetAlignment(bad, &error)) << bad;
  }
  Bytes out;
  EXPECT_TRUE(w.Serialize(&out, &error)) << error;

  WeightFileWriter empty_key;
  empty_key.SetInt("", 1);
  EXPECT_FALSE(empty_key.Serialize(&out, &error));
  EXPECT_NE(error.find("metadata key"), std::string::npos) << error;
  WeightFileWriter nul_value;
  nul_value.SetString("k", std::string("a\0b", 3));
  EXPECT_FALSE(nul_value.Serialize(&out, &error));
  EXPECT_NE(error.find("NUL"), std::string::npos) << error;
}

// An empty tensor may have any dim size_t holds; it goes through the file's u64 fields unchanged.
TEST(WeightFileWriter, RefusesValuesTheStoredTypeCannotHold) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const struct {
    WeightType type;
    std::vector<float> values;
    const char* message;
  } cases[] = {
      {WeightType::kF16, {1.0f, 70000.0f, 2.0f, 3.0f},
       "tensor 'w' as f16: value 70000.000000 at row 0, column 1 is beyond f16's range (65504)"},
      {WeightType::kF16, {1.0f, 2.0f, 3.0f, -65520.0f},
       "tensor 'w' as f16: value -65520.000000 at row 1, column 1 is beyond f16's range"},
      {WeightType::kQ8, {1.0f, 2.0f, nan, 3.0f},
       "tensor 'w' as q8: value nan at row 1, column 0 is not finite, which q8 cannot store"},
      {WeightType::kQ8, {1.0f, 2.0f, 3.0f, 1e7f},
       "tensor 'w' as q8: block 0 of row 1 has values too large for an f16 q8 scale"},
      {WeightType::kQ4_0, {1.0f, 2.0f, 3.0f, -std::numeric_limits<float>::infinity()},
       "tensor 'w' as q4_0: value -inf at row 1, column 1 is not finite, which q4_0 cannot store"},
      {WeightType::kQ4_0, {nan, 2.0f, 3.0f, 4.0f},
       "tensor 'w' as q4_0: value nan at row 0, column 0 is not finite, which q4_0 cannot store"},
      // |m| / 8 past 65504 overflows the f16 scale: 6e5 does, 5e5 (the other row) does not.
      {WeightType::kQ4_0, {5e5f, 2.0f, 3.0f, -6e5f},
       "tensor 'w' as q4_0: block 0 of row 1 (columns 0..1) has values too large for an f16 "
       "q4_0 scale (max |x| must be below 524032"},
  };
  for (const auto& c : cases) {
    WeightFileWriter w;
    std::string error;
    EXPECT_FALSE(w.AddTensor("w", {2, 2}, c.values.data(), c.type, &error));
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
  // 65519 still rounds to 65504 (below the halfway point to 2^16), and f16 keeps infinities
  // and NaN it is given: only finite values it would turn into infinity are refused.
  WeightFileWriter w;
  std::string error;
  const std::vector<float> ok = {65519.0f, std::numeric_limits<float>::infinity(), nan, 0.0f};
  EXPECT_TRUE(w.AddTensor("w", {4}, ok.data(), WeightType::kF16, &error)) << error;
}

// q4_K and q6_K through the writer and the reader: values within the quantizers' bounds, a
// conv-shaped tensor (rows of 2 x 128 values), an all-zero tensor, tiny and large magnitudes.
TEST(WeightFileRoundTrip, SuperBlockTypes) {
  std::vector<TensorSpec> tensors;
  for (WeightType type : {WeightType::kQ4_K, WeightType::kQ6_K}) {
    const std::string name = WeightTypeName(type);
    tensors.push_back(Typed(name + "_matrix", -1.0, {3, 512}, type));
    tensors.push_back(Typed(name + "_conv", 2.0, {2, 2, 8, 16}, type));
    tensors.push_back({name + "_zeros", {2, 256}, std::vector<float>(512, 0.0f), type});
    TensorSpec tiny = Typed(name + "_tiny", 0.5, {1, 256}, type);
    for (float& v : tiny.values) v *= 1e-6f;
    tensors.push_back(tiny);
    // Up to 5e5 (q4_K: its dmin holds mins down to -65504 * 63, about -4.1e6) or 5e6.
    TensorSpec large = Typed(name + "_large", 3.0, {1, 256}, type);
    for (float& v : large.values) v *= type == WeightType::kQ4_K ? 1e4f : 1e5f;
    tensors.push_back(large);
  }
  WeightFileWriter w;
  std::string error;
  for (const TensorSpec& t : tensors) {
    ASSERT_TRUE(w.AddTensor(t.name, t.shape, t.values.data(), t.type, &error)) << error;
  }
  const Bytes bytes = Serialize(w);  // the reader points into it
  const WeightFile file = OpenOk(bytes);
  for (const TensorSpec& t : tensors) ExpectTensor(file, t);
}

TEST(WeightFileWriter, RefusesWhatSuperBlockTypesCannotHold) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values(512, 1.0f);
  for (WeightType type : {WeightType::kQ4_K, WeightType::kQ6_K}) {
    const std::string name = WeightTypeName(type);
    WeightFileWriter w;
    std::string error;
    EXPECT_FALSE(w.AddTensor("w", {4, 128}, values.data(), type, &error));
    EXPECT_NE(error.find("tensor 'w' as " + name + ": rows of 128 values are not whole " + name +
                         " blocks of 256 values"),
              std::string::npos)
        << error;
    std::vector<float> bad = values;
    bad[300] = -inf;
    EXPECT_FALSE(w.AddTensor("w", {2, 256}, bad.data(), type, &error));
    EXPECT_NE(error.find("value -inf at row 1, column 44 is not finite, which " + name +
                         " cannot store"),
              std::string::npos)
        << error;
    bad[300] = 3e8f;  // past both types' f16 d (about 6.1e7 for q4_K, 2.66e8 for q6_K)
    EXPECT_FALSE(w.AddTensor("w", {2, 256}, bad.data(), type, &error));
    EXPECT_NE(error.find("block 0 of row 1 (columns 0..255) has values too large for " + name +
                         "'s f16 d"),
              std::string::npos)
        << error;
  }
  // q4_K's mins: -5e6 needs dmin = 5e6 / 63, past f16's 65504.
  std::vector<float> low(256, 1.0f);
  low[7] = -5e6f;
  WeightFileWriter w;
  std::string error;
  EXPECT_FALSE(w.AddTensor("w", {256}, low.data(), WeightType::kQ4_K, &error));
  EXPECT_NE(error.find("block 0 of row 0 (columns 0..255) has values too large for q4_K's f16 dmin"),
            std::string::npos)
      << error;
}

TEST(WeightFileWriter, EmptyTensorWithTheLargestDimRoundTrips) {
  WeightFileWriter w;
  std::string error;
  ASSERT_TRUE(w.AddTensorF32("e", {0, SIZE_MAX}, nullptr, &error)) << error;
  const Bytes bytes = Serialize(w);
  const WeightFile file = OpenOk(bytes);
  WeightTensor t;
  ASSERT_TRUE(file.FindTensor("e", &t).ok());
  ASSERT_EQ(t.shape.rank, 2u);
  EXPECT_EQ(t.shape.dims[0], 0u);
  EXPECT_EQ(t.shape.dims[1], SIZE_MAX);
  EXPECT_EQ(t.bytes, 0u);
}

// A file larger than one buffer can hold must be refused by size, not end in std::length_error:
// 32768 one-float tensors at a 64 KiB alignment make a file of just over 2 GiB, which a 32-bit
// size_t's vector cannot hold (max_size 2^31 - 1).
TEST(WeightFileWriter, RefusesAFileLargerThanThisPlatformCanHold) {
  if (sizeof(size_t) == 8) GTEST_SKIP() << "a 64-bit build would allocate all 2 GiB; 32-bit limit";
  WeightFileWriter w;
  std::string error;
  ASSERT_TRUE(w.SetAlignment(65536, &error)) << error;
  const float one = 1;
  constexpr size_t kTensors = 32768;
  for (size_t i = 0; i < kTensors; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "t%05zu", i);
    ASSERT_TRUE(w.AddTensorF32(name, {1}, &one, &error)) << error;
  }
  // Header, tensor table, 7-byte names; the data section starts 64 KiB aligned, then one
  // 64 KiB slot per tensor, the last holding 4 bytes.
  const uint64_t strings_end = 128 + kTensors * 64 + kTensors * 7;
  const uint64_t data = (strings_end + 65535) / 65536 * 65536;
  const uint64_t file_bytes = data + (kTensors - 1) * uint64_t{65536} + 4;
  Bytes out;
  EXPECT_FALSE(w.Serialize(&out, &error));
  EXPECT_EQ(error, "weight file writer: the file would be " + std::to_string(file_bytes) +
                       " bytes, more than one buffer can hold on this platform (2147483647 bytes "
                       "with its 32-bit size_t)");
  EXPECT_TRUE(out.empty());
}

// --- Agreement with tests/weight_file/weight_files.py ---------------------------------------

struct SampleFile {
  const char* file;
  size_t alignment;
  std::vector<TensorSpec> tensors;
  std::vector<std::pair<std::string, int64_t>> ints;
  std::vector<std::pair<std::string, double>> floats;
  std::vector<std::pair<std::string, std::string>> strings;
};

// weight_files.py's EDGE_VALUES: f16 and bf16 ties, the f16 maximum and subnormals, -0.
std::vector<float> EdgeValues() {
  return {1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11), 65504.0f, -65504.0f,
          std::ldexp(1.0f, -24), 3 * std::ldexp(1.0f, -25), 1e-8f, -0.0f,
          1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8), 0.1f, -7.5f};
}

// weight_files.py's q4_0_tiny: three rows of blocks whose f16 scale is subnormal (1e-4, 1e-6)
// or would flush to zero (3e-8), products in float64 rounded to float32.
std::vector<float> Q4_0TinyValues() {
  std::vector<float> values;
  for (double scale : {1e-4, 1e-6, 3e-8}) {
    for (double v : {1.0, -0.3, 0.7, 0.05, -1.1}) values.push_back(static_cast<float>(v * scale));
  }
  return values;
}

// weight_files.py's `[v * scale for v in typed_values(...)]`: float64 products of the float32
// values, rounded to float32 when written.
TensorSpec Scaled(TensorSpec t, double scale) {
  for (float& v : t.values) v = static_cast<float>(double(v) * scale);
  return t;
}

// The same files as SAMPLES in weight_files.py.
std::vector<SampleFile> PythonSamples() {
  return {
      {"empty.wf", 64, {}, {}, {}, {}},
      {"metadata_only.wf",
       64,
       {},
       {{"n_heads", 4}},
       {{"eps", 1e-5}},
       {{"arch", "mha"}, {"note", ""}}},
      {"example.wf",
       64,
       {{"w", {2}, {1.0f, -2.0f}}},
       {{"n_heads", 2}},
       {{"eps", 1e-5}},
       {{"arch", "demo"}}},
      {"ranks.wf",
       64,
       {Sample("scalar", 3.5f, {}), Sample("vector", -1.0f, {3}), Sample("matrix", 10.0f, {2, 3}),
        Sample("cube", -20.0f, {1, 2, 2}), Sample("rank4", 0.0f, {1, 1, 2, 2}),
        Sample("zero_rows", 0.0f, {0, 3})},
       {{"min_int", std::numeric_limits<int64_t>::min()}},
       {{"neg_zero", -0.0}, {"big", std::numeric_limits<double>::infinity()}},
       {{"greeting", "h\xc3\xa9llo"}}},
      {"align128.wf",
       128,
       {Sample("a.weight", 1.0f, {5}), Sample("b.weight", 2.0f, {3, 1})},
       {},
       {},
       {{"arch", "align_test"}}},
      {"self_attention.wf",
       64,
       {Sample("w_q", -8.0f, {8, 8}), Sample("w_k", -4.0f, {8, 8}), Sample("w_v", 0.0f, {8, 8}),
        Sample("w_o", 4.0f, {8, 8})},
       {{"d_model", 8}, {"n_heads", 1}, {"causal", 0}},
       {},
       {{"arch", "self_attention"}}},
      {"typed.wf",
       64,
       {Typed("bias", 0.5, {4}, WeightType::kF32),
        Typed("bf16_vector", -3.0, {7}, WeightType::kBF16),
        {"edges_bf16", {12}, EdgeValues(), WeightType::kBF16},
        {"edges_f16", {12}, EdgeValues(), WeightType::kF16},
        Typed("f16_matrix", 2.0, {3, 5}, WeightType::kF16),
        Typed("q8_conv", 1.0, {2, 1, 3, 3}, WeightType::kQ8),
        Typed("q8_matrix", -1.0, {3, 40}, WeightType::kQ8),
        {"q8_zeros", {2, 3}, std::vector<float>(6, 0.0f), WeightType::kQ8}},
       {},
       {},
       {{"arch", "typed_test"}}},
      {"typed_q4_0.wf",
       64,
       {Typed("q4_0_conv", 1.0, {2, 1, 3, 3}, WeightType::kQ4_0),
        Typed("q4_0_matrix", -1.0, {3, 40}, WeightType::kQ4_0),
        {"q4_0_signs", {2, 4}, {1.0f, -0.5f, 0.25f, 0.875f, -1.0f, 0.5f, -0.25f, 0.875f},
         WeightType::kQ4_0},
        {"q4_0_tiny", {3, 5}, Q4_0TinyValues(), WeightType::kQ4_0},
        {"q4_0_zeros", {2, 3}, std::vector<float>(6, 0.0f), WeightType::kQ4_0}},
       {},
       {},
       {{"arch", "typed_test"}}},
      {"typed_kquant.wf",
       64,
       {Typed("q4_K_conv", 2.0, {2, 2, 8, 16}, WeightType::kQ4_K),
        Typed("q4_K_matrix", -1.0, {3, 512}, WeightType::kQ4_K),
        Scaled(Typed("q4_K_tiny", 0.5, {1, 256}, WeightType::kQ4_K), 1e-6),
        {"q4_K_zeros", {2, 256}, std::vector<float>(512, 0.0f), WeightType::kQ4_K},
        Scaled(Typed("q6_K_large", 3.0, {1, 256}, WeightType::kQ6_K), 1e5),
        Typed("q6_K_matrix", -1.0, {3, 512}, WeightType::kQ6_K),
        Scaled(Typed("q6_K_tiny", 0.5, {1, 256}, WeightType::kQ6_K), 1e-6),
        {"q6_K_zeros", {2, 256}, std::vector<float>(512, 0.0f), WeightType::kQ6_K}},
       {},
       {},
       {{"arch", "typed_test"}}},
  };
}

Bytes ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(WeightFilePythonAgreement, ReaderSeesWhatPythonWrote) {
  for (const SampleFile& sample : PythonSamples()) {
    SCOPED_TRACE(sample.file);
    const Bytes bytes =
        ReadFileBytes(std::string(ATTNRT_WEIGHT_FILE_CORPUS_DIR) + "/" + sample.file);
    const WeightFile file = OpenOk(bytes);
    EXPECT_EQ(file.alignment(), sample.alignment);
    EXPECT_EQ(file.tensor_count(), sample.tensors.size());
    for (const TensorSpec& t : sample.tensors) ExpectTensor(file, t);
    EXPECT_EQ(file.metadata_count(),
              sample.ints.size() + sample.floats.size() + sample.strings.size());
    for (const auto& [key, value] : sample.ints) {
      int64_t got = 0;
      ASSERT_TRUE(file.GetInt(key.c_str(), &got).ok()) << key;
      EXPECT_EQ(got, value) << key;
    }
    for (const auto& [key, value] : sample.floats) {
      double got = 0;
      ASSERT_TRUE(file.GetFloat(key.c_str(), &got).ok()) << key;
      EXPECT_EQ(Bits(got), Bits(value)) << key;
    }
    for (const auto& [key, value] : sample.strings) {
      const char* got = nullptr;
      size_t len = 0;
      ASSERT_TRUE(file.GetString(key.c_str(), &got, &len).ok()) << key;
      EXPECT_EQ(std::string(got, len), value) << key;
    }
  }
}

TEST(WeightFilePythonAgreement, WriterProducesPythonsBytes) {
  for (const SampleFile& sample : PythonSamples()) {
    SCOPED_TRACE(sample.file);
    WeightFileWriter w;
    std::string error;
    ASSERT_TRUE(w.SetAlignment(sample.alignment, &error)) << error;
    for (const TensorSpec& t : sample.tensors) {
      ASSERT_TRUE(w.AddTensor(t.name, t.shape, t.values.data(), t.type, &error)) << error;
    }
    for (const auto& [key, value] : sample.ints) w.SetInt(key, value);
    for (const auto& [key, value] : sample.floats) w.SetFloat(key, value);
    for (const auto& [key, value] : sample.strings) w.SetString(key, value);
    const Bytes expected =
        ReadFileBytes(std::string(ATTNRT_WEIGHT_FILE_CORPUS_DIR) + "/" + sample.file);
    const Bytes got = Serialize(w);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "byte " << i;
  }
}

}  // namespace
}  // namespace weight_file_test
}  // namespace attnrt

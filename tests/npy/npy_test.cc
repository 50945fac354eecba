// Tests for tools/npy: round trips, every rejection path, and golden files from real numpy.
#include "npy/npy.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/bit_patterns.h"

namespace attnrt {
namespace npy {
namespace {

using Bytes = std::vector<uint8_t>;

using attnrt::testing::AppendLE;
using attnrt::testing::Bits;
using attnrt::testing::FloatFromBits;

// A .npy image with the given header dict text (padded with spaces + '\n' to 64 bytes, as
// numpy does) followed by `payload`.
Bytes MakeNpy(const std::string& dict, const Bytes& payload, int major = 1) {
  const size_t len_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  while ((6 + 2 + len_bytes + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  AppendLE(&out, header.size(), static_cast<int>(len_bytes));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes F32Payload(const std::vector<float>& values) {
  Bytes out;
  for (float v : values) AppendLE(&out, Bits(v), 4);
  return out;
}

std::string Dict(const std::string& descr, const std::string& shape,
                 const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

Array ParseOk(const Bytes& bytes) {
  Array a;
  std::string error;
  EXPECT_TRUE(Parse(bytes.data(), bytes.size(), "ok.npy", &a, &error)) << error;
  return a;
}

// Parses bytes that must be rejected and returns the message, which must name the file.
std::string ParseError(const Bytes& bytes) {
  Array a;
  std::string error;
  EXPECT_FALSE(Parse(bytes.data(), bytes.size(), "bad.npy", &a, &error));
  EXPECT_EQ(error.rfind("bad.npy: ", 0), 0u) << error;
  return error;
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// Unique per process: ctest runs each test case as its own process, in parallel.
std::string TempPath(const std::string& leaf) {
  return ::testing::TempDir() + "attnrt_npy_" + std::to_string(getpid()) + "_" + leaf;
}

// ---------------------------------------------------------------------------------------------
// Round trips.

std::vector<float> Pattern(size_t n) {
  std::vector<float> v(n);
  uint32_t x = 0x9e3779b9u;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] = FloatFromBits(x);  // every bit pattern, NaN payloads included, must survive
  }
  return v;
}

class RoundTrip : public ::testing::TestWithParam<std::vector<size_t>> {};

TEST_P(RoundTrip, EncodeThenParse) {
  const std::vector<size_t>& shape = GetParam();
  size_t n = 1;
  for (size_t d : shape) n *= d;
  const std::vector<float> data = Pattern(n);
  Bytes bytes;
  std::string error;
  ASSERT_TRUE(EncodeFloat32(shape, data.data(), &bytes, &error)) << error;
  const size_t data_offset = bytes.size() - 4 * n;
  EXPECT_EQ(data_offset % 64, 0u);
  EXPECT_EQ(bytes[6], 1);  // version 1.0
  const Array a = ParseOk(bytes);
  EXPECT_EQ(a.dtype, DType::kFloat32);
  EXPECT_EQ(a.shape, shape);
  EXPECT_EQ(a.size(), n);
  ASSERT_EQ(a.f32.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(a.f32[i]), Bits(data[i])) << "element " << i;
}

TEST_P(RoundTrip, WriteFileThenReadFile) {
  const std::vector<size_t>& shape = GetParam();
  size_t n = 1;
  for (size_t d : shape) n *= d;
  const std::vector<float> data = Pattern(n);
  const std::string path = TempPath("roundtrip.npy");
  std::string error;
  ASSERT_TRUE(WriteFloat32(path, shape, n ? data.data() : nullptr, &error)) << error;
  Array a;
  ASSERT_TRUE(ReadFile(path, &a, &error)) << error;
  EXPECT_EQ(a.shape, shape);
  ASSERT_EQ(a.f32.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(a.f32[i]), Bits(data[i])) << "element " << i;
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, RoundTrip,
    ::testing::Values(std::vector<size_t>{}, std::vector<size_t>{1}, std::vector<size_t>{5},
                      std::vector<size_t>{0}, std::vector<size_t>{2, 3},
                      std::vector<size_t>{3, 0}, std::vector<size_t>{2, 3, 4},
                      std::vector<size_t>{4, 0, 2}, std::vector<size_t>{1, 2, 3, 4},
                      std::vector<size_t>{7, 5, 3, 2}, std::vector<size_t>{2, 1, 0, 3},
                      std::vector<size_t>{1000}, std::vector<size_t>{17, 1, 1, 1, 1, 1, 1}),
    [](const ::testing::TestParamInfo<std::vector<size_t>>& info) {
      std::string name = "r" + std::to_string(info.param.size());
      for (size_t d : info.param) name += "_" + std::to_string(d);
      return name;
    });

TEST(NpyRead, BoolArray) {
  const Array a = ParseOk(MakeNpy(Dict("|b1", "(2, 2)"), {1, 0, 0, 1}));
  EXPECT_EQ(a.dtype, DType::kBool);
  EXPECT_EQ(a.b8, (Bytes{1, 0, 0, 1}));
  EXPECT_TRUE(a.f32.empty());
}

TEST(NpyRead, HeaderSpellingsNumpyAccepts) {
  const Bytes payload = F32Payload({1.5f, -2.0f});
  const std::string dicts[] = {
      "{'shape': (2,), 'descr': '<f4', 'fortran_order': False}",
      "{\"fortran_order\": False, \"shape\": (2,), \"descr\": \"<f4\"}",
      "  {  'descr'  :  '<f4' ,\n 'fortran_order':False,'shape':( 2 , ) ,  }  ",
      "{'descr': '=f4', 'fortran_order': False, 'shape': (2L,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2,), }",
  };
  for (const std::string& dict : dicts) {
    const Array a = ParseOk(MakeNpy(dict, payload));
    EXPECT_EQ(a.size(), 2u) << dict;
    EXPECT_EQ(a.f32, (std::vector<float>{1.5f, -2.0f})) << dict;
  }
  // Version 2.0 and 3.0 preambles, and a header that is not padded at all.
  for (int major : {2, 3}) EXPECT_EQ(ParseOk(MakeNpy(Dict("<f4", "(2,)"), payload, major)).size(), 2u);
  Bytes unpadded = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const std::string dict = Dict("<f4", "(2,)");
  AppendLE(&unpadded, dict.size(), 2);
  unpadded.insert(unpadded.end(), dict.begin(), dict.end());
  unpadded.insert(unpadded.end(), payload.begin(), payload.end());
  EXPECT_EQ(ParseOk(unpadded).size(), 2u);
}

// size_t is 64 bits on x86-64 and AArch64, 32 bits on ARMv7: huge values are derived from it.
const std::string kSizeBits = std::to_string(sizeof(size_t) * 8);
const std::string kFitSizeT = "does not fit this platform's " + kSizeBits + "-bit size_t";

TEST(NpyRead, ZeroDimWithHugeOtherDimIsEmpty) {
  // The largest dim whose float32 byte size still fits size_t: 2^62 - 1 or 2^30 - 1.
  const size_t huge = SIZE_MAX / 4;
  const Array a = ParseOk(MakeNpy(Dict("<f4", "(0, " + std::to_string(huge) + ")"), {}));
  EXPECT_EQ(a.shape, (std::vector<size_t>{0, huge}));
  EXPECT_EQ(a.size(), 0u);
  EXPECT_TRUE(a.f32.empty());
}

TEST(NpyRead, DimensionsUpToTheSizeTLimit) {
  // 10^12 fits a 64-bit size_t only; a 32-bit platform must say so, not wrap or truncate.
  const Bytes tera = MakeNpy(Dict("<f4", "(0, 1000000000000)"), {});
  if (sizeof(size_t) == 8) {
    const Array a = ParseOk(tera);
    EXPECT_EQ(a.shape, (std::vector<size_t>{0, static_cast<size_t>(1000000000000ull)}));
    EXPECT_EQ(a.size(), 0u);
  } else {
    EXPECT_HAS(ParseError(tera), "dimension 1000000000000 in 'shape' " + kFitSizeT);
  }
  // SIZE_MAX + 1 fits no size_t of this platform; the message points at the number.
  const std::string one_past = sizeof(size_t) == 8 ? "18446744073709551616" : "4294967296";
  const std::string dict = Dict("|b1", "(0, " + one_past + ")");
  EXPECT_HAS(ParseError(MakeNpy(dict, {})), "dimension " + one_past + " in 'shape' " + kFitSizeT +
                                                " at header offset " +
                                                std::to_string(dict.find(one_past)));
  EXPECT_TRUE(ParseOk(MakeNpy(Dict("|b1", "(0, " + std::to_string(SIZE_MAX) + ")"), {}))
                  .b8.empty());
}

// ---------------------------------------------------------------------------------------------
// Rejections: each names the file and says what is wrong.

TEST(NpyReject, EmptyAndShortFiles) {
  EXPECT_HAS(ParseError({}), "empty file");
  EXPECT_HAS(ParseError({0x93, 'N', 'U', 'M', 'P', 'Y', 1}), "too short");
  EXPECT_HAS(ParseError({0x93, 'N', 'U'}), "too short");
  EXPECT_HAS(ParseError({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x10}), "truncated preamble");
  EXPECT_HAS(ParseError({0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0x10, 0, 0}), "truncated preamble");
}

TEST(NpyReject, BadMagic) {
  Bytes b = MakeNpy(Dict("<f4", "()"), F32Payload({1}));
  b[1] = 'X';
  EXPECT_HAS(ParseError(b), "bad magic");
  EXPECT_HAS(ParseError({'P', 'K', 3, 4}), "bad magic");
}

TEST(NpyReject, UnsupportedVersion) {
  for (auto [major, minor] : {std::pair<int, int>{4, 0}, {0, 0}, {1, 1}, {255, 0}}) {
    Bytes b = MakeNpy(Dict("<f4", "()"), F32Payload({1}));
    b[6] = static_cast<uint8_t>(major);
    b[7] = static_cast<uint8_t>(minor);
    const std::string e = ParseError(b);
    EXPECT_HAS(e, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
    EXPECT_HAS(e, "1.0, 2.0, 3.0");
  }
}

TEST(NpyReject, HeaderLengthPastEndOfFile) {
  Bytes b = MakeNpy(Dict("<f4", "()"), {});
  b[8] = 0xff;
  b[9] = 0xff;
  EXPECT_HAS(ParseError(b), "header length 65535 runs past the end of the file");
  Bytes v2 = MakeNpy(Dict("<f4", "()"), {}, 2);
  v2[8] = v2[9] = v2[10] = v2[11] = 0xff;
  EXPECT_HAS(ParseError(v2), "header length 4294967295 runs past the end of the file");
  // One byte past the end is the boundary: the header may end exactly at the end of the file.
  Bytes edge = MakeNpy(Dict("<f4", "(0,)"), {});
  const size_t header_len = edge.size() - 10;
  edge[8] = static_cast<uint8_t>((header_len + 1) & 0xff);
  edge[9] = static_cast<uint8_t>((header_len + 1) >> 8);
  EXPECT_HAS(ParseError(edge), "header length " + std::to_string(header_len + 1) + " runs past");
  edge[8] = static_cast<uint8_t>(header_len & 0xff);
  edge[9] = static_cast<uint8_t>(header_len >> 8);
  EXPECT_EQ(ParseOk(edge).size(), 0u);
}

TEST(NpyReject, HeaderNotADictLiteral) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "expected '{'"},
      {"[1, 2]", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()", "expected ',' or '}'"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': ()}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", "after the closing '}'"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': ()}", "expected ':'"},
      {"{descr: '<f4', 'fortran_order': False, 'shape': ()}", "expected a quoted key"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': ()}", "expected ',' or '}'"},
      {"{'descr': '<f4\\n', 'fortran_order': False, 'shape': ()}", "escape sequences"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (),, }", "expected a quoted key"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", "must be True or False"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': ()}", "must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", "must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (5)}", "written (N,), not (N)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", "negative dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}", "leading zero"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "expected a dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
       "dimension 99999999999999999999999 in 'shape' does not fit this platform's"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}", "structured dtypes"},
      {"{'descr': 4, 'fortran_order': False, 'shape': ()}", "expected a quoted dtype"},
  };
  for (const auto& [dict, message] : cases) {
    const std::string e = ParseError(MakeNpy(dict, {}));
    EXPECT_HAS(e, "bad .npy header");
    EXPECT_HAS(e, message);
  }
}

TEST(NpyReject, NonAsciiHeader) {
  EXPECT_HAS(ParseError(MakeNpy("{'descr': '<f4\xc3\xa9', 'fortran_order': False, 'shape': ()}",
                                {})),
             "non-ASCII byte \\xc3");
}

TEST(NpyReject, MissingDuplicateAndUnknownKeys) {
  EXPECT_HAS(ParseError(MakeNpy("{'fortran_order': False, 'shape': ()}", {})),
             "missing key 'descr'");
  EXPECT_HAS(ParseError(MakeNpy("{'descr': '<f4', 'shape': ()}", {})),
             "missing key 'fortran_order'");
  EXPECT_HAS(ParseError(MakeNpy("{'descr': '<f4', 'fortran_order': False}", {})),
             "missing key 'shape'");
  EXPECT_HAS(ParseError(MakeNpy("{}", {})), "missing key 'descr'");
  EXPECT_HAS(
      ParseError(MakeNpy("{'descr': '<f4', 'shape': (), 'fortran_order': False, 'shape': ()}", {})),
      "duplicate key 'shape'");
  EXPECT_HAS(ParseError(MakeNpy(
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}", {})),
             "unexpected key 'extra'");
}

TEST(NpyReject, FortranOrder) {
  EXPECT_HAS(ParseError(MakeNpy(Dict("<f4", "(2, 2)", "True"), F32Payload({1, 2, 3, 4}))),
             "Fortran-order arrays are not supported; save with np.ascontiguousarray");
}

TEST(NpyReject, UnsupportedDTypes) {
  const std::string big = ParseError(MakeNpy(Dict(">f4", "(1,)"), F32Payload({1})));
  EXPECT_HAS(big, "big-endian");
  EXPECT_HAS(big, "'<f4' (float32), '|b1' (bool)");
  const std::string f64 = ParseError(MakeNpy(Dict("<f8", "(1,)"), Bytes(8, 0)));
  EXPECT_HAS(f64, "unsupported dtype '<f8'");
  EXPECT_HAS(f64, "'<f4' (float32), '|b1' (bool)");
  EXPECT_HAS(f64, ".astype(np.float32)");
  EXPECT_HAS(ParseError(MakeNpy(Dict("<i8", "(1,)"), Bytes(8, 0))), ".astype(np.float32)");
  EXPECT_HAS(ParseError(MakeNpy(Dict("<f2", "(1,)"), Bytes(2, 0))), "unsupported dtype '<f2'");
  const std::string obj = ParseError(MakeNpy(Dict("|O", "(1,)"), Bytes(8, 0)));
  EXPECT_HAS(obj, "unsupported dtype '|O'");
  EXPECT_HAS(obj, "accepted: '<f4' (float32), '|b1' (bool)");
  EXPECT_HAS(ParseError(MakeNpy(Dict("", "(1,)"), {})), "unsupported dtype ''");
}

TEST(NpyReject, ShapeOverflow) {
  // Each dim fits size_t, their product does not: 2^32 * 2^32 on 64-bit, 2^16 * 2^16 on 32-bit.
  // Likewise SIZE_MAX / 4 + 1 floats (2^62 or 2^30) need one byte more than size_t holds.
  const std::string half = std::to_string(size_t{1} << (sizeof(size_t) * 4));
  const std::string floats = std::to_string(SIZE_MAX / 4 + 1);
  EXPECT_HAS(ParseError(MakeNpy(Dict("<f4", "(" + half + ", " + half + ")"), {})),
             "shape (" + half + ", " + half + ") is too large: its float32 byte size overflows "
             "size_t");
  EXPECT_HAS(ParseError(MakeNpy(Dict("<f4", "(" + floats + ",)"), {})),
             "shape (" + floats + ",) is too large: its float32 byte size overflows size_t");
  EXPECT_TRUE(ParseOk(MakeNpy(Dict("|b1", "(" + floats + ", 0)"), {})).b8.empty())
      << "one byte per bool: no overflow";
  EXPECT_HAS(ParseError(MakeNpy(Dict("|b1", "(" + half + ", 0, " + half + ")"), {})),
             "overflows size_t");  // numpy rejects this too, zero dim or not
}

TEST(NpyReject, RankAbove64) {
  std::string shape = "(";
  for (int i = 0; i < 65; ++i) shape += "1, ";
  EXPECT_HAS(ParseError(MakeNpy(Dict("<f4", shape + ")"), F32Payload({1}))),
             "more than 64 dimensions");
}

TEST(NpyReject, TruncatedAndTrailingData) {
  const Bytes short_data = MakeNpy(Dict("<f4", "(2, 3)"), F32Payload({1, 2, 3, 4, 5}));
  EXPECT_HAS(ParseError(short_data), "truncated data: need 24 bytes, file has 20");
  Bytes long_data = MakeNpy(Dict("<f4", "(2, 3)"), F32Payload({1, 2, 3, 4, 5, 6}));
  long_data.push_back(0);
  EXPECT_HAS(ParseError(long_data), "trailing data: need 24 bytes, file has 25, 1 extra");
  EXPECT_HAS(ParseError(MakeNpy(Dict("|b1", "(3,)"), {1, 0})), "truncated data: need 3 bytes");
}

TEST(NpyReject, BoolBytesOtherThanZeroOrOne) {
  EXPECT_HAS(ParseError(MakeNpy(Dict("|b1", "(4,)"), {0, 1, 2, 1})),
             "invalid bool byte 2 at element 2");
  EXPECT_HAS(ParseError(MakeNpy(Dict("|b1", "(1,)"), {0xff})), "invalid bool byte 255");
}

TEST(NpyReject, MissingFileAndDirectory) {
  Array a;
  std::string error;
  const std::string missing = TempPath("does_not_exist.npy");
  EXPECT_FALSE(ReadFile(missing, &a, &error));
  EXPECT_HAS(error, missing + ": cannot open");
  EXPECT_FALSE(ReadFile(::testing::TempDir(), &a, &error));
  EXPECT_HAS(error, ::testing::TempDir() + ": cannot");
}

TEST(NpyReject, FileLargerThanA32BitBuildCanRead) {
  if (sizeof(size_t) == 8) GTEST_SKIP() << "a 64-bit build reads all 5 GiB; this limit is 32-bit";
  // Sparse: 5 GiB long, no disk blocks. ReadFile must refuse it before reading a byte.
  const std::string path = TempPath("huge.npy");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_EQ(::truncate64(path.c_str(), int64_t{5} << 30), 0) << std::strerror(errno);
  Array a;
  std::string error;
  const bool read = ReadFile(path, &a, &error);
  std::remove(path.c_str());
  EXPECT_FALSE(read);
  EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
  // A 32-bit off_t refuses it in open or fstat (EOVERFLOW); a 64-bit one leaves it to the
  // size_t check.
  const bool offsets = error.find("(the file is 2 GiB or larger, more than this build's 32-bit "
                                  "file offsets can address)") != std::string::npos;
  const bool size_t_limit =
      error.find("the file is 5368709120 bytes, more than the 2147483647 bytes one buffer can "
                 "hold with this platform's 32-bit size_t") != std::string::npos;
  EXPECT_TRUE(offsets || size_t_limit) << error;
}

TEST(NpyWrite, Errors) {
  std::string error;
  EXPECT_FALSE(WriteFloat32("/nonexistent-dir/x.npy", {2}, nullptr, &error));
  EXPECT_HAS(error, "/nonexistent-dir/x.npy: ");
  const float one = 1;
  EXPECT_FALSE(WriteFloat32("/nonexistent-dir/x.npy", {1}, &one, &error));
  EXPECT_HAS(error, "/nonexistent-dir/x.npy: cannot write into its directory");
  EXPECT_FALSE(WriteFloat32(::testing::TempDir(), {1}, &one, &error));  // a directory
  EXPECT_HAS(error, ": is a directory, not a file");
  Bytes bytes;
  EXPECT_FALSE(EncodeFloat32({2, 2}, nullptr, &bytes, &error));
  EXPECT_HAS(error, "null data");
  EXPECT_FALSE(EncodeFloat32(std::vector<size_t>(65, 1), &one, &bytes, &error));
  EXPECT_HAS(error, "rank 65");
  EXPECT_FALSE(EncodeFloat32({SIZE_MAX / 4 + 1}, &one, &bytes, &error));  // 2^62 or 2^30 floats
  EXPECT_HAS(error, "cannot write shape (" + std::to_string(SIZE_MAX / 4 + 1) +
                        ",): its byte size overflows size_t");
  const size_t half = size_t{1} << (sizeof(size_t) * 4);
  EXPECT_FALSE(EncodeFloat32({half, 0, half}, nullptr, &bytes, &error));
  EXPECT_HAS(error, "overflows size_t");
  EXPECT_TRUE(EncodeFloat32({0, 3}, nullptr, &bytes, &error)) << error;
}

TEST(NpyMisc, ShapeStringAndSize) {
  EXPECT_EQ(ShapeString({}), "()");
  EXPECT_EQ(ShapeString({5}), "(5,)");
  EXPECT_EQ(ShapeString({2, 3, 4}), "(2, 3, 4)");
  Array a;
  EXPECT_EQ(a.size(), 1u);
  a.shape = {2, 0, 3};
  EXPECT_EQ(a.size(), 0u);
  a.shape = {2, 3, 4};
  EXPECT_EQ(a.size(), 24u);
}

// ---------------------------------------------------------------------------------------------
// Golden files written by numpy (tests/npy/make_golden.py); the values are recomputed here.

#ifdef ATTNRT_NPY_GOLDEN_DIR

std::string Golden(const std::string& leaf) { return std::string(ATTNRT_NPY_GOLDEN_DIR) + "/" + leaf; }

Array ReadGolden(const std::string& leaf) {
  Array a;
  std::string error;
  EXPECT_TRUE(ReadFile(Golden(leaf), &a, &error)) << error;
  return a;
}

std::string GoldenError(const std::string& leaf) {
  Array a;
  std::string error;
  EXPECT_FALSE(ReadFile(Golden(leaf), &a, &error)) << leaf << " was accepted";
  EXPECT_HAS(error, Golden(leaf) + ": ");
  return error;
}

std::vector<float> ExpectedF32_2d() {  // i / 7 - 1 in float32, as make_golden.py computes it
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i) / 7.0f - 1.0f;
  return v;
}

Bytes FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(NpyGolden, Float32TwoD) {
  for (const char* leaf : {"f32_2d.npy", "f32_2d_v2.npy", "f32_2d_v3.npy"}) {
    const Array a = ReadGolden(leaf);
    EXPECT_EQ(a.dtype, DType::kFloat32) << leaf;
    EXPECT_EQ(a.shape, (std::vector<size_t>{3, 4})) << leaf;
    ASSERT_EQ(a.f32.size(), 12u) << leaf;
    const std::vector<float> want = ExpectedF32_2d();
    for (size_t i = 0; i < 12; ++i) EXPECT_EQ(Bits(a.f32[i]), Bits(want[i])) << leaf << " " << i;
  }
}

TEST(NpyGolden, Bool3D) {
  const Array a = ReadGolden("bool_3d.npy");
  EXPECT_EQ(a.dtype, DType::kBool);
  EXPECT_EQ(a.shape, (std::vector<size_t>{2, 3, 4}));
  ASSERT_EQ(a.b8.size(), 24u);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(a.b8[i], i % 3 == 0 ? 1 : 0) << i;
}

TEST(NpyGolden, Float32OneDSpecialValues) {
  const Array a = ReadGolden("f32_1d.npy");
  EXPECT_EQ(a.shape, (std::vector<size_t>{5}));
  ASSERT_EQ(a.f32.size(), 5u);
  // -0.0, inf, -inf, the smallest denormal, numpy's default NaN
  const uint32_t want[] = {0x80000000u, 0x7f800000u, 0xff800000u, 0x00000001u, 0x7fc00000u};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(Bits(a.f32[i]), want[i]) << i;
}

TEST(NpyGolden, ZeroDAndEmpty) {
  const Array scalar = ReadGolden("f32_0d.npy");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.f32, std::vector<float>{3.5f});
  const Array empty = ReadGolden("f32_empty.npy");
  EXPECT_EQ(empty.shape, (std::vector<size_t>{0, 3}));
  EXPECT_TRUE(empty.f32.empty());
}

TEST(NpyGolden, Rejections) {
  EXPECT_HAS(GoldenError("f64_reject.npy"), ".astype(np.float32)");
  EXPECT_HAS(GoldenError("fortran_reject.npy"), "Fortran-order arrays are not supported");
  EXPECT_HAS(GoldenError("bigendian_reject.npy"), "big-endian");
}

// The writer lays files out byte for byte as np.save does (numpy 1.24 as shipped by Debian 12).
TEST(NpyGolden, WriterMatchesNpSaveBytes) {
  const std::vector<float> f32_2d = ExpectedF32_2d();
  const std::vector<float> f32_1d = {FloatFromBits(0x80000000u), FloatFromBits(0x7f800000u),
                                     FloatFromBits(0xff800000u), FloatFromBits(0x00000001u),
                                     FloatFromBits(0x7fc00000u)};
  const float scalar = 3.5f;
  const struct {
    const char* leaf;
    std::vector<size_t> shape;
    const float* data;
  } cases[] = {{"f32_2d.npy", {3, 4}, f32_2d.data()},
               {"f32_1d.npy", {5}, f32_1d.data()},
               {"f32_0d.npy", {}, &scalar},
               {"f32_empty.npy", {0, 3}, nullptr}};
  for (const auto& c : cases) {
    Bytes ours;
    std::string error;
    ASSERT_TRUE(EncodeFloat32(c.shape, c.data, &ours, &error)) << error;
    EXPECT_EQ(ours, FileBytes(Golden(c.leaf))) << c.leaf;
  }
}

TEST(NpyGolden, NumpyLoadsWriterOutput) {
  const std::string path = TempPath("for_numpy.npy");
  const std::vector<float> data = ExpectedF32_2d();
  std::string error;
  ASSERT_TRUE(WriteFloat32(path, {3, 4}, data.data(), &error)) << error;
  const std::string command = std::string(ATTNRT_NPY_PYTHON) + " " + ATTNRT_NPY_GOLDEN_SCRIPT +
                              " --check-f32-2d " + path;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::remove(path.c_str());
}

#else
TEST(NpyGolden, Disabled) { GTEST_SKIP() << "configured with ATTNRT_NPY_GOLDEN=OFF"; }
#endif  // ATTNRT_NPY_GOLDEN_DIR

}  // namespace
}  // namespace npy
}  // namespace attnrt

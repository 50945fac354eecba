// Tests for tools/host/safetensors: hand-built files (good and every malformed case), exhaustive
// F16/BF16 decoding against float64 math, and files written by tools/python/export_torch.py compared
// with the torch state_dict saved by numpy (fixtures from make_fixtures.py).
#include "host/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/bit_patterns.h"
#include "npy/npy.h"

namespace attnrt {
namespace {

using Bytes = std::vector<uint8_t>;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

using testing::AppendLE;
using testing::Bits;

// A safetensors image: the 8-byte length, `header` (padded with spaces to a multiple of 8 when
// `pad`), then `data`.
Bytes MakeFile(std::string header, const Bytes& data, bool pad = true) {
  while (pad && header.size() % 8 != 0) header += ' ';
  Bytes out;
  AppendLE(&out, header.size(), 8);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes F32Data(const std::vector<float>& values) {
  Bytes out;
  for (float v : values) AppendLE(&out, Bits(v), 4);
  return out;
}

std::string Entry(const std::string& dtype, const std::string& shape, size_t begin, size_t end) {
  return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(end) + "]}";
}

SafetensorsFile ReadOk(const Bytes& bytes) {
  SafetensorsFile file;
  std::string error;
  EXPECT_TRUE(ReadSafetensors(bytes.data(), bytes.size(), "ok.safetensors", &file, &error))
      << error;
  return file;
}

// Reads bytes that must be rejected; the message must name the file.
std::string ReadError(const Bytes& bytes) {
  SafetensorsFile file;
  std::string error;
  EXPECT_FALSE(ReadSafetensors(bytes.data(), bytes.size(), "bad.safetensors", &file, &error));
  EXPECT_EQ(error.rfind("bad.safetensors", 0), 0u) << error;
  return error;
}

std::string HeaderError(const std::string& header, const Bytes& data = {}) {
  return ReadError(MakeFile(header, data));
}

// --- Well-formed files --------------------------------------------------------------------------

TEST(SafetensorsRead, SingleF32TensorAndMetadata) {
  const std::vector<float> v = {1.0f, -2.5f, 0.0f, 3.25f, -0.0f, 1e-30f};
  const Bytes bytes = MakeFile("{\"__metadata__\":{\"format\":\"pt\",\"k\":\"v\"},\"w\":" +
                                   Entry("F32", "[2,3]", 0, 24) + "}",
                               F32Data(v));
  const SafetensorsFile file = ReadOk(bytes);
  ASSERT_EQ(file.tensors.size(), 1u);
  const SafetensorsTensor& t = file.tensors[0];
  EXPECT_EQ(t.name, "w");
  EXPECT_EQ(t.shape, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(t.source_dtype, "F32");
  ASSERT_EQ(t.values.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(Bits(t.values[i]), Bits(v[i])) << i;
  EXPECT_EQ(file.metadata.size(), 2u);
  EXPECT_EQ(file.metadata.at("format"), "pt");
  EXPECT_EQ(file.metadata.at("k"), "v");
  EXPECT_EQ(file.Find("w"), &file.tensors[0]);
  EXPECT_EQ(file.Find("x"), nullptr);
}

TEST(SafetensorsRead, TensorsComeInDataOrderWithScalarAndEmpty) {
  // "a" sits after "b" in the buffer; "e" has no elements; "s" is a scalar.
  const Bytes data = F32Data({10.0f, 20.0f, 30.0f, 7.0f});
  const Bytes bytes = MakeFile("{\"a\":" + Entry("F32", "[1]", 8, 12) + ",\"b\":" +
                                   Entry("F32", "[2]", 0, 8) + ",\"e\":" +
                                   Entry("F32", "[0,3]", 12, 12) + ",\"s\":" +
                                   Entry("F32", "[]", 12, 16) + "}",
                               data);
  const SafetensorsFile file = ReadOk(bytes);
  ASSERT_EQ(file.tensors.size(), 4u);
  EXPECT_EQ(file.tensors[0].name, "b");
  EXPECT_EQ(file.tensors[0].values, (std::vector<float>{10.0f, 20.0f}));
  EXPECT_EQ(file.tensors[1].name, "a");
  EXPECT_EQ(file.tensors[1].values, (std::vector<float>{30.0f}));
  EXPECT_EQ(file.tensors[2].name, "e");
  EXPECT_EQ(file.tensors[2].shape, (std::vector<size_t>{0, 3}));
  EXPECT_TRUE(file.tensors[2].values.empty());
  EXPECT_EQ(file.tensors[3].name, "s");
  EXPECT_TRUE(file.tensors[3].shape.empty());
  EXPECT_EQ(file.tensors[3].values, (std::vector<float>{7.0f}));
  EXPECT_TRUE(file.metadata.empty());
}

TEST(SafetensorsRead, UnpaddedHeaderGivesUnalignedDataThatStillDecodes) {
  std::string header = "{\"w\":" + Entry("F32", "[2]", 0, 8) + "}";
  if (header.size() % 8 == 0) header += ' ';  // force the data off 8-byte alignment
  const SafetensorsFile file = ReadOk(MakeFile(header, F32Data({1.5f, -4.0f}), /*pad=*/false));
  ASSERT_EQ(file.tensors.size(), 1u);
  EXPECT_EQ(file.tensors[0].values, (std::vector<float>{1.5f, -4.0f}));
}

TEST(SafetensorsRead, EmptyHeaderObjectIsAnEmptyFile) {
  const SafetensorsFile file = ReadOk(MakeFile("{}", {}));
  EXPECT_TRUE(file.tensors.empty());
}

TEST(SafetensorsRead, F16AndBF16TensorsDecode) {
  Bytes data;
  AppendLE(&data, 0x3c00, 2);  // F16 1.0
  AppendLE(&data, 0xc500, 2);  // F16 -5.0
  AppendLE(&data, 0x0001, 2);  // F16 smallest subnormal 2^-24
  AppendLE(&data, 0x3fc0, 2);  // BF16 1.5
  AppendLE(&data, 0xff80, 2);  // BF16 -inf
  const Bytes bytes = MakeFile("{\"h\":" + Entry("F16", "[3]", 0, 6) + ",\"b\":" +
                                   Entry("BF16", "[2]", 6, 10) + "}",
                               data);
  const SafetensorsFile file = ReadOk(bytes);
  ASSERT_EQ(file.tensors.size(), 2u);
  EXPECT_EQ(file.tensors[0].source_dtype, "F16");
  EXPECT_EQ(file.tensors[0].values, (std::vector<float>{1.0f, -5.0f, std::ldexp(1.0f, -24)}));
  EXPECT_EQ(file.tensors[1].source_dtype, "BF16");
  EXPECT_EQ(file.tensors[1].values[0], 1.5f);
  EXPECT_TRUE(std::isinf(file.tensors[1].values[1]) && file.tensors[1].values[1] < 0);
}

// --- Half-precision conversions against float64 math ------------------------------------------

// binary16 value computed in double from its fields (NaN for NaN).
double HalfValue(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double magnitude;
  if (exponent == 0x1f) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  }
  return (h & 0x8000) ? -magnitude : magnitude;
}

// bfloat16 value computed in double from its fields (NaN for NaN).
double BFloat16Value(uint16_t b) {
  const int exponent = (b >> 7) & 0xff;
  const int mantissa = b & 0x7f;
  double magnitude;
  if (exponent == 0xff) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -133);
  } else {
    magnitude = std::ldexp(static_cast<double>(128 + mantissa), exponent - 134);
  }
  return (b & 0x8000) ? -magnitude : magnitude;
}

// Checks got == expected exactly (signed zeros and NaN sign included).
void ExpectSameValue(float got, double expected, uint32_t input) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(got)) << "input 0x" << std::hex << input;
  } else {
    EXPECT_EQ(static_cast<double>(got), expected) << "input 0x" << std::hex << input;
  }
  EXPECT_EQ(std::signbit(got), std::signbit(expected)) << "input 0x" << std::hex << input;
}

TEST(HalfToFloat, AllInputsMatchFloat64Math) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float got = HalfToFloat(static_cast<uint16_t>(h));
    ExpectSameValue(got, HalfValue(static_cast<uint16_t>(h)), h);
    if (std::isnan(got)) {  // the 10-bit payload survives in the top of the float mantissa
      EXPECT_EQ((Bits(got) >> 13) & 0x3ffu, h & 0x3ffu) << std::hex << h;
    }
  }
}

TEST(HalfToFloat, NamedValues) {
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0400), std::ldexp(1.0f, -14));               // smallest normal
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));            // largest subnormal
  EXPECT_EQ(Bits(HalfToFloat(0x8000)), 0x80000000u);                   // -0
  EXPECT_EQ(HalfToFloat(0x7c00), INFINITY);
}

TEST(BFloat16ToFloat, AllInputsMatchFloat64Math) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    ExpectSameValue(BFloat16ToFloat(static_cast<uint16_t>(b)),
                    BFloat16Value(static_cast<uint16_t>(b)), b);
  }
  EXPECT_EQ(BFloat16ToFloat(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
}

// --- Malformed files: every rejection names the file and the problem ----------------------------

TEST(SafetensorsReject, TooShortForLengthPrefix) {
  EXPECT_HAS(ReadError({}), "too short");
  EXPECT_HAS(ReadError({1, 0, 0, 0, 0, 0, 0}), "7 bytes, too short");
}

TEST(SafetensorsReject, HeaderLengthAbsurdOrPastEnd) {
  Bytes absurd;
  AppendLE(&absurd, uint64_t{1} << 63, 8);
  absurd.push_back('{');
  EXPECT_HAS(ReadError(absurd), "exceeds the 100000000-byte limit");
  Bytes past = MakeFile("{}", {});
  past[0] = 200;
  EXPECT_HAS(ReadError(past), "header length 200 runs past the end");
}

TEST(SafetensorsReject, HeaderMustBeAJsonObject) {
  EXPECT_HAS(ReadError(MakeFile("", {})), "does not start with '{'");
  EXPECT_HAS(HeaderError("[1, 2]"), "does not start with '{'");
  EXPECT_HAS(HeaderError(" {}"), "does not start with '{'");
  EXPECT_HAS(HeaderError("{\"a\":"), "invalid JSON");
  EXPECT_HAS(HeaderError("{} {}"), "invalid JSON");
  EXPECT_HAS(HeaderError("{\"\xff\":1}"), "invalid JSON");  // not UTF-8
}

TEST(SafetensorsReject, DuplicateNamesAndFields) {
  EXPECT_HAS(HeaderError("{\"w\":" + Entry("F32", "[1]", 0, 4) + ",\"w\":" +
                             Entry("F32", "[1]", 4, 8) + "}",
                         F32Data({1, 2})),
             "duplicate key \"w\"");
  EXPECT_HAS(HeaderError("{\"w\":{\"dtype\":\"F32\",\"dtype\":\"F16\",\"shape\":[1],"
                         "\"data_offsets\":[0,4]}}",
                         F32Data({1})),
             "duplicate key \"dtype\"");
}

TEST(SafetensorsReject, NestingDeeperThanTheFormat) {
  EXPECT_HAS(HeaderError("{\"w\":{\"dtype\":\"F32\",\"shape\":[[1]],\"data_offsets\":[0,4]}}",
                         F32Data({1})),
             "nesting deeper than 3");
  EXPECT_HAS(HeaderError("{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["),
             "nesting deeper than 3");
}

TEST(SafetensorsReject, BadMetadata) {
  EXPECT_HAS(HeaderError("{\"__metadata__\":[\"a\"]}"), "\"__metadata__\" must be an object");
  EXPECT_HAS(HeaderError("{\"__metadata__\":{\"seed\":7}}"),
             "value for key \"seed\" must be a string");
}

TEST(SafetensorsReject, BadEntryStructure) {
  EXPECT_HAS(HeaderError("{\"w\":[1]}"), "tensor \"w\": entry must be an object");
  EXPECT_HAS(HeaderError("{\"\":" + Entry("F32", "[1]", 0, 4) + "}", F32Data({1})),
             "empty tensor name");
  EXPECT_HAS(HeaderError("{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", F32Data({1})),
             "tensor \"w\": missing field \"dtype\"");
  EXPECT_HAS(HeaderError("{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", F32Data({1})),
             "tensor \"w\": missing field \"shape\"");
  EXPECT_HAS(HeaderError("{\"w\":{\"dtype\":\"F32\",\"shape\":[1]}}", F32Data({1})),
             "tensor \"w\": missing field \"data_offsets\"");
  EXPECT_HAS(HeaderError("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],"
                         "\"strides\":[1]}}",
                         F32Data({1})),
             "tensor \"w\": unknown field \"strides\"");
}

TEST(SafetensorsReject, UnsupportedDTypeNamesTensorAndDType) {
  const std::string error = HeaderError("{\"ids\":" + Entry("I64", "[1]", 0, 8) + "}",
                                        F32Data({0, 0}));
  EXPECT_HAS(error, "tensor \"ids\": dtype \"I64\" is not supported (F32, F16, BF16)");
  EXPECT_HAS(HeaderError("{\"d\":" + Entry("F64", "[1]", 0, 8) + "}", F32Data({0, 0})),
             "dtype \"F64\" is not supported");
  EXPECT_HAS(HeaderError("{\"d\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}",
                         F32Data({0})),
             "\"dtype\" must be a string");
}

TEST(SafetensorsReject, BadShapes) {
  EXPECT_HAS(HeaderError("{\"w\":" + Entry("F32", "3", 0, 12) + "}", F32Data({1, 2, 3})),
             "\"shape\" must be an array");
  EXPECT_HAS(HeaderError("{\"w\":" + Entry("F32", "[-3]", 0, 12) + "}", F32Data({1, 2, 3})),
             "\"shape\" entry -3 is not a non-negative integer");
  EXPECT_HAS(HeaderError("{\"w\":" + Entry("F32", "[3.0]", 0, 12) + "}", F32Data({1, 2, 3})),
             "is not a non-negative integer");
  // Each dim fits size_t, the product does not: 2^32 * 2^32 (64-bit) or 2^16 * 2^16 (32-bit).
  const std::string half = std::to_string(size_t{1} << (sizeof(size_t) * 4));
  EXPECT_HAS(HeaderError("{\"w\":" + Entry("F32", "[" + half + "," + half + "]", 0, 12) + "}",
                         F32Data({1, 2, 3})),
             "element count of shape [" + half + "," + half + "] overflows");
  // Beyond u64: JSON reads it as a float.
  EXPECT_HAS(HeaderError("{\"w\":" + Entry("F32", "[99999999999999999999]", 0, 12) + "}",
                         F32Data({1, 2, 3})),
             "is not a non-negative integer");
}

TEST(SafetensorsReject, DimsAndOffsetsBeyondThisPlatformsSizeT) {
  // 2^32 and UINT64_MAX are valid JSON integers; a 32-bit size_t holds neither, and must say so
  // (not call them negative or wrap them). On 64-bit they are ordinary, here empty, dims.
  const bool wide = sizeof(size_t) == 8;
  for (const std::string dim : {"4294967296", "18446744073709551615"}) {
    const Bytes bytes = MakeFile("{\"w\":" + Entry("F32", "[0," + dim + "]", 0, 0) + "}", {});
    if (wide) {
      const SafetensorsFile file = ReadOk(bytes);
      ASSERT_EQ(file.tensors.size(), 1u);
      EXPECT_EQ(std::to_string(file.tensors[0].shape.at(1)), dim);
      EXPECT_TRUE(file.tensors[0].values.empty());
    } else {
      EXPECT_HAS(ReadError(bytes), "tensor \"w\": \"shape\" entry " + dim +
                                       " does not fit this platform's 32-bit size_t");
    }
  }
  const Bytes data = F32Data({1, 2, 3});
  const std::string far = HeaderError(
      "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[4294967296,4294967308]}}", data);
  EXPECT_HAS(far, wide ? "data_offsets end 4294967308 is past the end of the 12-byte data buffer"
                       : "tensor \"w\": data_offsets begin 4294967296 does not fit this "
                         "platform's 32-bit size_t");
  const std::string end = HeaderError(
      "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,4294967296]}}", data);
  EXPECT_HAS(end, wide ? "data_offsets end 4294967296 is past the end of the 12-byte data buffer"
                       : "tensor \"w\": data_offsets end 4294967296 does not fit this "
                         "platform's 32-bit size_t");
}

TEST(SafetensorsReject, BadOffsets) {
  const Bytes data = F32Data({1, 2, 3});
  auto with_offsets = [&](const std::string& offsets) {
    return HeaderError(
        "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":" + offsets + "}}", data);
  };
  EXPECT_HAS(with_offsets("[0]"), "\"data_offsets\" must be [begin, end]");
  EXPECT_HAS(with_offsets("[0,4,8]"), "\"data_offsets\" must be [begin, end]");
  EXPECT_HAS(with_offsets("[-4,8]"), "\"data_offsets\" must be [begin, end]");
  EXPECT_HAS(with_offsets("{\"a\":1}"), "\"data_offsets\" must be [begin, end]");
  EXPECT_HAS(with_offsets("[8,4]"), "data_offsets begin 8 is after end 4");
  EXPECT_HAS(with_offsets("[0,16]"), "data_offsets end 16 is past the end of the 12-byte");
  EXPECT_HAS(with_offsets("[0,8]"), "data_offsets span 8 bytes but shape and dtype F32 need 12");
  // SIZE_MAX / 4 + 1 floats (2^62 or 2^30) need one byte more than size_t holds.
  const std::string floats = std::to_string(SIZE_MAX / 4 + 1);
  EXPECT_HAS(HeaderError("{\"w\":" + Entry("F32", "[" + floats + "]", 0, 12) + "}", data),
             "byte size of " + floats + " F32 elements overflows");
}

TEST(SafetensorsReject, OverlapHoleAndTrailingBytes) {
  const Bytes data = F32Data({1, 2, 3, 4});
  const std::string overlap = HeaderError(
      "{\"a\":" + Entry("F32", "[2]", 0, 8) + ",\"b\":" + Entry("F32", "[2]", 4, 12) + ",\"c\":" +
          Entry("F32", "[1]", 12, 16) + "}",
      data);
  EXPECT_HAS(overlap, "tensor \"b\": bytes [4, 12) overlap tensor \"a\" bytes [0, 8)");
  EXPECT_HAS(HeaderError("{\"a\":" + Entry("F32", "[1]", 0, 4) + ",\"b\":" +
                             Entry("F32", "[2]", 8, 16) + "}",
                         data),
             "tensor \"b\": starts at byte 8 but the bytes before end at 4: holes");
  EXPECT_HAS(HeaderError("{\"a\":" + Entry("F32", "[1]", 4, 8) + "}", F32Data({1, 2})),
             "starts at byte 4 but the bytes before end at 0");
  EXPECT_HAS(HeaderError("{\"a\":" + Entry("F32", "[3]", 0, 12) + "}", data),
             "data buffer has 16 bytes but the tensors cover only 12");
}

TEST(SafetensorsReject, EveryTruncationOfAGoodFileFails) {
  const Bytes good = MakeFile("{\"a\":" + Entry("F32", "[2]", 0, 8) + ",\"b\":" +
                                  Entry("F16", "[2]", 8, 12) + "}",
                              Bytes(12, 0x3c));
  ReadOk(good);
  for (size_t n = 0; n < good.size(); ++n) {
    SafetensorsFile file;
    std::string error;
    EXPECT_FALSE(ReadSafetensors(good.data(), n, "cut", &file, &error)) << n;
    EXPECT_FALSE(error.empty());
  }
}

TEST(SafetensorsReadFile, MissingFileNamesThePath) {
  SafetensorsFile file;
  std::string error;
  EXPECT_FALSE(ReadSafetensorsFile("/nonexistent/dir/m.safetensors", &file, &error));
  EXPECT_HAS(error, "/nonexistent/dir/m.safetensors: cannot open");
}

// --- Files written by tools/python/export_torch.py --------------------------------------------------

#ifdef ATTNRT_HOST_IO_FIXTURES
constexpr const char* kFixtures = ATTNRT_HOST_IO_FIXTURES;
#else
constexpr const char* kFixtures = nullptr;
#endif

#define SKIP_WITHOUT_FIXTURES()                                                     \
  if (kFixtures == nullptr) GTEST_SKIP() << "built without torch: no export fixtures"

struct ExpectedTensor {
  std::string name;
  std::vector<size_t> shape;
};

// PyTorch's state_dict names and shapes for make_fixtures.py's configs (d_model 16, 2 heads,
// feed-forward 32; self-attention d_k 8, d_v 12; single-head attention_dim 8), in order.
const std::vector<std::pair<std::string, std::vector<ExpectedTensor>>>& ExpectedLayouts() {
  static const std::vector<std::pair<std::string, std::vector<ExpectedTensor>>> layouts = {
      {"mha",
       {{"in_proj_weight", {48, 16}}, {"in_proj_bias", {48}}, {"out_proj.weight", {16, 16}},
        {"out_proj.bias", {16}}}},
      {"mha_nobias", {{"in_proj_weight", {48, 16}}, {"out_proj.weight", {16, 16}}}},
      {"encoder_layer",
       {{"self_attn.in_proj_weight", {48, 16}},
        {"self_attn.in_proj_bias", {48}},
        {"self_attn.out_proj.weight", {16, 16}},
        {"self_attn.out_proj.bias", {16}},
        {"linear1.weight", {32, 16}},
        {"linear1.bias", {32}},
        {"linear2.weight", {16, 32}},
        {"linear2.bias", {16}},
        {"norm1.weight", {16}},
        {"norm1.bias", {16}},
        {"norm2.weight", {16}},
        {"norm2.bias", {16}}}},
      {"encoder_layer_nobias",
       {{"self_attn.in_proj_weight", {48, 16}},
        {"self_attn.out_proj.weight", {16, 16}},
        {"linear1.weight", {32, 16}},
        {"linear2.weight", {16, 32}},
        {"norm1.weight", {16}},
        {"norm2.weight", {16}}}},
      {"self_attention",
       {{"W_q.weight", {8, 16}}, {"W_k.weight", {8, 16}}, {"W_v.weight", {12, 16}},
        {"W_o.weight", {16, 12}}}},
      {"single_head",
       {{"key_proj.weight", {8, 16}}, {"query_proj.weight", {8, 16}},
        {"value_proj.weight", {8, 16}}}},
  };
  return layouts;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

void ExpectSameAsNpy(const SafetensorsTensor& tensor, const std::string& npy_path) {
  npy::Array expected;
  std::string error;
  ASSERT_TRUE(npy::ReadFile(npy_path, &expected, &error)) << error;
  EXPECT_EQ(tensor.shape, expected.shape) << tensor.name;
  ASSERT_EQ(tensor.values.size(), expected.f32.size()) << tensor.name;
  for (size_t i = 0; i < tensor.values.size(); ++i) {
    ASSERT_EQ(Bits(tensor.values[i]), Bits(expected.f32[i])) << tensor.name << " [" << i << "]";
  }
}

TEST(SafetensorsExport, StateDictsOfEveryArchitectureRoundTrip) {
  SKIP_WITHOUT_FIXTURES();
  for (const auto& [dir_name, expected] : ExpectedLayouts()) {
    SCOPED_TRACE(dir_name);
    const std::string dir = std::string(kFixtures) + "/" + dir_name;
    SafetensorsFile file;
    std::string error;
    ASSERT_TRUE(ReadSafetensorsFile(dir + "/model.safetensors", &file, &error)) << error;
    // Names and order as torch's state_dict (names.txt) and as spelled out above.
    const std::vector<std::string> state_dict_names = ReadLines(dir + "/names.txt");
    ASSERT_EQ(file.tensors.size(), expected.size());
    ASSERT_EQ(state_dict_names.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(file.tensors[i].name, expected[i].name);
      EXPECT_EQ(file.tensors[i].name, state_dict_names[i]);
      EXPECT_EQ(file.tensors[i].shape, expected[i].shape) << expected[i].name;
      EXPECT_EQ(file.tensors[i].source_dtype, "F32");
      ExpectSameAsNpy(file.tensors[i], dir + "/npy/" + expected[i].name + ".npy");
    }
    EXPECT_EQ(file.metadata.at("format"), "pt");
    EXPECT_EQ(file.metadata.at("seed"), "7");
  }
}

TEST(SafetensorsExport, ArchitectureMetadataMatchesConfig) {
  SKIP_WITHOUT_FIXTURES();
  const std::pair<const char*, const char*> cases[] = {
      {"mha", "mha"}, {"encoder_layer", "encoder-layer"}, {"self_attention", "self-attention"},
      {"single_head", "single-head"}};
  for (const auto& [dir_name, arch] : cases) {
    SafetensorsFile file;
    std::string error;
    ASSERT_TRUE(ReadSafetensorsFile(std::string(kFixtures) + "/" + dir_name + "/model.safetensors",
                                    &file, &error))
        << error;
    EXPECT_EQ(file.metadata.at("architecture"), arch);
  }
}

TEST(SafetensorsExport, HalfPrecisionFromNumpyAndTorch) {
  SKIP_WITHOUT_FIXTURES();
  const std::string dir = std::string(kFixtures) + "/halfs";
  SafetensorsFile file;
  std::string error;
  ASSERT_TRUE(ReadSafetensorsFile(dir + "/halfs.safetensors", &file, &error)) << error;
  const SafetensorsTensor* f16 = file.Find("f16");
  const SafetensorsTensor* bf16 = file.Find("bf16");
  ASSERT_NE(f16, nullptr);
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(f16->source_dtype, "F16");
  EXPECT_EQ(bf16->source_dtype, "BF16");
  ExpectSameAsNpy(*f16, dir + "/f16.npy");
  ExpectSameAsNpy(*bf16, dir + "/bf16.npy");
}

}  // namespace
}  // namespace attnrt

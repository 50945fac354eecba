// GGUF import (issue 33): the reader (convert/gguf_file.h) on images built here byte by byte,
// every damaged form it must refuse by name (and every truncation of a valid file), ggml block
// decoding (convert/gguf_dequant.h) against hand-computed blocks, and the import
// (convert/gguf_import.h) of a tiny llama: keys, fused tensors, Q8_0 kept value for value, Q4_0
// kept block for block,
// and its refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "attnrt/kernels/float16.h"
#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/weight_q8.h"
#include "attnrt/runtime/weight_file.h"
#include "convert/gguf_dequant.h"
#include "convert/gguf_file.h"
#include "convert/gguf_import.h"
#include "convert/weight_file_writer.h"

namespace attnrt {
namespace {

// Writes GGUF images: values in the file's little-endian layout.
class Image {
 public:
  Image& U8(uint8_t v) { bytes.push_back(v); return *this; }
  Image& U32(uint32_t v) { return Le(v, 4); }
  Image& U64(uint64_t v) { return Le(v, 8); }
  Image& F32(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return U32(b);
  }
  Image& Str(const std::string& s) {
    U64(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  Image& Pad(size_t align) {
    while (bytes.size() % align != 0) bytes.push_back(0);
    return *this;
  }
  std::vector<uint8_t> bytes;

 private:
  Image& Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
};

struct Kv {
  std::string key;
  std::function<void(Image&)> write;  // type and value
};
struct Tensor {
  std::string name;
  std::vector<uint64_t> ne;
  uint32_t type;
  std::vector<uint8_t> data;
  int64_t offset = -1;  // the info's data offset; -1: where the data really is
};

std::vector<uint8_t> F32Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A whole file: header, keys, tensor infos, data at 32-byte alignment.
std::vector<uint8_t> Gguf(const std::vector<Kv>& kvs, const std::vector<Tensor>& tensors,
                          uint32_t version = 3) {
  Image im;
  im.bytes = {'G', 'G', 'U', 'F'};
  im.U32(version).U64(tensors.size()).U64(kvs.size());
  for (const Kv& kv : kvs) {
    im.Str(kv.key);
    kv.write(im);
  }
  uint64_t offset = 0;
  for (const Tensor& t : tensors) {
    im.Str(t.name).U32(static_cast<uint32_t>(t.ne.size()));
    for (uint64_t n : t.ne) im.U64(n);
    im.U32(t.type).U64(t.offset >= 0 ? static_cast<uint64_t>(t.offset) : offset);
    offset += (t.data.size() + 31) / 32 * 32;
  }
  im.Pad(32);
  for (const Tensor& t : tensors) {
    im.bytes.insert(im.bytes.end(), t.data.begin(), t.data.end());
    im.Pad(32);
  }
  return im.bytes;
}

Kv StrKv(const std::string& key, const std::string& v) {
  return {key, [v](Image& im) { im.U32(8).Str(v); }};
}
Kv U32Kv(const std::string& key, uint32_t v) {
  return {key, [v](Image& im) { im.U32(4).U32(v); }};
}
Kv F32Kv(const std::string& key, float v) {
  return {key, [v](Image& im) { im.U32(6).F32(v); }};
}

bool Read(const std::vector<uint8_t>& image, GgufFile* out, std::string* error) {
  return ReadGguf(image.data(), image.size(), "m.gguf", out, error);
}

std::string ReadError(const std::vector<uint8_t>& image) {
  GgufFile g;
  std::string error;
  EXPECT_FALSE(Read(image, &g, &error));
  EXPECT_FALSE(error.empty());
  return error;
}

TEST(GgufFile, ReadsEveryValueTypeAndNestedArrays) {
  std::vector<Kv> kvs = {
      {"u8", [](Image& im) { im.U32(0).U8(200); }},
      {"i8", [](Image& im) { im.U32(1).U8(0xFE); }},
      {"u16", [](Image& im) { im.U32(2).U8(0x34).U8(0x12); }},
      {"i16", [](Image& im) { im.U32(3).U8(0xFF).U8(0xFF); }},
      {"u32", [](Image& im) { im.U32(4).U32(70000); }},
      {"i32", [](Image& im) { im.U32(5).U32(0xFFFFFFF9u); }},
      {"f32", [](Image& im) { im.U32(6).F32(0.5f); }},
      {"bool", [](Image& im) { im.U32(7).U8(1); }},
      {"str", [](Image& im) { im.U32(8).Str("hi"); }},
      {"u64", [](Image& im) { im.U32(10).U64(1ull << 40); }},
      {"i64", [](Image& im) { im.U32(11).U64(~0ull); }},
      {"f64", [](Image& im) {
         double d = 0.25;
         uint64_t b;
         std::memcpy(&b, &d, 8);
         im.U32(12).U64(b);
       }},
      {"strings", [](Image& im) { im.U32(9).U32(8).U64(2).Str("a").Str("bc"); }},
      {"nested", [](Image& im) {  // [[1, 2], ["x"]]
         im.U32(9).U32(9).U64(2);
         im.U32(4).U64(2).U32(1).U32(2);
         im.U32(8).U64(1).Str("x");
       }},
  };
  const std::vector<uint8_t> image = Gguf(kvs, {});  // g's values point into it
  GgufFile g;
  std::string error;
  ASSERT_TRUE(Read(image, &g, &error)) << error;
  EXPECT_EQ(g.version, 3u);
  ASSERT_EQ(g.metadata.size(), kvs.size());
  uint64_t u;
  double d;
  bool b;
  std::string s;
  ASSERT_TRUE(g.Find("u8")->AsUInt(&u));
  EXPECT_EQ(u, 200u);
  EXPECT_FALSE(g.Find("i8")->AsUInt(&u));  // -2
  ASSERT_TRUE(g.Find("i8")->AsNumber(&d));
  EXPECT_EQ(d, -2);
  ASSERT_TRUE(g.Find("u16")->AsUInt(&u));
  EXPECT_EQ(u, 0x1234u);
  ASSERT_TRUE(g.Find("i16")->AsNumber(&d));
  EXPECT_EQ(d, -1);
  ASSERT_TRUE(g.Find("i32")->AsNumber(&d));
  EXPECT_EQ(d, -7);
  ASSERT_TRUE(g.Find("f32")->AsNumber(&d));
  EXPECT_EQ(d, 0.5);
  ASSERT_TRUE(g.Find("bool")->AsBool(&b));
  EXPECT_TRUE(b);
  ASSERT_TRUE(g.Find("str")->AsString(&s));
  EXPECT_EQ(s, "hi");
  ASSERT_TRUE(g.Find("u64")->AsUInt(&u));
  EXPECT_EQ(u, 1ull << 40);
  ASSERT_TRUE(g.Find("i64")->AsNumber(&d));
  EXPECT_EQ(d, -1);
  ASSERT_TRUE(g.Find("f64")->AsNumber(&d));
  EXPECT_EQ(d, 0.25);
  const GgufValue* strings = g.Find("strings");
  ASSERT_EQ(strings->strings.size(), 2u);
  EXPECT_EQ(strings->strings[1], "bc");
  const GgufValue* nested = g.Find("nested");
  ASSERT_EQ(nested->items.size(), 2u);
  ASSERT_TRUE(nested->items[0].UIntAt(1, &u));
  EXPECT_EQ(u, 2u);
  EXPECT_EQ(nested->items[1].strings[0], "x");
}

TEST(GgufFile, ReadsTensorInfosAlignmentAndData) {
  Tensor a{"a", {3, 2}, 0, F32Bytes({1, 2, 3, 4, 5, 6})};
  Tensor q{"q", {32}, 8, std::vector<uint8_t>(34, 1)};
  GgufFile g;
  std::string error;
  const std::vector<uint8_t> image = Gguf({U32Kv("general.alignment", 32)}, {a, q}, 2);
  ASSERT_TRUE(Read(image, &g, &error)) << error;
  EXPECT_EQ(g.version, 2u);
  ASSERT_EQ(g.tensors.size(), 2u);
  EXPECT_EQ(g.tensors[0].TorchShape(), (std::vector<size_t>{2, 3}));  // ne is fastest first
  EXPECT_EQ(g.tensors[0].bytes, 24u);
  EXPECT_EQ(g.tensors[1].bytes, 34u);
  EXPECT_STREQ(g.tensors[1].TypeName(), "Q8_0");
  EXPECT_EQ(g.data_offset % 32, 0u);
  float v;
  std::memcpy(&v, g.tensors[0].data + 8, 4);
  EXPECT_EQ(v, 3.0f);
  EXPECT_EQ(g.tensors[1].data, image.data() + g.data_offset + 32);
}

TEST(GgufFile, EveryTruncationIsRefusedWithAMessage) {
  const std::vector<uint8_t> whole = Gguf({StrKv("general.architecture", "llama"),
                                           U32Kv("n", 7)},
                                          {{"t", {4}, 0, F32Bytes({1, 2, 3, 4})}});
  GgufFile g;
  std::string error;
  ASSERT_TRUE(Read(whole, &g, &error)) << error;
  for (size_t n = 0; n + 1 < whole.size(); ++n) {
    const std::vector<uint8_t> cut(whole.begin(), whole.begin() + n);
    if (n >= whole.size() - 16) continue;  // only the last tensor's padding is gone
    error.clear();
    EXPECT_FALSE(Read(cut, &g, &error)) << n;
    EXPECT_FALSE(error.empty()) << n;
  }
}

TEST(GgufFile, RefusesDamagedHeadersByName) {
  std::vector<uint8_t> v1 = Gguf({}, {}, 1);
  EXPECT_NE(ReadError(v1).find("version 1"), std::string::npos);
  EXPECT_NE(ReadError(Gguf({}, {}, 4)).find("version 4"), std::string::npos);
  std::vector<uint8_t> be = Gguf({}, {});
  be[4] = 0, be[7] = 3;
  EXPECT_NE(ReadError(be).find("big-endian"), std::string::npos);
  EXPECT_NE(ReadError({'G', 'G', 'M', 'L', 0, 0, 0, 0}).find("magic"), std::string::npos);

  std::vector<uint8_t> lying = Gguf({U32Kv("n", 1)}, {});
  lying[8] = 0xFF, lying[9] = 0xFF, lying[10] = 0xFF;  // tensor count 16M
  EXPECT_NE(ReadError(lying).find("tensor count"), std::string::npos);
  lying = Gguf({U32Kv("n", 1)}, {});
  lying[16] = 100;  // 100 keys in a few bytes
  EXPECT_NE(ReadError(lying).find("metadata count 100 cannot fit"), std::string::npos);

  const std::string huge_string = ReadError(Gguf({{"s", [](Image& im) {
                                                    im.U32(8).U64(1ull << 62);
                                                  }}}, {}));
  EXPECT_NE(huge_string.find("'s'"), std::string::npos) << huge_string;
  const std::string huge_array = ReadError(Gguf({{"arr", [](Image& im) {
                                                   im.U32(9).U32(6).U64(1ull << 61);
                                                 }}}, {}));
  EXPECT_NE(huge_array.find("'arr': array length"), std::string::npos) << huge_array;
  EXPECT_NE(ReadError(Gguf({{"t", [](Image& im) { im.U32(13).U32(0); }}}, {})).find("type 13"),
            std::string::npos);
  EXPECT_NE(ReadError(Gguf({{"b", [](Image& im) { im.U32(7).U8(2); }}}, {})).find("neither"),
            std::string::npos);
  EXPECT_NE(ReadError(Gguf({U32Kv("k", 1), U32Kv("k", 2)}, {})).find("twice"), std::string::npos);
  EXPECT_NE(ReadError(Gguf({U32Kv("general.alignment", 48)}, {})).find("power of two"),
            std::string::npos);
  EXPECT_NE(ReadError(Gguf({F32Kv("general.alignment", 32)}, {})).find("u32"), std::string::npos);
  EXPECT_NE(ReadError(Gguf({{"deep", [](Image& im) {
                              im.U32(9);
                              for (int i = 0; i < 9; ++i) im.U32(9).U64(1);
                              im.U32(4).U64(0);
                            }}}, {}))
                .find("nested"),
            std::string::npos);
}

TEST(GgufFile, RefusesDamagedTensorInfosByName) {
  const auto err = [](const Tensor& t) { return ReadError(Gguf({}, {t})); };
  EXPECT_NE(err({"w", {4, 4, 4, 4, 4}, 0, {}}).find("'w' has 5 dimensions"), std::string::npos);
  EXPECT_NE(err({"w", {31}, 8, std::vector<uint8_t>(34)}).find("multiple of its block"),
            std::string::npos);
  EXPECT_NE(err({"w", {4}, 99, {}}).find("ggml type 99"), std::string::npos);
  EXPECT_NE(err({"w", {1ull << 62, 1ull << 62}, 0, {}}).find("overflows"), std::string::npos);
  EXPECT_NE(err({"w", {1ull << 63}, 0, {}}).find("negative"), std::string::npos);
  EXPECT_NE(err({"w", {64}, 0, F32Bytes({1})}).find("past the end"), std::string::npos);
  // Two tensors at the same offset overlap; an unaligned offset; a name twice.
  const std::vector<uint8_t> eight = F32Bytes(std::vector<float>(8));
  EXPECT_NE(ReadError(Gguf({}, {{"a", {8}, 0, eight}, {"b", {8}, 0, eight, 0}})).find("overlaps"),
            std::string::npos);
  EXPECT_NE(ReadError(Gguf({}, {{"a", {8}, 0, eight, 4}})).find("not a multiple of the alignment"),
            std::string::npos);
  EXPECT_NE(ReadError(Gguf({}, {{"a", {1}, 0, F32Bytes({1})}, {"a", {1}, 0, F32Bytes({1})}}))
                .find("'a' appears twice"),
            std::string::npos);
}

uint16_t Half(float f) { return F32ToF16(f); }

TEST(GgufDequant, BlockTypesDecodeAsGgml) {
  // Q8_0: d = 0.5, q = -3, 0, 127, ...
  std::vector<uint8_t> q8(34, 0);
  const uint16_t d = Half(0.5f);
  q8[0] = d & 0xFF, q8[1] = d >> 8;
  q8[2] = static_cast<uint8_t>(-3), q8[4] = 127;
  float out[256];
  ASSERT_TRUE(DequantizeGgml(8, q8.data(), 32, out));
  EXPECT_EQ(out[0], -1.5f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 63.5f);
  int8_t values[32];
  uint16_t scale;
  SplitQ8_0Row(q8.data(), 32, values, &scale);
  EXPECT_EQ(scale, d);
  EXPECT_EQ(values[0], -3);
  EXPECT_EQ(values[2], 127);

  // Q4_0: byte j holds values j (low nibble) and j + 16 (high); (q - 8) * d.
  std::vector<uint8_t> q4(18, 0x88);
  q4[0] = d & 0xFF, q4[1] = d >> 8;
  q4[2] = 0xF0;  // value 0: 0 - 8; value 16: 15 - 8
  ASSERT_TRUE(DequantizeGgml(2, q4.data(), 32, out));
  EXPECT_EQ(out[0], -4.0f);
  EXPECT_EQ(out[16], 3.5f);
  EXPECT_EQ(out[1], 0.0f);

  // Q5_1: d, m, high bits word, nibbles; q * d + m with bit j of the word as bit 4 of value j.
  std::vector<uint8_t> q5(24, 0);
  const uint16_t m = Half(-1.0f);
  q5[0] = d & 0xFF, q5[1] = d >> 8, q5[2] = m & 0xFF, q5[3] = m >> 8;
  q5[4] = 1;     // bit 0: value 0's fifth bit
  q5[7] = 0x80;  // bit 31: value 31's fifth bit
  q5[8] = 0x01;  // value 0's low nibble 1 (value 16's is the high nibble, 0)
  ASSERT_TRUE(DequantizeGgml(7, q5.data(), 32, out));
  EXPECT_EQ(out[0], (16 + 1) * 0.5f - 1.0f);
  EXPECT_EQ(out[31], 16 * 0.5f - 1.0f);
  EXPECT_EQ(out[1], -1.0f);

  // Q6_K: every q = 32 + 1 (so q - 32 = 1), scales 2, d 0.25 -> 0.5 everywhere.
  std::vector<uint8_t> q6(210, 0);
  for (int i = 0; i < 128; ++i) q6[i] = 0x11;       // low nibbles 1
  for (int i = 128; i < 192; ++i) q6[i] = 0xAA;     // high pairs 2 (= 32)
  for (int i = 192; i < 208; ++i) q6[i] = 2;
  const uint16_t quarter = Half(0.25f);
  q6[208] = quarter & 0xFF, q6[209] = quarter >> 8;
  ASSERT_TRUE(DequantizeGgml(14, q6.data(), 256, out));
  for (int i = 0; i < 256; ++i) ASSERT_EQ(out[i], 0.5f) << i;

  // Q4_K: sub-block j scale/min from the 12 packed bytes; all q = 3, scales 1..8, mins 0.
  std::vector<uint8_t> q4k(144, 0);
  q4k[0] = d & 0xFF, q4k[1] = d >> 8;  // d = 0.5, dmin = 0
  for (int j = 0; j < 4; ++j) q4k[4 + j] = static_cast<uint8_t>(j + 1);
  for (int j = 4; j < 8; ++j) q4k[4 + 8 + (j - 4)] = static_cast<uint8_t>(j + 1);  // low nibble
  for (int i = 16; i < 144; ++i) q4k[i] = 0x33;
  ASSERT_TRUE(DequantizeGgml(12, q4k.data(), 256, out));
  for (int j = 0; j < 8; ++j) EXPECT_EQ(out[32 * j], 0.5f * (j + 1) * 3) << j;

  EXPECT_FALSE(CanDequantizeGgml(10));  // Q2_K
  EXPECT_FALSE(DequantizeGgml(16, q4.data(), 32, out));
}

// ---- the import ----

std::vector<float> Values(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7) % 13) / 13.0f - scale / 2;
  return v;
}

// Q8_0 blocks of `rows` x `cols` values: d = 1/64, q = (i % 255) - 127.
std::vector<uint8_t> Q8_0Bytes(size_t rows, size_t cols) {
  std::vector<uint8_t> b;
  const uint16_t d = Half(1.0f / 64);
  for (size_t i = 0; i < rows * cols / 32; ++i) {
    b.push_back(d & 0xFF);
    b.push_back(d >> 8);
    for (int j = 0; j < 32; ++j) b.push_back(static_cast<uint8_t>((i * 32 + j) % 255 - 127));
  }
  return b;
}

// Q4_0 blocks of `rows` x `cols` values: d = 1/8 + i/1024 (block i), nibbles (i + j) % 16.
std::vector<uint8_t> Q4_0Bytes(size_t rows, size_t cols) {
  std::vector<uint8_t> b;
  for (size_t i = 0; i < rows * cols / 32; ++i) {
    const uint16_t d = Half(0.125f + static_cast<float>(i) / 1024);
    b.push_back(d & 0xFF);
    b.push_back(d >> 8);
    for (size_t j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(((i + j) % 16) | (((i + 2 * j) % 16) << 4)));
  }
  return b;
}

// A tiny llama (dim 32, 2 heads, 1 kv head, ff 32, vocab 8), q|k|v fused, matrices `matrix`.
std::vector<uint8_t> TinyLlama(std::vector<Kv> extra, uint32_t matrix = 0,
                               bool with_unknown_tensor = false) {
  std::vector<Kv> kvs = {StrKv("general.architecture", "llama"),
                         U32Kv("llama.context_length", 16),
                         U32Kv("llama.embedding_length", 32),
                         U32Kv("llama.block_count", 1),
                         U32Kv("llama.feed_forward_length", 32),
                         U32Kv("llama.attention.head_count", 2),
                         U32Kv("llama.attention.head_count_kv", 1),
                         F32Kv("llama.attention.layer_norm_rms_epsilon", 1e-5f),
                         F32Kv("llama.rope.freq_base", 500000.0f)};
  kvs.insert(kvs.end(), extra.begin(), extra.end());
  const auto mat = [matrix](const std::string& name, size_t rows, size_t cols) {
    if (matrix == 8) return Tensor{name, {cols, rows}, 8, Q8_0Bytes(rows, cols)};
    if (matrix == 2) return Tensor{name, {cols, rows}, 2, Q4_0Bytes(rows, cols)};
    if (matrix == 3) return Tensor{name, {cols, rows}, 3, std::vector<uint8_t>(rows * cols / 32 * 20, 0x11)};
    return Tensor{name, {cols, rows}, 0, F32Bytes(Values(rows * cols, 1.0f))};
  };
  std::vector<Tensor> t = {
      mat("token_embd.weight", 8, 32),
      {"output_norm.weight", {32}, 0, F32Bytes(Values(32, 1))},
      {"blk.0.attn_norm.weight", {32}, 0, F32Bytes(Values(32, 1))},
      mat("blk.0.attn_qkv.weight", 64, 32),  // q 32 rows, k 16, v 16
      mat("blk.0.attn_output.weight", 32, 32),
      {"blk.0.ffn_norm.weight", {32}, 0, F32Bytes(Values(32, 1))},
      mat("blk.0.ffn_gate.weight", 32, 32),
      mat("blk.0.ffn_up.weight", 32, 32),
      mat("blk.0.ffn_down.weight", 32, 32),
  };
  if (with_unknown_tensor) t.push_back({"blk.0.attn_sinks", {2}, 0, F32Bytes({1, 2})});
  return Gguf(kvs, t);
}

struct Imported {
  bool ok = false;
  std::string error;
  std::vector<uint8_t> file;
  ModelConfig config;
  std::vector<GgufTensorNote> notes;
};

Imported Import(const std::vector<uint8_t>& image, const WeightType* dtype = nullptr) {
  Imported r;
  GgufFile g;
  WeightFileWriter w;
  GgufImport import;
  r.ok = Read(image, &g, &r.error) &&
         PrepareGgufConversion(g, "m.gguf", &w, &r.config, &import, &r.error) &&
         AddGgufTensors(import, r.config, g, "m.gguf",
                        dtype == nullptr ? MatrixTypeRequest{} : AllMatricesAs(*dtype), &w,
                        &r.notes, &r.error) &&
         w.Serialize(&r.file, &r.error);
  return r;
}

TEST(GgufImport, TinyLlamaWithFusedQkv) {
  const Imported r = Import(TinyLlama({}));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.arch, Architecture::kLlama);
  EXPECT_EQ(r.config.heads, 2u);
  EXPECT_EQ(r.config.kv_heads, 1u);
  EXPECT_EQ(r.config.qk_dim, 16u);
  EXPECT_EQ(r.config.vocab_size, 8u);
  EXPECT_EQ(r.config.rope_style, RopeStyle::kInterleaved);
  EXPECT_EQ(r.config.rope_theta, 500000.0);
  WeightFile f;
  ASSERT_TRUE(WeightFile::Open(r.file.data(), r.file.size(), &f).ok());
  WeightTensor wk;
  ASSERT_TRUE(f.FindTensor("layers.0.attention.wk.weight", &wk).ok());
  EXPECT_EQ(wk.shape.dims[0], 16u);
  // k is rows 32..47 of the fused matrix.
  const std::vector<float> fused = Values(64 * 32, 1.0f);
  EXPECT_EQ(static_cast<const float*>(wk.raw)[0], fused[32 * 32]);
  const char* source = nullptr;
  size_t len = 0;
  ASSERT_TRUE(f.GetString("source", &source, &len).ok());
  EXPECT_NE(std::string(source).find("GGUF llama"), std::string::npos);
}

TEST(GgufImport, Q8_0IsKeptValueForValue) {
  const Imported r = Import(TinyLlama({}, 8));
  ASSERT_TRUE(r.ok) << r.error;
  WeightFile f;
  ASSERT_TRUE(WeightFile::Open(r.file.data(), r.file.size(), &f).ok());
  WeightTensor wq;
  ASSERT_TRUE(f.FindTensor("layers.0.attention.wq.weight", &wq).ok());
  ASSERT_EQ(wq.dtype, WeightType::kQ8);
  const std::vector<uint8_t> blocks = Q8_0Bytes(64, 32);
  const int8_t* values = static_cast<const int8_t*>(wq.raw);
  const uint8_t* scales = static_cast<const uint8_t*>(wq.raw) + Q8ScalesOffset(32, 32);
  for (size_t row = 0; row < 32; ++row) {
    EXPECT_EQ(scales[2 * row] | (scales[2 * row + 1] << 8), blocks[34 * row] | (blocks[34 * row + 1] << 8));
    for (size_t k = 0; k < 32; ++k) {
      ASSERT_EQ(values[row * 32 + k], static_cast<int8_t>(blocks[34 * row + 2 + k])) << row;
    }
  }
  for (const GgufTensorNote& n : r.notes) EXPECT_FALSE(n.reencoded) << n.name;
}

// q4_0 is GGUF's block_q4_0 byte for byte (runtime/FORMAT.md): the import is a copy. The
// fused q|k|v matrix splits at whole rows, i.e. whole blocks.
TEST(GgufImport, Q4_0IsKeptBlockForBlock) {
  const Imported r = Import(TinyLlama({}, 2));
  ASSERT_TRUE(r.ok) << r.error;
  WeightFile f;
  ASSERT_TRUE(WeightFile::Open(r.file.data(), r.file.size(), &f).ok());
  const std::vector<uint8_t> fused = Q4_0Bytes(64, 32);  // 18 bytes a row (one block)
  WeightTensor wk;
  ASSERT_TRUE(f.FindTensor("layers.0.attention.wk.weight", &wk).ok());
  ASSERT_EQ(wk.dtype, WeightType::kQ4_0);
  EXPECT_EQ(0, std::memcmp(wk.raw, fused.data() + 32 * 18, 16 * 18));  // k: rows 32..47
  WeightTensor down;
  ASSERT_TRUE(f.FindTensor("layers.0.feed_forward.w2.weight", &down).ok());
  ASSERT_EQ(down.dtype, WeightType::kQ4_0);
  const std::vector<uint8_t> square = Q4_0Bytes(32, 32);
  EXPECT_EQ(0, std::memcmp(down.raw, square.data(), square.size()));
  for (const GgufTensorNote& n : r.notes) EXPECT_FALSE(n.reencoded) << n.name;
}

// GGUF k-quant blocks of `rows` x `cols` values (cols a multiple of 256): any bytes but the
// f16 scales, which are finite: Q4_K's d and dmin at bytes 0 and 2 of its 144, Q6_K's d at
// byte 208 of its 210.
std::vector<uint8_t> KQuantBytes(uint32_t ggml, size_t rows, size_t cols) {
  const size_t bytes = ggml == 12 ? 144 : 210;
  std::vector<uint8_t> b(rows * cols / 256 * bytes);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 31 + i / 7);
  for (size_t blk = 0; blk < b.size() / bytes; ++blk) {
    const uint16_t d = Half(0.01f + static_cast<float>(blk) / 4096);
    for (size_t at : ggml == 12 ? std::vector<size_t>{0, 2} : std::vector<size_t>{208}) {
      b[blk * bytes + at] = d & 0xFF;
      b[blk * bytes + at + 1] = d >> 8;
    }
  }
  return b;
}

// A Q4_K_M-like llama at dim 256 (2 heads of 128, 1 kv head, ff 256, vocab 8): Q4_K matrices,
// Q6_K for the embedding and ffn_down as llama.cpp's Q4_K_M mix has them.
std::vector<uint8_t> TinyLlamaKQuants() {
  std::vector<Kv> kvs = {StrKv("general.architecture", "llama"),
                         U32Kv("llama.context_length", 16),
                         U32Kv("llama.embedding_length", 256),
                         U32Kv("llama.block_count", 1),
                         U32Kv("llama.feed_forward_length", 256),
                         U32Kv("llama.attention.head_count", 2),
                         U32Kv("llama.attention.head_count_kv", 1),
                         F32Kv("llama.attention.layer_norm_rms_epsilon", 1e-5f),
                         F32Kv("llama.rope.freq_base", 10000.0f)};
  const auto mat = [](const std::string& name, uint32_t ggml, size_t rows, size_t cols) {
    return Tensor{name, {cols, rows}, ggml, KQuantBytes(ggml, rows, cols)};
  };
  return Gguf(kvs, {
                       mat("token_embd.weight", 14, 8, 256),
                       {"output_norm.weight", {256}, 0, F32Bytes(Values(256, 1))},
                       {"blk.0.attn_norm.weight", {256}, 0, F32Bytes(Values(256, 1))},
                       mat("blk.0.attn_qkv.weight", 12, 512, 256),  // q 256 rows, k 128, v 128
                       mat("blk.0.attn_output.weight", 12, 256, 256),
                       {"blk.0.ffn_norm.weight", {256}, 0, F32Bytes(Values(256, 1))},
                       mat("blk.0.ffn_gate.weight", 12, 256, 256),
                       mat("blk.0.ffn_up.weight", 12, 256, 256),
                       mat("blk.0.ffn_down.weight", 14, 256, 256),
                   });
}

// The runtime's q4_K and q6_K codecs (weight_codecs.h) read a kept block as the converter's
// GGUF dequantizer (an independent decoder written for re-encoding) does: the same bits.
TEST(GgufImport, KQuantCodecsReadAsTheGgufDequantizer) {
  for (uint32_t ggml : {12u, 14u}) {
    const std::vector<uint8_t> blocks = KQuantBytes(ggml, 3, 512);
    std::vector<float> want(3 * 512);
    ASSERT_TRUE(DequantizeGgml(ggml, blocks.data(), want.size(), want.data()));
    const WeightType type = ggml == 12 ? WeightType::kQ4_K : WeightType::kQ6_K;
    std::vector<float> row(512);
    for (size_t r = 0; r < 3; ++r) {
      WidenMatrixRow(type, blocks.data(), nullptr, 512, r, row.data());
      for (size_t k = 0; k < 512; ++k) {
        ASSERT_EQ(row[k], want[r * 512 + k]) << ggml << " row " << r << " k " << k;
      }
    }
  }
}

// q4_K and q6_K are GGUF's block_q4_K and block_q6_K byte for byte: the import is a copy (the
// fused q|k|v split at whole rows, i.e. whole super-blocks), no tensor re-encoded.
TEST(GgufImport, Q4_KAndQ6_KAreKeptBlockForBlock) {
  const Imported r = Import(TinyLlamaKQuants());
  ASSERT_TRUE(r.ok) << r.error;
  WeightFile f;
  ASSERT_TRUE(WeightFile::Open(r.file.data(), r.file.size(), &f).ok());
  const std::vector<uint8_t> fused = KQuantBytes(12, 512, 256);  // 144 bytes a row
  WeightTensor wk;
  ASSERT_TRUE(f.FindTensor("layers.0.attention.wk.weight", &wk).ok());
  ASSERT_EQ(wk.dtype, WeightType::kQ4_K);
  ASSERT_EQ(wk.bytes, 128u * 144u);
  EXPECT_EQ(0, std::memcmp(wk.raw, fused.data() + 256 * 144, 128 * 144));  // k: rows 256..383
  WeightTensor down, embed;
  ASSERT_TRUE(f.FindTensor("layers.0.feed_forward.w2.weight", &down).ok());
  ASSERT_EQ(down.dtype, WeightType::kQ6_K);
  const std::vector<uint8_t> square = KQuantBytes(14, 256, 256);
  ASSERT_EQ(down.bytes, square.size());
  EXPECT_EQ(0, std::memcmp(down.raw, square.data(), square.size()));
  ASSERT_TRUE(f.FindTensor("tok_embeddings.weight", &embed).ok());
  EXPECT_EQ(embed.dtype, WeightType::kQ6_K);
  for (const GgufTensorNote& n : r.notes) EXPECT_FALSE(n.reencoded) << n.name;
}

TEST(GgufImport, RefusesAKQuantBlockWithANonFiniteScale) {
  for (const auto& c : {std::make_tuple("blk.0.ffn_up.weight", size_t{144 * 3 + 3}, "(Q4_K): "
                                        "block 0 of row 3 has a dmin that is not finite"),
                        std::make_tuple("blk.0.ffn_up.weight", size_t{144 * 5 + 1}, "(Q4_K): "
                                        "block 0 of row 5 has a d that is not finite"),
                        std::make_tuple("blk.0.ffn_down.weight", size_t{210 * 9 + 209}, "(Q6_K): "
                                        "block 0 of row 9 has a d that is not finite")}) {
    std::vector<uint8_t> image = TinyLlamaKQuants();
    GgufFile g;
    std::string error;
    ASSERT_TRUE(Read(image, &g, &error)) << error;
    const size_t at =
        static_cast<size_t>(g.FindTensor(std::get<0>(c))->data - image.data()) + std::get<1>(c);
    image[at] = 0x7C;  // the f16's high byte: exponent all ones (inf or NaN)
    const Imported r = Import(image);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find(std::get<2>(c)), std::string::npos) << r.error;
  }
}

// --dtype q4_K on matrices whose rows are 32 values: refused by name, never padded.
TEST(GgufImport, RefusesQ4_KForRowsThatAreNotWholeBlocks) {
  const WeightType q4k = WeightType::kQ4_K;
  const Imported r = Import(TinyLlama({}, 2), &q4k);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("rows of 32 values are not whole q4_K blocks of 256 values"),
            std::string::npos)
      << r.error;
}

TEST(GgufImport, RefusesAQ4_0BlockWithANonFiniteScale) {
  std::vector<uint8_t> image = TinyLlama({}, 2);
  GgufFile g;
  std::string error;
  ASSERT_TRUE(Read(image, &g, &error)) << error;
  const size_t at = static_cast<size_t>(g.FindTensor("blk.0.ffn_up.weight")->data - image.data());
  image[at + 18 * 7 + 1] = 0x7C;  // row 7: scale +inf
  const Imported r = Import(image);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("'blk.0.ffn_up.weight' (Q4_0): block 0 of row 7 has a scale that is "
                         "not finite"),
            std::string::npos)
      << r.error;
}

TEST(GgufImport, RefusesAQ8_0BlockWithANonFiniteScale) {
  std::vector<uint8_t> image = TinyLlama({}, 8);
  GgufFile g;
  std::string error;
  ASSERT_TRUE(Read(image, &g, &error)) << error;
  const size_t at = static_cast<size_t>(g.FindTensor("blk.0.ffn_down.weight")->data - image.data());
  image[at + 34 * 5 + 1] = 0x7E;  // row 5 (one block a row): scale NaN, as the fuzzer found
  const Imported r = Import(image);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("'blk.0.ffn_down.weight' (Q8_0): block 0 of row 5 has a scale that is "
                         "not finite"),
            std::string::npos)
      << r.error;
}

TEST(GgufImport, ReencodesWithDtypeAndReportsTheLoss) {
  const WeightType f16 = WeightType::kF16;
  const Imported r = Import(TinyLlama({}, 8), &f16);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_FALSE(r.notes.empty());
  for (const GgufTensorNote& n : r.notes) {
    EXPECT_TRUE(n.reencoded);
    EXPECT_EQ(n.to, WeightType::kF16);
    EXPECT_LT(n.relative_rms, 1e-3) << n.name;  // q * 2^-6 with |q| <= 127 fits f16 exactly
  }
}

TEST(GgufImport, RefusesWhatItDoesNotRunByName) {
  const auto refused = [](const std::vector<uint8_t>& image, const char* needle) {
    const Imported r = Import(image);
    EXPECT_FALSE(r.ok) << needle;
    EXPECT_NE(r.error.find(needle), std::string::npos) << r.error;
  };
  refused(TinyLlama({U32Kv("llama.attention.sinks", 1)}), "llama.attention.sinks");
  refused(TinyLlama({U32Kv("llama.expert_count", 8)}), "mixture-of-experts");
  refused(TinyLlama({StrKv("llama.rope.scaling.type", "yarn")}), "'yarn'");
  refused(TinyLlama({U32Kv("llama.rope.dimension_count", 8)}), "rope.dimension_count");
  refused(TinyLlama({U32Kv("llama.vocab_size", 9)}), "vocab_size");
  refused(TinyLlama({U32Kv("split.count", 2)}), "split GGUF");
  refused(TinyLlama({}, 0, true), "unexpected tensor 'blk.0.attn_sinks'");
  std::vector<uint8_t> mamba = TinyLlama({});
  const std::string arch = "llama";
  const auto at = std::search(mamba.begin(), mamba.end(), arch.begin(), arch.end());
  std::copy_n("mamba", 5, at);
  refused(mamba, "general.architecture 'mamba' is not supported");
}

TEST(GgufImport, RefusesBlockTypesWithoutDtype) {
  const Imported r = Import(TinyLlama({}, 3));  // Q4_1 matrices
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("(Q4_1) is a type attnrt does not run: give --dtype"), std::string::npos)
      << r.error;
  const WeightType q8 = WeightType::kQ8;
  const Imported with_dtype = Import(TinyLlama({}, 3), &q8);
  EXPECT_TRUE(with_dtype.ok) << with_dtype.error;
}

}  // namespace
}  // namespace attnrt

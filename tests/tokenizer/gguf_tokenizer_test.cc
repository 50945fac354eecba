// Unit tests of the GGUF tokenizer (tools/tokenizer/gguf_vocab.h) on small vocabularies written
// here: llama.cpp's SentencePiece rules (highest score first, the leftmost of equal scores, the
// space prefix after each special token, byte fallback), the byte-level BPE pre-tokenizers by
// name, the token types llama.cpp changes by text, and damaged metadata failing cleanly.
// Agreement with llama.cpp itself is tests/python/gguf_tokenizer_llamacpp_test.py's job.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mutation.h"
#include "tokenizer/tokenizer.h"

namespace attnrt {
namespace {

using Json = nlohmann::json;
const std::string kSpace = "\xe2\x96\x81";  // U+2581

// <unk> <s> </s> ▁ a b c ab bc ▁a <0xC3> <0xA9>, with the scores of ab and bc given. The ids
// expected below are what llama.cpp gives for the same vocabulary with all 256 byte tokens
// (it cannot load one without <0x0A>), byte ids aside.
Json SentencePiece(float ab, float bc) {
  return Json{{"tokenizer.ggml.model", "llama"},
              {"tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", kSpace, "a", "b", "c", "ab", "bc",
                                         kSpace + "a", "<0xC3>", "<0xA9>"}},
              {"tokenizer.ggml.scores", {0, 0, 0, -1, -2, -3, -4, ab, bc, -5, 0, 0}},
              {"tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 6, 6}},
              {"tokenizer.ggml.bos_token_id", 1u}};
}

std::vector<uint32_t> Encode(const Json& meta, const std::string& text, bool special = false) {
  Tokenizer t;
  std::string error;
  EXPECT_TRUE(Tokenizer::LoadGguf(meta.dump(), "test", &t, &error)) << error;
  std::vector<uint32_t> ids;
  EXPECT_TRUE(t.Encode(text, special, &ids, &error)) << error;
  return ids;
}

TEST(GgufTokenizer, SentencePieceMergesByScoreAndLeftmostOnTies) {
  EXPECT_EQ(Encode(SentencePiece(-1, -3), "abc"), (std::vector<uint32_t>{3, 7, 6}));  // ▁ ab c
  // bc first, then ▁a (-5) joins what is left: ▁a bc.
  EXPECT_EQ(Encode(SentencePiece(-3, -1), "abc"), (std::vector<uint32_t>{9, 8}));
  EXPECT_EQ(Encode(SentencePiece(-2, -2), "abc"), (std::vector<uint32_t>{3, 7, 6}));  // leftmost
  // ▁a (-5) loses to ab (-1) when both could form: ▁ ab, then nothing joins ▁ and ab.
  EXPECT_EQ(Encode(SentencePiece(-1, -3), "ab"), (std::vector<uint32_t>{3, 7}));
}

TEST(GgufTokenizer, SentencePieceSpacePrefixBytesAndBos) {
  const Json meta = SentencePiece(-1, -3);
  // Each stretch after a special token gets its own space; é has no token: its two bytes.
  EXPECT_EQ(Encode(meta, "a</s>a"), (std::vector<uint32_t>{9, 2, 9}));
  EXPECT_EQ(Encode(meta, "\xc3\xa9"), (std::vector<uint32_t>{3, 10, 11}));
  EXPECT_EQ(Encode(meta, "a", true), (std::vector<uint32_t>{1, 9}));  // add_bos defaults on
  Json no_prefix = meta;
  no_prefix["tokenizer.ggml.add_space_prefix"] = false;
  no_prefix["tokenizer.ggml.add_bos_token"] = false;
  EXPECT_EQ(Encode(no_prefix, "a b", true), (std::vector<uint32_t>{4, 3, 5}));  // a ▁ b
  Tokenizer t;
  std::string error, text;
  ASSERT_TRUE(Tokenizer::LoadGguf(meta.dump(), "test", &t, &error)) << error;
  ASSERT_TRUE(t.Decode({1, 9, 3, 7, 10, 11}, true, &text, &error)) << error;
  EXPECT_EQ(text, "a ab\xc3\xa9");
}

// Byte-level BPE: a b c and their GPT-2 characters, "Ġ" a space, merges a b, ab c.
Json ByteLevel(const std::string& pre) {
  return Json{{"tokenizer.ggml.model", "gpt2"},
              {"tokenizer.ggml.pre", pre},
              {"tokenizer.ggml.tokens", {"a", "b", "c", "1", "2", "3", "4", "ab", "abc",
                                         "\xC4\xA0", "\xC4\xA0" "a", "123", "<|im_end|>"}},
              {"tokenizer.ggml.token_type", {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
              {"tokenizer.ggml.merges", {"a b", "ab c", "\xC4\xA0 a"}}};
}

TEST(GgufTokenizer, ByteLevelSplitsByThePreName) {
  // llama3's regex keeps up to three digits together (and 123 is a token: ignore_merges),
  // qwen2's splits every digit.
  EXPECT_EQ(Encode(ByteLevel("llama-bpe"), "abc 1234"), (std::vector<uint32_t>{8, 9, 11, 6}));
  EXPECT_EQ(Encode(ByteLevel("qwen2"), "abc 1234"), (std::vector<uint32_t>{8, 9, 3, 4, 5, 6}));
  // "<|im_end|>" is typed normal here; llama.cpp makes it control, so it is found whole.
  EXPECT_EQ(Encode(ByteLevel("qwen2"), "a<|im_end|>"), (std::vector<uint32_t>{0, 12}));
  Tokenizer t;
  std::string error;
  EXPECT_FALSE(Tokenizer::LoadGguf(ByteLevel("gpt2").dump(), "test", &t, &error));
  EXPECT_NE(error.find("tokenizer.ggml.pre 'gpt2' is not a pre-tokenizer attnrt knows"),
            std::string::npos) << error;
}

// Metadata comes from downloaded files: mutated metadata never crashes.
TEST(GgufTokenizer, DamagedMetadataFailsCleanly) {
  std::mt19937 rng(11);
  for (const Json& meta : {SentencePiece(-1, -3), ByteLevel("llama-bpe")}) {
    const std::string base = meta.dump();
    for (int i = 0; i < 300; ++i) {
      const std::string mutated = Mutated(base, rng);
      Tokenizer t;
      std::string error;
      if (Tokenizer::LoadGguf(mutated, "fuzz", &t, &error)) {
        std::vector<uint32_t> ids;
        t.Encode("abc a</s> 1234 \xc3\xa9", true, &ids, &error);
        std::string text;
        t.Decode(ids, false, &text, &error);
      } else {
        EXPECT_FALSE(error.empty());
      }
    }
  }
  Tokenizer t;
  std::string error;
  EXPECT_FALSE(Tokenizer::LoadGguf("", "empty", &t, &error));
  EXPECT_FALSE(Tokenizer::LoadGguf("[]", "list", &t, &error));
  EXPECT_FALSE(Tokenizer::LoadGguf(std::string(100000, '['), "deep", &t, &error));
}

}  // namespace
}  // namespace attnrt

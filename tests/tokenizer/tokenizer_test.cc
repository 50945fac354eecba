// Unit tests of tools/tokenizer on small tokenizers written here: what is refused (by name),
// hostile inputs (no crash, an error or a result), the BPE rules, and the UTF-8 and regex
// helpers. Exactness against the reference library is tokenizer_exactness_test.py's job.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mutation.h"
#include "tokenizer/pattern.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace attnrt {
namespace {

using Json = nlohmann::json;

// A byte-level BPE over a few tokens: a b c ab abc, and "Ġ" (a space) with merges a b, ab c.
Json SmallByteLevel() {
  Json vocab = Json::object();
  const char* tokens[] = {"a", "b", "c", "ab", "abc", "\xC4\xA0", "\xC4\xA0" "a", "<|end|>"};
  for (uint32_t i = 0; i < 8; ++i) vocab[tokens[i]] = i;
  return Json{{"version", "1.0"},
              {"added_tokens", Json::array({{{"id", 7}, {"content", "<|end|>"},
                                             {"single_word", false}, {"lstrip", false},
                                             {"rstrip", false}, {"normalized", false},
                                             {"special", true}}})},
              {"normalizer", nullptr},
              {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false},
                                 {"trim_offsets", true}, {"use_regex", true}}},
              {"post_processor", nullptr},
              {"decoder", {{"type", "ByteLevel"}}},
              {"model", {{"type", "BPE"}, {"vocab", vocab},
                         {"merges", Json::array({"a b", Json::array({"ab", "c"}),
                                                 Json::array({"\xC4\xA0", "a"})})}}}};
}

bool Load(const Json& j, Tokenizer* t, std::string* error, const std::string& config = "") {
  return Tokenizer::Load(j.dump(), config, "test", t, error);
}

std::vector<uint32_t> Encode(const Tokenizer& t, const std::string& text, bool special = true) {
  std::vector<uint32_t> ids;
  std::string error;
  EXPECT_TRUE(t.Encode(text, special, &ids, &error)) << error;
  return ids;
}

TEST(Tokenizer, SmallByteLevelMergesAndDecodes) {
  Tokenizer t;
  std::string error;
  ASSERT_TRUE(Load(SmallByteLevel(), &t, &error)) << error;
  EXPECT_EQ(Encode(t, "abc"), (std::vector<uint32_t>{4}));
  // " ab" is Ġ a b: a b merges first (rank 0), and Ġ ab is no merge.
  EXPECT_EQ(Encode(t, "abcab ab"), (std::vector<uint32_t>{4, 3, 5, 3}));
  EXPECT_EQ(Encode(t, " a"), (std::vector<uint32_t>{6}));
  EXPECT_EQ(Encode(t, "c<|end|>a"), (std::vector<uint32_t>{2, 7, 0}));
  EXPECT_EQ(Encode(t, ""), (std::vector<uint32_t>{}));
  std::string text;
  ASSERT_TRUE(t.Decode({4, 7, 6, 99}, false, &text, &error));
  EXPECT_EQ(text, "abc<|end|> a");  // 99 names no token: left out
  ASSERT_TRUE(t.Decode({4, 7, 6}, true, &text, &error));
  EXPECT_EQ(text, "abc a");
}

TEST(Tokenizer, CharactersOutsideTheVocabularyAreDroppedWithoutUnk) {
  Tokenizer t;
  std::string error;
  ASSERT_TRUE(Load(SmallByteLevel(), &t, &error)) << error;
  EXPECT_EQ(Encode(t, "axa"), (std::vector<uint32_t>{0, 0}));
}

TEST(Tokenizer, InvalidUtf8TextIsAnError) {
  Tokenizer t;
  std::string error;
  ASSERT_TRUE(Load(SmallByteLevel(), &t, &error)) << error;
  std::vector<uint32_t> ids;
  EXPECT_FALSE(t.Encode("ab\xff", true, &ids, &error));
  EXPECT_NE(error.find("not valid UTF-8 (byte 2)"), std::string::npos) << error;
  EXPECT_FALSE(t.Encode("\xed\xa0\x80", true, &ids, &error));  // a surrogate
}

// A field set to a value, and what the message of the refusal says.
struct Refusal {
  const char* field;
  Json value;
  const char* expect;
};

// Each case set on SmallByteLevel() (its model's field when `in_model`) fails to load, naming it.
void ExpectRefusals(const std::vector<Refusal>& cases, bool in_model) {
  for (const Refusal& c : cases) {
    Json j = SmallByteLevel();
    (in_model ? j["model"] : j)[c.field] = c.value;
    Tokenizer t;
    std::string error;
    EXPECT_FALSE(Load(j, &t, &error)) << c.field << " " << c.value.dump();
    EXPECT_NE(error.find(c.expect), std::string::npos) << error;
  }
}

// Every component the library does not implement is refused by name at load.
TEST(Tokenizer, RefusesUnsupportedComponentsByName) {
  ExpectRefusals({
      {"model", {{"type", "Unigram"}, {"vocab", Json::array()}}, "model type 'Unigram'"},
      {"model", {{"type", "WordPiece"}, {"vocab", Json::object()}}, "model type 'WordPiece'"},
      {"normalizer", {{"type", "Lowercase"}}, "normalizer 'Lowercase'"},
      {"normalizer", {{"type", "Precompiled"}, {"precompiled_charsmap", "AA=="}},
       "normalizer 'Precompiled'"},
      {"normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "BertNormalizer"}}}}},
       "normalizer 'BertNormalizer'"},
      {"pre_tokenizer", {{"type", "Whitespace"}}, "pre-tokenizer 'Whitespace'"},
      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}, "pre-tokenizer 'BertPreTokenizer'"},
      {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}}, "decoder 'WordPiece'"},
      {"decoder", {{"type", "CTC"}}, "decoder 'CTC'"},
      {"post_processor", {{"type", "Unknown"}}, "post-processor 'Unknown'"},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"new_option", true}}, "unknown key 'new_option'"},
      {"pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "^a"}}}, {"behavior", "Isolated"}},
       "the anchor ^"},
      {"pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "\\h+"}}},
                         {"behavior", "Isolated"}}, "escape \\h"},
      {"pre_tokenizer", {{"type", "Split"}, {"pattern", {{"String", ""}}}, {"behavior", "Isolated"}},
       "empty pattern"},
      {"pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "a"}}}, {"behavior", "Sideways"}},
       "unknown split behavior 'Sideways'"},
  }, false);
}

TEST(Tokenizer, RefusesBadModels) {
  ExpectRefusals({
      {"dropout", 0.1, "dropout"},
      {"merges", Json::array({"a x"}), "\"x\" is not in the vocabulary"},
      {"merges", Json::array({"b c"}), "the result \"bc\" is not in the vocabulary"},
      {"merges", Json::array({"a b c"}), "neither \"a b\" nor [a, b]"},
      {"vocab", {{"a", 0}, {"b", 0}}, "vocab id 0 is given to both"},
      {"vocab", {{"a", -1}}, "has no valid id"},
      {"vocab", {{"a", 0}, {"b", 4000000000u}}, "too sparse"},
  }, true);
}

TEST(Tokenizer, ConfigRulesOfLlamaTokenizerFast) {
  Json j = SmallByteLevel();
  j["added_tokens"].push_back({{"id", 8}, {"content", "<s>"}, {"special", true},
                               {"normalized", false}});
  Tokenizer t;
  std::string error;
  const Json config = {{"tokenizer_class", "LlamaTokenizer"}, {"bos_token", "<s>"},
                       {"eos_token", {{"content", "<|end|>"}}}, {"add_eos_token", true}};
  ASSERT_TRUE(Load(j, &t, &error, config.dump())) << error;
  EXPECT_EQ(Encode(t, "ab"), (std::vector<uint32_t>{8, 3, 7}));
  EXPECT_EQ(Encode(t, "ab", false), (std::vector<uint32_t>{3}));
  // A BOS that is only in the model's vocabulary.
  const Json vocab_bos = {{"tokenizer_class", "LlamaTokenizerFast"}, {"bos_token", "c"}};
  ASSERT_TRUE(Load(j, &t, &error, vocab_bos.dump())) << error;
  EXPECT_EQ(Encode(t, "ab"), (std::vector<uint32_t>{2, 3}));
  Json slow = config;
  slow["add_prefix_space"] = true;
  EXPECT_FALSE(Load(j, &t, &error, slow.dump()));
  EXPECT_NE(error.find("SentencePiece"), std::string::npos) << error;
  Json no_bos = config;
  no_bos.erase("bos_token");
  EXPECT_FALSE(Load(j, &t, &error, no_bos.dump()));
  EXPECT_NE(error.find("bos_token is not set"), std::string::npos) << error;
}

TEST(Tokenizer, ConfigSpecialTokensAndCleanUp) {
  Tokenizer t;
  std::string error;
  // "abc" is in the vocabulary but only the config names it as a special token.
  const Json config = {{"additional_special_tokens", {"abc"}},
                       {"clean_up_tokenization_spaces", true}};
  ASSERT_TRUE(Load(SmallByteLevel(), &t, &error, config.dump())) << error;
  std::string text;
  ASSERT_TRUE(t.Decode({4, 6}, true, &text, &error));
  EXPECT_EQ(text, " a");
  const Json differs = {{"added_tokens_decoder", {{"7", {{"content", "<|end|>"}, {"lstrip", true},
                                                         {"special", true}}}}}};
  EXPECT_FALSE(Load(SmallByteLevel(), &t, &error, differs.dump()));
  EXPECT_NE(error.find("differs from tokenizer.json"), std::string::npos) << error;
}

// Byte fallback and fused unknowns on a SentencePiece-style vocabulary.
TEST(Tokenizer, ByteFallbackAndUnk) {
  Json vocab = {{"<unk>", 0}, {"\xE2\x96\x81", 1}, {"a", 2}, {"\xE2\x96\x81" "a", 3}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    if (b != 0xFF) vocab[name] = 4 + b;
  }
  Json j = {{"normalizer", {{"type", "Sequence"}, {"normalizers", {
               {{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}},
               {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}}}}}},
            {"pre_tokenizer", nullptr},
            {"decoder", {{"type", "Sequence"}, {"decoders", {
               {{"type", "Replace"}, {"pattern", {{"String", "\xE2\x96\x81"}}}, {"content", " "}},
               {{"type", "ByteFallback"}}, {{"type", "Fuse"}},
               {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
            {"model", {{"type", "BPE"}, {"unk_token", "<unk>"}, {"fuse_unk", true},
                       {"byte_fallback", true}, {"vocab", vocab},
                       {"merges", Json::array({Json::array({"\xE2\x96\x81", "a"})})}}}};
  Tokenizer t;
  std::string error;
  ASSERT_TRUE(Load(j, &t, &error)) << error;
  // "é" is C3 A9: two byte tokens.
  EXPECT_EQ(Encode(t, "a \xC3\xA9"), (std::vector<uint32_t>{3, 1, 4 + 0xC3, 4 + 0xA9}));
  std::string text;
  ASSERT_TRUE(t.Decode({3, 1, 4 + 0xC3, 4 + 0xA9}, false, &text, &error));
  EXPECT_EQ(text, "a \xC3\xA9");
  // A lone continuation byte: one U+FFFD per byte token.
  ASSERT_TRUE(t.Decode({3, 4 + 0xA9, 4 + 0xA9}, false, &text, &error));
  EXPECT_EQ(text, "a\xEF\xBF\xBD\xEF\xBF\xBD");
}

// Untrusted tokenizer files and texts: random bytes and mutated JSON never crash.
TEST(Tokenizer, HostileFilesAndTextsFailCleanly) {
  std::mt19937 rng(7);
  const std::string base = SmallByteLevel().dump();
  for (int i = 0; i < 300; ++i) {
    const std::string mutated = Mutated(base, rng);
    Tokenizer t;
    std::string error;
    if (Tokenizer::Load(mutated, "", "fuzz", &t, &error)) {
      std::vector<uint32_t> ids;
      t.Encode("abc <|end|> \xC4\xA0 xyz", true, &ids, &error);
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
  Tokenizer t;
  std::string error;
  EXPECT_FALSE(Tokenizer::Load(std::string(100000, '['), "", "deep", &t, &error));
  EXPECT_FALSE(Tokenizer::Load("", "", "empty", &t, &error));
  EXPECT_FALSE(Tokenizer::Load("{\"model\": 1}", "", "x", &t, &error));
  ASSERT_TRUE(Load(SmallByteLevel(), &t, &error)) << error;
  std::vector<uint32_t> ids;
  for (int i = 0; i < 200; ++i) {
    std::string text(static_cast<size_t>(rng() % 64), '\0');
    for (char& c : text) c = static_cast<char>(rng());
    const bool valid = tok::FirstInvalidUtf8(text) == std::string::npos;
    EXPECT_EQ(t.Encode(text, true, &ids, &error), valid);
  }
  const std::string long_text(200000, 'a');
  EXPECT_TRUE(t.Encode(long_text, true, &ids, &error));
  EXPECT_EQ(ids.size(), 200000u);  // no merge joins a and a
}

TEST(Tokenizer, CompactFormRoundTripsAndRefusesDamage) {
  const std::string config = Json{{"tokenizer_class", "LlamaTokenizerFast"}, {"bos_token", "c"},
                                  {"clean_up_tokenization_spaces", true}}.dump();
  std::string compact, error;
  ASSERT_TRUE(Tokenizer::Compile(SmallByteLevel().dump(), config, "test", &compact, &error))
      << error;
  EXPECT_EQ(compact.find('\0'), std::string::npos);
  Tokenizer from_json, from_compact;
  bool stale = true;
  ASSERT_TRUE(Load(SmallByteLevel(), &from_json, &error, config)) << error;
  ASSERT_TRUE(Tokenizer::LoadCompact(compact, "test", &from_compact, &stale, &error)) << error;
  EXPECT_FALSE(stale);
  for (const char* text : {"abcab ab", "c<|end|>a", "", " a ,"}) {
    EXPECT_EQ(Encode(from_compact, text), Encode(from_json, text)) << text;
  }
  std::string a, b;
  ASSERT_TRUE(from_json.Decode({4, 5, 7, 2, 6}, false, &a, &error));
  ASSERT_TRUE(from_compact.Decode({4, 5, 7, 2, 6}, false, &b, &error));
  EXPECT_EQ(a, b);
  // Every truncation and random damage: an error (or, where the damage hits only token text,
  // a tokenizer), never a crash.
  std::mt19937 rng(3);
  for (size_t cut = 0; cut < compact.size(); cut += 7) {
    Tokenizer t;
    EXPECT_FALSE(Tokenizer::LoadCompact(compact.substr(0, cut), "cut", &t, &stale, &error));
  }
  for (int i = 0; i < 300; ++i) {
    std::string damaged = compact;
    damaged[rng() % damaged.size()] = static_cast<char>(rng());
    Tokenizer t;
    std::vector<uint32_t> ids;
    if (Tokenizer::LoadCompact(damaged, "damaged", &t, &stale, &error)) {
      t.Encode("abc ab <|end|>", true, &ids, &error);
    }
  }
}

TEST(Utf8, LossyReplacesMaximalSubparts) {
  EXPECT_EQ(tok::Utf8Lossy("a\xF0\x9F\x98" "b"), "a\xEF\xBF\xBD" "b");  // one truncated emoji
  EXPECT_EQ(tok::Utf8Lossy("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");   // overlong: two
  EXPECT_EQ(tok::Utf8Lossy("\xED\xA0\x80"), std::string(3 * 3, ' ').replace(0, 9,
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"));                  // surrogate: three
  EXPECT_EQ(tok::Utf8Lossy("\xE2\x82"), "\xEF\xBF\xBD");
  EXPECT_EQ(tok::Utf8Lossy("\xF4\x90\x80\x80"), std::string("\xEF\xBF\xBD") + "\xEF\xBF\xBD"
            "\xEF\xBF\xBD\xEF\xBF\xBD");                               // past U+10FFFF
  EXPECT_EQ(tok::FirstInvalidUtf8("ok \xE4\xBD\xA0"), std::string::npos);
}

TEST(Pattern, TranslatesOnigurumaClasses) {
  std::string out, error;
  ASSERT_TRUE(tok::TranslateOnigurumaRegex("\\s+(?!\\S)|[^\\s\\p{L}]", &out, &error)) << error;
  EXPECT_EQ(out, "[\\t-\\r\\x{85}\\p{Z}]+(?![^\\t-\\r\\x{85}\\p{Z}])|[^\\t-\\r\\x{85}\\p{Z}\\p{L}]");
  for (const char* refused : {"a$", "(?m:a)", "[[:alpha:]]", "a{,3}", "\\bword", "[a&&b]", "[\\S]"}) {
    EXPECT_FALSE(tok::TranslateOnigurumaRegex(refused, &out, &error)) << refused;
  }
  tok::Pattern p;
  ASSERT_TRUE(tok::Pattern::FromRegex("\\s", "test", &p, &error)) << error;
  std::vector<tok::Span> m;
  ASSERT_TRUE(p.FindMatches("a\xE1\xA0\x8E" "b\xC2\x85" "c", &m, &error));  // U+180E, U+0085
  ASSERT_EQ(m.size(), 1u);  // only NEL is Oniguruma's \s
  EXPECT_EQ(m[0].start, 5u);
}

}  // namespace
}  // namespace attnrt

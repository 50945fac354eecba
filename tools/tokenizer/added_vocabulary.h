// tokenizer.json's "added_tokens": the strings found in the input before anything else and
// turned into their ids whole. As in the reference, tokens with normalized false are found in
// the raw input, the others in each normalized stretch between them (matching their own
// normalized content); at each position the longest token starting there wins, then
// single_word drops a match inside a word and lstrip / rstrip take the whitespace beside it.
// Ids follow the reference's rule: a token already in the vocabulary keeps that id, a new
// one gets the next id after the largest so far.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/bpe_model.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pieces.h"

namespace attnrt::tok {

struct AddedToken {
  std::string content;
  uint32_t id = 0;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = true;
  bool special = false;
};

class AddedVocabulary {
 public:
  // `j` is the "added_tokens" list (or null); `normalizer` normalizes the content of tokens
  // with normalized true, as their pattern.
  bool Load(const Json& j, const BpeModel& model, const Normalizer& normalizer,
            std::string* error);
  // Adds more tokens as one call of the reference's add_tokens (transformers adds the
  // special tokens named only in tokenizer_config.json this way).
  bool Add(const std::vector<AddedToken>& tokens, const BpeModel& model,
           const Normalizer& normalizer, std::string* error);

  // transformers' split_special_tokens: special tokens in the text are not found, but
  // tokenized as ordinary text.
  void SetSplitSpecialTokens(bool split) { split_special_tokens_ = split; }

  // Splits the raw-input tokens out of `text`, normalizes what lies between them, and splits
  // the normalized tokens out of that: the pieces the pre-tokenizer gets.
  bool ExtractAndNormalize(std::string_view text, const Normalizer& normalizer,
                           std::vector<Piece>* pieces, std::string* error) const;

  // The added token with this id, or null.
  const AddedToken* ById(uint32_t id) const;
  // The id of the added token with this content, or -1.
  int64_t IdOf(std::string_view content) const;
  bool IsSpecial(std::string_view content) const;

 private:
  // A byte trie over the patterns of one kind (raw or normalized).
  struct Trie {
    struct Node {
      std::vector<std::pair<uint8_t, uint32_t>> next;  // sorted by byte
      int64_t id = -1;  // the token id of the pattern ending here
    };
    std::vector<Node> nodes{1};
    bool first_byte[256] = {};
    void Add(std::string_view pattern, uint32_t id);
    // The id of the longest pattern starting at text[at] and its length, or -1.
    int64_t LongestAt(std::string_view text, size_t at, size_t* length) const;
  };
  bool AddOne(const AddedToken& token, const BpeModel& model, std::string* error);
  bool Refresh(const BpeModel& model, const Normalizer& normalizer, std::string* error);
  // Splits one piece at the tokens of `trie`, as the reference's find_matches does.
  void SplitOut(const Piece& piece, const Trie& trie, std::vector<Piece>* out) const;

  // The reference's state: special tokens and the other added tokens, each in the order
  // first given; content -> id; id -> the token last given for it.
  std::vector<AddedToken> specials_, others_;
  std::unordered_map<std::string, uint32_t> ids_;
  uint32_t max_id_ = 0;  // the largest value in ids_
  std::unordered_map<uint32_t, AddedToken> by_id_;
  std::unordered_map<std::string, bool> special_contents_;
  Trie raw_trie_, normalized_trie_;
  bool split_special_tokens_ = false;
};

}  // namespace attnrt::tok

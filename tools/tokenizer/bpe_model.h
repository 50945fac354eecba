// tokenizer.json's BPE model as the reference runs it: characters (with the continuing
// subword prefix / end-of-word suffix) looked up in the vocabulary, unknown ones as <0xXX>
// byte tokens (byte_fallback) or the unk token (fused when fuse_unk), then merges applied
// lowest rank first (leftmost on ties) through a priority queue over a linked list of
// symbols. ignore_merges takes a whole word that is in the vocabulary as it is. Words shorter
// than kCachedWordBytes are remembered (up to kCacheWords of them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/compact_form.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/string_ids.h"

namespace attnrt::tok {

class BpeModel {
 public:
  static constexpr size_t kCachedWordBytes = 256;
  static constexpr size_t kCacheWords = 10000;

  // `j` is tokenizer.json's "model" object.
  bool Load(const Json& j, const std::string& where, std::string* error);
  // The compact form: the parameters from `j` (which has no vocab or merges), the vocabulary
  // and merges from `in`, as AppendTables wrote them.
  bool LoadCompact(const Json& j, const std::string& where, CompactReader* in,
                   std::string* error);
  void AppendTables(CompactWriter* out) const;
  // The layout AppendTables writes and LoadCompact reads, for tables built elsewhere (a GGUF
  // vocabulary): the tokens (id, text) and the merges (AppendTables writes them by rank).
  struct MergeRow {
    uint32_t left, right, rank, merged;
  };
  static void WriteTables(const std::vector<std::pair<uint32_t, std::string_view>>& tokens,
                          uint32_t max_id, const std::vector<MergeRow>& merges,
                          CompactWriter* out);

  // Appends the ids of `word` (one pre-tokenized piece, valid UTF-8) to *ids. Not safe to call
  // from two threads at once (the word cache).
  bool Tokenize(std::string_view word, std::vector<uint32_t>* ids, std::string* error) const;

  int64_t TokenToId(std::string_view token) const { return vocab_.Find(token); }
  // False when no token has the id.
  bool IdToToken(uint32_t id, std::string_view* token) const;
  size_t vocab_size() const { return token_count_; }

 private:
  struct Symbol {
    uint32_t id;
    int32_t prev, next;
    bool removed;
  };
  bool LoadParams(const Json& j, const std::string& where, std::string* error);
  bool LoadVocab(const Json& vocab, const std::string& where, std::string* error);
  bool LoadMerges(const Json& merges, const std::string& where, std::string* error);
  bool AddToken(std::string_view token, uint32_t id, const std::string& where,
                std::string* error);
  size_t token_count_ = 0;
  void FindByteTokens();
  bool InitialSymbols(std::string_view word, std::vector<Symbol>* symbols,
                      std::string* error) const;
  int64_t CharId(std::string_view ch, bool first, bool last) const;
  void MergeAll(std::vector<Symbol>* symbols) const;

  StringIds vocab_;
  // id -> StringIds handle (kNoToken: none); dense, so ids may not be far past the count.
  static constexpr uint64_t kNoToken = ~uint64_t{0};
  std::vector<uint64_t> id_to_token_;
  bool HasId(uint32_t id) const { return id < id_to_token_.size() && id_to_token_[id] != kNoToken; }
  bool ReserveIds(size_t count, uint64_t max_id, const std::string& where, std::string* error);
  PairMerges merges_;
  std::vector<int32_t> bmp_char_ids_;  // a lone BMP code point's id (-1: none), no affixes
  std::string prefix_, suffix_;        // continuing_subword_prefix, end_of_word_suffix
  std::string unk_token_;
  bool has_unk_ = false;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  int32_t byte_ids_[256];  // <0xXX> tokens (-1: missing)
  mutable std::unordered_map<std::string, std::vector<uint32_t>> cache_;
};

}  // namespace attnrt::tok

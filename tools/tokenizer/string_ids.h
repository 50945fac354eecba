// A string -> id table looked up by string_view (no std::string per lookup): the strings
// live in one arena, the table is open addressing on a 64-bit hash. The BPE vocabulary
// and the added tokens use it; lookups of single characters dominate a tokenize call.
// The arena holds at most 4 GiB: callers refuse inputs that large (tokenizer.cc does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnrt::tok {

uint64_t HashBytes(std::string_view s);

class StringIds {
 public:
  // Adds `s` -> id; false (table unchanged) when `s` is already there. *handle (if given)
  // names the stored copy for Text().
  bool Insert(std::string_view s, uint32_t id, uint64_t* handle = nullptr);
  std::string_view Text(uint64_t handle) const {
    return std::string_view(arena_).substr(handle >> 32, handle & 0xFFFFFFFFu);
  }
  // The id of `s`, or -1.
  int64_t Find(std::string_view s) const;
  size_t size() const { return count_; }
  void Reserve(size_t n);

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0;
    uint32_t length = 0;
    uint32_t id = 0;
    bool used = false;
  };
  void Grow();
  std::string_view At(const Slot& s) const { return std::string_view(arena_).substr(s.offset, s.length); }

  std::string arena_;
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// (left id, right id) -> (rank, merged id): the BPE merge table.
class PairMerges {
 public:
  struct Merge {
    uint32_t rank;
    uint32_t new_id;
  };
  // Sets the pair's merge, replacing an earlier one (the reference keeps the last).
  void Set(uint32_t left, uint32_t right, Merge m);
  const Merge* Find(uint32_t left, uint32_t right) const;
  // Calls f(left, right, merge) for every pair, in no particular order.
  template <typename F>
  void ForEach(F f) const {
    for (const Slot& s : slots_) {
      if (s.key != ~uint64_t{0}) f(static_cast<uint32_t>(s.key >> 32), static_cast<uint32_t>(s.key), s.merge);
    }
  }
  void Reserve(size_t n);
  size_t size() const { return count_; }

 private:
  struct Slot {
    uint64_t key = ~uint64_t{0};  // an empty slot (no pair has both ids 0xFFFFFFFF)
    Merge merge{};
  };
  static uint64_t Key(uint32_t l, uint32_t r) { return (uint64_t{l} << 32) | r; }
  static size_t Hash(uint64_t key) { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 20); }
  void Grow();

  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace attnrt::tok

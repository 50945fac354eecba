// StringIds and PairMerges (see string_ids.h): linear probing, load factor at most 1/2.
#include "tokenizer/string_ids.h"

#include <cstring>

namespace attnrt::tok {

uint64_t HashBytes(std::string_view s) {
  // FNV-1a over 8-byte words, then a final mix: fast on short tokens, good enough spread.
  uint64_t h = 0xcbf29ce484222325ull ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < s.size(); ++i) h = (h ^ static_cast<uint8_t>(s[i])) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

namespace {

// Grows an open-addressing table to room for n entries at load factor 1/2 (a power of two, at
// least 16), putting each used slot at the first free one from home(slot).
template <typename Slot, typename Used, typename Home>
void Rehash(std::vector<Slot>* slots, size_t n, Used used, Home home) {
  size_t want = 16;
  while (want < n * 2) want *= 2;
  if (want <= slots->size()) return;
  std::vector<Slot> old(want, Slot());
  old.swap(*slots);
  for (const Slot& s : old) {
    if (!used(s)) continue;
    size_t i = home(s) & (want - 1);
    while (used((*slots)[i])) i = (i + 1) & (want - 1);
    (*slots)[i] = s;
  }
}

}  // namespace

void StringIds::Reserve(size_t n) {
  Rehash(&slots_, n, [](const Slot& s) { return s.used; }, [](const Slot& s) { return s.hash; });
}

void StringIds::Grow() { Reserve(slots_.empty() ? 8 : slots_.size()); }

bool StringIds::Insert(std::string_view s, uint32_t id, uint64_t* handle) {
  if ((count_ + 1) * 2 > slots_.size()) Grow();
  const uint64_t h = HashBytes(s);
  size_t i = h & (slots_.size() - 1);
  while (slots_[i].used) {
    if (slots_[i].hash == h && At(slots_[i]) == s) return false;
    i = (i + 1) & (slots_.size() - 1);
  }
  Slot& slot = slots_[i];
  slot.used = true;
  slot.hash = h;
  slot.offset = static_cast<uint32_t>(arena_.size());
  slot.length = static_cast<uint32_t>(s.size());
  slot.id = id;
  if (handle != nullptr) *handle = (uint64_t{slot.offset} << 32) | slot.length;
  arena_.append(s.data(), s.size());
  ++count_;
  return true;
}

int64_t StringIds::Find(std::string_view s) const {
  if (slots_.empty()) return -1;
  const uint64_t h = HashBytes(s);
  size_t i = h & (slots_.size() - 1);
  while (slots_[i].used) {
    if (slots_[i].hash == h && At(slots_[i]) == s) return slots_[i].id;
    i = (i + 1) & (slots_.size() - 1);
  }
  return -1;
}

void PairMerges::Reserve(size_t n) {
  Rehash(&slots_, n, [](const Slot& s) { return s.key != ~uint64_t{0}; },
         [](const Slot& s) { return Hash(s.key); });
}

void PairMerges::Grow() { Reserve(slots_.empty() ? 8 : slots_.size()); }

void PairMerges::Set(uint32_t left, uint32_t right, Merge m) {
  if ((count_ + 1) * 2 > slots_.size()) Grow();
  const uint64_t key = Key(left, right);
  size_t i = Hash(key) & (slots_.size() - 1);
  while (slots_[i].key != ~uint64_t{0}) {
    if (slots_[i].key == key) {
      slots_[i].merge = m;
      return;
    }
    i = (i + 1) & (slots_.size() - 1);
  }
  slots_[i].key = key;
  slots_[i].merge = m;
  ++count_;
}

const PairMerges::Merge* PairMerges::Find(uint32_t left, uint32_t right) const {
  if (slots_.empty()) return nullptr;
  const uint64_t key = Key(left, right);
  size_t i = Hash(key) & (slots_.size() - 1);
  while (slots_[i].key != key) {
    if (slots_[i].key == ~uint64_t{0}) return nullptr;
    i = (i + 1) & (slots_.size() - 1);
  }
  return &slots_[i].merge;
}

}  // namespace attnrt::tok

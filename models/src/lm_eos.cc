// LmEosTokens (see lm_eos.h).
#include "attnrt/models/lm_eos.h"

namespace attnrt {

void EosIdKey(size_t index, char* key, size_t key_bytes) {
  size_t at = 0;
  for (const char* p = kEosIdKeyPrefix; *p != '\0' && at + 1 < key_bytes; ++p) key[at++] = *p;
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + index % 10);
    index /= 10;
  } while (index != 0 && n < sizeof(digits));
  while (n > 0 && at + 1 < key_bytes) key[at++] = digits[--n];
  key[at] = '\0';
}

Status LmEosTokens(const WeightFile& file, size_t vocab, int32_t* ids, size_t capacity,
                   size_t* count) {
  *count = 0;
  int64_t stored = 0;
  if (!file.GetInt(kEosCountKey, &stored).ok()) return Status::Ok();  // none recorded
  if (stored < 0 || stored > static_cast<int64_t>(kMaxEosTokens)) {
    return Status::Error(StatusCode::kBadFile, "metadata %s = %z is not in [0, %z]",
                         kEosCountKey, stored, kMaxEosTokens);
  }
  const size_t n = static_cast<size_t>(stored);
  for (size_t i = 0; i < n && i < capacity; ++i) {
    char key[48];
    EosIdKey(i, key, sizeof(key));
    int64_t id = 0;
    const Status st = file.GetInt(key, &id);
    if (!st.ok()) return st;
    if (id < 0 || static_cast<uint64_t>(id) >= vocab) {
      return Status::Error(StatusCode::kBadFile, "metadata %s = %z is outside the vocabulary "
                           "[0, %z)", key, id, vocab);
    }
    ids[i] = static_cast<int32_t>(id);
  }
  *count = n;
  if (n > capacity) {
    return Status::Error(StatusCode::kBufferTooSmall,
                         "the model has %z eos ids but the buffer holds %z", n, capacity);
  }
  return Status::Ok();
}

}  // namespace attnrt

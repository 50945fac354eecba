// The tokenizer C API (attnrt/tokenizer.h) over Tokenizer and LoadModelTokenizer.
#include "attnrt/tokenizer.h"

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "tokenizer/model_tokenizer.h"

struct attnrt_tokenizer {
  attnrt::Tokenizer tokenizer;
  std::string message = "ok";
  // Working memory kept from call to call.
  std::vector<uint32_t> ids;
  std::string text;

  attnrt_status Fail(attnrt_status code, const std::string& why) {
    message = why;
    return code;
  }
};

namespace {

void SetMessage(attnrt_message* message, const std::string& text) {
  if (message == nullptr) return;
  const size_t n = std::min(text.size(), sizeof(message->text) - 1);
  std::memcpy(message->text, text.data(), n);
  message->text[n] = '\0';
}

}  // namespace

extern "C" {

attnrt_status attnrt_tokenizer_open(attnrt_tokenizer** out, const void* file, size_t file_bytes,
                                    attnrt_message* message) {
  if (out == nullptr) {
    SetMessage(message, "out is NULL");
    return ATTNRT_INVALID_ARGUMENT;
  }
  *out = nullptr;
  try {
    attnrt::WeightFile weights;
    const attnrt::Status st = attnrt::WeightFile::Open(file, file_bytes, &weights);
    if (!st.ok()) {
      SetMessage(message, st.message());
      return static_cast<attnrt_status>(st.code());
    }
    auto* t = new attnrt_tokenizer;
    std::string error;
    if (!attnrt::LoadModelTokenizer(weights, "model file", &t->tokenizer, &error)) {
      delete t;
      SetMessage(message, error);
      return ATTNRT_UNSUPPORTED;
    }
    *out = t;
    SetMessage(message, "ok");
    return ATTNRT_OK;
  } catch (const std::bad_alloc&) {
    SetMessage(message, "out of memory loading the tokenizer");
    return ATTNRT_INVALID_ARGUMENT;
  }
}

void attnrt_tokenizer_close(attnrt_tokenizer* t) { delete t; }

const char* attnrt_tokenizer_message(const attnrt_tokenizer* t) {
  return t == nullptr ? "the tokenizer is NULL" : t->message.c_str();
}

attnrt_status attnrt_tokenize(attnrt_tokenizer* t, const char* text, size_t text_bytes,
                              int add_special_tokens, int32_t* ids, size_t capacity,
                              size_t* count) {
  if (t == nullptr) return ATTNRT_INVALID_ARGUMENT;
  if (count == nullptr || (text == nullptr && text_bytes != 0) ||
      (ids == nullptr && capacity != 0)) {
    return t->Fail(ATTNRT_INVALID_ARGUMENT,
                   "count is NULL, or text or ids is NULL with a non-zero size");
  }
  *count = 0;
  try {
    std::string error;
    if (!t->tokenizer.Encode(std::string_view(text_bytes == 0 ? "" : text, text_bytes),
                             add_special_tokens != 0, &t->ids, &error)) {
      return t->Fail(ATTNRT_INVALID_ARGUMENT, error);
    }
  } catch (const std::bad_alloc&) {
    return t->Fail(ATTNRT_INVALID_ARGUMENT, "out of memory while tokenizing");
  }
  *count = t->ids.size();
  if (t->ids.size() > capacity) {
    return t->Fail(ATTNRT_BUFFER_TOO_SMALL, "the text is " + std::to_string(t->ids.size()) +
                                                " tokens but ids holds " +
                                                std::to_string(capacity));
  }
  for (size_t i = 0; i < t->ids.size(); ++i) ids[i] = static_cast<int32_t>(t->ids[i]);
  return ATTNRT_OK;
}

attnrt_status attnrt_detokenize(attnrt_tokenizer* t, const int32_t* ids, size_t count,
                                int skip_special_tokens, char* text, size_t capacity,
                                size_t* length) {
  if (t == nullptr) return ATTNRT_INVALID_ARGUMENT;
  if (length == nullptr || (ids == nullptr && count != 0) || (text == nullptr && capacity != 0)) {
    return t->Fail(ATTNRT_INVALID_ARGUMENT,
                   "length is NULL, or ids or text is NULL with a non-zero size");
  }
  *length = 0;
  try {
    t->ids.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (ids[i] < 0) {
        return t->Fail(ATTNRT_INVALID_ARGUMENT, "ids[" + std::to_string(i) + "] = " +
                                                    std::to_string(ids[i]) + " is negative");
      }
      t->ids[i] = static_cast<uint32_t>(ids[i]);
    }
    std::string error;
    if (!t->tokenizer.Decode(t->ids, skip_special_tokens != 0, &t->text, &error)) {
      return t->Fail(ATTNRT_INVALID_ARGUMENT, error);
    }
  } catch (const std::bad_alloc&) {
    return t->Fail(ATTNRT_INVALID_ARGUMENT, "out of memory while detokenizing");
  }
  *length = t->text.size();
  if (t->text.size() + 1 > capacity) {
    return t->Fail(ATTNRT_BUFFER_TOO_SMALL, "the text is " + std::to_string(t->text.size()) +
                                                " bytes and its NUL, but text holds " +
                                                std::to_string(capacity));
  }
  std::memcpy(text, t->text.data(), t->text.size());
  text[t->text.size()] = '\0';
  return ATTNRT_OK;
}

}  // extern "C"

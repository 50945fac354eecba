// What the firmware images of tests/firmware share: the model embedded by `attnrt embed`
// (model_data.h, one copy per image), opened in place and loaded, and console helpers.
#pragma once

#include <stddef.h>

#include "attnrt/models/model.h"
#include "attnrt/runtime/status.h"
#include "attnrt/runtime/weight_file.h"
#include "model_data.h"
#include "semihost.h"

namespace attnrt_fw {

inline void Print(const char* text) { semihost_write0(text); }

inline void PrintSize(const char* label, size_t value) {
  Print(label);
  semihost_write_size(value);
}

// Prints "fw: FAIL: <what>: <status message>" and returns main's failure code.
inline int Fail(const char* what, const attnrt::Status& status) {
  Print("fw: FAIL: ");
  Print(what);
  Print(": ");
  Print(status.message());
  Print("\n");
  return 1;
}

// Validates the flash copy of the model and finds its tensors; no byte is copied.
inline attnrt::Status OpenEmbeddedModel(attnrt::WeightFile* file, attnrt::Model* model) {
  ATTNRT_RETURN_IF_ERROR(
      attnrt::WeightFile::Open(attnrt_model_data, sizeof(attnrt_model_data), file));
  return attnrt::LoadModel(*file, model);
}

}  // namespace attnrt_fw

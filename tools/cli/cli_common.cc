// Shared CLI helpers (see cli_common.h).
#include "cli/cli_common.h"

#include <unistd.h>

#include <cstdint>
#include <iostream>

#include <new>
#include <stdexcept>

#include "attnrt/runtime/checked_math.h"
#include "output/output_file.h"

namespace attnrt::cli {

std::string Printable(const std::string& text, bool keep_newlines) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if ((c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

int ReportError(const std::string& command, const std::string& message) {
  std::cerr << "attnrt " << command << ": error: " << Printable(message, true) << "\n";
  return kExitFailure;
}

int ReportStatus(const std::string& command, const Status& status) {
  return ReportError(command, status.message());
}

bool LoadNpy(const std::string& path, const std::string& role, npy::Array* out,
             std::string* error) {
  std::string detail;
  if (!npy::ReadFile(path, out, &detail)) {
    *error = role + " " + detail;
    return false;
  }
  return true;
}

bool ToTensorShape(const std::vector<size_t>& dims, const std::string& role, TensorShape* out,
                   std::string* error) {
  if (dims.size() > TensorShape::kMaxRank) {
    *error = role + " has rank " + std::to_string(dims.size()) + " " + npy::ShapeString(dims) +
             "; at most 4 dimensions (B, H, rows, cols) are supported";
    return false;
  }
  out->rank = dims.size();
  for (size_t i = 0; i < dims.size(); ++i) out->dims[i] = dims[i];
  return true;
}

std::vector<size_t> ToVector(const TensorShape& shape) {
  return std::vector<size_t>(shape.dims, shape.dims + shape.rank);
}

TensorShape Shape4(size_t batch, size_t heads, size_t rows, size_t cols) {
  TensorShape s;
  s.rank = 4;
  s.dims[0] = batch;
  s.dims[1] = heads;
  s.dims[2] = rows;
  s.dims[3] = cols;
  return s;
}

size_t MachineMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  size_t bytes = 0;
  if (pages <= 0 || page_size <= 0 ||
      !CheckedMul(static_cast<size_t>(pages), static_cast<size_t>(page_size), &bytes)) {
    return SIZE_MAX;
  }
  return bytes;
}

bool AllocateFloats(const std::vector<size_t>& shape, const std::string& role,
                    std::vector<float>* out, std::string* error) {
  size_t count = 0, bytes = 0;
  const bool fits = CheckedProduct(shape.data(), shape.size(), &count) &&
                    CheckedMul(count, sizeof(float), &bytes);
  // Zero-filling a buffer larger than the machine's memory would not fail cleanly
  // (overcommit hands out the pages, then the OOM killer ends the process): refuse it.
  const size_t memory = MachineMemoryBytes();
  if (fits && bytes > memory) {
    *error = "cannot allocate the " + role + " " + npy::ShapeString(shape) + " float32: " +
             std::to_string(bytes) + " bytes, more than this machine's " + std::to_string(memory) +
             " bytes of memory";
    return false;
  }
  if (fits) {
    try {
      out->assign(count, 0.0f);
      return true;
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
  }
  *error = "cannot allocate the " + role + " " + npy::ShapeString(shape) + " float32 (" +
           (fits ? std::to_string(bytes) + " bytes" : std::string("more bytes than size_t counts")) +
           ")";
  return false;
}

std::FILE* ProseStream(bool json) { return json ? stderr : stdout; }

std::string RunFailureMessage(const Status& status, const PlannedArena& plan) {
  if (status.code() != StatusCode::kArenaTooSmall) return status.message();
  std::string detail = status.message();
  const std::string prefix = "arena too small: ";
  if (detail.compare(0, prefix.size(), prefix) == 0) detail = detail.substr(prefix.size());
  // Every part is named, so the sum is the total the message states (issue 34).
  std::string parts;
  size_t sum = 0;
  const auto add = [&](const char* name, size_t bytes, bool always) {
    if (bytes == 0 && !always) return;
    parts += (parts.empty() ? "" : " + ") + std::string(name) + " " + std::to_string(bytes);
    sum += bytes;
  };
  add("kv cache", plan.kv_cache_bytes, false);
  add("rope table", plan.rope_table_bytes, false);
  add("activations", plan.activation_bytes, false);
  add("scratch", plan.scratch_bytes, true);
  if (sum < plan.arena_bytes) add("alignment", plan.arena_bytes - sum, true);
  return "arena too small: the plan needs " + std::to_string(plan.arena_bytes) + " bytes (" + parts +
         "), have " + std::to_string(plan.have_bytes) + " (failed allocating: " + detail + ")";
}

bool CheckOutputPaths(const std::vector<PathArg>& inputs, const std::vector<PathArg>& outputs,
                      std::string* error) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const PathArg& out = outputs[i];
    if (out.path.empty()) continue;
    for (const PathArg& in : inputs) {
      if (!in.path.empty() && SameFile(out.path, in.path)) {
        *error = std::string(out.option) + " " + out.path + " is the same file as " + in.option +
                 " " + in.path + ": refusing to overwrite an input";
        return false;
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].path.empty() && SameFile(out.path, outputs[j].path)) {
        *error = std::string(out.option) + " and " + outputs[j].option + " name the same file " +
                 out.path;
        return false;
      }
    }
  }
  return true;
}

}  // namespace attnrt::cli

// Helpers every attnrt subcommand shares: error reporting, .npy <-> shapes.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "attnrt/runtime/status.h"
#include "attnrt/runtime/tensor_shape.h"
#include "host/with_path.h"  // WithPath: the JSON and npy readers name their file themselves
#include "npy/npy.h"

namespace attnrt::cli {

// Exit code for a request the runtime refused or for bad input files.
constexpr int kExitFailure = 1;

// Untrusted bytes (tensor names, metadata, paths) as they may reach a terminal:
// control characters (ESC sequences, carriage returns, ...) become \xNN;
// newlines too unless keep_newlines (messages that are laid out on lines).
std::string Printable(const std::string& text, bool keep_newlines = false);

// Prints "attnrt <command>: error: <message>" to stderr (Printable, lines kept);
// returns kExitFailure.
int ReportError(const std::string& command, const std::string& message);
int ReportStatus(const std::string& command, const Status& status);


// Reads a .npy file; `role` ("query", "mask", ...) prefixes error messages.
bool LoadNpy(const std::string& path, const std::string& role, npy::Array* out,
             std::string* error);

// A .npy shape as a TensorShape; fails for rank > 4.
bool ToTensorShape(const std::vector<size_t>& dims, const std::string& role, TensorShape* out,
                   std::string* error);
std::vector<size_t> ToVector(const TensorShape& shape);
// A (batch, heads, rows, cols) shape.
TensorShape Shape4(size_t batch, size_t heads, size_t rows, size_t cols);

// The machine's physical memory in bytes (SIZE_MAX when unknown).
size_t MachineMemoryBytes();

// Sizes *out to the element count of `shape`; false, with a message naming `role`,
// the shape and its bytes, when the count overflows or the memory cannot be had.
bool AllocateFloats(const std::vector<size_t>& shape, const std::string& role,
                    std::vector<float>* out, std::string* error);

// Where a command's human-readable lines go: stdout, or stderr when --json keeps
// stdout for the JSON alone.
std::FILE* ProseStream(bool json);

// The arena a command planned and handed to a run.
struct PlannedArena {
  size_t activation_bytes = 0;
  size_t scratch_bytes = 0;
  size_t arena_bytes = 0;  // what the plan needs: the parts below plus alignment
  size_t have_bytes = 0;   // the arena the run got
  size_t kv_cache_bytes = 0;    // language models: the session's cache and RoPE table
  size_t rope_table_bytes = 0;
};
// The message of a failed run. An arena too small is reported with the whole
// plan, not only the running total at the allocation that failed, and its parts
// add up to the total: "arena too small: the plan needs N bytes (kv cache K +
// rope table R + activations A + scratch S [+ alignment P]), have M (failed
// allocating: need X bytes, have M)"; parts that are 0 are left out.
std::string RunFailureMessage(const Status& status, const PlannedArena& plan);

// A named file argument of a command, e.g. {"--out", path}.
struct PathArg {
  const char* option;
  const std::string& path;
};
// Refuses, before any work, an output that names an input or another output
// (also through links or another spelling): writing it would destroy a file
// the command reads, or one output would silently replace the other. Empty
// paths (options not given) are skipped.
bool CheckOutputPaths(const std::vector<PathArg>& inputs, const std::vector<PathArg>& outputs,
                      std::string* error);

}  // namespace attnrt::cli

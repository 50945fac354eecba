// A language-model session for the CLI: plan, allocate the arena the plan asks
// for, start. Shared by `run --tokens`, `generate`, `bench lm` and `plan --max-seq`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attnrt/models/language_model.h"
#include "cli/cli_common.h"
#include "host/aligned_buffer.h"

namespace attnrt::cli {

struct LmRunner {
  LmShape shape;  // as resolved (chunk filled in)
  LmPlan plan;
  std::unique_ptr<AlignedBuffer> buffer;
  std::unique_ptr<Arena> arena;
  LmSession session;
};

// Plans for `workers` workers, allocates an arena of the plan's size (or
// arena_bytes when non-zero) and starts the session. On failure *error says why.
bool StartLm(const Model& model, const LmShape& shape, size_t workers, size_t arena_bytes,
             LmRunner* runner, std::string* error);

// The ids of a (sequences, tokens) int32/int64 array as int32, or an error naming
// the first id that does not fit the vocabulary (by value and position).
bool TokenIds(const std::vector<int64_t>& ids, size_t tokens, size_t vocab,
              std::vector<int32_t>* out, std::string* error);

// The planned regions, one line each, for prose output.
std::string LmPlanText(const LmPlan& plan);

// The plan's parts, for RunFailureMessage, with `have_bytes` the arena the session got.
PlannedArena LmPlannedArena(const LmPlan& plan, size_t have_bytes);

}  // namespace attnrt::cli

// LmRunner (see lm_runner.h).
#include "cli/lm_runner.h"

#include <cstdio>

#include "cli/cli_common.h"

namespace attnrt::cli {

bool StartLm(const Model& model, const LmShape& shape, size_t workers, size_t arena_bytes,
             LmRunner* r, std::string* error) {
  Status st = CheckLmShape(model, shape, &r->shape);
  if (st.ok()) st = PlanLm(model, r->shape, workers, &r->plan);
  if (!st.ok()) {
    *error = st.message();
    return false;
  }
  const size_t bytes = arena_bytes != 0 ? arena_bytes : r->plan.arena_bytes;
  r->buffer = std::make_unique<AlignedBuffer>(bytes);
  if (!r->buffer->ok()) {
    *error = "cannot allocate the arena of " + std::to_string(bytes) + " bytes";
    return false;
  }
  r->arena = std::make_unique<Arena>(r->buffer->data(), bytes);
  st = r->session.Start(model, r->shape, r->arena.get());
  if (!st.ok()) {
    *error = RunFailureMessage(st, LmPlannedArena(r->plan, bytes));
    return false;
  }
  return true;
}

bool TokenIds(const std::vector<int64_t>& ids, size_t tokens, size_t vocab,
              std::vector<int32_t>* out, std::string* error) {
  out->resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<uint64_t>(ids[i]) >= vocab) {
      *error = "token id " + std::to_string(ids[i]) + " at (sequence " +
               std::to_string(tokens == 0 ? 0 : i / tokens) + ", token " +
               std::to_string(tokens == 0 ? 0 : i % tokens) + ") is outside the vocabulary [0, " +
               std::to_string(vocab) + ")";
      return false;
    }
    (*out)[i] = static_cast<int32_t>(ids[i]);
  }
  return true;
}

PlannedArena LmPlannedArena(const LmPlan& p, size_t have_bytes) {
  PlannedArena a;
  a.kv_cache_bytes = p.kv_cache_bytes;
  a.rope_table_bytes = p.rope_table_bytes;
  a.activation_bytes = p.activation_bytes;
  a.scratch_bytes = p.scratch_bytes;
  a.arena_bytes = p.arena_bytes;
  a.have_bytes = have_bytes;
  return a;
}

std::string LmPlanText(const LmPlan& p) {
  char text[512];
  std::snprintf(text, sizeof(text),
                "  kv cache    %12zu bytes\n  rope table  %12zu bytes\n"
                "  activations %12zu bytes\n  scratch     %12zu bytes\n  arena       %12zu bytes\n",
                p.kv_cache_bytes, p.rope_table_bytes, p.activation_bytes, p.scratch_bytes,
                p.arena_bytes);
  return text;
}

}  // namespace attnrt::cli

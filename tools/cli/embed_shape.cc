// See embed_shape.h.
#include "cli/embed_shape.h"

#include <cstdint>

#include "attnrt/models/language_model.h"

namespace attnrt::cli {
namespace {

// Past this an arena size is a typo, not a board (the bound --arena-bytes has too).
constexpr uint64_t kMaxArenaBytes = uint64_t{1} << 48;
constexpr size_t kMaxThreads = 1024;  // ThreadCount()'s bound

}  // namespace

bool CheckEmbedShape(const Model& model, const std::string& what, size_t batch, size_t seq,
                     KvType kv_type, size_t threads, size_t arena_bytes, std::string* error) {
  const bool planned = threads != 0 || arena_bytes != 0;
  const bool lm = ArchitectureIsLanguageModel(model.config.arch);
  const char* seq_name = lm ? "max_seq" : "seq";
  if (batch == 0 || seq == 0) {
    *error = what + ": batch (" + std::to_string(batch) + ") and " + seq_name + " (" +
             std::to_string(seq) + ") must be at least 1";
    return false;
  }
  if (planned && (threads == 0 || threads > kMaxThreads)) {
    *error = what + ": threads " + std::to_string(threads) + " is not in 1.." +
             std::to_string(kMaxThreads);
    return false;
  }
  if (planned && (arena_bytes == 0 || arena_bytes > kMaxArenaBytes)) {
    *error = what + ": arena_bytes " + std::to_string(arena_bytes) + " is not in 1.." +
             std::to_string(kMaxArenaBytes);
    return false;
  }
  // What the arena must hold whatever the target's vector width (kernel scratch is the
  // only part that varies): the cache, tables and activations.
  size_t fixed = 0;
  if (lm) {
    if (batch != 1) {
      *error = what + ": batch " + std::to_string(batch) +
               " for a language model, whose C session (attnrt_lm) is batch 1";
      return false;
    }
    LmShape shape;
    shape.max_seq = seq;
    shape.kv_type = kv_type;
    LmPlan plan;
    const Status st = PlanLm(model, shape, threads == 0 ? 1 : threads, &plan);
    if (!st.ok()) {
      *error = what + ": " + st.message();
      return false;
    }
    fixed = plan.arena_bytes - plan.scratch_bytes;
  } else {
    ModelPlan plan;
    const Status st = PlanModel(model, batch, seq, threads == 0 ? 1 : threads, &plan);
    if (!st.ok()) {
      *error = what + ": " + st.message();
      return false;
    }
    fixed = plan.activation_bytes;
  }
  if (planned && arena_bytes < fixed) {
    *error = what + ": arena_bytes " + std::to_string(arena_bytes) + " is less than the " +
             std::to_string(fixed) + " bytes this model needs at batch " + std::to_string(batch) +
             ", " + seq_name + " " + std::to_string(seq) + " before any kernel scratch";
    return false;
  }
  return true;
}

}  // namespace attnrt::cli

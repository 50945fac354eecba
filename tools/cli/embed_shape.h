// CheckEmbedShape: what `attnrt embed` writes into a firmware header (the shape to plan for,
// or a target's plan from --plan-from) must be something the model can run, checked here
// rather than discovered on the board (issue 34: --seq past max_seq_len, --batch 2 for a
// language model whose C session is batch 1, a plan with zero or absurd fields).
#pragma once

#include <cstddef>
#include <string>

#include "attnrt/kernels/kv_type.h"
#include "attnrt/models/model.h"

namespace attnrt::cli {

// `what` names the source in messages ("--seq/--batch", "plan 'p.json'"). threads and
// arena_bytes are the plan's (0 with no plan: not checked). A language model's seq is its
// max_seq, and kv_type its cache's storage (what the cache part of the arena is sized for).
// On failure *error says which field and why.
bool CheckEmbedShape(const Model& model, const std::string& what, size_t batch, size_t seq,
                     KvType kv_type, size_t threads, size_t arena_bytes, std::string* error);

}  // namespace attnrt::cli

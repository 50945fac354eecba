// Running a decoder-only language model (llama) token by token with a KV cache.
//
// A session takes everything from the caller's arena once, at Start: the KV
// cache (per layer, (batch, kv_heads, R, head_dim) keys and values) and the RoPE
// table (every position up to max_seq). Each Feed then pushes tokens through the layers in chunks of
// at most LmShape::chunk tokens, using the arena above the cache for that
// chunk's activations and releasing it before returning. Feeding a prompt is
// prefill (the flash kernel; queries and cached keys aligned lower-right, which
// is upper-left for the first chunk); feeding one token is a decode step (the
// split-over-keys decode kernel over the cache). RoPE is applied once, when a
// key enters the cache, at its absolute position.
//
// The cache holds R rows per (sequence, kv head): R = max_seq without a sliding
// window. With the model's sliding_window W a query sees itself and the W - 1
// positions before it, so a chunk of up to `chunk` tokens needs the W - 1 rows
// before it and its own: R = min(max_seq, W - 1 + chunk). Rows stay contiguous
// and in position order: when a chunk would not fit behind the cached rows, the
// last W - 1 of them move to the front first (a memmove per head, at most once
// per `chunk` tokens), so every attention call is one lower-right causal call
// over rows [0, cached + c) with window W, and the kernels skip the rows the
// window hides. (A ring buffer would save the move but split the keys of a call
// into two ranges, which one kernel call cannot take.) The window applies to
// every call, also while nothing has been dropped yet. A session still takes up
// to max_seq tokens in all.
//
// The cache stores keys and values as LmShape::kv_type (kernels/kv_store.h): f32,
// f16, or q8 (int8 with one f32 scale per row of head_dim values); the attention
// kernels widen them in registers. Rows are narrowed once, when they enter the cache.
//
// PlanLm runs the same code with a measuring arena, so its arena_bytes is the
// high-water mark of any session of that shape, and kv_cache_bytes is exactly
// 2 * n_layers * batch * R * kv_heads * (head_dim * element bytes + scale bytes),
// element bytes 4 / 2 / 1 for f32 / f16 / q8 and scale bytes 4 for q8, else 0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnrt/kernels/kv_store.h"
#include "attnrt/models/model.h"

namespace attnrt {

// Most tokens a chunk holds unless the caller says otherwise: enough rows for
// the linear kernels' packed path to pay off, few enough to keep activations small.
constexpr size_t kDefaultLmChunk = 256;

struct LmShape {
  size_t batch = 1;    // sequences decoded side by side (all at the same position)
  size_t max_seq = 0;  // positions the cache holds per sequence (<= the model's max_seq_len)
  size_t chunk = 0;    // most tokens per pass through the layers; 0: min(max_seq, kDefaultLmChunk)
  // Feed returns the logits of every fed token instead of only the last one's.
  bool all_logits = false;
  // Storage of the KV cache: kF32, kF16 or kQ8 (IsKvType).
  KvType kv_type = KvType::kF32;
  // What integer weights (q8, q4_0, q4_K, q6_K) multiply (model.h's ModelInput::linear_activations):
  // kF32 is the exact path. Part of the shape because it picks the Linear kernel, and so
  // the kernel scratch PlanLm counts.
  LinearActivations linear_activations = LinearActivations::kAuto;
};

struct LmPlan {
  size_t cache_rows = 0;        // R above: positions the cache keeps per sequence
  size_t kv_cache_bytes = 0;    // keys and values of every layer, exactly as documented above
  size_t rope_table_bytes = 0;  // cos/sin of every position
  size_t activation_bytes = 0;  // the largest chunk's activations
  size_t scratch_bytes = 0;     // the largest per-step need beyond them (kernel scratch)
  size_t arena_bytes = 0;       // what the arena must hold (sum of the above plus alignment)
};

// Checks the model is a language model and the shape fits it; fills the chunk
// default in *resolved (may be null).
Status CheckLmShape(const Model& model, const LmShape& shape, LmShape* resolved);

// Exact arena bytes for a session of this shape run with `workers` workers.
Status PlanLm(const Model& model, const LmShape& shape, size_t workers, LmPlan* plan);

class LmSession {
 public:
  // Takes the cache and RoPE table from `arena` (which must outlive the session
  // and hold PlanLm's arena_bytes) and sets the position to 0. The model's
  // weights must outlive the session too.
  Status Start(const Model& model, const LmShape& shape, Arena* arena);

  // Appends n tokens to each of the batch sequences: tokens holds batch rows of n
  // ids (row b at tokens + b * n), each in [0, vocab). Writes, unless logits is
  // null, the next-token logits: (batch, vocab) for the last fed token, or
  // (batch, n, vocab) for every one with LmShape::all_logits. Refused before any
  // work (nothing changes) when an id is out of range or position + n > max_seq.
  Status Feed(const int32_t* tokens, size_t n, float* logits, Executor* executor);

  // Back to position 0 (the cache is overwritten as tokens are fed again).
  void Reset() {
    position_ = 0;
    cached_ = 0;
  }
  size_t position() const { return position_; }
  size_t max_seq() const { return shape_.max_seq; }
  const Model* model() const { return model_; }

 private:
  friend Status PlanLm(const Model&, const LmShape&, size_t, LmPlan*);
  // One chunk of c tokens per sequence (row b at tokens + b * token_stride) at
  // the current position; logits as in Feed, with the row of fed token t of
  // sequence b at logits + (b * logits_rows + first_row + t) * vocab.
  Status RunChunk(const int32_t* tokens, size_t token_stride, size_t c, float* logits,
                  size_t logits_rows, size_t first_row, Executor* executor);

  const Model* model_ = nullptr;
  LmShape shape_;
  Arena* arena_ = nullptr;
  // The cache: 2 * n_layers blocks (layer l's keys, then its values) of
  // layer_values_ bytes, after 2 * n_layers blocks of layer_scales_ q8 scales.
  float* kv_scales_ = nullptr;
  uint8_t* kv_values_ = nullptr;
  float* rope_table_ = nullptr;
  float* rope_local_table_ = nullptr;  // the sliding-window layers' (Gemma 3), or rope_table_
  size_t layer_values_ = 0;      // bytes of one layer's keys (or values)
  size_t layer_scales_ = 0;      // floats of their q8 scales (0 unless q8)
  size_t cache_rows_ = 0;        // R: rows per (sequence, kv head)
  size_t position_ = 0;          // tokens fed per sequence
  size_t cached_ = 0;            // rows in use: positions position_ - cached_ .. position_ - 1
  size_t chunk_activation_bytes_ = 0;  // what the last chunk's activations took
};

}  // namespace attnrt

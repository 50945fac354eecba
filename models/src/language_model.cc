// LmSession and PlanLm (see language_model.h): the llama forward pass over a
// chunk of tokens, written against the step API so one code path plans and runs.
//
// Layout of a chunk: activations are row-major (batch * c, width), sequence b's
// rows first. q, k and v land side by side in one (rows, (H + 2 KV) * hd) buffer;
// RoPE rotates q and k together (they are adjacent), then k and v are copied
// into the cache, whose per-head rows are contiguous so a decode step streams
// each kv head's keys and values. SDPA reads q in place through strides and
// writes the heads into a (rows, H * hd) buffer. With a sliding window the cache
// keeps R < max_seq rows and moves its newest W - 1 to the front when a chunk
// would not fit (language_model.h).
#include "attnrt/models/language_model.h"

#include <cmath>
#include <cstring>

#include "architecture_record.h"
#include "attnrt/runtime/checked_math.h"
#include "forward_steps.h"
#include "lm_recipe.h"

namespace attnrt {
namespace {

// R: the rows a session of a resolved shape keeps per (sequence, kv head). With a
// window W, the first query of a chunk of up to `chunk` tokens needs the W - 1
// rows before it; nothing older is ever read again. (W <= 2^24 and chunk <=
// max_seq <= 2^24, checked when the config and shape were read: no overflow.)
// A cache keeps fewer than max_seq rows only when every layer has the window (a
// global layer of Gemma 3 reads them all).
bool WindowedCache(const ModelConfig& c) {
  return c.sliding_window != 0 && c.window_layers == AllLayers(c.num_layers);
}

size_t CacheRows(const ModelConfig& c, const LmShape& s) {
  if (!WindowedCache(c)) return s.max_seq;
  const size_t rows = c.sliding_window - 1 + s.chunk;
  return rows < s.max_seq ? rows : s.max_seq;
}

// One layer's keys (or values): batch * R * kv_heads rows of head_dim elements of
// the cache type, in *value_bytes, and their q8 scales (one float per row, 0 unless
// q8) in *scale_floats.
bool LayerCacheSize(const ModelConfig& c, const LmShape& s, size_t* value_bytes,
                    size_t* scale_floats) {
  size_t rows;
  if (!CheckedMul(s.batch, CacheRows(c, s), &rows) || !CheckedMul(rows, c.kv_heads, &rows) ||
      !CheckedMul(rows, c.qk_dim, value_bytes) ||
      !CheckedMul(*value_bytes, KvElementBytes(s.kv_type), value_bytes)) {
    return false;
  }
  *scale_floats = s.kv_type == KvType::kQ8 ? rows : 0;
  return true;
}

// Moves rows [drop, drop + keep) of every (layer, keys / values, sequence, kv head)
// block of `rows` rows to [0, keep), and their q8 scales. The ranges overlap when
// drop < keep.
void MoveRowsToFront(const ModelConfig& c, const LmShape& s, size_t rows, size_t drop,
                     size_t keep, uint8_t* values, float* scales, Forward* f) {
  const size_t row_bytes = c.qk_dim * KvElementBytes(s.kv_type);
  const size_t blocks = 2 * c.num_layers * s.batch * c.kv_heads;  // fits: the cache was allocated
  for (size_t i = 0; i < blocks; ++i) {
    uint8_t* block = values + i * rows * row_bytes;
    f->MoveBytes(block, block + drop * row_bytes, keep * row_bytes);
    if (s.kv_type == KvType::kQ8) {
      f->MoveBytes(scales + i * rows, scales + i * rows + drop, keep * sizeof(float));
    }
  }
}

// The recipe's norm of `rows` rows of n floats (weights `weight`, `bias`).
void Norm(const LmRecipe& recipe, Forward* f, const float* x, size_t x_stride, size_t rows,
          size_t n, const float* weight, const float* bias, float eps, float* y) {
  if (recipe.norm == NormKind::kLayerNorm) {
    f->LayerNorm(x, x_stride, rows, n, weight, bias, eps, y, n);
  } else {
    f->RmsNorm(x, x_stride, rows, n, weight, eps, y, n);
  }
}

// The recipe's feed-forward block: h (rows x dim) -> h, through gate / up
// (rows x ff each).
Status Mlp(const LmRecipe& recipe, const LayerWeights& w, size_t dim, size_t ff, size_t rows,
           float* h, float* gate, float* up, Forward* f) {
  Status st = f->Linear(w.ff1, h, dim, rows, gate, ff);
  switch (recipe.mlp) {
    case MlpKind::kSwiGlu:
      if (st.ok()) st = f->Linear(w.ff3, h, dim, rows, up, ff);
      if (st.ok()) st = f->SiluMul(gate, up, rows * ff);
      break;
    case MlpKind::kGeGluTanh:
      if (st.ok()) st = f->Linear(w.ff3, h, dim, rows, up, ff);
      if (st.ok()) st = f->GeluTanhMul(gate, up, rows * ff);
      break;
    case MlpKind::kGeluTanh:
      f->Activate(Activation::kGeluTanh, gate, rows * ff);
      break;
    case MlpKind::kGeluErf:
      f->Activate(Activation::kGelu, gate, rows * ff);
      break;
  }
  if (st.ok()) st = f->Linear(w.ff2, gate, ff, rows, h, dim);
  return st;
}

}  // namespace

Status CheckLmShape(const Model& model, const LmShape& shape, LmShape* resolved) {
  const ModelConfig& c = model.config;
  if (!ArchitectureIsLanguageModel(c.arch)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%s is not a language model (token ids in, logits out)",
                         ArchitectureName(c.arch));
  }
  if (shape.batch == 0 || shape.max_seq == 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "a language model session needs batch and max_seq >= 1 (got %z, %z)",
                         shape.batch, shape.max_seq);
  }
  if (shape.max_seq > c.max_seq_len) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%z positions is more than the model's max_seq_len %z", shape.max_seq,
                         c.max_seq_len);
  }
  if (!IsKvType(shape.kv_type)) {
    return Status::Error(StatusCode::kUnsupported,
                         "a KV cache of type code %z is not supported (f32, f16 or q8)",
                         static_cast<size_t>(shape.kv_type));
  }
  ATTNRT_RETURN_IF_ERROR(CheckLinearActivations(shape.linear_activations));
  LmShape s = shape;
  if (s.chunk == 0) s.chunk = s.max_seq < kDefaultLmChunk ? s.max_seq : kDefaultLmChunk;
  if (s.chunk > s.max_seq) {
    return Status::Error(StatusCode::kInvalidArgument, "chunk %z is longer than max_seq %z",
                         s.chunk, s.max_seq);
  }
  size_t value_bytes, scale_floats, bytes, scale_bytes, rows, widest;
  const size_t ld = (c.heads + 2 * c.kv_heads) * c.qk_dim;
  if (!LayerCacheSize(c, s, &value_bytes, &scale_floats) ||
      !CheckedMul(scale_floats, sizeof(float), &scale_bytes) ||
      !CheckedAdd(value_bytes, scale_bytes, &bytes) ||
      !CheckedMul(bytes, 2 * c.num_layers, &bytes) || !CheckedMul(s.batch, s.chunk, &rows) ||
      !CheckedMul(rows, ld + 2 * c.ff_dim + 3 * c.model_dim + c.vocab_size, &widest) ||
      !CheckedMul(widest, sizeof(float), &widest) ||
      (c.rotary_dim != 0 && RopeTableFloats(s.max_seq, c.rotary_dim) == 0)) {
    return Status::Error(StatusCode::kOverflow,
                         "batch %z x max_seq %z overflows the KV cache or activation size",
                         s.batch, s.max_seq);
  }
  if (resolved != nullptr) *resolved = s;
  return Status::Ok();
}

Status LmSession::Start(const Model& model, const LmShape& shape, Arena* arena) {
  *this = LmSession{};
  LmShape s;
  ATTNRT_RETURN_IF_ERROR(CheckLmShape(model, shape, &s));
  const ModelConfig& c = model.config;
  size_t value_bytes = 0, scale_floats = 0;
  LayerCacheSize(c, s, &value_bytes, &scale_floats);  // checked by CheckLmShape
  // Scales first: floats stay 4-byte aligned whatever the size of the values after them.
  const size_t blocks = 2 * c.num_layers;
  void* cache = nullptr;
  ATTNRT_RETURN_IF_ERROR(arena->Allocate(blocks * (scale_floats * sizeof(float) + value_bytes),
                                         kArenaAlignment, &cache));
  // RoPE's angles: one table, or two when the sliding-window layers have a theta of
  // their own (Gemma 3; those are not scaled). None with learned positions.
  Forward f(arena, nullptr);
  float *table = nullptr, *local_table = nullptr;
  if (c.rotary_dim != 0) {
    const size_t floats = RopeTableFloats(s.max_seq, c.rotary_dim);
    ATTNRT_RETURN_IF_ERROR(f.Alloc(1, floats, &table));
    if (!f.measuring()) RopeTable(s.max_seq, c.rotary_dim, c.rope_theta, table, c.rope_scaling);
    local_table = table;
    if (c.rope_local_theta > 0.0) {
      ATTNRT_RETURN_IF_ERROR(f.Alloc(1, floats, &local_table));
      if (!f.measuring()) RopeTable(s.max_seq, c.rotary_dim, c.rope_local_theta, local_table);
    }
  }
  model_ = &model;
  shape_ = s;
  arena_ = arena;
  kv_scales_ = static_cast<float*>(cache);
  kv_values_ = static_cast<uint8_t*>(cache) + blocks * scale_floats * sizeof(float);
  rope_table_ = table;
  rope_local_table_ = local_table;
  layer_values_ = value_bytes;
  layer_scales_ = scale_floats;
  cache_rows_ = CacheRows(c, s);
  position_ = 0;
  cached_ = 0;
  return Status::Ok();
}

Status LmSession::Feed(const int32_t* tokens, size_t n, float* logits, Executor* executor) {
  if (model_ == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "the language model session is not started");
  }
  const ModelConfig& c = model_->config;
  if (n == 0 || tokens == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "nothing to feed (%z tokens)", n);
  }
  if (n > shape_.max_seq - position_) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "feeding %z tokens at position %z would pass max_seq %z", n, position_,
                         shape_.max_seq);
  }
  for (size_t b = 0; b < shape_.batch; ++b) {
    for (size_t t = 0; t < n; ++t) {
      const int32_t id = tokens[b * n + t];
      if (id < 0 || static_cast<size_t>(id) >= c.vocab_size) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "token id %s%z at (sequence %z, token %z) is outside the vocabulary "
                             "[0, %z)",
                             id < 0 ? "-" : "",
                             static_cast<size_t>(id < 0 ? -static_cast<int64_t>(id) : id), b, t,
                             c.vocab_size);
      }
    }
  }
  for (size_t t0 = 0; t0 < n; t0 += shape_.chunk) {
    const size_t cn = n - t0 < shape_.chunk ? n - t0 : shape_.chunk;
    const bool last = t0 + cn == n;
    // Only the last chunk's last token has next-token logits, unless all are wanted.
    float* out = (shape_.all_logits || last) ? logits : nullptr;
    ATTNRT_RETURN_IF_ERROR(RunChunk(tokens + t0, n, cn, out, n, t0, executor));
  }
  return Status::Ok();
}

Status LmSession::RunChunk(const int32_t* tokens, size_t token_stride, size_t cn, float* logits,
                           size_t logits_rows, size_t first_row, Executor* executor) {
  const Model& m = *model_;
  const ModelConfig& c = m.config;
  const LmRecipe& recipe = *RecordFor(c.arch).lm_recipe;
  const size_t B = shape_.batch, R = cache_rows_, pos = position_;
  const size_t dim = c.model_dim, hd = c.qk_dim, H = c.heads, KV = c.kv_heads, ff = c.ff_dim;
  const size_t qw = H * hd, kvw = KV * hd, ld = qw + 2 * kvw, vocab = c.vocab_size;
  const size_t rows = B * cn;  // checked by CheckLmShape (cn <= chunk)
  const float eps = c.layer_norm_eps;

  Forward f(arena_, executor, shape_.linear_activations, model_);
  const size_t mark = arena_->Mark();
  float *x = nullptr, *h = nullptr, *qkv = nullptr, *att = nullptr, *gate = nullptr,
        *up = nullptr;  // set by Alloc (arm-none-eabi-gcc cannot see it)
  Status st = f.Alloc(rows, dim, &x);
  if (st.ok()) st = f.Alloc(rows, dim, &h);
  if (st.ok()) st = f.Alloc(rows, ld, &qkv);
  if (st.ok()) st = f.Alloc(rows, qw, &att);
  if (st.ok()) st = f.Alloc(rows, ff, &gate);
  if (st.ok()) st = f.Alloc(rows, ff, &up);
  if (!st.ok()) {
    arena_->Reset(mark);
    return st;
  }
  chunk_activation_bytes_ = arena_->used() - mark;

  // Without a window R = max_seq, which Feed keeps cached_ + cn (= position + cn)
  // within. With one, keep the W - 1 rows the chunk's first query may still see:
  // cached_ <= W - 1 and cn <= chunk then fit R = W - 1 + chunk.
  if (cached_ + cn > R) {
    const size_t keep = cached_ < c.sliding_window - 1 ? cached_ : c.sliding_window - 1;
    MoveRowsToFront(c, shape_, R, cached_ - keep, keep, kv_values_, kv_scales_, &f);
    cached_ = keep;  // consistent even if a later step of this chunk fails
  }
  const size_t first = cached_;  // the chunk's rows in the cache: first .. first + cn - 1

  for (size_t b = 0; b < B; ++b) {
    f.Gather(m.token_embedding, tokens + b * token_stride, cn, dim, x + b * cn * dim, dim);
  }
  if (recipe.embedding_scale == EmbeddingScale::kSqrtDim) {
    f.Scale(x, rows * dim, std::sqrt(static_cast<float>(dim)));
  }
  if (recipe.position == PositionKind::kLearned) {
    for (size_t r = 0; r < rows; ++r) f.Add(x + r * dim, m.pos_embedding + (pos + r % cn) * dim, dim);
  }

  SdpaParams p;
  p.batch = B;
  p.q_heads = H;
  p.kv_heads = KV;
  p.q_len = cn;
  p.kv_len = first + cn;
  p.qk_dim = p.v_dim = hd;
  p.scale = c.attention_scale > 0.0f ? c.attention_scale : DefaultSdpaScale(hd);
  p.softcap = c.attention_softcap;
  p.causal = CausalKind::kLowerRight;  // the new queries are the last rows of the cache
  // p.window: per layer below (0: none; counted from each query's own row).
  p.q = qkv;
  p.q_strides = Strides3{cn * ld, hd, ld};
  p.k_strides = p.v_strides = Strides3{KV * R * hd, R * hd, hd};
  p.kv_type = shape_.kv_type;
  p.k_scale_strides = p.v_scale_strides = Strides3{KV * R, R, 1};
  p.out = att;
  p.out_strides = Strides3{cn * qw, hd, qw};

  for (size_t l = 0; l < c.num_layers && st.ok(); ++l) {
    const LayerWeights& w = m.layers[l];
    uint8_t* keys = kv_values_ + 2 * l * layer_values_;
    uint8_t* values = keys + layer_values_;
    float* key_scales = kv_scales_ + 2 * l * layer_scales_;
    float* value_scales = key_scales + layer_scales_;
    const size_t elem = KvElementBytes(shape_.kv_type);
    const bool windowed = (c.window_layers >> l & 1) != 0;
    Norm(recipe, &f, x, dim, rows, dim, w.norm1_weight, w.norm1_bias, eps, h);
    st = f.Linear(w.q, h, dim, rows, qkv, ld);
    if (st.ok()) st = f.Linear(w.k, h, dim, rows, qkv + qw, ld);
    if (st.ok()) st = f.Linear(w.v, h, dim, rows, qkv + qw + kvw, ld);
    if (!st.ok()) break;
    if (recipe.qk_norm) {  // each q and k head by itself: H + KV rows of hd per token
      for (size_t r = 0; r < rows; ++r) {
        f.RmsNorm(qkv + r * ld, hd, H, hd, w.q_norm_weight, eps, qkv + r * ld, hd);
        f.RmsNorm(qkv + r * ld + qw, hd, KV, hd, w.k_norm_weight, eps, qkv + r * ld + qw, hd);
      }
    }
    const float* table = windowed ? rope_local_table_ : rope_table_;
    for (size_t b = 0; b < B; ++b) {
      // q and k heads are adjacent in a row: one rotation covers both, unless only
      // the first rotary_dim of each head turn (Phi-3's partial rotary).
      if (recipe.position == PositionKind::kRope && c.rotary_dim == hd) {
        f.Rope(qkv + b * cn * ld, ld, cn, H + KV, hd, pos, table, c.rope_style);
      } else if (recipe.position == PositionKind::kRope) {
        for (size_t head = 0; head < H + KV; ++head) {
          f.Rope(qkv + b * cn * ld + head * hd, ld, cn, 1, c.rotary_dim, pos, table,
                 c.rope_style);
        }
      }
      // The chunk's cn keys and values of each kv head enter the cache (narrowed to
      // its type) at rows first .. first + cn - 1.
      for (size_t g = 0; g < KV; ++g) {
        const float* row = qkv + b * cn * ld + qw + g * hd;
        const size_t at = (b * KV + g) * R + first;  // row index in the layer's block
        f.StoreKv(shape_.kv_type, row, ld, cn, hd, keys + at * hd * elem,
                  layer_scales_ ? key_scales + at : nullptr);
        f.StoreKv(shape_.kv_type, row + kvw, ld, cn, hd, values + at * hd * elem,
                  layer_scales_ ? value_scales + at : nullptr);
      }
    }
    if (shape_.kv_type == KvType::kF32) {
      p.k = reinterpret_cast<const float*>(keys);
      p.v = reinterpret_cast<const float*>(values);
    } else {
      p.k_data = keys;
      p.v_data = values;
      p.k_scales = layer_scales_ ? key_scales : nullptr;
      p.v_scales = layer_scales_ ? value_scales : nullptr;
    }
    p.window = windowed ? c.sliding_window : 0;
    st = f.Sdpa(p, nullptr);
    if (st.ok()) st = f.Linear(w.o, att, qw, rows, h, dim);
    if (!st.ok()) break;
    const bool sandwich = recipe.residual == ResidualKind::kSandwich;
    if (sandwich) Norm(recipe, &f, h, dim, rows, dim, w.post_attn_norm_weight, nullptr, eps, h);
    f.Add(x, h, rows * dim);
    Norm(recipe, &f, x, dim, rows, dim, w.norm2_weight, w.norm2_bias, eps, h);
    st = Mlp(recipe, w, dim, ff, rows, h, gate, up, &f);
    if (sandwich) Norm(recipe, &f, h, dim, rows, dim, w.post_ffn_norm_weight, nullptr, eps, h);
    f.Add(x, h, rows * dim);
  }

  if (st.ok() && logits != nullptr) {
    if (shape_.all_logits) {
      Norm(recipe, &f, x, dim, rows, dim, m.final_norm_weight, m.final_norm_bias, eps, h);
      for (size_t b = 0; b < B && st.ok(); ++b) {
        st = f.Linear(m.head, h + b * cn * dim, dim, cn,
                      logits + (b * logits_rows + first_row) * vocab, vocab);
      }
    } else {
      // The last token of each sequence: rows cn - 1, 2 cn - 1, ... into B rows of h.
      Norm(recipe, &f, x + (cn - 1) * dim, cn * dim, B, dim, m.final_norm_weight,
           m.final_norm_bias, eps, h);
      st = f.Linear(m.head, h, dim, B, logits, vocab);
    }
  }
  arena_->Reset(mark);
  if (st.ok()) {
    position_ += cn;
    cached_ = first + cn;
  }
  return st;
}

Status PlanLm(const Model& model, const LmShape& shape, size_t workers, LmPlan* plan) {
  LmShape s;
  ATTNRT_RETURN_IF_ERROR(CheckLmShape(model, shape, &s));
  Arena arena = Arena::Measuring();
  PlanningExecutor executor(workers);
  LmSession session;
  ATTNRT_RETURN_IF_ERROR(session.Start(model, s, &arena));
  const size_t persistent = arena.used();
  // Any non-null addresses: a measuring pass reads no token and writes no logit.
  const int32_t* tokens = reinterpret_cast<const int32_t*>(kArenaAlignment);
  float* logits = reinterpret_cast<float*>(kArenaAlignment);
  // Every chunk length up to 32 (the attention kernel changes with the query
  // count) and the full chunk, each at the last position it can start from with
  // the fullest cache it can meet there (R - cn rows, no move), where attention
  // spans the most keys.
  size_t activation = 0;
  const auto measure = [&](size_t cn) {
    session.position_ = s.max_seq - cn;
    const size_t fullest = session.cache_rows_ - cn;
    session.cached_ = session.position_ < fullest ? session.position_ : fullest;
    const Status st = session.RunChunk(tokens, cn, cn, logits, cn, 0, &executor);
    if (session.chunk_activation_bytes_ > activation) activation = session.chunk_activation_bytes_;
    return st;
  };
  for (size_t cn = 1; cn <= s.chunk && cn <= 32; ++cn) ATTNRT_RETURN_IF_ERROR(measure(cn));
  if (s.chunk > 32) ATTNRT_RETURN_IF_ERROR(measure(s.chunk));
  const ModelConfig& c = model.config;
  plan->cache_rows = session.cache_rows_;
  plan->kv_cache_bytes =
      2 * c.num_layers * (session.layer_values_ + session.layer_scales_ * sizeof(float));
  const size_t tables = c.rotary_dim == 0 ? 0 : c.rope_local_theta > 0.0 ? 2 : 1;
  plan->rope_table_bytes = tables * RopeTableFloats(s.max_seq, c.rotary_dim) * sizeof(float);
  plan->arena_bytes = arena.high_water();
  plan->activation_bytes = activation;
  plan->scratch_bytes = plan->arena_bytes - persistent - activation;
  return Status::Ok();
}

}  // namespace attnrt

// Shape binding, validation, kernel choice and the arena-backed run for SDPA.
#include "attnrt/runtime/sdpa.h"

#include <cmath>
#include <cstdint>

#include "attnrt/kernels/kv_store.h"
#include "attnrt/runtime/checked_math.h"
#include "attnrt/runtime/parallel.h"

namespace attnrt {
namespace {

// Broadcasts two dimension sizes as torch does (1 stretches); false if they clash.
bool BroadcastDim(size_t a, size_t b, size_t* out) {
  if (a == b || b == 1) {
    *out = a;
    return true;
  }
  if (a == 1) {
    *out = b;
    return true;
  }
  return false;
}

Status CheckRank(const TensorShape& s, const char* name, size_t min_rank) {
  if (s.rank < min_rank || s.rank > TensorShape::kMaxRank) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "%s must have rank %z to 4 ((L, E), (B, L, E) or (B, H, L, E)), got rank %z",
                         name, min_rank, s.rank);
  }
  return Status::Ok();
}

// C-order strides of a (batch, head, row) view of `s` padded on the left to 4-D;
// a dimension of size 1 gets stride 0 so it broadcasts.
Strides3 BroadcastStrides(const TensorShape& s) {
  const size_t cols = s.FromRight(0), rows = s.FromRight(1), heads = s.FromRight(2),
               batch = s.FromRight(3);
  Strides3 st;
  st.row = rows == 1 ? 0 : cols;
  st.head = heads == 1 ? 0 : rows * cols;
  st.batch = batch == 1 ? 0 : heads * rows * cols;
  return st;
}

// Every buffer a call touches must have a byte size that fits size_t: the output
// (B, Hq, L, Ev), the weights and the score rows (B, Hq, L, S), the queries (B, Hq,
// L, E) and keys and values (B, Hkv, S, max(E, Ev)). Zero-size tensors may carry huge
// dimensions (Q of shape (2^30, 2^30, 2, 0) is 0 bytes on disk), and an unchecked
// product would wrap to a small number while the kernels walk the real extents.
Status CheckSdpaSizes(const SdpaParams& p) {
  const size_t widest_q = p.kv_len > p.v_dim ? (p.kv_len > p.qk_dim ? p.kv_len : p.qk_dim)
                                             : (p.v_dim > p.qk_dim ? p.v_dim : p.qk_dim);
  const size_t widest_kv = p.qk_dim > p.v_dim ? p.qk_dim : p.v_dim;
  const size_t q_side[5] = {p.batch, p.q_heads, p.q_len, widest_q, sizeof(float)};
  const size_t kv_side[5] = {p.batch, p.kv_heads, p.kv_len, widest_kv, sizeof(float)};
  const char* format = "%s of batch %z x heads %z x rows %z x width %z have more bytes than "
                       "size_t can count";
  size_t bytes;
  if (!CheckedProduct(q_side, 5, &bytes)) {
    return Status::Error(StatusCode::kOverflow, format, "the queries, scores or output", p.batch,
                         p.q_heads, p.q_len, widest_q);
  }
  if (!CheckedProduct(kv_side, 5, &bytes)) {
    return Status::Error(StatusCode::kOverflow, format, "the keys and values", p.batch, p.kv_heads,
                         p.kv_len, widest_kv);
  }
  return Status::Ok();
}

// The per-score variants (sdpa_params.h): a window needs a causal rule to say which
// key is diag(i); a softcap is off (0) or a finite C > 0; ALiBi slopes and sink
// logits, one per query head, must be finite (an infinite slope or sink would turn
// whole rows into inf - inf). Any window size is accepted: the kernels compare it
// without arithmetic that could overflow, and W >= S + L hides nothing.
Status CheckSdpaVariants(const SdpaParams& p) {
  if (p.window != 0 && p.causal == CausalKind::kNone) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "window %z needs a causal rule (upper-left or lower-right) to say which "
                         "key each query is aligned with",
                         p.window);
  }
  if (!(p.softcap >= 0.0f) || !std::isfinite(p.softcap)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "softcap must be 0 (off) or a finite number > 0");
  }
  const float* per_head[2] = {p.alibi_slopes, p.sinks};
  const char* names[2] = {"alibi slope", "sink"};
  for (size_t which = 0; which < 2; ++which) {
    if (per_head[which] == nullptr) continue;
    for (size_t h = 0; h < p.q_heads; ++h) {
      if (!std::isfinite(per_head[which][h])) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "%s of query head %z is not a finite number", names[which], h);
      }
    }
  }
  return Status::Ok();
}

// The KV storage type (sdpa_params.h): f32, f16 or q8; a typed cache comes through
// k_data / v_data (k and v null) and q8 also needs its scale rows; only kernels that
// read typed K/V may run it.
Status CheckSdpaKvType(const SdpaParams& p, const SdpaKernel& kernel, bool reads_kv) {
  if (p.kv_type == KvType::kF32) return Status::Ok();
  if (!IsKvType(p.kv_type)) {
    return Status::Error(StatusCode::kUnsupported,
                         "KV cache type code %z is not supported (f32, f16 or q8)",
                         static_cast<size_t>(p.kv_type));
  }
  const char* name = KvTypeName(p.kv_type);
  if (!kernel.reads_typed_kv) {
    return Status::Error(StatusCode::kUnsupported,
                         "kernel '%s' reads f32 keys and values only, not a %s KV cache; use "
                         "hwy-decode, hwy-flash, reference or auto",
                         kernel.name, name);
  }
  if (p.k != nullptr || p.v != nullptr) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "a %s KV cache is read through k_data and v_data; the f32 k and v "
                         "pointers must be null",
                         name);
  }
  const size_t rows_kv = p.batch * p.kv_heads * p.kv_len;
  if (reads_kv && ((p.qk_dim != 0 && p.k_data == nullptr) ||
                   (rows_kv * p.v_dim != 0 && p.v_data == nullptr))) {
    return Status::Error(StatusCode::kInvalidArgument, "a key or value data pointer is null");
  }
  if (p.kv_type == KvType::kQ8 && reads_kv && rows_kv != 0 &&
      (p.k_scales == nullptr || p.v_scales == nullptr)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "a q8 KV cache needs its key and value scale rows (k_scales, v_scales)");
  }
  return Status::Ok();
}

}  // namespace

float DefaultSdpaScale(size_t qk_dim) {
  return qk_dim == 0 ? 1.0f : static_cast<float>(1.0 / std::sqrt(static_cast<double>(qk_dim)));
}

Status BindSdpaShapes(const TensorShape& q, const TensorShape& k, const TensorShape& v,
                      const TensorShape* mask, MaskKind mask_kind, SdpaParams* p,
                      TensorShape* out, TensorShape* weights) {
  ATTNRT_RETURN_IF_ERROR(CheckRank(q, "query", 2));
  ATTNRT_RETURN_IF_ERROR(CheckRank(k, "key", 2));
  ATTNRT_RETURN_IF_ERROR(CheckRank(v, "value", 2));
  if (q.FromRight(0) != k.FromRight(0)) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "query last dimension E=%z differs from key last dimension %z",
                         q.FromRight(0), k.FromRight(0));
  }
  if (k.FromRight(1) != v.FromRight(1)) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "key has S=%z rows but value has %z (they must match)", k.FromRight(1),
                         v.FromRight(1));
  }
  size_t batch, kv_batch, kv_heads;
  if (!BroadcastDim(k.FromRight(3), v.FromRight(3), &kv_batch) ||
      !BroadcastDim(q.FromRight(3), kv_batch, &batch)) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "batch sizes do not broadcast: query %z, key %z, value %z", q.FromRight(3),
                         k.FromRight(3), v.FromRight(3));
  }
  if (!BroadcastDim(k.FromRight(2), v.FromRight(2), &kv_heads)) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "key has %z heads but value has %z (they must match or be 1)",
                         k.FromRight(2), v.FromRight(2));
  }
  // Without a 4-D input the leading dim is a batch, as torch.matmul broadcasts
  // (B, L, E) @ (B, E, S): it must match or be 1. Grouped-query heads need (B, H, L, E).
  const bool has_heads = q.rank == 4 || k.rank == 4 || v.rank == 4;
  if (!has_heads && q.FromRight(2) != kv_heads && q.FromRight(2) != 1 && kv_heads != 1) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "3-D batch sizes do not broadcast: query %z, key/value %z (grouped-query "
                         "heads need 4-D (B, H, L, E) inputs)",
                         q.FromRight(2), kv_heads);
  }
  // A single query head against several kv heads broadcasts the query.
  const size_t q_heads = q.FromRight(2) == 1 ? kv_heads : q.FromRight(2);
  if (kv_heads == 0 || q_heads % kv_heads != 0) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "query heads (%z) must be a multiple of key/value heads (%z)", q_heads,
                         kv_heads);
  }

  p->batch = batch;
  p->q_heads = q_heads;
  p->kv_heads = kv_heads;
  p->q_len = q.FromRight(1);
  p->kv_len = k.FromRight(1);
  p->qk_dim = q.FromRight(0);
  p->v_dim = v.FromRight(0);
  p->q_strides = BroadcastStrides(q);
  p->k_strides = BroadcastStrides(k);
  p->v_strides = BroadcastStrides(v);
  p->scale = DefaultSdpaScale(p->qk_dim);
  ATTNRT_RETURN_IF_ERROR(CheckSdpaSizes(*p));

  // Output keeps the highest input rank, with broadcast leading dimensions.
  size_t rank = q.rank > k.rank ? q.rank : k.rank;
  rank = rank > v.rank ? rank : v.rank;
  const size_t lead[2] = {batch, q_heads};
  out->rank = weights->rank = rank;
  for (size_t i = 0; i + 2 < rank; ++i) {
    out->dims[i] = weights->dims[i] = lead[i + 4 - rank];
  }
  out->dims[rank - 2] = weights->dims[rank - 2] = p->q_len;
  out->dims[rank - 1] = p->v_dim;
  weights->dims[rank - 1] = p->kv_len;
  // Output and weights are written densely, C-order (B, Hq, L, Ev) / (B, Hq, L, S).
  p->out_strides = {q_heads * p->q_len * p->v_dim, p->q_len * p->v_dim, p->v_dim};
  p->weights_strides = {q_heads * p->q_len * p->kv_len, p->q_len * p->kv_len, p->kv_len};

  if (mask == nullptr) return BindSdpaMask(TensorShape{}, MaskKind::kNone, rank, p);
  return BindSdpaMask(*mask, mask_kind, rank, p);
}

Status BindSdpaMask(const TensorShape& mask, MaskKind kind, size_t score_rank, SdpaParams* p) {
  p->mask_kind = kind;
  p->mask_strides = MaskStrides{};
  if (kind == MaskKind::kNone) return Status::Ok();
  if (mask.rank > score_rank) {
    return Status::Error(StatusCode::kShapeMismatch,
                         "mask has rank %z but the attention scores have rank %z", mask.rank,
                         score_rank);
  }
  const size_t want[4] = {p->kv_len, p->q_len, p->q_heads, p->batch};  // from the right
  const char* names[4] = {"keys (S)", "queries (L)", "heads", "batch"};
  size_t stride = 1;
  size_t strides[4];
  for (size_t i = 0; i < 4; ++i) {
    const size_t d = mask.FromRight(i);
    if (d != want[i] && d != 1) {
      return Status::Error(StatusCode::kShapeMismatch,
                           "mask does not broadcast to the scores: its %s dimension is %z, need %z or 1",
                           names[i], d, want[i]);
    }
    strides[i] = d == 1 ? 0 : stride;
    if (!CheckedMul(stride, d, &stride)) {
      return Status::Error(StatusCode::kOverflow, "mask size overflows");
    }
  }
  p->mask_strides.col = strides[0];
  p->mask_strides.row = strides[1];
  p->mask_strides.head = strides[2];
  p->mask_strides.batch = strides[3];
  return Status::Ok();
}

Status ValidateSdpa(const SdpaParams& p, const SdpaKernel& kernel) {
  if (p.kv_heads == 0 || p.q_heads % p.kv_heads != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "query heads (%z) must be a multiple of key/value heads (%z)", p.q_heads,
                         p.kv_heads);
  }
  if (!std::isfinite(p.scale)) {
    return Status::Error(StatusCode::kInvalidArgument, "scale must be a finite number");
  }
  ATTNRT_RETURN_IF_ERROR(CheckSdpaSizes(p));
  ATTNRT_RETURN_IF_ERROR(CheckSdpaVariants(p));
  if (p.weights != nullptr && !kernel.returns_weights) {
    return Status::Error(StatusCode::kUnsupported,
                         "kernel '%s' cannot return attention weights; use hwy-materialized, "
                         "reference or auto",
                         kernel.name);
  }
  if (!kernel.available()) {
    return Status::Error(StatusCode::kUnsupported, "kernel '%s' cannot run on this CPU",
                         kernel.name);
  }
  // A pointer may be null exactly when its tensor has no elements (E or Ev of 0).
  const size_t rows_q = p.batch * p.q_heads * p.q_len, rows_kv = p.batch * p.kv_heads * p.kv_len;
  const bool reads_inputs = rows_q * p.kv_len != 0;
  ATTNRT_RETURN_IF_ERROR(CheckSdpaKvType(p, kernel, reads_inputs));
  const bool f32_kv = p.kv_type == KvType::kF32;
  if ((rows_q * p.v_dim != 0 && p.out == nullptr) ||
      (reads_inputs && p.qk_dim != 0 && (p.q == nullptr || (f32_kv && p.k == nullptr))) ||
      (f32_kv && rows_kv * p.v_dim != 0 && p.v == nullptr)) {
    return Status::Error(StatusCode::kInvalidArgument, "a query, key, value or output pointer is null");
  }
  if (p.mask_kind != MaskKind::kNone && reads_inputs && p.mask == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "mask kind is set but the mask pointer is null");
  }
  return Status::Ok();
}

// Few queries stream K and V once, split over keys (hwy-decode); from about 16
// queries on the blocked flash kernel wins (measured at S = 4096, E = 64: 16
// queries 3.4 ms decode vs 4.6 ms flash; 64 queries 12.4 ms vs 6.2 ms).
constexpr size_t kDecodeMaxQueries = 16;

const SdpaKernel& ChooseSdpaKernel(const SdpaParams& p) {
  const bool weights = p.weights != nullptr;
  // Highway's blocked variants on every ISA: their xsimd twins were at best even
  // (L = S = 1024 and 2048, H = 8, E = 64, one thread: on AVX2 flash 4% slower,
  // materialized level within 1%; on AVX-512 6-15% slower; kernels/xsimd/README.md),
  // and NEON is unmeasured (qemu times mean nothing).
  SdpaAlgorithm algorithm = weights ? SdpaAlgorithm::kMaterialized : SdpaAlgorithm::kFlash;
  if (!weights && p.q_len <= kDecodeMaxQueries) algorithm = SdpaAlgorithm::kDecode;
  const SdpaKernel* kernel = FindSdpaKernel(SdpaFamily::kHwy, algorithm);
  // A typed (f16 / q8) KV cache needs a variant that reads it; the materialized ones
  // and helium-flash read f32 only, the reference (first in the list) every type.
  const bool typed_kv = p.kv_type != KvType::kF32;
  // Cortex-M55 builds list helium-flash (Helium/MVE); under qemu it ran every
  // measured call in 2.6-5.1x fewer instructions than the best Highway variant there,
  // decode (L = 1, 16) included (kernels/helium/README.md). It returns no weights.
  const SdpaKernel* helium = FindSdpaKernel(SdpaFamily::kHelium, SdpaAlgorithm::kFlash);
  if (helium != nullptr && !weights && (!typed_kv || helium->reads_typed_kv)) kernel = helium;
  if (kernel != nullptr && typed_kv && !kernel->reads_typed_kv) kernel = nullptr;
  return kernel != nullptr ? *kernel : SdpaKernelAt(0);
}

namespace {

// Bytes of the variant's shared buffer (64-byte aligned), 0 when it has none.
Status SharedBytes(const SdpaParams& p, const SdpaKernel& kernel, size_t* bytes) {
  *bytes = 0;
  if (kernel.shared_floats == nullptr) return Status::Ok();
  return WorkScratchBytes(kernel.shared_floats(p), 1, bytes);
}

}  // namespace

Status SdpaScratchBytes(const SdpaParams& p, const SdpaKernel& kernel, size_t workers,
                        size_t* bytes) {
  *bytes = 0;
  if (kernel.work_items(p) == 0 || p.q_len == 0) return Status::Ok();
  size_t per_worker, shared;
  ATTNRT_RETURN_IF_ERROR(WorkScratchBytes(kernel.scratch_floats(p), workers, &per_worker));
  ATTNRT_RETURN_IF_ERROR(SharedBytes(p, kernel, &shared));
  if (!CheckedAdd(per_worker, shared, bytes)) {
    return Status::Error(StatusCode::kOverflow, "SDPA scratch size overflows");
  }
  return Status::Ok();
}

namespace {

struct SdpaJob {
  const SdpaParams* params;
  const SdpaKernel* kernel;
  float* shared;
};

// Keys row `row` sees under the causal rule and the window.
uint64_t VisibleKeys(const SdpaParams& p, size_t row) {
  const size_t end = CausalVisibleKeys(p, row), begin = VisibleKeyBegin(p, row);
  return end > begin ? end - begin : 0;
}

// The two matrix products' flops per work item, 2 x (visible query-key pairs) x
// (E + Ev) spread evenly over the items, with the visible keys per row taken as
// the mean of the first and last row's (exact while the causal diagonal stays
// inside [0, S)).
uint64_t SdpaFlopsPerItem(const SdpaParams& p, size_t items) {
  const uint64_t mean_keys = (VisibleKeys(p, 0) + VisibleKeys(p, p.q_len - 1) + 1) / 2;
  return PerItem({2, p.batch, p.q_heads, p.q_len, mean_keys, uint64_t{p.qk_dim} + p.v_dim}, items);
}

// Bytes per work item: every key and value (in the cache's type) and the queries
// and outputs in f32.
uint64_t SdpaBytesPerItem(const SdpaParams& p, size_t items) {
  const uint64_t kv_bytes = p.kv_type == KvType::kF32 ? 4 : p.kv_type == KvType::kF16 ? 2 : 1;
  const uint64_t kv = PerItem({p.batch, p.kv_heads, p.kv_len, kv_bytes, uint64_t{p.qk_dim} + p.v_dim}, 1);
  const uint64_t rows = PerItem({4, p.batch, p.q_heads, p.q_len, uint64_t{p.qk_dim} + p.v_dim}, 1);
  uint64_t total;
  if (!CheckedAddU64(kv, rows, &total)) total = UINT64_MAX;
  return PerItem({total}, items);
}

void RunSdpaRange(const void* context, size_t begin, size_t end, float* scratch) {
  const SdpaJob& job = *static_cast<const SdpaJob*>(context);
  job.kernel->run(*job.params, begin, end, scratch, job.shared);
}

}  // namespace

Status RunSdpa(const SdpaParams& p, const SdpaKernel& kernel, Arena* arena, Executor* executor) {
  ATTNRT_RETURN_IF_ERROR(ValidateSdpa(p, kernel));
  if (p.q_len == 0 || kernel.work_items(p) == 0) return Status::Ok();
  // Nothing to write (Ev = 0, and no weights or no keys): the kernels would still walk
  // every one of possibly 2^30 query rows of a zero-size tensor.
  if (p.v_dim == 0 && (p.weights == nullptr || p.kv_len == 0)) return Status::Ok();
  const size_t mark = arena->Mark();
  size_t shared_bytes;
  ATTNRT_RETURN_IF_ERROR(SharedBytes(p, kernel, &shared_bytes));
  void* shared = nullptr;
  if (shared_bytes > 0) {
    ATTNRT_RETURN_IF_ERROR(arena->Allocate(shared_bytes, kArenaAlignment, &shared));
  }
  const SdpaJob job{&p, &kernel, static_cast<float*>(shared)};
  WorkItems work;
  work.count = kernel.work_items(p);
  work.scratch_floats = kernel.scratch_floats(p);
  work.flops_per_item = SdpaFlopsPerItem(p, work.count);
  work.bytes_per_item = SdpaBytesPerItem(p, work.count);
  work.run = RunSdpaRange;
  work.params = &job;
  Status st = RunWorkItems(work, arena, executor);
  if (st.ok() && kernel.finish != nullptr && !arena->measuring()) {
    kernel.finish(p, static_cast<float*>(shared));
  }
  arena->Reset(mark);
  return st;
}

}  // namespace attnrt

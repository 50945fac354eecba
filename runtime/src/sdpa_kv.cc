// Narrowing a bound SDPA call's f32 K and V into a typed KV cache (sdpa_kv.h).
#include "attnrt/runtime/sdpa_kv.h"

#include "attnrt/kernels/kv_store.h"
#include "attnrt/runtime/checked_math.h"

namespace attnrt {

bool TypedKvBytes(KvType type, size_t elems, size_t cols, size_t* value_bytes,
                  size_t* scale_floats) {
  *scale_floats = type == KvType::kQ8 && cols != 0 ? elems / cols : 0;
  return CheckedMul(elems, KvElementBytes(type), value_bytes);
}

namespace {

// Strides of the per-row scales: rows are `cols` elements, so every stride of a
// dense (possibly broadcast, stride 0) tensor divides by cols.
Strides3 RowStrides(const Strides3& s, size_t cols) {
  if (cols == 0) return Strides3{};
  return Strides3{s.batch / cols, s.head / cols, s.row / cols};
}

}  // namespace

Status NarrowSdpaKv(KvType type, size_t k_elems, size_t v_elems, void* k_dst, void* v_dst,
                    float* k_scales, float* v_scales, SdpaParams* p) {
  if (type == KvType::kF32) return Status::Ok();
  if (!IsKvType(type)) {
    return Status::Error(StatusCode::kUnsupported,
                         "KV cache type code %z is not supported (f32, f16 or q8)",
                         static_cast<size_t>(type));
  }
  const size_t k_rows = p->qk_dim == 0 ? 0 : k_elems / p->qk_dim;
  const size_t v_rows = p->v_dim == 0 ? 0 : v_elems / p->v_dim;
  StoreKvRows(type, p->k, p->qk_dim, k_rows, p->qk_dim, k_dst, p->qk_dim, k_scales, 1);
  StoreKvRows(type, p->v, p->v_dim, v_rows, p->v_dim, v_dst, p->v_dim, v_scales, 1);
  p->kv_type = type;
  p->k_data = k_dst;
  p->v_data = v_dst;
  p->k = p->v = nullptr;
  if (type == KvType::kQ8) {
    p->k_scales = k_scales;
    p->v_scales = v_scales;
    p->k_scale_strides = RowStrides(p->k_strides, p->qk_dim);
    p->v_scale_strides = RowStrides(p->v_strides, p->v_dim);
  }
  return Status::Ok();
}

}  // namespace attnrt

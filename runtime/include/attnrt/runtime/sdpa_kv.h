// Narrowing the f32 keys and values of a bound SDPA call into a typed KV cache
// (f16 / q8, layouts in attnrt/kernels/sdpa_params.h), for callers that hold K
// and V as dense f32 tensors (the CLI's .npy inputs, tests, benchmarks). A model
// writes its cache row by row with StoreKvRows (attnrt/kernels/kv_store.h) instead.
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_params.h"
#include "attnrt/runtime/status.h"

namespace attnrt {

// Bytes of the typed copy of `elems` f32 elements of rows of `cols` (values, then
// for q8 one f32 scale per row in its own buffer: scale_floats). false on overflow.
bool TypedKvBytes(KvType type, size_t elems, size_t cols, size_t* value_bytes,
                  size_t* scale_floats);

// Stores p->k (k_elems floats: dense rows of qk_dim, addressed by p->k_strides) and
// p->v (v_elems floats, rows of v_dim) as `type` into the caller's buffers (sized by
// TypedKvBytes) and points p at them: kv_type, k_data, v_data, the scales and their
// strides (the element strides divided by the row width), k and v null. kF32 leaves
// p as it is. kUnsupported for a type that is not a KV type.
Status NarrowSdpaKv(KvType type, size_t k_elems, size_t v_elems, void* k_dst, void* v_dst,
                    float* k_scales, float* v_scales, SdpaParams* p);

}  // namespace attnrt

// The list of non-attention kernels compiled into this build (kernels/nn_variants.inc)
// and the entry points of layer_norm.h, rope.h, elementwise.h and kv_store.h, which run
// the `auto` choice of each op.
#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/nn_kernel.h"
#include "attnrt/kernels/rope.h"
#include "kernels/kernel_list.h"

// Hosted builds (tests, CLI) list every kernel; firmware only those `auto` may choose.
#ifndef ATTNRT_LIST_EVERY_LINEAR_KERNEL
#define ATTNRT_LIST_EVERY_LINEAR_KERNEL 1
#endif

namespace attnrt {

#define ATTNRT_NN_VARIANT(symbol, linked) extern const NnKernel symbol;
#include "nn_variants.inc"
#undef ATTNRT_NN_VARIANT

// nullptr for a kernel this build does not link (its `linked` is false): a constant, so
// no reference to the symbol is emitted and --gc-sections drops its code.
extern const NnKernel* const kNnKernelSlots[] = {
#define ATTNRT_NN_VARIANT(symbol, linked) (linked) ? &symbol : nullptr,
#include "nn_variants.inc"
#undef ATTNRT_NN_VARIANT
};
extern const size_t kNnKernelSlotCount = sizeof(kNnKernelSlots) / sizeof(kNnKernelSlots[0]);

size_t NnKernelCount() { return ListedKernelCount(kNnKernelSlots); }
const NnKernel& NnKernelAt(size_t index) { return ListedKernelAt(kNnKernelSlots, index); }
const NnKernel* FindNnKernel(const char* name) { return FindListedKernel(kNnKernelSlots, name); }

void LayerNormRows(const float* x, size_t x_stride, size_t rows, size_t n, const float* gamma,
                   const float* beta, float eps, float* y, size_t y_stride) {
  AutoNnKernel(&NnKernel::layer_norm_rows)
      .layer_norm_rows(x, x_stride, rows, n, gamma, beta, eps, y, y_stride);
}
void RmsNormRows(const float* x, size_t x_stride, size_t rows, size_t n, const float* weight,
                 float eps, float* y, size_t y_stride) {
  AutoNnKernel(&NnKernel::rms_norm_rows)
      .rms_norm_rows(x, x_stride, rows, n, weight, eps, y, y_stride);
}
const char* LayerNormIsa() { return AutoNnKernel(&NnKernel::layer_norm_rows).isa(); }

void RopeRows(float* x, size_t x_stride, size_t rows, size_t heads, size_t head_dim,
              size_t first_position, const float* table, RopeStyle style) {
  AutoNnKernel(&NnKernel::rope_rows)
      .rope_rows(x, x_stride, rows, heads, head_dim, first_position, table, style);
}
const char* RopeIsa() { return AutoNnKernel(&NnKernel::rope_rows).isa(); }

void GeluInPlace(float* x, size_t n) { AutoNnKernel(&NnKernel::gelu).gelu(x, n); }
void ReluInPlace(float* x, size_t n) { AutoNnKernel(&NnKernel::relu).relu(x, n); }
void AddInPlace(float* y, const float* x, size_t n) { AutoNnKernel(&NnKernel::add).add(y, x, n); }
void SiluMulInPlace(float* gate, const float* up, size_t n) {
  AutoNnKernel(&NnKernel::silu_mul).silu_mul(gate, up, n);
}
void GeluTanhInPlace(float* x, size_t n) { AutoNnKernel(&NnKernel::gelu_tanh).gelu_tanh(x, n); }
void GeluTanhMulInPlace(float* gate, const float* up, size_t n) {
  AutoNnKernel(&NnKernel::gelu_tanh_mul).gelu_tanh_mul(gate, up, n);
}
void ScaleInPlace(float* x, size_t n, float s) { AutoNnKernel(&NnKernel::scale).scale(x, n, s); }
void ErfInPlace(float* x, size_t n) { AutoNnKernel(&NnKernel::erf).erf(x, n); }
void SoftmaxExpInPlace(float* x, size_t n) {
  AutoNnKernel(&NnKernel::softmax_exp).softmax_exp(x, n);
}
const char* ElementwiseIsa() { return AutoNnKernel(&NnKernel::gelu).isa(); }

bool StoreKvRows(KvType type, const float* src, size_t src_row_stride, size_t rows,
                 size_t cols, void* dst, size_t dst_row_stride, float* scales,
                 size_t scale_stride) {
  return AutoNnKernel(&NnKernel::store_kv_rows)
      .store_kv_rows(type, src, src_row_stride, rows, cols, dst, dst_row_stride, scales,
                     scale_stride);
}
const char* StoreKvRowsIsa() { return AutoNnKernel(&NnKernel::store_kv_rows).isa(); }

}  // namespace attnrt

// linear_count_fw: runs one Linear call (LinearRun over all its items, one worker)
// `reps` times so that the guest instructions of a single call can be counted under
// emulation (toolchains/boards/insn_count_plugin.c): count(reps = 1) - count(reps = 0)
// is one call, set-up excluded. Not a test; see kernels/helium/README.md for the use:
//   qemu-system-arm ... -semihosting-config enable=on,target=native,arg=TYPE,arg=K,arg=N,
//                       arg=M,arg=REPS -d plugin -plugin insn_count.so
// TYPE is a weight type's name (f32, f16, bf16, q8, q4_0, q4_K, q6_K). Exit code 0 on success, 2 on bad arguments.
#include <stddef.h>
#include <stdint.h>

#include "attnrt/kernels/weight_codecs.h"
#include "attnrt/kernels/linear.h"
#include "semihost.h"

namespace {

#define LINEAR_COUNT_BULK(name) __attribute__((section(".attnrt_arena." #name), aligned(64)))

constexpr size_t kMaxWeights = 128 * 1024;  // K * N
constexpr size_t kMaxX = 16 * 1024;          // M * K, and M * N

LINEAR_COUNT_BULK(g_w) uint8_t g_w[kMaxWeights * 4];
LINEAR_COUNT_BULK(g_x) float g_x[kMaxX];
LINEAR_COUNT_BULK(g_y) float g_y[kMaxX];
LINEAR_COUNT_BULK(g_scratch) float g_scratch[16 * 1024];
char g_cmdline[256];

}  // namespace

int main() {
  char* w[5];
  attnrt::LinearParams p{};
  size_t reps = 0;
  if (semihost_read_cmdline(g_cmdline, sizeof(g_cmdline)) < 0 ||
      semihost_split_words(g_cmdline, w, 5) != 5 || !attnrt::ParseWeightType(w[0], &p.w_type) ||
      !semihost_parse_size(w[1], &p.in) || !semihost_parse_size(w[2], &p.out) ||
      !semihost_parse_size(w[3], &p.rows) || !semihost_parse_size(w[4], &reps) ||
      p.in * p.out > kMaxWeights || p.rows * p.in > kMaxX || p.rows * p.out > kMaxX) {
    semihost_write0("linear_count: usage: f32|f16|bf16|q8 K N M REPS (got '");
    semihost_write0(g_cmdline);
    semihost_write0("')\n");
    return 2;
  }
  // Weights: small values in every type (zero bytes are valid f32, f16, bf16 and q8
  // values, but make the q8 scales 1/64 so nothing is special-cased).
  uint16_t* scales = reinterpret_cast<uint16_t*>(g_w + attnrt::Q8ScalesOffset(p.out, p.in));
  for (size_t i = 0; i < p.in * p.out; ++i) g_w[i] = static_cast<uint8_t>(i * 7 % 61);
  if (p.w_type == attnrt::WeightType::kQ8) {
    for (size_t i = 0; i < p.out * attnrt::Q8BlocksPerRow(p.in); ++i) scales[i] = 0x2400;
  }
  for (size_t i = 0; i < p.rows * p.in; ++i) g_x[i] = static_cast<float>(i % 13) * 0.125f;
  p.x = g_x;
  p.x_stride = p.in;
  p.w = g_w;
  p.y = g_y;
  p.y_stride = p.out;
  if (attnrt::LinearScratchFloats(p) > sizeof(g_scratch) / sizeof(float)) return 2;
  const size_t items = attnrt::LinearWorkItems(p);
  for (size_t r = 0; r < reps; ++r) attnrt::LinearRun(p, 0, items, g_scratch);
  semihost_write0("linear_count: isa=");
  semihost_write0(attnrt::LinearIsa());
  semihost_write0(" y[0]=");
  semihost_write_float(g_y[0], 6);
  semihost_write0("\n");
  return 0;
}

// libFuzzer target for the shape and option handling `attnrt sdpa` runs before any
// kernel: BindSdpaShapes (PyTorch broadcasting, grouped heads, mask broadcast, size
// checks), the kernel choice and ValidateSdpa. The input picks ranks, dimensions from
// a table of edge values (0, 1, tile edges, 2^30, 2^61 + 1, SIZE_MAX, ...), a mask kind
// and shape, a causal rule, a scale and a kernel.
//
// Invariants (abort on violation, ASan catches the rest):
//  - a bound call's output, weights, queries and keys/values have byte counts that fit
//    size_t (what the CLI then allocates);
//  - when the inputs are small enough to allocate as their shapes say, the chosen
//    kernel and the reference run on exactly those buffers without touching anything
//    outside them, and agree (NaN where the other is NaN, else within 1e-4 relative).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "attnrt/kernels/sdpa_kernel.h"
#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/checked_math.h"
#include "fuzz_input.h"
#include "attnrt/runtime/executor.h"
#include "attnrt/runtime/sdpa.h"

namespace attnrt {
namespace {

constexpr size_t kDims[16] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 17, 63, 64, 65,
                              size_t{1} << 30, (SIZE_MAX >> 3) + 2, SIZE_MAX};
constexpr size_t kMaxRunElements = 1 << 14;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "sdpa_shapes_fuzzer: %s\n", what);
  std::abort();
}

using fuzz::Reader;

TensorShape ReadShape(Reader* r) {
  TensorShape s;
  s.rank = r->Next() % 6;  // 5 is an invalid rank on purpose
  if (s.rank > TensorShape::kMaxRank) {
    s.rank = TensorShape::kMaxRank + 1;
    return s;
  }
  for (size_t i = 0; i < s.rank; ++i) s.dims[i] = kDims[r->Next() & 15];
  return s;
}

bool Elements(const TensorShape& s, size_t* n) {
  if (s.rank > TensorShape::kMaxRank) return false;
  return CheckedProduct(s.dims, s.rank, n);
}

// Byte counts of a bound call must fit size_t: Bind promised it.
void CheckBoundSizes(const TensorShape& out, const TensorShape& weights) {
  size_t n;
  if (!Elements(out, &n) || !CheckedMul(n, sizeof(float), &n)) Die("bound output size overflows");
  if (!Elements(weights, &n) || !CheckedMul(n, sizeof(float), &n)) Die("bound weights size overflows");
}

std::vector<float> Values(Reader* r, size_t n) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(static_cast<int>(r->Next() % 16) - 8) * 0.25f;
  return v;
}

bool RunKernel(const SdpaParams& p, const SdpaKernel& kernel, std::vector<float>* out) {
  SerialExecutor executor;
  size_t bytes = 0;
  if (!SdpaScratchBytes(p, kernel, 1, &bytes).ok() || bytes > (size_t{64} << 20)) return false;
  std::vector<uint8_t> storage;
  Arena arena = fuzz::ExactArena(bytes, &storage);
  SdpaParams run = p;
  run.out = out->data();
  return RunSdpa(run, kernel, &arena, &executor).ok();
}

void Agree(const std::vector<float>& a, const std::vector<float>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) Die("NaN in one kernel's output only");
      continue;
    }
    if (std::fabs(a[i] - b[i]) > 1e-4f * std::fmax(1.0f, std::fabs(b[i]))) {
      Die("chosen kernel and reference disagree");
    }
  }
}

}  // namespace

void fuzz::FuzzOne(Reader* r) {
  const TensorShape q = ReadShape(r), k = ReadShape(r), v = ReadShape(r);
  const uint8_t mode = r->Next();
  const MaskKind mask_kind = static_cast<MaskKind>(mode % 3);
  const TensorShape mask = ReadShape(r);
  SdpaParams p;
  TensorShape out, weights;
  if (!BindSdpaShapes(q, k, v, mask_kind == MaskKind::kNone ? nullptr : &mask, mask_kind, &p, &out,
                      &weights)
           .ok()) {
    return;
  }
  CheckBoundSizes(out, weights);
  p.causal = static_cast<CausalKind>((mode / 3) % 3);
  if (mode & 0x80) p.scale = static_cast<float>(r->Next()) / 16.0f - 8.0f;

  size_t nq, nk, nv, nm = 0, no;
  if (!Elements(q, &nq) || !Elements(k, &nk) || !Elements(v, &nv) || !Elements(out, &no)) return;
  if (mask_kind != MaskKind::kNone && !Elements(mask, &nm)) return;
  if (nq > kMaxRunElements || nk > kMaxRunElements || nv > kMaxRunElements ||
      nm > kMaxRunElements || no > kMaxRunElements || p.kv_len * p.q_len > kMaxRunElements) {
    return;
  }
  // Buffers exactly as large as the shapes say, so any stride past them is an ASan report.
  const std::vector<float> qv = Values(r, nq), kv = Values(r, nk), vv = Values(r, nv);
  std::vector<float> mask_f = Values(r, nm);
  std::vector<uint8_t> mask_b(nm);
  for (size_t i = 0; i < nm; ++i) mask_b[i] = (r->Next() & 3) != 0;
  p.q = qv.data();
  p.k = kv.data();
  p.v = vv.data();
  if (mask_kind == MaskKind::kBool) p.mask = mask_b.data();
  if (mask_kind == MaskKind::kAdditive) p.mask = mask_f.data();

  const SdpaKernel* reference = FindSdpaKernel("reference");
  if (reference == nullptr) Die("no reference kernel");
  std::vector<float> chosen(no), expected(no);
  const bool chosen_ok = RunKernel(p, ChooseSdpaKernel(p), &chosen);
  const bool reference_ok = RunKernel(p, *reference, &expected);
  if (chosen_ok != reference_ok) Die("chosen kernel and reference disagree on validity");
  if (chosen_ok) Agree(chosen, expected);
}

}  // namespace attnrt

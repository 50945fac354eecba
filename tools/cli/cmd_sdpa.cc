// attnrt sdpa: scaled dot-product attention on .npy tensors, PyTorch semantics.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "attnrt/runtime/sdpa.h"
#include "attnrt/runtime/sdpa_kv.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/kv_dtype_option.h"
#include "cli/option_checks.h"
#include "cli/kernel_choice.h"
#include "cli/thread_option.h"
#include "host/aligned_buffer.h"
#include "host/thread_pool.h"

namespace attnrt::cli {
namespace {

struct SdpaOptions {
  std::string q, k, v, out, weights_out, mask;
  std::string causal = "none";
  std::string kernel = "auto";
  std::optional<double> scale;
  size_t threads = 0;
  // Per-score variants (attnrt/kernels/sdpa_params.h).
  size_t window = 0;
  std::string alibi_slopes, sinks;
  std::optional<double> softcap;
  std::string kv_dtype = "f32";  // storage of K and V the kernel reads: f32, f16, q8
};


std::string DescribeInputs(const SdpaOptions& o, const npy::Array& q, const npy::Array& k,
                           const npy::Array& v, const npy::Array* mask) {
  std::string s = "query " + o.q + " " + npy::ShapeString(q.shape) + ", key " + o.k + " " +
                  npy::ShapeString(k.shape) + ", value " + o.v + " " + npy::ShapeString(v.shape);
  if (mask != nullptr) s += ", mask " + o.mask + " " + npy::ShapeString(mask->shape);
  return s;
}

bool RequireFloat32(const npy::Array& a, const std::string& role, const std::string& path,
                    std::string* error) {
  if (a.dtype == npy::DType::kFloat32) return true;
  *error = role + " " + path + " must be float32, got bool";
  return false;
}

// Loads a per-query-head vector (--alibi-slopes, --sinks): float32 of shape (Hq,).
bool LoadPerHead(const std::string& path, const std::string& flag, size_t q_heads,
                 npy::Array* out, std::string* error) {
  if (!LoadNpy(path, flag, out, error)) return false;
  if (!RequireFloat32(*out, flag, path, error)) return false;
  if (out->shape.size() != 1 || out->shape[0] != q_heads) {
    *error = flag + " " + path + " has shape " + npy::ShapeString(out->shape) +
             " but must have one value per query head: (" + std::to_string(q_heads) + ",)";
    return false;
  }
  return true;
}

int RunSdpaCommand(const SdpaOptions& o) {
  const char* cmd = "sdpa";
  npy::Array q, k, v, mask;
  std::string error;
  const bool has_mask = !o.mask.empty();
  if (!CheckOutputPaths({{"--q", o.q}, {"--k", o.k}, {"--v", o.v}, {"--mask", o.mask},
                         {"--alibi-slopes", o.alibi_slopes}, {"--sinks", o.sinks}},
                        {{"--out", o.out}, {"--weights-out", o.weights_out}}, &error)) {
    return ReportError(cmd, error);
  }
  if (!LoadNpy(o.q, "query", &q, &error) || !LoadNpy(o.k, "key", &k, &error) ||
      !LoadNpy(o.v, "value", &v, &error) || (has_mask && !LoadNpy(o.mask, "mask", &mask, &error)) ||
      !RequireFloat32(q, "query", o.q, &error) || !RequireFloat32(k, "key", o.k, &error) ||
      !RequireFloat32(v, "value", o.v, &error)) {
    return ReportError(cmd, error);
  }
  TensorShape qs, ks, vs, mask_shape, out_shape, weights_shape;
  if (!ToTensorShape(q.shape, "query " + o.q, &qs, &error) ||
      !ToTensorShape(k.shape, "key " + o.k, &ks, &error) ||
      !ToTensorShape(v.shape, "value " + o.v, &vs, &error) ||
      (has_mask && !ToTensorShape(mask.shape, "mask " + o.mask, &mask_shape, &error))) {
    return ReportError(cmd, error);
  }
  const MaskKind mask_kind = !has_mask ? MaskKind::kNone
                             : mask.dtype == npy::DType::kBool ? MaskKind::kBool
                                                               : MaskKind::kAdditive;
  SdpaParams p;
  Status st = BindSdpaShapes(qs, ks, vs, has_mask ? &mask_shape : nullptr, mask_kind, &p, &out_shape,
                             &weights_shape);
  if (!st.ok()) {
    return ReportError(cmd, std::string(st.message()) + " (" +
                                DescribeInputs(o, q, k, v, has_mask ? &mask : nullptr) + ")");
  }
  if (o.scale) p.scale = static_cast<float>(*o.scale);
  p.causal = ParseCausal(o.causal);
  npy::Array slopes, sinks;
  if ((!o.alibi_slopes.empty() &&
       !LoadPerHead(o.alibi_slopes, "--alibi-slopes", p.q_heads, &slopes, &error)) ||
      (!o.sinks.empty() && !LoadPerHead(o.sinks, "--sinks", p.q_heads, &sinks, &error))) {
    return ReportError(cmd, error);
  }
  p.window = o.window;
  if (o.softcap) p.softcap = static_cast<float>(*o.softcap);
  if (!o.alibi_slopes.empty()) p.alibi_slopes = slopes.f32.data();
  if (!o.sinks.empty()) p.sinks = sinks.f32.data();

  std::vector<float> out, weights;
  if (!AllocateFloats(ToVector(out_shape), "output", &out, &error) ||
      (!o.weights_out.empty() &&
       !AllocateFloats(ToVector(weights_shape), "attention weights", &weights, &error))) {
    return ReportError(cmd, error);
  }
  p.q = q.f32.data();
  p.k = k.f32.data();
  p.v = v.f32.data();
  p.out = out.data();
  if (has_mask) {
    p.mask = mask.dtype == npy::DType::kBool ? static_cast<const void*>(mask.b8.data())
                                             : static_cast<const void*>(mask.f32.data());
  }
  if (!o.weights_out.empty()) p.weights = weights.data();
  // --kv-dtype f16 / q8: K and V are narrowed as a model's KV cache stores them,
  // then the kernel reads the typed copy.
  const KvType kv_type = KvDtype(o.kv_dtype);
  std::vector<uint8_t> k_typed, v_typed;
  std::vector<float> k_scales, v_scales;
  if (kv_type != KvType::kF32) {
    size_t k_bytes, v_bytes, k_scale_n, v_scale_n;
    if (!TypedKvBytes(kv_type, k.f32.size(), p.qk_dim, &k_bytes, &k_scale_n) ||
        !TypedKvBytes(kv_type, v.f32.size(), p.v_dim, &v_bytes, &v_scale_n)) {
      return ReportError(cmd, "typed key/value sizes overflow");
    }
    k_typed.resize(k_bytes);
    v_typed.resize(v_bytes);
    k_scales.resize(k_scale_n);
    v_scales.resize(v_scale_n);
    st = NarrowSdpaKv(kv_type, k.f32.size(), v.f32.size(), k_typed.data(), v_typed.data(),
                      k_scales.data(), v_scales.data(), &p);
    if (!st.ok()) return ReportStatus(cmd, st);
  }

  const SdpaKernel* kernel = nullptr;
  if (!ResolveKernel(o.kernel, p, &kernel, &error)) return ReportError(cmd, error);
  CommandPool workers(o.threads, /*calibrate=*/false);  // one job (thread_option.h)
  ThreadPool& pool = workers.pool;
  size_t bytes = 0;
  st = SdpaScratchBytes(p, *kernel, pool.workers(), &bytes);
  if (!st.ok()) return ReportStatus(cmd, st);
  AlignedBuffer buffer(bytes);
  if (!buffer.ok()) return ReportError(cmd, "cannot allocate " + std::to_string(bytes) + " bytes of scratch");
  Arena arena(buffer.data(), bytes);

  const auto start = std::chrono::steady_clock::now();
  st = RunSdpa(p, *kernel, &arena, &pool);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!st.ok()) return ReportError(cmd, RunFailureMessage(st, PlannedArena{0, bytes, bytes, bytes}));

  // Both outputs are written in full before either replaces its target.
  OutputFile out_file, weights_file;
  if (!out_file.Open(o.out, &error) ||
      !npy::WriteFloat32To(&out_file, ToVector(out_shape), out.data(), &error)) {
    return ReportError(cmd, error);
  }
  if (!o.weights_out.empty() &&
      (!weights_file.Open(o.weights_out, &error) ||
       !npy::WriteFloat32To(&weights_file, ToVector(weights_shape), weights.data(), &error))) {
    return ReportError(cmd, error);
  }
  if (!out_file.Commit(&error) || (!o.weights_out.empty() && !weights_file.Commit(&error))) {
    return ReportError(cmd, error);
  }
  std::printf("sdpa: kernel %s (%s), kv %s, %s, out %s -> %s, %.3f ms, scratch %zu bytes\n",
              kernel->name, kernel->isa(), o.kv_dtype.c_str(), DescribeThreads(o.threads).c_str(),
              npy::ShapeString(ToVector(out_shape)).c_str(), o.out.c_str(), ms, bytes);
  return 0;
}

}  // namespace

void AddSdpaCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<SdpaOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sdpa", "Scaled dot-product attention on .npy tensors (torch.nn.functional semantics)");
  cmd->add_option("--q", o->q, "Query (..., L, E) float32 .npy")->required();
  cmd->add_option("--k", o->k, "Key (..., S, E) float32 .npy")->required();
  cmd->add_option("--v", o->v, "Value (..., S, Ev) float32 .npy")->required();
  cmd->add_option("--out", o->out, "Output (..., L, Ev) .npy to write")->required();
  cmd->add_option("--weights-out", o->weights_out, "Also write attention weights (..., L, S)");
  cmd->add_option("--mask", o->mask,
                  "Mask broadcastable to (..., L, S): bool (True = may attend) or float32 (added)");
  AddCausalOption(*cmd, &o->causal);
  cmd->add_option("--scale", o->scale, "Score scale: 0 or a normal float32 (default 1/sqrt(E))")
      ->check(ExactFloat32Scale());
  cmd->add_option("--window", o->window,
                  "Sliding window W: query i sees key j only when 0 <= diag(i) - j < W "
                  "(needs --causal; 0 = off)");
  cmd->add_option("--alibi-slopes", o->alibi_slopes,
                  "ALiBi slopes, float32 (Hq,): score += slope[h] * (j - diag(i))");
  cmd->add_option("--softcap", o->softcap,
                  "Logit softcap C > 0: score = C * tanh(score / C) before masks and biases");
  cmd->add_option("--sinks", o->sinks,
                  "Attention sink logits, float32 (Hq,): exp(sink[h]) joins the softmax "
                  "denominator (rows sum to less than one)");
  AddKvDtypeOption(cmd, &o->kv_dtype, "the kernel reads K and V narrowed from the f32 inputs as a KV cache stores them");
  AddKernelOption(*cmd, &o->kernel);
  AddThreadsOption(*cmd, &o->threads);
  cmd->callback([o, exit_code] { *exit_code = RunSdpaCommand(*o); });
}

}  // namespace attnrt::cli

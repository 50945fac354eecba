// attnrt run: one forward pass of a converted model on a (B, L, E) .npy input.
#include <chrono>
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/kernel_choice.h"
#include "cli/model_file.h"
#include "host/aligned_buffer.h"
#include "host/thread_pool.h"

namespace attnrt::cli {
namespace {

struct RunOptions {
  std::string model, input, out, mask;
  std::string causal = "none";
  size_t threads = 0;
};

int RunModelCommand(const RunOptions& o) {
  const char* cmd = "run";
  std::string error;
  OpenedModel m;
  if (!OpenModel(o.model, &m, &error)) return ReportError(cmd, error);
  const ModelConfig& c = m.model.config;

  npy::Array x, mask;
  if (!LoadNpy(o.input, "input", &x, &error)) return ReportError(cmd, error);
  if (x.dtype != npy::DType::kFloat32 || x.shape.size() != 3 || x.shape[2] != c.model_dim) {
    return ReportError(cmd, "input " + o.input + " must be float32 (batch, seq, " +
                                std::to_string(c.model_dim) + "), got " +
                                (x.dtype == npy::DType::kBool ? "bool " : "") +
                                npy::ShapeString(x.shape));
  }
  ModelInput in;
  in.x = x.f32.data();
  in.batch = x.shape[0];
  in.seq = x.shape[1];
  in.causal = ParseCausal(o.causal);
  if (!o.mask.empty()) {
    if (!LoadNpy(o.mask, "mask", &mask, &error) ||
        !ToTensorShape(mask.shape, "mask " + o.mask, &in.mask_shape, &error)) {
      return ReportError(cmd, error);
    }
    const bool is_bool = mask.dtype == npy::DType::kBool;
    in.mask_kind = is_bool ? MaskKind::kBool : MaskKind::kAdditive;
    in.mask = is_bool ? static_cast<const void*>(mask.b8.data())
                      : static_cast<const void*>(mask.f32.data());
  }

  ThreadPool pool(o.threads == 0 ? DefaultThreadCount() : o.threads);
  ModelPlan plan;
  Status st = PlanModel(m.model, in.batch, in.seq, pool.workers(), &plan);
  if (!st.ok()) return ReportStatus(cmd, st);
  AlignedBuffer buffer(plan.arena_bytes);
  if (!buffer.ok()) return ReportError(cmd, "cannot allocate the arena");
  Arena arena(buffer.data(), plan.arena_bytes);
  std::vector<float> y(in.batch * in.seq * c.out_dim);

  const auto start = std::chrono::steady_clock::now();
  st = RunModel(m.model, in, y.data(), &arena, &pool);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!st.ok()) {
    return ReportError(cmd, std::string(st.message()) +
                                (o.mask.empty() ? "" : " (mask " + o.mask + " " +
                                                           npy::ShapeString(mask.shape) + ")"));
  }
  const std::vector<size_t> y_shape = {in.batch, in.seq, c.out_dim};
  if (!npy::WriteFloat32(o.out, y_shape, y.data(), &error)) return ReportError(cmd, error);
  std::printf("run: %s, out %s -> %s, %.3f ms, %zu thread(s)\n", ArchitectureName(c.arch),
              npy::ShapeString(y_shape).c_str(), o.out.c_str(), ms, pool.workers());
  std::printf("arena: planned %zu bytes (activations %zu + scratch %zu), used %zu bytes\n",
              plan.arena_bytes, plan.activation_bytes, plan.scratch_bytes, arena.high_water());
  return 0;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a converted model on a (batch, seq, dim) input");
  cmd->add_option("model", o->model, "Converted model file (attnrt convert)")->required();
  cmd->add_option("--input", o->input, "Input (batch, seq, dim) float32 .npy")->required();
  cmd->add_option("--out", o->out, "Output .npy to write")->required();
  cmd->add_option("--mask", o->mask,
                  "Attention mask broadcastable to (batch, heads, seq, seq): bool (True = may "
                  "attend) or float32 (added)");
  AddCausalOption(*cmd, &o->causal);
  cmd->add_option("--threads", o->threads, "Worker threads (default: all hardware threads)")
      ->check(CLI::Range(0, 1024));
  cmd->callback([o, exit_code] { *exit_code = RunModelCommand(*o); });
}

}  // namespace attnrt::cli

// attnrt demo: the main job. Runs the bundled encoder-layer model (models/demo,
// converted at build time) on its fixed input, checks the output against
// PyTorch's stored for it, and shows time, arena use and one head's attention
// as a heatmap (terminal, and PNG with --png).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/model_file.h"
#include "cli/thread_option.h"
#include "host/aligned_buffer.h"
#include "host/run_program.h"
#include "host/thread_pool.h"

#ifndef ATTNRT_DEMO_MODEL
#define ATTNRT_DEMO_MODEL "models/demo.attnrt"
#endif
#ifndef ATTNRT_PYTHON
#define ATTNRT_PYTHON "/usr/bin/python3"
#endif
#ifndef ATTNRT_PYTHON_TOOLS_DIR
#define ATTNRT_PYTHON_TOOLS_DIR "tools/python"
#endif
#ifndef ATTNRT_DEMO_DIR
#define ATTNRT_DEMO_DIR "models/demo"
#endif

namespace attnrt::cli {
namespace {

constexpr double kTolerance = 1e-4;  // of max(1, max|expected|)

struct DemoOptions {
  std::string model = ATTNRT_DEMO_MODEL;
  std::string input = std::string(ATTNRT_DEMO_DIR) + "/input.npy";
  std::string expected = std::string(ATTNRT_DEMO_DIR) + "/expected.npy";
  std::string png;
  size_t head = 0, threads = 0, repeats = 20;
};

// Prints an L x S weight matrix with a 10-step shade ramp, two characters per
// cell so it looks square in a terminal; rows scaled to their own maximum.
void PrintHeatmap(const float* w, size_t rows, size_t cols) {
  static const char kRamp[] = " .:-=+*#%@";
  const size_t step = std::max<size_t>(1, std::max(rows, cols) / 48);
  for (size_t i = 0; i < rows; i += step) {
    float row_max = 0.0f;
    for (size_t j = 0; j < cols; ++j) row_max = std::max(row_max, w[i * cols + j]);
    std::string line = "  ";
    for (size_t j = 0; j < cols; j += step) {
      const float t = row_max > 0.0f ? w[i * cols + j] / row_max : 0.0f;
      const char c = kRamp[std::min<size_t>(9, static_cast<size_t>(t * 9.999f))];
      line += c;
      line += c;
    }
    std::printf("%s\n", line.c_str());
  }
}

// --png: the head's matrix goes to a temporary .npy beside the PNG, and
// tools/python/plot_heatmap.py (matplotlib) draws it with axes, labels and a colour bar,
// rows scaled to their maximum as in the terminal.
bool SaveHeatmapPng(const std::string& path, const float* w, size_t rows, size_t cols,
                    size_t head, std::string* error) {
  const std::string npy_path = path + ".weights.tmp.npy";
  if (!npy::WriteFloat32(npy_path, {rows, cols}, w, error)) return false;
  const std::string title = "attnrt demo: attention weights of head " + std::to_string(head) +
                            " (" + std::to_string(rows) + " queries x " + std::to_string(cols) +
                            " keys)";
  const std::vector<std::string> argv = {ATTNRT_PYTHON, std::string(ATTNRT_PYTHON_TOOLS_DIR) +
                                         "/plot_heatmap.py", npy_path, path, "--title", title};
  const int status = RunProgram(argv, error);
  std::remove(npy_path.c_str());
  if (status != 0 && error->empty()) {
    *error = "--png: " + argv[1] + " failed (exit " + std::to_string(status) +
             "; it needs python3-matplotlib, which tools/setup.sh installs)";
  }
  return status == 0;
}

int DemoCommand(const DemoOptions& o) {
  const char* cmd = "demo";
  std::string error;
  OpenedModel m;
  if (!OpenModel(o.model, &m, &error, LinearActivations::kAuto)) {
    return ReportError(cmd, error + " (the build converts models/demo into it: cmake --build --preset release)");
  }
  const ModelConfig& c = m.model.config;
  npy::Array x, expected;
  if (!LoadNpy(o.input, "input", &x, &error) || !LoadNpy(o.expected, "expected output", &expected, &error)) {
    return ReportError(cmd, error);
  }
  if (x.shape.size() != 3 || x.shape[2] != c.model_dim || expected.shape != std::vector<size_t>{x.shape[0], x.shape[1], c.out_dim}) {
    return ReportError(cmd, "input " + npy::ShapeString(x.shape) + " / expected " +
                                npy::ShapeString(expected.shape) + " do not fit the model");
  }
  if (o.head >= c.heads) return ReportError(cmd, "--head must be below " + std::to_string(c.heads));
  ModelInput in;
  in.x = x.f32.data();
  in.batch = x.shape[0];
  in.seq = x.shape[1];

  CommandPool workers(o.threads);
  ThreadPool& pool = workers.pool;
  ModelPlan plan;
  Status st = PlanModel(m.model, in.batch, in.seq, pool.workers(), &plan, true);
  if (!st.ok()) return ReportStatus(cmd, st);
  std::vector<float> y, weights;
  if (!AllocateFloats(expected.shape, "output", &y, &error) ||
      !AllocateFloats({in.batch, c.heads, in.seq, in.seq}, "attention weights", &weights, &error)) {
    return ReportError(cmd, error);
  }
  in.weights = weights.data();
  AlignedBuffer buffer(plan.arena_bytes);
  if (!buffer.ok()) {
    return ReportError(cmd, "cannot allocate the arena of " + std::to_string(plan.arena_bytes) + " bytes");
  }
  Arena arena(buffer.data(), plan.arena_bytes);
  std::vector<double> times;
  for (size_t r = 0; r < std::max<size_t>(1, o.repeats); ++r) {
    const auto start = std::chrono::steady_clock::now();
    st = RunModel(m.model, in, y.data(), &arena, &pool);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!st.ok()) {
      return ReportError(cmd, RunFailureMessage(st, PlannedArena{plan.activation_bytes, plan.scratch_bytes,
                                                                  plan.arena_bytes, plan.arena_bytes}));
    }
  }
  std::sort(times.begin(), times.end());

  double max_ref = 1.0, max_diff = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    max_ref = std::max(max_ref, std::fabs(double(expected.f32[i])));
    max_diff = std::max(max_diff, std::fabs(double(y[i]) - double(expected.f32[i])));
  }
  const double err = max_diff / max_ref;
  const bool pass = err <= kTolerance;

  std::printf("attnrt demo: %s d_model=%zu heads=%zu ff=%zu (%s), %zu tensors, %zu weight bytes read in place\n",
              ArchitectureName(c.arch), c.model_dim, c.heads, c.ff_dim,
              c.activation == Activation::kGelu ? "gelu" : "relu", m.file.tensor_count(), m.file.file_size());
  std::printf("input %s -> output %s, %s, median %.3f ms over %zu runs\n",
              npy::ShapeString(x.shape).c_str(), npy::ShapeString(expected.shape).c_str(),
              DescribeThreads(o.threads).c_str(), times[times.size() / 2], times.size());
  std::printf("arena: planned %zu bytes (activations %zu + scratch %zu), used %zu bytes\n",
              plan.arena_bytes, plan.activation_bytes, plan.scratch_bytes, arena.high_water());
  std::printf("check vs PyTorch: max error %.3g of max(1, |ref|) -> %s (tolerance %.0e)\n", err,
              pass ? "PASS" : "FAIL", kTolerance);
  const float* head = weights.data() + o.head * in.seq * in.seq;
  std::printf("attention weights, batch 0, head %zu (%zu queries x %zu keys, rows scaled to their max):\n",
              o.head, in.seq, in.seq);
  PrintHeatmap(head, in.seq, in.seq);
  if (!o.png.empty()) {
    if (!SaveHeatmapPng(o.png, head, in.seq, in.seq, o.head, &error)) {
      return ReportError(cmd, error);
    }
    std::printf("heatmap written to %s\n", o.png.c_str());
  }
  return pass ? 0 : kExitFailure;
}

}  // namespace

void AddDemoCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand("demo", "Run the bundled model, check it against PyTorch, show attention");
  cmd->add_option("--model", o->model, "Converted model")->capture_default_str();
  cmd->add_option("--input", o->input, "Input .npy")->capture_default_str();
  cmd->add_option("--expected", o->expected, "Expected output .npy (PyTorch's)")->capture_default_str();
  cmd->add_option("--png", o->png,
                  "Also write the heatmap as a PNG with axes and a colour bar (drawn by "
                  "tools/python/plot_heatmap.py with matplotlib)");
  cmd->add_option("--head", o->head, "Attention head to show")->capture_default_str()->check(WholeNumber(0, kMaxDim));
  AddThreadsOption(*cmd, &o->threads);
  cmd->add_option("--repeats", o->repeats, "Timed runs")->capture_default_str()->check(WholeNumber(1, 100000));
  cmd->callback([o, exit_code] { *exit_code = DemoCommand(*o); });
}

}  // namespace attnrt::cli

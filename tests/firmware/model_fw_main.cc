// Firmware test image: runs a converted model from flash inside a static arena sized at
// compile time from the plan, compares the output with PyTorch's (computed on the host
// at build time) and exits 0 on a match, 1 otherwise. Output goes through semihosting;
// the image links no heap.
//
// Generated headers (tests/firmware/CMakeLists.txt):
//   model_data.c/h `attnrt embed`: attnrt_model_data[] (defined once, in the .c) and
//                  ATTNRT_MODEL_PLAN_BATCH/SEQ, the shape to plan for
//   device_plan.h  ATTNRT_DEVICE_ARENA_BYTES: the plan made by this target's kernels
//                  (plan_fw_main.cc run under qemu at build time)
//   model_io.h     npy_to_header.py: model_input[], model_expected[] (PyTorch's output)
#include <stddef.h>
#include <stdint.h>

#include "attnrt/kernels/helium.h"
#include "attnrt/runtime/arena.h"
#include "attnrt/runtime/executor.h"
#include "device_plan.h"
#include "embedded_model.h"
#include "hwy/highway.h"
#include "model_io.h"

using attnrt_fw::Fail;
using attnrt_fw::Print;
using attnrt_fw::PrintSize;

namespace {

constexpr size_t kBatch = ATTNRT_MODEL_PLAN_BATCH;
constexpr size_t kSeq = ATTNRT_MODEL_PLAN_SEQ;

// The whole working memory of the forward pass: exactly what the device's plan says.
alignas(attnrt::kArenaAlignment) uint8_t g_arena[ATTNRT_DEVICE_ARENA_BYTES];
float g_output[MODEL_EXPECTED_ELEMENTS];

const char* VectorUnit() {
#if ATTNRT_HELIUM
  return "MVE(float)";
#else
  return "none";
#endif
}

float Abs(float v) { return v < 0.0f ? -v : v; }

}  // namespace

int main() {
  Print("fw: attnrt model firmware, hwy_target=");
  Print(hwy::TargetName(HWY_STATIC_TARGET));
  Print(" vector_unit=");
  Print(VectorUnit());
  Print("\n");

  attnrt::WeightFile file;
  attnrt::Model model;
  attnrt::Status st = attnrt_fw::OpenEmbeddedModel(&file, &model);
  if (!st.ok()) return Fail("load model", st);
  const size_t in_width = model.config.model_dim;
  const size_t out_width = model.config.out_dim;
  if (kBatch * kSeq * in_width != MODEL_INPUT_ELEMENTS ||
      kBatch * kSeq * out_width != MODEL_EXPECTED_ELEMENTS) {
    Print("fw: FAIL: model dimensions do not match the embedded input/expected arrays\n");
    return 1;
  }

  // The plan made now must be the one the arena was sized with at build time.
  attnrt::ModelPlan plan;
  st = attnrt::PlanModel(model, kBatch, kSeq, 1, &plan);
  if (!st.ok()) return Fail("plan", st);
  if (plan.arena_bytes != sizeof(g_arena)) {
    PrintSize("fw: FAIL: plan ", plan.arena_bytes);
    PrintSize(" bytes != compile-time arena ", sizeof(g_arena));
    Print("\n");
    return 1;
  }

  attnrt::Arena arena(g_arena, sizeof(g_arena));
  attnrt::SerialExecutor executor;
  attnrt::ModelInput input;
  input.x = model_input;
  input.batch = kBatch;
  input.seq = kSeq;
  st = attnrt::RunModel(model, input, g_output, &arena, &executor);
  if (!st.ok()) return Fail("run", st);

  float max_expected = 0.0f;
  float max_error = 0.0f;
  for (size_t i = 0; i < MODEL_EXPECTED_ELEMENTS; ++i) {
    const float want = model_expected[i];
    const float diff = Abs(g_output[i] - want);
    if (Abs(want) > max_expected) max_expected = Abs(want);
    if (!(diff <= max_error)) max_error = diff;  // NaN sticks
  }
  // PyTorch's output on the f32 weights, so reduced-precision weights get their type's tolerance.
  const float tolerance = ATTNRT_FW_TOLERANCE * (max_expected > 1.0f ? max_expected : 1.0f);
  const bool match = max_error <= tolerance;
  const bool exact_plan = arena.high_water() == plan.arena_bytes;

  Print("fw: weights=" ATTNRT_FW_DTYPE " arch=");
  Print(attnrt::ArchitectureName(model.config.arch));
  PrintSize(" batch=", kBatch);
  PrintSize(" seq=", kSeq);
  PrintSize(" d_model=", in_width);
  PrintSize(" heads=", model.config.heads);
  PrintSize(" ff=", model.config.ff_dim);
  Print("\n");
  PrintSize("fw: model_bytes=", sizeof(attnrt_model_data));
  PrintSize(" tensors=", file.tensor_count());
  PrintSize(" arena_bytes=", sizeof(g_arena));
  PrintSize(" (activations=", plan.activation_bytes);
  PrintSize(" scratch=", plan.scratch_bytes);
  PrintSize(") arena_used=", arena.high_water());
  Print("\n");
  Print("fw: max_abs_error=");
  semihost_write_float(max_error, 9);
  Print(" tolerance=");
  semihost_write_float(tolerance, 9);
  Print(" out[0]=");
  semihost_write_float(g_output[0], 6);
  Print(" expected[0]=");
  semihost_write_float(model_expected[0], 6);
  Print("\n");
  if (!exact_plan) Print("fw: FAIL: the run used a different number of arena bytes than planned\n");
  if (!match) Print("fw: FAIL: output differs from PyTorch's\n");
  if (!exact_plan || !match) return 1;
  Print("fw: PASS\n");
  return 0;
}

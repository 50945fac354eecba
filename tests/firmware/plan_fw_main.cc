// Build-time helper image: plans the embedded model with the device's own kernels and
// prints the result as C #defines, which tests/firmware/device_plan.cmake turns into
// device_plan.h for the test image (model_fw_main.cc).
//
// Why not the build host's plan (`attnrt embed` writes an arena size only from a plan made
// on the target, --plan-from): kernel scratch depends on the vector width the kernels run
// with (tile panels are two vectors wide),
// so a plan made on an AVX-512 host is not the plan of a Cortex-M's SCALAR kernels.
// Running this image under qemu at build time gives the device's exact numbers.
#include "embedded_model.h"

using attnrt_fw::Print;
using attnrt_fw::PrintSize;

int main() {
  attnrt::WeightFile file;
  attnrt::Model model;
  attnrt::Status st = attnrt_fw::OpenEmbeddedModel(&file, &model);
  if (!st.ok()) return attnrt_fw::Fail("load model", st);
  attnrt::ModelPlan plan;
  st = attnrt::PlanModel(model, ATTNRT_MODEL_PLAN_BATCH, ATTNRT_MODEL_PLAN_SEQ, 1, &plan);
  if (!st.ok()) return attnrt_fw::Fail("plan", st);
  PrintSize("#define ATTNRT_DEVICE_ARENA_BYTES ", plan.arena_bytes);
  PrintSize("u\n#define ATTNRT_DEVICE_ACTIVATION_BYTES ", plan.activation_bytes);
  PrintSize("u\n#define ATTNRT_DEVICE_SCRATCH_BYTES ", plan.scratch_bytes);
  Print("u\n");
  return 0;
}

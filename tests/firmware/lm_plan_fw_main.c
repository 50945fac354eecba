/* Build-time helper image for lm_fw: plans the embedded language model on the target with
 * attnrt_lm_plan and prints the arena size as a C #define, which device_plan.cmake turns
 * into device_plan.h. Kernel scratch depends on the vector width the kernels run with, so
 * only a plan made by the target's own code sizes the target's static arena exactly. */
#include "attnrt/attnrt.h"
#include "lm_data.h"
#include "semihost.h"

static attnrt_model g_model; /* about 13 KiB: static, not on the stack */

int main(void) {
  size_t arena_bytes = 0;
  if (attnrt_model_open(&g_model, attnrt_lm_model_data, ATTNRT_LM_MODEL_SIZE) != ATTNRT_OK ||
      attnrt_lm_plan(&g_model, ATTNRT_LM_MODEL_PLAN_MAX_SEQ, &arena_bytes) != ATTNRT_OK) {
    semihost_write0("lm_plan: FAIL: ");
    semihost_write0(attnrt_model_message(&g_model));
    semihost_write0("\n");
    return 1;
  }
  semihost_write0("#define ATTNRT_DEVICE_ARENA_BYTES ");
  semihost_write_size(arena_bytes);
  semihost_write0("u\n");
  return 0;
}

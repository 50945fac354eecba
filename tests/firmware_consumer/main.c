/* Out-of-tree firmware example: runs the demo encoder layer through the C API only.
 * The model is a const array in flash (`attnrt embed`), opened in place; the arena is
 * a static buffer, checked against the plan made here on the device (kernel scratch
 * depends on the target's vector width, so a host's plan would be wrong). The output
 * is compared with PyTorch's (model_io.h). Prints one result line and
 * "consumer_fw: PASS"; main's return value becomes qemu's exit code. The same file also
 * runs on a host, with a stdout semihost.h and heap calls counted (CTest
 * firmware_c_on_host, tests/packaging/host_fw_test.sh). */
#include <stddef.h>
#include <stdint.h>

#include "attnrt/attnrt.h"
#include "model_data.h" /* attnrt_model_data[], ATTNRT_MODEL_PLAN_BATCH/SEQ */
#include "model_io.h"   /* model_input[], model_expected[] */
#include "semihost.h"

/* Room for the plan of either Cortex-M build (about 95 KB on the M7's SCALAR kernels).
 * With a plan made on the target, `attnrt embed --plan-from` gives the exact size as
 * ATTNRT_MODEL_ARENA_BYTES instead. .attnrt_arena is NOLOAD: not zeroed at start. */
#define ARENA_CAPACITY (128u * 1024u)
static uint8_t arena[ARENA_CAPACITY]
    __attribute__((section(".attnrt_arena"), aligned(ATTNRT_ARENA_ALIGNMENT)));

static attnrt_model model; /* a plain struct of fixed size: no heap */
static float output[MODEL_EXPECTED_ELEMENTS];

static int fail(const char* what, const char* message) {
  semihost_write0("consumer_fw: FAIL: ");
  semihost_write0(what);
  semihost_write0(": ");
  semihost_write0(message);
  semihost_write0("\n");
  return 1;
}

int main(void) {
  const size_t batch = ATTNRT_MODEL_PLAN_BATCH, seq = ATTNRT_MODEL_PLAN_SEQ;
  size_t arena_bytes = 0, i;
  float max_error = 0.0f, max_expected = 0.0f, sum = 0.0f, tolerance;
  int not_finite = 0;

  if (attnrt_model_open(&model, attnrt_model_data, ATTNRT_MODEL_SIZE) != ATTNRT_OK) {
    return fail("open", attnrt_model_message(&model));
  }
  if (attnrt_model_plan(&model, batch, seq, &arena_bytes) != ATTNRT_OK) {
    return fail("plan", attnrt_model_message(&model));
  }
  if (arena_bytes > sizeof(arena)) {
    return fail("plan", "the model needs a bigger arena than ARENA_CAPACITY");
  }
  if (batch * seq * attnrt_model_input_dim(&model) != MODEL_INPUT_ELEMENTS ||
      batch * seq * attnrt_model_output_dim(&model) != MODEL_EXPECTED_ELEMENTS) {
    return fail("shapes", "model_io.h does not match the embedded model");
  }
  if (attnrt_model_run(&model, model_input, batch, seq, output, arena, arena_bytes) !=
      ATTNRT_OK) {
    return fail("run", attnrt_model_message(&model));
  }

  for (i = 0; i < MODEL_EXPECTED_ELEMENTS; ++i) {
    float diff = output[i] - model_expected[i];
    float ref = model_expected[i] < 0.0f ? -model_expected[i] : model_expected[i];
    if (diff < 0.0f) diff = -diff;
    if (!(diff <= 3.4e38f)) not_finite = 1; /* NaN or inf never passes */
    if (diff > max_error) max_error = diff;
    if (ref > max_expected) max_expected = ref;
    sum += output[i];
  }
  tolerance = 1e-4f * (max_expected > 1.0f ? max_expected : 1.0f);

  semihost_write0("consumer_fw: arena_bytes=");
  semihost_write_size(arena_bytes);
  semihost_write0(" max_abs_error=");
  semihost_write_float(max_error, 9);
  semihost_write0(" tolerance=");
  semihost_write_float(tolerance, 9);
  semihost_write0(" output_sum=");
  semihost_write_float(sum, 4);
  semihost_write0("\n");
  if (not_finite || max_error > tolerance) {
    return fail("compare", "output differs from PyTorch's beyond the tolerance");
  }
  semihost_write0("consumer_fw: PASS\n");
  return 0;
}

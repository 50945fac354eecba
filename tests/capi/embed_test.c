/* `attnrt embed` output used from C99: demo_model.c defines the array once,
 * demo_model.h declares it; two translation units (this one and embed_other.c)
 * include the header and must see the same array. The arena is a static array
 * sized at compile time from DEMO_MODEL_ARENA_BYTES, the plan given with
 * --plan-from (made on this machine with --threads 1, so it must equal the C
 * API's plan here exactly). Exits 0 when every check holds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attnrt/attnrt.h"
#include "demo_model.h"

const void* other_view_of_model(void); /* embed_other.c */

static unsigned char g_arena[DEMO_MODEL_ARENA_BYTES] __attribute__((aligned(64)));
static float g_x[DEMO_MODEL_PLAN_BATCH * DEMO_MODEL_PLAN_SEQ * 64];
static float g_y[DEMO_MODEL_PLAN_BATCH * DEMO_MODEL_PLAN_SEQ * 64];

int main(void) {
  static attnrt_model m;
  size_t plan = 0, i;
  int failures = 0;
#define EXPECT(cond) \
  do { if (!(cond)) { ++failures; fprintf(stderr, "embed_test: failed: %s\n", #cond); } } while (0)
  EXPECT(sizeof(demo_model_data) == DEMO_MODEL_SIZE);
  EXPECT(other_view_of_model() == (const void*)demo_model_data);
  EXPECT((uintptr_t)demo_model_data % DEMO_MODEL_ALIGN == 0);
  EXPECT(DEMO_MODEL_ALIGN == 256);
  EXPECT(DEMO_MODEL_PLAN_THREADS == 1);
  EXPECT(attnrt_model_open(&m, demo_model_data, DEMO_MODEL_SIZE) == ATTNRT_OK);
  EXPECT(attnrt_model_input_dim(&m) == 64);
  /* The setting the header records (auto: embedded without --activations), set before planning. */
  EXPECT(DEMO_MODEL_ACTIVATIONS == ATTNRT_ACTIVATIONS_AUTO);
  EXPECT(attnrt_model_set_activations(&m, (attnrt_activations)DEMO_MODEL_ACTIVATIONS) == ATTNRT_OK);
  EXPECT(attnrt_model_plan(&m, DEMO_MODEL_PLAN_BATCH, DEMO_MODEL_PLAN_SEQ, &plan) == ATTNRT_OK);
#ifdef ATTNRT_EMBED_PLAN_FROM_ANOTHER_CPU
  /* A cross build planned under the emulator's default CPU; the test may run on a CPU
   * with narrower vectors, whose plan is smaller: the embedded arena must still fit. */
  EXPECT(plan <= DEMO_MODEL_ARENA_BYTES);
#else
  EXPECT(plan == DEMO_MODEL_ARENA_BYTES);
#endif
  for (i = 0; i < sizeof(g_x) / sizeof(g_x[0]); ++i) g_x[i] = (float)(i % 9) / 4.0f - 1.0f;
  EXPECT(attnrt_model_run(&m, g_x, DEMO_MODEL_PLAN_BATCH, DEMO_MODEL_PLAN_SEQ, g_y, g_arena,
                          sizeof(g_arena)) == ATTNRT_OK);
  EXPECT(attnrt_model_run(&m, g_x, DEMO_MODEL_PLAN_BATCH, DEMO_MODEL_PLAN_SEQ, g_y, g_arena,
                          plan - 1) == ATTNRT_ARENA_TOO_SMALL);
  printf("embed_test: %lu model bytes at %p, arena %lu bytes: %s\n",
         (unsigned long)DEMO_MODEL_SIZE, (const void*)demo_model_data, (unsigned long)plan,
         failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}

/* attnrt_model_set_activations (issue 32's `--activations auto|f32` in the C API), from C99,
 * on the bundled models converted with q8 weight matrices:
 *  - F32 runs the exact path: the logits (language model) and outputs (encoder) equal, bit
 *    for bit, the C++ API's with LinearActivations::kF32, the path `attnrt generate/run
 *    --activations f32` takes and tests/python's llama_torch_parity_*_exact_activations
 *    check against float64 PyTorch (capi_reference.cc);
 *  - AUTO equals the C++ API's kAuto run, differs from F32 (else the setting reached
 *    nothing), and stays within q8's tolerance of it (attnrt_cli.DTYPE_TOLERANCE["q8"]:
 *    8-bit activation blocks round like q8 weight rows do);
 *  - plans are those of the C++ API for each setting (the kernels' scratch differs), a run
 *    whose arena was planned for the other setting is refused when it is too small, and a
 *    session keeps the setting it started with;
 *  - values outside the enum, and a model that is not open, are refused with nothing changed;
 *  - attnrt_model_pack (the panel copies, in the caller's memory): none for F32 activations;
 *    where this CPU reads some (AVX-512 VNNI for q8), a short or misaligned buffer is refused
 *    by name with the model unchanged (the reference's bits), a packed session's logits are
 *    the C++ API's packed run's bit for bit and within q8's tolerance of the unpacked run's
 *    (q8's chunks of several rows run in panels from the copy or the rows, the same exact
 *    integer sums; a single row, as every logits row is, from the copy in panels, without it
 *    in row tiles, which round differently), and zeroed copies move them.
 * Usage: capi_activations_test ENCODER_Q8.attnrt LM_Q8.attnrt */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnrt/attnrt.h"
#include "c_test_support.h"
#include "capi_reference.h"


/* q8's tolerance against f32 weights (tests/python/attnrt_cli.py DTYPE_TOLERANCE), of
 * max(1, max |exact|): the integer path rounds activations to 8-bit blocks as q8 rounds
 * weight rows. */
#define AUTO_TOLERANCE 5e-2

#define ARENA_BYTES (8u << 20)
static void* g_arena;
static void* g_encoder;
static size_t g_encoder_bytes;
static void* g_lm;
static size_t g_lm_bytes;

static int contains(const char* text, const char* part) { return strstr(text, part) != NULL; }

/* Whether got is within AUTO_TOLERANCE * max(1, max |exact|) of exact everywhere (NaN: no). */
static int within_auto_tolerance(const float* got, const float* exact, size_t n) {
  double scale = 1.0, worst = 0.0;
  size_t i;
  for (i = 0; i < n; ++i) {
    if (fabs(exact[i]) > scale) scale = fabs(exact[i]);
  }
  for (i = 0; i < n; ++i) {
    const double d = fabs((double)got[i] - (double)exact[i]);
    if (!(d <= worst)) worst = d; /* NaN makes worst NaN */
  }
  printf("capi_activations_test: auto vs f32: max |diff| %.3g, bound %.3g\n", worst,
         AUTO_TOLERANCE * scale);
  return worst <= AUTO_TOLERANCE * scale;
}

/* ---- the encoder: attnrt_model_plan / attnrt_model_run ---- */
#define BATCH 2
#define SEQ 7
#define DIM 64
static float g_x[BATCH * SEQ * DIM];
static float g_want[2][BATCH * SEQ * DIM]; /* [activations] */
static size_t g_want_plan[2];
static float g_y[2][BATCH * SEQ * DIM];

static void test_encoder(void) {
  static attnrt_model m;
  size_t plan[2] = {0, 0}, bytes = 0;
  int a;
  CHECK_STATUS(attnrt_model_set_activations(&m, ATTNRT_ACTIVATIONS_F32), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_set_activations(NULL, ATTNRT_ACTIVATIONS_F32), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_open(&m, g_encoder, g_encoder_bytes), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &plan[0]), ATTNRT_OK); /* default: auto */
  CHECK(plan[0] == g_want_plan[0]);
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y[0], g_arena, plan[0]), ATTNRT_OK);
  CHECK(memcmp(g_y[0], g_want[0], sizeof(g_y[0])) == 0);
  for (a = 0; a < 2; ++a) {
    CHECK_STATUS(attnrt_model_set_activations(&m, (attnrt_activations)a), ATTNRT_OK);
    CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &plan[a]), ATTNRT_OK);
    CHECK(plan[a] == g_want_plan[a]);
    CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y[a], g_arena, plan[a]), ATTNRT_OK);
    CHECK(memcmp(g_y[a], g_want[a], sizeof(g_y[a])) == 0);
    CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y[a], g_arena, plan[a] - 1),
                 ATTNRT_ARENA_TOO_SMALL);
  }
  CHECK(memcmp(g_y[0], g_y[1], sizeof(g_y[0])) != 0);
  CHECK(within_auto_tolerance(g_y[0], g_y[1], BATCH * SEQ * DIM));
  /* Set too late: a run under the setting whose scratch is larger, with the arena planned
   * for the other, is refused by the run's own check, not overrun. */
  if (plan[0] != plan[1]) {
    a = plan[1] > plan[0];
    CHECK_STATUS(attnrt_model_set_activations(&m, (attnrt_activations)a), ATTNRT_OK);
    CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y[a], g_arena, plan[1 - a]),
                 ATTNRT_ARENA_TOO_SMALL);
    CHECK(contains(attnrt_model_message(&m), "arena too small"));
  } else {
    printf("capi_activations_test: auto and f32 plan alike here (%lu bytes)\n",
           (unsigned long)plan[0]);
  }
  /* Values outside the enum: refused, naming the value, with the setting unchanged. */
  CHECK_STATUS(attnrt_model_set_activations(&m, ATTNRT_ACTIVATIONS_F32), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_set_activations(&m, (attnrt_activations)2), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&m), "activations 2 is neither ATTNRT_ACTIVATIONS_AUTO"));
  CHECK_STATUS(attnrt_model_set_activations(&m, (attnrt_activations)-1), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&m), "is neither"));
  CHECK_STATUS(attnrt_model_set_activations(&m, (attnrt_activations)256), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&m), "activations 256 "));
  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &bytes), ATTNRT_OK);
  CHECK(bytes == plan[1]);
  CHECK_STATUS(attnrt_model_run(&m, g_x, BATCH, SEQ, g_y[0], g_arena, plan[1]), ATTNRT_OK);
  CHECK(memcmp(g_y[0], g_want[1], sizeof(g_y[0])) == 0);
  /* Re-opening starts from the default again. */
  CHECK_STATUS(attnrt_model_open(&m, g_encoder, g_encoder_bytes), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_plan(&m, BATCH, SEQ, &bytes), ATTNRT_OK);
  CHECK(bytes == g_want_plan[0]);
}

/* ---- the language model: attnrt_lm_plan / start / feed ---- */
#define MAX_SEQ 24
#define STEPS 8
#define VOCAB 256
static const int32_t kPrompt[] = {'I', 'n', ' ', 't', 'h', 'e', ' '};
#define PROMPT_LEN (sizeof(kPrompt) / sizeof(kPrompt[0]))
static int32_t g_want_tokens[2][STEPS];
static float g_want_logits[2][(STEPS + 1) * VOCAB];
static int32_t g_want_packed_tokens[STEPS];
static float g_want_packed_logits[(STEPS + 1) * VOCAB];  /* auto, panel copies made */
static size_t g_want_lm_plan[2];
static float g_logits[(STEPS + 1) * VOCAB];

/* A session of the model's current setting: the prompt, then the reference's tokens one at
 * a time (so a near tie cannot send the two runs apart); 0 when every feed succeeded. */
static int run_session(attnrt_model* m, size_t arena_bytes, const int32_t* tokens) {
  static attnrt_lm lm;
  size_t i;
  if (attnrt_lm_start(&lm, m, MAX_SEQ, g_arena, arena_bytes) != ATTNRT_OK ||
      attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, g_logits) != ATTNRT_OK) {
    fprintf(stderr, "session: %s\n", attnrt_lm_message(&lm));
    return 1;
  }
  for (i = 0; i < STEPS; ++i) {
    if (attnrt_lm_feed(&lm, &tokens[i], 1, g_logits + (i + 1) * VOCAB) != ATTNRT_OK) {
      fprintf(stderr, "feed: %s\n", attnrt_lm_message(&lm));
      return 1;
    }
  }
  return 0;
}

static void test_lm(void) {
  static attnrt_model m;
  static attnrt_lm lm;
  static float auto_logits[(STEPS + 1) * VOCAB];
  size_t plan[2] = {0, 0}, same = 0;
  int a;
  CHECK_STATUS(attnrt_model_open(&m, g_lm, g_lm_bytes), ATTNRT_OK);
  for (a = 0; a < 2; ++a) {
    CHECK_STATUS(attnrt_model_set_activations(&m, (attnrt_activations)a), ATTNRT_OK);
    CHECK_STATUS(attnrt_lm_plan(&m, MAX_SEQ, &plan[a]), ATTNRT_OK);
    CHECK(plan[a] == g_want_lm_plan[a]);
    CHECK_STATUS(attnrt_lm_start(&lm, &m, MAX_SEQ, g_arena, plan[a] - 1), ATTNRT_ARENA_TOO_SMALL);
    memset(g_logits, 0, sizeof(g_logits));
    CHECK(run_session(&m, plan[a], g_want_tokens[a]) == 0);
    CHECK(memcmp(g_logits, g_want_logits[a], sizeof(g_logits)) == 0);
    if (a == 0) memcpy(auto_logits, g_logits, sizeof(g_logits));
  }
  CHECK(memcmp(auto_logits, g_logits, sizeof(g_logits)) != 0);
  /* Compared while both runs were fed the same tokens (greedy may part at a near tie). */
  while (same < STEPS && g_want_tokens[0][same] == g_want_tokens[1][same]) ++same;
  CHECK(within_auto_tolerance(auto_logits, g_logits, (same + 1) * VOCAB));

  /* A session keeps the setting it started with: set to auto after an f32 start, its
   * feeds still give the f32 logits. */
  CHECK_STATUS(attnrt_model_set_activations(&m, ATTNRT_ACTIVATIONS_F32), ATTNRT_OK);
  CHECK_STATUS(attnrt_lm_start(&lm, &m, MAX_SEQ, g_arena, plan[1]), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_set_activations(&m, ATTNRT_ACTIVATIONS_AUTO), ATTNRT_OK);
  memset(g_logits, 0, sizeof(g_logits));
  CHECK_STATUS(attnrt_lm_feed(&lm, kPrompt, PROMPT_LEN, g_logits), ATTNRT_OK);
  CHECK(memcmp(g_logits, g_want_logits[1], VOCAB * sizeof(float)) == 0);
  CHECK_STATUS(attnrt_model_set_activations(&m, (attnrt_activations)7), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&m), "activations 7 "));
}

static void test_pack(void) {
  static attnrt_model m, never_opened;
  size_t bytes = 1, same = 0;
  unsigned char* buffer;
  CHECK_STATUS(attnrt_model_packed_bytes(&never_opened, &bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_open(&m, g_lm, g_lm_bytes), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_packed_bytes(&m, NULL), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&m), "bytes is NULL"));
  CHECK_STATUS(attnrt_model_set_activations(&m, ATTNRT_ACTIVATIONS_F32), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_packed_bytes(&m, &bytes), ATTNRT_OK);
  CHECK(bytes == 0);
  CHECK_STATUS(attnrt_model_set_activations(&m, ATTNRT_ACTIVATIONS_AUTO), ATTNRT_OK);
  CHECK_STATUS(attnrt_model_packed_bytes(&m, &bytes), ATTNRT_OK);
  printf("capi_activations_test: packed copies here: %zu bytes\n", bytes);
  if (bytes == 0) {  /* this CPU reads the weights as stored: packing changes nothing */
    CHECK_STATUS(attnrt_model_pack(&m, NULL, 0), ATTNRT_OK);
    return;
  }
  buffer = (unsigned char*)aligned(bytes + 64);
  if (buffer == NULL) {
    CHECK(buffer != NULL);
    return;
  }
  CHECK_STATUS(attnrt_model_pack(&m, NULL, bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK_STATUS(attnrt_model_pack(&m, buffer, bytes - 1), ATTNRT_BUFFER_TOO_SMALL);
  CHECK(contains(attnrt_model_message(&m), "need"));
  CHECK_STATUS(attnrt_model_pack(&m, buffer + 1, bytes), ATTNRT_INVALID_ARGUMENT);
  CHECK(contains(attnrt_model_message(&m), "aligned"));
  memset(g_logits, 0, sizeof(g_logits));
  CHECK(run_session(&m, g_want_lm_plan[0], g_want_tokens[0]) == 0);
  CHECK(memcmp(g_logits, g_want_logits[0], sizeof(g_logits)) == 0);
  CHECK_STATUS(attnrt_model_pack(&m, buffer, bytes), ATTNRT_OK);
  memset(g_logits, 0, sizeof(g_logits));
  CHECK(run_session(&m, g_want_lm_plan[0], g_want_packed_tokens) == 0);
  CHECK(memcmp(g_logits, g_want_packed_logits, sizeof(g_logits)) == 0);
  while (same < STEPS && g_want_packed_tokens[same] == g_want_tokens[0][same]) ++same;
  CHECK(within_auto_tolerance(g_want_logits[0], g_logits, (same + 1) * VOCAB));
  /* The copies are what runs: with the second half of the buffer (copies; the table of
   * them leads it and is far smaller) zeroed, the logits move. */
  memset(buffer + bytes / 2, 0, bytes - bytes / 2);
  CHECK(run_session(&m, g_want_lm_plan[0], g_want_packed_tokens) == 0);
  CHECK(memcmp(g_logits, g_want_packed_logits, sizeof(g_logits)) != 0);
  CHECK_STATUS(attnrt_model_open(&m, g_lm, g_lm_bytes), ATTNRT_OK);  /* lets go of buffer */
  free(buffer);
}

int main(int argc, char** argv) {
  size_t i;
  int a;
  if (argc != 3) {
    fprintf(stderr, "usage: %s ENCODER_Q8.attnrt LM_Q8.attnrt\n", argv[0]);
    return 2;
  }
  g_arena = aligned(ARENA_BYTES + 64);
  g_encoder = read_file(argv[1], &g_encoder_bytes);
  g_lm = read_file(argv[2], &g_lm_bytes);
  if (g_arena == NULL || g_encoder == NULL || g_lm == NULL) {
    fprintf(stderr, "cannot read the models\n");
    return 2;
  }
  for (i = 0; i < BATCH * SEQ * DIM; ++i) g_x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
  /* The C++ API's answers: a = 0 auto, 1 f32 (LinearActivations codes). */
  for (a = 0; a < 2; ++a) {
    if (ref_model_run(g_encoder, g_encoder_bytes, g_x, BATCH, SEQ, 1, a, g_want[a],
                      &g_want_plan[a]) != 0 ||
        ref_lm_greedy(g_lm, g_lm_bytes, MAX_SEQ, ATTNRT_KV_F32, a, 0, kPrompt, PROMPT_LEN,
                      STEPS, g_want_tokens[a], g_want_logits[a], &g_want_lm_plan[a]) != 0) {
      return 2;
    }
  }
  if (ref_lm_greedy(g_lm, g_lm_bytes, MAX_SEQ, ATTNRT_KV_F32, 0, 1, kPrompt, PROMPT_LEN, STEPS,
                    g_want_packed_tokens, g_want_packed_logits, NULL) != 0) {
    return 2;
  }
  test_encoder();
  test_lm();
  test_pack();
  printf("capi_activations_test: %d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}

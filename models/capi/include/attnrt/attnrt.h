/* attnrt/attnrt.h: the C API (C99; usable from C and C++).
 *
 * For firmware and for any caller that is not C++: the caller owns every byte.
 * Handles (attnrt_model, attnrt_lm) are complete types of fixed size that may be
 * declared statically or on the stack; the weight file and the arena are the
 * caller's buffers and must outlive the handles that use them. Nothing here
 * allocates, throws or prints. Every fallible call returns an attnrt_status
 * (ATTNRT_OK = 0) and the handle keeps a message for its last failure.
 *
 * Threads: a call runs serially unless the caller gives an attnrt_executor (a
 * host thread pool, see attnrt/thread_pool.h in the attnrt::threads library).
 * A plan is made for the executor that is set when planning, so set it first.
 */
#ifndef ATTNRT_ATTNRT_H_
#define ATTNRT_ATTNRT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The same codes, in the same order, as attnrt::StatusCode. */
typedef enum attnrt_status {
  ATTNRT_OK = 0,
  ATTNRT_INVALID_ARGUMENT = 1, /* a parameter is out of range or inconsistent */
  ATTNRT_SHAPE_MISMATCH = 2,   /* tensor shapes do not fit together */
  ATTNRT_ARENA_TOO_SMALL = 3,  /* the caller's arena cannot hold the plan */
  ATTNRT_BAD_FILE = 4,         /* a weight file failed validation */
  ATTNRT_UNSUPPORTED = 5,      /* valid request this model, kernel or build cannot serve */
  ATTNRT_OVERFLOW = 6,         /* a size computation overflowed size_t */
  ATTNRT_BUFFER_TOO_SMALL = 7  /* an output buffer is too small; the call reports the size */
} attnrt_status;

/* "ok", "invalid argument", ... for a code (never NULL). */
const char* attnrt_status_name(attnrt_status status);

/* Arena buffers must be aligned to this many bytes. */
#define ATTNRT_ARENA_ALIGNMENT 64

/* Spreads independent work items over workers (see attnrt::Executor).
 * parallel_for calls fn for disjoint ranges covering [0, items) with worker in
 * [0, workers(self)) and returns when all have finished; one worker runs its
 * ranges one at a time. */
typedef void (*attnrt_work_fn)(void* context, size_t begin, size_t end, size_t worker);
typedef struct attnrt_executor {
  void* self;
  size_t (*workers)(void* self);
  void (*parallel_for)(void* self, size_t items, attnrt_work_fn fn, void* context);
} attnrt_executor;

/* Opaque storage sizes; the implementation checks at compile time that the
 * C++ objects fit. They scale with the pointer size. */
#define ATTNRT_MODEL_STORAGE (1760 * sizeof(void*) + 512)
#define ATTNRT_LM_STORAGE (48 * sizeof(void*) + 256)

/* Aligned like the strictest scalar type. */
typedef union attnrt_storage_align_ {
  long double ld;
  long long ll;
  double d;
  void* p;
  void (*fn)(void);
} attnrt_storage_align_;

/* A loaded model: the validated weight file and the architecture read from it. */
typedef struct attnrt_model {
  union {
    unsigned char bytes[ATTNRT_MODEL_STORAGE];
    attnrt_storage_align_ align;
  } opaque;
} attnrt_model;

/* A language-model session: a KV cache in the caller's arena and a position. */
typedef struct attnrt_lm {
  union {
    unsigned char bytes[ATTNRT_LM_STORAGE];
    attnrt_storage_align_ align;
  } opaque;
} attnrt_lm;

/* ---- models ---------------------------------------------------------------- */

/* Validates a flat weight file (checksum included) of file_bytes bytes and reads
 * the model from it. The file stays the caller's: it must outlive *m. On failure
 * *m holds only the message (every other call on it fails). */
attnrt_status attnrt_model_open(attnrt_model* m, const void* file, size_t file_bytes);

/* The message of the last failed call on m ("ok" when none failed; never NULL). */
const char* attnrt_model_message(const attnrt_model* m);

/* Threads for later plans and runs of m and of sessions on m; NULL: serial.
 * The executor (copied) and whatever its self points to must outlive those calls. */
attnrt_status attnrt_model_set_executor(attnrt_model* m, const attnrt_executor* executor);

/* What the Linear layers' integer weights (q8, q4_0, q4_K, q6_K) multiply; the CLI's
 * `--activations auto|f32`. AUTO rounds each Linear input to 8-bit blocks for the
 * integer kernel (faster; within the integer path's rounding of the exact result);
 * F32 widens the weights and keeps the activations f32, exact in the stored
 * weights (slower). Other weight types always run on f32 activations, so the
 * setting changes nothing for them. */
typedef enum attnrt_activations {
  ATTNRT_ACTIVATIONS_AUTO = 0,
  ATTNRT_ACTIVATIONS_F32 = 1
} attnrt_activations;

/* The activations of later plans, runs and sessions of m (default
 * ATTNRT_ACTIVATIONS_AUTO). The kernels' scratch differs between the two, and a plan
 * is made for the setting in force when planning (nothing is planned at open), so
 * set it first, as the executor and the KV-cache type: attnrt_model_run refuses an
 * arena planned for the other setting that is too small (ATTNRT_ARENA_TOO_SMALL),
 * and a session keeps the setting it started with (set it again, then plan and
 * start a new session to change it). Another value is ATTNRT_INVALID_ARGUMENT
 * with nothing changed. */
attnrt_status attnrt_model_set_activations(attnrt_model* m, attnrt_activations activations);

/* Panel copies: the layout this machine's integer Linear reads faster than the weights
 * as stored (x86 with AVX2 or AVX-512: q4_0, q8, q4_K and q6_K matrices), the same values
 * reordered. The CLI makes them at load; a C caller opts in, with
 * memory of its own, as much again as those matrices take in the file.
 * *bytes: the buffer attnrt_model_pack needs for the activations now set; 0 when no
 * matrix of m has a copy here (another CPU or weight type, or ATTNRT_ACTIVATIONS_F32). */
attnrt_status attnrt_model_packed_bytes(const attnrt_model* m, size_t* bytes);
/* Writes the copies into buffer (64-byte aligned, at least attnrt_model_packed_bytes
 * bytes, to outlive every later plan, run and session of m) and runs m from them from
 * then on. Results stay within the integer path's bounds: bit for bit those of the
 * weights as stored, except that q4_K's and q8's single rows (a decode step) then
 * sum as their panels do. A short or misaligned buffer is refused by name with nothing
 * changed; bytes == 0 when nothing has a copy is ATTNRT_OK (buffer may be NULL). */
attnrt_status attnrt_model_pack(attnrt_model* m, void* buffer, size_t bytes);

/* Width of one input row (model dim; channels*image*image for vit) and of one
 * output row (model dim, or classes for vit); 0 when m is not open. */
size_t attnrt_model_input_dim(const attnrt_model* m);
size_t attnrt_model_output_dim(const attnrt_model* m);

/* Exact arena bytes for attnrt_model_run at this batch and sequence length. */
attnrt_status attnrt_model_plan(const attnrt_model* m, size_t batch, size_t seq,
                                size_t* arena_bytes);

/* One forward pass. x: (batch, seq, input_dim) floats in the model's layout
 * ((seq, batch, ...) when its config says batch_first false); y: (batch, seq,
 * output_dim) floats, or (batch, output_dim) for vit. arena: at least the plan's
 * bytes, ATTNRT_ARENA_ALIGNMENT-aligned. The model's own causal rule applies. */
attnrt_status attnrt_model_run(attnrt_model* m, const float* x, size_t batch, size_t seq,
                               float* y, void* arena, size_t arena_bytes);

/* ---- language models ------------------------------------------------------- */

/* Vocabulary size; 0 when m is not a language model. */
size_t attnrt_lm_vocab(const attnrt_model* m);

/* The model's end-of-sequence token ids, as `attnrt convert HF_DIR` records them
 * (generation_config.json's eos_token_id, else config.json's): writes up to capacity of them
 * to ids (may be NULL when capacity is 0) and the number the model has to *count (0 when it
 * records none). ATTNRT_BUFFER_TOO_SMALL when *count > capacity (ids holds the first
 * capacity); ATTNRT_INVALID_ARGUMENT when m is not a language model. */
attnrt_status attnrt_lm_eos(const attnrt_model* m, int32_t* ids, size_t capacity,
                            size_t* count);

/* How a session stores its KV cache (the same codes as the weight file's types).
 * f16 halves the cache, q8 (int8 with one f32 scale per row of head_dim values)
 * quarters it; the attention kernels widen the rows in registers. */
typedef enum attnrt_kv_type {
  ATTNRT_KV_F32 = 1,
  ATTNRT_KV_F16 = 2,
  ATTNRT_KV_Q8 = 4
} attnrt_kv_type;

/* The KV-cache type of later plans and sessions of language model m (default
 * ATTNRT_KV_F32). A plan is made for the type set when planning, so set it first.
 * Refused for a model that is not a language model and for other values. */
attnrt_status attnrt_model_set_kv_type(attnrt_model* m, attnrt_kv_type kv_type);

/* Exact arena bytes for a session of max_seq positions (cache included). */
attnrt_status attnrt_lm_plan(const attnrt_model* m, size_t max_seq, size_t* arena_bytes);

/* Starts a session at position 0 with its KV cache in arena, which must hold
 * attnrt_lm_plan's bytes (checked here); m and arena must outlive lm. On
 * failure lm keeps only the message. */
attnrt_status attnrt_lm_start(attnrt_lm* lm, attnrt_model* m, size_t max_seq, void* arena,
                              size_t arena_bytes);

/* Appends n tokens (each in [0, vocab)); writes the logits of the last one
 * (vocab floats) unless logits is NULL. Refused, with nothing changed, when a
 * token is out of range or the position would pass max_seq. */
attnrt_status attnrt_lm_feed(attnrt_lm* lm, const int32_t* tokens, size_t n, float* logits);

/* Back to position 0. */
void attnrt_lm_reset(attnrt_lm* lm);

/* Tokens fed since the start or the last reset. */
size_t attnrt_lm_position(const attnrt_lm* lm);

/* The message of the last failed call on lm (never NULL). */
const char* attnrt_lm_message(const attnrt_lm* lm);

/* ---- sampling ---------------------------------------------------------------- */

typedef struct attnrt_sampling {
  float temperature; /* 0: greedy (the first of equal maxima) */
  size_t top_k;      /* 0: no top-k filter */
  float top_p;       /* in (0, 1]; 1: no nucleus filter */
} attnrt_sampling;

/* The generator state for a seed (same seed, same tokens on every platform). */
uint64_t attnrt_sampling_seed(uint64_t seed);

/* The next token from vocab logits: temperature, then top-k, then top-p, as
 * Hugging Face's generate. params NULL: greedy. probabilities and order are the
 * caller's scratch of vocab elements each (unused when greedy: may be NULL).
 * A NaN or +inf logit, or no finite one, is ATTNRT_INVALID_ARGUMENT (a broken
 * model, not a choice); -inf masks a token. */
attnrt_status attnrt_sample(const float* logits, size_t vocab, const attnrt_sampling* params,
                            uint64_t* state, float* probabilities, uint32_t* order,
                            int32_t* token);

/* ---- scaled dot-product attention on raw buffers ---------------------------- */

typedef enum attnrt_mask_kind {
  ATTNRT_MASK_NONE = 0,
  ATTNRT_MASK_BOOL = 1,    /* uint8 per element: nonzero = may attend */
  ATTNRT_MASK_ADDITIVE = 2 /* float per element, added to the scaled scores */
} attnrt_mask_kind;

typedef enum attnrt_causal {
  ATTNRT_CAUSAL_NONE = 0,
  ATTNRT_CAUSAL_UPPER_LEFT = 1, /* PyTorch is_causal: query i sees keys j <= i */
  ATTNRT_CAUSAL_LOWER_RIGHT = 2 /* KV-cache alignment: keys j <= i + S - L */
} attnrt_causal;

/* torch.nn.functional.scaled_dot_product_attention on contiguous row-major
 * tensors: q (batch, q_heads, q_len, qk_dim), k (batch, kv_heads, kv_len,
 * qk_dim), v (batch, kv_heads, kv_len, v_dim) -> out (batch, q_heads, q_len,
 * v_dim); q_heads a multiple of kv_heads. A row that may attend to no key
 * yields zeros. */
typedef struct attnrt_sdpa_params {
  size_t batch, q_heads, kv_heads, q_len, kv_len, qk_dim, v_dim;
  const float* q;
  const float* k;
  const float* v;
  float* out;
  float* weights;   /* optional (batch, q_heads, q_len, kv_len) softmax weights; NULL: none */
  float scale;      /* 0: 1/sqrt(qk_dim), PyTorch's default */
  attnrt_mask_kind mask_kind;
  const void* mask; /* (mask_batch, mask_heads, q_len, kv_len) */
  size_t mask_batch; /* 1 (broadcast) or batch */
  size_t mask_heads; /* 1 (broadcast) or q_heads */
  attnrt_causal causal;
  const char* kernel; /* a variant name (`attnrt kernels`); NULL: chosen by shape */
} attnrt_sdpa_params;

/* A message buffer for calls without a handle. */
typedef struct attnrt_message {
  char text[200];
} attnrt_message;

/* Exact arena bytes (kernel scratch) attnrt_sdpa needs with this executor
 * (NULL: serial). message may be NULL. */
attnrt_status attnrt_sdpa_plan(const attnrt_sdpa_params* p, const attnrt_executor* executor,
                               size_t* arena_bytes, attnrt_message* message);

/* Validates and runs; arena holds at least the plan's bytes (may be NULL when
 * that is 0). message may be NULL. */
attnrt_status attnrt_sdpa(const attnrt_sdpa_params* p, const attnrt_executor* executor,
                          void* arena, size_t arena_bytes, attnrt_message* message);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNRT_ATTNRT_H_ */

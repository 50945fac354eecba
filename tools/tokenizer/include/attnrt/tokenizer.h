/* attnrt/tokenizer.h: the tokenizer of a converted model file, from C (C99), for host builds
 * (library attnrt::tokenizer_c; firmware has no tokenizer: it takes token ids).
 *
 * The tokenizer is the Hugging Face one `attnrt convert HF_DIR` stores in the model file (the
 * same engine and loader as `attnrt tokenize`): attnrt_tokenize gives the ids transformers'
 * tokenizer(text)["input_ids"] gives, attnrt_detokenize the text of tokenizer.decode(ids).
 *
 * Opening allocates the tokenizer (its vocabulary and merges) on the heap; attnrt_tokenize and
 * attnrt_detokenize write into the caller's buffers and keep their working memory in the
 * handle, reused from call to call. A buffer that is too small is ATTNRT_BUFFER_TOO_SMALL with
 * the size it needs reported, so a caller can size its buffer and call again. Errors are kept
 * as a message in the handle; no exception crosses this API. A handle serves one thread at a
 * time. */
#ifndef ATTNRT_TOKENIZER_H_
#define ATTNRT_TOKENIZER_H_

#include <stddef.h>
#include <stdint.h>

#include "attnrt/attnrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct attnrt_tokenizer attnrt_tokenizer;

/* Loads the tokenizer of the model file at file (file_bytes bytes, the bytes
 * attnrt_model_open takes; they need not outlive the tokenizer). On success *out is the
 * handle; on failure *out is NULL and message (may be NULL) says why, e.g. a model without a
 * tokenizer or a tokenizer component attnrt does not support, by name. */
attnrt_status attnrt_tokenizer_open(attnrt_tokenizer** out, const void* file, size_t file_bytes,
                                    attnrt_message* message);

/* Frees the tokenizer (NULL: nothing). */
void attnrt_tokenizer_close(attnrt_tokenizer* t);

/* The message of the last failed call on t ("ok" when none failed; never NULL). */
const char* attnrt_tokenizer_message(const attnrt_tokenizer* t);

/* text (text_bytes bytes of UTF-8; may be NULL when 0) -> token ids. add_special_tokens
 * nonzero adds what the tokenizer adds around a text (BOS, ...), as add_special_tokens=True.
 * Writes *count ids to ids; ATTNRT_BUFFER_TOO_SMALL when more than capacity (ids untouched,
 * *count the number needed); ATTNRT_INVALID_ARGUMENT for text that is not UTF-8. */
attnrt_status attnrt_tokenize(attnrt_tokenizer* t, const char* text, size_t text_bytes,
                              int add_special_tokens, int32_t* ids, size_t capacity,
                              size_t* count);

/* ids (count of them; ids that name no token are left out, as Hugging Face does) -> UTF-8
 * text. skip_special_tokens nonzero leaves out special tokens. Writes *length bytes and a
 * terminating NUL to text; ATTNRT_BUFFER_TOO_SMALL when length + 1 > capacity (text untouched,
 * *length the bytes needed without the NUL). A negative id is ATTNRT_INVALID_ARGUMENT. */
attnrt_status attnrt_detokenize(attnrt_tokenizer* t, const int32_t* ids, size_t count,
                                int skip_special_tokens, char* text, size_t capacity,
                                size_t* length);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNRT_TOKENIZER_H_ */

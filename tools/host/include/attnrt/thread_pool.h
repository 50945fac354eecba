/* attnrt/thread_pool.h: the host thread pool for the C API (hosts only; the
 * attnrt::threads library). Creating and destroying a pool allocates and starts
 * threads; running through its executor does not. Firmware runs serially and
 * does not link this. */
#ifndef ATTNRT_THREAD_POOL_H_
#define ATTNRT_THREAD_POOL_H_

#include <stddef.h>

#include "attnrt/attnrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct attnrt_thread_pool attnrt_thread_pool;

/* A pool of `workers` workers counting the calling thread (0: one per hardware
 * thread). On failure *pool is NULL and message (may be NULL) says why. */
attnrt_status attnrt_thread_pool_create(size_t workers, attnrt_thread_pool** pool,
                                        attnrt_message* message);

/* Stops the threads and frees the pool; NULL is ignored. */
void attnrt_thread_pool_destroy(attnrt_thread_pool* pool);

/* The pool as an executor for attnrt_model_set_executor / attnrt_sdpa; valid
 * while the pool lives. */
attnrt_executor attnrt_thread_pool_executor(attnrt_thread_pool* pool);

#ifdef __cplusplus
}
#endif

#endif /* ATTNRT_THREAD_POOL_H_ */

// The C face of ThreadPool (attnrt/thread_pool.h): a heap-allocated pool and an
// attnrt_executor whose calls go to it. Exceptions stop here.
#include "attnrt/thread_pool.h"

#include <cstdio>
#include <new>
#include <system_error>

#include "host/thread_pool.h"

struct attnrt_thread_pool {
  explicit attnrt_thread_pool(size_t workers) : pool(workers) {}
  attnrt::ThreadPool pool;
};

namespace {

void Say(attnrt_message* message, const char* text) {
  if (message != nullptr) std::snprintf(message->text, sizeof(message->text), "%s", text);
}

size_t PoolWorkers(void* self) { return static_cast<attnrt_thread_pool*>(self)->pool.workers(); }

void PoolParallelFor(void* self, size_t items, attnrt_work_fn fn, void* context) {
  static_cast<attnrt_thread_pool*>(self)->pool.ParallelFor(items, fn, context);
}

}  // namespace

extern "C" attnrt_status attnrt_thread_pool_create(size_t workers, attnrt_thread_pool** pool,
                                                   attnrt_message* message) {
  if (pool == nullptr) {
    Say(message, "pool is NULL");
    return ATTNRT_INVALID_ARGUMENT;
  }
  *pool = nullptr;
  if (workers == 0) workers = attnrt::DefaultThreadCount();
  try {
    *pool = new attnrt_thread_pool(workers);
  } catch (const std::system_error& e) {
    Say(message, e.what());
    return ATTNRT_UNSUPPORTED;
  } catch (const std::bad_alloc&) {
    Say(message, "out of memory creating the thread pool");
    return ATTNRT_UNSUPPORTED;
  }
  Say(message, "ok");
  return ATTNRT_OK;
}

extern "C" void attnrt_thread_pool_destroy(attnrt_thread_pool* pool) { delete pool; }

extern "C" attnrt_executor attnrt_thread_pool_executor(attnrt_thread_pool* pool) {
  attnrt_executor e = {pool, PoolWorkers, PoolParallelFor};
  if (pool == nullptr) e.workers = nullptr;  // refused by attnrt_model_set_executor
  return e;
}

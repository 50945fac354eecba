// See mapping_guard.h.
#include "host/mapping_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "output/output_file.h"

namespace attnrt {
namespace {

constexpr int kSlots = 16;

struct Guarded {
  std::atomic<uintptr_t> begin{0};  // 0: the slot is free
  uintptr_t end = 0;
  char path[PATH_MAX];
};
Guarded g_guarded[kSlots];
std::atomic<int> g_faulted{-1};  // the first slot that faulted
char g_faulted_path[PATH_MAX];   // its path, copied by the handler (the slot may be reused)
std::mutex g_claim;

extern "C" void ZeroPageOverFault(int sig, siginfo_t* info, void*) {
  const int saved = errno;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (int i = 0; i < kSlots; ++i) {
    Guarded& g = g_guarded[i];
    const uintptr_t begin = g.begin.load(std::memory_order_acquire);
    if (begin == 0 || addr < begin || addr >= g.end) continue;
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    void* at = reinterpret_cast<void*>(addr & ~(page - 1));
    // mmap is a plain system call on Linux, safe here though POSIX does not list it.
    if (mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
      int none = -1;
      if (g_faulted.compare_exchange_strong(none, i)) {
        std::memcpy(g_faulted_path, g.path, sizeof(g_faulted_path));
      }
      errno = saved;
      return;  // the load is retried and reads zeros
    }
    break;
  }
  // Not ours (or no zero page could be mapped): the default action, as if never handled.
  signal(sig, SIG_DFL);
  errno = saved;
}

void InstallHandler() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = ZeroPageOverFault;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, nullptr);
}

}  // namespace

int GuardMapping(const void* data, size_t size, const std::string& path) {
  std::lock_guard<std::mutex> lock(g_claim);
  static bool installed = false;
  if (!installed) {
    InstallHandler();
    SetCommitCheck(MappedInputsIntact);  // no output is committed from a run on zeros
    installed = true;
  }
  for (int i = 0; i < kSlots; ++i) {
    Guarded& g = g_guarded[i];
    if (g.begin.load(std::memory_order_relaxed) != 0) continue;
    const size_t n = path.size() < sizeof(g.path) - 1 ? path.size() : sizeof(g.path) - 1;
    std::memcpy(g.path, path.data(), n);
    g.path[n] = '\0';
    g.end = reinterpret_cast<uintptr_t>(data) + size;
    g.begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
    return i;
  }
  return -1;
}

void UnguardMapping(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  g_guarded[slot].begin.store(0, std::memory_order_release);
}

bool MappedInputsIntact(std::string* why) {
  if (g_faulted.load(std::memory_order_acquire) < 0) return true;
  if (why != nullptr) {
    *why = std::string(g_faulted_path) +
           ": the file shrank (was truncated or rewritten) while it was mapped; results computed "
           "from it are refused";
  }
  return false;
}

}  // namespace attnrt

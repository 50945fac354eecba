// See temp_cleanup.h.
#include "output/temp_cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>

namespace attnrt {
namespace {

// A command has at most a few outputs open at once (sdpa: --out and --weights-out; embed:
// the .c and the .h).
constexpr int kSlots = 8;

struct Slot {
  std::atomic<int> live{0};  // 1 while `path` names a temporary file to remove
  char path[PATH_MAX];
};
Slot g_slots[kSlots];
std::mutex g_claim;  // claiming a slot (never taken in the handler)

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void RemoveTempsAndReraise(int sig) {
  const int saved = errno;
  for (Slot& s : g_slots) {
    if (s.live.load(std::memory_order_acquire) == 1) unlink(s.path);
  }
  errno = saved;
  // The default action ends the process with this signal once the handler returns (the
  // signal is blocked until then).
  signal(sig, SIG_DFL);
  raise(sig);
}

void InstallHandlers() {
  for (int sig : kSignals) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = RemoveTempsAndReraise;
    sigfillset(&action.sa_mask);  // no second signal interrupts the cleanup
    sigaction(sig, &action, nullptr);
  }
}

// The slot now holding `path`, or -1. Called with g_claim held and the signals blocked.
int Remember(const char* path) {
  const size_t n = std::strlen(path);
  if (n >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.live.load(std::memory_order_relaxed) != 0) continue;
    std::memcpy(s.path, path, n + 1);
    s.live.store(1, std::memory_order_release);  // the path is complete before it is live
    return i;
  }
  return -1;
}

}  // namespace

// Blocking covers the calling thread; a worker thread of a command's pool could still take
// the signal in the few instructions between mkstemp and Remember.
int MakeRememberedTemp(char* pattern, int* slot) {
  std::lock_guard<std::mutex> lock(g_claim);
  static bool installed = false;
  if (!installed) {
    InstallHandlers();
    installed = true;
  }
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : kSignals) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  const int fd = mkstemp(pattern);
  const int err = errno;
  *slot = fd < 0 ? -1 : Remember(pattern);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);  // a pending signal is handled here
  errno = err;
  return fd;
}

void ForgetTemp(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  g_slots[slot].live.store(0, std::memory_order_release);
}

}  // namespace attnrt

// sdpa_count_fw: runs one SDPA call `reps` times so that the guest instructions of a
// single call can be counted under emulation (toolchains/boards/insn_count_plugin.c):
// count(reps = 1) - count(reps = 0) is one call through the runtime, set-up excluded.
// Not a test; tests/firmware/sdpa_insn_counts.sh drives it.
//
// The call comes from the semihosting command line (SYS_GET_CMDLINE), given to qemu as
//   -semihosting-config enable=on,target=native,arg=KERNEL,arg=B,arg=H,arg=L,arg=S,
//                       arg=E,arg=EV,arg=CAUSAL,arg=REPS
// with CAUSAL one of none, upper-left, lower-right. Exit code 0 on success, 2 on bad
// arguments, 1 if the call failed.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sdpa_fw_case.h"

using attnrt_fw::Print;
using attnrt_fw::PrintSize;

namespace {

char g_cmdline[256];
ATTNRT_FW_BULK(g_out) float g_out[attnrt_fw::kMaxOut];

bool ParseCausal(const char* text, attnrt::CausalKind* causal) {
  if (strcmp(text, "none") == 0) *causal = attnrt::CausalKind::kNone;
  else if (strcmp(text, "upper-left") == 0) *causal = attnrt::CausalKind::kUpperLeft;
  else if (strcmp(text, "lower-right") == 0) *causal = attnrt::CausalKind::kLowerRight;
  else return false;
  return true;
}

}  // namespace

int main() {
  char* w[9];
  attnrt_fw::SdpaCase c = attnrt_fw::SdpaCase("count").Seed(7);
  size_t reps = 0;
  const attnrt::SdpaKernel* kernel = nullptr;
  if (semihost_read_cmdline(g_cmdline, sizeof(g_cmdline)) < 0 ||
      semihost_split_words(g_cmdline, w, 9) != 9 ||
      (kernel = attnrt::FindSdpaKernel(w[0])) == nullptr ||
      !semihost_parse_size(w[1], &c.batch) || !semihost_parse_size(w[2], &c.q_heads) ||
      !semihost_parse_size(w[3], &c.L) || !semihost_parse_size(w[4], &c.S) ||
      !semihost_parse_size(w[5], &c.E) || !semihost_parse_size(w[6], &c.Ev) ||
      !ParseCausal(w[7], &c.causal) || !semihost_parse_size(w[8], &reps)) {
    Print("sdpa_count: usage: KERNEL B H L S E EV none|upper-left|lower-right REPS (got '");
    Print(g_cmdline);
    Print("')\n");
    return 2;
  }
  c.kv_heads = c.q_heads;
  attnrt::SdpaParams p;
  if (!attnrt_fw::SetUpCase(c, &p)) return 2;
  p.out = g_out;
  for (size_t r = 0; r < reps; ++r) {
    const attnrt::Status st = attnrt_fw::RunCase(p, *kernel);
    if (!st.ok()) {
      Print("sdpa_count: FAIL: ");
      Print(st.message());
      Print("\n");
      return 1;
    }
  }
  Print("sdpa_count: kernel=");
  Print(kernel->name);
  PrintSize(" reps=", reps);
  Print(" out[0]=");
  semihost_write_float(g_out[0], 6);
  Print("\n");
  return 0;
}

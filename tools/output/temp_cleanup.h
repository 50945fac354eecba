// TempCleanup: the temporary files OutputFile has open, removed if the process is ended by
// SIGINT, SIGTERM or SIGHUP (issue 34: Ctrl-C during `convert` left `.OUT.tmp-XXXXXX`
// behind, gigabytes for a real model). The target is never touched: it only ever changes
// by the final rename.
//
// The list is a fixed array of slots the signal handler reads without locks; the handler
// unlinks every live path (unlink is async-signal-safe), restores the default action and
// re-raises, so the process still ends by that signal. A signal the process ignores (nohup
// sets SIGHUP to SIG_IGN) stays ignored. Host-only (tools layer).
#pragma once

namespace attnrt {

// mkstemp(pattern), remembering the file it creates until ForgetTemp; installs the handlers
// first. The signals are blocked from before the file exists until it is remembered, so no
// signal can end the process in between. Returns mkstemp's descriptor (-1 with errno) and sets
// *slot, or -1 there when the path is too long or every slot is taken (then the file is still
// removed on every ordinary exit path, just not on a signal).
int MakeRememberedTemp(char* pattern, int* slot);
// Forgets the slot RememberTemp returned (-1: nothing).
void ForgetTemp(int slot);

}  // namespace attnrt

// MappingGuard: survives a mapped input file that shrinks while it is in use (issue 34:
// `generate BIG.attnrt &` and the file truncated or rewritten in place died of SIGBUS, exit 135).
//
// Why not the alternatives: MAP_PRIVATE is no snapshot (unmodified pages still come from the
// file, and truncation removes them); copying the file into memory gives up mapping weights
// in place; siglongjmp out of the handler cannot unwind a worker thread of the pool. Instead a
// SIGBUS inside a guarded mapping puts a zero page over the faulting page and records the
// fault; the run finishes on zeros, and every result is then refused: the commit of each output
// file (OutputFile's commit check), each generated token, and the exit status (main). A SIGBUS
// outside every guarded mapping keeps its default action. Host-only (tools layer).
#pragma once

#include <cstddef>
#include <string>

namespace attnrt {

// Guards [data, data + size), a read-only mapping of `path`; installs the handler on first use.
// Returns the slot for UnguardMapping, or -1 when every slot is taken (then unguarded).
int GuardMapping(const void* data, size_t size, const std::string& path);
// Stops guarding (call before munmap).
void UnguardMapping(int slot);
// False, with *why naming the file, once any guarded mapping lost pages to a shrunk file.
bool MappedInputsIntact(std::string* why);

}  // namespace attnrt

// OutputFile: how every attnrt command writes a file, so that a failure never
// destroys one. The bytes go to a temporary file beside the target (same
// directory, so the final rename is atomic), and only Commit() renames it over
// the target. Until then, and whenever anything fails, the target is exactly as
// it was; the temporary is removed. A target that exists but is not a regular
// file (a device node such as /dev/full, a FIFO, a directory) is refused rather
// than replaced; a symlink is followed, so the file it names is replaced and the
// link stays.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace attnrt {

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile() { Discard(); }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Creates the temporary file for `path`; false (with a message naming the
  // path) when the target cannot be replaced.
  bool Open(const std::string& path, std::string* error);
  // Appends n bytes. A failure is remembered and reported by Commit as well.
  bool Write(const void* data, size_t n, std::string* error);
  // Flushes and closes the temporary, then renames it over the target.
  bool Commit(std::string* error);
  // Removes the temporary (if any); the target is left untouched.
  void Discard();

  const std::string& path() const { return path_; }

 private:
  bool Fail(const std::string& what, int err, std::string* error);

  std::string path_;    // as the caller named it, for messages
  std::string target_;  // what the rename replaces (a symlink resolved)
  std::string temp_;
  int temp_slot_ = -1;  // its TempCleanup slot: removed on SIGINT / SIGTERM / SIGHUP too
  std::FILE* stream_ = nullptr;
  int write_errno_ = 0;
  bool write_failed_ = false;
};

// A check every Commit runs before its rename; false (with *why) refuses the commit and removes
// the temporary. The host tools set one that refuses once a mapped input lost pages
// (host/mapping_guard.h): an output computed from zeros must not replace a file. Null: none.
using CommitCheck = bool (*)(std::string* why);
void SetCommitCheck(CommitCheck check);

// Writes `bytes` to `path` through an OutputFile.
bool WriteOutputFile(const std::string& path, const void* bytes, size_t n, std::string* error);

// True when both paths name the same existing file (device and inode, so links
// and different spellings count), or the same path once the directory part is
// resolved when the file does not exist yet.
bool SameFile(const std::string& a, const std::string& b);

}  // namespace attnrt

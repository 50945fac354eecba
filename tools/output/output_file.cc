// OutputFile (see output_file.h).
// 64-bit stat on 32-bit builds too, so a target past 2 GiB is still seen as existing.
#define _FILE_OFFSET_BITS 64

#include "output/output_file.h"

#include "output/temp_cleanup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace attnrt {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseNameOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The absolute form of `path` with its directory resolved (the file itself may not exist).
bool ResolvedPath(const std::string& path, std::string* out) {
  char buffer[PATH_MAX];
  if (realpath(path.c_str(), buffer) != nullptr) {
    *out = buffer;
    return true;
  }
  if (realpath(DirectoryOf(path).c_str(), buffer) == nullptr) return false;
  *out = std::string(buffer) + "/" + BaseNameOf(path);
  return true;
}

// Permissions for a new file: what the target had, or 0666 less the umask.
mode_t ModeFor(const struct stat* existing) {
  if (existing != nullptr) return existing->st_mode & 07777;
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

namespace {
std::atomic<CommitCheck> g_commit_check{nullptr};
}  // namespace

void SetCommitCheck(CommitCheck check) { g_commit_check.store(check); }

bool OutputFile::Fail(const std::string& what, int err, std::string* error) {
  *error = path_ + ": " + what + (err != 0 ? std::string(": ") + std::strerror(err) : "");
  Discard();
  return false;
}

bool OutputFile::Open(const std::string& path, std::string* error) {
  Discard();
  path_ = path;
  if (path.empty()) return Fail("empty output path", 0, error);
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    return Fail(S_ISDIR(st.st_mode) ? "is a directory, not a file"
                                    : "exists and is not a regular file (a device, FIFO or "
                                      "socket); attnrt replaces regular files only",
                0, error);
  }
  struct stat lst;
  if (!exists && lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    return Fail("is a symlink to a file that does not exist", 0, error);
  }
  if (!ResolvedPath(path, &target_)) return Fail("cannot write into its directory", errno, error);
  std::string pattern = DirectoryOf(target_) + "/." + BaseNameOf(target_) + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = MakeRememberedTemp(name.data(), &temp_slot_);
  if (fd < 0) return Fail("cannot create a temporary file beside it", errno, error);
  temp_ = name.data();
  if (fchmod(fd, ModeFor(exists ? &st : nullptr)) != 0) {
    const int err = errno;
    close(fd);
    return Fail("cannot set the temporary file's mode", err, error);
  }
  stream_ = fdopen(fd, "wb");
  if (stream_ == nullptr) {
    const int err = errno;
    close(fd);
    return Fail("cannot open the temporary file", err, error);
  }
  write_failed_ = false;
  write_errno_ = 0;
  return true;
}

bool OutputFile::Write(const void* data, size_t n, std::string* error) {
  if (stream_ == nullptr) {
    *error = path_ + ": not open for writing";
    return false;
  }
  if (write_failed_) return Fail("cannot write", write_errno_, error);
  errno = 0;
  if (n != 0 && std::fwrite(data, 1, n, stream_) != n) {
    write_failed_ = true;
    write_errno_ = errno != 0 ? errno : EIO;
    return Fail("cannot write", write_errno_, error);
  }
  return true;
}

bool OutputFile::Commit(std::string* error) {
  if (stream_ == nullptr) {
    *error = path_ + ": not open for writing";
    return false;
  }
  if (write_failed_) return Fail("cannot write", write_errno_, error);
  std::string why;
  const CommitCheck check = g_commit_check.load();
  if (check != nullptr && !check(&why)) {
    *error = path_ + ": not written: " + why;
    Discard();
    return false;
  }
  errno = 0;
  const bool flushed = std::fflush(stream_) == 0;
  int err = errno;
  const bool closed = std::fclose(stream_) == 0;
  if (flushed && !closed) err = errno;
  stream_ = nullptr;
  if (!flushed || !closed) return Fail("cannot write", err != 0 ? err : EIO, error);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    return Fail("cannot replace it with the written file", errno, error);
  }
  // A signal between the rename and here unlinks a name that no longer exists: harmless.
  ForgetTemp(temp_slot_);
  temp_slot_ = -1;
  temp_.clear();
  return true;
}

void OutputFile::Discard() {
  if (stream_ != nullptr) {
    std::fclose(stream_);
    stream_ = nullptr;
  }
  if (!temp_.empty()) {
    unlink(temp_.c_str());  // only ever the temporary this object created
    ForgetTemp(temp_slot_);
    temp_slot_ = -1;
    temp_.clear();
  }
}

bool WriteOutputFile(const std::string& path, const void* bytes, size_t n, std::string* error) {
  OutputFile out;
  return out.Open(path, error) && out.Write(bytes, n, error) && out.Commit(error);
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::string ra, rb;
  return ResolvedPath(a, &ra) && ResolvedPath(b, &rb) && ra == rb;
}

}  // namespace attnrt

// See regular_file.h.
#include "host/regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace attnrt {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a regular file";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
  return "is not a regular file";
}

}  // namespace

int OpenRegularFile(const std::string& path, struct stat* st, int* err, std::string* what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *err = errno;
    *what = "cannot open";
    return -1;
  }
  if (::fstat(fd, st) != 0) {
    *err = errno;
    *what = "cannot stat";
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    *err = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
    *what = KindOf(st->st_mode);
    ::close(fd);
    return -1;
  }
  // Regular files never block, but reads should behave as the callers expect.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    *err = errno;
    *what = "cannot configure";
    ::close(fd);
    return -1;
  }
  return fd;
}

std::FILE* OpenRegularStream(const std::string& path, int* err, std::string* what) {
  struct stat st;
  const int fd = OpenRegularFile(path, &st, err, what);
  if (fd < 0) return nullptr;
  std::FILE* f = ::fdopen(fd, "rb");
  if (f == nullptr) {
    *err = errno;
    *what = "cannot open";
    ::close(fd);
  }
  return f;
}

bool ReadRegularFileText(const std::string& path, size_t max_bytes, const char* kind,
                         std::string* text, std::string* error) {
  // A FIFO or a device is refused before anything can block on it (OpenRegularStream).
  int err = 0;
  std::string what;
  std::FILE* f = OpenRegularStream(path, &err, &what);
  if (f == nullptr) {
    if (error) {
      *error = path + ": " +
               (err == EISDIR ? std::string("is a directory, not ") + kind
                : what.rfind("cannot", 0) == 0 ? what + ": " + std::strerror(err)
                                               : what);
    }
    return false;
  }
  // Grown as it is read (not sized to max_bytes up front: a 256 MB bound must not cost
  // 256 MB for a 2 KB file), never past max_bytes + 1.
  text->clear();
  size_t n = 0;
  for (;;) {
    const size_t want = std::min(max_bytes + 1 - n, size_t{1} << 16);
    text->resize(n + want);
    const size_t got = std::fread(&(*text)[n], 1, want, f);
    n += got;
    if (got < want || n > max_bytes) break;
  }
  const bool read_error = std::ferror(f) != 0;
  const int read_errno = errno;
  std::fclose(f);
  text->resize(n);
  if (read_error) {
    if (error) *error = path + ": cannot read: " + std::strerror(read_errno);
    return false;
  }
  if (n > max_bytes) {
    if (error) {
      *error = path + ": larger than " + std::to_string(max_bytes) + " bytes for " + kind;
    }
    return false;
  }
  return true;
}

}  // namespace attnrt

// See regular_file.h.
#include "host/regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

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

}  // namespace attnrt

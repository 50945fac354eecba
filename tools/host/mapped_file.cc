// MappedFile: open + fstat + mmap(PROT_READ, MAP_PRIVATE), with a read() fallback.
#include "host/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace attnrt {
namespace {

// data() of an empty file: a valid address, never dereferenced.
alignas(64) const uint8_t kEmpty[1] = {0};

bool Fail(std::string* error, const std::string& path, const std::string& what, int err) {
  if (error != nullptr) *error = path + ": " + what + ": " + std::strerror(err);
  return false;
}

// Reads `size` bytes of `fd` from the start into *out.
bool ReadAll(int fd, size_t size, std::vector<uint8_t>* out, int* err) {
  out->resize(size);
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, out->data() + done, size - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      *err = got < 0 ? errno : EIO;  // 0: the file shrank while being read
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

MappedFile::~MappedFile() { Close(); }

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Close();
    copy_ = std::move(other.copy_);  // moving a vector keeps its buffer, so data_ stays valid
    data_ = other.data_;
    size_ = other.size_;
    mapped_ = other.mapped_;
    other.data_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
  }
  return *this;
}

void MappedFile::Close() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  copy_.clear();
  copy_.shrink_to_fit();
}

bool MappedFile::Open(const std::string& path, std::string* error) {
  Close();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Fail(error, path, "cannot open", errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Fail(error, path, "cannot stat", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Fail(error, path, "not a regular file", S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    data_ = kEmpty;
    return true;
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p != MAP_FAILED) {
    ::close(fd);
    data_ = static_cast<const uint8_t*>(p);
    size_ = size;
    mapped_ = true;
    return true;
  }
  const int map_err = errno;
  int read_err = 0;
  const bool read_ok = ReadAll(fd, size, &copy_, &read_err);
  ::close(fd);
  if (!read_ok) {
    copy_.clear();
    return Fail(error, path,
                std::string("mmap failed (") + std::strerror(map_err) + ") and reading failed",
                read_err);
  }
  data_ = copy_.data();
  size_ = size;
  return true;
}

}  // namespace attnrt

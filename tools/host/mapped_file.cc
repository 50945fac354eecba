// MappedFile: open + fstat + mmap(PROT_READ, MAP_PRIVATE), with a read() fallback.
#include "host/mapped_file.h"

#include "host/mapping_guard.h"
#include "host/regular_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "attnrt/runtime/checked_math.h"

namespace attnrt {
namespace {

// data() of an empty file: a valid address, never dereferenced.
alignas(64) const uint8_t kEmpty[1] = {0};

bool Fail(std::string* error, const std::string& path, const std::string& what, int err) {
  if (error != nullptr) *error = path + ": " + what + ": " + std::strerror(err);
  return false;
}

// What an open() or fstat() failing with EOVERFLOW means: the file is 2 GiB or more and this
// build's off_t is 32 bits (ARMv7 Linux without _FILE_OFFSET_BITS=64).
const char* OverflowHint(int err) {
  return err == EOVERFLOW ? " (the file is 2 GiB or larger, more than this build's 32-bit file "
                            "offsets can address)"
                          : "";
}

// Reads `size` bytes of `fd` from the start into *out.
bool ReadAll(int fd, size_t size, std::vector<uint8_t>* out, int* err) {
  if (size > out->max_size()) {
    *err = ENOMEM;
    return false;
  }
  try {
    out->resize(size);
  } catch (const std::bad_alloc&) {
    *err = ENOMEM;
    return false;
  }
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
    guard_ = other.guard_;  // the guard covers the address range, which moves with it
    other.data_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
    other.guard_ = -1;
  }
  return *this;
}

void MappedFile::Close() {
  UnguardMapping(guard_);
  guard_ = -1;
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  copy_.clear();
  copy_.shrink_to_fit();
}

bool MappedFile::Open(const std::string& path, std::string* error) {
  Close();
  struct stat st;
  int err = 0;
  std::string what;
  const int fd = OpenRegularFile(path, &st, &err, &what);
  if (fd < 0) return Fail(error, path, what + OverflowHint(err), err);
  size_t size;
  if (!SizeFromU64(static_cast<uint64_t>(st.st_size), &size)) {  // a 32-bit size_t, 64-bit off_t
    ::close(fd);
    return Fail(error, path,
                "is " + std::to_string(st.st_size) + " bytes, more than this platform's " +
                    std::to_string(kSizeBits) + "-bit size_t can address",
                EFBIG);
  }
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
    guard_ = GuardMapping(data_, size_, path);
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

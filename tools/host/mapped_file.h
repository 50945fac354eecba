// MappedFile: a read-only view of a whole file on the host, for handing a flat weight file to
// WeightFile::Open without copying it.
//
// mmap()s the file read-only; where mapping is refused (a filesystem or special file without
// mmap support) it reads the file into memory instead, and says why when both fail. An empty
// file opens fine with size() == 0 (and a non-null data()), so the reader, not this class,
// reports it. Host-only (tools layer); nothing throws across the API.
#ifndef ATTNRT_TOOLS_HOST_MAPPED_FILE_H_
#define ATTNRT_TOOLS_HOST_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnrt {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;

  // Replaces whatever was open. On failure *error names the path and the reason.
  bool Open(const std::string& path, std::string* error);

  // Page-aligned when mapped, malloc-aligned when read; valid until Close() or destruction.
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool is_mapped() const { return mapped_; }
  void Close();

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  int guard_ = -1;  // its MappingGuard slot while mapped (a file that shrinks faults)
  std::vector<uint8_t> copy_;  // only when mmap was refused
};

}  // namespace attnrt

#endif  // ATTNRT_TOOLS_HOST_MAPPED_FILE_H_

// MappedFile: maps real files for WeightFile::Open, handles empty files, and names the path and
// the reason when it cannot.
#include "host/mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attnrt/runtime/weight_file.h"
#include "convert/weight_file_writer.h"
#include "weight_file/weight_file_test_util.h"

namespace attnrt {
namespace {

class MappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/attnrt-mapped-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string Path(const std::string& leaf) {
    files_.push_back(dir_ + "/" + leaf);
    return files_.back();
  }
  std::string dir_;
  std::vector<std::string> files_;
};

TEST_F(MappedFileTest, MapsAWrittenWeightFile) {
  WeightFileWriter w;
  std::string error;
  const std::vector<float> v = weight_file_test::SampleValues(0.5f, 12);
  ASSERT_TRUE(w.AddTensorF32("w_q", {3, 4}, v.data(), &error)) << error;
  w.SetString("arch", "demo");
  const std::string path = Path("model.wf");
  ASSERT_TRUE(w.WriteFile(path, &error)) << error;

  MappedFile mapped;
  ASSERT_TRUE(mapped.Open(path, &error)) << error;
  EXPECT_TRUE(mapped.is_mapped());
  WeightFile file;
  const Status st = WeightFile::Open(mapped.data(), mapped.size(), &file);
  ASSERT_TRUE(st.ok()) << st.message();
  WeightTensor t;
  ASSERT_TRUE(file.FindTensor("w_q", &t).ok());
  ASSERT_EQ(t.bytes, v.size() * 4);
  for (size_t k = 0; k < v.size(); ++k) EXPECT_EQ(t.data[k], v[k]);
  // Zero copy: the tensor points into the mapping.
  EXPECT_GE(reinterpret_cast<const uint8_t*>(t.data), mapped.data());
  EXPECT_LE(reinterpret_cast<const uint8_t*>(t.data) + t.bytes, mapped.data() + mapped.size());

  MappedFile moved = std::move(mapped);
  EXPECT_EQ(mapped.data(), nullptr);
  EXPECT_EQ(moved.size(), file.file_size());
}

TEST_F(MappedFileTest, EmptyFileOpensAndTheReaderRefusesIt) {
  const std::string path = Path("empty.wf");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  MappedFile mapped;
  std::string error;
  ASSERT_TRUE(mapped.Open(path, &error)) << error;
  EXPECT_EQ(mapped.size(), 0u);
  EXPECT_NE(mapped.data(), nullptr);
  WeightFile file;
  EXPECT_STREQ(WeightFile::Open(mapped.data(), mapped.size(), &file).message(),
               "weight file: empty (0 bytes)");
}

TEST_F(MappedFileTest, ErrorsNameThePathAndReason) {
  MappedFile mapped;
  std::string error;
  const std::string missing = dir_ + "/does-not-exist.wf";
  EXPECT_FALSE(mapped.Open(missing, &error));
  EXPECT_EQ(error.rfind(missing + ": cannot open", 0), 0u) << error;
  EXPECT_FALSE(mapped.Open(dir_, &error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  EXPECT_EQ(mapped.data(), nullptr);
  EXPECT_EQ(mapped.size(), 0u);
}

// A sparse 5 GiB file (no disk blocks): a 64-bit build maps it without reading it; a 32-bit one
// cannot address it and must say why, not map a truncated size.
TEST_F(MappedFileTest, FileOfFiveGiB) {
  const std::string path = Path("huge.wf");
  constexpr uint64_t kSize = uint64_t{5} << 30;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_EQ(::truncate64(path.c_str(), static_cast<int64_t>(kSize)), 0) << std::strerror(errno);
  MappedFile mapped;
  std::string error;
  if (sizeof(size_t) == 8) {
    ASSERT_TRUE(mapped.Open(path, &error)) << error;
    EXPECT_TRUE(mapped.is_mapped());
    EXPECT_EQ(mapped.size(), kSize);
    EXPECT_EQ(mapped.data()[kSize - 1], 0);
    WeightFile file;
    EXPECT_EQ(WeightFile::Open(mapped.data(), mapped.size(), &file).code(), StatusCode::kBadFile);
    return;
  }
  EXPECT_FALSE(mapped.Open(path, &error));
  EXPECT_EQ(mapped.data(), nullptr);
  EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
  // With a 32-bit off_t (this build) open or fstat fails with EOVERFLOW; with a 64-bit off_t the
  // size itself is refused.
  const bool offsets = error.find("(the file is 2 GiB or larger, more than this build's 32-bit "
                                  "file offsets can address)") != std::string::npos;
  const bool size_t_limit =
      error.find("is 5368709120 bytes, more than this platform's 32-bit size_t can address") !=
      std::string::npos;
  EXPECT_TRUE(offsets || size_t_limit) << error;
}

TEST_F(MappedFileTest, WriterReportsUnwritablePath) {
  WeightFileWriter w;
  std::string error;
  EXPECT_FALSE(w.WriteFile(dir_ + "/no/such/dir/x.wf", &error));
  EXPECT_NE(error.find("x.wf: cannot write into its directory: No such file or directory"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace attnrt

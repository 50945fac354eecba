// OutputFile (tools/output): a failed or abandoned write never changes the
// target, devices are refused rather than replaced, symlinks are followed, and
// no temporary file is left behind.
// 64-bit directory offsets and inodes on 32-bit builds too: without it readdir fails with
// EOVERFLOW under qemu-arm (ARMv7) and the directory looks empty.
#define _FILE_OFFSET_BITS 64

#include "output/output_file.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace attnrt {
namespace {

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/attnrt-output-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& name : Entries()) unlink((dir_ + "/" + name).c_str());
    rmdir(dir_.c_str());
  }
  std::string Path(const char* name) const { return dir_ + "/" + name; }
  static void Put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  static std::string Get(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    DIR* d = opendir(dir_.c_str());
    if (d == nullptr) return names;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
    return names;
  }
  std::string dir_;
};

TEST_F(OutputFileTest, CommitReplacesTheTargetAndKeepsItsMode) {
  const std::string target = Path("out.bin");
  Put(target, "old");
  ASSERT_EQ(chmod(target.c_str(), 0640), 0);
  std::string error;
  ASSERT_TRUE(WriteOutputFile(target, "new bytes", 9, &error)) << error;
  EXPECT_EQ(Get(target), "new bytes");
  struct stat st;
  ASSERT_EQ(stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(Entries().size(), 1u);  // no temporary left
}

TEST_F(OutputFileTest, AnAbandonedWriteLeavesTheTargetAndNoTemporary) {
  const std::string target = Path("out.bin");
  Put(target, "precious");
  {
    OutputFile out;
    std::string error;
    ASSERT_TRUE(out.Open(target, &error)) << error;
    ASSERT_TRUE(out.Write("partial", 7, &error)) << error;
    EXPECT_EQ(Entries().size(), 2u);  // the target and the temporary beside it
  }  // destroyed without Commit, as when a later step of a command fails
  EXPECT_EQ(Get(target), "precious");
  EXPECT_EQ(Entries().size(), 1u);
}

TEST_F(OutputFileTest, AWriteOverTheFileSizeLimitFailsAndKeepsTheTarget) {
  const std::string target = Path("out.bin");
  Put(target, "precious");
  // As under `ulimit -f 1`: the CLI ignores SIGXFSZ, so the write fails with EFBIG.
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit limit = old;
  limit.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  const std::vector<char> big(1 << 20, 'x');
  std::string error;
  const bool ok = WriteOutputFile(target, big.data(), big.size(), &error);
  setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find("File too large"), std::string::npos) << error;
  EXPECT_EQ(Get(target), "precious");
  EXPECT_EQ(Entries().size(), 1u);
}

TEST_F(OutputFileTest, ADeviceIsRefusedAndNotReplaced) {
  std::string error;
  OutputFile out;
  EXPECT_FALSE(out.Open("/dev/null", &error));
  EXPECT_NE(error.find("/dev/null: exists and is not a regular file"), std::string::npos) << error;
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(out.Open(dir_, &error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
}

TEST_F(OutputFileTest, ASymlinkIsFollowedAndStaysALink) {
  const std::string target = Path("real.bin"), link = Path("link.bin");
  Put(target, "old");
  ASSERT_EQ(symlink("real.bin", link.c_str()), 0);
  std::string error;
  ASSERT_TRUE(WriteOutputFile(link, "new", 3, &error)) << error;
  struct stat st;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Get(target), "new");
}

TEST_F(OutputFileTest, AMissingDirectoryIsNamed) {
  std::string error;
  EXPECT_FALSE(WriteOutputFile(Path("no/such/x.npy"), "x", 1, &error));
  EXPECT_NE(error.find("x.npy: cannot write into its directory: No such file or directory"),
            std::string::npos)
      << error;
}

TEST_F(OutputFileTest, SameFileSeesLinksAndSpellings) {
  const std::string a = Path("a.npy");
  Put(a, "a");
  ASSERT_EQ(link(a.c_str(), Path("hard.npy").c_str()), 0);
  ASSERT_EQ(symlink("a.npy", Path("soft.npy").c_str()), 0);
  EXPECT_TRUE(SameFile(a, Path("hard.npy")));
  EXPECT_TRUE(SameFile(a, Path("soft.npy")));
  EXPECT_TRUE(SameFile(a, dir_ + "/./a.npy"));
  EXPECT_TRUE(SameFile(Path("new.npy"), dir_ + "//new.npy"));  // neither exists yet
  Put(Path("b.npy"), "b");
  EXPECT_FALSE(SameFile(a, Path("b.npy")));
  EXPECT_FALSE(SameFile(Path("new.npy"), Path("other.npy")));
}

}  // namespace
}  // namespace attnrt

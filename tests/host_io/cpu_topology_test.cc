// The default thread count from sysfs topology text (tools/host/cpu_topology.h):
// CPU lists as the kernel writes them, SMT siblings, affinity masks, and what
// happens when the files are missing or garbled.
#include "host/cpu_topology.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnrt::testing {
namespace {

std::vector<size_t> List(const std::string& text) {
  std::vector<size_t> cpus{999};
  EXPECT_TRUE(ParseCpuList(text, &cpus)) << text;
  return cpus;
}

TEST(CpuTopology, ParsesKernelCpuLists) {
  EXPECT_EQ(List("0\n"), (std::vector<size_t>{0}));
  EXPECT_EQ(List("0-1\n"), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(List("0,4\n"), (std::vector<size_t>{0, 4}));
  EXPECT_EQ(List("0-3,8,10-11"), (std::vector<size_t>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(List(" 5,1 "), (std::vector<size_t>{1, 5}));
}

TEST(CpuTopology, RefusesWhatIsNotACpuList) {
  for (const char* bad : {"", "\n", "a", "1-", "-1", "3-1", "1,,2", "1,", "0-99999", "1 2"}) {
    std::vector<size_t> cpus{7};
    EXPECT_FALSE(ParseCpuList(bad, &cpus)) << '"' << bad << '"';
    EXPECT_EQ(cpus, std::vector<size_t>{7}) << "untouched on failure";
  }
}

TEST(CpuTopology, CountsCoresNotSmtSiblings) {
  // 4 cores x 2 threads, Intel numbering (siblings 0 and 4): 4 cores.
  const ThreadDefault intel = ChooseThreadDefault(
      {0, 1, 2, 3, 4, 5, 6, 7}, {"0,4", "1,5", "2,6", "3,7", "0,4", "1,5", "2,6", "3,7"}, 8);
  EXPECT_EQ(intel.count, 4u);
  EXPECT_EQ(intel.why, "physical cores, not their 8 SMT threads");
  // AMD numbering (siblings 0-1).
  const ThreadDefault amd = ChooseThreadDefault({0, 1, 2, 3}, {"0-1\n", "0-1\n", "2-3\n", "2-3\n"}, 4);
  EXPECT_EQ(amd.count, 2u);
  // No SMT (this project's 2-core VM).
  const ThreadDefault plain = ChooseThreadDefault({0, 1}, {"0\n", "1\n"}, 2);
  EXPECT_EQ(plain.count, 2u);
  EXPECT_EQ(plain.why, "physical cores");
}

TEST(CpuTopology, CountsOnlyCoresInTheAffinityMask) {
  // taskset -c 0,4 on the Intel box above: two threads of one core.
  const ThreadDefault one = ChooseThreadDefault({0, 4}, {"0,4", "0,4"}, 8);
  EXPECT_EQ(one.count, 1u);
  EXPECT_EQ(one.why, "physical cores, not their 2 SMT threads; affinity mask allows 2 of 8 CPUs");
  // taskset -c 2,3 on a box without SMT.
  const ThreadDefault two = ChooseThreadDefault({2, 3}, {"2", "3"}, 16);
  EXPECT_EQ(two.count, 2u);
  EXPECT_EQ(two.why, "physical cores; affinity mask allows 2 of 16 CPUs");
}

TEST(CpuTopology, FallsBackWhenTopologyIsUnreadable) {
  // Unreadable or garbled sibling text: one core per allowed CPU.
  const ThreadDefault missing = ChooseThreadDefault({0, 1, 2}, {"0-1", "", "garbage"}, 3);
  EXPECT_EQ(missing.count, 3u);
  EXPECT_EQ(missing.why, "allowed CPUs, core topology unknown");
  // A sibling list that does not name its own CPU is not believed.
  EXPECT_EQ(ChooseThreadDefault({0, 1}, {"5", "5"}, 2).count, 2u);
  // No affinity mask: hardware_concurrency(), and never 0.
  EXPECT_EQ(ChooseThreadDefault({}, {}, 6).count, 6u);
  EXPECT_EQ(ChooseThreadDefault({}, {}, 0).count, 1u);
}

// ReadThreadDefault over a fake sysfs tree: every CPU this process may use is
// made a sibling of one core, so the answer is 1 whatever the machine.
TEST(CpuTopology, ReadsAFakeSysfsTree) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  std::vector<size_t> allowed;
  for (size_t c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mask)) allowed.push_back(c);
  }
  ASSERT_FALSE(allowed.empty());
  std::string all = std::to_string(allowed.front());
  for (size_t i = 1; i < allowed.size(); ++i) all += "," + std::to_string(allowed[i]);

  char tmpl[] = "/tmp/attnrt_sysfs_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  std::vector<std::string> made;
  for (size_t i = 0; i < allowed.size(); ++i) {
    const std::string cpu = root + "/cpu" + std::to_string(allowed[i]);
    ASSERT_EQ(mkdir(cpu.c_str(), 0700), 0);
    ASSERT_EQ(mkdir((cpu + "/topology").c_str(), 0700), 0);
    // Old kernels have only thread_siblings_list: the first CPU gets only that.
    const std::string file =
        cpu + (i == 0 ? "/topology/thread_siblings_list" : "/topology/core_cpus_list");
    std::ofstream(file) << all << "\n";
    made.push_back(file);
    made.push_back(cpu + "/topology");
    made.push_back(cpu);
  }
  const ThreadDefault d = ReadThreadDefault(root);
  EXPECT_EQ(d.count, 1u);
  EXPECT_EQ(d.why.rfind(allowed.size() > 1 ? "physical cores, not their" : "physical cores", 0), 0u)
      << d.why;
  for (const std::string& path : made) std::remove(path.c_str());
  rmdir(root.c_str());

  // A tree with no topology files: one core per allowed CPU.
  EXPECT_EQ(ReadThreadDefault("/nonexistent-sysfs").count, allowed.size());
}

}  // namespace
}  // namespace attnrt::testing

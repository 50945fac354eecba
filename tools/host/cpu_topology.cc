// Physical cores from sysfs and the affinity mask (see cpu_topology.h).
#include "host/cpu_topology.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace attnrt {
namespace {

constexpr size_t kMaxCpu = 65535;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Reads a decimal number at text[*at]; false when there is none or it passes kMaxCpu.
bool ReadNumber(const std::string& text, size_t* at, size_t* value) {
  size_t v = 0, digits = 0;
  while (*at < text.size() && text[*at] >= '0' && text[*at] <= '9') {
    v = v * 10 + static_cast<size_t>(text[*at] - '0');
    if (v > kMaxCpu) return false;
    ++*at;
    ++digits;
  }
  *value = v;
  return digits > 0;
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::string();
  std::string text;
  std::getline(in, text, '\0');
  return text;
}

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

bool ParseCpuList(const std::string& text, std::vector<size_t>* cpus) {
  size_t end = text.size();
  while (end > 0 && IsSpace(text[end - 1])) --end;
  size_t at = 0;
  while (at < end && IsSpace(text[at])) ++at;
  if (at == end) return false;
  std::vector<size_t> out;
  for (;;) {
    size_t first, last;
    if (!ReadNumber(text, &at, &first)) return false;
    last = first;
    if (at < end && text[at] == '-') {
      ++at;
      if (!ReadNumber(text, &at, &last) || last < first) return false;
    }
    for (size_t c = first; c <= last; ++c) out.push_back(c);
    if (at == end) break;
    if (text[at] != ',') return false;
    ++at;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  *cpus = std::move(out);
  return true;
}

ThreadDefault ChooseThreadDefault(const std::vector<size_t>& allowed,
                                  const std::vector<std::string>& siblings, size_t online) {
  ThreadDefault d;
  if (allowed.empty()) {
    d.count = online == 0 ? 1 : online;
    d.why = "hardware threads, core topology unknown";
    return d;
  }
  // A core is named by its lowest sibling; CPUs whose sibling list is unreadable
  // count as cores of their own.
  std::vector<size_t> cores;
  bool unknown = siblings.size() != allowed.size();
  for (size_t i = 0; i < allowed.size(); ++i) {
    std::vector<size_t> list;
    if (i < siblings.size() && ParseCpuList(siblings[i], &list) &&
        std::find(list.begin(), list.end(), allowed[i]) != list.end()) {
      cores.push_back(list.front());
    } else {
      unknown = true;
      cores.push_back(kMaxCpu + 1 + allowed[i]);
    }
  }
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  d.count = cores.size();
  const size_t smt = allowed.size();  // hardware threads this process may use
  if (unknown) {
    d.why = "allowed CPUs, core topology unknown";
  } else if (smt > d.count) {
    d.why = "physical cores, not their " + Plural(smt, "SMT thread", "SMT threads");
  } else {
    d.why = "physical cores";
  }
  if (online > smt) d.why += "; affinity mask allows " + std::to_string(smt) + " of " +
                             Plural(online, "CPU", "CPUs");
  return d;
}

ThreadDefault ReadThreadDefault(const std::string& sysfs_cpu) {
  const size_t online = std::thread::hardware_concurrency();
  std::vector<size_t> allowed;
#if defined(__linux__)
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    for (size_t c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &mask)) allowed.push_back(c);
    }
  }
#endif
  std::vector<std::string> siblings;
  for (size_t c : allowed) {
    const std::string dir = sysfs_cpu + "/cpu" + std::to_string(c) + "/topology/";
    std::string text = ReadSmallFile(dir + "core_cpus_list");
    if (text.empty()) text = ReadSmallFile(dir + "thread_siblings_list");
    siblings.push_back(text);
  }
  return ChooseThreadDefault(allowed, siblings, online);
}

}  // namespace attnrt

#include "cli/isa_option.h"

#include <cctype>
#include <cstdint>
#include <utility>
#include <vector>

#include "hwy/targets.h"

namespace attnrt::cli {
namespace {

std::string Lower(const char* text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The Highway targets this CPU supports, best first, by lower-case name.
std::vector<std::pair<std::string, int64_t>> Targets() {
  std::vector<std::pair<std::string, int64_t>> out;
  const uint64_t supported = static_cast<uint64_t>(hwy::SupportedTargets());
  // Highway's target bits run from the best target (lowest bit) down.
  for (uint64_t bits = supported; bits != 0; bits &= bits - 1) {
    const int64_t target = static_cast<int64_t>(bits & (~bits + 1));
    out.emplace_back(Lower(hwy::TargetName(target)), target);
  }
  return out;
}

int64_t TargetNamed(const std::string& name) {
  const std::string want = Lower(name.c_str());
  for (const auto& [text, target] : Targets()) {
    if (text == want) return target;
  }
  return 0;
}

}  // namespace

void AddIsaOption(CLI::App* cmd, std::string* value) {
  std::string names;
  for (const auto& [text, target] : Targets()) names += (names.empty() ? "" : ", ") + text;
  cmd->add_option("--isa", *value,
                  "Highway target to run: best, or one this CPU supports (" + names + ")")
      ->capture_default_str()
      ->check(CLI::Validator(
          [names](std::string& v) -> std::string {
            if (v == "best" || TargetNamed(v) != 0) return {};
            return "--isa " + v + ": not a Highway target this CPU supports (best, " + names +
                   ")";
          },
          "ISA", "isa"));
}

void SelectIsa(const std::string& name) {
  const int64_t target = TargetNamed(name);
  if (name == "best" || target == 0) return;
  // That target and every one below it, as on a CPU whose best it is: each function runs
  // the best code it was compiled for up to it (the float kernels have no AVX3_DL code and
  // run AVX3's under --isa avx3_dl; a mask of the one target would send them to SCALAR).
  const uint64_t supported = static_cast<uint64_t>(hwy::SupportedTargets());
  hwy::SetSupportedTargetsForTest(
      static_cast<int64_t>(supported & ~(static_cast<uint64_t>(target) - 1)));
}

}  // namespace attnrt::cli

// The registry of SDPA variants compiled into this build: the list itself is
// kernels/sdpa_variants.inc; this file turns it into a table and looks it up.
#include <cstring>

#include "attnrt/kernels/helium.h"
#include "attnrt/kernels/sdpa_kernel.h"

namespace attnrt {

#define ATTNRT_SDPA_VARIANT(symbol) extern const SdpaKernel symbol;
#include "sdpa_variants.inc"
#undef ATTNRT_SDPA_VARIANT

namespace {
const SdpaKernel* const kAllKernels[] = {
#define ATTNRT_SDPA_VARIANT(symbol) &symbol,
#include "sdpa_variants.inc"
#undef ATTNRT_SDPA_VARIANT
};
}  // namespace

const char* SdpaAlgorithmName(SdpaAlgorithm algorithm) {
  switch (algorithm) {
    case SdpaAlgorithm::kReference: return "reference";
    case SdpaAlgorithm::kMaterialized: return "materialized";
    case SdpaAlgorithm::kFlash: return "flash";
    case SdpaAlgorithm::kDecode: return "decode";
  }
  return "?";
}

const char* SdpaFamilyName(SdpaFamily family) {
  switch (family) {
    case SdpaFamily::kReference: return "reference";
    case SdpaFamily::kHwy: return "hwy";
    case SdpaFamily::kXsimd: return "xsimd";
    case SdpaFamily::kHelium: return "helium";
  }
  return "?";
}

size_t SdpaKernelCount() { return sizeof(kAllKernels) / sizeof(kAllKernels[0]); }

const SdpaKernel& SdpaKernelAt(size_t index) { return *kAllKernels[index]; }

const SdpaKernel* FindSdpaKernel(const char* name) {
  for (const SdpaKernel* kernel : kAllKernels) {
    if (std::strcmp(kernel->name, name) == 0) return kernel;
  }
  return nullptr;
}

const SdpaKernel* FindSdpaKernel(SdpaFamily family, SdpaAlgorithm algorithm) {
  for (const SdpaKernel* kernel : kAllKernels) {
    if (kernel->family == family && kernel->algorithm == algorithm) return kernel;
  }
  return nullptr;
}

}  // namespace attnrt

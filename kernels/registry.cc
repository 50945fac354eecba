// The list of SDPA variants compiled into this build. Adding a variant means
// defining its SdpaKernel and adding one line here; tests and the CLI iterate
// this list, so a new variant is tested and selectable without new test code.
#include <cstring>

#include "attnrt/kernels/sdpa_kernel.h"

namespace attnrt {

extern const SdpaKernel kSdpaReference;
extern const SdpaKernel kSdpaHwyMaterialized;
extern const SdpaKernel kSdpaHwyFlash;
extern const SdpaKernel kSdpaHwyDecode;
#if defined(ATTNRT_XSIMD_X86)
extern const SdpaKernel kSdpaXsimdMaterializedAvx2;
extern const SdpaKernel kSdpaXsimdFlashAvx2;
extern const SdpaKernel kSdpaXsimdMaterializedAvx512;
extern const SdpaKernel kSdpaXsimdFlashAvx512;
#endif
#if defined(ATTNRT_XSIMD_NEON)
extern const SdpaKernel kSdpaXsimdMaterializedNeon;
extern const SdpaKernel kSdpaXsimdFlashNeon;
#endif
// Helium (Arm MVE with float, e.g. Cortex-M55): kernels/helium/.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
extern const SdpaKernel kSdpaHeliumFlash;
#endif

namespace {
const SdpaKernel* const kAllKernels[] = {
    &kSdpaReference,
    &kSdpaHwyMaterialized,
    &kSdpaHwyFlash,
    &kSdpaHwyDecode,
#if defined(ATTNRT_XSIMD_X86)
    &kSdpaXsimdMaterializedAvx2,
    &kSdpaXsimdFlashAvx2,
    &kSdpaXsimdMaterializedAvx512,
    &kSdpaXsimdFlashAvx512,
#endif
#if defined(ATTNRT_XSIMD_NEON)
    &kSdpaXsimdMaterializedNeon,
    &kSdpaXsimdFlashNeon,
#endif
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
    &kSdpaHeliumFlash,
#endif
};
}  // namespace

size_t SdpaKernelCount() { return sizeof(kAllKernels) / sizeof(kAllKernels[0]); }

const SdpaKernel& SdpaKernelAt(size_t index) { return *kAllKernels[index]; }

const SdpaKernel* FindSdpaKernel(const char* name) {
  for (const SdpaKernel* kernel : kAllKernels) {
    if (std::strcmp(kernel->name, name) == 0) return kernel;
  }
  return nullptr;
}

}  // namespace attnrt

// ATTNRT_HELIUM: 1 when this translation unit is compiled for a core with Arm Helium
// (M-profile Vector Extension) *with float* (__ARM_FEATURE_MVE bit 1, e.g.
// -mcpu=cortex-m55), else 0. The one spelling of that condition: the Helium kernels
// (kernels/helium/), the variant list and the firmware tests test this macro.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define ATTNRT_HELIUM 1
#else
#define ATTNRT_HELIUM 0
#endif

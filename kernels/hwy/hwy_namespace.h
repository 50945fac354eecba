// The per-target namespace of every Highway file in attnrt, opened and closed one way:
//   ATTNRT_HWY_BEGIN   HWY_BEFORE_NAMESPACE(); namespace attnrt { namespace HWY_NAMESPACE {
//                      namespace hn = hwy::HWY_NAMESPACE;
//   ATTNRT_HWY_END     } } HWY_AFTER_NAMESPACE();
// Both expand where they are used, so HWY_NAMESPACE and the target attributes are those of
// the foreach_target.h pass being compiled (kernels/hwy/README.md).
#pragma once

#include "hwy/highway.h"

#define ATTNRT_HWY_BEGIN          \
  HWY_BEFORE_NAMESPACE();         \
  namespace attnrt {              \
  namespace HWY_NAMESPACE {       \
  namespace hn = hwy::HWY_NAMESPACE;

#define ATTNRT_HWY_END \
  }                    \
  }                    \
  HWY_AFTER_NAMESPACE();

// See rope_check.h.
#include "rope_check.h"

#include <cmath>

namespace attnrt {

Status CheckRopeTable(const ModelConfig& c) {
  if (c.max_seq_len == 0 || c.qk_dim < 2) return Status::Ok();
  const size_t half = c.qk_dim / 2;
  const double last = static_cast<double>(c.max_seq_len - 1);
  for (size_t i = 0; i < half; ++i) {
    // The same expression as RopeTable (kernels/hwy/rope.cc); the largest angle is the last
    // position's, and cos/sin of any finite angle are finite.
    const double frequency = std::pow(c.rope_theta, -double(2 * i) / double(c.qk_dim));
    if (!std::isfinite(frequency) || !std::isfinite(last * frequency)) {
      return Status::Error(StatusCode::kBadFile,
                           "config rope_theta is too small: the RoPE angle of column %z at "
                           "position %z is not finite (theta^(-2*%z/%z) overflows)",
                           i, c.max_seq_len - 1, i, c.qk_dim);
    }
  }
  return Status::Ok();
}

}  // namespace attnrt

// CheckRopeTable: refuses a config whose RoPE table would not be finite (internal to models/).
#pragma once

#include "attnrt/models/model_config.h"
#include "attnrt/runtime/status.h"

namespace attnrt {

// rope_theta is checked to be positive and finite where it is read, but a tiny one (5e-324)
// still makes theta^(-2i/d) overflow to inf, and every angle, cos and sin (and so every logit)
// NaN (issue 34). Computes each column's frequency as RopeTable does and refuses, naming
// rope_theta, the column and the position, the first that is not finite. Configs without
// positions (max_seq_len 0) pass.
Status CheckRopeTable(const ModelConfig& c);

}  // namespace attnrt

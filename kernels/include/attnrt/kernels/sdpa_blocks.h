// Work items of the blocked SDPA variants: one item per (batch, query head,
// block of `block_rows` queries), numbered with the query block fastest so
// neighbouring items share K and V in cache. Shared by every kernel family.
#pragma once

#include <cstddef>

#include "attnrt/kernels/sdpa_params.h"

namespace attnrt {

struct QueryBlock {
  size_t batch;
  size_t head;
  size_t first_row;  // i0
  size_t rows;       // <= block_rows; fewer in the last block
};

inline size_t QueryBlockCount(const SdpaParams& p, size_t block_rows) {
  return p.batch * p.q_heads * ((p.q_len + block_rows - 1) / block_rows);
}

inline QueryBlock QueryBlockAt(const SdpaParams& p, size_t block_rows, size_t item) {
  const size_t blocks = (p.q_len + block_rows - 1) / block_rows;
  QueryBlock qb;
  qb.first_row = (item % blocks) * block_rows;
  qb.head = (item / blocks) % p.q_heads;
  qb.batch = item / (blocks * p.q_heads);
  const size_t left = p.q_len - qb.first_row;
  qb.rows = left < block_rows ? left : block_rows;
  return qb;
}

}  // namespace attnrt

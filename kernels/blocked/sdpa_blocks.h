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

// Work item `item` decoded, with where its tensors start: the block's first
// query and output rows, and row 0 of the keys and values of the kv head its
// query head reads (grouped-query attention: query head h reads kv head
// h / (q_heads / kv_heads)).
struct BlockOperands {
  QueryBlock block;
  const float* q;
  const float* k;
  const float* v;
  float* out;
  // Element index of that row 0 within the K and V tensors and the kv head: how a
  // typed (f16 / q8) cache, whose k and v are null, is addressed.
  size_t k_offset, v_offset, kv_head;
};

inline BlockOperands BlockOperandsAt(const SdpaParams& p, size_t block_rows, size_t item) {
  BlockOperands in;
  in.block = QueryBlockAt(p, block_rows, item);
  const size_t b = in.block.batch, h = in.block.head, i0 = in.block.first_row;
  const size_t g = h / (p.q_heads / p.kv_heads);
  in.q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i0 * p.q_strides.row;
  in.kv_head = g;
  in.k_offset = b * p.k_strides.batch + g * p.k_strides.head;
  in.v_offset = b * p.v_strides.batch + g * p.v_strides.head;
  // No arithmetic on the null k and v of a typed cache.
  in.k = p.k == nullptr ? nullptr : p.k + in.k_offset;
  in.v = p.v == nullptr ? nullptr : p.v + in.v_offset;
  in.out = p.out + b * p.out_strides.batch + h * p.out_strides.head + i0 * p.out_strides.row;
  return in;
}

// Row i of the attention weights of (batch, head), or nullptr when the call
// wants none.
inline float* WeightsRowAt(const SdpaParams& p, size_t batch, size_t head, size_t i) {
  if (p.weights == nullptr) return nullptr;
  return p.weights + batch * p.weights_strides.batch + head * p.weights_strides.head +
         i * p.weights_strides.row;
}

}  // namespace attnrt

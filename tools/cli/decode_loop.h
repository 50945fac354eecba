// The token-by-token part of `generate` and `chat`: sample from the logits the last Feed left,
// hand the token to the caller, feed it back, until a stop token, the caller's stop, the token
// limit or the end of the session's positions. Timing is kept for the stats lines.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attnrt/models/language_model.h"
#include "attnrt/models/sampling.h"
#include "host/thread_pool.h"

namespace attnrt::cli {

enum class DecodeEnd {
  kLength,       // max_new_tokens generated
  kStopToken,    // a stop id (eos, end of turn) was sampled
  kStopString,   // the caller's on_token said stop
  kContextFull,  // the session holds max_seq positions
};
const char* DecodeEndName(DecodeEnd end);  // "length", "eos", "stop string", "context full"

// Milliseconds from `start` to now (prefill and decode timing).
double MsSince(std::chrono::steady_clock::time_point start);

struct DecodeRequest {
  size_t max_new_tokens = 0;
  std::vector<int32_t> stop_ids;
  bool feed_last = false;  // chat: the last token (reply or end of turn) enters the cache
  SamplingParams sampling;
  uint64_t* rng = nullptr;
};

struct DecodeResult {
  std::vector<int32_t> tokens;  // the generated ids, a sampled stop id not included
  int32_t stop_token = -1;      // the stop id that ended it (kStopToken), else -1
  DecodeEnd end = DecodeEnd::kLength;
  bool last_fed = false;  // feed_last was honoured (there was room)
  double decode_ms = 0.0;
  size_t decode_steps = 0;
};

// The logits a Feed writes and the sampler's scratch, vocab elements each.
struct DecodeBuffers {
  explicit DecodeBuffers(size_t vocab) : logits(vocab), probabilities(vocab), order(vocab) {}
  std::vector<float> logits, probabilities;
  std::vector<uint32_t> order;
};

// buffers->logits holds the last Feed's logits. on_token(id, &stop) returns false with *error
// to abort. On failure *error says at which step and why.
bool DecodeTokens(LmSession* session, const DecodeRequest& request, DecodeBuffers* buffers,
                  ThreadPool* pool,
                  const std::function<bool(int32_t, bool*, std::string*)>& on_token,
                  DecodeResult* result, std::string* error);

}  // namespace attnrt::cli

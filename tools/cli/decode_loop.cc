// DecodeTokens (see decode_loop.h).
#include "cli/decode_loop.h"

#include <algorithm>

#include "host/mapping_guard.h"

namespace attnrt::cli {
namespace {

bool FeedOne(LmSession* session, int32_t id, float* logits, ThreadPool* pool, DecodeResult* r,
             std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  const Status st = session->Feed(&id, 1, logits, pool);
  r->decode_ms += MsSince(start);
  ++r->decode_steps;
  if (!st.ok()) *error = st.message();
  return st.ok();
}

}  // namespace

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

const char* DecodeEndName(DecodeEnd end) {
  switch (end) {
    case DecodeEnd::kLength: return "length";
    case DecodeEnd::kStopToken: return "eos";
    case DecodeEnd::kStopString: return "stop string";
    case DecodeEnd::kContextFull: return "context full";
  }
  return "?";
}

bool DecodeTokens(LmSession* session, const DecodeRequest& request, DecodeBuffers* buffers,
                  ThreadPool* pool,
                  const std::function<bool(int32_t, bool*, std::string*)>& on_token,
                  DecodeResult* r, std::string* error) {
  *r = DecodeResult();
  const size_t vocab = buffers->logits.size();
  float* logits = buffers->logits.data();
  while (true) {
    const std::string step = "step " + std::to_string(r->tokens.size());
    // The model file shrank underneath its mapping: these logits came from zero pages.
    std::string why;
    if (!MappedInputsIntact(&why)) {
      *error = step + ": " + why;
      return false;
    }
    // A broken model (or cache) gives logits nothing can be chosen from: say at which step.
    const Status finite = CheckLogits(logits, vocab);
    if (!finite.ok()) {
      *error = step + " (" + (r->tokens.empty() ? "after the prompt" : "a generated token") +
               "): " + finite.message();
      return false;
    }
    const int32_t next = static_cast<int32_t>(
        SampleToken(logits, vocab, request.sampling, request.rng, buffers->probabilities.data(),
                    buffers->order.data()));
    const auto& stops = request.stop_ids;
    if (std::find(stops.begin(), stops.end(), next) != stops.end()) {
      r->end = DecodeEnd::kStopToken;
      r->stop_token = next;
      if (request.feed_last && session->position() < session->max_seq()) {
        if (!FeedOne(session, next, logits, pool, r, error)) return false;
        r->last_fed = true;
      }
      return true;
    }
    r->tokens.push_back(next);
    bool stop = false;
    if (!on_token(next, &stop, error)) return false;
    if (stop) {
      r->end = DecodeEnd::kStopString;
      return true;
    }
    if (r->tokens.size() == request.max_new_tokens) {
      r->end = DecodeEnd::kLength;
      // chat feeds the last token so the cache holds the whole reply; generate never needs it.
      if (request.feed_last && session->position() < session->max_seq()) {
        r->last_fed = true;
        return FeedOne(session, next, logits, pool, r, error);
      }
      return true;
    }
    if (session->position() >= session->max_seq()) {
      r->end = DecodeEnd::kContextFull;
      return true;
    }
    if (!FeedOne(session, next, logits, pool, r, error)) return false;
  }
}

}  // namespace attnrt::cli

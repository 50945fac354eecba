// TextStreamer (see text_streamer.h).
#include "cli/text_streamer.h"

#include <utility>

namespace attnrt::cli {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

bool EndsWith(const std::string& s, size_t end, const char* suffix, size_t n) {
  return end >= n && s.compare(end - n, n, suffix, n) == 0;
}

}  // namespace

TextStreamer::TextStreamer(DecodeFn decode, std::vector<std::string> stops)
    : decode_(std::move(decode)), stops_(std::move(stops)) {}

size_t TextStreamer::StopAt() const {
  size_t first = std::string::npos;
  for (const std::string& stop : stops_) {
    if (stop.empty()) continue;
    // A stop string cannot start inside released text: it would have been found then.
    const size_t from = released_.size() >= stop.size() ? released_.size() - stop.size() + 1 : 0;
    const size_t at = text_.find(stop, from);
    if (at < first) first = at;
  }
  return first;
}

void TextStreamer::Release(size_t end, std::string* out) {
  if (end <= released_.size() || text_.compare(0, released_.size(), released_) != 0) return;
  const std::string more = text_.substr(released_.size(), end - released_.size());
  released_ += more;
  *out += more;
}

bool TextStreamer::Push(uint32_t id, std::string* out, bool* stopped, std::string* error) {
  *stopped = stopped_;
  if (stopped_) return true;
  ids_.push_back(id);
  if (!decode_(ids_, &text_, error)) return false;
  const size_t stop = StopAt();
  if (stop != std::string::npos) {
    Release(stop, out);
    stopped_ = *stopped = true;
    return true;
  }
  size_t end = text_.size();
  while (EndsWith(text_, end, kReplacement, 3)) end -= 3;
  while (end > 0 && (text_[end - 1] == ' ' || text_[end - 1] == '\t' || text_[end - 1] == '\n' ||
                     text_[end - 1] == '\r')) {
    --end;
  }
  // Hold back the longest tail that a stop string begins with.
  size_t hold = 0;
  for (const std::string& s : stops_) {
    for (size_t n = s.size() > 0 ? s.size() - 1 : 0; n > hold; --n) {
      if (EndsWith(text_, text_.size(), s.c_str(), n)) {
        hold = n;
        break;
      }
    }
  }
  if (text_.size() - hold < end) end = text_.size() - hold;
  Release(end, out);
  return true;
}

bool TextStreamer::Finish(std::string* out, std::string* error) {
  if (stopped_) return true;
  if (!decode_(ids_, &text_, error)) return false;
  const size_t stop = StopAt();
  // (When a decoder rule changed text already released, rare, nothing more is released.)
  Release(stop == std::string::npos ? text_.size() : stop, out);
  return true;
}

}  // namespace attnrt::cli

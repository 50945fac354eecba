// .npy reading and writing: preamble and header-dict parsing, dtype/shape checks, data decoding.
//
// Format (numpy/lib/format.py): "\x93NUMPY", major, minor, a little-endian header length
// (uint16 for 1.0, uint32 for 2.0 and 3.0), an ASCII Python dict literal padded with spaces and
// a '\n', then the raw C-order data. Every size below is checked before anything is allocated,
// so no allocation is ever larger than the input.
#include "npy/npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include <sys/stat.h>

#include "output/output_file.h"

namespace attnrt {
namespace npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kMaxRank = 64;               // numpy 2's NPY_MAXDIMS
constexpr size_t kAlign = 64;                 // numpy's ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;   // numpy pads the header so shape[0] can grow
constexpr size_t kMaxHeaderQuote = 120;       // how much of a bad header an error shows
constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
constexpr size_t kSizeBits = sizeof(size_t) * 8;  // 32 on ARMv7 Linux, 64 on x86-64 and AArch64

bool Fail(std::string* error, const std::string& name, const std::string& what) {
  if (error) *error = name + ": " + what;
  return false;
}

// Printable rendering of untrusted bytes for error messages.
std::string Printable(const char* s, size_t n, size_t max_len = kMaxHeaderQuote) {
  std::string out;
  for (size_t i = 0; i < n && i < max_len; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (n > max_len) out += "...";
  return out;
}
std::string Printable(const std::string& s) { return Printable(s.data(), s.size()); }

// Product of the non-zero dims times `item_bytes`, as numpy checks it: overflow is an error even
// when another dim is zero. Sets *count (elements) and *bytes (0 when any dim is zero).
bool CountElements(const std::vector<size_t>& shape, size_t item_bytes, size_t* count,
                   size_t* bytes) {
  size_t n = 1;
  bool has_zero = false;
  for (size_t d : shape) {
    if (d == 0) {
      has_zero = true;
    } else if (__builtin_mul_overflow(n, d, &n)) {
      return false;
    }
  }
  size_t b = 0;
  if (__builtin_mul_overflow(n, item_bytes, &b)) return false;
  *count = has_zero ? 0 : n;
  *bytes = has_zero ? 0 : b;
  return true;
}

struct Header {
  bool has_descr = false, has_fortran_order = false, has_shape = false;
  std::string descr;
  bool fortran_order = false;
  std::vector<size_t> shape;
};

// Recursive-descent parser for the one dict shape numpy writes:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// Keys in any order, any whitespace, optional trailing commas, Python-2 'L' suffixed ints.
class HeaderParser {
 public:
  HeaderParser(const char* begin, const char* end) : begin_(begin), p_(begin), end_(end) {}

  bool Parse(Header* h, std::string* why) {
    SkipSpace();
    if (!Consume('{')) return Err("expected '{' at the start", why);
    SkipSpace();
    while (!Consume('}')) {
      if (!ParseEntry(h, why)) return false;
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
      } else if (!Peek('}')) {
        return Err("expected ',' or '}' after a value", why);
      }
    }
    SkipSpace();  // numpy pads with spaces and a final '\n'
    if (p_ != end_) return Err("unexpected text after the closing '}'", why);
    return true;
  }

 private:
  bool Peek(char c) const { return p_ < end_ && *p_ == c; }
  bool Consume(char c) {
    if (!Peek(c)) return false;
    ++p_;
    return true;
  }
  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool Err(const std::string& what, std::string* why) const {
    *why = what + (p_ < end_ ? " at header offset " + std::to_string(p_ - begin_)
                             : " (header ended early)");
    return false;
  }

  bool ParseString(std::string* s, const char* what, std::string* why) {
    if (!Peek('\'') && !Peek('"')) return Err(std::string("expected a quoted ") + what, why);
    const char quote = *p_++;
    const char* start = p_;
    while (p_ < end_ && *p_ != quote) {
      if (*p_ == '\\') return Err("escape sequences in header strings are not supported", why);
      if (*p_ == '\n') return Err("unterminated string", why);
      ++p_;
    }
    if (p_ == end_) return Err("unterminated string", why);
    s->assign(start, p_);
    ++p_;
    return true;
  }

  bool ParseEntry(Header* h, std::string* why) {
    std::string key;
    if (!ParseString(&key, "key", why)) return false;
    SkipSpace();
    if (!Consume(':')) return Err("expected ':' after key '" + Printable(key) + "'", why);
    SkipSpace();
    bool* seen = nullptr;
    if (key == "descr") {
      seen = &h->has_descr;
    } else if (key == "fortran_order") {
      seen = &h->has_fortran_order;
    } else if (key == "shape") {
      seen = &h->has_shape;
    } else {
      return Err("unexpected key '" + Printable(key) +
                     "' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')",
                 why);
    }
    if (*seen) return Err("duplicate key '" + key + "'", why);
    *seen = true;
    if (key == "descr") {
      if (Peek('[')) return Err("structured dtypes (a list as 'descr') are not supported", why);
      return ParseString(&h->descr, "dtype string for 'descr'", why);
    }
    if (key == "fortran_order") return ParseBool(&h->fortran_order, why);
    return ParseShape(&h->shape, why);
  }

  bool ParseWord(const char* word) {
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    const char* after = p_ + n;
    if (after < end_ && (std::isalnum(static_cast<unsigned char>(*after)) || *after == '_')) {
      return false;
    }
    p_ = after;
    return true;
  }

  bool ParseBool(bool* b, std::string* why) {
    if (ParseWord("True")) {
      *b = true;
    } else if (ParseWord("False")) {
      *b = false;
    } else {
      return Err("'fortran_order' must be True or False", why);
    }
    return true;
  }

  bool ParseDim(size_t* dim, std::string* why) {
    if (Peek('-')) return Err("negative dimension in 'shape'", why);
    if (p_ == end_ || !std::isdigit(static_cast<unsigned char>(*p_))) {
      return Err("expected a dimension (a non-negative integer) in 'shape'", why);
    }
    if (*p_ == '0' && p_ + 1 < end_ && std::isdigit(static_cast<unsigned char>(p_[1]))) {
      return Err("dimension with a leading zero in 'shape'", why);
    }
    const char* const digits = p_;
    size_t v = 0;
    bool fits = true;
    while (p_ < end_ && std::isdigit(static_cast<unsigned char>(*p_))) {
      fits = fits && !__builtin_mul_overflow(v, size_t{10}, &v) &&
             !__builtin_add_overflow(v, static_cast<size_t>(*p_ - '0'), &v);
      ++p_;
    }
    if (!fits) {
      const char* const at = p_;
      p_ = digits;  // the message points at the number
      Err("dimension " + Printable(digits, static_cast<size_t>(at - digits), 40) +
              " in 'shape' does not fit this platform's " + std::to_string(kSizeBits) +
              "-bit size_t",
          why);
      return false;
    }
    Consume('L');  // Python 2 numpy wrote longs as 3L
    *dim = v;
    return true;
  }

  bool ParseShape(std::vector<size_t>* shape, std::string* why) {
    if (!Consume('(')) return Err("'shape' must be a tuple such as (2, 3), (5,) or ()", why);
    SkipSpace();
    if (Consume(')')) return true;
    for (;;) {
      if (shape->size() == kMaxRank) {
        return Err("'shape' has more than " + std::to_string(kMaxRank) + " dimensions", why);
      }
      size_t dim = 0;
      if (!ParseDim(&dim, why)) return false;
      shape->push_back(dim);
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
        if (Consume(')')) return true;
      } else if (Consume(')')) {
        if (shape->size() == 1) return Err("a 1-d 'shape' must be written (N,), not (N)", why);
        return true;
      } else {
        return Err("expected ',' or ')' in 'shape'", why);
      }
    }
  }

  const char* begin_;
  const char* p_;
  const char* end_;
};

// Maps 'descr' to a supported dtype, or explains why it is not one.
bool ResolveDType(const std::string& descr, bool integers, DType* dtype, size_t* item_bytes,
                  std::string* why) {
  if (integers) {
    if (descr == "<i4" || descr == "<i8" ||
        (kHostLittleEndian && (descr == "=i4" || descr == "=i8"))) {
      *dtype = DType::kInt64;
      *item_bytes = descr[2] == '4' ? 4 : 8;
      return true;
    }
    *why = "unsupported dtype '" + Printable(descr) +
           "'; token ids must be little-endian int32 ('<i4') or int64 ('<i8')";
    return false;
  }
  *item_bytes = descr == "|b1" ? 1 : 4;
  if (descr == "<f4" || (kHostLittleEndian && descr == "=f4")) {
    *dtype = DType::kFloat32;
    return true;
  }
  if (descr == "|b1") {
    *dtype = DType::kBool;
    return true;
  }
  const std::string accepted = "; accepted: '<f4' (float32), '|b1' (bool)";
  if (descr == ">f4" || (!kHostLittleEndian && descr == "=f4")) {
    *why = "big-endian float32 ('" + descr + "') is not supported" + accepted +
           "; save with .astype('<f4')";
    return false;
  }
  const char kind = descr.size() >= 3 ? descr[1] : '\0';
  if (kind == 'f' || kind == 'i' || kind == 'u' || kind == 'c' || kind == 'b') {
    *why = "unsupported dtype '" + Printable(descr) + "'" + accepted +
           "; convert with .astype(np.float32)";
  } else {
    *why = "unsupported dtype '" + Printable(descr) + "'" + accepted;
  }
  return false;
}

uint32_t LoadLE32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void DecodeFloat32(const uint8_t* src, size_t count, float* dst) {
  if (kHostLittleEndian) {
    if (count != 0) std::memcpy(dst, src, count * sizeof(float));
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const uint32_t bits = LoadLE32(src + 4 * i);
    std::memcpy(&dst[i], &bits, sizeof bits);
  }
}

// Builds the version 1.0 preamble + header exactly as numpy 1.24's np.save does.
bool BuildHeader(const std::vector<size_t>& shape, std::string* header, size_t* count,
                 std::string* error) {
  size_t bytes = 0;
  if (shape.size() > kMaxRank) {
    *error = "cannot write rank " + std::to_string(shape.size()) + " (at most " +
             std::to_string(kMaxRank) + " dimensions)";
    return false;
  }
  if (!CountElements(shape, sizeof(float), count, &bytes)) {
    *error = "cannot write shape " + ShapeString(shape) + ": its byte size overflows size_t";
    return false;
  }
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + ShapeString(shape) + ", }";
  if (!shape.empty()) dict.append(kGrowthAxisMaxDigits - std::to_string(shape[0]).size(), ' ');
  const size_t preamble = kMagicSize + 2 + 2;
  const size_t unpadded = dict.size() + 1;  // + the final '\n'
  const size_t pad = kAlign - (preamble + unpadded) % kAlign;
  const size_t header_len = unpadded + pad;
  if (header_len > 0xffff) {
    *error = "cannot write shape " + ShapeString(shape) + ": header too long for .npy 1.0";
    return false;
  }
  header->assign(kMagic, kMagicSize);
  header->push_back('\x01');
  header->push_back('\x00');
  header->push_back(static_cast<char>(header_len & 0xff));
  header->push_back(static_cast<char>(header_len >> 8));
  *header += dict;
  header->append(pad, ' ');
  header->push_back('\n');
  return true;
}

// Appends `count` floats as little-endian bytes.
void AppendFloat32(const float* data, size_t count, std::vector<uint8_t>* out) {
  const size_t offset = out->size();
  out->resize(offset + count * sizeof(float));
  uint8_t* dst = out->data() + offset;
  if (kHostLittleEndian) {
    if (count != 0) std::memcpy(dst, data, count * sizeof(float));
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &data[i], sizeof bits);
    for (int b = 0; b < 4; ++b) dst[4 * i + b] = static_cast<uint8_t>(bits >> (8 * b));
  }
}

}  // namespace

size_t Array::size() const {
  size_t n = 1;
  for (size_t d : shape) n *= d;  // Parse guarantees the non-zero dims' product fits
  return n;
}

std::string ShapeString(const std::vector<size_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

static bool ParseImpl(const uint8_t* data, size_t size, const std::string& name, bool integers,
                      Array* out, std::string* error) {
  if (data == nullptr && size != 0) return Fail(error, name, "null data pointer");
  if (size == 0) return Fail(error, name, "empty file, not a .npy file");
  const size_t probe = std::min(size, kMagicSize);
  if (std::memcmp(data, kMagic, probe) != 0) {
    return Fail(error, name,
                "not a .npy file: bad magic (expected \\x93NUMPY, found " +
                    Printable(reinterpret_cast<const char*>(data), probe) + ")");
  }
  if (size < kMagicSize + 2) {
    return Fail(error, name, "too short to be a .npy file (" + std::to_string(size) + " bytes)");
  }
  const unsigned major = data[6], minor = data[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Fail(error, name,
                "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor) +
                    " (supported: 1.0, 2.0, 3.0)");
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t preamble = kMagicSize + 2 + len_bytes;
  if (size < preamble) {
    return Fail(error, name,
                "truncated preamble: the header length field needs " + std::to_string(preamble) +
                    " bytes, file has " + std::to_string(size));
  }
  const size_t header_len = major == 1 ? size_t{data[8]} | size_t{data[9]} << 8
                                       : static_cast<size_t>(LoadLE32(data + 8));
  if (header_len > size - preamble) {
    return Fail(error, name,
                "header length " + std::to_string(header_len) + " runs past the end of the file (" +
                    std::to_string(size - preamble) + " bytes after the preamble)");
  }
  const char* header = reinterpret_cast<const char*>(data + preamble);
  for (size_t i = 0; i < header_len; ++i) {
    if (static_cast<unsigned char>(header[i]) >= 0x80) {
      return Fail(error, name,
                  "bad .npy header: non-ASCII byte " +
                      Printable(header + i, 1) + " at header offset " + std::to_string(i));
    }
  }

  Header h;
  std::string why;
  if (!HeaderParser(header, header + header_len).Parse(&h, &why)) {
    size_t shown = header_len;  // the padding is noise in a message
    while (shown > 0 && (header[shown - 1] == ' ' || header[shown - 1] == '\n')) --shown;
    return Fail(error, name,
                "bad .npy header: " + why + " in \"" + Printable(header, shown) + "\"");
  }
  for (auto [seen, key] : {std::pair<bool, const char*>{h.has_descr, "descr"},
                           {h.has_fortran_order, "fortran_order"},
                           {h.has_shape, "shape"}}) {
    if (!seen) return Fail(error, name, std::string("bad .npy header: missing key '") + key + "'");
  }
  if (h.fortran_order) {
    return Fail(error, name,
                "Fortran-order arrays are not supported; save with np.ascontiguousarray");
  }
  DType dtype;
  size_t item_bytes = 0;
  if (!ResolveDType(h.descr, integers, &dtype, &item_bytes, &why)) return Fail(error, name, why);
  const char* type_name = dtype == DType::kFloat32 ? "float32"
                          : dtype == DType::kBool  ? "bool"
                          : item_bytes == 4        ? "int32"
                                                   : "int64";
  size_t count = 0, need = 0;
  if (!CountElements(h.shape, item_bytes, &count, &need)) {
    return Fail(error, name,
                "shape " + ShapeString(h.shape) + " is too large: its " + type_name +
                    " byte size overflows size_t");
  }
  const size_t data_offset = preamble + header_len;
  const size_t have = size - data_offset;
  const std::string context = " (" + std::string(type_name) + " " + ShapeString(h.shape) +
                              " data at byte offset " + std::to_string(data_offset) + " of a " +
                              std::to_string(size) + "-byte file)";
  if (have < need) {
    return Fail(error, name,
                "truncated data: need " + std::to_string(need) + " bytes, file has " +
                    std::to_string(have) + context);
  }
  if (have > need) {
    return Fail(error, name,
                "trailing data: need " + std::to_string(need) + " bytes, file has " +
                    std::to_string(have) + ", " + std::to_string(have - need) + " extra" + context);
  }

  const uint8_t* payload = data + data_offset;
  Array result;
  result.dtype = dtype;
  result.shape = std::move(h.shape);
  if (dtype == DType::kFloat32) {
    result.f32.resize(count);
    DecodeFloat32(payload, count, result.f32.data());
  } else if (dtype == DType::kInt64) {
    result.i64.resize(count);
    for (size_t i = 0; i < count; ++i) {  // little-endian on every host
      uint64_t bits = 0;
      for (size_t b = item_bytes; b-- > 0;) bits = bits << 8 | payload[i * item_bytes + b];
      if (item_bytes == 4 && (bits & 0x80000000u) != 0) bits |= ~uint64_t{0xffffffffu};
      result.i64[i] = static_cast<int64_t>(bits);
    }
  } else {
    for (size_t i = 0; i < count; ++i) {
      if (payload[i] > 1) {
        return Fail(error, name,
                    "invalid bool byte " + std::to_string(payload[i]) + " at element " +
                        std::to_string(i) + " ('|b1' bytes must be 0 or 1)");
      }
    }
    result.b8.assign(payload, payload + count);
  }
  *out = std::move(result);
  return true;
}

// How many bytes of a stream (a pipe, /dev/zero) are worth holding, given the first `size`:
// the preamble, then the header it announces, then the data the header declares, plus one
// byte to notice trailing data. A stream is never read to its end, which may never come.
// Returns `size` (stop) once the prefix is broken; parsing it then says why.
static size_t StreamBytesToRead(const uint8_t* data, size_t size, bool integers) {
  if (size < kMagicSize + 2) {
    // Nothing read yet (data may be null then: memcmp must not see it) or a prefix of the magic.
    return size == 0 || std::memcmp(data, kMagic, size) == 0 ? kMagicSize + 2 : size;
  }
  if (std::memcmp(data, kMagic, kMagicSize) != 0 || (data[6] != 1 && data[6] != 2 && data[6] != 3)) {
    return size;
  }
  const size_t preamble = kMagicSize + 2 + (data[6] == 1 ? 2 : 4);
  if (size < preamble) return preamble;
  const size_t header_len = data[6] == 1 ? size_t{data[8]} | size_t{data[9]} << 8
                                         : static_cast<size_t>(LoadLE32(data + 8));
  const size_t header_end = preamble + header_len;  // header_len < 2^32: no wrap on 64-bit
  if (header_end < preamble) return size;
  if (size < header_end) return header_end;
  const char* header = reinterpret_cast<const char*>(data + preamble);
  Header h;
  std::string why;
  DType dtype;
  size_t item_bytes = 0, count = 0, need = 0;
  if (!HeaderParser(header, header + header_len).Parse(&h, &why) ||
      !ResolveDType(h.descr, integers, &dtype, &item_bytes, &why) ||
      !CountElements(h.shape, item_bytes, &count, &need) || need >= SIZE_MAX - header_end) {
    return size;
  }
  return header_end + need + 1;
}

// The public entry points catch std::bad_alloc so that nothing throws across the API; the
// allocations themselves never exceed the input (or the caller's array) in size.
static bool ParseChecked(const uint8_t* data, size_t size, const std::string& name,
                         bool integers, Array* out, std::string* error) {
  try {
    return ParseImpl(data, size, name, integers, out, error);
  } catch (const std::bad_alloc&) {
    return Fail(error, name, "out of memory decoding " + std::to_string(size) + " bytes");
  }
}

bool Parse(const uint8_t* data, size_t size, const std::string& name, Array* out,
           std::string* error) {
  return ParseChecked(data, size, name, false, out, error);
}

static bool ReadAndParse(const std::string& path, bool integers, Array* out, std::string* error) {
  // EOVERFLOW from open or fstat: 2 GiB or more, and this build's off_t is 32 bits (ARMv7 Linux).
  auto failure = [&](const char* what, int err) {
    return Fail(error, path,
                std::string(what) + ": " + std::strerror(err) +
                    (err == EOVERFLOW ? " (the file is 2 GiB or larger, more than this build's "
                                        "32-bit file offsets can address)"
                                      : ""));
  };
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return failure("cannot open", errno);
  struct stat st;
  if (::fstat(fileno(f), &st) != 0) {
    const int err = errno;
    std::fclose(f);
    return failure("cannot stat", err);
  }
  std::vector<uint8_t> bytes;
  // A regular file's size is known up front; other files (pipes) are read as far as their
  // header declares (StreamBytesToRead).
  const bool regular = S_ISREG(st.st_mode);
  if (regular && static_cast<uint64_t>(st.st_size) >= bytes.max_size()) {
    std::fclose(f);
    return Fail(error, path,
                "the file is " + std::to_string(st.st_size) + " bytes, more than the " +
                    std::to_string(bytes.max_size()) +
                    " bytes one buffer can hold with this platform's " +
                    std::to_string(kSizeBits) + "-bit size_t");
  }
  bool read_error = false;
  try {
    if (regular) bytes.reserve(static_cast<size_t>(st.st_size) + 1);
    constexpr size_t kChunk = size_t{1} << 20;
    for (;;) {
      const size_t old = bytes.size();
      size_t ask = kChunk;
      if (!regular) {
        const size_t want = StreamBytesToRead(bytes.data(), old, integers);
        if (want <= old) break;
        ask = std::min(kChunk, want - old);
      }
      if (old > bytes.max_size() - kChunk) {  // a pipe, or a file that grew while read
        std::fclose(f);
        return Fail(error, path,
                    "more than the " + std::to_string(bytes.max_size()) +
                        " bytes one buffer can hold with this platform's " +
                        std::to_string(kSizeBits) + "-bit size_t");
      }
      bytes.resize(old + ask);
      const size_t got = std::fread(bytes.data() + old, 1, ask, f);
      bytes.resize(old + got);
      if (got < ask) {
        read_error = std::ferror(f) != 0;
        break;
      }
    }
  } catch (const std::bad_alloc&) {
    std::fclose(f);
    return Fail(error, path, "out of memory reading the file");
  }
  const int read_errno = errno;
  std::fclose(f);
  if (read_error) return Fail(error, path, std::string("cannot read: ") + std::strerror(read_errno));
  return ParseChecked(bytes.data(), bytes.size(), path, integers, out, error);
}

bool ReadFile(const std::string& path, Array* out, std::string* error) {
  return ReadAndParse(path, false, out, error);
}

bool ReadIntegerFile(const std::string& path, Array* out, std::string* error) {
  return ReadAndParse(path, true, out, error);
}

static bool EncodeFloat32Impl(const std::vector<size_t>& shape, const float* data,
                              std::vector<uint8_t>* out, std::string* error) {
  std::string header, why;
  size_t count = 0;
  if (!BuildHeader(shape, &header, &count, &why)) return Fail(error, "npy", why);
  if (data == nullptr && count != 0) return Fail(error, "npy", "null data for a non-empty array");
  out->assign(header.begin(), header.end());
  AppendFloat32(data, count, out);
  return true;
}

bool EncodeFloat32(const std::vector<size_t>& shape, const float* data, std::vector<uint8_t>* out,
                   std::string* error) {
  try {
    return EncodeFloat32Impl(shape, data, out, error);
  } catch (const std::bad_alloc&) {
    return Fail(error, "npy", "out of memory encoding shape " + ShapeString(shape));
  }
}

static bool WriteFloat32Impl(OutputFile* out, const std::vector<size_t>& shape,
                             const float* data, std::string* error) {
  const std::string& path = out->path();
  std::string header, why;
  size_t count = 0;
  if (!BuildHeader(shape, &header, &count, &why)) return Fail(error, path, why);
  if (data == nullptr && count != 0) return Fail(error, path, "null data for a non-empty array");
  // Stream the data in bounded chunks so writing never doubles the array's memory. The chunk
  // is allocated before the file is opened, so nothing below can throw while it is open.
  constexpr size_t kChunkFloats = size_t{1} << 16;
  std::vector<uint8_t> chunk;
  chunk.reserve(kChunkFloats * sizeof(float));
  if (!out->Write(header.data(), header.size(), error)) return false;
  for (size_t done = 0; done < count; done += kChunkFloats) {
    const size_t n = std::min(kChunkFloats, count - done);
    chunk.clear();
    AppendFloat32(data + done, n, &chunk);
    if (!out->Write(chunk.data(), chunk.size(), error)) return false;
  }
  return true;
}

bool WriteFloat32To(OutputFile* out, const std::vector<size_t>& shape, const float* data,
                    std::string* error) {
  try {
    return WriteFloat32Impl(out, shape, data, error);
  } catch (const std::bad_alloc&) {
    out->Discard();
    return Fail(error, out->path(), "out of memory writing shape " + ShapeString(shape));
  }
}

bool WriteFloat32(const std::string& path, const std::vector<size_t>& shape, const float* data,
                  std::string* error) {
  // Written beside the target and renamed over it: a failure leaves the target as it was.
  OutputFile out;
  return out.Open(path, error) && WriteFloat32To(&out, shape, data, error) && out.Commit(error);
}

}  // namespace npy
}  // namespace attnrt

// GGUF parsing (see gguf_file.h): a cursor over the image that checks every read, then
// the header, the metadata, the tensor infos and the data section's bounds.
//
// Memory: every count is checked against the bytes left before anything is reserved for
// it, with the smallest size one element can have in the file, so a lying count fails
// fast instead of allocating. Arrays of numbers are not copied at all.
#include "convert/gguf_file.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <unordered_set>

#include "attnrt/runtime/checked_math.h"

namespace attnrt {
namespace {

constexpr uint32_t kQK = 256;  // K-quant super-block

const GgmlTypeInfo kGgmlTypes[] = {
    {0, "F32", 1, 4},           {1, "F16", 1, 2},
    {2, "Q4_0", 32, 18},        {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},        {7, "Q5_1", 32, 24},
    {8, "Q8_0", 32, 34},        {9, "Q8_1", 32, 36},
    {10, "Q2_K", kQK, 84},      {11, "Q3_K", kQK, 110},
    {12, "Q4_K", kQK, 144},     {13, "Q5_K", kQK, 176},
    {14, "Q6_K", kQK, 210},     {15, "Q8_K", kQK, 292},
    {16, "IQ2_XXS", kQK, 66},   {17, "IQ2_XS", kQK, 74},
    {18, "IQ3_XXS", kQK, 98},   {19, "IQ1_S", kQK, 50},
    {20, "IQ4_NL", 32, 18},     {21, "IQ3_S", kQK, 110},
    {22, "IQ2_S", kQK, 82},     {23, "IQ4_XS", kQK, 136},
    {24, "I8", 1, 1},           {25, "I16", 1, 2},
    {26, "I32", 1, 4},          {27, "I64", 1, 8},
    {28, "F64", 1, 8},          {29, "IQ1_M", kQK, 56},
    {30, "BF16", 1, 2},         {34, "TQ1_0", kQK, 54},
    {35, "TQ2_0", kQK, 66},     {39, "MXFP4", 32, 17},
    {40, "NVFP4", 64, 36},      {41, "Q1_0", 128, 18},
    {42, "Q2_0", 64, 18},
};

// Bytes of one scalar of the type; 0 for string and array.
size_t ScalarBytes(GgufType t) {
  switch (t) {
    case GgufType::kU8: case GgufType::kI8: case GgufType::kBool: return 1;
    case GgufType::kU16: case GgufType::kI16: return 2;
    case GgufType::kU32: case GgufType::kI32: case GgufType::kF32: return 4;
    case GgufType::kU64: case GgufType::kI64: case GgufType::kF64: return 8;
    case GgufType::kString: case GgufType::kArray: return 0;
  }
  return 0;
}

bool KnownType(uint32_t t) { return t <= static_cast<uint32_t>(GgufType::kF64); }

uint64_t LoadLE(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Reads a scalar's bits as the type says into a number.
bool BitsToNumber(GgufType t, uint64_t bits, double* out) {
  switch (t) {
    case GgufType::kU8: case GgufType::kU16: case GgufType::kU32: case GgufType::kU64:
      *out = static_cast<double>(bits);
      return true;
    case GgufType::kI8: *out = static_cast<int8_t>(bits); return true;
    case GgufType::kI16: *out = static_cast<int16_t>(bits); return true;
    case GgufType::kI32: *out = static_cast<int32_t>(bits); return true;
    case GgufType::kI64: *out = static_cast<double>(static_cast<int64_t>(bits)); return true;
    case GgufType::kF32: {
      const uint32_t b = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &b, 4);
      *out = f;
      return true;
    }
    case GgufType::kF64: {
      double d;
      std::memcpy(&d, &bits, 8);
      *out = d;
      return true;
    }
    default:
      return false;
  }
}

bool BitsToUInt(GgufType t, uint64_t bits, uint64_t* out) {
  int64_t s;
  switch (t) {
    case GgufType::kU8: case GgufType::kU16: case GgufType::kU32: case GgufType::kU64:
      *out = bits;
      return true;
    case GgufType::kI8: s = static_cast<int8_t>(bits); break;
    case GgufType::kI16: s = static_cast<int16_t>(bits); break;
    case GgufType::kI32: s = static_cast<int32_t>(bits); break;
    case GgufType::kI64: s = static_cast<int64_t>(bits); break;
    default: return false;
  }
  if (s < 0) return false;
  *out = static_cast<uint64_t>(s);
  return true;
}

// Printable, bounded form of a name from the file for messages.
std::string Printable(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size() && out.size() < 96; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '\'') {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > 96) out += "...";
  return out;
}

class Cursor {
 public:
  Cursor(const uint8_t* data, size_t size, const std::string& name, std::string* error)
      : data_(data), size_(size), name_(name), error_(error) {}

  size_t pos() const { return pos_; }
  size_t left() const { return size_ - pos_; }

  bool Fail(const std::string& what) {
    *error_ = name_ + ": " + what;
    return false;
  }
  // `what` names the field for the truncation message.
  bool Bytes(size_t n, const uint8_t** out, const std::string& what) {
    if (n > left()) {
      return Fail("truncated: " + what + " needs " + std::to_string(n) + " bytes at offset " +
                  std::to_string(pos_) + ", the file has " + std::to_string(left()) + " left");
    }
    *out = data_ + pos_;
    pos_ += n;
    return true;
  }
  bool U32(uint32_t* v, const std::string& what) {
    const uint8_t* p;
    if (!Bytes(4, &p, what)) return false;
    *v = static_cast<uint32_t>(LoadLE(p, 4));
    return true;
  }
  bool U64(uint64_t* v, const std::string& what) {
    const uint8_t* p;
    if (!Bytes(8, &p, what)) return false;
    *v = LoadLE(p, 8);
    return true;
  }
  // A count of elements each at least `min_bytes` long in the file: refused when even
  // that many bytes are not left (a lying count), so callers may reserve for it.
  bool Count(uint64_t n, size_t min_bytes, const std::string& what) {
    uint64_t need;
    if (!CheckedMulU64(n, min_bytes, &need) || need > left()) {
      return Fail(what + " " + std::to_string(n) + " cannot fit in the " +
                  std::to_string(left()) + " bytes left of the file (truncated, or a wrong count)");
    }
    return true;
  }
  bool String(std::string_view* s, size_t max_bytes, const std::string& what) {
    uint64_t n;
    if (!U64(&n, what + " length")) return false;
    if (n > left()) {
      return Fail(what + " length " + std::to_string(n) + " is past the end of the file (" +
                  std::to_string(left()) + " bytes left)");
    }
    if (max_bytes != 0 && n > max_bytes) {
      return Fail(what + " is " + std::to_string(n) + " bytes long, more than " +
                  std::to_string(max_bytes));
    }
    const uint8_t* p;
    if (!Bytes(static_cast<size_t>(n), &p, what)) return false;
    *s = std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    return true;
  }

  bool Value(GgufType type, const std::string& where, size_t depth, GgufValue* v);

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  const std::string& name_;
  std::string* error_;
};

bool Cursor::Value(GgufType type, const std::string& where, size_t depth, GgufValue* v) {
  v->type = type;
  if (type == GgufType::kString) return String(&v->text, 0, where + ": string");
  if (type != GgufType::kArray) {
    const size_t n = ScalarBytes(type);
    const uint8_t* p;
    if (!Bytes(n, &p, where + ": " + GgufTypeName(type) + " value")) return false;
    v->bits = LoadLE(p, n);
    if (type == GgufType::kBool && v->bits > 1) {
      return Fail(where + ": bool value " + std::to_string(v->bits) + " is neither 0 nor 1");
    }
    return true;
  }
  if (depth >= kGgufMaxArrayDepth) {
    return Fail(where + ": arrays nested more than " + std::to_string(kGgufMaxArrayDepth) +
                " deep");
  }
  uint32_t et;
  if (!U32(&et, where + ": array element type")) return false;
  if (!KnownType(et)) {
    return Fail(where + ": array element type " + std::to_string(et) + " is not a GGUF type");
  }
  v->element_type = static_cast<GgufType>(et);
  if (!U64(&v->count, where + ": array length")) return false;
  const size_t scalar = ScalarBytes(v->element_type);
  // Smallest element: a scalar's size, a string's 8-byte length, an array's 12-byte header.
  const size_t min_bytes = scalar != 0 ? scalar : (v->element_type == GgufType::kString ? 8 : 12);
  if (!Count(v->count, min_bytes, where + ": array length")) return false;
  const size_t count = static_cast<size_t>(v->count);
  if (scalar != 0) {
    if (!Bytes(count * scalar, &v->raw, where + ": array")) return false;
    if (v->element_type == GgufType::kBool) {
      for (size_t i = 0; i < count; ++i) {
        if (v->raw[i] > 1) {
          return Fail(where + ": bool element " + std::to_string(i) + " is " +
                      std::to_string(v->raw[i]) + ", neither 0 nor 1");
        }
      }
    }
    return true;
  }
  if (v->element_type == GgufType::kString) {
    v->strings.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (!String(&v->strings[i], 0, where + "[" + std::to_string(i) + "]")) return false;
    }
    return true;
  }
  v->items.resize(count);
  for (size_t i = 0; i < count; ++i) {
    // An item of an array of arrays is written without a type tag: its element type,
    // its count, its elements.
    const std::string item = where + "[" + std::to_string(i) + "]";
    if (!Value(GgufType::kArray, item, depth + 1, &v->items[i])) return false;
  }
  return true;
}

bool ReadHeader(Cursor* c, GgufFile* out, uint64_t* n_tensors, uint64_t* n_kv) {
  const uint8_t* magic;
  if (!c->Bytes(4, &magic, "magic")) return false;
  if (std::memcmp(magic, "GGUF", 4) != 0) return c->Fail("not a GGUF file (no 'GGUF' magic)");
  if (!c->U32(&out->version, "version")) return false;
  const uint32_t v = out->version;
  if ((v & 0xFFFFu) == 0 && (v >> 16) != 0) {
    return c->Fail("big-endian GGUF (version bytes " + std::to_string(v >> 24) +
                   ") is not supported: attnrt reads little-endian files");
  }
  if (v == 1) {
    return c->Fail("GGUF version 1 (32-bit counts, before August 2023) is not supported; "
                   "re-convert it with a current llama.cpp");
  }
  if (v != 2 && v != 3) {
    return c->Fail("GGUF version " + std::to_string(v) + " is not supported (2 and 3 are)");
  }
  if (!c->U64(n_tensors, "tensor count") || !c->U64(n_kv, "metadata count")) return false;
  if (*n_tensors > kGgufMaxTensors) {
    return c->Fail("tensor count " + std::to_string(*n_tensors) + " is absurd (more than " +
                   std::to_string(kGgufMaxTensors) + ")");
  }
  if (*n_kv > kGgufMaxKeys) {
    return c->Fail("metadata count " + std::to_string(*n_kv) + " is absurd (more than " +
                   std::to_string(kGgufMaxKeys) + ")");
  }
  // A key-value pair is at least 14 bytes (8 length, 1 key byte, 4 type, 1 value); a tensor
  // info at least 25 (8 length, 1 name byte, 4 dims, 4 type, 8 offset).
  return c->Count(*n_kv, 14, "metadata count") && c->Count(*n_tensors, 25, "tensor count");
}

bool ReadMetadata(Cursor* c, uint64_t n_kv, GgufFile* out) {
  out->metadata.resize(static_cast<size_t>(n_kv));
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < out->metadata.size(); ++i) {
    std::string_view key;
    const std::string where = "metadata entry " + std::to_string(i);
    if (!c->String(&key, kGgufMaxKeyBytes, where + " key")) return false;
    if (key.empty()) return c->Fail(where + " has an empty key");
    const std::string named = "metadata key '" + Printable(key) + "'";
    if (!seen.insert(key).second) return c->Fail(named + " appears twice");
    uint32_t type;
    if (!c->U32(&type, named + " type")) return false;
    if (!KnownType(type)) {
      return c->Fail(named + " has value type " + std::to_string(type) +
                     ", which is not a GGUF type (0-12)");
    }
    out->metadata[i].key.assign(key);
    if (!c->Value(static_cast<GgufType>(type), named, 0, &out->metadata[i].value)) return false;
  }
  if (const GgufValue* a = out->Find("general.alignment")) {
    uint64_t align = 0;
    if (a->type != GgufType::kU32) {
      return c->Fail("general.alignment must be a u32, got " + a->Describe());
    }
    align = a->bits;
    if (align == 0 || (align & (align - 1)) != 0) {
      return c->Fail("general.alignment " + std::to_string(align) + " is not a power of two");
    }
    out->alignment = static_cast<size_t>(align);
  }
  return true;
}

bool ReadTensorInfo(Cursor* c, size_t i, GgufTensorInfo* t) {
  std::string_view name;
  const std::string where = "tensor info " + std::to_string(i);
  if (!c->String(&name, kGgufMaxNameBytes, where + " name")) return false;
  if (name.empty()) return c->Fail(where + " has an empty name");
  t->name.assign(name);
  const std::string named = "tensor '" + Printable(name) + "'";
  if (!c->U32(&t->n_dims, named + " n_dims")) return false;
  if (t->n_dims > 4) {
    return c->Fail(named + " has " + std::to_string(t->n_dims) + " dimensions (at most 4)");
  }
  uint64_t elements = 1;
  for (uint32_t d = 0; d < t->n_dims; ++d) {
    if (!c->U64(&t->ne[d], named + " dimension " + std::to_string(d))) return false;
    if (t->ne[d] > static_cast<uint64_t>(INT64_MAX)) {
      return c->Fail(named + " dimension " + std::to_string(d) + " is negative");
    }
    if (!CheckedMulU64(elements, t->ne[d], &elements)) {
      return c->Fail(named + ": its element count overflows");
    }
  }
  if (!c->U32(&t->type, named + " type")) return false;
  const GgmlTypeInfo* info = FindGgmlType(t->type);
  if (info == nullptr) {
    return c->Fail(named + " has ggml type " + std::to_string(t->type) +
                   ", which is not a known GGUF tensor type");
  }
  if (t->ne[0] % info->block != 0) {
    return c->Fail(named + " (" + info->name + ") has rows of " + std::to_string(t->ne[0]) +
                   " values, not a multiple of its block of " + std::to_string(info->block));
  }
  uint64_t bytes;
  if (!CheckedMulU64(elements / info->block, info->bytes, &bytes) ||
      !SizeFromU64(elements, &t->elements) || !SizeFromU64(bytes, &t->bytes)) {
    return c->Fail(named + ": its byte size overflows");
  }
  return c->U64(&t->offset, named + " data offset");
}

bool ReadTensorInfos(Cursor* c, uint64_t n_tensors, const uint8_t* image, size_t size,
                     GgufFile* out) {
  out->tensors.resize(static_cast<size_t>(n_tensors));
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < out->tensors.size(); ++i) {
    if (!ReadTensorInfo(c, i, &out->tensors[i])) return false;
    if (!seen.insert(out->tensors[i].name).second) {
      return c->Fail("tensor '" + Printable(out->tensors[i].name) + "' appears twice");
    }
  }
  if (!CheckedAlignUp(c->pos(), out->alignment, &out->data_offset)) {
    return c->Fail("data section offset overflows");
  }
  if (out->tensors.empty()) return true;
  if (out->data_offset > size) {
    return c->Fail("truncated: the data section would start at offset " +
                   std::to_string(out->data_offset) + ", past the end of the " +
                   std::to_string(size) + "-byte file");
  }
  const size_t data_bytes = size - out->data_offset;
  std::vector<const GgufTensorInfo*> by_offset;
  for (GgufTensorInfo& t : out->tensors) {
    const std::string named = "tensor '" + Printable(t.name) + "'";
    if (t.offset % out->alignment != 0) {
      return c->Fail(named + " data offset " + std::to_string(t.offset) +
                     " is not a multiple of the alignment " + std::to_string(out->alignment));
    }
    uint64_t end;
    if (!CheckedAddU64(t.offset, t.bytes, &end) || end > data_bytes) {
      return c->Fail(named + " data [" + std::to_string(t.offset) + ", +" +
                     std::to_string(t.bytes) + ") is past the end of the " +
                     std::to_string(data_bytes) + "-byte data section (truncated file?)");
    }
    t.data = image + out->data_offset + static_cast<size_t>(t.offset);
    by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const GgufTensorInfo* a, const GgufTensorInfo* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const GgufTensorInfo& a = *by_offset[i - 1];
    if (a.offset + a.bytes > by_offset[i]->offset) {
      return c->Fail("tensor '" + Printable(by_offset[i]->name) + "' overlaps tensor '" +
                     Printable(a.name) + "' in the data section");
    }
  }
  return true;
}

bool ReadGgufImpl(const uint8_t* data, size_t size, const std::string& name, GgufFile* out,
                  std::string* error) {
  Cursor c(data, size, name, error);
  uint64_t n_tensors = 0, n_kv = 0;
  return ReadHeader(&c, out, &n_tensors, &n_kv) && ReadMetadata(&c, n_kv, out) &&
         ReadTensorInfos(&c, n_tensors, data, size, out);
}

}  // namespace

const char* GgufTypeName(GgufType t) {
  static const char* const kNames[] = {"u8",  "i8",     "u16",   "i16", "u32", "i32", "f32",
                                       "bool", "string", "array", "u64", "i64", "f64"};
  const uint32_t i = static_cast<uint32_t>(t);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "unknown";
}

const GgmlTypeInfo* FindGgmlType(uint32_t id) {
  for (const GgmlTypeInfo& t : kGgmlTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

bool GgufValue::AsUInt(uint64_t* out) const { return BitsToUInt(type, bits, out); }

bool GgufValue::AsNumber(double* out) const { return BitsToNumber(type, bits, out); }

bool GgufValue::AsBool(bool* out) const {
  if (type != GgufType::kBool) return false;
  *out = bits != 0;
  return true;
}

bool GgufValue::AsString(std::string* out) const {
  if (type != GgufType::kString) return false;
  out->assign(text);
  return true;
}

bool GgufValue::NumberAt(uint64_t i, double* out) const {
  const size_t n = ScalarBytes(element_type);
  if (type != GgufType::kArray || raw == nullptr || n == 0 || i >= count) return false;
  if (element_type == GgufType::kBool) {
    *out = raw[i];
    return true;
  }
  return BitsToNumber(element_type, LoadLE(raw + i * n, n), out);
}

bool GgufValue::UIntAt(uint64_t i, uint64_t* out) const {
  const size_t n = ScalarBytes(element_type);
  if (type != GgufType::kArray || raw == nullptr || n == 0 || i >= count) return false;
  return BitsToUInt(element_type, LoadLE(raw + i * n, n), out);
}

std::string GgufValue::Describe() const {
  if (type == GgufType::kString) return "string '" + Printable(text) + "'";
  if (type == GgufType::kArray) {
    return "array of " + std::to_string(count) + " " + GgufTypeName(element_type);
  }
  double v = 0;
  if (type == GgufType::kBool) return bits != 0 ? "bool true" : "bool false";
  BitsToNumber(type, bits, &v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string(GgufTypeName(type)) + " " + buf;
}

std::vector<size_t> GgufTensorInfo::TorchShape() const {
  std::vector<size_t> shape;
  for (uint32_t d = n_dims; d > 0; --d) shape.push_back(static_cast<size_t>(ne[d - 1]));
  return shape;
}

const char* GgufTensorInfo::TypeName() const {
  const GgmlTypeInfo* info = FindGgmlType(type);
  return info != nullptr ? info->name : "unknown";
}

const GgufValue* GgufFile::Find(const std::string& key) const {
  for (const GgufKeyValue& kv : metadata) {
    if (kv.key == key) return &kv.value;
  }
  return nullptr;
}

const GgufTensorInfo* GgufFile::FindTensor(const std::string& name) const {
  for (const GgufTensorInfo& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

bool HasGgufMagic(const uint8_t* data, size_t size) {
  return size >= 4 && std::memcmp(data, "GGUF", 4) == 0;
}

bool ReadGguf(const uint8_t* data, size_t size, const std::string& name, GgufFile* out,
              std::string* error) {
  *out = GgufFile();
  try {
    return ReadGgufImpl(data, size, name, out, error);
  } catch (const std::bad_alloc&) {
    *error = name + ": out of memory while reading the GGUF header";
    return false;
  }
}

}  // namespace attnrt

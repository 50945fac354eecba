// PNG encoding with uncompressed deflate blocks: a valid file that any viewer
// reads, in a few dozen lines, with CRC32 and Adler-32 written here.
#include "host/png_writer.h"

#include "output/output_file.h"

namespace attnrt {
namespace {

uint32_t Crc32(const uint8_t* data, size_t n, uint32_t crc = 0) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void PutU32(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<uint8_t>(v >> shift));
}

void Chunk(std::vector<uint8_t>* png, const char* type, const std::vector<uint8_t>& body) {
  PutU32(png, static_cast<uint32_t>(body.size()));
  std::vector<uint8_t> typed(type, type + 4);
  typed.insert(typed.end(), body.begin(), body.end());
  png->insert(png->end(), typed.begin(), typed.end());
  PutU32(png, Crc32(typed.data(), typed.size()));
}

// zlib stream of stored (uncompressed) deflate blocks of at most 65535 bytes.
std::vector<uint8_t> ZlibStored(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> z = {0x78, 0x01};
  size_t pos = 0;
  do {
    const size_t n = raw.size() - pos < 65535 ? raw.size() - pos : 65535;
    z.push_back(pos + n == raw.size() ? 1 : 0);
    z.push_back(static_cast<uint8_t>(n));
    z.push_back(static_cast<uint8_t>(n >> 8));
    z.push_back(static_cast<uint8_t>(~n));
    z.push_back(static_cast<uint8_t>(~n >> 8));
    z.insert(z.end(), raw.begin() + pos, raw.begin() + pos + n);
    pos += n;
  } while (pos < raw.size());
  uint32_t a = 1, b = 0;
  for (uint8_t byte : raw) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  PutU32(&z, (b << 16) | a);
  return z;
}

}  // namespace

bool WritePngRgb(const std::string& path, size_t width, size_t height,
                 const std::vector<uint8_t>& rgb, std::string* error) {
  if (rgb.size() != width * height * 3 || width == 0 || height == 0) {
    *error = "png: pixel buffer does not match " + std::to_string(width) + "x" + std::to_string(height);
    return false;
  }
  std::vector<uint8_t> raw;
  raw.reserve(height * (width * 3 + 1));
  for (size_t y = 0; y < height; ++y) {
    raw.push_back(0);  // filter: none
    raw.insert(raw.end(), rgb.begin() + y * width * 3, rgb.begin() + (y + 1) * width * 3);
  }
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> header;
  PutU32(&header, static_cast<uint32_t>(width));
  PutU32(&header, static_cast<uint32_t>(height));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, no filter, no interlace
  Chunk(&png, "IHDR", header);
  Chunk(&png, "IDAT", ZlibStored(raw));
  Chunk(&png, "IEND", {});
  return WriteOutputFile(path, png.data(), png.size(), error);
}

void HeatColor(float t, uint8_t* rgb) {
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  // Piecewise-linear: navy -> purple -> orange -> yellow.
  const float stops[4][3] = {{13, 8, 135}, {156, 23, 158}, {237, 121, 83}, {240, 249, 33}};
  const float x = t * 3.0f;
  const int i = x >= 3.0f ? 2 : static_cast<int>(x);
  const float f = x - static_cast<float>(i);
  for (int c = 0; c < 3; ++c) {
    rgb[c] = static_cast<uint8_t>(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f + 0.5f);
  }
}

}  // namespace attnrt

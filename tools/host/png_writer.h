// A minimal PNG writer (8-bit RGB, zlib "stored" blocks, no compression
// library) for the demo's attention heatmap. Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnrt {

// `rgb` holds width * height * 3 bytes, rows top to bottom.
bool WritePngRgb(const std::string& path, size_t width, size_t height,
                 const std::vector<uint8_t>& rgb, std::string* error);

// Colour for t in [0, 1] on a dark-blue -> yellow ramp (perceptually ordered).
void HeatColor(float t, uint8_t* rgb);

}  // namespace attnrt

// The small sample file the damage tests corrupt, built with the host writer.
#include "weight_file/weight_file_test_util.h"

#include "convert/weight_file_writer.h"

namespace attnrt {
namespace weight_file_test {

std::vector<float> SampleValues(float seed, size_t count) {
  std::vector<float> v(count);
  for (size_t k = 0; k < count; ++k) v[k] = seed + 0.25f * static_cast<float>(k);
  return v;
}

Bytes SmallFile() {
  WeightFileWriter w;
  std::string error;
  const std::vector<float> a = SampleValues(1.0f, 6), b = SampleValues(-3.0f, 4);
  EXPECT_TRUE(w.AddTensorF32("a", {2, 3}, a.data(), &error)) << error;
  EXPECT_TRUE(w.AddTensorF32("b", {4}, b.data(), &error)) << error;
  w.SetString("arch", "tiny");
  w.SetFloat("eps", 1e-5);
  w.SetInt("n_heads", 2);
  Bytes out;
  EXPECT_TRUE(w.Serialize(&out, &error)) << error;
  return out;
}

}  // namespace weight_file_test
}  // namespace attnrt

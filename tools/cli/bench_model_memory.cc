// See bench_model_memory.h.
#include "cli/bench_model_memory.h"

#include "attnrt/models/model_spec.h"
#include "attnrt/runtime/checked_math.h"
#include "cli/cli_common.h"

namespace attnrt::cli {

bool CheckRandomModelFits(const ModelConfig& config, WeightType matrix_type, std::string* error) {
  size_t total = 0, largest_f32 = 0, tensors = 0;
  bool fits = true;
  for (size_t i = 0; fits && i < ModelTensorCount(config); ++i) {
    TensorSpec spec;
    if (!ModelTensorAt(config, i, &spec) || spec.optional) continue;
    size_t count = 0, f32 = 0, bytes = 0;
    fits = CheckedProduct(spec.shape.dims, spec.shape.rank, &count) &&
           CheckedMul(count, sizeof(float), &f32);
    // A matrix is stored rows x cols in its type; everything else is f32.
    const size_t cols = spec.shape.FromRight(0);
    bytes = f32;
    if (fits && spec.matrix && cols != 0) fits = MatrixBytes(matrix_type, count / cols, cols, &bytes);
    fits = fits && CheckedAdd(total, bytes, &total);
    if (f32 > largest_f32) largest_f32 = f32;
    ++tensors;
  }
  size_t need = 0;
  fits = fits && CheckedMul(total, size_t{2}, &need) && CheckedAdd(need, largest_f32, &need);
  const size_t memory = MachineMemoryBytes();
  if (fits && need <= memory) return true;
  *error = "the random model of this config is " +
           (fits ? std::to_string(total) + " bytes" : std::string("more bytes than size_t counts")) +
           " of weights (the sum of its " + std::to_string(tensors) +
           " tensors); building it holds " +
           (fits ? std::to_string(need) + " bytes" : std::string("more")) +
           " (the tensors, the serialized file and one tensor in float32), more than this "
           "machine's " + std::to_string(memory) + " bytes of memory";
  return false;
}

}  // namespace attnrt::cli

// The shared --chunk option (see chunk_option.h).
#include "cli/chunk_option.h"

#include "cli/option_checks.h"

namespace attnrt::cli {

void AddChunkOption(CLI::App* cmd, size_t* chunk, const std::string& cap) {
  cmd->add_option("--chunk", *chunk,
                  "Language models: most tokens per pass through the layers (default 256; capped "
                  "at " + cap + "); with a sliding window W the KV cache keeps W - 1 + chunk "
                  "positions and moves its newest W - 1 to the front when full")
      ->check(WholeNumber(1, kMaxDim));
}

}  // namespace attnrt::cli

// tokenizer.json's "post_processor", for one sequence with add_special_tokens:
// TemplateProcessing (its "single" template), BertProcessing and RobertaProcessing (cls A sep),
// ByteLevel (ids unchanged) and Sequence of them. Any other is refused by name at load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/json_fields.h"

namespace attnrt::tok {

class PostProcessor {
 public:
  // `j` is the post-processor object or null (none).
  bool Load(const Json& j, const std::string& where, std::string* error);
  // transformers' LlamaTokenizerFast template: [bos] $A [eos], each present when asked.
  void SetBosEos(bool add_bos, uint32_t bos, bool add_eos, uint32_t eos);

  // *ids with the special tokens the templates add around them.
  void Apply(std::vector<uint32_t>* ids) const;

 private:
  // One template: ids before the sequence, ids after it.
  struct Wrap {
    std::vector<uint32_t> before, after;
  };
  bool LoadOne(const Json& j, const std::string& where, const std::string& type,
               std::string* error);
  bool LoadTemplate(const Json& j, const std::string& at, std::string* error);
  bool LoadClsSep(const Json& j, const std::string& at, std::string* error);

  std::vector<Wrap> steps_;
};

}  // namespace attnrt::tok

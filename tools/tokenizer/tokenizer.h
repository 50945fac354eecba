// Hugging Face tokenizers for the attnrt tools: a tokenizer.json (as the Rust `tokenizers`
// library defines it) plus, when the model has one, its tokenizer_config.json, giving the ids
// that transformers' `tokenizer(text)["input_ids"]` gives and the text `tokenizer.decode(ids)`
// gives.
//
// Supported: the BPE model (byte_fallback, fuse_unk, ignore_merges, unk token, subword
// prefix / word suffix); normalizers NFC/NFD/NFKC/NFKD, Prepend, Replace, Strip, Sequence;
// pre-tokenizers ByteLevel, Split, Metaspace, Digits, Sequence; post-processors
// TemplateProcessing, Bert/RobertaProcessing, ByteLevel, Sequence; decoders ByteLevel,
// ByteFallback, Fuse, Strip, Replace, Metaspace, Sequence; added and special tokens (lstrip,
// rstrip, single_word, normalized, special). From tokenizer_config.json, transformers' rules:
// LlamaTokenizerFast's (and Gemma's, CodeLlama's) add_bos_token / add_eos_token replace the
// post-processor, clean_up_tokenization_spaces applies to decode, split_special_tokens, and
// special tokens named there but missing from tokenizer.json are added as special tokens.
// Everything else (another model type such as Unigram or WordPiece, another component, a key
// a component does not know) is refused by name when the tokenizer is loaded.
//
// No exceptions cross this API: every call returns false with a message in *error.
// Truncation and padding settings in tokenizer.json are ignored, as transformers ignores them
// for a plain `tokenizer(text)`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnrt {

class Tokenizer {
 public:
  Tokenizer();
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

  // `tokenizer_json` is the text of tokenizer.json; `config_json` that of
  // tokenizer_config.json, or empty when there is none. `name` prefixes errors.
  static bool Load(std::string_view tokenizer_json, std::string_view config_json,
                   const std::string& name, Tokenizer* out, std::string* error);

  // The compact form of the same tokenizer: what Load reads from both files, with the
  // vocabulary and merges as binary tables, so loading skips parsing the large JSON (Gemma 3's
  // 33 MB). It holds no NUL byte: a converter keeps it as the string metadata
  // kCompactMetadataKey beside the hf.* files.
  static constexpr const char* kCompactMetadataKey = "tokenizer.compact";
  static bool Compile(std::string_view tokenizer_json, std::string_view config_json,
                      const std::string& name, std::string* compact, std::string* error);
  // Loads what Compile wrote (from an untrusted file: every part is checked). A compact form
  // written by another version of this code is refused with *stale set, so the caller can
  // fall back to the JSON files.
  static bool LoadCompact(std::string_view compact, const std::string& name, Tokenizer* out,
                          bool* stale, std::string* error);

  // llama.cpp's tokenizer from a GGUF file (tokenizer.ggml.model "llama" or "gpt2"; see
  // gguf_vocab.h): `metadata_json` is the tokenizer.* keys as one JSON object, which
  // `attnrt convert MODEL.gguf` keeps as the string metadata kGgufMetadataKey. Encode then
  // gives llama.cpp's tokenize with special tokens parsed (and BOS / EOS as the file says when
  // add_special_tokens), Decode its detokenize in the tokenizer.json terms above.
  // It is translated into the compact form (CompileGguf, which a converter may keep as
  // kCompactMetadataKey) and loaded from that.
  static constexpr const char* kGgufMetadataKey = "gguf.tokenizer";
  static bool LoadGguf(std::string_view metadata_json, const std::string& name, Tokenizer* out,
                       std::string* error);
  static bool CompileGguf(std::string_view metadata_json, const std::string& name,
                          std::string* compact, std::string* error);

  // `text` must be valid UTF-8. Not safe to call from two threads at once.
  bool Encode(std::string_view text, bool add_special_tokens, std::vector<uint32_t>* ids,
              std::string* error) const;
  // Ids that name no token are left out, as the reference does.
  bool Decode(const std::vector<uint32_t>& ids, bool skip_special_tokens, std::string* text,
              std::string* error) const;

  bool loaded() const { return impl_ != nullptr; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attnrt

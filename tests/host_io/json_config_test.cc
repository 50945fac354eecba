// Tests for tools/host/json_config: typed getters (required and optional), the errors that name
// key and file, unknown-key rejection, strict parsing, and loading config.json from disk.
#include "host/json_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace attnrt {
namespace {

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

constexpr const char* kSample = R"({
  "d_model": 16, "nhead": 2, "negative": -3, "big": 18446744073709551615,
  "eps": 1e-5, "whole": 4, "ratio": 16.0,
  "norm_first": true, "bias": false,
  "activation": "gelu", "d_k": null, "list": [1, 2]
})";

JsonConfig Sample() {
  JsonConfig config;
  std::string error;
  EXPECT_TRUE(ParseJsonConfig(kSample, "cfg.json", &config, &error)) << error;
  return config;
}

TEST(JsonConfigGet, RequiredValuesOfEachType) {
  const JsonConfig config = Sample();
  std::string error;
  int64_t i = 0;
  EXPECT_TRUE(config.GetInt("d_model", &i, &error)) << error;
  EXPECT_EQ(i, 16);
  EXPECT_TRUE(config.GetInt("negative", &i, &error)) << error;
  EXPECT_EQ(i, -3);
  double f = 0;
  EXPECT_TRUE(config.GetFloat("eps", &f, &error)) << error;
  EXPECT_EQ(f, 1e-5);
  EXPECT_TRUE(config.GetFloat("whole", &f, &error)) << error;  // an integer is a number
  EXPECT_EQ(f, 4.0);
  bool b = false;
  EXPECT_TRUE(config.GetBool("norm_first", &b, &error)) << error;
  EXPECT_TRUE(b);
  EXPECT_TRUE(config.GetBool("bias", &b, &error)) << error;
  EXPECT_FALSE(b);
  std::string s;
  EXPECT_TRUE(config.GetString("activation", &s, &error)) << error;
  EXPECT_EQ(s, "gelu");
  EXPECT_EQ(config.name(), "cfg.json");
}

TEST(JsonConfigGet, OptionalFallsBackWhenMissingOrNull) {
  const JsonConfig config = Sample();
  std::string error;
  int64_t i = 0;
  EXPECT_TRUE(config.GetInt("dim_feedforward", 2048, &i, &error)) << error;
  EXPECT_EQ(i, 2048);
  EXPECT_TRUE(config.GetInt("d_k", 16, &i, &error)) << error;  // null = PyTorch's None
  EXPECT_EQ(i, 16);
  EXPECT_TRUE(config.GetInt("nhead", 8, &i, &error)) << error;  // present: the file wins
  EXPECT_EQ(i, 2);
  double f = 0;
  EXPECT_TRUE(config.GetFloat("dropout", 0.25, &f, &error)) << error;
  EXPECT_EQ(f, 0.25);
  bool b = true;
  EXPECT_TRUE(config.GetBool("batch_first", false, &b, &error)) << error;
  EXPECT_FALSE(b);
  std::string s;
  EXPECT_TRUE(config.GetString("kind", "relu", &s, &error)) << error;
  EXPECT_EQ(s, "relu");
  EXPECT_TRUE(config.Has("d_model"));
  EXPECT_FALSE(config.Has("d_k"));
  EXPECT_FALSE(config.Has("nothing"));
}

TEST(JsonConfigGet, MissingRequiredKeyNamesKeyAndFile) {
  const JsonConfig config = Sample();
  std::string error;
  int64_t i = 0;
  EXPECT_FALSE(config.GetInt("dim_feedforward", &i, &error));
  EXPECT_EQ(error, "cfg.json: missing required key 'dim_feedforward' (an integer)");
  EXPECT_FALSE(config.GetInt("d_k", &i, &error));
  EXPECT_EQ(error, "cfg.json: key 'd_k': is null; expected an integer");
  double f;
  EXPECT_FALSE(config.GetFloat("x", &f, &error));
  EXPECT_HAS(error, "missing required key 'x' (a number)");
  bool b;
  EXPECT_FALSE(config.GetBool("x", &b, &error));
  EXPECT_HAS(error, "missing required key 'x' (true or false)");
  std::string s;
  EXPECT_FALSE(config.GetString("x", &s, &error));
  EXPECT_HAS(error, "missing required key 'x' (a string)");
}

TEST(JsonConfigGet, WrongTypesAreErrorsEvenForOptionalKeys) {
  const JsonConfig config = Sample();
  std::string error;
  int64_t i = 0;
  EXPECT_FALSE(config.GetInt("ratio", &i, &error));
  EXPECT_EQ(error, "cfg.json: key 'ratio': expected an integer, got 16.0 (number)");
  EXPECT_FALSE(config.GetInt("activation", 1, &i, &error));
  EXPECT_EQ(error, "cfg.json: key 'activation': expected an integer, got \"gelu\" (string)");
  EXPECT_FALSE(config.GetInt("norm_first", &i, &error));
  EXPECT_HAS(error, "got true (boolean)");
  EXPECT_FALSE(config.GetInt("big", &i, &error));
  EXPECT_EQ(error, "cfg.json: key 'big': integer 18446744073709551615 is out of range");
  double f = 0;
  EXPECT_FALSE(config.GetFloat("activation", 0.5, &f, &error));
  EXPECT_HAS(error, "key 'activation': expected a number");
  EXPECT_FALSE(config.GetFloat("list", &f, &error));
  EXPECT_EQ(error, "cfg.json: key 'list': expected a number, got [1,2] (array)");
  bool b = false;
  EXPECT_FALSE(config.GetBool("d_model", false, &b, &error));
  EXPECT_EQ(error, "cfg.json: key 'd_model': expected true or false, got 16 (number)");
  std::string s;
  EXPECT_FALSE(config.GetString("nhead", "x", &s, &error));
  EXPECT_EQ(error, "cfg.json: key 'nhead': expected a string, got 2 (number)");
}

TEST(JsonConfigKeys, UnknownKeysAreListedAndRejectedByName) {
  JsonConfig config;
  std::string error;
  ASSERT_TRUE(ParseJsonConfig(R"({"d_model": 16, "nheads": 2, "droput": 0.1})", "model.json",
                              &config, &error))
      << error;
  EXPECT_EQ(config.Keys(), (std::vector<std::string>{"d_model", "droput", "nheads"}));
  const std::vector<std::string> allowed = {"d_model", "nhead", "dropout"};
  EXPECT_EQ(config.UnknownKeys(allowed), (std::vector<std::string>{"droput", "nheads"}));
  EXPECT_FALSE(config.CheckNoUnknownKeys(allowed, &error));
  EXPECT_EQ(error,
            "model.json: unknown keys 'droput', 'nheads' (allowed: d_model, nhead, dropout)");
  EXPECT_TRUE(config.CheckNoUnknownKeys({"d_model", "nheads", "droput", "extra"}, &error));
  EXPECT_FALSE(config.CheckNoUnknownKeys({"d_model", "nheads"}, &error));
  EXPECT_EQ(error, "model.json: unknown key 'droput' (allowed: d_model, nheads)");
}

TEST(JsonConfigParse, RejectsBadDocuments) {
  JsonConfig config;
  std::string error;
  EXPECT_FALSE(ParseJsonConfig("{\"a\": 1,}", "c.json", &config, &error));
  EXPECT_HAS(error, "c.json: invalid JSON: parse error");
  EXPECT_FALSE(ParseJsonConfig("", "c.json", &config, &error));
  EXPECT_HAS(error, "c.json: invalid JSON");
  EXPECT_FALSE(ParseJsonConfig("{\"a\": NaN}", "c.json", &config, &error));
  EXPECT_HAS(error, "c.json: invalid JSON");
  EXPECT_FALSE(ParseJsonConfig("[1, 2]", "c.json", &config, &error));
  EXPECT_EQ(error, "c.json: top level must be a JSON object, got [1,2] (array)");
  EXPECT_FALSE(ParseJsonConfig("{\"a\": 1, \"a\": 2}", "c.json", &config, &error));
  EXPECT_EQ(error, "c.json: duplicate key \"a\"");
  EXPECT_FALSE(ParseJsonConfig("{\"o\": {\"x\": 1, \"x\": 1}}", "c.json", &config, &error));
  EXPECT_EQ(error, "c.json: duplicate key \"x\"");
  // The same key in two different objects is fine.
  EXPECT_TRUE(ParseJsonConfig("{\"o\": {\"x\": 1}, \"p\": {\"x\": 1}, \"x\": 0}", "c.json",
                              &config, &error))
      << error;
  EXPECT_FALSE(ParseJsonConfig(std::string(17, '[') + std::string(17, ']'), "c.json", &config,
                               &error));
  EXPECT_EQ(error, "c.json: nesting deeper than 16 levels");
}

TEST(JsonParse, DepthLimitCountsTheTopLevel) {
  nlohmann::json value;
  std::string error;
  EXPECT_TRUE(ParseJson("[[1]]", 5, "j", 2, &value, &error)) << error;
  EXPECT_FALSE(ParseJson("[[[1]]]", 7, "j", 2, &value, &error));
  EXPECT_EQ(error, "j: nesting deeper than 2 levels");
  EXPECT_TRUE(ParseJson("7", 1, "j", 0, &value, &error)) << error;  // a scalar nests nothing
  EXPECT_EQ(value, 7);
}

class JsonConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "json_config_test_" + std::to_string(::getpid()) + ".json";
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void Write(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }
  std::string path_;
};

TEST_F(JsonConfigFile, LoadsFromDiskAndNamesThePathInErrors) {
  Write("{\"embed_dim\": 16, \"num_heads\": 2, \"bias\": true}\n");
  JsonConfig config;
  std::string error;
  ASSERT_TRUE(LoadJsonConfig(path_, &config, &error)) << error;
  EXPECT_EQ(config.name(), path_);
  int64_t heads = 0;
  EXPECT_TRUE(config.GetInt("num_heads", &heads, &error)) << error;
  EXPECT_EQ(heads, 2);
  std::string s;
  EXPECT_FALSE(config.GetString("bias", &s, &error));
  EXPECT_EQ(error.rfind(path_ + ": key 'bias': expected a string", 0), 0u) << error;

  Write("{\"embed_dim\": 16,");
  EXPECT_FALSE(LoadJsonConfig(path_, &config, &error));
  EXPECT_EQ(error.rfind(path_ + ": invalid JSON", 0), 0u) << error;
}

TEST_F(JsonConfigFile, MissingFile) {
  JsonConfig config;
  std::string error;
  EXPECT_FALSE(LoadJsonConfig("/nonexistent/dir/config.json", &config, &error));
  EXPECT_HAS(error, "/nonexistent/dir/config.json: cannot open");
}

#ifdef ATTNRT_HOST_IO_FIXTURES
// config.json as export_torch.py writes it: every constructor argument plus "architecture".
TEST(JsonConfigExport, EncoderLayerConfigHasEveryConstructorArgument) {
  JsonConfig config;
  std::string error;
  ASSERT_TRUE(LoadJsonConfig(std::string(ATTNRT_HOST_IO_FIXTURES) + "/encoder_layer/config.json",
                             &config, &error))
      << error;
  EXPECT_TRUE(config.CheckNoUnknownKeys({"architecture", "d_model", "nhead", "dim_feedforward",
                                         "dropout", "activation", "layer_norm_eps", "batch_first",
                                         "norm_first", "bias", "is_causal"},
                                        &error))
      << error;
  std::string arch, activation;
  int64_t d_model = 0, ff = 0;
  double eps = 0;
  bool norm_first = true, bias = false;
  EXPECT_TRUE(config.GetString("architecture", &arch, &error) &&
              config.GetInt("d_model", &d_model, &error) &&
              config.GetInt("dim_feedforward", &ff, &error) &&
              config.GetFloat("layer_norm_eps", &eps, &error) &&
              config.GetString("activation", &activation, &error) &&
              config.GetBool("norm_first", &norm_first, &error) &&
              config.GetBool("bias", &bias, &error))
      << error;
  EXPECT_EQ(arch, "encoder-layer");
  EXPECT_EQ(d_model, 16);
  EXPECT_EQ(ff, 32);
  EXPECT_EQ(eps, 1e-5);
  EXPECT_EQ(activation, "relu");
  EXPECT_FALSE(norm_first);
  EXPECT_TRUE(bias);
}
#endif

}  // namespace
}  // namespace attnrt

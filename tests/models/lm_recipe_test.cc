// The language-model recipe (models/src/lm_recipe.h): every shipped family's
// recipe runs, and each step the forward pass does not run yet is refused by a
// name a user can act on, never run approximately.
#include "models/src/lm_recipe.h"

#include <gtest/gtest.h>

#include <string>

#include "attnrt/models/model_config.h"

namespace attnrt::testing {
namespace {

TEST(LmRecipe, LlamasRecipeRuns) {
  // The default recipe is Llama's (RMSNorm, SwiGLU, RoPE, pre-norm residuals).
  EXPECT_EQ(UnsupportedRecipeStep(LmRecipe{}), nullptr);
}

TEST(LmRecipe, StepsNotRunYetAreRefusedByName) {
  struct Case {
    LmRecipe recipe;
    const char* name;
  };
  LmRecipe norm, geglu, gelu_tanh, sandwich, scale, qk;
  norm.norm = NormKind::kRmsOnePlus;
  geglu.mlp = MlpKind::kGeGluTanh;
  gelu_tanh.mlp = MlpKind::kGeluTanh;
  sandwich.residual = ResidualKind::kSandwich;
  scale.embedding_scale = EmbeddingScale::kSqrtDim;
  qk.qk_norm = true;
  for (const Case& c : {Case{norm, "norm rms(1+w)"}, Case{geglu, "mlp geglu(tanh)"},
                        Case{gelu_tanh, "mlp gelu(tanh)"},
                        Case{sandwich, "residual sandwich norms"},
                        Case{scale, "embedding scale sqrt(dim)"}, Case{qk, "q/k norms"}}) {
    const char* step = UnsupportedRecipeStep(c.recipe);
    ASSERT_NE(step, nullptr) << c.name;
    EXPECT_EQ(std::string(step), c.name);
  }
}

TEST(ArchitectureList, NamesParseBackToTheirArchitecture) {
  // The enum, the names and the records come from one list (architectures.inc):
  // each name parses to its own enumerator, and the help list names them all.
  const std::string all = ArchitectureNames();
  for (size_t i = 0; i < ArchitectureCount(); ++i) {
    const Architecture arch = ArchitectureAt(i);
    EXPECT_EQ(static_cast<size_t>(arch), i);
    Architecture parsed;
    ASSERT_TRUE(ParseArchitecture(ArchitectureName(arch), &parsed).ok());
    EXPECT_EQ(parsed, arch);
    EXPECT_NE(all.find(ArchitectureName(arch)), std::string::npos) << ArchitectureName(arch);
    EXPECT_NE(std::string(ArchitectureModule(arch)), "");
  }
  Architecture parsed;
  EXPECT_FALSE(ParseArchitecture("gpt-7", &parsed).ok());
}

}  // namespace
}  // namespace attnrt::testing

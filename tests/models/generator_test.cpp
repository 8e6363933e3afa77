// Generator on the tiny Qwen model: greedy decoding with the KV cache gives the tokens of
// re-running the whole sequence each step; sampling options; errors.
#include "runtime/generator.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "registry/error.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

class TinyGenerator : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = load(tiny_model_path()).release(); }
  static void TearDownTestSuite() { delete model_; }
  static Model* model_;
};
Model* TinyGenerator::model_ = nullptr;

TEST_F(TinyGenerator, GreedyTokensEqualFullRecomputation) {
  const models::QwenOptions o = tiny_options(models::ElemType::kF32);
  const std::vector<int64_t> prompt = {17, 3, 200, 45, 9};
  Generator gen(*model_, {16, {}});
  const std::vector<int64_t> tokens = gen.generate(prompt, 8);
  ASSERT_EQ(tokens.size(), 8u);
  EXPECT_EQ(gen.length(), 12);  // the last token is chosen, not yet fed
  EXPECT_EQ(gen.stats().prompt_tokens, 5);
  EXPECT_EQ(gen.stats().step_ms.size(), 7u);

  // Without a cache: the whole sequence from position 0 each time, argmax of the last row.
  std::vector<int64_t> seq = prompt;
  for (size_t t = 0; t < tokens.size(); ++t) {
    QwenStep step;
    step.ids = {seq};
    step.mask = {std::vector<int64_t>(seq.size(), 1)};
    std::vector<int64_t> pos(seq.size());
    std::iota(pos.begin(), pos.end(), 0);
    step.positions = {pos};
    const QwenOut out = run_step(*model_, o, step);
    const auto row = logits_row(out.logits, 0, static_cast<int64_t>(seq.size()) - 1);
    EXPECT_EQ(tokens[t], argmax(row)) << "token " << t;
    seq.push_back(argmax(row));
  }
  // A second prefill starts over.
  EXPECT_EQ(gen.generate(prompt, 8), tokens);
}

TEST_F(TinyGenerator, SeededSamplingRepeatsAndTopK1IsGreedy) {
  const std::vector<int64_t> prompt = {1, 2, 3};
  GeneratorOptions o{32, {}};
  const auto greedy = Generator(*model_, o).generate(prompt, 6);
  o.sampling = {1.0f, 1, 1.0f, 5};
  EXPECT_EQ(Generator(*model_, o).generate(prompt, 6), greedy);
  o.sampling = {1.5f, 0, 0.95f, 11};
  const auto a = Generator(*model_, o).generate(prompt, 12);
  EXPECT_EQ(Generator(*model_, o).generate(prompt, 12), a);
}

TEST_F(TinyGenerator, Errors) {
  Generator gen(*model_, {6, {}});
  EXPECT_THROW(gen.step(), Error);  // before prefill
  const std::vector<int64_t> prompt = {1, 2, 3, 4};
  gen.prefill(prompt);
  gen.step();
  gen.step();
  try {
    gen.step();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("7 tokens exceed max_len 6"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Generator(*model_, {0, {}}), Error);
  Graph g;
  g.add_value("x", {DType::kF32, SymShape{Dim(2)}});
  g.inputs = {0};
  g.outputs = {0};
  const Model plain(std::move(g), {1, "cpu", true});
  EXPECT_FALSE(Generator::is_decoder_with_past(plain.graph()));
  EXPECT_THROW(Generator(plain, {}), Error);
}

TEST(SampleToken, FollowsTheSoftmaxAndItsFilters) {
  const std::vector<float> logits = {0.0f, std::log(2.0f), std::log(5.0f), -30.0f};
  std::mt19937_64 rng(3);
  EXPECT_EQ(sample_token(logits, {}, rng), 2);  // greedy
  std::map<int64_t, int> n;
  const int draws = 40000;
  for (int i = 0; i < draws; ++i) ++n[sample_token(logits, {1.0f, 0, 1.0f, 0}, rng)];
  EXPECT_NEAR(n[0] / double(draws), 1.0 / 8, 0.01);
  EXPECT_NEAR(n[1] / double(draws), 2.0 / 8, 0.01);
  EXPECT_NEAR(n[2] / double(draws), 5.0 / 8, 0.01);
  n.clear();
  for (int i = 0; i < 2000; ++i) ++n[sample_token(logits, {1.0f, 2, 1.0f, 0}, rng)];
  EXPECT_EQ(n[0] + n[3], 0);  // top-k 2 keeps tokens 2 and 1
  n.clear();
  for (int i = 0; i < 2000; ++i) ++n[sample_token(logits, {1.0f, 0, 0.6f, 0}, rng)];
  EXPECT_EQ(n[2], 2000);  // 5/8 >= 0.6: the nucleus is token 2 alone
}

}  // namespace
}  // namespace asc::test

// The tiny Qwen2 models the builder writes, run by asc: shapes, KV-cache consistency, padding,
// and logits against a naive double reference.
#include <gtest/gtest.h>

#include <onnx/checker.h>

#include "tests/models/qwen_reference.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

using models::ElemType;

class QwenTiny : public ::testing::TestWithParam<ElemType> {
 protected:
  void SetUp() override {
    o_ = tiny_options(GetParam());
    path_ = dir_ / "qwen.onnx";
    models::write_qwen(o_, path_);
    model_ = load(path_);
  }
  TempDir dir_;
  models::QwenOptions o_;
  std::string path_;
  std::unique_ptr<Model> model_;
};

std::string dtype_name(const ::testing::TestParamInfo<ElemType>& p) {
  return models::elem_name(p.param);
}

TEST_P(QwenTiny, CheckerAcceptsTheModel) {
  EXPECT_NO_THROW(onnx::checker::check_model(path_));
}

TEST_P(QwenTiny, OutputShapesWithAndWithoutPast) {
  const auto& c = o_.config;
  QwenStep prefill{{{3, 14, 15, 92, 65}, {35, 89, 79, 32, 38}},
                   {{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}},
                   {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}},
                   {}};
  const QwenOut a = run_step(*model_, o_, prefill);
  ASSERT_EQ(a.logits.shape(), (Shape{2, 5, c.vocab}));
  ASSERT_EQ(a.present.size(), static_cast<size_t>(2 * c.layers));
  for (const Tensor& p : a.present) EXPECT_EQ(p.shape(), (Shape{2, c.kv_heads, 5, c.head_dim}));

  const QwenStep decode{{{46, 26}, {43, 38}},
                        {{5, 6}, {5, 6}},
                        {{1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1}},
                        a.present};
  const QwenOut b = run_step(*model_, o_, decode);
  ASSERT_EQ(b.logits.shape(), (Shape{2, 2, c.vocab}));
  for (const Tensor& p : b.present) EXPECT_EQ(p.shape(), (Shape{2, c.kv_heads, 7, c.head_dim}));
  for (int64_t i = 0; i < b.logits.numel(); ++i) ASSERT_TRUE(std::isfinite(b.logits.at(i))) << i;
}

// Prefill of all tokens at once == prefill of the first four, then decode steps of one token
// with the presents as past.
TEST_P(QwenTiny, KvCacheStepsMatchOnePrefill) {
  const std::vector<int64_t> tokens = {17, 201, 5, 88, 140, 9};
  std::vector<int64_t> pos(tokens.size()), ones(tokens.size(), 1);
  for (size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<int64_t>(i);
  const QwenOut full = run_step(*model_, o_, {{tokens}, {pos}, {ones}, {}});

  QwenOut step = run_step(
      *model_, o_, {{{tokens.begin(), tokens.begin() + 4}}, {{0, 1, 2, 3}}, {{1, 1, 1, 1}}, {}});
  for (int64_t t = 4; t < 6; ++t) {
    step = run_step(*model_, o_,
                    {{{tokens[static_cast<size_t>(t)]}},
                     {{t}},
                     {std::vector<int64_t>(static_cast<size_t>(t + 1), 1)},
                     step.present});
    const auto want = logits_row(full.logits, 0, t), got = logits_row(step.logits, 0, 0);
    EXPECT_LE(max_abs_diff(want, got), logits_tolerance(o_.dtype) * max_abs(want)) << "token " << t;
    EXPECT_EQ(argmax(want), argmax(got)) << "token " << t;
  }
  // The cache itself: the last present equals the full run's present.
  for (size_t i = 0; i < full.present.size(); ++i) {
    ASSERT_EQ(step.present[i].shape(), full.present[i].shape());
    double m = 0, d = 0;
    for (int64_t j = 0; j < full.present[i].numel(); ++j) {
      m = std::max(m, std::abs(full.present[i].at(j)));
      d = std::max(d, std::abs(full.present[i].at(j) - step.present[i].at(j)));
    }
    EXPECT_LE(d, logits_tolerance(o_.dtype) * m) << "present " << i;
  }
}

// Left padding (attention_mask 0) changes nothing for the rows it does not pad.
TEST_P(QwenTiny, PaddingZerosChangeNothingForRealTokens) {
  const QwenOut alone =
      run_step(*model_, o_, {{{40, 41, 42, 43}}, {{0, 1, 2, 3}}, {{1, 1, 1, 1}}, {}});
  const QwenOut padded = run_step(*model_, o_,
                                  {{{7, 8, 9, 10, 11, 12}, {0, 0, 40, 41, 42, 43}},
                                   {{0, 1, 2, 3, 4, 5}, {1, 1, 0, 1, 2, 3}},
                                   {{1, 1, 1, 1, 1, 1}, {0, 0, 1, 1, 1, 1}},
                                   {}});
  for (int64_t j = 0; j < 4; ++j) {
    const auto want = logits_row(alone.logits, 0, j), got = logits_row(padded.logits, 1, j + 2);
    EXPECT_LE(max_abs_diff(want, got), logits_tolerance(o_.dtype) * max_abs(want)) << "row " << j;
  }
  for (int64_t i = 0; i < padded.logits.numel(); ++i)
    ASSERT_TRUE(std::isfinite(padded.logits.at(i))) << "padded rows must stay finite, at " << i;
}

INSTANTIATE_TEST_SUITE_P(Dtypes, QwenTiny,
                         ::testing::Values(ElemType::kF32, ElemType::kF16, ElemType::kBF16),
                         dtype_name);

// The fp32 model's logits against the naive reference: a padded batch, then a decode step of
// two tokens with the presents as past (checked against the reference of the whole sequence).
TEST(QwenReference, TinyFp32LogitsMatchNaiveForwardPass) {
  TempDir dir;
  const models::QwenOptions o = tiny_options(ElemType::kF32);
  const std::string path = dir / "qwen.onnx";
  models::write_qwen(o, path);
  const QwenWeights W = read_qwen_weights(path);
  const auto model = load(path);

  const std::vector<std::vector<int64_t>> ids = {{12, 250, 3, 77, 100}, {0, 64, 65, 66, 67}};
  const std::vector<std::vector<int64_t>> pos = {{0, 1, 2, 3, 4}, {1, 0, 1, 2, 3}};
  const std::vector<std::vector<int64_t>> mask = {{1, 1, 1, 1, 1}, {0, 1, 1, 1, 1}};
  const QwenOut pre = run_step(*model, o, {ids, pos, mask, {}});
  const QwenOut dec = run_step(*model, o,
                               {{{5, 6}, {7, 8}},
                                {{5, 6}, {4, 5}},
                                {{1, 1, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 1}},
                                pre.present});
  for (int64_t b = 0; b < 2; ++b) {
    QwenRefSeq seq;
    seq.ids = ids[b];
    seq.positions = pos[b];
    seq.mask = {mask[b].begin(), mask[b].end()};
    const std::vector<int64_t> more_ids =
        b == 0 ? std::vector<int64_t>{5, 6} : std::vector<int64_t>{7, 8};
    const std::vector<int64_t> more_pos =
        b == 0 ? std::vector<int64_t>{5, 6} : std::vector<int64_t>{4, 5};
    seq.ids.insert(seq.ids.end(), more_ids.begin(), more_ids.end());
    seq.positions.insert(seq.positions.end(), more_pos.begin(), more_pos.end());
    seq.mask.insert(seq.mask.end(), {1, 1});
    const std::vector<double> ref = qwen_reference(o.config, W, seq);
    const int64_t v = o.config.vocab;
    for (int64_t t = 0; t < 7; ++t) {
      if (b == 1 && t == 0) continue;  // a padded query sees no key
      const std::vector<double> want(ref.begin() + t * v, ref.begin() + (t + 1) * v);
      const auto got = t < 5 ? logits_row(pre.logits, b, t) : logits_row(dec.logits, b, t - 5);
      EXPECT_LE(max_abs_diff(want, got), 1e-4 * std::max(1.0, max_abs(want)))
          << "batch " << b << " position " << t;
    }
  }
}

}  // namespace
}  // namespace asc::test

namespace asc::test {
namespace {

// The fp32 model under asc's bf16 precision mode (constants stored in bf16): the mask value
// stays finite, so a padded batch gives finite logits and the real rows still match.
TEST(QwenPrecision, Fp32ModelUnderBf16PrecisionKeepsPaddingFinite) {
  TempDir dir;
  const models::QwenOptions o = tiny_options(ElemType::kF32);
  const std::string path = dir / "qwen.onnx";
  models::write_qwen(o, path);
  const Model model(import_onnx_file(path), ModelOptions{2, "cpu", true, DType::kBF16});
  const QwenOut alone = run_step(model, o, {{{40, 41, 42}}, {{0, 1, 2}}, {{1, 1, 1}}, {}});
  const QwenOut padded = run_step(model, o,
                                  {{{7, 8, 9, 10}, {0, 40, 41, 42}},
                                   {{0, 1, 2, 3}, {1, 0, 1, 2}},
                                   {{1, 1, 1, 1}, {0, 1, 1, 1}},
                                   {}});
  for (int64_t i = 0; i < padded.logits.numel(); ++i)
    ASSERT_TRUE(std::isfinite(padded.logits.at(i))) << i;
  for (int64_t j = 0; j < 3; ++j) {
    const auto want = logits_row(alone.logits, 0, j), got = logits_row(padded.logits, 1, j + 1);
    EXPECT_LE(max_abs_diff(want, got), logits_tolerance(ElemType::kBF16) * max_abs(want)) << j;
  }
}

}  // namespace
}  // namespace asc::test

// ModelOptions::last_logits_only (graph_passes.h keep_last_position): the lm_head runs on the
// last position only; its logits equal the last row of the full model's, batch > 1 included, and
// the Generator's tokens do not change.
#include <gtest/gtest.h>

#include "runtime/generator.h"
#include "runtime/graph_passes.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

TEST(LastLogits, LastRowOfTheFullLogits) {
  TempDir dir;
  const models::QwenOptions o = tiny_options(models::ElemType::kF32);
  models::write_qwen(o, dir / "tiny.onnx");
  const auto full = load(dir / "tiny.onnx");
  ModelOptions mo{2, "cpu", true};
  mo.last_logits_only = true;
  const Model last(import_onnx_file(dir / "tiny.onnx"), mo);
  EXPECT_EQ(last.graph().nodes.size(), full->graph().nodes.size() + 1);  // one Slice

  QwenStep step;  // batch 2, 7 tokens, the second row left-padded by 2
  step.ids = {{5, 9, 11, 200, 3, 7, 1}, {0, 0, 4, 4, 90, 91, 92}};
  step.mask = {{1, 1, 1, 1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 1}};
  step.positions = {{0, 1, 2, 3, 4, 5, 6}, {0, 0, 0, 1, 2, 3, 4}};
  const QwenOut a = run_step(*full, o, step), b = run_step(last, o, step);
  ASSERT_EQ(b.logits.shape(), (Shape{2, 1, o.config.vocab}));
  for (int64_t i = 0; i < 2; ++i) {
    const auto want = logits_row(a.logits, i, 6), got = logits_row(b.logits, i, 0);
    EXPECT_LE(max_abs_diff(want, got), 1e-5 * std::max(1.0, max_abs(want))) << "batch " << i;
  }
  ASSERT_EQ(a.present.size(), b.present.size());
  for (size_t k = 0; k < a.present.size(); ++k)
    EXPECT_EQ(0, std::memcmp(a.present[k].data(), b.present[k].data(), a.present[k].nbytes()));

  const std::vector<int64_t> prompt = {17, 3, 200, 45, 9, 30};
  EXPECT_EQ(Generator(last, {32, {}}).generate(prompt, 10),
            Generator(*full, {32, {}}).generate(prompt, 10));
}

TEST(LastLogits, OtherOutputFormsAreLeftAlone) {
  Graph g;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(1), Dim(4), Dim(8)}});
  g.inputs = {x};
  g.outputs = {x};
  EXPECT_FALSE(keep_last_position(g, "x"));       // no producer
  EXPECT_FALSE(keep_last_position(g, "logits"));  // no such output
  EXPECT_TRUE(g.nodes.empty());
}

}  // namespace
}  // namespace asc::test

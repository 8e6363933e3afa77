// make_plan with a base plan (a decoding loop's previous signature) gives the plan made from
// scratch: same steps, output types, known values and arena validity; and it re-plans only the
// nodes whose inputs moved (their programs are new objects, the others are the base's).
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/op_runner.h"
#include "runtime/plan.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

std::vector<TensorDesc> decode_inputs(const Graph& g, int64_t past, int64_t kv, int64_t d) {
  std::vector<TensorDesc> in;
  for (int v : g.inputs) {
    const std::string& n = g.values[v].name;
    if (n == "input_ids" || n == "position_ids")
      in.push_back({DType::kI64, {1, 1}});
    else if (n == "attention_mask")
      in.push_back({DType::kI64, {1, past + 1}});
    else
      in.push_back({DType::kF32, {1, kv, past, d}});
  }
  return in;
}

TEST(PlanReuse, BasePlanGivesThePlanFromScratch) {
  TempDir dir;
  const models::QwenOptions o = tiny_options(models::ElemType::kF32);
  models::write_qwen(o, dir / "tiny.onnx");
  const auto model = load(dir / "tiny.onnx");
  const Graph& g = model->graph();
  const NodeEval eval = [&](const Node& n, const Attrs& a, std::span<const Tensor> ins) {
    OpRunOptions ro;
    ro.num_outputs = n.outputs.size();
    return run_op(*n.def, a, ins, model->device(), ro);
  };
  const auto& spec = model->device().spec();
  const int64_t kv = o.config.kv_heads, d = o.config.head_dim;
  const Plan base = make_plan(g, decode_inputs(g, 5, kv, d), spec, true, {}, &eval);
  const Plan scratch = make_plan(g, decode_inputs(g, 6, kv, d), spec, true, {}, &eval);
  const Plan reused =
      make_plan(g, decode_inputs(g, 6, kv, d), spec, true, {}, &eval, nullptr, {}, &base);
  ASSERT_EQ(reused.steps.size(), scratch.steps.size());
  int taken = 0;
  for (size_t i = 0; i < scratch.steps.size(); ++i) {
    const PlanStep &a = scratch.steps[i], &b = reused.steps[i];
    ASSERT_EQ(a.node, b.node);
    EXPECT_EQ(a.level, b.level);
    ASSERT_EQ(a.out.size(), b.out.size());
    for (size_t k = 0; k < a.out.size(); ++k) {
      EXPECT_EQ(a.out[k].dtype, b.out[k].dtype) << g.nodes[a.node].label();
      EXPECT_EQ(a.out[k].shape, b.out[k].shape) << g.nodes[a.node].label();
    }
    EXPECT_EQ(a.program == nullptr, b.program == nullptr);
    const int in_base = base.step_of[static_cast<size_t>(a.node)];
    if (in_base >= 0 && b.program && b.program == base.steps[static_cast<size_t>(in_base)].program)
      ++taken;
  }
  // Most steps come from the base; the attention over the grown past does not.
  EXPECT_GT(taken, static_cast<int>(scratch.steps.size()) / 2);
  EXPECT_LT(taken, static_cast<int>(scratch.steps.size()));
  for (size_t v = 0; v < g.values.size(); ++v) {
    EXPECT_EQ(scratch.storage[v], reused.storage[v]) << g.values[v].name;
    EXPECT_EQ(scratch.desc[v].shape, reused.desc[v].shape) << g.values[v].name;
    const Tensor &a = scratch.known[v], &b = reused.known[v];
    ASSERT_EQ(a.defined(), b.defined()) << g.values[v].name;
    if (a.defined() && a.dtype() != DType::kString) {
      ASSERT_EQ(a.nbytes(), b.nbytes());
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.nbytes())) << g.values[v].name;
    }
  }
}

TEST(PlanReuse, DecodingWithReusedPlansMatchesFreshModel) {
  TempDir dir;
  const models::QwenOptions o = tiny_options(models::ElemType::kF32);
  models::write_qwen(o, dir / "tiny.onnx");
  const auto warm = load(dir / "tiny.onnx");
  // Steps of growing past on one model (each plan based on the previous) against a model that
  // plans every signature from scratch (plan cache of 1 is still a base: use a fresh model).
  std::vector<int64_t> seq = {4, 8, 15, 16, 23, 42};
  QwenStep first;
  first.ids = {seq};
  first.mask = {std::vector<int64_t>(seq.size(), 1)};
  first.positions = {{0, 1, 2, 3, 4, 5}};
  QwenOut out = run_step(*warm, o, first);
  for (int64_t t = 0; t < 4; ++t) {
    const int64_t past = static_cast<int64_t>(seq.size());
    const int64_t next = argmax(logits_row(out.logits, 0, out.logits.shape()[1] - 1));
    seq.push_back(next);
    QwenStep step;
    step.ids = {{next}};
    step.mask = {std::vector<int64_t>(static_cast<size_t>(past + 1), 1)};
    step.positions = {{past}};
    step.past = out.present;
    out = run_step(*warm, o, step);
    const auto fresh = load(dir / "tiny.onnx");
    const QwenOut want = run_step(*fresh, o, step);
    EXPECT_EQ(max_abs_diff(logits_row(want.logits, 0, 0), logits_row(out.logits, 0, 0)), 0.0)
        << "step " << t;
  }
}

}  // namespace
}  // namespace asc::test

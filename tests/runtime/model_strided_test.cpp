// Model::run with strided views: an input whose consumer reads it densely is copied first, an
// output buffer whose producer writes densely is copied into after the run (gaps untouched), and
// FusedAttention's past/present parameters (ParamDef::strided) are bound as is — also when they
// share one KV-cache buffer, which is then written in place.
#include <gtest/gtest.h>

#include <vector>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/model.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

Node node(const std::string& domain, const std::string& op, int opset, std::vector<int> in,
          std::vector<int> out) {
  Node n;
  n.op_type = op;
  n.domain = domain;
  n.opset = opset;
  n.def = global_registry().find(domain, op, opset);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

Tensor filled(Shape s, double base) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.set(i, base + 0.01 * static_cast<double>((i * 37) % 101));
  return t;
}

// y = x + 1 with x, y f32[2, 3].
Model add_model() {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(2), Dim(3)}});
  Tensor one(DType::kF32, {});
  one.set(0, 1.0);
  const int c = g.add_constant("one", one);
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(node("", "Add", 17, {x, c}, {y}));
  return Model(std::move(g), {1, "cpu", true});
}

TEST(ModelStrided, DenseConsumersGetCopies) {
  const Model m = add_model();
  std::vector<float> in(2 * 5), out(2 * 5, -7.f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  // Columns [0, 3) of [2, 5] buffers.
  const Tensor x = Tensor::strided(DType::kF32, {2, 3}, {5, 1}, in.data());
  const Tensor y = Tensor::strided(DType::kF32, {2, 3}, {5, 1}, out.data());
  const auto r = m.run({{"x", x}}, {{"y", y}});
  EXPECT_EQ(r[0].tensor.data(), out.data());
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      const float want = j < 3 ? in[size_t(i * 5 + j)] + 1.f : -7.f;
      EXPECT_EQ(out[size_t(i * 5 + j)], want) << i << "," << j;
    }
}

// FusedAttention alone: q, k, v, past, mask in; output and presents out.
struct AttnGraph {
  static constexpr int64_t kHeads = 4, kKv = 2, kD = 8;
  Graph g;
  int past_k = -1, present_k = -1;
  explicit AttnGraph(bool present_read_elsewhere) {
    g.opsets[""] = 17;
    g.opsets["ai.asc"] = 1;
    auto in = [&](const char* name, int64_t heads) {
      return g.add_value(name, {DType::kF32, SymShape{Dim(1), Dim(heads), Dim(), Dim(kD)}});
    };
    const int q = in("q", kHeads), k = in("k", kKv), v = in("v", kKv);
    past_k = in("past_k", kKv);
    const int past_v = in("past_v", kKv);
    const int out = g.add_value("out", {DType::kF32, std::nullopt});
    present_k = g.add_value("present_k", {DType::kF32, std::nullopt});
    const int present_v = g.add_value("present_v", {DType::kF32, std::nullopt});
    g.inputs = {q, k, v, past_k, past_v};
    g.outputs = {out, present_k, present_v};
    g.add_node(node("ai.asc", "FusedAttention", 1, {q, k, v, past_k, past_v, -1},
                    {out, present_k, present_v}));
    if (present_read_elsewhere) {  // a dense consumer of present_k: it cannot stay strided
      const int neg = g.add_value("neg", {DType::kF32, std::nullopt});
      g.outputs.push_back(neg);
      g.add_node(node("", "Neg", 17, {present_k}, {neg}));
    }
  }
};

void run_cache_step(bool present_read_elsewhere) {
  constexpr int64_t H = AttnGraph::kHeads, K = AttnGraph::kKv, D = AttnGraph::kD;
  constexpr int64_t kMax = 16, P = 5, S = 2;
  AttnGraph ag(present_read_elsewhere);
  const Model m(std::move(ag.g), {2, "cpu", true});
  Tensor cache_k = filled({1, K, kMax, D}, 0.1), cache_v = filled({1, K, kMax, D}, 0.2);
  const Shape st = {K * kMax * D, kMax * D, D, 1};
  auto rows = [&](Tensor& c, int64_t n) {
    return Tensor::strided(DType::kF32, {1, K, n, D}, st, c.data());
  };
  const Tensor q = filled({1, H, S, D}, 0.3), k = filled({1, K, S, D}, 0.4);
  const Tensor v = filled({1, K, S, D}, 0.5);
  // The expected values: the op on dense copies (run_op), before the cache changes.
  const OpDef& op = global_registry().lookup("ai.asc", "FusedAttention", 1);
  const auto want = run_op(
      op, {}, std::vector<Tensor>{q, k, v, rows(cache_k, P).clone(), rows(cache_v, P).clone()},
      m.device());
  const Tensor after_k = rows(cache_k, kMax).clone();  // rows past P + S must stay as they are
  const auto got = m.run(
      {{"q", q}, {"k", k}, {"v", v}, {"past_k", rows(cache_k, P)}, {"past_v", rows(cache_v, P)}},
      {{"present_k", rows(cache_k, P + S)}, {"present_v", rows(cache_v, P + S)}});
  ASSERT_EQ(got[1].tensor.data(), cache_k.data());
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(got[i].tensor.shape(), want[i].shape());
    for (int64_t e = 0; e < want[i].numel(); ++e)
      ASSERT_NEAR(got[i].tensor.at(e), want[i].at(e), 1e-5) << "output " << i << " element " << e;
  }
  for (int64_t h = 0; h < K; ++h)
    for (int64_t j = P + S; j < kMax; ++j)
      for (int64_t d = 0; d < D; ++d) {
        const int64_t at = (h * kMax + j) * D + d;
        ASSERT_EQ(cache_k.at(at), after_k.at(at));
      }
  // Bound as is only when every reader of the view reads strides.
  const auto plan =
      m.plan_for({q.desc(), k.desc(), v.desc(), rows(cache_k, P).desc(), rows(cache_v, P).desc()},
                 {}, {{}, present_read_elsewhere ? Shape{} : st, st, {}});
  EXPECT_EQ(plan->desc[ag.past_k].strides, st);
}

TEST(ModelStrided, FusedAttentionWritesTheCacheInPlace) {
  run_cache_step(false);
}

TEST(ModelStrided, APresentReadDenselyIsCopiedIntoTheView) {
  run_cache_step(true);
}

}  // namespace
}  // namespace asc

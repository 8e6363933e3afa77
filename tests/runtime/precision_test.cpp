// Precision conversion at load: f32 weights stored as f16/bf16, f32 inputs and outputs at the
// graph's edges, results close to the f32 run within the storage dtype's rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/model.h"
#include "runtime/precision.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::node;

using test::random;

// y = softmax(relu(x @ w + b)) with x f32[n, 16], w f32[16, 8], b f32[8].
Graph mlp(const Tensor& w, const Tensor& b) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(std::string("n")), Dim(16)}});
  const int wv = g.add_constant("w", w), bv = g.add_constant("b", b);
  std::vector<int> v;
  for (const char* name : {"m", "s", "r", "y"}) v.push_back(g.add_value(name, {DType::kF32, {}}));
  g.values[v[3]].type = {DType::kF32, SymShape{Dim(std::string("n")), Dim(8)}};
  g.inputs = {x};
  g.outputs = {v[3]};
  g.add_node(node("MatMul", {x, wv}, {v[0]}));
  g.add_node(node("Add", {v[0], bv}, {v[1]}));
  g.add_node(node("Relu", {v[1]}, {v[2]}));
  g.add_node(node("Softmax", {v[2]}, {v[3]}, Attrs{{"axis", int64_t{-1}}}));
  return g;
}

TEST(Precision, WeightsAreStoredLowAndResultsStayClose) {
  const Tensor w = random({16, 8}, 1), b = random({8}, 2), x = random({5, 16}, 3);
  const Model ref(mlp(w, b), {2, "cpu", true});
  const Tensor want = ref.run({{"x", x}})[0].tensor;
  for (DType dt : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(dtype_name(dt));
    ModelOptions o{2, "cpu", true};
    o.precision = dt;
    const Model m(mlp(w, b), o);
    int low_constants = 0;
    for (const Value& v : m.graph().values)
      if (v.constant) {
        EXPECT_EQ(v.constant->dtype(), dt) << v.name;
        low_constants += v.constant->dtype() == dt;
      }
    EXPECT_EQ(low_constants, 2);
    const auto out = m.run({{"x", x}});
    ASSERT_EQ(out[0].name, "y");
    ASSERT_EQ(out[0].tensor.dtype(), DType::kF32);  // the interface stays f32
    ASSERT_EQ(out[0].tensor.shape(), want.shape());
    const double tol = dt == DType::kF16 ? 5e-3 : 3e-2;
    for (int64_t i = 0; i < want.numel(); ++i)
      EXPECT_NEAR(out[0].tensor.at(i), want.at(i), tol * std::fabs(want.at(i)) + 1e-3) << i;
  }
}

// A weight of 2 MiB and more is converted into memory that starts on a 2 MiB boundary (advised
// for huge pages; a decoding step streams it); its values are the rounded originals, and the
// results match the same model with a small weight run through the ordinary path.
TEST(Precision, LargeWeightsLandOnHugePageBoundaries) {
  const Tensor w = random({1024, 1100}, 4), x = random({3, 1024}, 5);  // bf16 w: 2.15 MiB
  Graph g;
  g.opsets[""] = 17;
  const int xv = g.add_value("x", {DType::kF32, SymShape{Dim(3), Dim(1024)}});
  const int wv = g.add_constant("w", w);
  const int y = g.add_value("y", {DType::kF32, SymShape{Dim(3), Dim(1100)}});
  g.inputs = {xv};
  g.outputs = {y};
  g.add_node(node("MatMul", {xv, wv}, {y}));
  ModelOptions o{2, "cpu", true};
  o.precision = DType::kBF16;
  o.pack_weights = false;  // the row-major converted weight (weight_pack_test.cpp: packed ones)
  const Model m(std::move(g), o);
  const Tensor* cw = nullptr;
  for (const Value& v : m.graph().values)
    if (v.constant && v.name == "w") cw = &*v.constant;
  ASSERT_NE(cw, nullptr);
  ASSERT_EQ(cw->dtype(), DType::kBF16);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(cw->data()) % (uintptr_t{2} << 20), 0u);
  for (int64_t i = 0; i < w.numel(); i += 997)
    EXPECT_NEAR(cw->at(i), w.at(i), std::fabs(w.at(i)) / 128.0 + 1e-30) << i;
  const Tensor got = m.run({{"x", x}})[0].tensor;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 1100; j += 37) {
      double ref = 0;
      for (int64_t k = 0; k < 1024; ++k) ref += x.at(i * 1024 + k) * cw->at(k * 1100 + j);
      // x is rounded to bf16 as the model's activations are: a few 1e-3 of the row's magnitude
      EXPECT_NEAR(got.at(i * 1100 + j), ref, 0.05 + 0.01 * std::fabs(ref)) << i << "," << j;
    }
}

// y = Softmax(x + mask) with a -FLT_MAX mask on half the row: in f16/bf16 the mask constant
// clamps to the dtype's lowest finite value (not -inf), so a fully masked row stays finite.
TEST(Precision, HugeConstantsClampInsteadOfBecomingInfinite) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(2), Dim(4)}});
  Tensor mask(DType::kF32, {2, 4});
  const float lowest = -std::numeric_limits<float>::max();
  const float m[8] = {0, 0, lowest, lowest, lowest, lowest, lowest, lowest};
  std::copy(m, m + 8, mask.data_as<float>());
  const int mv = g.add_constant("mask", mask);
  const int s = g.add_value("s", {DType::kF32, {}}), y = g.add_value("y", {DType::kF32, {}});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(node("Add", {x, mv}, {s}));
  g.add_node(node("Softmax", {s}, {y}, Attrs{{"axis", int64_t{-1}}}));
  const Tensor in = random({2, 4}, 9);
  for (DType dt : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(dtype_name(dt));
    ModelOptions o{2, "cpu", true};
    o.precision = dt;
    const Model model(Graph(g), o);
    const Tensor& low = *model.graph().values[model.graph().find("mask")].constant;
    EXPECT_TRUE(std::isfinite(low.at(2)));
    EXPECT_LT(low.at(2), dt == DType::kF16 ? -65000.0 : -3e38);
    const Tensor out = model.run({{"x", in}})[0].tensor;
    EXPECT_NEAR(out.at(0) + out.at(1), 1.0, 1e-2);
    EXPECT_NEAR(out.at(2), 0.0, 1e-6);
    for (int64_t i = 4; i < 8; ++i) EXPECT_TRUE(std::isfinite(out.at(i))) << i;
  }
  // Infinities stay infinite.
  Tensor t(DType::kF32, {1});
  t.data_as<float>()[0] = -std::numeric_limits<float>::infinity();
  Graph h;
  h.opsets[""] = 17;
  const int hx = h.add_value("x", {DType::kF32, SymShape{Dim(1)}});
  const int hc = h.add_constant("c", t);
  const int hy = h.add_value("y", {DType::kF32, {}});
  h.inputs = {hx};
  h.outputs = {hy};
  h.add_node(node("Add", {hx, hc}, {hy}));
  ModelOptions o{1, "cpu", true};
  o.precision = DType::kBF16;
  const Model hm(std::move(h), o);
  EXPECT_TRUE(std::isinf(hm.graph().values[hm.graph().find("c")].constant->at(0)));
}

TEST(Precision, NamesAreParsedAndOthersRefused) {
  EXPECT_EQ(parse_precision("bf16"), DType::kBF16);
  EXPECT_EQ(parse_precision("fp16"), DType::kF16);
  EXPECT_EQ(parse_precision("fp32"), DType::kF32);
  EXPECT_THROW(parse_precision("int4"), Error);
}

}  // namespace
}  // namespace asc

namespace asc {
namespace {

// An opset-5 model: its Cast-1 names the type with a string ("FLOAT" becomes the storage type's
// name) and the Casts the pass adds at the edges are Cast-6 (integer `to`). Under bf16, ops whose
// old versions do not allow bf16 (Add-1..6) refuse it by name when the run is planned.
TEST(Precision, OpsetOneCastsAreConvertedToo) {
  Graph g;
  g.opsets[""] = 5;
  const int x = g.add_value("x", {DType::kI64, SymShape{Dim(4)}});
  const int w = g.add_constant("w", random({4}, 9));
  const int y = g.add_value("y", {DType::kF32, SymShape{Dim(4)}});
  const int z = g.add_value("z", {DType::kF32, SymShape{Dim(4)}});
  g.inputs = {x};
  g.outputs = {z};
  auto at5 = [](Node n) {
    n.opset = 5;
    n.def = global_registry().find("", n.op_type, 5);
    return n;
  };
  g.add_node(at5(node("Cast", {x}, {y}, Attrs{{"to", std::string("FLOAT")}})));
  g.add_node(at5(node("Add", {y, w}, {z})));
  Tensor xs(DType::kI64, {4});
  for (int64_t i = 0; i < 4; ++i) xs.set(i, static_cast<double>(3 * i - 5));
  const Tensor want = Model(g, {2, "cpu", true}).run({{"x", xs}})[0].tensor;
  for (DType dt : {DType::kF16, DType::kBF16}) {
    ModelOptions o{2, "cpu", true};
    o.precision = dt;
    const Model m(g, o);
    if (dt == DType::kBF16) {
      try {
        m.run({{"x", xs}});
        ADD_FAILURE() << "Add-1 took bf16";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("input 'A' has dtype bf16"), std::string::npos)
            << e.what();
      }
      continue;
    }
    int cast1 = 0;
    for (const Node& n : m.graph().nodes) {
      if (n.op_type != "Cast" || n.opset != 5) continue;
      EXPECT_EQ(n.attrs.s("to"), dt == DType::kBF16 ? "BFLOAT16" : "FLOAT16");
      ++cast1;
    }
    EXPECT_EQ(cast1, 1);
    const Tensor got = m.run({{"x", xs}})[0].tensor;
    ASSERT_EQ(got.dtype(), DType::kF32);
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_NEAR(got.at(i), want.at(i), 0.02 * (1 + std::abs(want.at(i))));
  }
}

}  // namespace
}  // namespace asc

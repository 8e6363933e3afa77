// One-element constant operands of elementwise kernels are folded into scalar instructions while
// tracing (TileBuilder::known_scalar): no copy-in spreads them over every tile, and the results
// are those of the broadcast form.
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>

#include "registry/tile_program.h"
#include "runtime/model.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

Tensor scalar_of(DType dt, double v) {
  Tensor t(dt, {});
  t.set(0, v);
  return t;
}

// y = (x / c1 + c2) * x, then - c3 with the constant on the left (c3 - y'), under fusion or not.
TEST(KnownScalar, ConstantsBecomeScalarInstructions) {
  for (const bool fused : {true, false}) {
    test::Builder b;
    const int x = b.input("x", {5, 33});
    const int d = b.op("Div", "d", {x, b.constant("c1", scalar_of(DType::kF32, 1.5))});
    const int a = b.op("Add", "a", {d, b.constant("c2", scalar_of(DType::kF32, 0.25))});
    const int m = b.op("Mul", "m", {a, x});
    b.g.outputs = {b.op("Sub", "y", {b.constant("c3", scalar_of(DType::kF32, 2.0)), m})};
    ModelOptions o;
    o.threads = 1;
    o.fusion = fused;
    const Model model(b.g, o);
    RunStats st;
    int copy_ins = 0, scalars = 0, steps = 0;
    st.on_step = [&](const Node&, const TileProgram* p) {
      ++steps;
      for (const Instr& in : p->instrs) {
        copy_ins += in.kind == InstrKind::kCopyIn;
        scalars += in.kind == InstrKind::kScalar;
      }
    };
    const Tensor xv = test::random({5, 33}, 3, -2.f, 2.f);
    const auto out = model.run({{"x", xv}}, {}, &st);
    EXPECT_EQ(scalars, 3) << fused;
    EXPECT_EQ(copy_ins, fused ? 1 : 5) << fused;  // x once; unfused: d, a, m (x twice), y
    EXPECT_EQ(steps, fused ? 1 : 4);
    for (int64_t i = 0; i < xv.numel(); ++i) {
      const float xf = static_cast<float>(xv.at(i));
      const float want = 2.f - (xf / 1.5f + 0.25f) * xf;
      EXPECT_EQ(static_cast<float>(out[0].tensor.at(i)), want) << i;
    }
  }
}

// x ^ c with a one-element constant exponent is one PowScalar instruction (no copy-in of c, no
// per-element general pow); the results are std::pow's, for the exponents the cpu special-cases
// (squares, roots, reciprocals) and for others. A non-constant exponent keeps the binary form.
TEST(KnownScalar, PowOfAConstantExponentIsAScalarPower) {
  for (const double e : {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 0.0, 1.0, 1.7, -2.25}) {
    test::Builder b;
    const int x = b.input("x", {3, 41});
    b.g.outputs = {b.op("Pow", "y", {x, b.constant("e", scalar_of(DType::kF32, e))})};
    ModelOptions o;
    o.threads = 1;
    const Model model(b.g, o);
    RunStats st;
    int powers = 0, binaries = 0, copy_ins = 0;
    st.on_step = [&](const Node&, const TileProgram* p) {
      for (const Instr& in : p->instrs) {
        powers +=
            in.kind == InstrKind::kUnary && in.op == static_cast<uint8_t>(UnaryOp::kPowScalar);
        binaries += in.kind == InstrKind::kBinary;
        copy_ins += in.kind == InstrKind::kCopyIn;
      }
    };
    const Tensor xv = test::random({3, 41}, 5, 0.05f, 4.f);
    const auto out = model.run({{"x", xv}}, {}, &st);
    EXPECT_EQ(powers, 1) << e;
    EXPECT_EQ(binaries, 0) << e;
    EXPECT_EQ(copy_ins, 1) << e;
    for (int64_t i = 0; i < xv.numel(); ++i) {
      const auto want = static_cast<float>(std::pow(xv.at(i), e));
      EXPECT_NEAR(out[0].tensor.at(i), want, 2e-7 * std::abs(want)) << e << " at " << i;
    }
  }
  test::Builder b;  // the exponent an input: a per-element pow
  const int x = b.input("x", {7});
  b.g.outputs = {b.op("Pow", "y", {x, b.input("e", {7})})};
  const Model model(b.g, ModelOptions{});
  RunStats st;
  int binaries = 0;
  st.on_step = [&](const Node&, const TileProgram* p) {
    for (const Instr& in : p->instrs) binaries += in.kind == InstrKind::kBinary;
  };
  const Tensor xv = test::random({7}, 6, 0.5f, 2.f), ev = test::random({7}, 7, -2.f, 2.f);
  const auto out = model.run({{"x", xv}, {"e", ev}}, {}, &st);
  EXPECT_EQ(binaries, 1);
  for (int64_t i = 0; i < 7; ++i)
    EXPECT_NEAR(out[0].tensor.at(i), std::pow(xv.at(i), ev.at(i)),
                1e-6 * std::abs(std::pow(xv.at(i), ev.at(i))));
}

}  // namespace
}  // namespace asc

// One-element constant operands of elementwise kernels are folded into scalar instructions while
// tracing (TileBuilder::known_scalar): no copy-in spreads them over every tile, and the results
// are those of the broadcast form.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace asc

// Symbolic inference at load (runtime/sym_infer.h): products of symbols are exact, torch's
// dynamic-axes shape chains (Shape -> Gather -> Concat -> Reshape / Expand, pad arithmetic) keep
// ranks and dims, and a MatMul after such a Reshape fuses with its bias and computes what the
// unfused graph does.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "runtime/fusion.h"
#include "runtime/sym_infer.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

Tensor i64s(std::vector<int64_t> v, bool scalar = false) {
  Tensor t(DType::kI64, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

int sym_input(test::Builder& b, const std::string& name, SymShape s) {
  const int v = b.g.add_value(name, {DType::kF32, std::move(s)});
  b.g.inputs.push_back(v);
  return v;
}

// Dim k of x as a [1] tensor: Shape -> Gather(k) -> Unsqueeze, as torch writes x.size(k).
int size_of(test::Builder& b, int x, int64_t k, const std::string& name) {
  const int shape = b.op("Shape", name + "/shape", {x});
  const int d = b.op("Gather", name + "/gather", {shape, b.constant(name + "/k", i64s({k}, true))});
  return b.op("Unsqueeze", name, {d, b.constant(name + "/axes", i64s({0}))});
}

TEST(SymDims, ProductsOfSymbolsAreExact) {
  const Dim batch("batch"), seq("sequence");
  EXPECT_EQ(dim_mul(batch, Dim(12)), Dim("12*batch"));
  EXPECT_EQ(dim_mul(seq, batch), dim_mul(batch, seq));  // one spelling: symbols sorted
  EXPECT_EQ(dim_div(Dim("12*batch"), Dim(12)), batch);
  EXPECT_EQ(dim_div(dim_mul(batch, seq), seq), batch);
  EXPECT_EQ(dim_add(batch, batch), Dim("2*batch"));
  EXPECT_EQ(dim_sub(Dim(8), Dim(6)), Dim(2));
  EXPECT_EQ(dim_mul(Dim(0), Dim()), Dim(0));
  // What is not exact is unknown, never guessed.
  EXPECT_FALSE(dim_div(batch, Dim(2)).known() || dim_div(batch, Dim(2)).symbolic());
  EXPECT_FALSE(dim_div(Dim(7), Dim(2)).known());
  EXPECT_FALSE(dim_add(batch, seq).symbolic());
  EXPECT_FALSE(dim_mul(batch, Dim()).symbolic());
}

// torch's sequence-first attention: x [S, B, 768] -> [S, 12 B, 64] -> [12 B, S, 64], and back
// to [S B, 768] for the output projection.
TEST(SymInfer, ReshapesToComputedShapesKeepTheirDims) {
  test::Builder b;
  const int x = sym_input(b, "x", {Dim("sequence"), Dim("batch"), Dim(768)});
  const int s = size_of(b, x, 0, "s"), bt = size_of(b, x, 1, "b");
  const int heads = b.op("Mul", "bh", {bt, b.constant("twelve", i64s({12}))});
  const int shape =
      b.op("Concat", "shape", {s, heads, b.constant("d", i64s({64}))}, {{"axis", int64_t{0}}});
  const int r = b.op("Reshape", "r", {x, shape});
  const int sb = b.op("Mul", "sb", {s, bt});
  const int back =
      b.op("Concat", "back", {sb, b.constant("e", i64s({768}))}, {{"axis", int64_t{0}}});
  const int flat = b.op("Reshape", "flat", {r, back});
  b.g.outputs = {flat};
  const SymInference inf = infer_symbolic(b.g);
  ASSERT_TRUE(inf.elems[shape]);
  EXPECT_EQ(to_string(*inf.elems[shape]), "[sequence,12*batch,64]");
  ASSERT_TRUE(inf.types[r].shape);
  EXPECT_EQ(to_string(*inf.types[r].shape), "[sequence,12*batch,64]");
  ASSERT_TRUE(inf.types[flat].shape);
  EXPECT_EQ(to_string(*inf.types[flat].shape), "[batch*sequence,768]");
}

// torch's expand(n, -1, -1): Where(Equal(shape, -1), ones, shape) -> Expand; and -1 in Reshape.
TEST(SymInfer, TorchExpandAndInferredDims) {
  test::Builder b;
  const int x = sym_input(b, "x", {Dim("batch"), Dim(3), Dim(64)});
  const int n = size_of(b, x, 0, "n");
  const int shape =
      b.op("Concat", "shape", {n, b.constant("m1", i64s({-1, -1}))}, {{"axis", int64_t{0}}});
  const int minus = b.constant("minus", i64s({-1}, true));
  const int eq = b.op("Equal", "eq", {shape, minus});
  const int ones =
      b.op("ConstantOfShape", "ones", {b.constant("three", i64s({3}))}, {{"value", i64s({1})}});
  const int fixed = b.op("Where", "fixed", {eq, ones, shape});
  const int cls = b.constant("cls", test::random({1, 1, 64}, 1));
  const int ex = b.op("Expand", "ex", {cls, fixed});
  const int r =
      b.op("Reshape", "r",
           {x, b.op("Concat", "rs", {n, b.constant("m", i64s({-1}))}, {{"axis", int64_t{0}}})});
  b.g.outputs = {ex, r};
  const SymInference inf = infer_symbolic(b.g);
  ASSERT_TRUE(inf.elems[eq]);
  EXPECT_EQ(to_string(*inf.elems[eq]), "[0,1,1]");  // a dim is never -1
  ASSERT_TRUE(inf.types[ex].shape);
  EXPECT_EQ(to_string(*inf.types[ex].shape), "[batch,1,64]");
  ASSERT_TRUE(inf.types[r].shape);
  EXPECT_EQ(to_string(*inf.types[r].shape), "[batch,192]");
}

// Swin's window padding: pads computed from known dims by Mod and Sub, reordered through a
// rank-2 Reshape / Slice / Transpose (run by the ops' references), give Pad a concrete shape.
TEST(SymInfer, PadArithmeticIsEvaluated) {
  test::Builder b;
  const int x = sym_input(b, "x", {Dim("batch"), Dim(5), Dim(6)});
  const int h = size_of(b, x, 1, "h");
  const int seven = b.constant("seven", i64s({7}));
  const int pad_h =
      b.op("Mod", "pad_h", {b.op("Sub", "sub", {seven, b.op("Mod", "m", {h, seven})}), seven});
  const int pads =
      b.op("Concat", "pads", {b.constant("z", i64s({0, 0})), pad_h, b.constant("z2", i64s({0}))},
           {{"axis", int64_t{0}}});
  const int pairs = b.op("Reshape", "pairs", {pads, b.constant("p2", i64s({-1, 2}))});
  const int swapped = b.op("Transpose", "swapped", {pairs}, {{"perm", std::vector<int64_t>{1, 0}}});
  const int flat = b.op("Reshape", "flat", {swapped, b.constant("m1", i64s({-1}))});
  const int six =
      b.op("Concat", "six", {b.constant("z3", i64s({0})), flat, b.constant("z4", i64s({0}))},
           {{"axis", int64_t{0}}});
  const int y = b.op("Pad", "y", {x, six});
  b.g.outputs = {y};
  const SymInference inf = infer_symbolic(b.g);
  ASSERT_TRUE(inf.elems[flat]);
  EXPECT_EQ(to_string(*inf.elems[flat]), "[0,2,0,0]");
  ASSERT_TRUE(inf.types[y].shape);
  EXPECT_EQ(to_string(*inf.types[y].shape), "[batch,5,8]");  // begins 0,0,2; ends 0,0,0
}

// After a Reshape to a computed shape the MatMul still sees [rows, K] and takes its bias and
// activation; the fused model computes what the unfused one does.
TEST(SymInfer, AMatMulAfterAComputedReshapeFuses) {
  test::Builder b;
  const int x = sym_input(b, "x", {Dim("batch"), Dim("sequence"), Dim(24)});
  const int n = size_of(b, x, 0, "n"), s = size_of(b, x, 1, "s");
  const int rows = b.op("Mul", "rows", {n, s});
  const int flat =
      b.op("Reshape", "flat",
           {x, b.op("Concat", "fs", {rows, b.constant("k", i64s({24}))}, {{"axis", int64_t{0}}})});
  const int mm = b.op("MatMul", "mm", {flat, b.constant("w", test::random({24, 40}, 2))});
  const int add = b.op("Add", "add", {b.constant("bias", test::random({40}, 3)), mm});
  b.g.outputs = {b.op("Relu", "y", {add})};
  const Graph orig = b.g;
  Graph g = orig;
  EXPECT_EQ(fuse(g).counts.at("FusedMatMulBias"), 1);
  EXPECT_EQ(test::count_op(g, "FusedMatMulBias"), 1);
  EXPECT_EQ(test::count_op(g, "Relu"), 0);
  test::expect_same_outputs(orig, {{"x", test::random({2, 5, 24}, 1)}}, 1e-5);
}

}  // namespace
}  // namespace asc

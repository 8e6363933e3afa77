// Movement ops: bad input gives a ShapeError naming the op and the shapes or values; inference
// of value-dependent shapes waits for the value (ValueUnknownError) and keeps symbolic dims.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(1);
  return dev;
}

Tensor ints(std::vector<int64_t> v) {
  Tensor t(DType::kI64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

Tensor scalar(DType dt, double v) {
  Tensor t(dt, {});
  t.set(0, v);
  return t;
}

// The ShapeError message of running the op, or "" when it runs.
std::string error_of(const char* op, int opset, std::vector<Tensor> inputs, Attrs attrs = {}) {
  try {
    run_op(global_registry().lookup("", op, opset), attrs, inputs, device());
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& msg, std::initializer_list<const char*> parts) {
  EXPECT_FALSE(msg.empty()) << "no error";
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << "\nlacks: " << p;
}

TEST(MovementErrors, CenterCropPad) {
  const Tensor x(DType::kF32, {4, 5});
  expect_error(error_of("CenterCropPad", 18, {x, ints({3})}),
               {"CenterCropPad", "[3]", "[0,1]", "[4,5]"});
  expect_error(
      error_of("CenterCropPad", 18, {x, ints({3, 2})}, {{"axes", std::vector<int64_t>{0, 2}}}),
      {"CenterCropPad", "axis 2", "[4,5]"});
  expect_error(error_of("CenterCropPad", 18, {x, ints({3, -1})}), {"CenterCropPad", "[3,-1]"});
}

TEST(MovementErrors, Col2Im) {
  const Tensor x(DType::kF32, {1, 8, 10});
  expect_error(error_of("Col2Im", 18, {x, ints({4, 4}), ints({2, 2})}),
               {"Col2Im", "[1,8,10]", "10 blocks", "[4,4]", "holds 9"});
  expect_error(error_of("Col2Im", 18, {Tensor(DType::kF32, {1, 7, 9}), ints({4, 4}), ints({2, 2})}),
               {"Col2Im", "[1,7,9]", "multiple of prod(block_shape) = 4"});
  expect_error(error_of("Col2Im", 18, {x, ints({4, 4}), ints({2})}),
               {"Col2Im", "image_shape [4,4]", "block_shape [2]"});
  expect_error(error_of("Col2Im", 18, {x, ints({1, 1}), ints({2, 2})}), {"Col2Im", "larger than"});
}

TEST(MovementErrors, Reshape) {
  const Tensor x(DType::kF32, {2, 3});
  expect_error(error_of("Reshape", 13, {x, ints({-1, -1})}), {"Reshape", "[-1,-1]", "-1"});
  expect_error(error_of("Reshape", 13, {x, ints({4, 2})}), {"Reshape", "[4,2]", "[2,3]"});
  expect_error(error_of("Reshape", 13, {x, ints({5, -1})}), {"Reshape", "[5,-1]", "[2,3]"});
  expect_error(error_of("Reshape", 13, {x, ints({0, 0, 0})}), {"Reshape", "copies dim 2"});
  expect_error(error_of("Reshape", 14, {Tensor(DType::kF32, {0, 3}), ints({0, -1})},
                        {{"allowzero", int64_t{1}}}),
               {"Reshape", "allowzero"});
}

TEST(MovementErrors, SqueezeUnsqueezeFlatten) {
  const Tensor x(DType::kF32, {1, 3});
  expect_error(error_of("Squeeze", 13, {x, ints({1})}), {"Squeeze", "axis 1", "[1,3]"});
  expect_error(error_of("Squeeze", 13, {x, ints({2})}), {"Squeeze", "axis 2", "rank 2"});
  // Negative axes before opset 11: accepted as ONNX Runtime does (registry/lenient.h).
  EXPECT_EQ(error_of("Squeeze", 1, {x}, {{"axes", std::vector<int64_t>{-2}}}), "");
  expect_error(error_of("Squeeze", 1, {x}, {{"axes", std::vector<int64_t>{-3}}}),
               {"Squeeze", "axis -3", "rank 2"});
  expect_error(error_of("Unsqueeze", 13, {x, ints({0, 0})}), {"Unsqueeze", "repeated"});
  expect_error(error_of("Unsqueeze", 13, {x, ints({3})}), {"Unsqueeze", "axis 3", "rank 3"});
  expect_error(error_of("Flatten", 9, {x}, {{"axis", int64_t{-1}}}), {"Flatten-9", "opset >= 11"});
  expect_error(error_of("Flatten", 13, {x}, {{"axis", int64_t{3}}}),
               {"Flatten", "axis 3", "[1,3]"});
  EXPECT_EQ(error_of("Flatten", 13, {x}, {{"axis", int64_t{-1}}}), "");
}

TEST(MovementErrors, ConcatSplit) {
  const Tensor a(DType::kF32, {2, 3}), b(DType::kF32, {3, 3}), c(DType::kF32, {2, 3, 1});
  expect_error(error_of("Concat", 13, {a, b}, {{"axis", int64_t{1}}}),
               {"Concat", "[2,3]", "[3,3]", "dim 0"});
  expect_error(error_of("Concat", 13, {a, c}, {{"axis", int64_t{0}}}), {"Concat", "rank"});
  expect_error(error_of("Concat", 13, {a}, {{"axis", int64_t{2}}}), {"Concat", "axis 2"});
  EXPECT_EQ(error_of("Concat", 4, {a, a}, {{"axis", int64_t{-1}}}), "");  // as exporters wrote it
  expect_error(error_of("Concat", 4, {a, a}, {{"axis", int64_t{-3}}}), {"Concat-4", "axis -3"});
  expect_error(error_of("Concat", 13, {a}), {"Concat", "axis"});  // required attribute
  expect_error(error_of("Split", 13, {a, ints({1, 3})}, {{"axis", int64_t{1}}}),
               {"Split", "[1,3]", "sums to 4", "3"});
  expect_error(error_of("Split", 13, {a}), {"Split", "output count"});
  expect_error(error_of("Split", 18, {a}), {"Split", "num_outputs"});
}

TEST(MovementErrors, SliceExpandTile) {
  const Tensor x(DType::kF32, {4, 5});
  expect_error(error_of("Slice", 13, {x, ints({0}), ints({2}), ints({0}), ints({0})}),
               {"Slice", "step is 0"});
  expect_error(error_of("Slice", 13, {x, ints({0, 1}), ints({2})}), {"Slice", "[0,1]", "length"});
  expect_error(error_of("Slice", 13, {x, ints({0}), ints({2}), ints({2})}), {"Slice", "axis 2"});
  expect_error(error_of("Slice", 13, {x, ints({0, 0}), ints({2, 2}), ints({1, -1})}),
               {"Slice", "repeated"});
  expect_error(error_of("Expand", 13, {x, ints({3, 5})}), {"Expand", "[4,5]", "[3,5]"});
  expect_error(error_of("Tile", 13, {x, ints({2})}), {"Tile", "[2]", "2"});
  expect_error(error_of("Tile", 13, {x, ints({1, -1})}), {"Tile", "negative"});
}

TEST(MovementErrors, PadFill) {
  const Tensor x(DType::kF32, {3, 4});
  expect_error(error_of("Pad", 13, {x, ints({1, 1})}), {"Pad", "[1,1]", "rank 2"});
  expect_error(error_of("Pad", 13, {x, ints({0, -5, 0, 0})}), {"Pad", "crop dim 1", "[3,4]"});
  expect_error(error_of("Pad", 13, {Tensor(DType::kF32, {0, 2}), ints({1, 0, 0, 0})},
                        {{"mode", std::string("reflect")}}),
               {"Pad", "empty dim 0"});
  expect_error(error_of("Pad", 13, {x, ints({0, 0, 0, 0})}, {{"mode", std::string("wrap")}}),
               {"Pad", "wrap"});
  expect_error(error_of("Range", 11,
                        {scalar(DType::kI32, 0), scalar(DType::kI32, 5), scalar(DType::kI32, 0)}),
               {"Range", "delta"});
  expect_error(error_of("ConstantOfShape", 9, {ints({2, -1})}), {"ConstantOfShape", "[2,-1]"});
  expect_error(error_of("EyeLike", 9, {Tensor(DType::kF32, {2, 2, 2})}), {"EyeLike", "2-D"});
  expect_error(error_of("Trilu", 14, {Tensor(DType::kF32, {4})}), {"Trilu", "rank >= 2", "[4]"});
  expect_error(error_of("DepthToSpace", 13, {Tensor(DType::kF32, {1, 6, 2, 2})},
                        {{"blocksize", int64_t{2}}}),
               {"DepthToSpace", "[1,6,2,2]", "multiple of 4"});
  expect_error(error_of("DepthToSpace", 13, {Tensor(DType::kF32, {1, 4, 2, 2})},
                        {{"blocksize", int64_t{2}}, {"mode", std::string("XYZ")}}),
               {"DepthToSpace", "XYZ"});
  expect_error(error_of("SpaceToDepth", 13, {Tensor(DType::kF32, {1, 1, 3, 4})},
                        {{"blocksize", int64_t{2}}}),
               {"SpaceToDepth", "[1,1,3,4]"});
}

// Inference: value-dependent shapes wait for the value; symbolic dims pass through.
TEST(MovementInfer, WaitsForValuesAndKeepsSymbols) {
  const OpDef& reshape = global_registry().lookup("", "Reshape", 14);
  const std::vector<TensorType> in = {{DType::kF32, SymShape{Dim("batch"), Dim(3), Dim(4)}},
                                      {DType::kI64, SymShape{Dim(2)}}};
  const Attrs a = reshape.resolve({});
  EXPECT_THROW(reshape.infer_fn(InferContext{reshape, in, a, {nullptr, nullptr}}),
               ValueUnknownError);
  const Tensor shape = ints({0, -1});
  const auto out = reshape.infer_fn(InferContext{reshape, in, a, {nullptr, &shape}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].str(), "f32[batch,?]");

  const OpDef& squeeze = global_registry().lookup("", "Squeeze", 13);
  const std::vector<TensorType> sin = {{DType::kF16, SymShape{Dim("n"), Dim(1), Dim(7)}},
                                       {DType::kI64, SymShape{Dim(1)}}};
  const Tensor axes = ints({1});
  const auto sq =
      squeeze.infer_fn(InferContext{squeeze, sin, squeeze.resolve({}), {nullptr, &axes}});
  EXPECT_EQ(sq[0].str(), "f16[n,7]");

  const OpDef& concat = global_registry().lookup("", "Concat", 13);
  const std::vector<TensorType> cin = {{DType::kF32, SymShape{Dim("n"), Dim(2)}},
                                       {DType::kF32, SymShape{Dim("n"), Dim(5)}}};
  const auto cc = concat.infer_fn(
      InferContext{concat, cin, concat.resolve({{"axis", int64_t{-1}}}), {nullptr, nullptr}});
  EXPECT_EQ(cc[0].str(), "f32[n,7]");
}

// Symbolic dims: a sliced or padded symbolic dim becomes unknown, an untouched one stays.
TEST(MovementInfer, SymbolicDimsOfSliceAndPad) {
  const OpDef& slice = global_registry().lookup("", "Slice", 13);
  const std::vector<TensorType> in = {{DType::kF32, SymShape{Dim("n"), Dim("m"), Dim(8)}},
                                      {DType::kI64, SymShape{Dim(2)}},
                                      {DType::kI64, SymShape{Dim(2)}},
                                      {DType::kI64, SymShape{Dim(2)}}};
  const Tensor starts = ints({0, 2}), ends = ints({3, 100}), axes = ints({1, 2});
  const auto s =
      slice.infer_fn(InferContext{slice, in, slice.resolve({}), {nullptr, &starts, &ends, &axes}});
  EXPECT_EQ(s[0].str(), "f32[n,?,6]");

  const OpDef& pad = global_registry().lookup("", "Pad", 13);
  const std::vector<TensorType> pin = {{DType::kF32, SymShape{Dim("n"), Dim("m"), Dim(8)}},
                                       {DType::kI64, SymShape{Dim(6)}}};
  const Tensor pads = ints({0, 1, 1, 0, 0, 1});
  const auto p = pad.infer_fn(InferContext{pad, pin, pad.resolve({}), {nullptr, &pads}});
  EXPECT_EQ(p[0].str(), "f32[n,?,10]");
}

// Unknown ranks never crash inference: every op answers with what it knows.
TEST(MovementInfer, UnknownRank) {
  const TensorType unknown{DType::kF32, std::nullopt};
  const Tensor one = ints({1}), two = ints({1, 2});
  struct Probe {
    const char* op;
    int opset;
    std::vector<TensorType> in;
    std::vector<const Tensor*> values;
    Attrs attrs;
  };
  const TensorType i64_1{DType::kI64, SymShape{Dim(1)}};
  const TensorType i64_2{DType::kI64, SymShape{Dim(2)}};
  const std::vector<Probe> probes = {
      {"Reshape", 14, {unknown, i64_2}, {nullptr, &two}, {}},
      {"Shape", 15, {unknown}, {nullptr}, {}},
      {"Flatten", 13, {unknown}, {nullptr}, {}},
      {"Squeeze", 13, {unknown, i64_1}, {nullptr, &one}, {}},
      {"Unsqueeze", 13, {unknown, i64_1}, {nullptr, &one}, {}},
      {"Concat", 13, {unknown, unknown}, {nullptr, nullptr}, {{"axis", int64_t{0}}}},
      {"Split", 13, {unknown, i64_2}, {nullptr, &two}, {}},
      {"Slice", 13, {unknown, i64_1, i64_1}, {nullptr, &one, &one}, {}},
      {"Expand", 13, {unknown, i64_2}, {nullptr, &two}, {}},
      {"Tile", 13, {unknown, i64_2}, {nullptr, &two}, {}},
      {"Pad", 13, {unknown, i64_2}, {nullptr, &two}, {}},
      {"EyeLike", 9, {unknown}, {nullptr}, {}},
      {"Trilu", 14, {unknown}, {nullptr}, {}},
      {"DepthToSpace", 13, {unknown}, {nullptr}, {{"blocksize", int64_t{2}}}},
      {"SpaceToDepth", 13, {unknown}, {nullptr}, {{"blocksize", int64_t{2}}}},
  };
  for (const Probe& p : probes) {
    const OpDef& def = global_registry().lookup("", p.op, p.opset);
    const auto out = def.infer_fn(InferContext{def, p.in, def.resolve(p.attrs), p.values});
    ASSERT_FALSE(out.empty()) << p.op;
    EXPECT_EQ(out[0].dtype, std::string(p.op) == "Shape" ? DType::kI64 : DType::kF32) << p.op;
  }
}

}  // namespace
}  // namespace asc::test

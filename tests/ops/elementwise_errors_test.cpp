// Bad input to the elementwise and logical families fails in inference with a ShapeError naming
// the op, the shapes or the attribute; the legacy broadcast places B at `axis`.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

// The message of the ShapeError that inferring `op` (opset) on zero-filled inputs throws.
std::string infer_error(const char* op, int opset, const std::vector<TensorDesc>& ins,
                        const Attrs& attrs = {}) {
  const OpDef& def = global_registry().lookup("", op, opset);
  std::vector<Tensor> t;
  for (const auto& d : ins) t.emplace_back(d.dtype, d.shape);
  try {
    infer_outputs(def, def.resolve(attrs), t);
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "no error";
}

const DType kF32 = DType::kF32;

TEST(ElementwiseErrors, LegacyBroadcastNamesOpShapesAndAxis) {
  EXPECT_EQ(infer_error("Add", 6, {{kF32, {2, 3}}, {kF32, {3}}},
                        {{"broadcast", int64_t{1}}, {"axis", int64_t{2}}}),
            "Add(f32[2,3], f32[3]): Add: B [3] does not fit into A [2,3] at axis 2");
  EXPECT_EQ(infer_error("Mul", 5, {{kF32, {2, 3}}, {kF32, {4}}}, {{"broadcast", int64_t{1}}}),
            "Mul(f32[2,3], f32[4]): Mul: B [4] does not match A [2,3] at axis 1");
  EXPECT_EQ(infer_error("Sub", 6, {{kF32, {2, 3}}, {kF32, {3}}}),
            "Sub(f32[2,3], f32[3]): Sub: shapes [2,3] and [3] differ and broadcast = 0");
  EXPECT_EQ(infer_error("And", 1, {{DType::kBool, {2}}, {DType::kBool, {2, 2}}},
                        {{"broadcast", int64_t{1}}}),
            "And(bool[2], bool[2,2]): And: B [2,2] has a higher rank than A [2]");
}

TEST(ElementwiseErrors, LegacyBroadcastPlacesBAtAxis) {
  // A [2,3,2] + B [3] at axis 1: B[j] is added along the middle dim.
  const OpDef& def = global_registry().lookup("", "Add", 6);
  Tensor a(kF32, {2, 3, 2}), b(kF32, {3});
  for (int64_t i = 0; i < 3; ++i) b.set(i, 10.0 * static_cast<double>(i + 1));
  const Attrs attrs{{"broadcast", int64_t{1}}, {"axis", int64_t{1}}};
  const std::vector<Tensor> ins{a, b};
  static const cpu::CpuDevice dev(1);
  const auto out = run_op(def, attrs, ins, dev);
  ASSERT_EQ(out[0].shape(), (Shape{2, 3, 2}));
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(out[0].at(i), 10.0 * static_cast<double>(i / 2 % 3 + 1));
}

TEST(ElementwiseErrors, ModFloatNeedsFmod) {
  EXPECT_EQ(infer_error("Mod", 13, {{kF32, {2}}, {kF32, {2}}}),
            "Mod(f32[2], f32[2]): Mod: fmod = 0 is not defined for f32 (set fmod = 1)");
  EXPECT_EQ(infer_error("Mod", 13, {{DType::kI32, {2}}, {DType::kI32, {2}}}), "no error");
}

TEST(ElementwiseErrors, BitShiftDirection) {
  EXPECT_EQ(
      infer_error("BitShift", 11, {{DType::kU8, {2}}, {DType::kU8, {2}}},
                  {{"direction", std::string("UP")}}),
      "BitShift(u8[2], u8[2]): BitShift: direction must be \"LEFT\" or \"RIGHT\", got \"UP\"");
}

TEST(ElementwiseErrors, VariadicShapes) {
  EXPECT_EQ(infer_error("Max", 6, {{kF32, {3}}, {kF32, {1}}}),
            "Max(f32[3], f32[1]): Max: inputs [3] and [1] differ (no broadcasting before opset 8)");
  EXPECT_EQ(infer_error("Max", 8, {{kF32, {3}}, {kF32, {1}}}), "no error");
  const std::string msg = infer_error("Sum", 13, {{kF32, {3}}, {kF32, {4}}});
  EXPECT_NE(msg.find("[3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
}

TEST(ElementwiseErrors, CompareShapes) {
  const std::string msg = infer_error("Equal", 13, {{kF32, {2, 3}}, {kF32, {4}}});
  EXPECT_NE(msg.find("[2,3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
}

}  // namespace
}  // namespace asc

// The normalization family's contracts beyond the case table: bad shapes, attributes and target
// values give a ShapeError naming the op and the shapes or values; optional outputs may be
// left out; long rows run the chunked (three-pass) moments program.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

Tensor f32(Shape s, double value = 0.5) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, value + 0.25 * static_cast<double>(i % 7));
  return t;
}

Tensor i64(Shape s, std::vector<int64_t> values) {
  Tensor t(DType::kI64, std::move(s));
  for (size_t i = 0; i < values.size(); ++i) t.data_as<int64_t>()[i] = values[i];
  return t;
}

// The ShapeError message of running op (opset) on `ins`, or "" when it runs.
std::string error_of(const char* op, int opset, std::vector<Tensor> ins, Attrs a = {}) {
  try {
    run_op(global_registry().lookup("", op, opset), a, ins, device());
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

TEST(NormalizationErrors, MissingRequiredInputs) {
  std::string e = error_of("LayerNormalization", 17, {f32({2, 3})});
  EXPECT_HAS(
      e, "LayerNormalization: required input 'Scale' (input 1) is missing; the node has 1 inputs");
  e = error_of("BatchNormalization", 15, {f32({2, 3}), f32({3}), f32({3}), Tensor(), f32({3})});
  EXPECT_HAS(e, "BatchNormalization: required input 'input_mean' (input 3) is missing");
  e = error_of("SoftmaxCrossEntropyLoss", 13, {f32({2, 3})});
  EXPECT_HAS(e, "required input 'labels' (input 1) is missing");
  e = error_of("LogSoftmax", 13, {});
  EXPECT_HAS(e, "LogSoftmax: required input 'input' (input 0) is missing; the node has 0 inputs");
}

TEST(NormalizationErrors, LayerNormalization) {
  std::string e = error_of("LayerNormalization", 17, {f32({}), f32({1})});
  EXPECT_HAS(e, "LayerNormalization");
  EXPECT_HAS(e, "rank >= 1");
  e = error_of("LayerNormalization", 17, {f32({2, 3, 4}), f32({3, 5})},
               Attrs{{"axis", int64_t{1}}});
  EXPECT_HAS(e, "LayerNormalization");
  EXPECT_HAS(e, "Scale f32[3,5] does not broadcast");
  EXPECT_HAS(e, "[2,3,4]");
  e = error_of("LayerNormalization", 17, {f32({2, 3}), f32({3})}, Attrs{{"axis", int64_t{2}}});
  EXPECT_HAS(e, "LayerNormalization(f32[2,3], f32[3])");
  e = error_of("LayerNormalization", 17, {f32({2, 3}), f32({3})},
               Attrs{{"stash_type", int64_t{7}}});
  EXPECT_HAS(e, "stash_type 7");
}

TEST(NormalizationErrors, BatchAndInstanceNormalization) {
  std::string e =
      error_of("BatchNormalization", 15, {f32({2, 3, 4}), f32({4}), f32({3}), f32({3}), f32({3})});
  EXPECT_HAS(e, "BatchNormalization");
  EXPECT_HAS(e, "scale f32[4] must be [3]");
  e = error_of("BatchNormalization", 15, {f32({3}), f32({3}), f32({3}), f32({3}), f32({3})});
  EXPECT_HAS(e, "X must be [N, C, ...], got f32[3]");
  e = error_of("InstanceNormalization", 6, {f32({2, 3}), f32({3}), f32({3})});
  EXPECT_HAS(e, "InstanceNormalization");
  EXPECT_HAS(e, "[N, C, D1, ...], got f32[2,3]");
  e = error_of("InstanceNormalization", 6, {f32({2, 3, 5}), f32({3}), f32({2})});
  EXPECT_HAS(e, "B f32[2] must be [C] for input f32[2,3,5]");
}

TEST(NormalizationErrors, GroupNormalization) {
  std::string e = error_of("GroupNormalization", 18, {f32({2, 6, 3}), f32({4}), f32({4})},
                           Attrs{{"num_groups", int64_t{4}}});
  EXPECT_HAS(e, "GroupNormalization");
  EXPECT_HAS(e, "6 channels of X f32[2,6,3] do not split into 4 groups");
  e = error_of("GroupNormalization", 18, {f32({2, 6, 3}), f32({6}), f32({3})},
               Attrs{{"num_groups", int64_t{3}}});
  EXPECT_HAS(e, "scale f32[6] must be [3] for X f32[2,6,3]");
  e = error_of("GroupNormalization", 21, {f32({2, 6, 3}), f32({6}), f32({3})},
               Attrs{{"num_groups", int64_t{3}}});
  EXPECT_HAS(e, "bias f32[3] must be [6]");
  e = error_of("GroupNormalization", 21, {f32({2, 6, 3}), f32({6}), f32({6})},
               Attrs{{"num_groups", int64_t{0}}});
  EXPECT_HAS(e, "num_groups must be >= 1, got 0");
}

TEST(NormalizationErrors, MvnLrnHardmax) {
  std::string e = error_of("MeanVarianceNormalization", 13, {f32({2, 3})});  // default axes 0,2,3
  EXPECT_HAS(e, "MeanVarianceNormalization");
  EXPECT_HAS(e, "axis 2 out of range for rank 2");
  e = error_of("MeanVarianceNormalization", 13, {f32({2, 3})},
               Attrs{{"axes", std::vector<int64_t>{1, -1}}});
  EXPECT_HAS(e, "repeated axis -1");
  e = error_of("LRN", 13, {f32({1, 3, 2})}, Attrs{{"size", int64_t{0}}});
  EXPECT_HAS(e, "LRN");
  EXPECT_HAS(e, "size must be >= 1, got 0");
  e = error_of("LRN", 13, {f32({3})}, Attrs{{"size", int64_t{3}}});
  EXPECT_HAS(e, "X must be [N, C, ...], got f32[3]");
  e = error_of("Hardmax", 13, {f32({})});
  EXPECT_HAS(e, "Hardmax");
  EXPECT_HAS(e, "rank >= 1");
  e = error_of("LogSoftmax", 13, {f32({2, 3})}, Attrs{{"axis", int64_t{2}}});
  EXPECT_HAS(e, "LogSoftmax(f32[2,3])");
  e = error_of("LogSoftmax", 11, {f32({})});
  EXPECT_HAS(e, "LogSoftmax(f32[]): input must have rank >= 1");
}

TEST(NormalizationErrors, Losses) {
  for (const char* op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    SCOPED_TRACE(op);
    std::string e = error_of(op, 13, {f32({2, 3}), i64({2}, {0, 3})});
    EXPECT_HAS(e, op);
    EXPECT_HAS(e, "target value 3 is outside [0, 3)");
    e = error_of(op, 13, {f32({2, 3}), i64({2}, {0, -1})});
    EXPECT_HAS(e, "target value -1");
    EXPECT_EQ(
        error_of(op, 13, {f32({2, 3}), i64({2}, {0, -1})}, Attrs{{"ignore_index", int64_t{-1}}}),
        "");
    e = error_of(op, 13, {f32({2, 3, 4}), i64({2, 3}, {0, 0, 0, 0, 0, 0})});
    EXPECT_HAS(e, "target i64[2,3] must be input f32[2,3,4] without its class dim 1");
    e = error_of(op, 13, {f32({2, 3}), i64({2}, {0, 1}), f32({2})});
    EXPECT_HAS(e, "weight f32[2] must be [C] for input f32[2,3]");
    e = error_of(op, 13, {f32({2, 3}), i64({2}, {0, 1})}, Attrs{{"reduction", std::string("avg")}});
    EXPECT_HAS(e, "reduction must be none, sum or mean, got 'avg'");
    e = error_of(op, 13, {f32({3}), i64({}, {0})});
    EXPECT_HAS(e, "rank >= 2");
  }
}

// Mean weighted by the weights of the counted targets, ignored ones excluded:
// loss = (w0 * -x[0,0] + w2 * -x[2,2]) / (w0 + w2).
TEST(NormalizationLosses, MeanWeightsIgnoreIndex) {
  Tensor x(DType::kF32, {3, 3});
  for (int64_t i = 0; i < 9; ++i) x.set(i, -0.1 * static_cast<double>(i + 1));
  Tensor w(DType::kF32, {3});
  w.set(0, 2.0), w.set(1, 5.0), w.set(2, 0.5);
  const Tensor t = i64({3}, {0, 1, 2});
  const auto out =
      run_op(global_registry().lookup("", "NegativeLogLikelihoodLoss", 13),
             Attrs{{"ignore_index", int64_t{1}}}, std::vector<Tensor>{x, t, w}, device());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape{});
  EXPECT_NEAR(out[0].at(0), (2.0 * 0.1 + 0.5 * 0.9) / 2.5, 1e-6);
}

// A node may leave out the optional statistics outputs: the program then writes output 0 only.
TEST(NormalizationPrograms, OptionalOutputsMayBeAbsent) {
  const OpDef& ln = global_registry().lookup("", "LayerNormalization", 17);
  const Attrs a = ln.resolve({});
  std::vector<Tensor> ins{f32({4, 8}), f32({8})};
  auto out = infer_outputs(ln, a, ins);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].shape, (Shape{4, 1}));
  out.resize(1);
  const std::vector<TensorDesc> in_desc{ins[0].desc(), ins[1].desc()};
  const TileProgram p = plan_tile_program(ln, a, in_desc, out, device().spec());
  for (const Instr& in : p.instrs) {
    if (in.kind == InstrKind::kCopyOut) {
      EXPECT_EQ(in.arg, 2) << "only Y is written";
    }
  }
}

// Rows longer than UB: three loops over the row's chunks (sum, squared deviations, output).
TEST(NormalizationPrograms, LongRowsTakeThreePasses) {
  const OpDef& ln = global_registry().lookup("", "LayerNormalization", 17);
  const Attrs a = ln.resolve({});
  std::vector<Tensor> ins{f32({2, 200000}), f32({200000})};
  const auto out = infer_outputs(ln, a, ins);
  const std::vector<TensorDesc> in_desc{ins[0].desc(), ins[1].desc()};
  const TileProgram p = plan_tile_program(ln, a, in_desc, out, ascend910b());
  int loops = 0;
  for (const Instr& in : p.instrs) loops += in.kind == InstrKind::kLoopBegin;
  EXPECT_EQ(loops, 3) << p.dump();
}

}  // namespace
}  // namespace asc

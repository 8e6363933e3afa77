// What the activations case table cannot express: error messages naming the op and shapes, Clip
// with bounds unknown when planning (graph inputs), Dropout nodes without the mask output, the
// statistics and determinism of training masks, CastLike ignoring target_type's shape.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

Tensor filled(DType dt, Shape shape, double start, double step) {
  Tensor t(dt, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, start + step * static_cast<double>(i));
  return t;
}

Tensor scalar(DType dt, double v) {
  Tensor t(dt, {});
  t.set(0, v);
  return t;
}

// The ShapeError text of running `op` (opset) on `inputs`, "" when it runs.
std::string error_of(const char* op, int opset, std::vector<Tensor> inputs, Attrs attrs = {}) {
  try {
    run_op(global_registry().lookup("", op, opset), attrs, inputs, device());
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ActivationsErrors, PReluSlopeMustBroadcastToX) {
  const std::string e =
      error_of("PRelu", 16, {Tensor(DType::kF32, {2, 3}), Tensor(DType::kF32, {4, 3})});
  EXPECT_TRUE(contains(e, "PRelu")) << e;
  EXPECT_TRUE(contains(e, "slope [4,3] does not broadcast unidirectionally to X [2,3]")) << e;
  // A slope of higher rank than X would grow the output.
  const std::string r =
      error_of("PRelu", 9, {Tensor(DType::kF32, {3}), Tensor(DType::kF32, {2, 3})});
  EXPECT_TRUE(contains(r, "slope [2,3]")) << r;
  // Opset 6 reads a 1-D slope of X.dims[1] elements per channel; other lengths must broadcast.
  EXPECT_EQ(error_of("PRelu", 6, {Tensor(DType::kF32, {2, 3, 4}), Tensor(DType::kF32, {3})}), "");
  const std::string c =
      error_of("PRelu", 6, {Tensor(DType::kF32, {2, 3, 4}), Tensor(DType::kF32, {5})});
  EXPECT_TRUE(contains(c, "slope [5] does not broadcast")) << c;
}

TEST(ActivationsErrors, ClipBoundsMustBeScalars) {
  const std::string e = error_of(
      "Clip", 13, {Tensor(DType::kF32, {4}), Tensor(DType::kF32, {2}), Tensor(DType::kF32, {})});
  EXPECT_TRUE(contains(e, "Clip")) << e;
  EXPECT_TRUE(contains(e, "input 'min' must be a scalar, got shape [2]")) << e;
  // Bounds of another dtype than X break the type constraint.
  const std::string t = error_of("Clip", 13, {Tensor(DType::kF32, {4}), Tensor(DType::kF16, {})});
  EXPECT_TRUE(contains(t, "Clip")) << t;
  EXPECT_TRUE(contains(t, "f16")) << t;
}

TEST(ActivationsErrors, DropoutTrainingRatioInRange) {
  const std::string e = error_of(
      "Dropout", 13, {Tensor(DType::kF32, {4}), scalar(DType::kF32, 1.0), scalar(DType::kBool, 1)});
  EXPECT_TRUE(contains(e, "Dropout: ratio must be in [0, 1) in training mode, got 1")) << e;
  // Out of training, the ratio is ignored.
  EXPECT_EQ(error_of("Dropout", 13,
                     {Tensor(DType::kF32, {4}), scalar(DType::kF32, 1.0), scalar(DType::kBool, 0)}),
            "");
  const std::string s =
      error_of("Dropout", 13, {Tensor(DType::kF32, {4}), Tensor(DType::kF32, {3})});
  EXPECT_TRUE(contains(s, "input 'ratio' must be a scalar, got shape [3]")) << s;
}

TEST(ActivationsErrors, AttributeKindIsChecked) {
  Attrs a;
  a.set("alpha", int64_t{2});
  const std::string e = error_of("Elu", 6, {Tensor(DType::kF32, {3})}, a);
  EXPECT_TRUE(contains(e, "Elu: attribute 'alpha' is")) << e;
}

TEST(ActivationsErrors, GeluApproximateMode) {
  Attrs a;
  a.set("approximate", std::string("fast"));
  const std::string e = error_of("Gelu", 20, {Tensor(DType::kF32, {3})}, a);
  EXPECT_TRUE(contains(e, "Gelu: approximate must be 'none' or 'tanh', got 'fast'")) << e;
}

TEST(ActivationsErrors, CeluAlphaNonZero) {
  Attrs a;
  a.set("alpha", 0.0f);
  const std::string e = error_of("Celu", 12, {Tensor(DType::kF32, {3})}, a);
  EXPECT_TRUE(contains(e, "Celu: alpha must not be 0")) << e;
}

TEST(ActivationsErrors, DtypesOutsideTheSpecAreRefused) {
  EXPECT_TRUE(contains(error_of("Celu", 12, {Tensor(DType::kF16, {3})}), "Celu"));
  EXPECT_TRUE(contains(error_of("Clip", 11, {Tensor(DType::kI32, {3})}), "i32"));
  EXPECT_EQ(error_of("Clip", 12, {Tensor(DType::kI32, {3})}), "");
  EXPECT_TRUE(
      contains(error_of("PRelu", 8, {Tensor(DType::kI32, {3}), Tensor(DType::kI32, {3})}), "i32"));
}

// Runs a tile op the way the graph runtime does for inputs it cannot see when planning: no
// values, and only `outputs` of the inferred outputs bound.
std::vector<Tensor> run_unplanned(const char* op, int opset, std::vector<Tensor> inputs,
                                  size_t outputs, Attrs attrs = {}) {
  const OpDef& def = global_registry().lookup("", op, opset);
  const Attrs resolved = def.resolve(attrs);
  auto out_desc = infer_outputs(def, resolved, inputs);
  out_desc.resize(outputs);
  std::vector<TensorDesc> in_desc;
  std::vector<void*> args;
  for (auto& t : inputs) {
    in_desc.push_back(t.desc());
    args.push_back(t.data());
  }
  std::vector<Tensor> outs;
  for (const auto& d : out_desc) outs.emplace_back(d.dtype, d.shape);
  for (auto& t : outs) args.push_back(t.data());
  const TileProgram p =
      plan_tile_program(def, resolved, in_desc, out_desc, device().spec(), {}, {});
  device().launch(p, args);
  return outs;
}

TEST(ActivationsClip, BoundsUnknownWhenPlanning) {
  const Tensor x = filled(DType::kF32, {3, 70}, -5.0, 0.05);
  for (auto [lo, hi] : {std::pair{-1.0, 2.0}, std::pair{1.0, -1.0}}) {
    const auto y =
        run_unplanned("Clip", 13, {x, scalar(DType::kF32, lo), scalar(DType::kF32, hi)}, 1);
    for (int64_t i = 0; i < x.numel(); ++i)
      ASSERT_EQ(y[0].at(i), std::min(std::max(x.at(i), lo), hi)) << i;
  }
  // Absent min, f16 data, a bound of shape [1].
  Tensor hi(DType::kF16, {1});
  hi.set(0, 0.5);
  const Tensor xh = filled(DType::kF16, {100}, -2.0, 0.03125);
  const auto y = run_unplanned("Clip", 13, {xh, Tensor(), hi}, 1);
  for (int64_t i = 0; i < xh.numel(); ++i) ASSERT_EQ(y[0].at(i), std::min(xh.at(i), 0.5)) << i;
}

TEST(ActivationsClip, NanPassesThrough) {
  Tensor x = filled(DType::kF32, {5}, -2.0, 1.0);
  x.set(2, std::numeric_limits<double>::quiet_NaN());
  const auto y =
      run_op(global_registry().lookup("", "Clip", 13), {},
             std::vector<Tensor>{x, scalar(DType::kF32, -1), scalar(DType::kF32, 1)}, device());
  EXPECT_TRUE(std::isnan(y[0].at(2)));
  EXPECT_EQ(y[0].at(0), -1.0);
  EXPECT_EQ(y[0].at(4), 1.0);
}

TEST(ActivationsDropout, InferenceWithoutMaskOutput) {
  const Tensor x = filled(DType::kF32, {4, 33}, -1.0, 0.01);
  for (int opset : {7, 10}) {
    const auto y = run_unplanned("Dropout", opset, {x}, 1);
    ASSERT_EQ(y.size(), 1u);
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(y[0].at(i), x.at(i));
  }
  // The host kernel of 12+ with one output, in training (the mask is then internal).
  const OpDef& def = global_registry().lookup("", "Dropout", 13);
  const Attrs resolved = def.resolve({});
  const std::vector<Tensor> ins{x, scalar(DType::kF32, 0.5), scalar(DType::kBool, 1)};
  std::vector<Tensor> outs{Tensor(DType::kF32, x.shape())};
  LaunchContext ctx;
  ctx.op = &def;
  for (const auto& t : ins) ctx.inputs.push_back(t.desc()), ctx.values.push_back(&t);
  ctx.outputs = {outs[0].desc()};
  ctx.attrs = &resolved;
  ctx.spec = &device().spec();
  def.host_kernel_fn(ctx, ins, outs);
  int kept = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (outs[0].at(i) != 0) {
      ++kept;
      ASSERT_FLOAT_EQ(static_cast<float>(outs[0].at(i)), static_cast<float>(2 * x.at(i)));
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, x.numel());
}

// The mask keeps about (1 - ratio) of the elements; the same seed gives the same mask, another
// seed another one.
TEST(ActivationsDropout, TrainingMaskStatisticsAndSeed) {
  const OpDef& def = global_registry().lookup("", "Dropout", 13);
  const Tensor x = filled(DType::kF32, {10000}, 1.0, 0.0);
  auto mask = [&](int64_t seed, double ratio) {
    Attrs a;
    a.set("seed", seed);
    const auto y =
        run_op(def, a, std::vector<Tensor>{x, scalar(DType::kF32, ratio), scalar(DType::kBool, 1)},
               device());
    return y[1];
  };
  const Tensor m1 = mask(7, 0.3), m2 = mask(7, 0.3), m3 = mask(8, 0.3);
  int64_t kept = 0, same = 0, differ = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    kept += m1.at(i) != 0;
    same += m1.at(i) == m2.at(i);
    differ += m1.at(i) != m3.at(i);
  }
  EXPECT_NEAR(static_cast<double>(kept) / 10000.0, 0.7, 0.03);
  EXPECT_EQ(same, x.numel());
  EXPECT_GT(differ, 1000);
}

TEST(ActivationsCastLike, TargetShapeIsIgnored) {
  const Tensor x = filled(DType::kF32, {3}, -1.5, 1.25);
  const auto y = run_op(global_registry().lookup("", "CastLike", 15), {},
                        std::vector<Tensor>{x, Tensor(DType::kI64, {2, 2, 2, 2})}, device());
  ASSERT_EQ(y[0].dtype(), DType::kI64);
  ASSERT_EQ(y[0].shape(), (Shape{3}));
  EXPECT_EQ(y[0].data_as<int64_t>()[0], -1);  // truncates toward zero
  EXPECT_EQ(y[0].data_as<int64_t>()[1], 0);
  EXPECT_EQ(y[0].data_as<int64_t>()[2], 1);
}

}  // namespace
}  // namespace asc

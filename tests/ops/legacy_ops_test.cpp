// The oldest op versions (cases_legacy.cpp has their reference cases): error messages for bad
// attributes and inputs, and checks the case table cannot express — each old version against the
// newer version it maps onto (Pad-1 vs Pad-2, Tile-1 vs Tile-6, Upsample-1 vs -7, Upsample-10 vs
// -9, Cast-1 vs Cast-6), Split-1's equal parts, Dropout-1/-6 in both modes, LpNormalization's
// norms.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

using I = std::vector<int64_t>;
using S = std::string;

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

std::vector<Tensor> run(const char* op, int opset, const Attrs& attrs,
                        const std::vector<Tensor>& in, size_t num_outputs = 0) {
  OpRunOptions o;
  o.num_outputs = num_outputs;
  return run_op(global_registry().lookup("", op, opset), attrs, in, device(), o);
}

// The ShapeError message of running the op, or "no error".
std::string error_of(const char* op, int opset, const Attrs& attrs, const std::vector<Tensor>& in,
                     size_t num_outputs = 0) {
  try {
    run(op, opset, attrs, in, num_outputs);
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

// Seeded values in [-2, 2] (every 7th element 0).
Tensor seeded(DType dt, Shape shape, uint64_t seed = 1) {
  Tensor t(dt, std::move(shape));
  uint64_t z = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    t.set(i, i % 7 == 3 ? 0.0 : static_cast<double>(z >> 40) / double(1ull << 24) * 4 - 2);
  }
  return t;
}

Tensor values_of(DType dt, Shape shape, const std::vector<double>& v) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

void expect_same(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.desc().str(), want.desc().str()) << what;
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_EQ(got.at(i), want.at(i)) << what << " [" << i << "]";
}

// ---- Cast-1 ----------------------------------------------------------------------------------

TEST(LegacyCast, NamesMapToTheDTypeCast6Takes) {
  const Tensor x = seeded(DType::kF32, {4, 9});
  const std::pair<const char*, DType> names[] = {
      {"FLOAT16", DType::kF16}, {"INT32", DType::kI32}, {"double", DType::kF64},
      {"Bool", DType::kBool},   {"UINT8", DType::kU8},  {"BFLOAT16", DType::kBF16}};
  for (const auto& [name, dt] : names) {
    const auto y1 = run("Cast", 1, {{"to", S(name)}}, {x});
    const auto y6 = run("Cast", 6, {{"to", static_cast<int64_t>(dt)}}, {x});
    expect_same(y1.at(0), y6.at(0), name);
  }
}

TEST(LegacyCast, BadTargets) {
  const Tensor x(DType::kF32, {3});
  const std::string e = error_of("Cast", 1, {{"to", S("FLOAT32")}}, {x});
  EXPECT_HAS(e, "Cast-1: to 'FLOAT32' is not a numeric or bool TensorProto.DataType name");
  EXPECT_HAS(error_of("Cast", 1, {{"to", S("STRING")}}, {x}), "'STRING'");
  EXPECT_HAS(error_of("Cast", 1, {{"to", int64_t{10}}}, {x}), "attribute 'to' is int");
  EXPECT_HAS(error_of("Cast", 1, {}, {x}), "required attribute 'to'");
  EXPECT_HAS(error_of("Cast", 6, {{"to", int64_t{99}}}, {x}), "dtype 99 is not supported");
}

// ---- Dropout-1 / -6 --------------------------------------------------------------------------

TEST(LegacyDropout, TestModeIsTheIdentityWithAMaskOfOnes) {
  const Tensor x = seeded(DType::kF32, {5, 13});
  for (int opset : {1, 6}) {
    const auto y = run("Dropout", opset, {{"is_test", int64_t{1}}, {"ratio", 0.9f}}, {x});
    ASSERT_EQ(y.size(), 2u);
    expect_same(y[0], x, "output");
    ASSERT_EQ(y[1].desc().str(), "f32[5,13]");  // mask of dtype T
    for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(y[1].at(i), 1.0);
  }
}

TEST(LegacyDropout, TrainingDropsAboutRatioAndScalesTheRest) {
  const Tensor x = seeded(DType::kF32, {20000});
  for (int opset : {1, 6}) {
    const double ratio = 0.25;
    const auto y = run("Dropout", opset, {{"ratio", static_cast<float>(ratio)}}, {x});
    ASSERT_EQ(y.size(), 2u);
    int64_t dropped = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double m = y[1].at(i);
      ASSERT_TRUE(m == 0.0 || m == 1.0) << m;
      dropped += m == 0.0;
      EXPECT_FLOAT_EQ(y[0].at(i), static_cast<float>(x.at(i) * m / (1 - ratio))) << i;
    }
    EXPECT_NEAR(static_cast<double>(dropped) / static_cast<double>(x.numel()), ratio, 0.02);
    expect_same(run("Dropout", opset, {{"ratio", 0.25f}}, {x})[1], y[1], "same mask twice");
  }
}

TEST(LegacyDropout, RatioOutOfRangeInTraining) {
  const Tensor x(DType::kF32, {4});
  const std::string e = error_of("Dropout", 6, {{"ratio", 1.0f}}, {x});
  EXPECT_HAS(e, "Dropout: ratio must be in [0, 1) in training mode (is_test 0), got 1");
  EXPECT_HAS(error_of("Dropout", 1, {{"ratio", -0.5f}}, {x}), "got -0.5");
  EXPECT_EQ(error_of("Dropout", 6, {{"ratio", 1.0f}, {"is_test", int64_t{1}}}, {x}), "no error");
}

// ---- Max/Min/Sum/Mean-1 ----------------------------------------------------------------------

TEST(LegacyVariadic, NoBroadcastingInOpset1) {
  const Tensor a(DType::kF32, {2, 3}), b(DType::kF32, {3});
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) {
    const std::string e = error_of(op, 1, {}, {a, b});
    EXPECT_HAS(e, op);
    EXPECT_HAS(e, "inputs [2,3] and [3] differ (no broadcasting before opset 8)");
    EXPECT_HAS(error_of(op, 1, {}, {Tensor(DType::kI32, {3})}), "i32");
  }
}

// ---- Pad-1 -----------------------------------------------------------------------------------

TEST(LegacyPad, EqualsPad2WithPaddingsAsPads) {
  const Tensor x = seeded(DType::kF32, {3, 4, 2});
  const I pads = {1, 0, 2, 2, 3, 0};
  for (const char* mode : {"constant", "edge", "reflect"}) {
    const auto y1 = run("Pad", 1, {{"paddings", pads}, {"mode", S(mode)}, {"value", 2.5f}}, {x});
    const auto y2 = run("Pad", 2, {{"pads", pads}, {"mode", S(mode)}, {"value", 2.5f}}, {x});
    expect_same(y1.at(0), y2.at(0), mode);
  }
}

TEST(LegacyPad, BadPaddings) {
  const Tensor x(DType::kF32, {3, 4});
  EXPECT_HAS(error_of("Pad", 1, {{"paddings", I{1, 2}}}, {x}),
             "Pad: paddings [1,2] must have 2 x 2 entries (begins then ends) for rank 2");
  EXPECT_HAS(error_of("Pad", 1, {{"pads", I{1, 1, 1, 1}}}, {x}),
             "required attribute 'paddings' is missing");
  EXPECT_HAS(error_of("Pad", 1, {{"paddings", I{0, 0, 0, 0}}, {"mode", S("wrap")}}, {x}),
             "Pad: mode 'wrap' is not one of constant, edge, reflect");
  EXPECT_HAS(error_of("Pad", 1, {{"paddings", I{0, -5, 0, 0}}}, {x}), "crop dim 1 of [3,4]");
}

// ---- Split-1 ---------------------------------------------------------------------------------

TEST(LegacySplit, EqualPartsFromTheOutputCount) {
  const Tensor x = seeded(DType::kF32, {6, 4});
  const auto parts = run("Split", 1, {}, {x}, 3);  // axis 0 by default
  const auto want = run("Split", 2, {{"split", I{2, 2, 2}}}, {x});
  ASSERT_EQ(parts.size(), 3u);
  for (size_t i = 0; i < 3; ++i) expect_same(parts[i], want.at(i), "part");
  EXPECT_HAS(error_of("Split", 1, {{"axis", int64_t{1}}}, {x}, 3),
             "Split: an axis of 4 does not split into 3 equal parts");
}

TEST(LegacySplit, BadSplits) {
  const Tensor x(DType::kF32, {2, 7});
  const Tensor sizes = values_of(DType::kF32, {2}, {3, 4});
  EXPECT_HAS(error_of("Split", 1, {{"axis", int64_t{1}}, {"split", I{3, 4}}}, {x, sizes}),
             "Split-1: give split as the attribute or as input 1, not both");
  EXPECT_HAS(
      error_of("Split", 1, {{"axis", int64_t{1}}}, {x, values_of(DType::kF32, {2}, {3.5, 3.5})}),
      "Split-1: input split holds 3.5");
  EXPECT_HAS(error_of("Split", 1, {{"axis", int64_t{1}}}, {x, values_of(DType::kF32, {2}, {3, 3})}),
             "Split: split [3,3] sums to 6, the axis has 7");
  EXPECT_HAS(error_of("Split", 1, {{"axis", int64_t{2}}, {"split", I{1, 1}}}, {x}),
             "Split-1: axis 2 is out of range for rank 2");
}

// ---- Tile-1 ----------------------------------------------------------------------------------

TEST(LegacyTile, EqualsTile6AlongOneAxis) {
  const Tensor x = seeded(DType::kF32, {2, 3, 5});
  for (int64_t axis : {0, 1, 2, -1})
    for (int64_t tiles : {0, 1, 3}) {
      const auto y1 = run("Tile", 1, {},
                          {x, values_of(DType::kF32, {}, {double(tiles)}),
                           values_of(DType::kF32, {1}, {double(axis)})});
      I reps(3, 1);
      reps[static_cast<size_t>(axis < 0 ? axis + 3 : axis)] = tiles;
      Tensor r(DType::kI64, {3});
      for (int64_t k = 0; k < 3; ++k) r.data_as<int64_t>()[k] = reps[static_cast<size_t>(k)];
      expect_same(y1.at(0), run("Tile", 6, {}, {x, r}).at(0), "Tile-1");
    }
}

TEST(LegacyTile, BadTilesOrAxis) {
  const Tensor x(DType::kF32, {2, 3});
  auto one = [](double v) { return values_of(DType::kF32, {}, {v}); };
  EXPECT_HAS(error_of("Tile", 1, {}, {x, one(2), one(2)}),
             "Tile-1: axis 2 is out of range for rank 2");
  EXPECT_HAS(error_of("Tile", 1, {}, {x, one(-1), one(0)}), "Tile-1: tiles is negative (-1)");
  EXPECT_HAS(error_of("Tile", 1, {}, {x, one(1.5), one(0)}), "Tile-1: tiles is 1.5");
  EXPECT_HAS(error_of("Tile", 1, {}, {x, values_of(DType::kF32, {2}, {1, 2}), one(0)}),
             "Tile-1: tiles must hold one value, got shape [2]");
}

// ---- Upsample-1 / -10 ------------------------------------------------------------------------

TEST(LegacyUpsample, Upsample1EqualsUpsample7OnHeightAndWidth) {
  const Tensor x = seeded(DType::kF32, {2, 3, 4, 5});
  for (const auto& [mode1, mode7] : {std::pair{"nearest", "nearest"}, {"bilinear", "linear"}}) {
    const auto y1 =
        run("Upsample", 1, {{"height_scale", 2.f}, {"width_scale", 1.5f}, {"mode", S(mode1)}}, {x});
    const auto y7 = run("Upsample", 7,
                        {{"scales", std::vector<float>{1, 1, 2, 1.5f}}, {"mode", S(mode7)}}, {x});
    ASSERT_EQ(y1.at(0).desc().str(), "f32[2,3,8,7]");
    expect_same(y1.at(0), y7.at(0), mode1);
  }
}

TEST(LegacyUpsample, Upsample10EqualsUpsample9) {
  const Tensor x = seeded(DType::kF32, {1, 2, 3, 4});
  const Tensor scales = values_of(DType::kF32, {4}, {1, 2, 2, 3});
  for (const char* mode : {"nearest", "linear"})
    expect_same(run("Upsample", 10, {{"mode", S(mode)}}, {x, scales}).at(0),
                run("Upsample", 9, {{"mode", S(mode)}}, {x, scales}).at(0), mode);
}

TEST(LegacyUpsample, BadUpsample1) {
  const Tensor x(DType::kF32, {1, 2, 3});
  const Attrs ok = {{"height_scale", 2.f}, {"width_scale", 2.f}};
  EXPECT_HAS(error_of("Upsample", 1, ok, {x}),
             "Upsample-1: X must be 4-D [N, C, H, W], got [1,2,3]");
  const Tensor x4(DType::kF32, {1, 1, 2, 2});
  Attrs linear = ok;
  linear.set("mode", S("linear"));
  EXPECT_HAS(error_of("Upsample", 1, linear, {x4}),
             "Upsample: unknown mode 'linear' (Upsample-1 has nearest and bilinear)");
  EXPECT_HAS(error_of("Upsample", 1, {{"height_scale", 2.f}}, {x4}),
             "required attribute 'width_scale' is missing");
  EXPECT_HAS(error_of("Upsample", 1, {{"height_scale", 0.f}, {"width_scale", 1.f}}, {x4}),
             "Upsample: scale 0");
}

// ---- LpNormalization-1 -----------------------------------------------------------------------

TEST(LpNormalization, RowsHaveUnitNormAndKeepTheirSigns) {
  const Tensor x = seeded(DType::kF64, {3, 50, 4});
  for (int64_t p : {1, 2}) {
    const Tensor y = run("LpNormalization", 1, {{"p", p}, {"axis", int64_t{1}}}, {x}).at(0);
    ASSERT_EQ(y.desc().str(), "f64[3,50,4]");
    for (int64_t o = 0; o < 3; ++o)
      for (int64_t i = 0; i < 4; ++i) {
        double norm = 0;
        for (int64_t k = 0; k < 50; ++k) {
          const int64_t at = (o * 50 + k) * 4 + i;
          norm += p == 1 ? std::fabs(y.at(at)) : y.at(at) * y.at(at);
          EXPECT_EQ(std::signbit(y.at(at)), std::signbit(x.at(at))) << at;
        }
        EXPECT_NEAR(norm, 1.0, 1e-12) << "p " << p;
      }
  }
}

TEST(LpNormalization, ZeroRowsStayZero) {
  Tensor x = seeded(DType::kF32, {4, 6});
  for (int64_t k = 0; k < 6; ++k) x.set(6 + k, 0.0);  // row 1
  const Tensor y = run("LpNormalization", 1, {}, {x}).at(0);
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(y.at(6 + k), 0.0);
}

TEST(LpNormalization, BadAttributes) {
  const Tensor x(DType::kF32, {2, 3});
  EXPECT_HAS(error_of("LpNormalization", 1, {{"p", int64_t{3}}}, {x}),
             "LpNormalization: p must be 1 or 2, got 3");
  EXPECT_HAS(error_of("LpNormalization", 1, {{"axis", int64_t{2}}}, {x}),
             "LpNormalization: axis 2 is out of range for rank 2");
  EXPECT_HAS(error_of("LpNormalization", 1, {}, {Tensor(DType::kF32, {})}),
             "LpNormalization: input must have rank >= 1, got a scalar");
  EXPECT_HAS(error_of("LpNormalization", 1, {}, {Tensor(DType::kI32, {3})}), "i32");
}

}  // namespace
}  // namespace asc::test

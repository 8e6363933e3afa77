// ConvTranspose's phase-convolution tile kernel (ops/conv_transpose.cpp) against the naive
// reference over seeded random geometries: 1-D to 3-D, groups, strides (also above the kernel),
// dilations, pads, output_padding, output_shape, every auto_pad, bias, kernel_shape, odd sizes
// and an empty batch; each case also says which kernel ran.
#include <gtest/gtest.h>

#include <random>

#include "ops/op_cases.h"
#include "ops/ops.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

using V = std::vector<int64_t>;

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

struct Geometry {
  OpCase c;
  bool tile = true;  // the tile kernel must run it
  std::string desc;  // the attributes, for failure messages
};

std::string str(const V& v) {
  return to_string(Shape(v));
}

Geometry random_case(std::mt19937& rng, int index) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int rank = static_cast<int>(pick(1, 3));
  const int64_t group = pick(1, 3), cg = pick(1, 3), mg = pick(1, 4);
  const int64_t n = index % 17 == 5 ? 0 : pick(1, 2);
  V x{n, group * cg}, w{group * cg, mg}, strides, dil, pads(2 * rank), opad, oshape, kshape;
  bool tile = true;
  const int64_t cells = rank == 3 ? 4 : rank == 2 ? 7 : 11;
  for (int j = 0; j < rank; ++j) {
    x.push_back(pick(1, cells));
    w.push_back(pick(1, rank == 3 ? 3 : 4));
    strides.push_back(pick(1, 4));
    dil.push_back(pick(0, 3) == 0 ? pick(2, 3) : 1);
    if (strides.back() > 1 && dil.back() > 1) tile = false;  // the host kernel's case
    pads[j] = pick(0, w.back() - 1);
    pads[j + rank] = pick(0, w.back() - 1);
    opad.push_back(pick(0, std::max<int64_t>(strides.back(), dil.back()) - 1));
  }
  Attrs a{{"group", group}, {"strides", strides}, {"dilations", dil}};
  const int mode = static_cast<int>(pick(0, 5));
  if (mode <= 1) {
    a.set("pads", pads);
    a.set("output_padding", opad);
  } else if (mode == 2) {
    a.set("auto_pad", std::string("SAME_UPPER"));
  } else if (mode == 3) {
    a.set("auto_pad", std::string("SAME_LOWER"));
  } else if (mode == 4) {
    a.set("auto_pad", std::string("VALID"));
    a.set("output_padding", opad);
  } else {
    for (int j = 0; j < rank; ++j) {
      const int64_t full = strides[j] * (x[j + 2] - 1) + (w[j + 2] - 1) * dil[j] + 1;
      oshape.push_back(std::max<int64_t>(1, full - pick(0, 2)));
    }
    a.set("output_shape", oshape);
  }
  if (pick(0, 1)) a.set("kernel_shape", V(w.begin() + 2, w.end()));
  std::vector<InputSpec> in = {test::in(DType::kF32, x), test::in(DType::kF32, w)};
  if (pick(0, 1)) in.push_back(test::in(DType::kF32, {group * mg}));
  OpCase c("ConvTranspose", 11, in, a, "random" + std::to_string(index));
  c.atol = 1e-4;
  c.rtol = 1e-4;
  const std::string desc = "strides " + str(strides) + " dilations " + str(dil) + " pads " +
                           str(pads) + " output_padding " + str(opad) + " output_shape " +
                           str(oshape) + " mode " + std::to_string(mode);
  return {c, tile, desc};
}

void check(const Geometry& g, const OpRunOptions& base) {
  const OpCase& c = g.c;
  const OpDef& op = global_registry().lookup("", c.op, c.opset);
  const auto inputs = make_inputs(c);
  OpRunOptions o = base;
  int programs = 0;
  o.on_program = [&](const TileProgram&) { ++programs; };
  const auto got = run_op(op, c.attrs, inputs, device(), o);
  const auto want = run_reference(op, c.attrs, inputs);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].shape(), want[0].shape()) << c.name() << " " << g.desc;
  EXPECT_EQ(compare(got[0], want[0], c.atol, c.rtol), "") << c.name() << " " << g.desc;
  // A batch of 0 may launch nothing.
  if (inputs[0].shape()[0] > 0) {
    EXPECT_EQ(programs > 0, g.tile) << c.name();
  }
}

TEST(ConvTransposeTile, RandomGeometriesMatchReference) {
  std::mt19937 rng(2026);
  int tiles = 0;
  for (int i = 0; i < 160; ++i) {
    const Geometry g = random_case(rng, i);
    tiles += g.tile;
    SCOPED_TRACE(g.c.name());
    check(g, {});
  }
  EXPECT_GT(tiles, 100);  // most geometries take the tile kernel
}

TEST(ConvTransposeTile, SmallMemoriesAnd910bTilingsMatch) {
  std::mt19937 rng(7);
  for (int i = 0; i < 40; ++i) {
    const Geometry g = random_case(rng, i);
    OpRunOptions o;
    DeviceSpec s = i % 2 ? ascend910b() : device().spec();
    if (i % 2 == 0) {
      s.l1_bytes /= 64;
      s.l0a_bytes /= 64;
      s.l0b_bytes /= 64;
      s.l0c_bytes /= 64;
      s.cube_cores = s.vector_cores = 3;
    }
    o.spec = s;
    SCOPED_TRACE(g.c.name());
    check(g, o);
  }
}

// Stride above the kernel: phases with no tap write the bias alone.
TEST(ConvTransposeTile, StrideAboveKernelWritesBiasBetweenTaps) {
  OpCase c("ConvTranspose", 11,
           {in(DType::kF32, {1, 2, 3, 4}), in(DType::kF32, {2, 3, 2, 1}), in(DType::kF32, {3})},
           {{"strides", V{3, 4}}}, "gap");
  c.atol = c.rtol = 1e-5;
  check({c, true, ""}, {});
}

TEST(ConvTransposeTile, LargeChannelsAndStrideTwoMatch) {
  OpCase c(
      "ConvTranspose", 11,
      {in(DType::kF32, {1, 40, 9, 11}), in(DType::kF32, {40, 24, 4, 4}), in(DType::kF32, {24})},
      {{"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}}, "unet");
  c.atol = c.rtol = 1e-4;
  check({c, true, ""}, {});
}

// A phase whose first output row lies before Y (r + r0 < 0) with a tap before W (k < 0).
TEST(ConvTransposeTile, PhaseStartingBeforeTheOutputMatches) {
  for (bool optimize : {true, false}) {
    OpCase c(
        "ConvTranspose", 11, {in(DType::kF32, {1, 2, 2, 4, 1}), in(DType::kF32, {2, 3, 1, 3, 1})},
        {{"strides", V{2, 4, 1}}, {"pads", V{0, 1, 0, 0, 2, 0}}, {"output_padding", V{0, 3, 0}}},
        "clipped");
    c.atol = c.rtol = 1e-5;
    OpRunOptions o;
    o.optimize = optimize;
    check({c, true, optimize ? "optimized" : "plain"}, o);
  }
}

}  // namespace
}  // namespace asc::test

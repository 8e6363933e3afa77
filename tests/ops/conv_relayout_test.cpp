// Conv under a fractal-layout spec (the 910B's): each K step's map and weight block are laid out
// by the vector unit for Load3D (TileBuilder::transpose into NC1HWC0 for L0A's feature map, a
// gather into W^T's K rows in (c1, window, c0) order for L0B; the product Y^T turned back,
// ops/conv_tile.cpp), and the results are the naive reference's over seeded random
// geometries: 1-D to 3-D, groups, strides, dilations, pads, odd channel counts (a partial last C0
// block), f32 and f16, an empty batch. The cpu's own spec keeps the NCHW map (no transposes).
// And the gather's views: inside their buffer, or refused naming them.
#include <gtest/gtest.h>

#include <random>

#include "ops/op_cases.h"
#include "ops/ops.h"
#include "registry/dsl.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

using V = std::vector<int64_t>;

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

OpCase random_conv(std::mt19937& rng, int index) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int rank = static_cast<int>(pick(1, 3));
  const int64_t group = pick(0, 3) == 0 ? pick(2, 3) : 1;
  const int64_t cg = pick(1, 3) == 1 ? pick(17, 40) : pick(1, 9), mg = pick(1, 6);
  const int64_t n = index % 13 == 7 ? 0 : pick(1, 2);
  V x{n, group * cg}, w{group * mg, cg}, strides, dil, pads(2 * static_cast<size_t>(rank));
  const int64_t cells = rank == 3 ? 5 : rank == 2 ? 9 : 20;
  for (int j = 0; j < rank; ++j) {
    w.push_back(pick(1, 3));
    strides.push_back(pick(1, 2));
    dil.push_back(pick(1, 2));
    x.push_back(pick((w.back() - 1) * dil.back() + 1, cells));
    pads[static_cast<size_t>(j)] = pick(0, w.back() - 1);
    pads[static_cast<size_t>(j + rank)] = pick(0, w.back() - 1);
  }
  const DType dt = index % 3 == 2 ? DType::kF16 : DType::kF32;
  std::vector<InputSpec> in = {test::in(dt, x), test::in(dt, w)};
  if (pick(0, 1)) in.push_back(test::in(dt, {group * mg}));
  OpCase c("Conv", 11, in,
           {{"group", group}, {"strides", strides}, {"dilations", dil}, {"pads", pads}},
           "relayout" + std::to_string(index));
  c.atol = c.rtol = dt == DType::kF16 ? 2e-2 : 1e-4;
  return c;
}

int count(const TileProgram& p, InstrKind k) {
  int c = 0;
  for (const Instr& in : p.instrs) c += in.kind == k;
  return c;
}

TEST(ConvRelayout, FractalSpecLaysOutMapAndWeightAndMatchesReference) {
  std::mt19937 rng(2027);
  int relaid = 0;
  for (int i = 0; i < 60; ++i) {
    const OpCase c = random_conv(rng, i);
    SCOPED_TRACE(c.name());
    const OpDef& op = global_registry().lookup("", c.op, c.opset);
    const auto inputs = make_inputs(c);
    OpRunOptions o;
    o.spec = ascend910b();
    std::vector<TileProgram> programs;
    o.on_program = [&](const TileProgram& p) { programs.push_back(p); };
    const auto got = run_op(op, c.attrs, inputs, device(), o);
    const auto want = run_reference(op, c.attrs, inputs);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(compare(got[0], want[0], c.atol, c.rtol), "");
    const int64_t c0 = 32 / static_cast<int64_t>(dtype_size(inputs[0].dtype()));
    for (const TileProgram& p : programs) {
      for (const Instr& in : p.instrs) {
        if (in.kind != InstrKind::kLoadIm2col) continue;
        EXPECT_EQ(in.im2col.c0, c0);
        EXPECT_EQ(p.buffers[static_cast<size_t>(in.dst)].pos, Pos::kL0A);  // Load3D's feature map
        EXPECT_EQ(p.buffers[static_cast<size_t>(in.src[0])].pos, Pos::kUB);
        EXPECT_EQ(p.buffers[static_cast<size_t>(in.src[0])].dims.back(), c0);
      }
      if (count(p, InstrKind::kLoadIm2col) == 0) continue;  // pointwise: X's box as it is
      // The map into NC1HWC0, the weight block into W^T's K rows, the product Y^T back into Y.
      EXPECT_EQ(count(p, InstrKind::kGather), 3) << p.dump();
      ++relaid;
    }
  }
  EXPECT_GT(relaid, 30);
}

TEST(ConvRelayout, CpuSpecKeepsTheNchwMap) {
  const OpCase c("Conv", 11,
                 {test::in(DType::kF32, {1, 5, 9, 9}), test::in(DType::kF32, {4, 5, 3, 3})},
                 {{"pads", V{1, 1, 1, 1}}}, "cpu");
  const OpDef& op = global_registry().lookup("", c.op, c.opset);
  const auto inputs = make_inputs(c);
  OpRunOptions o;
  int transposes = 0, maps = 0;
  o.on_program = [&](const TileProgram& p) {
    transposes += count(p, InstrKind::kGather);
    maps += count(p, InstrKind::kLoadIm2col);
  };
  const auto got = run_op(op, c.attrs, inputs, device(), o);
  EXPECT_EQ(transposes, 0);
  EXPECT_GT(maps, 0);
  EXPECT_EQ(compare(got[0], run_reference(op, c.attrs, inputs)[0], 1e-4, 1e-4), "");
}

// TileBuilder::gather records a view inside its source (negative strides read backwards) and
// refuses one that leaves it, or an element count `as` does not keep, naming the view.
TEST(Gather, ViewsStayInsideTheirBuffer) {
  const OpDef& def = global_registry().lookup("", "Relu", 14);
  const Attrs resolved = def.resolve({});
  const DeviceSpec spec = ascend910b();
  LaunchContext ctx;
  ctx.op = &def;
  ctx.inputs = {TensorDesc{DType::kF32, {4, 8}}};
  ctx.outputs = ctx.inputs;
  ctx.attrs = &resolved;
  ctx.spec = &spec;
  TilingData td;
  td.grid = {1};
  const auto with_view = [&](Shape dims, Shape strides, int64_t offset, Shape as) {
    return trace(ctx, td, [&](TileBuilder& t) {
      GmBox b;
      b.dims = {BoxDim{4, 8, Coord{}, 4}, BoxDim{8, 1, Coord{}, 8}};
      const Buf g = t.gather(t.copy_in(0, b), dims, strides, offset, as);
      t.copy_out(0, g, b);
    });
  };
  const TileProgram p = with_view({8, 4}, {-1, 8}, 7, {4, 8});  // reversed columns, transposed
  ASSERT_EQ(count(p, InstrKind::kGather), 1);
  for (const Instr& in : p.instrs)
    if (in.kind == InstrKind::kGather) {
      EXPECT_EQ(in.box.offset, 7);
      EXPECT_EQ(in.box.dims[0].stride, -1);
      EXPECT_EQ(p.buffers[static_cast<size_t>(in.dst)].dims, (Shape{4, 8}));
    }
  const auto refused = [&](Shape dims, Shape strides, int64_t offset, Shape as) {
    try {
      with_view(dims, strides, offset, as);
    } catch (const ShapeError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(refused({8, 4}, {-1, 8}, 6, {4, 8})
                .find("gather of [8,4] at strides [-1,8] from "
                      "element 6 of UB [4,8]"),
            std::string::npos);
  EXPECT_NE(refused({4, 8}, {8, 1}, 1, {4, 8}).find("(a view inside a UB or L0C buffer)"),
            std::string::npos);
  EXPECT_NE(refused({4, 8}, {8, 1}, 0, {5, 8}).find("shaped as [5,8] (a different element count)"),
            std::string::npos);
}

}  // namespace
}  // namespace asc::test

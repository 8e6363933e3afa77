// Expand, Tile, Concat and Split are tile kernels: copy-ins of GM boxes (stride 0 along broadcast
// or repeated dims), copy-outs; large outputs split over the cores.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

Tensor ints(std::vector<int64_t> v) {
  Tensor t(DType::kI64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

TileProgram plan(const char* op, const Tensor& x, const Tensor& arg, const Shape& out) {
  const OpDef& def = global_registry().lookup("", op, 13);
  const Attrs a = def.resolve({});
  const std::vector<TensorDesc> in = {x.desc(), arg.desc()};
  const std::vector<TensorDesc> outs = {{x.dtype(), out}};
  const std::vector<const Tensor*> values = {nullptr, &arg};
  return plan_tile_program(def, a, in, outs, ascend910b(), {}, values);
}

const Instr& first(const TileProgram& p, InstrKind k) {
  for (const Instr& i : p.instrs)
    if (i.kind == k) return i;
  throw std::runtime_error("no such instruction");
}

TEST(MovementProgram, ExpandReadsBroadcastDimsWithStrideZero) {
  EXPECT_EQ(global_registry().lookup("", "Expand", 13).kernel_kind(), KernelKind::kTile);
  const Tensor x(DType::kF32, {512, 1});
  const TileProgram p = plan("Expand", x, ints({4, 512, 1024}), {4, 512, 1024});
  const GmBox& in = first(p, InstrKind::kCopyIn).box;
  // View [4, 512, 1024] with input strides [0, 1, 0].
  ASSERT_EQ(in.dims.size(), 3u);
  EXPECT_EQ(in.dims[0].stride, 0);
  EXPECT_EQ(in.dims[1].stride, 1);
  EXPECT_EQ(in.dims[2].stride, 0);
  EXPECT_GT(p.num_tiles(), 1);
  EXPECT_GT(p.block_dim, 1);
}

TEST(MovementProgram, TileMergesWholeRepeats) {
  EXPECT_EQ(global_registry().lookup("", "Tile", 13).kernel_kind(), KernelKind::kTile);
  const Tensor x(DType::kF16, {3, 256});
  // [3, 256] tiled [2, 1]: view [2 repeats, 768 contiguous elements].
  const TileProgram p = plan("Tile", x, ints({2, 1}), {6, 256});
  const GmBox& in = first(p, InstrKind::kCopyIn).box;
  ASSERT_EQ(in.dims.size(), 2u);
  EXPECT_EQ(in.dims[0].stride, 0);
  EXPECT_EQ(in.dims[0].extent, 2);
  EXPECT_EQ(in.dims[1].stride, 1);
  EXPECT_EQ(in.dims[1].extent, 768);
}

TEST(MovementProgram, ConcatAndSplitAreTiledOverRowsAndColumns) {
  for (const char* op : {"Concat", "Split"}) {
    const OpDef& def = global_registry().lookup("", op, 13);
    EXPECT_EQ(def.kernel_kind(), KernelKind::kTile) << op;
  }
  const OpDef& concat = global_registry().lookup("", "Concat", 13);
  const std::vector<TensorDesc> in = {{DType::kF32, {64, 3000}}, {DType::kF32, {64, 100000}}};
  const std::vector<TensorDesc> out = {{DType::kF32, {64, 103000}}};
  const TileProgram p =
      plan_tile_program(concat, concat.resolve({{"axis", int64_t{1}}}), in, out, ascend910b());
  ASSERT_EQ(p.grid.size(), 2u);
  EXPECT_GT(p.grid[1], 1) << "a 400 KB row does not fit the UB: column pieces";
  EXPECT_GT(p.block_dim, 1);
  int copies = 0;
  for (const Instr& i : p.instrs) copies += i.kind == InstrKind::kCopyIn;
  EXPECT_EQ(copies, 2) << "one copy-in per input";
}

}  // namespace
}  // namespace asc::test

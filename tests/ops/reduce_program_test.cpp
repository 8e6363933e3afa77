// The traced reduction programs have the structure the row tiling promises: row views merge and
// alternate kept/reduced dims; a long ReduceSum on the 910B is one tile per core with a chunk loop
// accumulating in place into a duplicate-initialised accumulator, fitting UB with liveness reuse;
// a long Softmax row is an online max/sum loop and a write loop, a long ReduceLogSumExp row one
// online loop; axes must be known at launch.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/rows.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

// The placed program for `op` (opset) on `x` with an optional i64 axes input.
TileProgram plan(const char* op, int opset, TensorDesc x, const std::vector<int64_t>* axes,
                 const DeviceSpec& spec, Attrs attrs = {}) {
  const OpDef& def = global_registry().lookup("", op, opset);
  const Attrs resolved = def.resolve(attrs);
  std::vector<Tensor> ins{Tensor(x.dtype, x.shape)};
  if (axes) {
    Tensor a(DType::kI64, {static_cast<int64_t>(axes->size())});
    for (size_t i = 0; i < axes->size(); ++i)
      a.set(static_cast<int64_t>(i), static_cast<double>((*axes)[i]));
    ins.push_back(a);
  }
  const auto out = infer_outputs(def, resolved, ins);
  std::vector<TensorDesc> in_desc;
  std::vector<const Tensor*> values;
  for (const auto& t : ins) {
    in_desc.push_back(t.desc());
    values.push_back(&t);
  }
  return plan_tile_program(def, resolved, in_desc, out, spec, {}, values);
}

int count(const TileProgram& p, InstrKind k) {
  int n = 0;
  for (const auto& in : p.instrs) n += in.kind == k;
  return n;
}

TEST(RowView, MergesAndAlternates) {
  const std::vector<int64_t> a02{0, 2}, a1{1}, none{};
  RowView v = row_view({2, 3, 4}, a02);
  EXPECT_EQ(v.dims, (Shape{2, 3, 4}));
  EXPECT_EQ(v.reduced, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(v.in_strides, (Shape{12, 4, 1}));
  EXPECT_EQ(v.out_strides, (Shape{0, 1, 0}));
  EXPECT_EQ(v.count, 8);
  v = row_view({3, 1, 5}, a1);  // a size-1 reduced dim vanishes: a copy
  EXPECT_EQ(v.dims, (Shape{15}));
  EXPECT_FALSE(v.has_reduced());
  EXPECT_EQ(v.count, 1);
  const std::vector<int64_t> a12{1, 2};
  v = row_view({4, 5, 6, 7}, a12);  // adjacent reduced dims merge
  EXPECT_EQ(v.dims, (Shape{4, 30, 7}));
  EXPECT_EQ(v.in_strides, (Shape{210, 7, 1}));
  EXPECT_EQ(v.out_strides, (Shape{7, 0, 1}));
  v = row_view({}, none);  // scalar: one kept element
  EXPECT_EQ(v.dims, (Shape{1}));
  EXPECT_EQ(v.kept_numel(), 1);
  EXPECT_THROW(row_view({2, 3}, a02), ShapeError);
}

TEST(ReduceProgram, LongSumLoopsAndAccumulatesIn910bUb) {
  const DeviceSpec spec = ascend910b();
  const std::vector<int64_t> axes{0};
  const TileProgram p = plan("ReduceSum", 13, {DType::kF32, {1 << 20}}, &axes, spec);
  SCOPED_TRACE(p.dump());
  EXPECT_EQ(p.num_tiles(), 1);  // one output element
  EXPECT_EQ(count(p, InstrKind::kLoopBegin), 1);
  EXPECT_EQ(count(p, InstrKind::kDuplicate), 1);
  // Every copy-in is in the loop or its exact tail, double-buffered; the accumulator is the
  // duplicate's buffer, updated in place inside the loop.
  int acc = -1, depth = 0, in_place_in_loop = 0;
  int64_t trips = 0, chunk = 0, covered = 0;
  for (const auto& in : p.instrs) {
    if (in.kind == InstrKind::kLoopBegin) trips = in.count;
    depth += in.kind == InstrKind::kLoopBegin;
    depth -= in.kind == InstrKind::kLoopEnd;
    if (in.kind == InstrKind::kDuplicate) acc = in.dst;
    if (in.kind == InstrKind::kBinary && in.in_place) {
      EXPECT_EQ(in.dst, acc);
      EXPECT_EQ(static_cast<BinaryOp>(in.op), BinaryOp::kAdd);
      in_place_in_loop += depth > 0;
    }
    if (in.kind == InstrKind::kCopyIn) {
      EXPECT_EQ(p.buffers[in.dst].slots, 2);
      const int64_t n = numel(p.buffers[in.dst].dims);
      if (depth > 0) chunk = n;
      covered += depth > 0 ? n * trips : n;  // loop chunks, then the exact tail
    }
  }
  EXPECT_EQ(in_place_in_loop, 1);
  EXPECT_EQ(covered, 1 << 20);  // every element exactly once, no padding
  EXPECT_GE(trips, 4);          // 4 MiB through a 192 KiB UB
  // Big chunks: the two input slots take at least a quarter of UB.
  EXPECT_GE(2 * chunk * 4, spec.ub_bytes / 4);
  EXPECT_LE(p.placement.used[static_cast<int>(Pos::kUB)], spec.ub_bytes);
  EXPECT_NE(p.dump().find("liveness reuse saves"), std::string::npos);
  EXPECT_LT(p.placement.total_used(), p.placement.total_no_reuse());
}

TEST(ReduceProgram, RowsSplitOverCoresWithoutLoops) {
  const DeviceSpec spec = ascend910b();
  const std::vector<int64_t> axes{1};
  const TileProgram p = plan("ReduceMean", 18, {DType::kF16, {4096, 256}}, &axes, spec);
  SCOPED_TRACE(p.dump());
  EXPECT_EQ(count(p, InstrKind::kLoopBegin), 0);  // whole rows in a tile
  EXPECT_EQ(count(p, InstrKind::kDuplicate), 0);
  EXPECT_EQ(p.block_dim, spec.vector_cores);
  EXPECT_GE(p.num_tiles(), spec.vector_cores);
}

TEST(SoftmaxProgram, LongRowsAreOnlinePassThenWritePass) {
  const DeviceSpec spec = ascend910b();
  const TileProgram p = plan("Softmax", 13, {DType::kF32, {8, 1 << 18}}, nullptr, spec);
  SCOPED_TRACE(p.dump());
  EXPECT_EQ(count(p, InstrKind::kLoopBegin), 2);
  EXPECT_EQ(count(p, InstrKind::kDuplicate), 2);  // running max and running sum
  int depth = 0, loops_seen = 0, outs_in_second = 0, in_place_in_first = 0;
  for (const auto& in : p.instrs) {
    if (in.kind == InstrKind::kLoopBegin) ++loops_seen;
    depth += in.kind == InstrKind::kLoopBegin;
    depth -= in.kind == InstrKind::kLoopEnd;
    if (in.kind == InstrKind::kBinary && in.in_place && depth > 0 && loops_seen == 1)
      ++in_place_in_first;
    if (in.kind == InstrKind::kCopyOut) outs_in_second += loops_seen == 2 && depth > 0;
  }
  EXPECT_EQ(in_place_in_first, 3);  // rescale sum, update max, add chunk sum
  EXPECT_EQ(outs_in_second, 1);
  EXPECT_LE(p.placement.used[static_cast<int>(Pos::kUB)], spec.ub_bytes);
}

TEST(ReduceProgram, LongLogSumExpIsOneOnlineLoop) {
  const DeviceSpec spec = ascend910b();
  const std::vector<int64_t> axes{1};
  const TileProgram p = plan("ReduceLogSumExp", 18, {DType::kF32, {8, 1 << 18}}, &axes, spec);
  SCOPED_TRACE(p.dump());
  EXPECT_EQ(count(p, InstrKind::kLoopBegin), 1);  // one pass over the row
  EXPECT_EQ(count(p, InstrKind::kDuplicate), 2);  // running max and running sum
  int depth = 0, in_place_in_loop = 0;
  for (const auto& in : p.instrs) {
    depth += in.kind == InstrKind::kLoopBegin;
    depth -= in.kind == InstrKind::kLoopEnd;
    in_place_in_loop += in.kind == InstrKind::kBinary && in.in_place && depth > 0;
  }
  EXPECT_EQ(in_place_in_loop, 3);  // rescale sum, update max, add chunk sum
  EXPECT_LE(p.placement.used[static_cast<int>(Pos::kUB)], spec.ub_bytes);
}

TEST(ReduceProgram, AxesInputMustBeKnownAtLaunch) {
  const OpDef& def = global_registry().lookup("", "ReduceSum", 13);
  const Attrs resolved = def.resolve({});
  const std::vector<TensorDesc> in{{DType::kF32, {3, 5}}, {DType::kI64, {1}}};
  const std::vector<TensorDesc> out{{DType::kF32, {3, 1}}};
  try {
    plan_tile_program(def, resolved, in, out, ascend910b());
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("ReduceSum"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("axes input must be known at launch"), std::string::npos)
        << e.what();
  }
}

TEST(ReduceProgram, BadAxesNameTheProblem) {
  const OpDef& def = global_registry().lookup("", "ReduceMax", 17);
  Attrs a;
  a.set("axes", std::vector<int64_t>{1, -1});
  const std::vector<Tensor> ins{Tensor(DType::kF32, {3, 5})};
  try {
    infer_outputs(def, def.resolve(a), ins);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("repeated axis"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[3,5]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asc

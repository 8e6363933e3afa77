// The traced MatMul / Gemm programs have the Ascend cube structure: a K loop of double-buffered,
// prefetched L1 copy-ins, load_l0 into L0A/L0B, mmad into an L0C accumulator, one copy-out; tiles
// fit the 910B's local memories and run on at most its 24 cube cores. Also shape-inference
// errors name the shapes.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

TileProgram plan(const char* op, std::vector<TensorDesc> in, const DeviceSpec& spec,
                 Attrs attrs = {}) {
  const OpDef& def = global_registry().lookup("", op, 13);
  const Attrs resolved = def.resolve(attrs);
  std::vector<Tensor> probes;
  for (const auto& d : in)
    probes.push_back(d.dtype == DType::kUndefined ? Tensor() : Tensor(d.dtype, d.shape));
  const auto out = infer_outputs(def, resolved, probes);
  return plan_tile_program(def, resolved, in, out, spec);
}

int count(const TileProgram& p, InstrKind k) {
  int n = 0;
  for (const auto& in : p.instrs) n += in.kind == k;
  return n;
}

const BufferDecl* find_pos(const TileProgram& p, Pos pos) {
  for (const auto& b : p.buffers)
    if (b.pos == pos) return &b;
  return nullptr;
}

TEST(MatMulProgram, CubePatternOn910B) {
  const DeviceSpec spec = ascend910b();
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    const TileProgram p = plan("MatMul", {{dt, {512, 896}}, {dt, {896, 4864}}}, spec);
    EXPECT_EQ(count(p, InstrKind::kLoopBegin), 1);
    EXPECT_EQ(count(p, InstrKind::kMmad), 1);
    EXPECT_EQ(count(p, InstrKind::kLoadL0), 2);
    EXPECT_EQ(count(p, InstrKind::kCopyOut), 1);
    int prefetching = 0;
    for (const auto& in : p.instrs)
      if (in.kind == InstrKind::kCopyIn) {
        EXPECT_EQ(p.buffers[in.dst].pos, Pos::kL1);
        EXPECT_EQ(p.buffers[in.dst].slots, 2);
        prefetching += in.prefetch_next;
      }
    EXPECT_EQ(prefetching, 2);
    for (Pos pos : {Pos::kL0A, Pos::kL0B, Pos::kL0C}) {
      const BufferDecl* b = find_pos(p, pos);
      ASSERT_NE(b, nullptr) << pos_name(pos);
      EXPECT_LE(p.placement.used[static_cast<int>(pos)], spec.capacity(pos)) << pos_name(pos);
      EXPECT_EQ(b->dims.back() % 16, 0) << pos_name(pos);  // whole fractals
    }
    EXPECT_EQ(find_pos(p, Pos::kL0C)->dtype, DType::kF32);
    EXPECT_LE(p.placement.used[static_cast<int>(Pos::kL1)], spec.l1_bytes);
    EXPECT_LE(p.block_dim, 24);
    EXPECT_GE(p.block_dim, 20);                // enough tiles to fill (nearly) every cube core
    EXPECT_EQ(count(p, InstrKind::kCast), 0);  // the copy-out converts (Fixpipe)
  }
}

TEST(MatMulProgram, BatchBroadcastUsesStrideZero) {
  const TileProgram p =
      plan("MatMul", {{DType::kF32, {2, 1, 5, 7}}, {DType::kF32, {3, 7, 4}}}, ascend910b());
  ASSERT_EQ(p.grid.size(), 4u);  // two batch axes (broadcast differently) + M and N tiles
  EXPECT_EQ(p.grid[0], 2);
  EXPECT_EQ(p.grid[1], 3);
  for (const auto& in : p.instrs)
    if (in.kind == InstrKind::kCopyIn) {
      const auto& d = in.box.dims;
      ASSERT_EQ(d.size(), 4u);
      if (in.arg == 0) {
        EXPECT_EQ(d[1].stride, 0);  // A repeats over B's batch
      }
      if (in.arg == 1) {
        EXPECT_EQ(d[0].stride, 0);  // B repeats over A's batch
      }
    }
}

// A batch that B does not vary over is more rows of one product: torch's sequence-first Linear
// [S, 1, K] x [K, N] runs as one M = S GEMM (no batch axis in the grid), not S one-row products.
TEST(MatMulProgram, UnbatchedBFoldsTheBatchIntoRows) {
  const cpu::CpuDevice dev(2);
  for (const Shape& b : {Shape{768, 2304}, Shape{1, 768, 2304}}) {
    const TileProgram p =
        plan("MatMul", {{DType::kF32, {128, 1, 768}}, {DType::kF32, b}}, dev.spec());
    EXPECT_EQ(p.grid.size(), 2u) << to_string(b);  // M and N tiles only
    const BufferDecl* a = find_pos(p, Pos::kL0A);
    ASSERT_NE(a, nullptr);
    EXPECT_GT(a->dims[0], 1);  // tiles of many rows
  }
  // A batched B keeps its batch axis.
  const TileProgram batched =
      plan("MatMul", {{DType::kF32, {4, 20, 33}}, {DType::kF32, {4, 33, 40}}}, dev.spec());
  EXPECT_EQ(batched.grid.size(), 3u);
}

TEST(MatMulProgram, GemmEpilogueOnTheVectorUnit) {
  Attrs at;
  at.set("alpha", 0.5f);
  at.set("transB", int64_t{1});
  const TileProgram p =
      plan("Gemm", {{DType::kF16, {64, 256}}, {DType::kF16, {512, 256}}, {DType::kF16, {512}}},
           ascend910b(), at);
  EXPECT_EQ(count(p, InstrKind::kScalar), 1);  // alpha
  EXPECT_EQ(count(p, InstrKind::kBinary), 1);  // + C
  const Instr* b_in = nullptr;
  for (const auto& in : p.instrs)
    if (in.kind == InstrKind::kCopyIn && in.arg == 1) b_in = &in;
  ASSERT_NE(b_in, nullptr);
  EXPECT_NE(b_in->box.dims.back().stride, 1);  // B^T read through strides
  // Without C and with alpha 1 the L0C tile goes straight to the copy-out.
  const TileProgram plain =
      plan("Gemm", {{DType::kF32, {64, 256}}, {DType::kF32, {256, 512}}, {DType::kUndefined, {}}},
           ascend910b());
  EXPECT_EQ(count(plain, InstrKind::kScalar) + count(plain, InstrKind::kBinary), 0);
}

TEST(MatMulProgram, HostDecodeStreamsBOnce) {
  const cpu::CpuDevice dev(2);
  for (int64_t m : {1, 16}) {
    const TileProgram p =
        plan("MatMul", {{DType::kBF16, {m, 3584}}, {DType::kBF16, {3584, 18944}}}, dev.spec());
    const BufferDecl* a = find_pos(p, Pos::kL0A);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->dims[0], m);  // TM = M: one M tile, B read once
    EXPECT_EQ(p.block_dim, 2);
    EXPECT_EQ(p.num_tiles() % 2, 0);  // N split evenly over the cores
  }
}

TEST(MatMulInfer, ErrorsNameTheShapes) {
  const cpu::CpuDevice dev(1);
  const OpDef& mm = global_registry().lookup("", "MatMul", 13);
  std::vector<Tensor> in{Tensor(DType::kF32, {2, 3}), Tensor(DType::kF32, {4, 5})};
  try {
    run_op(mm, {}, in, dev);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[2,3] x [4,5]"), std::string::npos) << e.what();
  }
  const OpDef& gemm = global_registry().lookup("", "Gemm", 13);
  std::vector<Tensor> g{Tensor(DType::kF32, {2, 3}), Tensor(DType::kF32, {3, 4}),
                        Tensor(DType::kF32, {3, 4})};
  EXPECT_THROW(run_op(gemm, {}, g, dev), ShapeError);
}

TEST(MatMulInfer, SymbolicDims) {
  const OpDef& mm = global_registry().lookup("", "MatMul", 13);
  const Attrs at;
  std::vector<TensorType> in{{DType::kBF16, SymShape{Dim("batch"), Dim("seq"), 896}},
                             {DType::kBF16, SymShape{896, 4864}}};
  const auto out = mm.infer_fn(InferContext{mm, in, at, {}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype, DType::kBF16);
  ASSERT_TRUE(out[0].shape);
  EXPECT_EQ(to_string(*out[0].shape), "[batch,seq,4864]");
  std::vector<TensorType> unknown{{DType::kF32, std::nullopt}, {DType::kF32, SymShape{3, 4}}};
  const auto u = mm.infer_fn(InferContext{mm, unknown, at, {}});
  EXPECT_EQ(u[0].dtype, DType::kF32);
  EXPECT_FALSE(u[0].shape);
  std::vector<TensorType> bad{{DType::kF32, SymShape{Dim("s"), 5}}, {DType::kF32, SymShape{6, 4}}};
  EXPECT_THROW(mm.infer_fn(InferContext{mm, bad, at, {}}), ShapeError);
}

}  // namespace
}  // namespace asc

// The sim device's cost model (runtime/devices/sim/cost_model.h) on hand-built tile programs,
// the expected figures computed here from the model's constants (docs/SIM.md): a copy-only
// program is HBM bound, a matmul tile on one core is cube bound and on 24 sharing cores MTE2
// bound, optimisation off sums the pipes, and a real op's program predicts its bytes at HBM rate.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/registry.h"
#include "runtime/devices/sim/cost_model.h"
#include "runtime/devices/sim/sim_device.h"
#include "runtime/op_runner.h"

namespace asc::sim {
namespace {

constexpr int kMte2 = static_cast<int>(Pipe::kMte2);
constexpr int kMte1 = static_cast<int>(Pipe::kMte1);
constexpr int kMte3 = static_cast<int>(Pipe::kMte3);
constexpr int kCube = static_cast<int>(Pipe::kCube);
constexpr int kScalar = static_cast<int>(Pipe::kScalar);

BoxDim dim(int64_t extent, int64_t stride, int var, int64_t scale, int64_t size) {
  BoxDim d;
  d.extent = extent;
  d.stride = stride;
  d.start.var = var;
  d.start.scale = scale;
  d.size = size;
  return d;
}

int add_buffer(TileProgram& p, Pos pos, DType dt, Shape dims, bool copy_in, int slots) {
  BufferDecl b;
  b.id = static_cast<int>(p.buffers.size());
  b.name = "b" + std::to_string(b.id);
  b.pos = pos;
  b.dtype = dt;
  b.dims = std::move(dims);
  b.copy_in = copy_in;
  b.slots = slots;
  p.buffers.push_back(b);
  return b.id;
}

// y = x over f32[tiles * n]: tile t copies elements [t n, (t+1) n) in and out through UB.
TileProgram copy_program(int64_t tiles, int64_t n, int64_t block_dim, int slots) {
  TileProgram p;
  p.op = "Copy";
  p.args = {{DType::kF32, {tiles * n}}, {DType::kF32, {tiles * n}}};
  p.num_inputs = 1;
  p.grid = {tiles};
  p.block_dim = block_dim;
  const int buf = add_buffer(p, Pos::kUB, DType::kF32, {n}, true, slots);
  Instr in;
  in.kind = InstrKind::kCopyIn;
  in.dst = buf;
  in.arg = 0;
  in.box.dims = {dim(tiles * n, 1, 0, n, n)};
  Instr out = in;
  out.kind = InstrKind::kCopyOut;
  out.dst = -1;
  out.src[0] = buf;
  out.arg = 1;
  p.instrs = {in, out};
  return p;
}

// C[M, N] = A[M, K] x B[K, N] in f16 with TM x TN tiles (grid [M/TM, N/TN]) and a K loop of
// TK steps: per step a1, b1 (L1) copied in, loaded to L0A / L0B, mmad into c (L0C f32).
TileProgram matmul_program(int64_t m, int64_t n, int64_t k, int64_t tm, int64_t tn, int64_t tk,
                           int64_t block_dim) {
  TileProgram p;
  p.op = "MatMul";
  p.args = {{DType::kF16, {m, k}}, {DType::kF16, {k, n}}, {DType::kF16, {m, n}}};
  p.num_inputs = 2;
  p.grid = {m / tm, n / tn};
  p.block_dim = block_dim;
  p.num_loop_vars = 1;
  const int kvar = 2;  // grid vars 0, 1; the loop counter after them
  const int a1 = add_buffer(p, Pos::kL1, DType::kF16, {tm, tk}, true, 2);
  const int b1 = add_buffer(p, Pos::kL1, DType::kF16, {tk, tn}, true, 2);
  const int a0 = add_buffer(p, Pos::kL0A, DType::kF16, {tm, tk}, false, 1);
  const int b0 = add_buffer(p, Pos::kL0B, DType::kF16, {tk, tn}, false, 1);
  const int c = add_buffer(p, Pos::kL0C, DType::kF32, {tm, tn}, false, 1);
  std::vector<Instr> is(8);
  is[0].kind = InstrKind::kLoopBegin;
  is[0].count = k / tk;
  is[0].var = kvar;
  is[1].kind = InstrKind::kCopyIn;
  is[1].dst = a1;
  is[1].arg = 0;
  is[1].box.dims = {dim(m, k, 0, tm, tm), dim(k, 1, kvar, tk, tk)};
  is[2].kind = InstrKind::kCopyIn;
  is[2].dst = b1;
  is[2].arg = 1;
  is[2].box.dims = {dim(k, n, kvar, tk, tk), dim(n, 1, 1, tn, tn)};
  is[3].kind = InstrKind::kLoadL0;
  is[3].dst = a0;
  is[3].src[0] = a1;
  is[4].kind = InstrKind::kLoadL0;
  is[4].dst = b0;
  is[4].src[0] = b1;
  is[5].kind = InstrKind::kMmad;
  is[5].dst = c;
  is[5].src[0] = a0;
  is[5].src[1] = b0;
  is[5].var = kvar;
  is[6].kind = InstrKind::kLoopEnd;
  is[7].kind = InstrKind::kCopyOut;
  is[7].src[0] = c;
  is[7].arg = 2;
  is[7].box.dims = {dim(m, n, 0, tm, tm), dim(n, 1, 1, tn, tn)};
  p.instrs = is;
  return p;
}

double max_pipe(const KernelCost& k) {
  double m = 0;
  for (double b : k.busy) m = std::max(m, b);
  return m;
}

TEST(SimCostModel, CopyOnlyIsHbmBound) {
  const DeviceSpec spec = ascend910b();
  const CostConfig c;
  // 48 vector cores, 4 tiles of 64 KiB each: every byte read once and written once at the
  // chip's HBM bandwidth shared by the 48 cores.
  const int64_t tiles = 4 * 48, n = 16384;
  const KernelCost k = predict_program(copy_program(tiles, n, 48, 2), spec, c);
  ASSERT_TRUE(k.valid);
  EXPECT_FALSE(k.cube);
  EXPECT_EQ(k.cores, 48);
  const double share = c.hbm_bytes_per_s / c.clock_hz / 48;  // bytes per cycle per core
  const double tile_bytes = 4.0 * n;
  const double per_copy = tiles * (tile_bytes / share + c.dma_issue_cycles);
  EXPECT_NEAR(k.busy[kMte2], per_copy, 1e-9 * per_copy);
  EXPECT_NEAR(k.busy[kMte3], per_copy, 1e-9 * per_copy);
  EXPECT_DOUBLE_EQ(k.busy[kScalar], tiles * (c.scalar_tile_cycles + 2 * c.scalar_instr_cycles));
  EXPECT_DOUBLE_EQ(k.busy[kCube], 0.0);
  // A core's 4 tiles each take the HBM time of their bytes in and out (MTE2 and MTE3 share it),
  // plus the first tile's fill: its pipes' sum less the longest.
  const double hbm_tile = 2 * tile_bytes / share;
  const double first_sum = 2 * (tile_bytes / share + c.dma_issue_cycles) + c.scalar_tile_cycles +
                           2 * c.scalar_instr_cycles;
  EXPECT_NEAR(k.cycles, 4 * hbm_tile + first_sum - hbm_tile, 1e-6 * k.cycles);
  // So the kernel runs at about the HBM bandwidth: within 3 % of bytes / 1.6 TB/s.
  const double ideal = 2 * tile_bytes * tiles / c.hbm_bytes_per_s * c.clock_hz;
  EXPECT_NEAR(k.cycles / ideal, 1.0, 0.03);
  EXPECT_GT(k.utilization(Pipe::kMte2), 0.45);
  EXPECT_DOUBLE_EQ(k.cube_utilization(spec), 0.0);
}

TEST(SimCostModel, MatmulTileIsCubeBoundOnOneCore) {
  const DeviceSpec spec = ascend910b();
  const CostConfig c;
  // One 128 x 256 tile, K = 1024 in 8 steps of 128: per step 128 * 256 * 128 / 4096 = 1024
  // cube cycles against (128 + 256) * 128 * 2 = 98304 bytes = 768 cycles at one core's 128 B.
  const KernelCost k = predict_program(matmul_program(128, 256, 1024, 128, 256, 128, 1), spec, c);
  ASSERT_TRUE(k.cube);
  EXPECT_EQ(k.cores, 1);
  EXPECT_DOUBLE_EQ(k.macs, 128.0 * 256 * 1024);
  EXPECT_DOUBLE_EQ(k.busy[kCube], 8 * 1024.0);
  EXPECT_DOUBLE_EQ(k.busy[kMte2],
                   8 * (98304.0 / c.core_dma_bytes_per_cycle + 2 * c.dma_issue_cycles));
  EXPECT_DOUBLE_EQ(k.busy[kMte1], 8 * 98304.0 / c.mte1_bytes_per_cycle);
  EXPECT_DOUBLE_EQ(max_pipe(k), k.busy[kCube]);
  // The K steps pipeline: the tile takes its cube time plus one step's fill.
  EXPECT_GE(k.cycles, k.busy[kCube]);
  EXPECT_LT(k.cycles, 1.3 * k.busy[kCube]);
  EXPECT_GT(k.utilization(Pipe::kCube), 0.75);
}

TEST(SimCostModel, MatmulOn24CoresSharesHbm) {
  const DeviceSpec spec = ascend910b();
  const CostConfig c;
  // The same 128 x 256 tiles, one per core on 24 cores: each core reads its own B columns from
  // HBM at the shared 1.6e12 / 1.8e9 / 24 = 37 B/cycle; the A rows all tiles read come from L2
  // after the first read. MTE2 becomes the longest pipe.
  const int64_t k_steps = 4;
  const KernelCost k =
      predict_program(matmul_program(128, 256 * 24, 128 * k_steps, 128, 256, 128, 24), spec, c);
  EXPECT_EQ(k.cores, 24);
  const double hbm = c.hbm_bytes_per_s / c.clock_hz / 24, l2 = c.l2_bytes_per_s / c.clock_hz / 24;
  const double b_bytes = 24.0 * k_steps * 128 * 256 * 2, a_bytes = 24.0 * k_steps * 128 * 128 * 2;
  const double a_l2 = 23.0 / 24;  // A (128 x 512 f16) is read 24 times: 23 of them from L2
  const double mte2 = b_bytes / hbm + a_bytes * (1 - a_l2) / hbm + a_bytes * a_l2 / l2 +
                      24.0 * k_steps * 2 * c.dma_issue_cycles;
  EXPECT_NEAR(k.busy[kMte2], mte2, 1e-9 * mte2);
  EXPECT_DOUBLE_EQ(max_pipe(k), k.busy[kMte2]);
  EXPECT_LT(k.utilization(Pipe::kCube), 0.5);
  // The chip's cube utilisation counts every cube core and the launch.
  EXPECT_DOUBLE_EQ(k.cube_utilization(spec), k.busy[kCube] / (k.total_cycles() * 24));
}

TEST(SimCostModel, OptimisationOffSumsThePipes) {
  const DeviceSpec spec = ascend910b();
  const CostConfig c;
  TileProgram on = matmul_program(128, 256, 1024, 128, 256, 128, 1);
  TileProgram off = on;
  for (BufferDecl& b : off.buffers) b.slots = 1;
  const KernelCost kon = predict_program(on, spec, c), koff = predict_program(off, spec, c);
  double sum = 0;
  for (double b : koff.busy) sum += b;
  EXPECT_DOUBLE_EQ(koff.cycles, sum);  // one core, one tile: every pipe in turn
  EXPECT_GT(koff.cycles, kon.cycles);
  for (int q = 0; q < kPipeCount; ++q) EXPECT_DOUBLE_EQ(koff.busy[q], kon.busy[q]);

  const KernelCost con = predict_program(copy_program(96, 4096, 48, 2), spec, c);
  const KernelCost coff = predict_program(copy_program(96, 4096, 48, 1), spec, c);
  EXPECT_GE(coff.cycles, con.cycles);
}

TEST(SimCostModel, LaunchAndHostKernel) {
  const CostConfig c;
  const KernelCost k = predict_host_kernel(1 << 20, 1 << 20, c);
  EXPECT_TRUE(k.host);
  EXPECT_DOUBLE_EQ(k.launch_cycles, c.launch_us * 1e-6 * c.clock_hz);
  EXPECT_DOUBLE_EQ(k.cycles, 2.0 * (1 << 20) / (c.hbm_bytes_per_s / c.clock_hz));
  CostTotals t;
  t.add(k);
  t.add(k);
  EXPECT_EQ(t.kernels, 2);
  EXPECT_DOUBLE_EQ(t.seconds(c.clock_hz), 2 * k.total_cycles() / c.clock_hz);
  t.add(KernelCost{});  // not valid: not counted
  EXPECT_EQ(t.kernels, 2);
}

TEST(SimCostModel, AddProgramNearHbmBandwidth) {
  // The registry's own Add over f16[4096, 4096] as tiled for the 910B: three 32 MiB tensors
  // pass once, so the kernel takes about 96 MiB / 1.6 TB/s (the vector work hides behind it).
  const OpDef* add = global_registry().find("", "Add", 14);
  ASSERT_NE(add, nullptr);
  const std::vector<TensorDesc> in = {{DType::kF16, {4096, 4096}}, {DType::kF16, {4096, 4096}}};
  const std::vector<TensorDesc> out = {{DType::kF16, {4096, 4096}}};
  const TileProgram p = plan_tile_program(*add, {}, in, out, ascend910b());
  const CostConfig c;
  const KernelCost k = predict_program(p, ascend910b(), c);
  const double bytes = 3.0 * 4096 * 4096 * 2;
  EXPECT_NEAR(k.gm_bytes, bytes, 0.01 * bytes);
  const double ideal = bytes / c.hbm_bytes_per_s * c.clock_hz;
  EXPECT_GE(k.cycles, ideal);
  EXPECT_LT(k.cycles, 1.25 * ideal);
}

TEST(SimDevice, NamesAndErrors) {
  EXPECT_TRUE(is_sim_device("sim:910b"));
  EXPECT_FALSE(is_sim_device("cpu"));
  try {
    SimDevice d("sim:foo");
    FAIL() << "sim:foo accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device 'sim:foo' is not available (devices: cpu, "
                                         "sim:910b, ascend-emu)"),
              std::string::npos)
        << e.what();
  }
  const SimDevice d("sim:910b");
  EXPECT_EQ(d.spec().name, "ascend910b");
}

}  // namespace
}  // namespace asc::sim

namespace asc::sim {
namespace {

// A real Conv's program on the 910B spec: Load3D (the column matrix) is priced on MTE1, the
// product on the cube, the MACs those of the convolution padded to whole fractals.
TEST(SimCostModel, ConvProgramRunsLoad3DOnMte1AndTheProductOnTheCube) {
  const DeviceSpec spec = ascend910b();
  const CostConfig c;
  const OpDef& op = global_registry().lookup("", "Conv", 11);
  const Attrs attrs = op.resolve({{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const std::vector<TensorDesc> in = {{DType::kF16, {1, 64, 28, 28}},
                                      {DType::kF16, {64, 64, 3, 3}}};
  const std::vector<TensorDesc> out = {{DType::kF16, {1, 64, 28, 28}}};
  const TileProgram p = plan_tile_program(op, attrs, in, out, spec);
  bool load3d = false;
  for (const Instr& i : p.instrs) load3d = load3d || i.kind == InstrKind::kLoadIm2col;
  ASSERT_TRUE(load3d);
  const KernelCost k = predict_program(p, spec, c);
  ASSERT_TRUE(k.valid);
  EXPECT_TRUE(k.cube);
  const double macs = 64.0 * (64 * 9) * (28 * 28);
  EXPECT_GE(k.macs, macs);
  EXPECT_LE(k.macs, 1.5 * macs);  // fractal padding of M, K and the positions
  EXPECT_GT(k.busy[kMte1], 0.0);
  EXPECT_GT(k.busy[kCube], 0.0);
}

}  // namespace
}  // namespace asc::sim

namespace asc::sim {
namespace {

TEST(SimCostModel, MixedKernelHandsItsTilesThroughTheWorkspace) {
  // FusedMatMulBias with a GELU epilogue on the 910B: the AIC's L0C tiles reach the AIVs through
  // the GM workspace (Fixpipe out, DataCopy in: twice the L0C bytes per tile at L2 rate), on the
  // AI cores (24), with a cross-core flag per hand-off on each side.
  const OpDef* op = global_registry().find("ai.asc", "FusedMatMulBias", 1);
  ASSERT_NE(op, nullptr);
  const int64_t m = 512, k = 1024, n = 2048;
  const std::vector<TensorDesc> in = {
      {DType::kF16, {m, k}}, {DType::kF16, {k, n}}, {DType::kF16, {n}}};
  const std::vector<TensorDesc> out = {{DType::kF16, {m, n}}};
  const Attrs attrs = op->resolve({{"activation", std::string("gelu")}});
  const TileProgram p = plan_tile_program(*op, attrs, in, out, ascend910b());
  CostConfig c;
  const KernelCost kc = predict_program(p, ascend910b(), c);
  EXPECT_TRUE(kc.mixed);
  EXPECT_TRUE(kc.cube);
  EXPECT_LE(kc.cores, ascend910b().cube_cores);
  // The same program's bytes without the hand-offs: the operands in, the result out.
  int64_t l0c = 0;
  for (const BufferDecl& b : p.buffers)
    if (b.pos == Pos::kL0C) l0c = std::max(l0c, numel(b.dims) * 4);
  ASSERT_GT(l0c, 0);
  const double handed = 2.0 * static_cast<double>(l0c) * static_cast<double>(p.num_tiles());
  CostConfig no_flags = c;
  no_flags.cross_core_flag_cycles = 0;
  const KernelCost kn = predict_program(p, ascend910b(), no_flags);
  EXPECT_GE(kc.gm_bytes, handed);  // the workspace traffic is counted
  EXPECT_DOUBLE_EQ(kc.gm_bytes, kn.gm_bytes);
  // Flags cost scalar time on both sides of every hand-off.
  const double flags = 2.0 * c.cross_core_flag_cycles * static_cast<double>(p.num_tiles());
  EXPECT_NEAR(kc.busy[kScalar] - kn.busy[kScalar], flags, 1e-6 * flags);
}

}  // namespace
}  // namespace asc::sim

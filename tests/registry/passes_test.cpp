// Unit tests of the TileProgram passes: liveness reuse, alignment, padded rows, ping-pong slots,
// loops, in-place results and the capacity error.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/passes.h"
#include "registry/tiling.h"

namespace asc {
namespace {

struct Fixture {
  Attrs attrs;
  LaunchContext ctx;
  TilingData tiling;
  DeviceSpec spec = ascend910b();
  Fixture(Shape shape, DType dt = DType::kF32) {
    ctx.op = &global_registry().lookup("", "Add", 17);
    ctx.inputs = {{dt, shape}, {dt, shape}};
    ctx.outputs = {{dt, shape}};
    ctx.attrs = &attrs;
    ctx.spec = &spec;
    tiling.grid = {1};
    tiling.params = {{"TI", numel(shape)}, {"TR", 1}};
  }
};

GmBox flat_box(int64_t n) {
  GmBox b;
  b.dims.push_back(BoxDim{n, 1, Coord{0, n, 0}, n});
  return b;
}

TEST(Passes, LivenessReusesDeadBuffers) {
  Fixture f({1024});
  TileProgram p = trace(f.ctx, f.tiling, [](TileBuilder& t) {
    Buf x = t.copy_in(0, flat_box(1024));
    Buf a = exp(x);  // x dies here
    Buf b = t.reduce(ReduceOp::kSum, a, 0);
    Buf c = a / b.b->duplicate(DType::kF32, {1024}, 2.0);
    t.copy_out(0, sqrt(c), flat_box(1024));
  });
  run_passes(p, f.spec, /*optimize=*/false);
  const auto& pl = p.placement;
  EXPECT_LT(pl.used[static_cast<int>(Pos::kUB)], pl.used_no_reuse[static_cast<int>(Pos::kUB)]);
  // Every pair of buffers live at the same time occupies disjoint bytes.
  const Liveness lv = analyze_liveness(p);
  for (const auto& a : p.buffers)
    for (const auto& b : p.buffers) {
      if (a.id >= b.id || lv.first[a.id] < 0 || lv.first[b.id] < 0) continue;
      const bool live_together = lv.first[a.id] < lv.last[b.id] && lv.first[b.id] < lv.last[a.id];
      const int64_t ea = pl.offset[a.id] + a.bytes(), eb = pl.offset[b.id] + b.bytes();
      const bool disjoint = ea <= pl.offset[b.id] || eb <= pl.offset[a.id];
      if (live_together) {
        EXPECT_TRUE(disjoint) << a.name << " vs " << b.name;
      }
    }
}

TEST(Passes, OffsetsAre32ByteAligned) {
  Fixture f({5});
  TileProgram p = trace(f.ctx, f.tiling, [](TileBuilder& t) {
    Buf x = t.copy_in(0, flat_box(5));  // 20 bytes
    Buf y = t.copy_in(1, flat_box(5));
    t.copy_out(0, x + y, flat_box(5));
  });
  run_passes(p, f.spec, false);
  for (const auto& b : p.buffers) EXPECT_EQ(p.placement.offset[b.id] % 32, 0) << b.name;
  EXPECT_EQ(p.placement.slot_stride[0], 32);
}

GmBox box_2d(int64_t rows, int64_t cols) {
  GmBox b;
  b.dims.push_back(BoxDim{rows, cols, Coord{0, rows, 0}, rows});
  b.dims.push_back(BoxDim{cols, 1, Coord{}, cols});
  return b;
}

TEST(Passes, RowsNotWholeBlocksArePaddedOnAlignedRowDevices) {
  Fixture f({4, 5});
  auto kernel = [](TileBuilder& t) {
    Buf x = t.copy_in(0, box_2d(4, 5));  // rows of 20 bytes
    Buf y = t.copy_in(1, box_2d(4, 5));
    Buf h = t.cast(x + y, DType::kF16);  // the narrowest element: G = 16 elements
    t.copy_out(0, t.cast(h, DType::kF32), box_2d(4, 5));
  };
  TileProgram p = trace(f.ctx, f.tiling, kernel);
  run_passes(p, f.spec, false);
  for (const auto& b : p.buffers) {
    EXPECT_EQ(b.row, 5) << b.name;
    EXPECT_EQ(b.pitch, 16) << b.name;
    EXPECT_EQ(b.local_elems(), 64) << b.name;
    EXPECT_EQ(b.local_index(7), 18) << b.name;  // row 1, column 2
    EXPECT_EQ(b.bytes(), 64 * static_cast<int64_t>(dtype_size(b.dtype))) << b.name;
  }
  // The host keeps its buffers dense.
  DeviceSpec host = f.spec;
  host.aligned_rows = false;
  TileProgram q = trace(f.ctx, f.tiling, kernel);
  run_passes(q, host, false);
  for (const auto& b : q.buffers) EXPECT_EQ(b.pitch, 0) << b.name;
}

TEST(Passes, ElementwiseOperandsShareRowsOfTheirCommonDivisor) {
  Fixture f({6, 7});
  TileProgram p = trace(f.ctx, f.tiling, [](TileBuilder& t) {
    Buf x = t.copy_in(0, box_2d(6, 7));                // rows of 7
    Buf y = t.copy_in(1, flat_box(42), Pos::kUB, "");  // one row of 42
    Buf s = t.reduce(ReduceOp::kSum, x + y, 1);        // [6, 1]: its own layout
    t.copy_out(0, s, box_2d(6, 1));
  });
  run_passes(p, f.spec, false);
  for (const auto& b : p.buffers) {
    if (b.dims == Shape{6, 1}) {
      EXPECT_EQ(b.row, 6) << b.name;  // one row of 6 floats
    } else {
      EXPECT_EQ(b.row, 7) << b.name;  // [6, 7] and [42] agree on rows of 7
      EXPECT_EQ(b.pitch, 8) << b.name;
    }
  }
}

TEST(Passes, ComparisonOperandsAllocateWholeRepeats) {
  Fixture f({40});
  TileProgram p = trace(f.ctx, f.tiling, [](TileBuilder& t) {
    Buf x = t.copy_in(0, flat_box(40));
    Buf y = t.copy_in(1, flat_box(40));
    t.copy_out(0, t.select(t.compare(CmpOp::kLt, x, y), x, y), flat_box(40));
  });
  run_passes(p, f.spec, false);
  // The bool result makes G 32 elements: rows of 40 take 64; the float operands of the
  // comparison are allocated in whole 256-byte repeats, the bool one in whole 256-element ones.
  for (const auto& b : p.buffers) {
    EXPECT_EQ(b.local_elems(), 64) << b.name;
    EXPECT_EQ(b.bytes(), b.dtype == DType::kBool ? 64 : 256) << b.name;
  }
  EXPECT_EQ(p.buffers[0].round, 64);
}

TEST(Passes, DoubleBufferingGivesCopyInsTwoSlots) {
  Fixture f({1000});
  auto kernel = [](TileBuilder& t) {
    Buf x = t.copy_in(0, flat_box(1000));
    t.copy_out(0, exp(x), flat_box(1000));
  };
  TileProgram on = trace(f.ctx, f.tiling, kernel);
  run_passes(on, f.spec, true);
  TileProgram off = trace(f.ctx, f.tiling, kernel);
  run_passes(off, f.spec, false);
  EXPECT_EQ(on.buffers[0].slots, 2);
  EXPECT_EQ(on.buffers[1].slots, 1);
  EXPECT_EQ(off.buffers[0].slots, 1);
  EXPECT_EQ(on.placement.slot_stride[0], 4000);
  // Two slots of the input plus the result; the result cannot sit in either slot.
  EXPECT_EQ(on.placement.used[static_cast<int>(Pos::kUB)], 3 * 4000);
  EXPECT_EQ(off.placement.used[static_cast<int>(Pos::kUB)], 4000);  // exp in place
}

TEST(Passes, ElementwiseResultTakesDeadOperandInPlace) {
  Fixture f({256});
  TileProgram p = trace(f.ctx, f.tiling, [](TileBuilder& t) {
    Buf x = t.copy_in(0, flat_box(256));
    Buf y = exp(x);
    t.copy_out(0, y, flat_box(256));
  });
  run_passes(p, f.spec, false);
  EXPECT_EQ(p.placement.offset[0], p.placement.offset[1]);
}

TEST(Passes, LoopCarriedAccumulatorLivesThroughTheLoop) {
  Fixture f({64});
  TileProgram p = trace(f.ctx, f.tiling, [](TileBuilder& t) {
    Buf c = t.alloc(Pos::kL0C, DType::kF32, {16, 16}, "acc");
    t.loop(4, [&](Coord k) {
      GmBox box;
      box.dims = {BoxDim{4, 16, Coord{}, 16}, BoxDim{64, 1, Coord{k.var, 16, 0}, 16}};
      Buf a = t.load_l0(t.copy_in(0, box, Pos::kL1, "a1"), Pos::kL0A);
      Buf b = t.load_l0(t.copy_in(1, box, Pos::kL1, "b1"), Pos::kL0B);
      t.mmad(c, a, b, k);
    });
    GmBox out;
    out.dims = {BoxDim{16, 16, Coord{}, 16}, BoxDim{16, 1, Coord{}, 16}};
    t.copy_out(0, c, out);
  });
  run_passes(p, f.spec, true);
  const Liveness lv = analyze_liveness(p);
  const int acc = 0;
  EXPECT_EQ(lv.first[acc], 0);  // from the loop's start
  EXPECT_EQ(lv.last[acc], static_cast<int>(p.instrs.size()) - 1);
  int prefetching = 0;
  for (const auto& in : p.instrs) prefetching += in.prefetch_next;
  EXPECT_EQ(prefetching, 2);  // both L1 copy-ins in the K loop
  EXPECT_EQ(p.placement.offset[acc] % 1024, 0);
}

TEST(Passes, CapacityErrorNamesOpBufferAndBytes) {
  Fixture f({65536});
  f.tiling.params["TI"] = 65536;
  f.ctx.optimize = true;
  try {
    trace_program(f.ctx, f.tiling);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    // (Even with one slot per copy-in: the double buffering gave way first.)
    EXPECT_STREQ(e.what(),
                 "Add(f32[65536], f32[65536]) -> f32[65536]: buffer 'in1' (f32[65536]) does not "
                 "fit in UB: needs 524288 bytes, ascend910b has 196608");
  }
}

TEST(AutoTiling, PicksTheLargestFittingTileThenBalances) {
  Fixture f({1 << 20});
  const TilingData t = elementwise_tiling(f.ctx);
  // Two double-buffered f32 inputs + the result: 5 * 4 * TI <= 192 KiB -> TI <= 9824, which
  // gives 107 tiles; 48 cores want whole waves, so 144 tiles of 7288 (32-byte aligned).
  EXPECT_EQ(numel(t.grid), 144);
  EXPECT_EQ(t.get("TI"), 7288);
  EXPECT_EQ(t.block_dim, 48);
  EXPECT_NO_THROW(trace_program(f.ctx, t));
  TilingData biggest = t;
  biggest.params["TI"] = 9824;
  EXPECT_NO_THROW(trace_program(f.ctx, biggest));
  // Past that the program still fits with a copy-in single-buffered: trace_program drops the
  // second slot where the memory would overflow (auto_tiling above prefers double buffering).
  biggest.params["TI"] = 9824 + 8;
  const TileProgram p = trace_program(f.ctx, biggest);
  int single = 0;
  for (const auto& b : p.buffers) single += b.copy_in && b.slots == 1;
  EXPECT_GE(single, 1);
  for (const auto& in : p.instrs) {
    if (in.kind == InstrKind::kCopyIn && p.buffers[in.dst].slots == 1) {
      EXPECT_FALSE(in.prefetch_next);
    }
  }
  biggest.params["TI"] = 32768;  // two single buffers (the sum in place of one) past 192 KiB
  EXPECT_THROW(trace_program(f.ctx, biggest), CapacityError);
}

TEST(AutoTiling, SmallWorkRunsInOneWave) {
  Fixture f({4096});
  const TilingData t = elementwise_tiling(f.ctx);
  const int64_t tiles = numel(t.grid);
  EXPECT_LE(tiles, 48);           // one wave over the 48 vector cores
  EXPECT_EQ(t.get("TI") % 8, 0);  // 32-byte aligned tiles
  EXPECT_LE(t.get("TI"), 96);     // and no bigger than the even share needs
}

TEST(ElementwiseView, CollapsesDimsThatBroadcastAlike) {
  Fixture f({});
  f.ctx.inputs = {{DType::kF32, {2, 3, 4, 5}}, {DType::kF32, {4, 5}}};
  f.ctx.outputs = {{DType::kF32, {2, 3, 4, 5}}};
  const EwView v = ew_view(f.ctx);
  EXPECT_EQ(v.dims, (Shape{6, 20}));
  EXPECT_EQ(v.strides[0], (Shape{20, 1}));
  EXPECT_EQ(v.strides[1], (Shape{0, 1}));
  EXPECT_EQ(v.strides[2], (Shape{20, 1}));
}

}  // namespace
}  // namespace asc

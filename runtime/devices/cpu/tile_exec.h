// Interpretation of one core's share of a TileProgram on the host (used by CpuDevice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "registry/tile_program.h"
#include "runtime/devices/cpu/im2col.h"
#include "runtime/devices/cpu/tile_chain.h"
#include "runtime/devices/cpu/tile_conv5hd.h"

namespace asc::cpu {

// Static lowering decisions for one launch, shared by every core.
struct Lowering {
  std::vector<bool> alias_in;     // per instr: copy-in may point at GM (full tiles)
  std::vector<bool> view_in;      // per instr: copy-in feeding load_l0 may be a strided GM view
  std::vector<bool> map_in;       // per instr: ... a feature-map box read by load_l0_im2col
  std::vector<bool> reshaped_in;  // per instr: a copy-in whose buffer is not shaped as its box
  Conv5hdLowering conv5hd;        // a 5HD convolution's tile as one kernel call (tile_conv5hd.h)
  // Per copy-in read by load_l0_im2col: the map's channels per lane block (Im2col::c0; 1: NCDHW).
  std::vector<int64_t> map_c0;
  // Per L0A/L0B buffer: packed blocks to keep for reuse by the core's next tiles (0: one buffer,
  // repacked every time). Non-zero only when the block's GM view does not move with the grid
  // axis that changes from one tile to the next (e.g. the A panel while a core walks N tiles).
  std::vector<int> pack_keep;
  std::vector<int> alias_out;  // per buffer: index of the copy-out it may be written through
  bool mmad_direct = false;    // small-m matmul: skip packing, stream B
  bool has_mmad = false;       // tiles run with denormals flushed to zero (cpu_device.cpp)
  // Per L0B buffer: B stays a GM view, packed panel by panel inside the mmad (gemm_mmad_b_rows).
  std::vector<bool> b_rows;
  // Per kLoadL0 of pre-packed panels: the GM argument its L1 source is a view of (the panel the
  // view starts at gives the columns that exist: the panels' padding is never written out).
  std::vector<int> panel_arg;
  // Per kLoadIm2col: its only reader is a block-diagonal mmad (Instr::diag, the B side), which
  // then reads the feature map itself; no column matrix is made (mmad_a_panels_diag_map).
  std::vector<bool> lazy_im2col;
  // Per L0B buffer: at most kNarrowMax columns against pre-packed A panels, left unpacked.
  std::vector<bool> narrow_b;
  // Epilogue-like runs of elementwise instructions run strip by strip (tile_chain.h); per instr
  // the chain starting there (-1: none).
  std::vector<RowChain> chains;
  std::vector<int> chain_at;
  // Per kMmad: the closed chain that finishes its product (-1: none). Its last pass then runs
  // when the chain does, so that a product which writes C out in a pass of its own can apply
  // the chain on the way instead (gemm.h's RowEpilogue: a stem's 3x3/2 from the map's planes).
  std::vector<int> post_chain;
  // Per kCopyIn: an f32 tile only the row ops of a closed chain read, over the same box of a
  // tensor of the same shape as the chain's copy-out (a convolution's residual): read where it
  // lies in GM through its row stride instead of gathered (valid region = the result's).
  std::vector<bool> view_chain_in;
  // Per kCopyIn: only the in-place accumulate after it reads the block (add / max / min, f32,
  // padding its identity): the two run as one pass over the box (box_accumulate).
  std::vector<bool> acc_in;
  // Per kCopyIn starting a run of such pairs into one accumulator, same op, arg and box but for
  // its start (a pool's window offsets): the number of pairs (0 elsewhere). A tile runs them in
  // one pass over the region all its boxes cover, then each box's rim (box_accumulate_taps).
  std::vector<int> acc_run;
  // The order a core walks its tiles: walk[q] is the grid axis at position q, the last fastest
  // (the grid's own order, but an axis a costly column matrix does not depend on goes last, so
  // consecutive tiles reuse it: keep_im2col).
  std::vector<int> walk;
  // Per kLoadIm2col: how many packed blocks a core keeps for reuse, keyed by their map (one per
  // trip of the enclosing loops: a K loop's chunks); 0: made anew every time.
  std::vector<int> keep_im2col;
  std::vector<int> loop_end;    // per kLoopBegin: index of its kLoopEnd
  std::vector<int> loop_begin;  // per kLoopEnd: index of its kLoopBegin
};

Lowering lower(const TileProgram& p);

// A packed L0A/L0B block and the GM view it was packed from. Within one launch GM inputs do not
// change, so a block whose view matches is still valid: the analogue of an L1/L0 block that is
// still resident and need not be fetched again (a core's next tile often shares its A panel).
struct PackedBlock {
  const std::byte* src = nullptr;  // nullptr: empty
  int64_t rs = 0, cs = 0, rows = 0, cols = 0;
  Im2colSource map;  // a column matrix's source (keep_im2col)
  std::vector<std::byte> data;
};

// Per-core scratch: one block per position sized from the placement, plus packed panels.
struct CoreArena {
  struct PackSlots {
    std::vector<PackedBlock> blocks;
    size_t next = 0;
  };
  std::vector<std::byte> mem[6];
  std::vector<PackSlots> packs;            // per buffer id
  std::vector<float> int8_map, int8_sums;  // the integer cube's widened map and k-chunk sums
  void reserve(const TileProgram& p);
};

// Runs the tiles of p that claim() hands out, in that order, on one core, until it returns a
// negative index. Packed blocks carry over between them (keyed by their GM view).
void run_tiles(const TileProgram& p, const Lowering& low, std::span<void* const> args,
               CoreArena& arena, const std::function<int64_t()>& claim);

// Runs tiles [begin, end) of p on one core.
inline void run_tiles(const TileProgram& p, const Lowering& low, std::span<void* const> args,
                      CoreArena& arena, int64_t begin, int64_t end) {
  run_tiles(p, low, args, arena, [&] { return begin < end ? begin++ : int64_t{-1}; });
}

}  // namespace asc::cpu

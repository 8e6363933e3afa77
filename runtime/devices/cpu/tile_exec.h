// Interpretation of one core's share of a TileProgram on the host (used by CpuDevice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "registry/tile_program.h"

namespace asc::cpu {

// Static lowering decisions for one launch, shared by every core.
struct Lowering {
  std::vector<bool> alias_in;   // per instr: copy-in may point at GM (full tiles)
  std::vector<bool> view_in;    // per instr: copy-in feeding load_l0 may be a strided GM view
  std::vector<int> alias_out;   // per buffer: index of the copy-out it may be written through
  bool mmad_direct = false;     // small-m matmul: skip packing, stream B
  std::vector<int> loop_end;    // per kLoopBegin: index of its kLoopEnd
  std::vector<int> loop_begin;  // per kLoopEnd: index of its kLoopBegin
};

Lowering lower(const TileProgram& p);

// Per-core scratch: one block per position sized from the placement, plus packing space.
struct CoreArena {
  std::vector<std::byte> mem[6];
  std::vector<std::vector<std::byte>> packs;  // per L0A/L0B buffer: packed panels
  void reserve(const TileProgram& p);
};

// Runs tiles [begin, end) of p on one core.
void run_tiles(const TileProgram& p, const Lowering& low, std::span<void* const> args,
               CoreArena& arena, int64_t begin, int64_t end);

}  // namespace asc::cpu

// The cpu device's per-tile buffer state and the mmad it runs (tile_exec.cpp,
// tile_exec_mmad.cpp). Internal to runtime/devices/cpu.
#pragma once

#include <cstddef>
#include <cstdint>

#include "registry/tile_program.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/im2col.h"
#include "runtime/devices/cpu/tile_exec.h"

namespace asc::cpu {

struct BufState {
  std::byte* ptr = nullptr;
  int64_t rs = 0, cs = 1;      // matrix view strides in elements
  int64_t rows = 0, cols = 0;  // valid matrix extent (mmad operands)
  bool packed = false;
  bool b_rows = false;           // an unpacked B view the mmad packs panel by panel
  int64_t panel_stride = 0;      // packed B pre-packed in GM: elements between its panels
  bool gm = false;               // a result written straight into its copy-out's GM box
  Im2colSource map;              // a feature-map box read by load_l0_im2col (map.gm: a GM view)
  const Im2col* lazy = nullptr;  // a column matrix not made: B is `map` through this geometry
  uint64_t uses = 0;             // copy-in count: selects the ping-pong slot
};

// c (+)= a x b for one kMmad: m x n of C (clamped to its GM box when written there), acc when
// the product accumulates; picks the GEMM path from the operands' forms (packed, pre-packed
// panels, GM views, a column matrix read from its map, the integer cube). `ep` (may be null) is
// handed to the product that can apply it instead of storing C (gemm.h's RowEpilogue).
void mmad_product(const TileProgram& p, const Instr& in, BufState& c, const BufState& a,
                  const BufState& b, int64_t m, int64_t n, bool acc, CoreArena& arena,
                  RowEpilogue* ep = nullptr);

}  // namespace asc::cpu

// Row chains: a run of elementwise vector instructions over one tile-sized result (a matmul or
// convolution epilogue: bias, residual, activation; a fused elementwise body) that the cpu runs
// strip by strip, each strip through every instruction while it is in L1, instead of each
// instruction over the whole tile. Found once per program (tile_lower.cpp); the instructions of
// a chain that are not over the tile (copy-ins, the bias cast) run first, whole.
#pragma once

#include <cstdint>
#include <vector>

#include "registry/tile_program.h"
#include "runtime/devices/cpu/gemm.h"

namespace asc::cpu {

struct BufState;  // tile_state.h

struct RowChain {
  int begin = 0, end = 0;    // instructions [begin, end]
  int64_t n = 0;             // elements of the tile-sized buffers
  int64_t cols = 0;          // their rows' length (the last dim)
  std::vector<int> row_ops;  // the instructions over the tile, in order; the rest run first
  // No result is read outside the chain but the last one's, by its copy-out: the strips may stop
  // at that copy-out's valid rows and columns (a partial tile written straight into GM).
  bool closed = false;
};

// The chains of p, at most one starting at each instruction (chain_at: index into the result
// or -1); none includes an instruction marked in `skip` (or the one after it). A chain has at least
// one tile-sized instruction (the caller keeps a single one only where it writes straight into GM),
// no loop boundary, and buffers whose placements are equal or disjoint (so interleaving the
// instructions' strips reads no value a later instruction overwrote).
std::vector<RowChain> find_row_chains(const TileProgram& p, const std::vector<bool>& skip,
                                      std::vector<int>& chain_at);

// Chain c as a RowEpilogue over buffer `cb` (an mmad's C), its buffers bound (st, as for
// run_row_chain): y = relu | clip | nothing of (cb + a bias per row | cb). False where c is not
// closed or not of that form.
bool row_epilogue(const TileProgram& p, const RowChain& c, const std::vector<BufState>& st, int cb,
                  RowEpilogue& ep);

// Runs the tile-sized instructions of `c` strip by strip; their results are bound (st[].ptr;
// st[].gm with row stride st[].rs and valid st[].rows x st[].cols for one written straight into
// GM: a closed chain's strips stop there).
void run_row_chain(const TileProgram& p, const RowChain& c, const std::vector<BufState>& st);

}  // namespace asc::cpu

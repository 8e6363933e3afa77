// Passes over a traced TileProgram: double buffering, L1 prefetch, padded local rows,
// liveness-based placement with reuse and alignment, and the capacity check against a DeviceSpec.
// docs/DSL.md explains them.
#pragma once

#include <vector>

#include "registry/device_spec.h"
#include "registry/tile_program.h"

namespace asc {

// Live range of every buffer in instruction indices; [-1, -1] when never touched.
struct Liveness {
  std::vector<int> first;
  std::vector<int> last;
};

// Loops extend live ranges: a buffer live across a loop boundary, or read before written inside
// a loop body (a loop-carried accumulator), is live for the whole loop.
Liveness analyze_liveness(const TileProgram& p);

// optimize: copy-in buffers get two ping-pong slots (the copy-in of tile i+1 overlaps compute of
// tile i) and copy-ins into L1 inside a loop prefetch the next iteration's block.
void double_buffer(TileProgram& p, bool optimize);

// Padded local rows (spec.aligned_rows): UB buffers hold rows of R elements at a pitch of R
// rounded up to G, G = spec.block_bytes over the narrowest UB element size of the program, so
// equal rows get equal pitches whatever the dtype. The buffers an elementwise instruction
// combines share R: the greatest common divisor of their innermost extents ([2, 42] with
// [14, 6]: rows of 6). R a multiple of G, or a class with an L0C member: dense. The operands of
// a comparison are allocated in whole spec.repeat_bytes repeats (BufferDecl::round).
void pad_rows(TileProgram& p, const DeviceSpec& spec);

// Whole fractals (spec.fractal_layout): every L1/L0A/L0B/L0C matrix is allocated with its rows
// padded to spec.fractal and its columns to a whole fractal row (spec.fractal, or the 32-byte C0
// of a narrower type), so the cube's Nz/zZ/nZ layouts hold it with zero padding. Programs with
// Load3D or pre-packed panels keep their buffers as they are.
void pad_fractals(TileProgram& p, const DeviceSpec& spec);

// Assigns each buffer an offset in its position: first-fit over live ranges, starts aligned to
// spec.alignment(pos) (32 B in UB/L1, 512 B in L0A/L0B, 1 KiB in L0C); a dead operand's space
// may be taken in place by an elementwise result of the same size. Lays out the rows first
// (pad_rows). Fills p.placement.
void place_buffers(TileProgram& p, const DeviceSpec& spec);

// Throws CapacityError naming the op, the position, the buffer that overflows, the bytes needed
// and the bytes available.
void check_capacity(const TileProgram& p, const DeviceSpec& spec);

// All of the above in order.
void run_passes(TileProgram& p, const DeviceSpec& spec, bool optimize);

// True when the placed program fits every local memory of spec.
bool fits(const TileProgram& p, const DeviceSpec& spec);

}  // namespace asc

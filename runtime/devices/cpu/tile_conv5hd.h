// The cpu's form of a convolution tile over NC1HWC0 maps (FusedConv5HD's program,
// ops/fused_conv_5hd.cpp): where a program is that shape — per K step a map copy-in read by
// load_l0_im2col (c0 16) into L0A, pre-packed weight panels into L0B, one mmad; then at most a
// bias per column, a residual tile read through its 5HD box, ReLU or Clip; one copy-out through a
// 5HD box — the tile is one conv5hd_f32 call (conv_5hd.h) over all of K with the epilogue in its
// registers, writing Y where it lies: no column matrix, no C, no second pass over the tile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "registry/tile_program.h"

namespace asc::cpu {

struct Conv5hdLowering {
  bool on = false;
  int x_in = -1, w_in = -1, im2col = -1;  // the K step's copy-ins and Load3D
  int bias_in = -1, z_in = -1, out = -1;  // the epilogue's copy-ins and the copy-out (-1: none)
  uint8_t act = 0;                        // Epilogue5hd::Act
  float lo = 0.f, hi = 0.f;
};

// The form of `p`, or `on` false where p is not that shape.
Conv5hdLowering lower_conv5hd(const TileProgram& p);

// Runs the tile at `vars` (grid coordinates; loop counters are set to 0); false, writing nothing,
// where this tile cannot take the kernel (or the cpu has none: no AVX-512).
bool run_conv5hd_tile(const TileProgram& p, const Conv5hdLowering& l, int64_t* vars,
                      std::span<void* const> args);

}  // namespace asc::cpu

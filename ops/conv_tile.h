// Conv's tile kernel on the cube unit, shared by Conv (ops/conv.cpp) and the fused convolutions
// (ops/fused_conv.cpp): the geometry, the tiling and the K loop of one output tile.
// Only ops/conv*.cpp, ops/fused*.cpp and ops/pool_tile.cpp (the pools' windows) include this.
#pragma once

#include "ops/nn.h"
#include "registry/dsl.h"

namespace asc {

// A convolution as the product Y_g[M/G, P] = W_g[M/G, K] x cols(X_g)[K, P] per image and group:
// X [N, C, D, H, W], W [M, C/G, kD, kH, kW], Y [N, M, OD, OH, OW] (1-D and 2-D padded to three
// spatial dims with leading 1s), K = C/G * kD * kH * kW over (c, kd, kh, kw), P = OD * OH * OW.
struct ConvGeom {
  Geom3 w;  // window: in/out/k/s/d/pads per spatial dim
  int64_t n = 0, c = 0, m = 0, group = 1;
  // A 1x1 window with unit strides and no pads, flattened to one spatial dim: the product's B is
  // X_g itself (load_l0 of a [channels, positions] box, no column matrix).
  bool pointwise = false;
  // W stored pre-packed (FusedConv's `panel` > 0): per group, panels of `panel` output channels
  // over all of K rounded up to k_pack (gemm.h's A layout): Wp [G, ceil(M/G / panel), KP * panel].
  int64_t panel = 0, k_pack = 1;
  // W block diagonal (FusedConv's `diag`): output channel i of a group reads only input channel
  // i, so row i of W_g is zero outside K columns [i * window, (i + 1) * window).
  bool diag = false;
  // Elements each packed panel's row carries after its KP * panel (FusedConv's `tail`).
  int64_t tail = 0;
  // The integer form (ConvInteger, QLinearConv): X and W of i8/u8 at inputs x_arg and w_arg,
  // their zero points at xz_arg / wz_arg (-1: none; W's one or one per output channel), the
  // accumulator i32 (the integer cube: docs/DSL.md).
  bool ints = false;
  int x_arg = 0, w_arg = 1, xz_arg = -1, wz_arg = -1;
  // ConvTranspose (ops/conv_transpose.cpp): prod(phase) stride-1 convolutions, one per output
  // phase (o = phase * q + r per spatial dim, phase = the strides); grid axes 6..8 walk r.
  bool transposed = false;
  int64_t phase[3] = {1, 1, 1};
  int64_t phases() const { return phase[0] * phase[1] * phase[2]; }
  int64_t kp() const { return (k() + k_pack - 1) / k_pack * k_pack; }
  int64_t panels() const { return panel > 0 ? (mg() + panel - 1) / panel : 0; }
  int64_t panel_row() const { return kp() * panel + tail; }  // a packed panel's elements
  // One input and one output channel per group.
  bool depthwise() const { return group == c && group == m && group > 1; }
  // The vector unit's form (ops/conv_depthwise.cpp): depthwise, W as it is, and a window of at
  // most kMaxVectorTaps offsets (each is an unrolled copy-in; larger windows take the cube).
  static constexpr int64_t kMaxVectorTaps = 64;
  bool vector_form() const {
    return depthwise() && panel == 0 && !ints && !transposed && window() <= kMaxVectorTaps;
  }
  int64_t cg() const { return c / group; }
  int64_t mg() const { return m / group; }
  int64_t window() const { return w.k_size(); }
  int64_t k() const { return cg() * window(); }
};
// From the launch's X and W (inputs 0 and 1) and the Conv attributes (FusedConv's: W's own
// shape in `w_shape` when it is stored packed); ShapeError on misuse.
ConvGeom conv_geom(const LaunchContext& ctx);
// The integer form: X, W and their zero points at the given inputs (-1: none); ShapeError when a
// zero point is neither one value nor (W's) one per output channel.
ConvGeom conv_geom_int(const LaunchContext& ctx, int x_arg, int w_arg, int xz_arg, int wz_arg);

// C0 = 32 / sizeof(T) when a K step lays its map and weight block out for Load3D (a
// fractal-layout spec: Ascend's Load3D reads NC1HWC0 maps, ops/conv_tile.cpp), else 1.
int64_t relayout_c0(const LaunchContext& ctx, const ConvGeom& g);
// The channels a K step's count is a multiple of under that relayout: whole C0 blocks whose K
// (channels x window) is whole 16-row fractals.
int64_t relayout_channels(const ConvGeom& g, int64_t c0);

// Tile sizes TM (output channels), TC (input channels per K step), TOH x TOW (output positions:
// whole rows, or part of one row when TOH = 1), the grid [N, G, M/G tiles, OD, OH tiles,
// OW tiles] (+ the phases of a transposed geometry) and block_dim. `epilogue_ub`: UB bytes per
// output element the epilogue needs.
TilingData conv_tiling(const LaunchContext& ctx, const ConvGeom& g, int64_t epilogue_ub);

// One output tile: c (L0C, f32 [TM, TOH * TOW]; i32 for the integer form) = W_g[m0 : +TM, :] x
// cols(X[n, g])[:, tile], X and W being inputs 0 and 1.
struct ConvTile {
  Buf c;
  Coord m0;
  int64_t tm = 0, positions = 0;
};
ConvTile conv_accumulate(TileBuilder& t, const ConvGeom& g);
// The tile's box of Y [N, G, M/G, OD, OH, OW], rows m and columns the tile's positions.
GmBox conv_out_box(TileBuilder& t, const ConvGeom& g, const ConvTile& tile);
// y = c + bias (input 2 when given: one value per output channel, along the tile's rows).
Buf conv_bias(TileBuilder& t, const ConvGeom& g, const ConvTile& tile);

// The depthwise form (ops/conv_depthwise.cpp): blocks of TC channels on the group axis, the
// f32 accumulator in UB. conv_tiling and conv_accumulate take it for a depthwise() geometry.
TilingData depthwise_tiling(const LaunchContext& ctx, const ConvGeom& g, int64_t epilogue_ub);
ConvTile depthwise_accumulate(TileBuilder& t, const ConvGeom& g);
// The box of X [N, C, D, H, W] that window offset (a, b, e) reads for the tile's TC channels and
// TOH x TOW outputs (steps of the strides; the pads outside X), on the depthwise tiling's grid.
GmBox window_tap_box(TileBuilder& t, const ConvGeom& g, int64_t a, int64_t b, int64_t e);

}  // namespace asc

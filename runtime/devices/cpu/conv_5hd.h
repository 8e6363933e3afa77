// The cpu kernel of a convolution on NC1HWC0 ("5HD") feature maps: a map [N, C, H, W] stored
// [N, C1 = ceil(C / 16), H, W, 16], channels past C zero, read and written with the 16 channels of
// a block in the vector lanes (as ONNX Runtime's NCHWc direct convolution runs). The output is
// 5HD again; the epilogue (bias, residual, activation) is applied in registers.
//
// Packed weights (conv5hd_pack): panels of kConv5hdPanel output channels, panel q at
// q * conv5hd_panel_stride(c, window), each a [c * window, kConv5hdPanel] row-major matrix whose
// row for input channel ci = 16 * c1 + c0 and tap t (kernel offset (a, b, e), row-major) is
//   c1 * window * 16 + t * lanes(c1) + c0,   lanes(c1) = min(16, c - 16 * c1):
// K ordered (c1, t, c0) like the column matrix of the 5HD box, but the last channel block holds
// only its c - 16 * (C1 - 1) real channels (the map's padded lanes are zero and never multiplied:
// a 3-channel stem runs 3 lanes, not 16). Columns past the weight's m are zero.
#pragma once

#include <cstdint>

#include "registry/tile_program.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu {

constexpr int64_t kConv5hdC0 = 16;     // channels per block (the vector lanes)
constexpr int64_t kConv5hdPanel = 64;  // output channels per packed weight panel

// Elements between two panels of the packed form of a weight of c input channels.
inline int64_t conv5hd_panel_stride(int64_t c, int64_t window) {
  return c * window * kConv5hdPanel;
}

// Elements of the packed form of a conv weight W [m, c, kD, kH, kW] (window = kD * kH * kW).
inline int64_t conv5hd_packed_elems(int64_t m, int64_t c, int64_t window) {
  return (m + kConv5hdPanel - 1) / kConv5hdPanel * conv5hd_panel_stride(c, window);
}

// Packs W [m, c, window] (f32, ONNX's OIHW) into dst (conv5hd_packed_elems floats; the layout
// above, zero past m).
void conv5hd_pack(const float* w, int64_t m, int64_t c, int64_t window, float* dst);

// What conv5hd_f32 applies to the sums as they leave the registers (no second pass over y).
struct Epilogue5hd {
  enum Act : uint8_t { kNone, kRelu, kClip };
  const float* bias = nullptr;  // m values, the tile's channels; null: none
  const float* z = nullptr;     // a residual in y's layout (z_m1, z_row); null: none
  int64_t z_m1 = 0, z_row = 0;
  Act act = kNone;
  float lo = 0.f, hi = 0.f;  // kClip's bounds. Relu and Clip keep NaN as NaN.
};

// y (+)= the convolution of a tile, then y = act(y + bias + z) where `ep` is given:
//   src: the input box [C1, D, H, W] x 16 lanes: element (c1, d, h, w, c0) at the f32 element
//        src.base + c1 * stride[0] + d * stride[1] + h * stride[2] + w * stride[3] + c0 of
//        src.gm; c1 is the absolute channel block (the K block of the weight), and elements
//        outside [lo[j], hi[j]) per dim are padding: zero, never read.
//   g: the window (g.k, g.s, g.d) and the tile's output positions g.out (D = 1 only:
//      g.k[0] = g.out[0] = 1); position (oh, ow) reads box element
//      (c1, 0, oh * s[1] + b * d[1], ow * s[2] + e * d[2], c0) for tap (b, e).
//   w: panel 0 of the tile's packed weights (rows of every c1 block, from block 0 on: the layout
//      above); panel q at w + q * panel_stride.
//   c: the weight's input channels (lanes of the last block: c - 16 * (C1 - 1)).
//   m: the tile's output channels, a multiple of 16 (the last panel may be partial).
//   kc0, kc1: the c1 blocks [kc0, kc1) of K this call covers (K split over calls).
//   y: output channel j of position (oh, ow) at y[(j / 16) * y_m1 + oh * y_row + ow * 16 + j % 16].
//   accumulate: add to y (a partial sum of earlier K blocks) instead of overwriting it.
//   ep: null, or the epilogue, given only with the call of the last K blocks.
// false, doing nothing, without AVX-512 or where unsupported (D > 1, m not a multiple of 16).
bool conv5hd_f32(const Im2colSource& src, const Im2col& g, const float* w, int64_t panel_stride,
                 int64_t c, int64_t m, int64_t kc0, int64_t kc1, float* y, int64_t y_m1,
                 int64_t y_row, bool accumulate, const Epilogue5hd* ep);

}  // namespace asc::cpu

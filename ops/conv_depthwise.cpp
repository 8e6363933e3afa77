// A depthwise convolution (one input channel per group, one output channel per group) on the
// vector unit: each kernel offset is a shifted (strided) box of the feature map copied into UB
// (zeros in the pads), multiplied by that offset's weight per channel and summed into an f32
// accumulator — no column matrix, which the cube would multiply one channel row at a time.
//
//   acc (UB f32 [TC, TOH * TOW]) = 0
//   for each kernel offset (a, b, e):                      (unrolled: each box its own offsets)
//     xt (UB [TC, TOH, TOW]) = X[n, c0 : +TC, od*sD - pD + a*dD,
//                                (oh0 : +TOH)*sH - pH + b*dH, (ow0 : +TOW)*sW - pW + e*dW]
//     wt (UB [TC, TOH]) = W[c0 : +TC, 0, a, b, e], repeated per row
//     acc += xt * wt                                       (per channel and row, along the row)
// The tile's grid is Conv's, its group axis walking blocks of TC channels (ops/conv_tile.h).
#include <algorithm>

#include "ops/conv_tile.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

constexpr int kAxisN = 0, kAxisG = 1, kAxisD = 3, kAxisH = 4, kAxisW = 5;

std::vector<int64_t> pieces(int64_t extent) {
  std::vector<int64_t> s;
  for (int64_t t = 1;; t = t < 16 ? t + 1 : t * 3 / 2) {
    const int64_t sz = ceil_div(std::max<int64_t>(extent, 1), t);
    if (s.empty() || sz < s.back()) s.push_back(sz);
    if (sz <= 1) break;
  }
  return s;
}

TilingData make_tiling(const ConvGeom& g, int64_t tc, int64_t toh, int64_t tow, int64_t cores) {
  TilingData t;
  t.grid = {g.n,
            ceil_div(std::max<int64_t>(g.c, 1), tc),
            1,
            g.w.out[0],
            ceil_div(g.w.out[1], toh),
            ceil_div(g.w.out[2], tow)};
  t.params = {{"TM", tc}, {"TC", tc}, {"TOH", toh}, {"TOW", tow}};
  t.block_dim = std::clamp<int64_t>(numel(t.grid), 1, cores);
  return t;
}

// ceil(a / b) for b > 0 and any a.
int64_t ceil_div_signed(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// The box dim of input index i * s + off for output index i of a tile of `size` along grid axis
// `axis` (extent n, element stride `elem`): in steps of s, so the clamp sees the map's edges.
// Step j of the box reads index (j + q) * s + off, q the first step inside the map; the part of
// that offset which is no whole step goes into the box's offset.
BoxDim strided_dim(int64_t& offset, int64_t n, int64_t s, int64_t elem, int axis, int64_t size,
                   int64_t off) {
  const int64_t q = ceil_div_signed(-off, s);  // (j + q) * s + off >= 0 from step j = 0 on
  offset += (q * s + off) * elem;
  return BoxDim{ceil_div_signed(n - off, s) - q, s * elem, Coord{axis, size, -q}, size};
}

}  // namespace

TilingData depthwise_tiling(const LaunchContext& ctx, const ConvGeom& g, int64_t epilogue_ub) {
  const int64_t cores = std::max(1, ctx.spec->vector_cores);
  const int64_t oh = g.w.out[1], ow = g.w.out[2];
  if (g.n == 0 || g.c == 0 || g.w.out[0] * oh * ow == 0)
    return make_tiling(g, std::max<int64_t>(g.c, 1), std::max<int64_t>(oh, 1),
                       std::max<int64_t>(ow, 1), cores);
  const int64_t es = static_cast<int64_t>(dtype_size(ctx.inputs[0].dtype));
  const int64_t taps = g.window(), slots = ctx.optimize ? 2 : 1;
  // Per element of a tile: every offset's copy-in (its slots), the f32 product and accumulator.
  const int64_t per_elem = taps * slots * es + 8 + epilogue_ub;
  std::vector<std::pair<int64_t, int64_t>> spatial;
  for (int64_t toh : pieces(oh)) spatial.push_back({toh, ow});
  for (int64_t tow : pieces(ow))
    if (tow < ow) spatial.push_back({1, tow});
  struct Scored {
    double cost;
    int64_t tc, toh, tow;
  };
  std::vector<Scored> cands;
  for (int64_t tc : pieces(g.c))
    for (auto [toh, tow] : spatial) {
      const int64_t elems = tc * toh * tow;
      if (elems * per_elem > ctx.spec->ub_bytes) continue;
      const int64_t tiles =
          g.n * ceil_div(g.c, tc) * g.w.out[0] * ceil_div(oh, toh) * ceil_div(ow, tow);
      // Vector work per tile plus a fixed cost per instruction issued (one per offset and row).
      const double per_tile =
          static_cast<double>(elems * taps * 3) + 256.0 * static_cast<double>(taps * 4 + tc);
      cands.push_back({static_cast<double>(ceil_div(tiles, cores)) * per_tile, tc, toh, tow});
    }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
  std::vector<TilingData> list;
  for (const Scored& s : cands) list.push_back(make_tiling(g, s.tc, s.toh, s.tow, cores));
  if (list.empty()) list.push_back(make_tiling(g, 1, 1, 1, cores));
  return auto_tiling(ctx, list);
}

GmBox window_tap_box(TileBuilder& t, const ConvGeom& g, int64_t a, int64_t b, int64_t e) {
  const int64_t tc = t.param("TC"), toh = t.param("TOH"), tow = t.param("TOW");
  const Geom3& w = g.w;
  const int64_t plane = w.in[0] * w.in[1] * w.in[2];
  GmBox x;
  x.dims = {
      BoxDim{g.n, g.c * plane, t.grid(kAxisN), 1},
      BoxDim{g.c, plane, t.grid(kAxisG, tc), tc},
      BoxDim{w.in[0], w.in[1] * w.in[2], Coord{kAxisD, w.s[0], a * w.d[0] - w.pb[0]}, 1},
      strided_dim(x.offset, w.in[1], w.s[1], w.in[2], kAxisH, toh, b * w.d[1] - w.pb[1]),
      strided_dim(x.offset, w.in[2], w.s[2], 1, kAxisW, tow, e * w.d[2] - w.pb[2]),
  };
  return x;
}

ConvTile depthwise_accumulate(TileBuilder& t, const ConvGeom& g) {
  const int64_t tc = t.param("TC"), toh = t.param("TOH"), tow = t.param("TOW");
  const Geom3& w = g.w;
  const int64_t taps = g.window();
  ConvTile r{Buf{}, t.grid(kAxisG, tc), tc, toh * tow};
  r.c = t.duplicate(DType::kF32, {tc, r.positions}, 0.0);
  for (int64_t a = 0; a < w.k[0]; ++a)
    for (int64_t b = 0; b < w.k[1]; ++b)
      for (int64_t e = 0; e < w.k[2]; ++e) {
        const GmBox x = window_tap_box(t, g, a, b, e);
        const int64_t tap = (a * w.k[1] + b) * w.k[2] + e;
        // The offset's weight per channel, repeated for each of the tile's rows (stride 0): the
        // product then broadcasts it along the rows' last dim.
        GmBox wb;
        wb.dims = {BoxDim{g.c, taps, r.m0, tc}, BoxDim{taps, 1, Coord{-1, 0, tap}, 1},
                   BoxDim{toh, 0, Coord{}, toh}};
        Buf xt = t.cast(t.copy_in(0, x, Pos::kUB, "xt"), DType::kF32);
        Buf wt = t.cast(t.copy_in(1, wb, Pos::kUB, "wt"), DType::kF32);
        const int last = static_cast<int>(t.dims(xt).size()) - 1;  // [1, TC, 1, TOH, TOW]
        t.accumulate(BinaryOp::kAdd, r.c, t.bcast_mid(BinaryOp::kMul, xt, wt, last));
      }
  return r;
}

}  // namespace asc

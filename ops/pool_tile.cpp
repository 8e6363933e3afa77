// MaxPool, AveragePool and LpPool as tile kernels on the vector unit, a depthwise conv without
// weights (ops/conv_depthwise.cpp): each window offset is a strided box of X (window_tap_box;
// MaxPool's pads read as the dtype's lowest value, the others' as 0) combined into an f32
// accumulator:
//   acc (UB f32 [TC, TOH * TOW]) = lowest | 0
//   for each window offset (a, b, e):  acc = max(acc, xt) | acc += xt | acc += |xt|^p
//   AveragePool: acc *= 1 / window size;  LpPool: acc = acc^(1/p)
//   -> Y[n, c0 : +TC, od, oh0 : +TOH, ow0 : +TOW]
// LpPool's pads add |0|^p = 0, as the taps the host kernel skips. p = 1 and 2 take Abs / Square
// and Sqrt, other p PowScalar (Ascend's Power). pool_ops.cpp registers them beside the host
// kernels, which keep what this does not cover (pool_tile_covers): Indices, f64, windows of
// padding only, averages whose count varies, p <= 0, windows of more than
// ConvGeom::kMaxVectorTaps offsets.
#include <cmath>
#include <limits>

#include "ops/conv_tile.h"
#include "ops/nn_pool.h"

namespace asc {
namespace {

// Whether every window of dim i has a tap inside X.
bool windows_reach_x(const Geom3& g, int i) {
  for (int64_t o = 0; o < g.out[i]; ++o) {
    const int64_t start = o * g.s[i] - g.pb[i];
    const int64_t first = start >= 0 ? 0 : (-start + g.d[i] - 1) / g.d[i];  // first tap >= 0
    if (first >= g.k[i] || start + first * g.d[i] >= g.in[i]) return false;
  }
  return true;
}

double lowest(DType t) {
  switch (t) {
    case DType::kI8:
      return std::numeric_limits<int8_t>::lowest();
    case DType::kU8:
      return 0;
    default:
      return -std::numeric_limits<double>::infinity();
  }
}

}  // namespace

double pool_p(int since, const Attrs& a) {
  return since == 1 ? double(a.f("p")) : double(a.i("p"));
}

Buf lp_power(TileBuilder& t, Buf x, double p) {
  if (p == 2) return t.unary(UnaryOp::kSquare, x);
  Buf ax = t.unary(UnaryOp::kAbs, x);
  return p == 1 ? ax : t.unary(UnaryOp::kPowScalar, ax, static_cast<float>(p));
}

Buf lp_root(TileBuilder& t, Buf s, double p) {
  if (p == 1) return s;
  if (p == 2) return sqrt(s);
  return t.unary(UnaryOp::kPowScalar, s, static_cast<float>(1.0 / p));
}

ConvGeom pool_geom(const PoolVersion& v, const LaunchContext& ctx) {
  const Shape& x = ctx.inputs.at(0).shape;
  ConvGeom g;
  g.w = geom3(pool_window(v, ctx.attr(), x));
  g.n = x[0];
  g.c = g.m = g.group = x[1];
  return g;
}

bool pool_tile_covers(const PoolVersion& v, const Attrs& a, std::span<const TensorDesc> in,
                      std::span<const TensorDesc> out) {
  if (in.empty() || in[0].dtype == DType::kF64 || in[0].shape.size() < 3) return false;
  if (v.kind == PoolKind::kLp && !(pool_p(v.since, a) > 0)) return false;
  const Geom3 g = geom3(pool_window(v, a, in[0].shape));
  if (g.k_size() > ConvGeom::kMaxVectorTaps) return false;  // each offset an unrolled copy-in
  if (v.kind == PoolKind::kMax) {
    if (out.size() > 1 && out[1].dtype != DType::kUndefined) return false;  // Indices
    for (int i = 0; i < 3; ++i)
      if (!windows_reach_x(g, i)) return false;  // (a window of padding only gives 0)
    return true;
  }
  if (v.kind == PoolKind::kLp) return true;  // pads and windows of padding only add 0
  // AveragePool: the same count for every output (the window size).
  const bool include_pad = v.since >= 7 && a.i("count_include_pad") != 0;
  for (int i = 0; i < 3; ++i) {
    const int64_t end = (g.out[i] - 1) * g.s[i] + (g.k[i] - 1) * g.d[i] + 1;  // of the last
    if (include_pad ? end > g.in[i] + g.pb[i] + g.pe[i] : g.pb[i] != 0 || end > g.in[i])
      return false;
  }
  return true;
}

TilingData pool_tiling(const PoolVersion& v, const LaunchContext& ctx) {
  return depthwise_tiling(ctx, pool_geom(v, ctx), 0);
}

void pool_tile_kernel(const PoolVersion& v, TileBuilder& t) {
  const ConvGeom g = pool_geom(v, t.ctx());
  const int64_t tc = t.param("TC"), toh = t.param("TOH"), tow = t.param("TOW");
  const bool max = v.kind == PoolKind::kMax, lp = v.kind == PoolKind::kLp;
  const double p = lp ? pool_p(v.since, t.ctx().attr()) : 1.0;
  const DType dt = t.ctx().inputs[0].dtype;
  Buf acc = t.duplicate(DType::kF32, {tc, toh * tow}, max ? lowest(dt) : 0.0);
  for (int64_t a = 0; a < g.w.k[0]; ++a)
    for (int64_t b = 0; b < g.w.k[1]; ++b)
      for (int64_t e = 0; e < g.w.k[2]; ++e) {
        GmBox x = window_tap_box(t, g, a, b, e);
        x.fill = max ? lowest(dt) : 0.0;
        Buf xt = t.cast(t.copy_in(0, x, Pos::kUB, "xt"), DType::kF32);
        t.accumulate(max ? BinaryOp::kMax : BinaryOp::kAdd, acc, lp ? lp_power(t, xt, p) : xt);
      }
  if (v.kind == PoolKind::kAvg) acc = acc * (1.0 / static_cast<double>(g.window()));
  if (lp) acc = lp_root(t, acc, p);
  const Geom3& w = g.w;
  const int64_t plane = w.out[0] * w.out[1] * w.out[2];
  GmBox y;
  y.dims = {BoxDim{g.n, g.c * plane, t.grid(0), 1}, BoxDim{g.c, plane, t.grid(1, tc), tc},
            BoxDim{w.out[0], w.out[1] * w.out[2], t.grid(3), 1},
            BoxDim{w.out[1], w.out[2], t.grid(4, toh), toh},
            BoxDim{w.out[2], 1, t.grid(5, tow), tow}};
  t.copy_out(0, acc, y);
}

}  // namespace asc

// Conv on the cube unit, the way Ascend convolves (ops/conv_tile.h): per tile and K step the
// feature map's box is copied into L1 (the pads as zeros: the box starts before the map), Load3D
// (load_l0_im2col) expands it into the column matrix in L0B, the weight block goes to L0A, and
// mmad accumulates the [output channels, positions] product in L0C, which is Y's NCHW layout.
//
// A pointwise conv (1x1, unit strides, no pads) is that product with X_g's [channels, positions]
// box loaded as it is (load_l0). Under a fractal-layout spec (relayout_c0 below) the product is
// Y^T instead: Load3D's feature map in L0A times W^T's K rows in L0B, both laid out by the vector
// unit, and Y^T transposed back after the K loop.
//
//   c (L0C, f32 [TM, TOH * TOW])
//   for cb in [0, ceil(C/G / TC)):
//     x1 (L1) = X[n, g, cb*TC : +TC, od*sD - pD : +kD', oh0*sH - pH : +TIH, ow0*sW - pW : +TIW]
//     w1 (L1) = W[g, m0 : +TM, cb*TC*win : +TC*win]
//     c += load_l0(w1, L0A) x load_l0_im2col(x1, L0B)
//   (epilogue) -> Y[n, g, m0 : +TM, od, oh0 : +TOH, ow0 : +TOW]
// kD', TIH, TIW are the extents the windows of the tile's outputs read (Im2col::span).
#include "ops/conv_tile.h"

#include <algorithm>
#include <numeric>

#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t round_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}

// Grid axes.
constexpr int kAxisN = 0, kAxisG = 1, kAxisM = 2, kAxisD = 3, kAxisH = 4, kAxisW = 5;

struct Sizes {
  int64_t tm, tc, toh, tow;
};

TilingData make_tiling(const ConvGeom& g, const Sizes& s, int64_t cores) {
  TilingData t;
  t.grid = {g.n,
            g.group,
            ceil_div(std::max<int64_t>(g.mg(), 1), s.tm),
            g.w.out[0],
            ceil_div(g.w.out[1], s.toh),
            ceil_div(g.w.out[2], s.tow)};
  if (g.transposed) t.grid.insert(t.grid.end(), g.phase, g.phase + 3);
  t.params = {{"TM", s.tm}, {"TC", s.tc}, {"TOH", s.toh}, {"TOW", s.tow}};
  t.block_dim = std::clamp<int64_t>(numel(t.grid), 1, cores);
  return t;
}

// Pieces of `extent` cut into t = 1, 2, .. parts (each a multiple of align), largest first.
std::vector<int64_t> pieces(int64_t extent, int64_t align) {
  std::vector<int64_t> s;
  for (int64_t t = 1;; t = t < 16 ? t + 1 : t * 3 / 2) {
    const int64_t sz = round_up(ceil_div(std::max<int64_t>(extent, 1), t), align);
    if (s.empty() || sz < s.back()) s.push_back(sz);
    if (sz <= align) break;
  }
  return s;
}

Im2col im2col_of(const ConvGeom& g, int64_t toh, int64_t tow) {
  Im2col c;
  for (int j = 0; j < 3; ++j) {
    c.k[j] = g.w.k[j];
    c.s[j] = g.w.s[j];
    c.d[j] = g.w.d[j];
  }
  c.out[0] = 1;
  c.out[1] = toh;
  c.out[2] = tow;
  return c;
}

// The columns a tile of tp positions costs the host's micro-kernels: panels in steps of 16 lanes,
// the last few (up to 11) past a multiple of 16 on a kernel of their own at ~3/4 of the rate
// (gemm_fill_avx512.cpp, tail_cols).
double host_columns(int64_t tp) {
  const int64_t tail = tp % 16;
  if (tail == 0 || tail > 11) return static_cast<double>(round_up(tp, 16));
  return static_cast<double>(tp - tail) + static_cast<double>(tail) * 4.0 / 3.0;
}

}  // namespace

namespace {

ConvGeom geom_of(const LaunchContext& ctx, int x_arg, int w_arg) {
  const Attrs& a = ctx.attr();
  const bool packed = a.has("panel") && a.i("panel") > 0;
  const Shape& xs = ctx.inputs.at(x_arg).shape;
  const Shape ws = packed ? Shape(a.ints("w_shape")) : ctx.inputs.at(w_arg).shape;
  if (ws.size() != xs.size())
    throw ShapeError(cat("Conv: W ", to_string(ws), " and X ", to_string(xs), " differ in rank"));
  ConvGeom g;
  g.w = geom3(conv_window("Conv", ctx.attr(), xs, ws));
  g.n = xs[0];
  g.c = xs[1];
  g.m = ws[0];
  g.group = ctx.attr().i("group");
  if (packed) {
    g.panel = a.i("panel");
    g.k_pack = a.i("k_pack");
    g.diag = a.i("diag", 0) > 0;
    g.tail = a.i("tail", 0);
    const Shape want{g.group, g.panels(), g.panel_row()};
    if (g.k_pack < 1 || ctx.inputs[1].shape != want)
      throw ShapeError(cat("FusedConv: packed W ", to_string(ctx.inputs[1].shape), " is not the ",
                           to_string(want), " of a ", to_string(ws), " weight in panels of ",
                           g.panel, " (k_pack ", g.k_pack, ")"));
  }
  g.pointwise = true;
  for (int j = 0; j < 3; ++j)
    g.pointwise = g.pointwise && g.w.k[j] == 1 && g.w.s[j] == 1 && g.w.pb[j] == 0 &&
                  g.w.pe[j] == 0 && g.w.in[j] == g.w.out[j];
  if (g.pointwise) {
    const int64_t p = g.w.in[0] * g.w.in[1] * g.w.in[2];
    g.w.in[0] = g.w.in[1] = g.w.out[0] = g.w.out[1] = 1;
    g.w.in[2] = g.w.out[2] = p;
  }
  if (g.group < 1 || g.c % g.group != 0 || g.m % g.group != 0 || ws[1] != g.cg())
    throw ShapeError(cat("Conv: X ", to_string(xs), ", W ", to_string(ws), " and group ", g.group,
                         " do not agree"));
  return g;
}

bool given(const LaunchContext& ctx, int i) {
  return i >= 0 && static_cast<size_t>(i) < ctx.inputs.size() &&
         ctx.inputs[static_cast<size_t>(i)].dtype != DType::kUndefined;
}

}  // namespace

// On a device whose cube reads fractal layouts (Ascend's Load3D takes NC1HWC0 maps only, into
// L0A as the feature map), the vector unit lays each K step's map and weight block out for it:
// channels in blocks of C0 = 32 / sizeof(T), the map's [C1, C0, D, H, W] transposed into
// NC1HWC0's [C1, D, H, W, C0] and the weight's [TM, C1, C0, window] gathered into W^T's K rows
// [(c1, window, c0), TM], Load3D's K order; a K step holds whole C0 blocks (the last one's
// channels past C/G zero), as many as make K whole 16-row fractals (relayout_channels).
int64_t relayout_c0(const LaunchContext& ctx, const ConvGeom& g) {
  if (!ctx.spec->fractal_layout || g.pointwise || g.ints || g.panel > 0) return 1;
  return 32 / static_cast<int64_t>(dtype_size(ctx.inputs.at(g.x_arg).dtype));
}

int64_t relayout_channels(const ConvGeom& g, int64_t c0) {
  if (c0 <= 1) return 1;
  return c0 * (16 / std::gcd<int64_t>(16, c0 * g.window()));
}

ConvGeom conv_geom(const LaunchContext& ctx) {
  return geom_of(ctx, 0, 1);
}

ConvGeom conv_geom_int(const LaunchContext& ctx, int x_arg, int w_arg, int xz_arg, int wz_arg) {
  ConvGeom g = geom_of(ctx, x_arg, w_arg);
  g.ints = true;
  g.x_arg = x_arg;
  g.w_arg = w_arg;
  g.xz_arg = given(ctx, xz_arg) ? xz_arg : -1;
  g.wz_arg = given(ctx, wz_arg) ? wz_arg : -1;
  if (g.xz_arg >= 0 && numel(ctx.inputs[static_cast<size_t>(xz_arg)].shape) != 1)
    throw ShapeError(cat(ctx.op->type, ": x_zero_point ",
                         to_string(ctx.inputs[static_cast<size_t>(xz_arg)].shape),
                         " must be a scalar"));
  if (g.wz_arg >= 0) {
    const int64_t n = numel(ctx.inputs[static_cast<size_t>(wz_arg)].shape);
    if (n != 1 && n != g.m)
      throw ShapeError(cat(ctx.op->type, ": w_zero_point ",
                           to_string(ctx.inputs[static_cast<size_t>(wz_arg)].shape),
                           " must be a scalar or [", g.m, "]"));
  }
  return g;
}

TilingData conv_tiling(const LaunchContext& ctx, const ConvGeom& g, int64_t epilogue_ub) {
  if (g.vector_form()) return depthwise_tiling(ctx, g, epilogue_ub);
  DeviceSpec spec = *ctx.spec;
  if (g.panel > 0) spec.mmad_m_align = std::lcm(spec.mmad_m_align, g.panel);  // whole panels
  const int64_t cores = cores_for(ctx);
  // (The cpu widens integer operands to f32 while packing: tiles sized for that.)
  const int64_t es = g.ints && spec.matmul.ints_as_f32
                         ? 4
                         : static_cast<int64_t>(dtype_size(ctx.inputs[g.x_arg].dtype));
  const int64_t am = spec.mmad_m_align, an = spec.mmad_n_align, ak = spec.mmad_k_align;
  const int64_t mg = g.mg(), cg = g.cg(), win = g.window();
  const int64_t oh = g.w.out[1], ow = g.w.out[2];
  if (g.n == 0 || mg == 0 || g.w.out[0] * oh * ow == 0)
    return make_tiling(g,
                       {round_up(std::max<int64_t>(mg, 1), am), std::max<int64_t>(cg, 1),
                        std::max<int64_t>(oh, 1), std::max<int64_t>(ow, 1)},
                       cores);
  const std::vector<int64_t> tms = pieces(mg, am);
  const int64_t c0 = relayout_c0(ctx, g), unit = relayout_channels(g, c0);
  std::vector<int64_t> tcs;  // K steps of whole k_pack units of a packed W (or all of K)
  for (int64_t tc : pieces(cg, cg > 16 ? 8 : 1))
    if (((tc * win) % g.k_pack == 0 && tc % unit == 0) || tc >= cg) tcs.push_back(tc);

  // Spatial tiles: whole output rows, or pieces of one row.
  std::vector<std::pair<int64_t, int64_t>> spatial;
  for (int64_t toh : pieces(oh, 1)) spatial.push_back({toh, ow});
  if (oh == 1 || ow > 1)
    for (int64_t tow : pieces(ow, 1))
      if (tow < ow) spatial.push_back({1, tow});
  const int64_t slots = ctx.optimize ? 2 : 1;
  const double pack_a = spec.matmul.pack_a, pack_cols = spec.matmul.pack_cols, c_step = 8;
  const double read_a = 8;  // a pre-packed weight element read from L3 or memory
  const double cache = static_cast<double>(spec.shared_cache_bytes);
  const double step_fixed = spec.matmul.step_fixed;
  struct Scored {
    double cost;
    Sizes s;
  };
  std::vector<Scored> cands;
  const int64_t kp = round_up(std::max<int64_t>(g.k(), 1), ak);
  for (int64_t tm : tms)
    for (int64_t tc : tcs)
      for (auto [toh, tow] : spatial) {
        const Im2col c = im2col_of(g, toh, tow);
        const int64_t tcx = round_up(std::min(tc, cg), unit);  // channels a K step holds
        const int64_t kb = tcx * win, tp = toh * tow;
        const int64_t map = tcx * c.span(0) * c.span(1) * c.span(2);
        // The relayout's UB: both blocks double-buffered, their transposes and the gather's
        // offsets (4 bytes per element of the larger), beside the epilogue; L1 holds the stage.
        const int64_t ub = c0 > 1 ? (slots + 1) * (map + tm * kb) * es +
                                        std::max(map, tm * kb) * 4 + tm * tp * epilogue_ub
                                  : tm * tp * epilogue_ub;
        const int64_t l1 = c0 > 1 ? std::max(map, tm * kb) * es : slots * (map + tm * kb) * es;
        if (tm * kb * es > spec.l0a_bytes || kb * tp * es > spec.l0b_bytes ||
            tm * tp * 4 > spec.l0c_bytes || l1 > spec.l1_bytes || ub > spec.ub_bytes)
          continue;
        const int64_t m_tiles = ceil_div(mg, tm);
        const int64_t p_tiles = g.w.out[0] * ceil_div(oh, toh) * ceil_div(ow, tow);
        const int64_t tiles = g.n * g.group * m_tiles * p_tiles * g.phases();
        const double waves = static_cast<double>(ceil_div(tiles, cores));
        const double m = static_cast<double>(std::min(tm, round_up(mg, am)));
        const double p =
            spec.matmul.narrow_tails ? host_columns(tp) : static_cast<double>(round_up(tp, an));
        const double k = static_cast<double>(kp);
        const double steps = static_cast<double>(ceil_div(cg, tc));
        // The weight block is packed once per core for the position tiles it walks (the host
        // keeps it); an NPU core loads it for every tile. Weights stored pre-packed are not
        // packed on the host but read, from memory again for each tile unless the block stays
        // in the core's cache across the position tiles it walks: every K step's block, the
        // tile's rows of the whole W (a tile walks them all before the next tile starts).
        const bool read_only = g.panel > 0;  // the cpu's panels (runtime/weight_pack.h)
        const bool stays = !read_only || static_cast<double>(tm * kp * es) <= 0.5 * cache;
        const double a_reuse = spec.matmul.keeps_a && stays
                                   ? static_cast<double>(std::min(p_tiles, ceil_div(tiles, cores)))
                                   : 1.0;
        // The relayout (c0 > 1), in MACs of the 4096-MAC cube: per K step two operands through
        // the workspace (a cross-core flag each way, a copy on each side: ~140 cycles) and
        // about 300 per element gathered and moved (two vector repeats per 256 bytes, the L2
        // round trip); per tile the product's hand-off back and its transpose.
        const double handoff = 6e5, relay = 300;
        const double relaid =
            c0 > 1 ? steps * (2 * handoff + relay * static_cast<double>(map + tm * kb)) + handoff +
                         relay * static_cast<double>(tm * tp)
                   : 0.0;
        const double per_tile = m * p * k + (read_only ? read_a : pack_a) * m * k / a_reuse +
                                pack_cols * k * static_cast<double>(tp) + c_step * m * p * steps +
                                step_fixed * steps + relaid;
        const double working = static_cast<double>((tm * kb + kb * tp) * es + tm * tp * 4);
        const double spill =
            spec.shared_cache_bytes > 0 && working > spec.shared_cache_bytes ? 1.5 : 1.0;
        cands.push_back({waves * per_tile * spill, {tm, tc, toh, tow}});
      }
  // A block-diagonal W tells the mmad where its zeros are when a tile holds whole groups in one
  // K step: the cpu then forms 1/group of the products (the costs above count them all).
  if (g.diag) {
    std::vector<Scored> whole;
    for (const Scored& s : cands)
      if (s.s.tm >= mg && s.s.tc >= cg) whole.push_back(s);
    if (!whole.empty()) cands = std::move(whole);
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Scored& a, const Scored& b) {
    if (a.cost != b.cost) return a.cost < b.cost;
    return a.s.tc > b.s.tc;
  });
  std::vector<TilingData> list;
  for (const Scored& s : cands) list.push_back(make_tiling(g, s.s, cores));
  if (list.empty())
    list.push_back(make_tiling(g, {tms.back(), tcs.back(), 1, spatial.back().second}, cores));
  return auto_tiling(ctx, list);
}

ConvTile conv_accumulate(TileBuilder& t, const ConvGeom& g) {
  if (g.vector_form()) return depthwise_accumulate(t, g);
  const int64_t tm = t.param("TM"), tc = t.param("TC"), toh = t.param("TOH"), tow = t.param("TOW");
  const Geom3& w = g.w;
  const int64_t mg = g.mg(), cg = g.cg(), win = g.window(), k = g.k();
  const int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  Im2col cols = im2col_of(g, toh, tow);
  const int64_t c0 = relayout_c0(t.ctx(), g);
  const int64_t c1 = round_up(std::min(tc, cg), relayout_channels(g, c0)) / c0;
  cols.c0 = c0;
  ConvTile r{Buf{}, t.grid(kAxisM, tm), tm, toh * tow};
  // Laid out for Load3D, the product is Y^T: the column matrix as L0A's feature map [P, K]
  // (Load3D's own orientation) times the weight block's transpose [K, TM] in L0B; the vector
  // unit turns it back into Y's [TM, P] after the K loop.
  r.c = t.alloc(Pos::kL0C, g.ints ? DType::kI32 : DType::kF32,
                c0 > 1 ? Shape{r.positions, tm} : Shape{tm, r.positions}, "c");
  // Zero points of the integer form: X's one value, W's one or one per row of the tile.
  Buf xz, wz;
  if (g.xz_arg >= 0) {
    GmBox b;
    b.dims = {BoxDim{1, 1, Coord{}, 1}};
    xz = t.copy_in(g.xz_arg, b, Pos::kUB, "xz");
  }
  if (g.wz_arg >= 0) {
    GmBox b;
    b.dims = {BoxDim{1, 1, Coord{}, 1}};
    if (numel(t.ctx().inputs[static_cast<size_t>(g.wz_arg)].shape) != 1)
      b.dims = {BoxDim{g.group, mg, t.grid(kAxisG), 1}, BoxDim{mg, 1, r.m0, tm}};
    wz = t.copy_in(g.wz_arg, b, Pos::kUB, "wz");
  }
  t.loop(std::max<int64_t>(1, ceil_div(cg, tc)), [&](Coord kv) {
    GmBox x;
    x.dims = {
        BoxDim{g.n, g.c * in_plane, t.grid(kAxisN), 1},
        BoxDim{g.group, cg * in_plane, t.grid(kAxisG), 1},
        BoxDim{cg, in_plane, Coord{kv.var, tc, 0}, tc},
        BoxDim{w.in[0], w.in[1] * w.in[2], Coord{kAxisD, w.s[0], -w.pb[0]}, cols.span(0)},
        BoxDim{w.in[1], w.in[2], Coord{kAxisH, toh * w.s[1], -w.pb[1]}, cols.span(1)},
        BoxDim{w.in[2], 1, Coord{kAxisW, tow * w.s[2], -w.pb[2]}, cols.span(2)},
    };
    GmBox wb;
    wb.dims = {
        BoxDim{g.group, mg * k, t.grid(kAxisG), 1},
        BoxDim{mg, k, r.m0, tm},
        BoxDim{k, 1, Coord{kv.var, tc * win, 0}, tc * win},
    };
    if (c0 > 1) {  // whole C0 blocks of channels (tc a multiple of the unit, or all of C/G)
      x.dims[2].size = c1 * c0;
      Im2col c5 = cols;
      if (c5.k[0] > 1 && c5.d[0] > 1) {  // Load3D's depth is undilated: the box holds the
        BoxDim& dd = x.dims[3];          // taps' depth slices alone (a strided view of D)
        dd = BoxDim{w.in[0], w.in[1] * w.in[2] * w.d[0], Coord{}, c5.k[0]};
        dd.step = w.d[0];
        dd.phase = Coord{kAxisD, w.s[0], -w.pb[0]};
        c5.d[0] = 1;
      }
      wb.dims[2] = BoxDim{cg, win, Coord{kv.var, tc, 0}, c1 * c0};
      wb.dims.push_back(BoxDim{win, 1, Coord{}, win});
      Buf x5 = t.transpose(
          t.copy_in(g.x_arg, x, Pos::kUB, "x", {c1, c0, c5.span(0), c5.span(1), c5.span(2)}), 1);
      // [TM, C1, C0, window] -> [C1, window, C0, TM]: the K rows of W^T.
      Buf wk = t.gather(t.copy_in(g.w_arg, wb, Pos::kUB, "w", {tm, c1, c0, win}), {c1, win, c0, tm},
                        {c0 * win, 1, win, c1 * c0 * win}, 0, {c1 * win * c0, tm});
      t.mmad(r.c, t.load_l0_im2col(x5, Pos::kL0A, c5), t.load_l0(wk, Pos::kL0B), kv);
      return;
    }
    if (g.pointwise)  // X_g [channels, positions] as it is
      x.dims = {x.dims[0], x.dims[1], x.dims[2], BoxDim{w.in[2], 1, t.grid(kAxisW, tow), tow}};
    if (g.panel > 0) {  // whole panels of the packed W, the K step's rows of each (never the
      const int64_t row = g.panel_row();  // panel's tail after K)
      wb.dims = {BoxDim{g.group, g.panels() * row, t.grid(kAxisG), 1},
                 BoxDim{g.panels(), row, t.grid(kAxisM, tm / g.panel), tm / g.panel},
                 BoxDim{g.kp() * g.panel, 1, Coord{kv.var, tc * win * g.panel, 0},
                        round_up(tc * win, g.k_pack) * g.panel}};  // all of K: its padding too
    }
    Buf x1 = t.copy_in(g.x_arg, x, Pos::kL1, "x1");
    Buf w1 = t.copy_in(g.w_arg, wb, Pos::kL1, "w1");
    Buf a0 = g.panel > 0 ? t.load_l0_panels(w1, g.panel, static_cast<int>(g.k_pack), mg, Pos::kL0A)
                         : t.load_l0(w1, Pos::kL0A, wz);
    // A block-diagonal W (one step over a whole group): row i's products are K [i*win, +win).
    const int64_t diag = g.diag && tm >= mg && tc >= cg ? win : 0;
    t.mmad(r.c, a0,
           g.pointwise ? t.load_l0(x1, Pos::kL0B, xz) : t.load_l0_im2col(x1, Pos::kL0B, cols, xz),
           kv, diag);
  });
  if (c0 > 1) r.c = t.transpose(r.c, 0);  // Y^T [P, TM] -> [TM, P]
  return r;
}

GmBox conv_out_box(TileBuilder& t, const ConvGeom& g, const ConvTile& tile) {
  const Geom3& w = g.w;
  const int64_t plane = w.out[0] * w.out[1] * w.out[2];
  const int64_t toh = t.param("TOH"), tow = t.param("TOW");
  GmBox y;
  y.dims = {
      BoxDim{g.n, g.m * plane, t.grid(kAxisN), 1},
      BoxDim{g.group, g.mg() * plane, t.grid(kAxisG), 1},
      BoxDim{g.mg(), plane, tile.m0, tile.tm},
  };
  if (g.vector_form())  // channel blocks on the group axis
    y.dims = {y.dims[0], BoxDim{g.m, plane, tile.m0, tile.tm}};
  y.dims.insert(y.dims.end(), {
                                  BoxDim{w.out[0], w.out[1] * w.out[2], t.grid(kAxisD), 1},
                                  BoxDim{w.out[1], w.out[2], t.grid(kAxisH, toh), toh},
                                  BoxDim{w.out[2], 1, t.grid(kAxisW, tow), tow},
                              });
  return y;
}

Buf conv_bias(TileBuilder& t, const ConvGeom& g, const ConvTile& tile) {
  const auto& in = t.ctx().inputs;
  if (in.size() < 3 || in[2].dtype == DType::kUndefined) return tile.c;
  GmBox b;
  b.dims = {BoxDim{g.group, g.mg(), t.grid(kAxisG), 1}, BoxDim{g.mg(), 1, tile.m0, tile.tm}};
  if (g.vector_form()) b.dims = {BoxDim{g.m, 1, tile.m0, tile.tm}};
  Buf bias = t.cast(t.copy_in(2, b, Pos::kUB, "bias"), DType::kF32);
  return t.bcast_mid(BinaryOp::kAdd, tile.c, bias, 1);
}

}  // namespace asc

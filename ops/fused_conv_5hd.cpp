// FusedConv5HD (ai.asc 1): FusedConv on NC1HWC0 ("5HD") feature maps, Ascend's own convolution
// layout (ONNX Runtime's NCHWc on x86 is the same idea): a map [N, C, H, W] is stored
// [N, C1 = ceil(C / 16), H, W, 16], the channels past C zero (ops/layout_5hd.cpp converts).
//   Y = act(Conv(X, W) + B + Z)
// X [N, C1, H, W, 16]; Wp the weight [M, C, kH, kW] as the [K, Mp] matrix of K = C1 * kH * kW * 16
// rows over (c1, kh, kw, c0) (zero for channels past C) and Mp = ceil(M / 16) * 16 columns (zero
// past M), stored in panels of `panel` columns with k_pack rows interleaved — PackedMatMul's B
// layout: Wp [ceil(Mp / panel), KP * panel], KP = K rounded up to k_pack,
//   Wp[q, (k / k_pack) * panel * k_pack + j * k_pack + k % k_pack] = W[q * panel + j, k];
// B [M] (optional); Z [N, M1, OH, OW, 16] (optional, added before the activation); Y like Z.
// Y's lanes past M hold act(Z's lanes there), act(0) without Z. 2-D windows (kernel_shape,
// strides, pads [top, left, bottom, right], dilations), one group.
//
// One tile: image n, output rows oh0 : +TOH (whole rows), output channels m0 : +TM:
//   c (L0C f32 [TOH * OW, TM])
//   for kb in [0, ceil(C1 / TC1)):
//     x1 (L1) = X[n, kb*TC1 : +TC1, oh0*sH - pT : +TIH, -pL : +TIW, 0 : 16]  (pads as zeros)
//     w1 (L1) = Wp[m0 / panel : +TM / panel, the K step's rows]
//     c += load_l0_im2col(x1, L0A, c0 = 16) x load_l0_panels(w1, L0B)   (Load3D on 5HD)
//   y = act(c + B[m0 : +TM] + Z[n, m0/16 : +TM/16, oh0 : +TOH, :, :] as [positions, TM])
//   -> Y[n, m0/16 : +TM/16, oh0 : +TOH, :, :]
#include <algorithm>
#include <cmath>

#include "ops/fused.h"
#include "ops/matmul.h"
#include "ops/nn.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc::fused {
namespace {

constexpr int64_t kC0 = 16;
// Grid axes: the output-channel tiles walk fastest, so a core's range of tiles is a range of
// output rows over every channel (on maps of kRowSplit positions or more: the tiling keeps whole
// row ranges per core), the rows the same core wrote in the layer before.
constexpr int kAxisN = 0, kAxisH = 1, kAxisM = 2;
constexpr int64_t kRowSplit = 196;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t round_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}

bool given(const std::vector<TensorDesc>& in, size_t i) {
  return in.size() > i && in[i].dtype != DType::kUndefined;
}

// The window and the packing, from the attributes and X's dims [N, C1, H, W, 16].
struct Geom5hd {
  int64_t n = 0, c1 = 0, h = 0, w = 0, m = 0, oh = 0, ow = 0;
  int64_t k[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1}, pb[2] = {0, 0}, pe[2] = {0, 0};
  int64_t panel = 0, k_pack = 1;

  int64_t m1() const { return ceil_div(m, kC0); }
  int64_t mp() const { return m1() * kC0; }
  int64_t window() const { return k[0] * k[1]; }
  int64_t kk() const { return c1 * window() * kC0; }
  int64_t kp() const { return round_up(kk(), k_pack); }
  int64_t panels() const { return ceil_div(mp(), panel); }
  Shape w_shape() const { return {panels(), kp() * panel}; }
  // Input rows / columns the windows of toh x ow outputs read.
  int64_t span(int j, int64_t outs) const { return (outs - 1) * s[j] + (k[j] - 1) * d[j] + 1; }
};

// `in` may hold -1 (unknown) for the spatial dims during inference.
Geom5hd geom_5hd(const Attrs& a, int64_t n, int64_t c1, int64_t h, int64_t w) {
  Geom5hd g;
  g.n = n, g.c1 = c1, g.h = h, g.w = w;
  g.m = a.i("m");
  g.panel = a.i("panel");
  g.k_pack = a.i("k_pack");
  const auto ks = a.ints("kernel_shape"), ss = a.ints("strides"), ds = a.ints("dilations"),
             ps = a.ints("pads");
  if (g.m <= 0 || g.panel <= 0 || g.panel % kC0 != 0 || (g.k_pack != 1 && g.k_pack != 2) ||
      ks.size() != 2 || (!ss.empty() && ss.size() != 2) || (!ds.empty() && ds.size() != 2) ||
      (!ps.empty() && ps.size() != 4))
    throw ShapeError(cat("FusedConv5HD: m ", g.m, ", panel ", g.panel, ", k_pack ", g.k_pack,
                         ", kernel_shape ", to_string(Shape(ks)),
                         " (m > 0, panel a multiple of 16, k_pack 1 or 2, a 2-D window)"));
  for (int j = 0; j < 2; ++j) {
    g.k[j] = ks[static_cast<size_t>(j)];
    g.s[j] = ss.empty() ? 1 : ss[static_cast<size_t>(j)];
    g.d[j] = ds.empty() ? 1 : ds[static_cast<size_t>(j)];
    g.pb[j] = ps.empty() ? 0 : ps[static_cast<size_t>(j)];
    g.pe[j] = ps.empty() ? 0 : ps[static_cast<size_t>(j) + 2];
    if (g.k[j] < 1 || g.s[j] < 1 || g.d[j] < 1 || g.pb[j] < 0 || g.pe[j] < 0)
      throw ShapeError("FusedConv5HD: kernel, strides and dilations >= 1, pads >= 0");
  }
  const auto out = [&](int j, int64_t in) {
    if (in < 0) return int64_t{-1};
    const int64_t span = in + g.pb[j] + g.pe[j] - ((g.k[j] - 1) * g.d[j] + 1);
    if (span < 0)
      throw ShapeError(cat("FusedConv5HD: a ", g.k[j], "-wide window does not fit ", in, " + pads ",
                           g.pb[j], ", ", g.pe[j]));
    return span / g.s[j] + 1;
  };
  g.oh = out(0, h);
  g.ow = out(1, w);
  return g;
}

Geom5hd geom_of(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs.at(0).shape;
  if (x.size() != 5 || x[4] != kC0)
    throw ShapeError(cat("FusedConv5HD: X ", to_string(x), " is not [N, C1, H, W, 16]"));
  const Geom5hd g = geom_5hd(ctx.attr(), x[0], x[1], x[2], x[3]);
  if (ctx.inputs.at(1).shape != g.w_shape())
    throw ShapeError(cat("FusedConv5HD: W ", to_string(ctx.inputs[1].shape), " is not the packed ",
                         to_string(g.w_shape())));
  return g;
}

// The box of Y (and Z) at a tile: [1, TM / 16 blocks, TOH rows, OW, 16], read as the
// [positions, TM] of the product (position-major, then channel block, then lane).
GmBox out_box(TileBuilder& t, const Geom5hd& g, int64_t tm, int64_t toh) {
  const int64_t plane = g.oh * g.ow * kC0;
  GmBox b;
  b.dims = {BoxDim{g.n, g.m1() * plane, t.grid(kAxisN), 1},
            BoxDim{g.oh, g.ow * kC0, t.grid(kAxisH, toh), toh}, BoxDim{g.ow, kC0, Coord{}, g.ow},
            BoxDim{g.m1(), plane, t.grid(kAxisM, tm / kC0), tm / kC0},
            BoxDim{kC0, 1, Coord{}, kC0}};
  return b;
}

void conv_5hd_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const Geom5hd g = geom_of(ctx);
  const int64_t tm = t.param("TM"), tc1 = t.param("TC1"), toh = t.param("TOH");
  const int64_t tkh = t.param("TKH");
  if (tkh < g.k[0] && tc1 != 1)
    throw ShapeError(cat("FusedConv5HD: K steps of ", tkh, " kernel rows need TC1 = 1"));
  const int64_t tp = toh * g.ow, win = g.window(), row = g.kp() * g.panel;
  Buf c = t.alloc(Pos::kL0C, DType::kF32, {tp, tm}, "c");
  const int64_t plane = g.h * g.w * kC0;
  t.loop(ceil_div(g.c1, tc1), [&](Coord kv) {
    // Kernel rows [r0, r0 + kr) of the step's channel blocks: the whole window, or (one channel
    // block per step) chunks of TKH rows, each its own product into c after the first.
    for (int64_t r0 = 0; r0 < g.k[0]; r0 += tkh) {
      const int64_t kr = std::min(tkh, g.k[0] - r0);
      Im2col cols;
      cols.k[1] = kr, cols.k[2] = g.k[1];
      cols.s[1] = g.s[0], cols.s[2] = g.s[1];
      cols.d[1] = g.d[0], cols.d[2] = g.d[1];
      cols.out[1] = toh, cols.out[2] = g.ow;
      cols.c0 = kC0;
      GmBox x;
      x.dims = {
          BoxDim{g.n, g.c1 * plane, t.grid(kAxisN), 1},
          BoxDim{g.c1, plane, Coord{kv.var, tc1, 0}, tc1},
          BoxDim{1, plane, Coord{}, 1},
          BoxDim{g.h, g.w * kC0, Coord{kAxisH, toh * g.s[0], r0 * g.d[0] - g.pb[0]}, cols.span(1)},
          BoxDim{g.w, kC0, Coord{-1, 0, -g.pb[1]}, cols.span(2)},
          BoxDim{kC0, 1, Coord{}, kC0}};
      // Whole panels, the step's rows (all of K: its k_pack padding too).
      const int64_t rows = kr == g.k[0] ? tc1 * win * kC0 : kr * g.k[1] * kC0;
      GmBox wb;
      wb.dims = {
          BoxDim{g.panels(), row, t.grid(kAxisM, tm / g.panel), tm / g.panel},
          BoxDim{row, 1, Coord{kv.var, tc1 * win * kC0 * g.panel, r0 * g.k[1] * kC0 * g.panel},
                 round_up(rows, g.k_pack) * g.panel}};
      Buf x1 = t.copy_in(0, x, Pos::kL1, "x1");
      Buf w1 = t.copy_in(1, wb, Pos::kL1, "w1");
      t.mmad(c, t.load_l0_im2col(x1, Pos::kL0A, cols),
             t.load_l0_panels(w1, g.panel, static_cast<int>(g.k_pack), g.mp()),
             r0 == 0 ? kv : Coord{-1, 0, r0});
    }
  });
  Buf y = c;
  if (given(ctx.inputs, 2)) {
    GmBox b;
    b.dims = {BoxDim{1, 0, Coord{}, 1}, BoxDim{g.m, 1, t.grid(kAxisM, tm), tm}};
    y = t.bcast_mid(BinaryOp::kAdd, y, t.cast(t.copy_in(2, b, Pos::kUB, "bias"), DType::kF32), 0);
  }
  const GmBox out = out_box(t, g, tm, toh);
  if (given(ctx.inputs, 3)) y = y + t.cast(t.copy_in(3, out, Pos::kUB, "z", {tp, tm}), DType::kF32);
  const Attrs& a = ctx.attr();
  t.copy_out(0, matmul_activation(t, a.s("activation"), y, a.f("alpha"), a.f("beta")), out);
}

// Tiles of whole output rows and whole panels, K in steps of TC1 channel blocks; the cheapest
// by a count of multiply-adds, packing and per-step costs over the waves of tiles.
TilingData conv_5hd_tiling(const LaunchContext& ctx) {
  const Geom5hd g = geom_of(ctx);
  const DeviceSpec& spec = *ctx.spec;
  const int64_t cores = cores_for(ctx);
  const int64_t es = static_cast<int64_t>(dtype_size(ctx.inputs[0].dtype));
  const bool epilogue =
      given(ctx.inputs, 2) || given(ctx.inputs, 3) || ctx.attr().s("activation") != "none";
  const int64_t ep_ub = epilogue ? 12 + (given(ctx.inputs, 3) ? 8 : 0) : 0;
  const int64_t win = g.window();
  auto tiling = [&](int64_t tm, int64_t tc1, int64_t toh, int64_t tkh) {
    TilingData t;
    t.grid = {g.n, ceil_div(std::max<int64_t>(g.oh, 1), toh), ceil_div(g.mp(), tm)};
    t.params = {{"TM", tm}, {"TC1", tc1}, {"TOH", toh}, {"TKH", tkh}};
    t.block_dim = std::clamp<int64_t>(numel(t.grid), 1, cores);
    return t;
  };
  std::vector<int64_t> tms, tohs;
  for (int64_t tm = round_up(g.mp(), g.panel); tm >= g.panel; tm -= g.panel)
    if (tms.empty() || ceil_div(g.mp(), tm) != ceil_div(g.mp(), tms.back())) tms.push_back(tm);
  for (int64_t toh = std::max<int64_t>(g.oh, 1); toh >= 1; toh = toh > 1 ? (toh + 1) / 2 : 0)
    tohs.push_back(toh);
  // K steps: TC1 channel blocks of the whole window, or one block in chunks of TKH kernel rows.
  std::vector<std::pair<int64_t, int64_t>> ksteps;
  for (int64_t tc1 = std::max<int64_t>(g.c1, 1); tc1 >= 1; tc1 = tc1 > 1 ? (tc1 + 1) / 2 : 0)
    if ((tc1 * win * kC0) % g.k_pack == 0 || tc1 >= g.c1) ksteps.push_back({tc1, g.k[0]});
  for (int64_t tkh = (g.k[0] + 1) / 2; g.k[0] > 1 && tkh >= 1; tkh = tkh > 1 ? (tkh + 1) / 2 : 0)
    ksteps.push_back({1, tkh});
  struct Scored {
    double cost;
    TilingData t;
    bool rows;
  };
  std::vector<Scored> cands;
  // Double-buffered where anything fits so; else single (a 7x7 window's K step of one channel
  // block on the cpu's L1: run_passes drops the second slot).
  for (int64_t slots = ctx.optimize ? 2 : 1; slots >= 1 && cands.empty(); --slots)
    for (int64_t tm : tms)
      for (auto [tc1, tkh] : ksteps)
        for (int64_t toh : tohs) {
          const int64_t tp = toh * g.ow, kb = tc1 * tkh * g.k[1] * kC0;
          const int64_t rows = (toh - 1) * g.s[0] + (tkh - 1) * g.d[0] + 1;
          const int64_t map = tc1 * rows * g.span(1, g.ow) * kC0;
          const int64_t chunks = ceil_div(g.k[0], tkh);  // each its own copy-ins (unrolled)
          if (tp * kb * es > spec.l0a_bytes || kb * tm * es > spec.l0b_bytes ||
              tp * tm * 4 > spec.l0c_bytes ||
              chunks * slots * (map + kb * tm) * es > spec.l1_bytes ||
              tp * tm * ep_ub > spec.ub_bytes)
            continue;
          const TilingData t = tiling(tm, tc1, toh, tkh);
          const double waves = static_cast<double>(ceil_div(numel(t.grid), cores));
          const double steps = static_cast<double>(ceil_div(g.c1, tc1) * ceil_div(g.k[0], tkh));
          const double per_tile = static_cast<double>(round_up(tp, 16) * tm * g.kp()) +
                                  8.0 * static_cast<double>(tp * g.kp() + tm * g.kp()) +
                                  spec.matmul.step_fixed * steps;
          // A core's rows on large maps (above) where its cache keeps what it wrote
          // (shared_cache_bytes, the host's): whole row tiles per core where any tiling has them.
          const bool whole = g.n % cores == 0 || t.grid[kAxisH] % cores == 0;
          cands.push_back({waves * per_tile, t,
                           spec.shared_cache_bytes == 0 || g.oh * g.ow < kRowSplit || whole});
        }
  if (std::any_of(cands.begin(), cands.end(), [](const Scored& s) { return s.rows; }))
    std::erase_if(cands, [](const Scored& s) { return !s.rows; });
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
  std::vector<TilingData> list;
  for (const Scored& s : cands) list.push_back(s.t);
  if (list.empty()) list.push_back(tiling(g.panel, 1, 1, 1));
  return auto_tiling(ctx, list);
}

std::vector<TensorType> infer_conv_5hd(const InferContext& c) {
  check_matmul_activation(c.attrs.s("activation"));
  const TensorType& x = c.inputs.at(0);
  if (!x.shape) return {TensorType{x.dtype, std::nullopt}};
  const SymShape& xs = *x.shape;
  if (xs.size() != 5 || !(xs[4] == Dim(kC0)) || !xs[1].known())
    throw ShapeError(cat("FusedConv5HD: X ", x.str(), " is not [N, C1, H, W, 16] of known C1"));
  const auto dim = [](const Dim& d) { return d.known() ? d.value() : int64_t{-1}; };
  const Geom5hd g = geom_5hd(c.attrs, 1, xs[1].value(), dim(xs[2]), dim(xs[3]));
  const TensorType& w = c.inputs.at(1);
  if (w.shape && !(*w.shape == sym_dims(g.w_shape())))
    throw ShapeError(cat("FusedConv5HD: W ", w.str(), " is not the packed ", to_string(g.w_shape()),
                         " of ", g.m, " output channels over ", g.c1, " input channel blocks"));
  if (c.inputs.size() > 2 && c.inputs[2].dtype != DType::kUndefined && c.inputs[2].shape &&
      !(*c.inputs[2].shape == SymShape{Dim(g.m)}))
    throw ShapeError(cat("FusedConv5HD: B ", c.inputs[2].str(), " is not [", g.m, "]"));
  const SymShape ys{xs[0], Dim(g.m1()), g.oh < 0 ? Dim() : Dim(g.oh), g.ow < 0 ? Dim() : Dim(g.ow),
                    Dim(kC0)};
  if (c.inputs.size() > 3 && c.inputs[3].dtype != DType::kUndefined && c.inputs[3].shape &&
      !(*c.inputs[3].shape == ys))
    throw ShapeError(cat("FusedConv5HD: residual Z ", c.inputs[3].str(), " is not Y's ",
                         TensorType{x.dtype, ys}.str()));
  return {TensorType{x.dtype, ys}};
}

// In double, straight from the definition above, rounded once into Y.
void ref_conv_5hd(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape& xs = in[0].shape();
  const Geom5hd g = geom_5hd(a, xs[0], xs[1], xs[2], xs[3]);
  const bool bias = in.size() > 2 && in[2].defined(), z = in.size() > 3 && in[3].defined();
  const int64_t row = g.kp() * g.panel;
  const std::string& act = a.s("activation");
  std::vector<double> w(static_cast<size_t>(g.kk() * g.mp()));
  for (int64_t k = 0; k < g.kk(); ++k)
    for (int64_t m = 0; m < g.mp(); ++m) {
      const int64_t q = m / g.panel, j = m % g.panel;
      w[static_cast<size_t>(k * g.mp() + m)] =
          in[1].at(q * row + (k / g.k_pack) * g.panel * g.k_pack + j * g.k_pack + k % g.k_pack);
    }
  std::vector<double> sum(static_cast<size_t>(g.mp()));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oh = 0; oh < g.oh; ++oh)
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        std::fill(sum.begin(), sum.end(), 0.0);
        for (int64_t c1 = 0; c1 < g.c1; ++c1)
          for (int64_t kh = 0; kh < g.k[0]; ++kh)
            for (int64_t kw = 0; kw < g.k[1]; ++kw) {
              const int64_t ih = oh * g.s[0] - g.pb[0] + kh * g.d[0];
              const int64_t iw = ow * g.s[1] - g.pb[1] + kw * g.d[1];
              if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
              for (int64_t c0 = 0; c0 < kC0; ++c0) {
                const double x = in[0].at((((n * g.c1 + c1) * g.h + ih) * g.w + iw) * kC0 + c0);
                const int64_t k = ((c1 * g.k[0] + kh) * g.k[1] + kw) * kC0 + c0;
                for (int64_t m = 0; m < g.mp(); ++m)
                  sum[static_cast<size_t>(m)] += x * w[static_cast<size_t>(k * g.mp() + m)];
              }
            }
        for (int64_t m = 0; m < g.mp(); ++m) {
          const int64_t at = (((n * g.m1() + m / kC0) * g.oh + oh) * g.ow + ow) * kC0 + m % kC0;
          double v = sum[static_cast<size_t>(m)];
          if (bias && m < g.m) v += in[2].at(m);
          if (z) v += in[3].at(at);
          out[0].set(at, ref_matmul_activation(act, v, a.f("alpha"), a.f("beta")));
        }
      }
}

}  // namespace

void add_conv_5hd(Registry& r) {
  r.add(def_op("FusedConv5HD", 1, INT_MAX, kDomain)
            .input("X", "T")
            .input("W", "T")
            .input("B", "T", Arity::kOptional)
            .input("Z", "T", Arity::kOptional)
            .output("Y", "T")
            .attr("m", AttrKind::kInt)
            .attr("kernel_shape", AttrKind::kInts)
            .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
            .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
            .attr("dilations", AttrKind::kInts, std::vector<int64_t>{})
            .attr("panel", AttrKind::kInt)
            .attr("k_pack", AttrKind::kInt, int64_t{1})
            .attr("activation", AttrKind::kString, std::string("none"))
            .attr("alpha", AttrKind::kFloat, 0.0f)
            .attr("beta", AttrKind::kFloat, 0.0f)
            .type_constraint("T", {DType::kF32})
            .trait(kContraction)
            .describe("Y = act(Conv(X, W) + B + Z) on NC1HWC0 maps (Ascend's 5HD layout, C0 = "
                      "16): X [N, C1, H, W, 16], W pre-packed [K, Mp] panels over (c1, kh, kw, "
                      "c0), Y and Z [N, M1, OH, OW, 16]")
            .infer(infer_conv_5hd)
            .tiling(conv_5hd_tiling)
            .kernel(conv_5hd_kernel)
            // (Not in place of Z: the cpu's kernel keeps partial sums in Y between K chunks.)
            .reference(ref_conv_5hd));
}

}  // namespace asc::fused

// ConvTranspose (1 to 3 spatial dims) on the cube unit the way NPUs run it (Conv2DBackpropInput):
// per spatial dim the output splits into s phases, o = s * q + r, and each phase is a stride-1
// convolution of X with the taps of W whose offsets match r, in reverse (Conv's tile machinery,
// ops/conv_tile.h). With Y position o = i * s - pb + k * d and one phase per residue, for a dim
// with s > 1 (and d = 1):
//   c = floor((pb - K + s) / s), r0 = K - s - pb + s * c in (-s, 0], T = ceil(K / s) taps,
//   phase r covers o = s * q + r + r0 (q in [0, ceil((O - r0) / s)), o outside [0, O) clipped),
//   tap u reads X[q + c + u] with W[k = r + K - s - s * u] (zero for k < 0);
// for a dim with s = 1 (any d): T = K taps, o = q, tap u reads X[q + pb - (K - 1) * d + u * d]
// with W[K - 1 - u]. A tile of phase r (grid axes 6..8) accumulates, per channel block and tap,
// W's [TM, TC] block (a strided GM box: no rearranged copy of W, so a computed W works too) x the
// tap's shifted X box; Y is written through a strided view of its axes (BoxDim::step / phase).
// Dilations with s > 1 on the same dim and f64 run on the host: col = W_g^T x X_g by the GEMM
// of nn_gemm.h, then col2im scatter-adds col into Y (layouts in conv.cpp).
//
// Output size per spatial dim, with ek = (k - 1) * d + 1:
//   output_shape given:  out = output_shape, total = max(0, s * (in - 1) + output_padding + ek -
//   out) SAME_UPPER/LOWER:    out = in * s, total likewise otherwise:           out = s * (in - 1)
//   + output_padding + ek - pb - pe
// and a computed total pad goes pb = total / 2 (SAME_UPPER) or pb = total - total / 2 (else).
#include <algorithm>

#include "ops/conv_tile.h"
#include "ops/matmul.h"
#include "ops/nn.h"
#include "ops/nn_gemm.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

constexpr int64_t kColBudget = int64_t{1} << 18;  // elements of the col buffer

Window conv_transpose_window(const Attrs& a, const std::vector<int64_t>& x,
                             const std::vector<int64_t>& w) {
  const size_t n = x.size() - 2;
  Attrs plain = a;  // geometry of strides / dilations / pads without auto_pad's output rule
  plain.set("auto_pad", std::string("NOTSET"));
  std::vector<int64_t> kernel = a.ints("kernel_shape");
  if (kernel.empty()) kernel.assign(w.begin() + 2, w.end());
  for (size_t i = 0; i < kernel.size() && i + 2 < w.size(); ++i)
    if (w[i + 2] >= 0 && kernel[i] != w[i + 2])
      throw ShapeError(cat("ConvTranspose: kernel_shape differs from the weight's spatial dims ",
                           to_string(Shape(w.begin() + 2, w.end()))));
  Window win = resolve_window("ConvTranspose", plain, std::vector<int64_t>(n, -1), kernel, false);
  win.in.assign(x.begin() + 2, x.end());
  std::vector<int64_t> op = a.ints("output_padding");
  if (op.empty()) op.assign(n, 0);
  std::vector<int64_t> shape = a.ints("output_shape");
  if (shape.size() == n + 2) shape.erase(shape.begin(), shape.begin() + 2);
  if (op.size() != n || (!shape.empty() && shape.size() != n))
    throw ShapeError(cat("ConvTranspose: output_padding and output_shape need ", n, " entries"));
  const std::string& pad_mode = a.s("auto_pad");
  for (size_t i = 0; i < n; ++i) {
    if (win.in[i] < 0) {
      win.out[i] = -1;
      continue;
    }
    const int64_t full = win.s[i] * (win.in[i] - 1) + op[i] + win.ek(i);
    if (!shape.empty() || pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER") {
      win.out[i] = !shape.empty() ? shape[i] : win.in[i] * win.s[i];
      const int64_t total = std::max<int64_t>(0, full - win.out[i]);
      win.pb[i] = pad_mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      win.pe[i] = total - win.pb[i];
    } else {
      win.out[i] = full - win.pb[i] - win.pe[i];
    }
    if (win.out[i] < 0)
      throw ShapeError(cat("ConvTranspose: output dim ", i, " is negative (", win.out[i], ")"));
  }
  return win;
}

std::vector<TensorType> infer_conv_transpose(const InferContext& ctx) {
  const TensorType& x = ctx.inputs[0];
  const TensorType& w = ctx.inputs[1];
  if (!x.shape || !w.shape) return {TensorType{x.dtype, std::nullopt}};
  check_spatial_rank("ConvTranspose", *x.shape);
  const auto xd = known_dims(*x.shape), wd = known_dims(*w.shape);
  const int64_t group = ctx.attrs.i("group");
  if (wd.size() != xd.size())
    throw ShapeError(cat("ConvTranspose: weight ", to_string(*w.shape), " and input ",
                         to_string(*x.shape), " differ in rank"));
  if (group < 1) throw ShapeError(cat("ConvTranspose: group ", group, " must be positive"));
  if (xd[1] >= 0 && wd[0] >= 0 && (wd[0] != xd[1] || xd[1] % group != 0))
    throw ShapeError(cat("ConvTranspose: input channels ", xd[1], " != weight ",
                         to_string(*w.shape), " dim 0, or not divisible by group ", group));
  for (size_t i = 2; i < wd.size(); ++i)
    if (wd[i] < 0 && ctx.attrs.ints("kernel_shape").empty())
      return {TensorType{x.dtype, sym_dims(std::vector<int64_t>(xd.size(), -1))}};
  const Window win = conv_transpose_window(ctx.attrs, xd, wd);
  std::vector<int64_t> out = {xd[0], wd[1] < 0 ? -1 : wd[1] * group};
  const TensorType& b = ctx.inputs.size() > 2 ? ctx.inputs[2] : TensorType{};
  if (b.dtype != DType::kUndefined && b.shape &&
      (b.shape->size() != 1 ||
       ((*b.shape)[0].known() && out[1] >= 0 && (*b.shape)[0].value() != out[1])))
    throw ShapeError(cat("ConvTranspose: bias ", to_string(*b.shape), " is not [", out[1], "]"));
  out.insert(out.end(), win.out.begin(), win.out.end());
  SymShape y = sym_dims(out);
  y[0] = (*x.shape)[0];  // keeps a symbolic batch
  return {TensorType{x.dtype, y}};
}

// Y[m, i*s - pb + k*d] += col[(m, kd, kh, kw), (r, iw)] for input rows [r0, r0 + nr).
template <class C>
void col2im(const Geom3& g, const C* col, int64_t mg, int64_t r0, int64_t nr, C* y) {
  const int64_t iw_n = g.in[2], pc = nr * iw_n, p_out = g.out_size();
  for (int64_t m = 0; m < mg; ++m)
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
      for (int64_t kh = 0; kh < g.k[1]; ++kh)
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          const C* src = col + (((m * g.k[0] + kd) * g.k[1] + kh) * g.k[2] + kw) * pc;
          const int64_t off_w = kw * g.d[2] - g.pb[2];
          for (int64_t r = 0; r < nr; ++r, src += iw_n) {
            const int64_t id = (r0 + r) / g.in[1], ih = (r0 + r) % g.in[1];
            const int64_t od = id * g.s[0] - g.pb[0] + kd * g.d[0];
            const int64_t oh = ih * g.s[1] - g.pb[1] + kh * g.d[1];
            if (od < 0 || od >= g.out[0] || oh < 0 || oh >= g.out[1]) continue;
            C* dst = y + m * p_out + (od * g.out[1] + oh) * g.out[2];
            for (int64_t iw = 0; iw < iw_n; ++iw) {
              const int64_t ow = iw * g.s[2] + off_w;
              if (ow >= 0 && ow < g.out[2]) dst[ow] += src[iw];
            }
          }
        }
}

template <class C>
void conv_transpose_run(const Window& w, int64_t group, std::span<const Tensor> in, Tensor& out) {
  const Geom3 g = geom3(w);
  const Shape& xs = in[0].shape();
  const int64_t n_img = xs[0], c_in = xs[1], m_out = out.shape()[1];
  const int64_t cg = c_in / group, mg = m_out / group, q = mg * g.k_size();
  const int64_t p_in = g.in_size(), p_out = g.out_size();
  std::vector<C> xb, wb, bb;
  const C* x = read_as(in[0], xb, C{});
  const C* wt = read_as(in[1], wb, C{});
  const C* bias = in.size() > 2 && in[2].defined() ? read_as(in[2], bb, C{}) : nullptr;
  OutBuf<C> yb(out);
  C* y = yb.data();
  for (int64_t i = 0; i < n_img * m_out; ++i)
    std::fill_n(y + i * p_out, p_out, bias ? bias[i % m_out] : C(0));
  const int64_t rows = g.in[0] * g.in[1], iw_n = g.in[2];
  const int64_t chunk_rows = std::clamp<int64_t>(kColBudget / std::max<int64_t>(1, q * iw_n), 1,
                                                 std::max<int64_t>(rows, 1));
  std::vector<C> col(static_cast<size_t>(q * chunk_rows * iw_n));
  for (int64_t n = 0; n < n_img; ++n)
    for (int64_t gi = 0; gi < group; ++gi) {
      const C* xg = x + (n * c_in + gi * cg) * p_in;
      const C* wg = wt + gi * cg * q;  // W_g[c, q]; A = W_g^T: a_rs = 1, a_cs = q
      C* yg = y + (n * m_out + gi * mg) * p_out;
      for (int64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
        const int64_t nr = std::min(chunk_rows, rows - r0), pc = nr * iw_n;
        std::fill_n(col.data(), q * pc, C(0));
        gemm_acc<C>(q, pc, cg, wg, 1, q, xg + r0 * iw_n, p_in, col.data(), pc);
        col2im(g, col.data(), mg, r0, nr, yg);
      }
    }
  yb.commit();
}

void conv_transpose_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                           std::span<Tensor> out) {
  const Window w = conv_transpose_window(ctx.attr(), in[0].shape(), in[1].shape());
  with_compute(in[0].dtype(), [&](auto tag) {
    conv_transpose_run<decltype(tag)>(w, ctx.attr().i("group"), in, out[0]);
  });
}

// ---- the tile kernel -------------------------------------------------------------------------

int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// One spatial dim's phase convolution (the header's formulas).
struct PhaseDim {
  int64_t taps = 1, q = 1;  // taps and output positions per phase
  int64_t x0 = 0, xd = 1;   // tap u reads X[q + x0 + u * xd]
  int64_t k0 = 0, ks = 1;   // with W[k0 + r - u * ks] (r: the phase)
  int64_t r0 = 0;           // phase r covers o = s * q + r + r0
};

PhaseDim phase_dim(const Geom3& g, int j) {
  const int64_t k = g.k[j], s = g.s[j], d = g.d[j], pb = g.pb[j], o = g.out[j];
  PhaseDim p;
  if (s == 1) {
    p.taps = k;
    p.q = o;
    p.x0 = pb - (k - 1) * d;
    p.xd = d;
    p.k0 = k - 1;
    return p;
  }
  const int64_t c = floor_div(pb - k + s, s);
  p.r0 = k - s - pb + s * c;
  p.taps = (k + s - 1) / s;
  p.q = std::max<int64_t>(0, (o - p.r0 + s - 1) / s);
  p.x0 = c;
  p.k0 = k - s;
  p.ks = s;
  return p;
}

struct TransposeGeom {
  ConvGeom g;  // the phase convolution: in = X's, out = q, k = taps, unit strides
  Geom3 y;     // ConvTranspose's own window (out = Y's spatial dims)
  PhaseDim dim[3];
};

TransposeGeom transpose_geom(const LaunchContext& ctx) {
  const Shape& xs = ctx.inputs.at(0).shape;
  const Shape& ws = ctx.inputs.at(1).shape;
  TransposeGeom t;
  t.y = geom3(conv_transpose_window(ctx.attr(), xs, ws));
  ConvGeom& g = t.g;
  g.n = xs[0];
  g.c = xs[1];
  g.group = ctx.attr().i("group");
  g.m = ws[1] * g.group;
  g.transposed = true;
  g.w = t.y;
  for (int j = 0; j < 3; ++j) {
    t.dim[j] = phase_dim(t.y, j);
    g.phase[j] = t.y.s[j];
    g.w.out[j] = t.dim[j].q;
    g.w.k[j] = t.dim[j].taps;
    g.w.s[j] = g.w.d[j] = 1;
    g.w.pb[j] = g.w.pe[j] = 0;
  }
  return t;
}

bool has_bias(const LaunchContext& ctx) {
  return ctx.inputs.size() > 2 && ctx.inputs[2].dtype != DType::kUndefined;
}

// Grid axes (conv_tile.cpp's, then the phases).
constexpr int kAxisN = 0, kAxisG = 1, kAxisM = 2, kAxisD = 3, kAxisPhase = 6;

// The phase convolution as Load3D runs it (a fractal-layout spec: relayout_c0): per K step one
// product over every tap, the taps being a window of T = prod(taps) offsets at stride 1 and
// dilation xd over the tile's X box. The step's weights W[g, c : +C1*C0, m0 : +TM, taps] come in
// once, each spatial dim's taps as a strided view of W's kernel axis (tap u at k0 + r - u * ks,
// read from the last tap up: step ks, zero where k falls outside W), and a gather orders them as
// K's (c1, u, c0) with u ascending, as W'^T's rows for L0B; X's box is transposed into NC1HWC0
// and Load3D makes L0A's feature map: the product is Y^T (conv_accumulate's orientation).
void relaid_phase_steps(TileBuilder& t, const TransposeGeom& tg, const ConvTile& r, int64_t c0) {
  const ConvGeom& g = tg.g;
  const Geom3& y = tg.y;
  const int64_t tm = t.param("TM"), tc = t.param("TC"), toh = t.param("TOH"), tow = t.param("TOW");
  const int64_t mg = g.mg(), cg = g.cg(), kvol = y.k_size();
  const int64_t in_plane = y.in[0] * y.in[1] * y.in[2];
  const int64_t tile[3] = {1, toh, tow};
  const int64_t kstride[3] = {y.k[1] * y.k[2], y.k[2], 1};
  const int64_t istride[3] = {y.in[1] * y.in[2], y.in[2], 1};
  const int64_t unit = relayout_channels(g, c0);
  const int64_t c1 = (std::min(tc, cg) + unit - 1) / unit * unit / c0;
  const int64_t taps[3] = {tg.dim[0].taps, tg.dim[1].taps, tg.dim[2].taps};
  const int64_t nt = taps[0] * taps[1] * taps[2];
  Im2col cols;
  cols.c0 = c0;
  for (int j = 0; j < 3; ++j) {
    cols.k[j] = taps[j];
    cols.d[j] = tg.dim[j].xd;
    cols.out[j] = tile[j];
  }
  // Load3D's depth is undilated: a dilated depth window's box holds the taps' slices alone.
  const int64_t xd = cols.k[0] > 1 ? cols.d[0] : 1;
  if (xd > 1) cols.d[0] = 1;
  t.loop(std::max<int64_t>(1, (cg + tc - 1) / tc), [&](Coord kv) {
    GmBox x;  // X[n, g, cb*TC : +C1*C0, q0 + x0 : +span]
    x.dims = {BoxDim{g.n, g.c * in_plane, t.grid(kAxisN), 1},
              BoxDim{g.group, cg * in_plane, t.grid(kAxisG), 1},
              BoxDim{cg, in_plane, Coord{kv.var, tc, 0}, c1 * c0}};
    GmBox w;  // W[g, cb*TC : +C1*C0, m0 : +TM, the phase's taps from the last]
    w.dims = {BoxDim{g.group, cg * mg * kvol, t.grid(kAxisG), 1},
              BoxDim{cg, mg * kvol, Coord{kv.var, tc, 0}, c1 * c0}, BoxDim{mg, kvol, r.m0, tm}};
    for (int j = 0; j < 3; ++j) {
      const PhaseDim& p = tg.dim[j];
      x.dims.push_back(BoxDim{y.in[j], istride[j], Coord{kAxisD + j, tile[j], p.x0}, cols.span(j)});
      if (j == 0 && xd > 1) {  // depth q + x0 + u * xd: a strided view of D
        x.dims.back() = BoxDim{y.in[0], istride[0] * xd, Coord{}, cols.k[0]};
        x.dims.back().step = xd;
        x.dims.back().phase = Coord{kAxisD, 1, p.x0};
      }
      BoxDim k{y.k[j], kstride[j] * p.ks, Coord{}, taps[j]};
      k.step = p.ks;
      k.phase = Coord{kAxisPhase + j, 1, p.k0 - (taps[j] - 1) * p.ks};
      w.dims.push_back(k);
    }
    Buf x5 = t.transpose(
        t.copy_in(0, x, Pos::kUB, "x", {c1, c0, cols.span(0), cols.span(1), cols.span(2)}), 1);
    // [C1 * C0, TM, T (last tap first)] -> [C1, T (first tap first), C0, TM]: the K rows of W'^T.
    Buf u = t.copy_in(1, w, Pos::kUB, "w", {c1 * c0, tm, nt});
    Buf b = t.gather(u, {c1, taps[0], taps[1], taps[2], c0, tm},
                     {c0 * tm * nt, -taps[1] * taps[2], -taps[2], -1, tm * nt, nt}, nt - 1,
                     {c1 * nt * c0, tm});
    t.mmad(r.c, t.load_l0_im2col(x5, Pos::kL0A, cols), t.load_l0(b, Pos::kL0B), kv);
  });
}

void conv_transpose_tile_kernel(TileBuilder& t) {
  const TransposeGeom tg = transpose_geom(t.ctx());
  const ConvGeom& g = tg.g;
  const Geom3& y = tg.y;
  const int64_t tm = t.param("TM"), tc = t.param("TC"), toh = t.param("TOH"), tow = t.param("TOW");
  const int64_t mg = g.mg(), cg = g.cg(), kvol = y.k_size();
  const int64_t in_plane = y.in[0] * y.in[1] * y.in[2];
  const int64_t tile[3] = {1, toh, tow};
  ConvTile r{Buf{}, t.grid(kAxisM, tm), tm, toh * tow};
  const int64_t c0 = relayout_c0(t.ctx(), g);
  r.c = t.alloc(Pos::kL0C, DType::kF32, c0 > 1 ? Shape{r.positions, tm} : Shape{tm, r.positions},
                "c");
  Im2col cols;  // one tap: the shifted box as it is
  cols.out[0] = 1;
  cols.out[1] = toh;
  cols.out[2] = tow;
  const int64_t kstride[3] = {y.k[1] * y.k[2], y.k[2], 1};
  const int64_t istride[3] = {y.in[1] * y.in[2], y.in[2], 1};
  if (c0 > 1) {
    relaid_phase_steps(t, tg, r, c0);
    r.c = t.transpose(r.c, 0);  // Y^T [P, TM] -> [TM, P]
  } else {
    t.loop(std::max<int64_t>(1, (cg + tc - 1) / tc), [&](Coord kv) {
      bool first = true;
      for (int64_t ud = 0; ud < tg.dim[0].taps; ++ud)
        for (int64_t uh = 0; uh < tg.dim[1].taps; ++uh)
          for (int64_t uw = 0; uw < tg.dim[2].taps; ++uw) {
            const int64_t u[3] = {ud, uh, uw};
            GmBox x;  // X[n, g, cb*TC : +TC, q + x0 + u * xd]
            x.dims = {BoxDim{g.n, g.c * in_plane, t.grid(kAxisN), 1},
                      BoxDim{g.group, cg * in_plane, t.grid(kAxisG), 1},
                      BoxDim{cg, in_plane, Coord{kv.var, tc, 0}, tc}};
            GmBox w;  // W[g, cb*TC : +TC, m0 : +TM, k0 + r - u * ks] as [TM, TC]
            w.dims = {BoxDim{g.group, cg * mg * kvol, t.grid(kAxisG), 1}};
            for (int j = 0; j < 3; ++j) {
              const PhaseDim& p = tg.dim[j];
              x.dims.push_back(BoxDim{y.in[j], istride[j],
                                      Coord{kAxisD + j, tile[j], p.x0 + u[j] * p.xd}, tile[j]});
              w.dims.push_back(
                  BoxDim{y.k[j], kstride[j], Coord{kAxisPhase + j, 1, p.k0 - u[j] * p.ks}, 1});
            }
            w.dims.push_back(BoxDim{mg, kvol, r.m0, tm});
            w.dims.push_back(BoxDim{cg, mg * kvol, Coord{kv.var, tc, 0}, tc});
            Buf x1 = t.copy_in(0, x, Pos::kL1, "x1");
            Buf w1 = t.copy_in(1, w, Pos::kL1, "w1");
            t.mmad(r.c, t.load_l0(w1, Pos::kL0A), t.load_l0_im2col(x1, Pos::kL0B, cols),
                   first ? kv : Coord{-1, 0, 1});
            first = false;
          }
    });
  }
  GmBox out;  // Y[n, g, m0 : +TM, s * (q0 : +TQ) + r + r0]
  const int64_t plane = y.out[0] * y.out[1] * y.out[2];
  const int64_t ostride[3] = {y.out[1] * y.out[2], y.out[2], 1};
  out.dims = {BoxDim{g.n, g.m * plane, t.grid(kAxisN), 1},
              BoxDim{g.group, mg * plane, t.grid(kAxisG), 1}, BoxDim{mg, plane, r.m0, tm}};
  for (int j = 0; j < 3; ++j) {
    BoxDim d{y.out[j], ostride[j] * y.s[j], t.grid(kAxisD + j, tile[j]), tile[j]};
    if (y.s[j] > 1) {
      d.step = y.s[j];
      d.phase = Coord{kAxisPhase + j, 1, tg.dim[j].r0};
    }
    out.dims.push_back(d);
  }
  Buf res = conv_bias(t, g, r);
  // Fixpipe (L0C -> GM) writes rows of unit stride: a phase's strided rows go out through UB.
  if (res.id == r.c.id && y.s[2] > 1) res = t.unary(UnaryOp::kCopy, res);
  t.copy_out(0, res, out);
}

// The tile kernel takes f32 / f16 / bf16 and dims whose stride or dilation is 1.
bool conv_transpose_tiles(const Attrs& a, std::span<const TensorDesc> in,
                          std::span<const TensorDesc>) {
  const auto& types = cube_types();
  if (in.empty() || std::find(types.begin(), types.end(), in[0].dtype) == types.end()) return false;
  const std::vector<int64_t> s = a.ints("strides"), d = a.ints("dilations");
  for (size_t j = 0; j < s.size() && j < d.size(); ++j)
    if (s[j] > 1 && d[j] > 1) return false;
  return true;
}

// Naive reference: scatter every input element times every kernel tap, in double.
void conv_transpose_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &w = in[1];
  Tensor& y = out[0];
  const Window win = conv_transpose_window(a, x.shape(), w.shape());
  const size_t ns = win.k.size();
  const int64_t group = a.i("group"), cg = x.shape()[1] / group, mg = w.shape()[1];
  std::vector<double> acc(static_cast<size_t>(y.numel()), 0.0);
  const Shape ys = contiguous_strides(y.shape()), ws = contiguous_strides(w.shape());
  const Shape kshape(w.shape().begin() + 2, w.shape().end());
  std::vector<int64_t> xi(ns + 2), ki(ns), yi(ns + 2), wi(ns + 2);
  for (int64_t i = 0; i < x.numel(); ++i) {
    unravel(i, x.shape(), xi.data());
    const int64_t c = xi[1], gi = c / cg;
    for (int64_t m = 0; m < mg; ++m)
      for (int64_t k = 0; k < numel(kshape); ++k) {
        unravel(k, kshape, ki.data());
        bool inside = true;
        for (size_t d = 0; d < ns; ++d) {
          yi[d + 2] = xi[d + 2] * win.s[d] - win.pb[d] + ki[d] * win.d[d];
          inside = inside && yi[d + 2] >= 0 && yi[d + 2] < win.out[d];
          wi[d + 2] = ki[d];
        }
        if (!inside) continue;
        yi[0] = xi[0], yi[1] = gi * mg + m, wi[0] = c, wi[1] = m;
        acc[static_cast<size_t>(ravel(yi.data(), ys, ns + 2))] +=
            x.at(i) * w.at(ravel(wi.data(), ws, ns + 2));
      }
  }
  const int64_t per_channel = numel(Shape(y.shape().begin() + 2, y.shape().end()));
  for (int64_t o = 0; o < y.numel(); ++o) {
    const double b =
        in.size() > 2 && in[2].defined() ? in[2].at((o / per_channel) % y.shape()[1]) : 0.0;
    y.set(o, acc[static_cast<size_t>(o)] + b);
  }
}

}  // namespace

void register_conv_transpose(Registry& r) {
  for (auto [since, until] : {std::pair{1, 10}, std::pair{11, INT_MAX}}) {
    r.add(def_op("ConvTranspose", since, until)
              .input("X", "T")
              .input("W", "T")
              .input("B", "T", Arity::kOptional)
              .output("Y", "T")
              .attr("auto_pad", AttrKind::kString, std::string("NOTSET"))
              .attr("dilations", AttrKind::kInts, std::vector<int64_t>{})
              .attr("group", AttrKind::kInt, int64_t{1})
              .attr("kernel_shape", AttrKind::kInts, std::vector<int64_t>{})
              .attr("output_padding", AttrKind::kInts, std::vector<int64_t>{})
              .attr("output_shape", AttrKind::kInts, std::vector<int64_t>{})
              .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
              .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
              .type_constraint("T", nn_float_types())
              .trait(kContraction)
              .describe("N-D transposed convolution as stride-1 phase convolutions on the cube "
                        "(dilation with stride on one dim, f64: GEMM + col2im on the host)")
              .infer(infer_conv_transpose)
              .tiling([](const LaunchContext& ctx) {
                return conv_tiling(ctx, transpose_geom(ctx).g, has_bias(ctx) ? 12 : 0);
              })
              .kernel(conv_transpose_tile_kernel)
              .tile_when(conv_transpose_tiles)
              .host_kernel(conv_transpose_kernel)
              .reference(conv_transpose_reference));
  }
}

}  // namespace asc

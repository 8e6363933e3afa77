// Conv and ConvTranspose (1 to 3 spatial dims, groups, strides, dilations, pads, auto_pad) as host
// kernels: im2col / col2im into a bounded buffer and a cache-blocked GEMM (nn_gemm.h).
//
// Layouts (row-major): X [N, C, in...], Conv W [M, C/group, k...], ConvTranspose W
// [C, M/group, k...], B [M], Y [N, M, out...]. Spatial dims are padded to three (leading dims of
// extent 1), so one kernel serves 1-D to 3-D.
//   Conv, per image n and group g:  Y_g[M/g, P] = W_g[M/g, K] x col[K, P] + B,
//     K = C/g * prod(k), col[(c, kd, kh, kw), o] = X[c, o*s - pb + k*d] (0 outside X).
//   ConvTranspose:                  col[Q, P_in] = W_g^T[Q, C/g] x X_g[C/g, P_in],
//     Q = M/g * prod(k), Y[m, i*s - pb + k*d] += col[(m, kd, kh, kw), i]   (col2im), Y = B first.
// Columns are processed in chunks of whole spatial rows so the col buffer stays ~1 MiB.
#include <algorithm>

#include "ops/conv_tile.h"
#include "ops/matmul.h"
#include "ops/nn.h"
#include "ops/nn_gemm.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {

Window conv_window(const char* op, const Attrs& a, const std::vector<int64_t>& x,
                   const std::vector<int64_t>& w) {
  std::vector<int64_t> kernel = a.ints("kernel_shape");
  const std::vector<int64_t> wk(w.begin() + 2, w.end());
  if (kernel.empty()) kernel = wk;
  for (size_t i = 0; i < kernel.size() && i + 2 < w.size(); ++i)
    if (w[i + 2] >= 0 && kernel[i] != w[i + 2])
      throw ShapeError(cat(op, ": kernel_shape differs from the weight's spatial dims ",
                           to_string(Shape(w.begin() + 2, w.end()))));
  return resolve_window(op, a, {x.begin() + 2, x.end()}, kernel, false);
}

std::vector<TensorType> infer_conv(const InferContext& ctx, const char* op, DType out_dtype,
                                   bool has_bias) {
  const TensorType& x = ctx.inputs[0];
  const TensorType& w = ctx.inputs[1];
  if (!w.shape) return {TensorType{out_dtype, std::nullopt}};
  if (!x.shape) {  // Y [N, M, ...] has W's rank
    SymShape y(w.shape->size(), Dim());
    if (!w.shape->empty()) y[1] = (*w.shape)[0];
    return {TensorType{out_dtype, y}};
  }
  check_spatial_rank(op, *x.shape);
  const auto xd = known_dims(*x.shape), wd = known_dims(*w.shape);
  const int64_t group = ctx.attrs.i("group");
  if (wd.size() != xd.size())
    throw ShapeError(cat(op, ": weight ", to_string(*w.shape), " and input ", to_string(*x.shape),
                         " differ in rank"));
  if (group < 1) throw ShapeError(cat(op, ": group ", group, " must be positive"));
  if (xd[1] >= 0 && wd[1] >= 0 && wd[1] * group != xd[1])
    throw ShapeError(cat(op, ": input channels ", xd[1], " != weight ", to_string(*w.shape),
                         " dim 1 x group ", group));
  if (wd[0] >= 0 && wd[0] % group != 0)
    throw ShapeError(cat(op, ": output channels ", wd[0], " not divisible by group ", group));
  const TensorType& b = has_bias && ctx.inputs.size() > 2 ? ctx.inputs[2] : TensorType{};
  if (b.dtype != DType::kUndefined && b.shape &&
      (b.shape->size() != 1 ||
       ((*b.shape)[0].known() && wd[0] >= 0 && (*b.shape)[0].value() != wd[0])))
    throw ShapeError(cat(op, ": bias ", to_string(*b.shape), " is not [", wd[0], "]"));
  for (size_t i = 2; i < wd.size(); ++i)
    if (wd[i] < 0 && ctx.attrs.ints("kernel_shape").empty())
      return {TensorType{out_dtype, sym_dims(std::vector<int64_t>(xd.size(), -1))}};
  const Window win = conv_window(op, ctx.attrs, xd, wd);
  std::vector<int64_t> out = {xd[0], wd[0]};
  out.insert(out.end(), win.out.begin(), win.out.end());
  SymShape y = sym_dims(out);
  y[0] = (*x.shape)[0];  // keeps a symbolic batch
  return {TensorType{out_dtype, y}};
}

namespace {

constexpr int64_t kColBudget = int64_t{1} << 18;  // elements of the col buffer

// ---- Conv ----------------------------------------------------------------------------------

// col[(c, kd, kh, kw), r*OW + ow] for the output rows [r0, r0 + nr) (row = (od, oh)) of one group.
template <class C>
void conv_im2col(const Geom3& g, const C* x, int64_t cg, int64_t r0, int64_t nr, C* col) {
  const int64_t ow_n = g.out[2], pc = nr * ow_n;
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
      for (int64_t kh = 0; kh < g.k[1]; ++kh)
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          C* dst = col + (((c * g.k[0] + kd) * g.k[1] + kh) * g.k[2] + kw) * pc;
          const int64_t off_w = kw * g.d[2] - g.pb[2];
          // ow with 0 <= ow * s + off_w < IW
          int64_t lo = off_w >= 0 ? 0 : (-off_w + g.s[2] - 1) / g.s[2];
          int64_t hi = g.in[2] - off_w <= 0 ? 0 : (g.in[2] - off_w + g.s[2] - 1) / g.s[2];
          lo = std::min(lo, ow_n);
          hi = std::clamp(hi, lo, ow_n);
          for (int64_t r = 0; r < nr; ++r, dst += ow_n) {
            const int64_t od = (r0 + r) / g.out[1], oh = (r0 + r) % g.out[1];
            const int64_t id = od * g.s[0] - g.pb[0] + kd * g.d[0];
            const int64_t ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
              std::fill_n(dst, ow_n, C(0));
              continue;
            }
            const C* src = x + ((c * g.in[0] + id) * g.in[1] + ih) * g.in[2] + off_w;
            std::fill_n(dst, lo, C(0));
            if (g.s[2] == 1) {
              std::copy(src + lo, src + hi, dst + lo);
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * g.s[2]];
            }
            std::fill(dst + hi, dst + ow_n, C(0));
          }
        }
}

}  // namespace

template <class C>
void conv_compute(const Window& w, int64_t group, const Shape& xs, const C* x, const Shape& ws,
                  const C* wt, const C* bias, C* y) {
  const Geom3 g = geom3(w);
  const int64_t n_img = xs[0], c_in = xs[1], m_out = ws[0];
  const int64_t cg = c_in / group, mg = m_out / group;
  const int64_t kk = cg * g.k_size(), p_in = g.in_size(), p_out = g.out_size();
  for (int64_t i = 0; i < n_img * m_out; ++i)
    std::fill_n(y + i * p_out, p_out, bias ? bias[i % m_out] : C(0));
  const bool pointwise = g.k_size() == 1 && p_in == p_out && g.pb[0] == 0 && g.pb[1] == 0 &&
                         g.pb[2] == 0 && g.s[0] == 1 && g.s[1] == 1 && g.s[2] == 1;
  const int64_t rows = g.out[0] * g.out[1], ow_n = g.out[2];
  const int64_t chunk_rows = std::clamp<int64_t>(kColBudget / std::max<int64_t>(1, kk * ow_n), 1,
                                                 std::max<int64_t>(rows, 1));
  std::vector<C> col(pointwise ? 0 : static_cast<size_t>(kk * chunk_rows * ow_n));
  for (int64_t n = 0; n < n_img; ++n)
    for (int64_t gi = 0; gi < group; ++gi) {
      const C* xg = x + (n * c_in + gi * cg) * p_in;
      const C* wg = wt + gi * mg * kk;
      C* yg = y + (n * m_out + gi * mg) * p_out;
      if (pointwise) {
        gemm_acc<C>(mg, p_out, cg, wg, kk, 1, xg, p_in, yg, p_out);
        continue;
      }
      for (int64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
        const int64_t nr = std::min(chunk_rows, rows - r0), pc = nr * ow_n;
        conv_im2col(g, xg, cg, r0, nr, col.data());
        gemm_acc<C>(mg, pc, kk, wg, kk, 1, col.data(), pc, yg + r0 * ow_n, p_out);
      }
    }
}

template void conv_compute<float>(const Window&, int64_t, const Shape&, const float*, const Shape&,
                                  const float*, const float*, float*);
template void conv_compute<double>(const Window&, int64_t, const Shape&, const double*,
                                   const Shape&, const double*, const double*, double*);

namespace {

template <class C>
void conv_run(const Window& w, int64_t group, std::span<const Tensor> in, Tensor& out) {
  std::vector<C> xb, wb, bb;
  const C* x = read_as(in[0], xb, C{});
  const C* wt = read_as(in[1], wb, C{});
  const C* bias = in.size() > 2 && in[2].defined() ? read_as(in[2], bb, C{}) : nullptr;
  OutBuf<C> yb(out);
  conv_compute(w, group, in[0].shape(), x, in[1].shape(), wt, bias, yb.data());
  yb.commit();
}

void conv_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Window w = conv_window("Conv", ctx.attr(), in[0].shape(), in[1].shape());
  with_compute(in[0].dtype(),
               [&](auto tag) { conv_run<decltype(tag)>(w, ctx.attr().i("group"), in, out[0]); });
}

bool conv_has_bias(const LaunchContext& ctx) {
  return ctx.inputs.size() > 2 && ctx.inputs[2].dtype != DType::kUndefined;
}

void conv_tile_kernel(TileBuilder& t) {
  const ConvGeom g = conv_geom(t.ctx());
  const ConvTile tile = conv_accumulate(t, g);
  t.copy_out(0, conv_bias(t, g, tile), conv_out_box(t, g, tile));
}

// Naive reference: every output element as a double sum over its window.
void conv_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &w = in[1];
  Tensor& y = out[0];
  const Window win = conv_window("Conv", a, x.shape(), w.shape());
  const size_t ns = win.k.size();
  const int64_t group = a.i("group"), cg = x.shape()[1] / group, mg = w.shape()[0] / group;
  const Shape xs = contiguous_strides(x.shape()), ws = contiguous_strides(w.shape());
  const Shape kshape(w.shape().begin() + 2, w.shape().end());
  std::vector<int64_t> oi(ns + 2), ki(ns), xi(ns + 2), wi(ns + 2);
  for (int64_t o = 0; o < y.numel(); ++o) {
    unravel(o, y.shape(), oi.data());
    const int64_t m = oi[1], gi = m / mg;
    double acc = in.size() > 2 && in[2].defined() ? in[2].at(m) : 0.0;
    for (int64_t c = 0; c < cg; ++c)
      for (int64_t k = 0; k < numel(kshape); ++k) {
        unravel(k, kshape, ki.data());
        bool inside = true;
        for (size_t d = 0; d < ns; ++d) {
          xi[d + 2] = oi[d + 2] * win.s[d] - win.pb[d] + ki[d] * win.d[d];
          inside = inside && xi[d + 2] >= 0 && xi[d + 2] < win.in[d];
          wi[d + 2] = ki[d];
        }
        if (!inside) continue;
        xi[0] = oi[0], xi[1] = gi * cg + c, wi[0] = m, wi[1] = c;
        acc += x.at(ravel(xi.data(), xs, ns + 2)) * w.at(ravel(wi.data(), ws, ns + 2));
      }
    y.set(o, acc);
  }
}

}  // namespace

void register_nn_conv(Registry& r) {
  for (auto [since, until] : {std::pair{1, 10}, std::pair{11, INT_MAX}}) {
    r.add(def_op("Conv", since, until)
              .input("X", "T")
              .input("W", "T")
              .input("B", "T", Arity::kOptional)
              .output("Y", "T")
              .attr("auto_pad", AttrKind::kString, std::string("NOTSET"))
              .attr("dilations", AttrKind::kInts, std::vector<int64_t>{})
              .attr("group", AttrKind::kInt, int64_t{1})
              .attr("kernel_shape", AttrKind::kInts, std::vector<int64_t>{})
              .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
              .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
              .type_constraint("T", nn_float_types())
              .trait(kContraction)
              .describe("N-D convolution with groups, strides, dilations and pads (Load3D im2col "
                        "into the cube; f64 on the host)")
              .infer([](const InferContext& c) {
                return infer_conv(c, "Conv", c.inputs[0].dtype, true);
              })
              .tiling([](const LaunchContext& ctx) {
                return conv_tiling(ctx, conv_geom(ctx), conv_has_bias(ctx) ? 12 : 0);
              })
              .kernel(conv_tile_kernel)
              .tile_types(cube_types())
              .host_kernel(conv_kernel)
              .reference(conv_reference));
  }
  register_conv_transpose(r);
  register_conv_integer(r);
}

}  // namespace asc

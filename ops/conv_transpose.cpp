// ConvTranspose (1 to 3 spatial dims) as a host kernel: col = W_g^T x X_g by the GEMM of
// nn_gemm.h, then col2im scatter-adds col into Y (layouts in conv.cpp).
//
// Output size per spatial dim, with ek = (k - 1) * d + 1:
//   output_shape given:  out = output_shape, total = max(0, s * (in - 1) + output_padding + ek -
//   out) SAME_UPPER/LOWER:    out = in * s, total likewise otherwise:           out = s * (in - 1)
//   + output_padding + ek - pb - pe
// and a computed total pad goes pb = total / 2 (SAME_UPPER) or pb = total - total / 2 (else).
#include <algorithm>

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
              .describe("N-D transposed convolution (GEMM + col2im), output_shape/output_padding")
              .infer(infer_conv_transpose)
              .host_kernel(conv_transpose_kernel)
              .reference(conv_transpose_reference));
  }
}

}  // namespace asc

// AffineGrid (20): the sampling grid GridSample reads, from a batch of affine matrices, as
// PyTorch's affine_grid. A host kernel (one small matrix product per output point).
//
// theta [N, 2, 3] with size [N, C, H, W] gives grid [N, H, W, 2]; theta [N, 3, 4] with size
// [N, C, D, H, W] gives grid [N, D, H, W, 3]. Base coordinates per dim of extent L, in [-1, 1]:
// align_corners: -1 + 2 i / (L - 1); else (2 i + 1) / L - 1; L = 1 gives 0. The point
// (x along W, y along H, z along D, 1) maps to theta[n] (x, y, z, 1)^T.
#include <vector>

#include "ops/nn.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

struct AffineGeom {
  int64_t n = 0;
  int64_t spatial = 2;        // 2 or 3
  std::vector<int64_t> dims;  // D (3-D only), H, W
};

AffineGeom affine_geom(const SymShape& theta, const std::vector<int64_t>& size) {
  AffineGeom g;
  if (size.size() != 4 && size.size() != 5)
    throw ShapeError(cat("AffineGrid: size ", to_string(Shape(size)),
                         " must be [N, C, H, W] or [N, C, D, H, W]"));
  g.spatial = static_cast<int64_t>(size.size()) - 2;
  g.n = size[0];
  g.dims.assign(size.begin() + 2, size.end());
  for (int64_t d : size)
    if (d < 0)
      throw ShapeError(cat("AffineGrid: negative extent in size ", to_string(Shape(size))));
  const auto fits = [](const Dim& d, int64_t want) { return !d.known() || d.value() == want; };
  const bool ok = theta.size() == 3 && fits(theta[0], g.n) && fits(theta[1], g.spatial) &&
                  fits(theta[2], g.spatial + 1);
  if (!ok)
    throw ShapeError(cat("AffineGrid: theta ", to_string(theta), " must be [", g.n, ", ", g.spatial,
                         ", ", g.spatial + 1, "] for size ", to_string(Shape(size))));
  return g;
}

std::vector<TensorType> infer_affine_grid(const InferContext& c) {
  const std::vector<int64_t> size = to_int64s(need_value(c, 1));
  if (!c.inputs[0].shape) return {{c.inputs[0].dtype, std::nullopt}};
  const AffineGeom g = affine_geom(*c.inputs[0].shape, size);
  SymShape out = {Dim(g.n)};
  for (int64_t d : g.dims) out.push_back(Dim(d));
  out.push_back(Dim(g.spatial));
  return {{c.inputs[0].dtype, out}};
}

double base_coordinate(int64_t i, int64_t extent, bool align) {
  if (extent <= 1) return 0.0;
  if (align) return -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(extent - 1);
  return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(extent) - 1.0;
}

// Calls f(n, point index, base coordinates x, y, z) for every output point, row-major over
// (D,) H, W.
template <class F>
void for_each_point(const AffineGeom& g, bool align, F&& f) {
  const int64_t d = g.spatial == 3 ? g.dims[0] : 1;
  const int64_t h = g.dims[g.dims.size() - 2], w = g.dims.back();
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t k = 0; k < d; ++k)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) {
          const double xyz[3] = {base_coordinate(j, w, align), base_coordinate(i, h, align),
                                 base_coordinate(k, d, align)};
          f(n, (k * h + i) * w + j, xyz);
        }
}

template <class C>
void affine_grid_run(const Attrs& a, const Tensor& theta_t, const std::vector<int64_t>& size,
                     Tensor& out) {
  const AffineGeom g = affine_geom(to_sym(theta_t.shape()), size);
  std::vector<C> scratch;
  const C* theta = read_as(theta_t, scratch, C{});
  OutBuf<C> y(out);
  const int64_t s = g.spatial, points = out.numel() / std::max<int64_t>(1, g.n * s);
  for_each_point(g, a.i("align_corners") != 0, [&](int64_t n, int64_t p, const double* xyz) {
    const C* t = theta + n * s * (s + 1);
    C* o = y.data() + (n * points + p) * s;
    for (int64_t r = 0; r < s; ++r) {
      C v = t[r * (s + 1) + s];
      for (int64_t k = 0; k < s; ++k) v += t[r * (s + 1) + k] * static_cast<C>(xyz[k]);
      o[r] = v;
    }
  });
  y.commit();
}

void affine_grid_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const AffineGeom g = affine_geom(to_sym(in[0].shape()), to_int64s(in[1]));
  const int64_t s = g.spatial, points = out[0].numel() / std::max<int64_t>(1, g.n * s);
  for_each_point(g, a.i("align_corners") != 0, [&](int64_t n, int64_t p, const double* xyz) {
    for (int64_t r = 0; r < s; ++r) {
      const int64_t row = (n * s + r) * (s + 1);
      double v = in[0].at(row + s);
      for (int64_t k = 0; k < s; ++k) v += in[0].at(row + k) * xyz[k];
      out[0].set((n * points + p) * s + r, v);
    }
  });
}

}  // namespace

void register_nn_affine_grid(Registry& r) {
  r.add(def_op("AffineGrid", 20)
            .input("theta", "T1")
            .input("size", "i64", Arity::kSingle, true)
            .output("grid", "T1")
            .attr("align_corners", AttrKind::kInt, int64_t{0})
            .type_constraint("T1", float_types())
            .describe("grid [N, (D,) H, W, 2 or 3] = theta [N, 2, 3] or [N, 3, 4] applied to the "
                      "normalised base coordinates of size (PyTorch's affine_grid)")
            .infer(infer_affine_grid)
            .host_kernel(
                [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                  const std::vector<int64_t> size = to_int64s(in[1]);
                  if (in[0].dtype() == DType::kF64)
                    affine_grid_run<double>(ctx.attr(), in[0], size, out[0]);
                  else
                    affine_grid_run<float>(ctx.attr(), in[0], size, out[0]);
                })
            .reference(affine_grid_reference));
}

}  // namespace asc

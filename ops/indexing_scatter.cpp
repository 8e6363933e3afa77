// Scatter (9-10 non-negative indices; 11-12 deprecated, negative indices), ScatterElements
// (11-15; 16-17 reduction none/add/mul; 18+ also max/min), ScatterND (same version split).
// Host kernels: output = copy of data, then updates are applied in index order (duplicates:
// the last write wins for reduction none; reductions fold every duplicate).
//
// ScatterElements layout: indices and updates share a shape U (rank of data, U[d] <= data[d] off
// the axis); update p lands at data[p with p[axis] = indices[p]].
// ScatterND layout: data [d_0 .. d_{k-1}, S...], indices [M..., k], updates [M..., S...]; tuple m
// addresses one slice of numel(S).
#include "ops/indexing.h"

namespace asc {
namespace {

using indexing::dims_product;
using indexing::resolve_axis;
using indexing::resolve_index;

const std::vector<DType> kIndexTypes = {DType::kI32, DType::kI64};

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

// The reduction attribute; opsets before 16 have none, 16-17 add/mul, 18+ max/min too.
Reduction parse_reduction(const Attrs& a, std::string_view op) {
  if (!a.has("reduction")) return Reduction::kNone;
  const std::string& s = a.s("reduction");
  if (s == "none") return Reduction::kNone;
  if (s == "add") return Reduction::kAdd;
  if (s == "mul") return Reduction::kMul;
  if (s == "max") return Reduction::kMax;
  if (s == "min") return Reduction::kMin;
  throw ShapeError(cat(op, ": reduction '", s, "' is not one of none, add, mul, max, min"));
}

Reduction checked_reduction(const Attrs& a, std::string_view op, bool minmax) {
  const Reduction red = parse_reduction(a, op);
  if (!minmax && (red == Reduction::kMax || red == Reduction::kMin))
    throw ShapeError(cat(op, ": reduction '", a.s("reduction"),
                         "' needs opset 18 (this version has none, add, mul)"));
  return red;
}

template <typename C>
C reduce_value(Reduction red, C a, C b) {
  switch (red) {
    case Reduction::kAdd:
      return static_cast<C>(a + b);
    case Reduction::kMul:
      return static_cast<C>(a * b);
    case Reduction::kMax:
      return indexing::value_less(a, b) ? b : a;
    case Reduction::kMin:
      return indexing::value_less(b, a) ? b : a;
    default:
      return b;
  }
}

double reduce_double(Reduction red, double a, double b) {
  switch (red) {
    case Reduction::kAdd:
      return a + b;
    case Reduction::kMul:
      return a * b;
    case Reduction::kMax:
      return std::max(a, b);
    case Reduction::kMin:
      return std::min(a, b);
    default:
      return b;
  }
}

// out = data, then out[off[e] .. + slice) = reduce(out, updates[e * slice .. + slice)).
void apply_updates(const Tensor& data, const Tensor& upd, Tensor& out,
                   const std::vector<int64_t>& offs, int64_t slice, Reduction red,
                   std::string_view op) {
  if (data.nbytes()) std::memcpy(out.data(), data.data(), data.nbytes());
  const size_t es = dtype_size(data.dtype());
  if (red == Reduction::kNone) {
    const auto* s = static_cast<const std::byte*>(upd.data());
    auto* d = static_cast<std::byte*>(out.data());
    const size_t bytes = static_cast<size_t>(slice) * es;
    for (size_t e = 0; e < offs.size(); ++e)
      std::memcpy(d + offs[e] * static_cast<int64_t>(es), s + e * bytes, bytes);
    return;
  }
  indexing::visit_elem(data.dtype(), op, [&](auto tag) {
    using S = decltype(tag);
    using E = indexing::Elem<S>;
    const S* u = static_cast<const S*>(upd.data());
    S* d = static_cast<S*>(out.data());
    for (size_t e = 0; e < offs.size(); ++e) {
      S* dr = d + offs[e];
      const S* ur = u + static_cast<int64_t>(e) * slice;
      for (int64_t j = 0; j < slice; ++j)
        dr[j] = E::store(reduce_value(red, E::load(dr[j]), E::load(ur[j])));
    }
  });
}

// ---- ScatterElements / Scatter ---------------------------------------------------------------

std::vector<TensorType> scatter_elements_infer(const InferContext& c, std::string_view op,
                                               bool minmax) {
  checked_reduction(c.attrs, op, minmax);
  const TensorType& x = c.inputs[0];
  const TensorType& idx = c.inputs[1];
  const TensorType& upd = c.inputs[2];
  if (!x.shape || !idx.shape || !upd.shape) return {{x.dtype, x.shape}};
  const int64_t r = static_cast<int64_t>(x.shape->size());
  if (r < 1 || idx.shape->size() != x.shape->size() || upd.shape->size() != idx.shape->size())
    throw ShapeError(cat(op, ": data ", x.str(), ", indices ", idx.str(), " and updates ",
                         upd.str(), " must have the same rank >= 1"));
  const int64_t axis = resolve_axis(c.attrs.i("axis"), r, op);
  for (int64_t d = 0; d < r; ++d) {
    const Dim &xd = (*x.shape)[d], &id = (*idx.shape)[d], &ud = (*upd.shape)[d];
    if ((id.known() && ud.known() && id.value() != ud.value()) ||
        (d != axis && xd.known() && id.known() && id.value() > xd.value()))
      throw ShapeError(cat(op, ": indices ", idx.str(), " and updates ", upd.str(),
                           " must have the same shape, within data ", x.str(), " off axis ", axis));
  }
  return {{x.dtype, x.shape}};
}

// The data offset each element of indices addresses (row-major walk, last dim inner).
std::vector<int64_t> element_offsets(const Shape& xs, const Tensor& ind, size_t axis, bool negative,
                                     std::string_view op) {
  const Shape& is = ind.shape();
  const size_t r = is.size();
  const Shape xstr = contiguous_strides(xs);
  std::vector<int64_t> offs = indexing::index_values(ind);
  std::vector<int64_t> pos(r, 0);
  for (size_t e = 0; e < offs.size(); ++e) {
    int64_t off = resolve_index(offs[e], xs[axis], negative, op) * xstr[axis];
    for (size_t k = 0; k < r; ++k)
      if (k != axis) off += pos[k] * xstr[k];
    offs[e] = off;
    for (int64_t k = static_cast<int64_t>(r) - 1; k >= 0; --k) {
      if (++pos[k] < is[k]) break;
      pos[k] = 0;
    }
  }
  return offs;
}

void scatter_elements_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                             std::span<Tensor> out, bool negative) {
  const std::string op = ctx.op->type;
  const Tensor& x = in[0];
  const size_t axis = static_cast<size_t>(
      resolve_axis(ctx.attr().i("axis"), static_cast<int64_t>(x.shape().size()), op));
  const auto offs = element_offsets(x.shape(), in[1], axis, negative, op);
  apply_updates(x, in[2], out[0], offs, 1, parse_reduction(ctx.attr(), op), op);
}

void scatter_elements_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &ind = in[1], &upd = in[2];
  Tensor& y = out[0];
  const Reduction red = parse_reduction(a, "ScatterElements");
  for (int64_t e = 0; e < x.numel(); ++e) indexing::copy_element(x, e, y, e);
  const size_t r = x.shape().size();
  const size_t axis = static_cast<size_t>(a.i("axis") < 0 ? a.i("axis") + r : a.i("axis"));
  const int64_t n = x.shape()[axis];
  const Shape xstr = contiguous_strides(x.shape());
  std::vector<int64_t> p(r + 1);
  for (int64_t e = 0; e < ind.numel(); ++e) {
    unravel(e, ind.shape(), p.data());
    const int64_t k = static_cast<int64_t>(ind.at(e));
    if (k < -n || k >= n) throw ShapeError(cat("ScatterElements: index ", k, " out of range"));
    p[axis] = k < 0 ? k + n : k;
    const int64_t t = ravel(p.data(), xstr, r);
    if (red == Reduction::kNone)
      indexing::copy_element(upd, e, y, t);
    else
      y.set(t, reduce_double(red, y.at(t), upd.at(e)));
  }
}

// ---- ScatterND -------------------------------------------------------------------------------

std::vector<TensorType> scatter_nd_infer(const InferContext& c, bool minmax) {
  checked_reduction(c.attrs, "ScatterND", minmax);
  const TensorType& x = c.inputs[0];
  const TensorType& idx = c.inputs[1];
  const TensorType& upd = c.inputs[2];
  if (!x.shape || !idx.shape || !upd.shape || idx.shape->empty() || !idx.shape->back().known())
    return {{x.dtype, x.shape}};
  const int64_t r = static_cast<int64_t>(x.shape->size());
  const int64_t q = static_cast<int64_t>(idx.shape->size());
  const int64_t k = idx.shape->back().value();
  if (r < 1 || k < 1 || k > r)
    throw ShapeError(cat("ScatterND: indices ", idx.str(), " last dim must be in [1, ", r,
                         "] for data ", x.str()));
  SymShape want(idx.shape->begin(), idx.shape->end() - 1);
  want.insert(want.end(), x.shape->begin() + k, x.shape->end());
  bool ok = static_cast<int64_t>(upd.shape->size()) == q - 1 + r - k;
  for (size_t d = 0; ok && d < want.size(); ++d) {
    const Dim &w = want[d], &u = (*upd.shape)[d];
    ok = !(w.known() && u.known() && w.value() != u.value());
  }
  if (!ok)
    throw ShapeError(cat("ScatterND: updates ", upd.str(), " must be ", to_string(want),
                         " for data ", x.str(), " and indices ", idx.str()));
  return {{x.dtype, x.shape}};
}

void scatter_nd_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                       std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& xs = x.shape();
  const Shape& is = in[1].shape();
  const size_t k = static_cast<size_t>(is.back());
  const int64_t slice = dims_product(xs, k, xs.size());
  std::vector<int64_t> idx = indexing::index_values(in[1]);
  std::vector<int64_t> offs(idx.size() / std::max<size_t>(k, 1));
  for (size_t t = 0; t < offs.size(); ++t) {
    int64_t off = 0;
    for (size_t j = 0; j < k; ++j)
      off += resolve_index(idx[t * k + j], xs[j], true, "ScatterND", cat("dim ", j)) *
             dims_product(xs, j + 1, xs.size());
    offs[t] = off;
  }
  apply_updates(x, in[2], out[0], offs, slice, parse_reduction(ctx.attr(), "ScatterND"),
                "ScatterND");
}

void scatter_nd_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &ind = in[1], &upd = in[2];
  Tensor& y = out[0];
  const Reduction red = parse_reduction(a, "ScatterND");
  for (int64_t e = 0; e < x.numel(); ++e) indexing::copy_element(x, e, y, e);
  const size_t r = x.shape().size();
  const size_t q = ind.shape().size();
  const size_t k = static_cast<size_t>(ind.shape().back());
  const Shape xstr = contiguous_strides(x.shape());
  std::vector<int64_t> ui(upd.shape().size() + 1), xi(r + 1);
  for (int64_t e = 0; e < upd.numel(); ++e) {
    unravel(e, upd.shape(), ui.data());
    int64_t tuple = 0;  // flat position of the tuple among indices' leading dims
    for (size_t d = 0; d + 1 < q; ++d) tuple = tuple * ind.shape()[d] + ui[d];
    for (size_t j = 0; j < k; ++j) {
      int64_t v = static_cast<int64_t>(ind.at(tuple * static_cast<int64_t>(k) + j));
      const int64_t n = x.shape()[j];
      if (v < -n || v >= n) throw ShapeError(cat("ScatterND: index ", v, " out of range"));
      xi[j] = v < 0 ? v + n : v;
    }
    for (size_t d = k; d < r; ++d) xi[d] = ui[q - 1 + d - k];
    const int64_t t = ravel(xi.data(), xstr, r);
    if (red == Reduction::kNone)
      indexing::copy_element(upd, e, y, t);
    else
      y.set(t, reduce_double(red, y.at(t), upd.at(e)));
  }
}

struct Version {
  int since, until;
  bool negative;  // negative indices allowed
  bool reduction;
  bool minmax;
};

}  // namespace

void register_indexing_scatter(Registry& r) {
  const Version scatter[] = {{9, 10, false, false, false}, {11, 12, true, false, false}};
  for (const Version& v : scatter) {
    r.add(def_op("Scatter", v.since, v.until)
              .input("data", "T")
              .input("indices", "Tind")
              .input("updates", "T")
              .output("output", "T")
              .attr("axis", AttrKind::kInt, int64_t{0})
              .type_constraint("T", numeric_bool_types())
              .type_constraint("Tind", kIndexTypes)
              .trait(kMovement)
              .describe(v.negative ? "deprecated alias of ScatterElements-11 (negative indices)"
                                   : "output = data with output[p with p[axis] = indices[p]] = "
                                     "updates[p]; indices in [0, n)")
              .infer(
                  [](const InferContext& c) { return scatter_elements_infer(c, "Scatter", false); })
              .host_kernel([neg = v.negative](const LaunchContext& ctx, std::span<const Tensor> in,
                                              std::span<Tensor> out) {
                scatter_elements_kernel(ctx, in, out, neg);
              })
              .reference(scatter_elements_reference));
  }

  const Version versions[] = {
      {11, 15, true, false, false}, {16, 17, true, true, false}, {18, INT_MAX, true, true, true}};
  for (const Version& v : versions) {
    OpDef se = def_op("ScatterElements", v.since, v.until);
    se.input("data", "T")
        .input("indices", "Tind")
        .input("updates", "T")
        .output("output", "T")
        .attr("axis", AttrKind::kInt, int64_t{0})
        .type_constraint("T", numeric_bool_types())
        .type_constraint("Tind", kIndexTypes)
        .trait(kMovement)
        .describe(!v.reduction ? "output = data with output[p with p[axis] = indices[p]] = "
                                 "updates[p]"
                  : v.minmax   ? "output = data with updates folded in at p with p[axis] = "
                                 "indices[p] (reduction none/add/mul/max/min)"
                               : "output = data with updates folded in at p with p[axis] = "
                                 "indices[p] (reduction none/add/mul)")
        .infer([minmax = v.minmax](const InferContext& c) {
          return scatter_elements_infer(c, "ScatterElements", minmax);
        })
        .host_kernel([](const LaunchContext& ctx, std::span<const Tensor> in,
                        std::span<Tensor> out) { scatter_elements_kernel(ctx, in, out, true); })
        .reference(scatter_elements_reference);
    if (v.reduction) se.attr("reduction", AttrKind::kString, std::string("none"));
    r.add(std::move(se));

    OpDef sn = def_op("ScatterND", v.since, v.until);
    sn.input("data", "T")
        .input("indices", "Tind")
        .input("updates", "T")
        .output("output", "T")
        .type_constraint("T", numeric_bool_types())
        .type_constraint("Tind", kIndexTypes)
        .trait(kMovement)
        .describe(!v.reduction ? "output = data with the slices addressed by indices' tuples "
                                 "replaced by updates"
                  : v.minmax   ? "output = data with updates folded into the slices addressed "
                                 "by indices' tuples (reduction none/add/mul/max/min)"
                               : "output = data with updates folded into the slices addressed "
                                 "by indices' tuples (reduction none/add/mul)")
        .infer([minmax = v.minmax](const InferContext& c) { return scatter_nd_infer(c, minmax); })
        .host_kernel(scatter_nd_kernel)
        .reference(scatter_nd_reference);
    if (v.reduction) sn.attr("reduction", AttrKind::kString, std::string("none"));
    r.add(std::move(sn));
  }
}

}  // namespace asc

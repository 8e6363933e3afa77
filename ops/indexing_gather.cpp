// Gather (1-10 non-negative indices by the spec, negative accepted as ONNX Runtime does; 11+
// negative indices), GatherElements (11+), GatherND (11,
// 12+ batch_dims). Host kernels: indices are validated first (ShapeError naming the op, the index
// and the bound), then data moves as contiguous byte runs.
//
// Gather layout: data [outer, n, inner] around `axis`, indices I (any rank), output
// [outer, numel(I), inner]; output row (o, j) is data row (o, I[j]).
// GatherND layout: data [B, d_b .. d_{b+k-1}, S...], indices [B, M, k] (B = batch dims, M = the
// index tuples per batch), output [B, M, S...]; every tuple selects one slice of numel(S).
#include <algorithm>

#include "ops/indexing.h"
#include "registry/lenient.h"

namespace asc {
namespace {

using indexing::dims_product;
using indexing::resolve_axis;
using indexing::resolve_index;

const std::vector<DType> kIndexTypes = {DType::kI32, DType::kI64};

// ---- Gather ----------------------------------------------------------------------------------

std::vector<TensorType> gather_infer(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const TensorType& idx = c.inputs[1];
  if (!x.shape || !idx.shape) return {{x.dtype, std::nullopt}};
  const int64_t r = static_cast<int64_t>(x.shape->size());
  if (r < 1) throw ShapeError(cat("Gather: data must have rank >= 1, got ", x.str()));
  const int64_t axis = resolve_axis(c.attrs.i("axis"), r, "Gather");
  SymShape s(x.shape->begin(), x.shape->begin() + axis);
  s.insert(s.end(), idx.shape->begin(), idx.shape->end());
  s.insert(s.end(), x.shape->begin() + axis + 1, x.shape->end());
  return {{x.dtype, s}};
}

void gather_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out,
                   bool negative) {
  const Tensor& x = in[0];
  const Shape& xs = x.shape();
  const size_t axis = static_cast<size_t>(
      resolve_axis(ctx.attr().i("axis"), static_cast<int64_t>(xs.size()), "Gather"));
  const int64_t outer = dims_product(xs, 0, axis), n = xs[axis];
  const int64_t inner = dims_product(xs, axis + 1, xs.size());
  std::vector<int64_t> idx = indexing::index_values(in[1]);
  // Gather-1..10 take indices in [0, n) by the spec; negative ones are accepted as ONNX Runtime
  // does (registry/lenient.h).
  if (!negative && std::any_of(idx.begin(), idx.end(), [n](int64_t i) { return i < 0 && i >= -n; }))
    log_lenient("Gather", 1, "negative indices");
  for (auto& i : idx) i = resolve_index(i, n, true, "Gather");
  const int64_t m = static_cast<int64_t>(idx.size());
  const size_t es = dtype_size(x.dtype());
  const auto* src = static_cast<const std::byte*>(x.data());
  auto* dst = static_cast<std::byte*>(out[0].data());
  if (inner == 1) {  // single elements: typed moves
    indexing::visit_size(x.dtype(), "Gather", [&](auto u) {
      using U = decltype(u);
      const U* s = reinterpret_cast<const U*>(src);
      U* d = reinterpret_cast<U*>(dst);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < m; ++j) d[o * m + j] = s[o * n + idx[j]];
    });
    return;
  }
  const size_t row = static_cast<size_t>(inner) * es;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < m; ++j)
      std::memcpy(dst + (o * m + j) * row, src + (o * n + idx[j]) * row, row);
}

void gather_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Tensor& ind = in[1];
  Tensor& y = out[0];
  const size_t r = x.shape().size(), q = ind.shape().size();
  const size_t axis = static_cast<size_t>(a.i("axis") < 0 ? a.i("axis") + r : a.i("axis"));
  const int64_t n = x.shape()[axis];
  const Shape xstr = contiguous_strides(x.shape());
  const Shape istr = contiguous_strides(ind.shape());
  std::vector<int64_t> oi(y.shape().size() + 1);
  for (int64_t e = 0; e < y.numel(); ++e) {
    unravel(e, y.shape(), oi.data());
    int64_t ipos = 0;
    for (size_t d = 0; d < q; ++d) ipos += oi[axis + d] * istr[d];
    int64_t k = static_cast<int64_t>(ind.at(ipos));
    if (k < -n || k >= n)  // negative indices in 1-10 too, as the kernel accepts them
      throw ShapeError(cat("Gather: index ", k, " is out of range for axis of size ", n));
    if (k < 0) k += n;
    int64_t src = 0;
    for (size_t d = 0; d < axis; ++d) src += oi[d] * xstr[d];
    src += k * xstr[axis];
    for (size_t d = axis + 1; d < r; ++d) src += oi[d - 1 + q] * xstr[d];
    indexing::copy_element(x, src, y, e);
  }
}

// ---- GatherElements --------------------------------------------------------------------------

std::vector<TensorType> gather_elements_infer(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const TensorType& idx = c.inputs[1];
  if (!x.shape || !idx.shape) return {{x.dtype, idx.shape}};
  const int64_t r = static_cast<int64_t>(x.shape->size());
  if (r < 1 || idx.shape->size() != x.shape->size())
    throw ShapeError(cat("GatherElements: data ", x.str(), " and indices ", idx.str(),
                         " must have the same rank >= 1"));
  const int64_t axis = resolve_axis(c.attrs.i("axis"), r, "GatherElements");
  for (int64_t d = 0; d < r; ++d) {
    const Dim& xd = (*x.shape)[d];
    const Dim& id = (*idx.shape)[d];
    if (d != axis && xd.known() && id.known() && id.value() > xd.value())
      throw ShapeError(
          cat("GatherElements: indices ", idx.str(), " exceed data ", x.str(), " in dim ", d));
  }
  return {{x.dtype, idx.shape}};
}

// out[p] = data[p with p[axis] = indices[p]]; walks the indices row by row (last dim inner).
void gather_elements_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                            std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& is = in[1].shape();
  const size_t r = is.size();
  const size_t axis = static_cast<size_t>(
      resolve_axis(ctx.attr().i("axis"), static_cast<int64_t>(r), "GatherElements"));
  const int64_t n = x.shape()[axis];
  const Shape xstr = contiguous_strides(x.shape());
  std::vector<int64_t> idx = indexing::index_values(in[1]);
  for (auto& i : idx) i = resolve_index(i, n, true, "GatherElements");
  if (idx.empty()) return;
  const int64_t last = is[r - 1];
  const int64_t rows = static_cast<int64_t>(idx.size()) / last;
  indexing::visit_size(x.dtype(), "GatherElements", [&](auto u) {
    using U = decltype(u);
    const U* s = static_cast<const U*>(x.data());
    U* d = static_cast<U*>(out[0].data());
    std::vector<int64_t> pos(r, 0);  // multi-index of the row start (last dim 0)
    const int64_t step = xstr[r - 1];
    for (int64_t row = 0; row < rows; ++row) {
      int64_t base = 0;  // data offset of the row, axis dim excluded
      for (size_t k = 0; k + 1 < r; ++k)
        if (k != axis) base += pos[k] * xstr[k];
      const int64_t* ir = idx.data() + row * last;
      U* dr = d + row * last;
      if (axis == r - 1) {
        for (int64_t j = 0; j < last; ++j) dr[j] = s[base + ir[j]];
      } else {
        const int64_t as = xstr[axis];
        for (int64_t j = 0; j < last; ++j) dr[j] = s[base + ir[j] * as + j * step];
      }
      for (int64_t k = static_cast<int64_t>(r) - 2; k >= 0; --k) {  // odometer over rows
        if (++pos[k] < is[k]) break;
        pos[k] = 0;
      }
    }
  });
}

void gather_elements_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Tensor& ind = in[1];
  const size_t r = x.shape().size();
  const size_t axis = static_cast<size_t>(a.i("axis") < 0 ? a.i("axis") + r : a.i("axis"));
  const int64_t n = x.shape()[axis];
  const Shape xstr = contiguous_strides(x.shape());
  std::vector<int64_t> p(r + 1);
  for (int64_t e = 0; e < ind.numel(); ++e) {
    unravel(e, ind.shape(), p.data());
    int64_t k = static_cast<int64_t>(ind.at(e));
    if (k < -n || k >= n) throw ShapeError(cat("GatherElements: index ", k, " out of range"));
    p[axis] = k < 0 ? k + n : k;
    indexing::copy_element(x, ravel(p.data(), xstr, r), out[0], e);
  }
}

// ---- GatherND --------------------------------------------------------------------------------

std::vector<TensorType> gather_nd_infer(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const TensorType& idx = c.inputs[1];
  const int64_t b = c.attrs.i("batch_dims", 0);
  if (!x.shape || !idx.shape || idx.shape->empty() || !idx.shape->back().known())
    return {{x.dtype, std::nullopt}};
  const int64_t r = static_cast<int64_t>(x.shape->size());
  const int64_t q = static_cast<int64_t>(idx.shape->size());
  const int64_t k = idx.shape->back().value();
  if (b < 0 || b >= std::min(q, r))
    throw ShapeError(cat("GatherND: batch_dims ", b, " must be in [0, min(rank(data) ", r,
                         ", rank(indices) ", q, ")"));
  if (k < 1 || k > r - b)
    throw ShapeError(cat("GatherND: indices ", idx.str(), " last dim ", k, " must be in [1, ",
                         r - b, "] for data ", x.str(), " and batch_dims ", b));
  for (int64_t d = 0; d < b; ++d) {
    const Dim& xd = (*x.shape)[d];
    const Dim& id = (*idx.shape)[d];
    if (xd.known() && id.known() && xd.value() != id.value())
      throw ShapeError(
          cat("GatherND: batch dim ", d, " differs: data ", x.str(), ", indices ", idx.str()));
  }
  SymShape s(idx.shape->begin(), idx.shape->end() - 1);
  s.insert(s.end(), x.shape->begin() + b + k, x.shape->end());
  return {{x.dtype, s}};
}

void gather_nd_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& xs = x.shape();
  const Shape& is = in[1].shape();
  const size_t b = static_cast<size_t>(ctx.attr().i("batch_dims", 0));
  const size_t k = static_cast<size_t>(is.back());
  const int64_t batches = dims_product(xs, 0, b);
  const int64_t tuples = dims_product(is, b, is.size() - 1);
  const int64_t slice = dims_product(xs, b + k, xs.size());
  const int64_t batch_stride = dims_product(xs, b, xs.size());
  Shape stride(k);  // element stride of each indexed dim
  for (size_t j = 0; j < k; ++j) stride[j] = dims_product(xs, b + j + 1, xs.size());
  const std::vector<int64_t> idx = indexing::index_values(in[1]);
  std::vector<int64_t> offs(static_cast<size_t>(batches * tuples));
  for (int64_t t = 0; t < batches * tuples; ++t) {
    int64_t off = (t / std::max<int64_t>(tuples, 1)) * batch_stride;
    for (size_t j = 0; j < k; ++j)
      off += resolve_index(idx[t * k + j], xs[b + j], true, "GatherND", cat("dim ", b + j)) *
             stride[j];
    offs[t] = off;
  }
  const size_t es = dtype_size(x.dtype());
  const size_t bytes = static_cast<size_t>(slice) * es;
  const auto* src = static_cast<const std::byte*>(x.data());
  auto* dst = static_cast<std::byte*>(out[0].data());
  for (size_t t = 0; t < offs.size(); ++t)
    std::memcpy(dst + t * bytes, src + offs[t] * static_cast<int64_t>(es), bytes);
}

void gather_nd_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Tensor& ind = in[1];
  Tensor& y = out[0];
  const size_t b = static_cast<size_t>(a.i("batch_dims", 0));
  const size_t q = ind.shape().size(), r = x.shape().size();
  const size_t k = static_cast<size_t>(ind.shape().back());
  const Shape istr = contiguous_strides(ind.shape());
  const Shape xstr = contiguous_strides(x.shape());
  std::vector<int64_t> oi(y.shape().size() + 1), xi(r + 1);
  for (int64_t e = 0; e < y.numel(); ++e) {
    unravel(e, y.shape(), oi.data());
    // oi = [batch dims (b), tuple dims (q-1-b), slice dims (r-b-k)]
    int64_t ibase = 0;
    for (size_t d = 0; d + 1 < q; ++d) ibase += oi[d] * istr[d];
    for (size_t d = 0; d < b; ++d) xi[d] = oi[d];
    for (size_t j = 0; j < k; ++j) {
      int64_t v = static_cast<int64_t>(ind.at(ibase + static_cast<int64_t>(j)));
      const int64_t n = x.shape()[b + j];
      if (v < -n || v >= n) throw ShapeError(cat("GatherND: index ", v, " out of range"));
      xi[b + j] = v < 0 ? v + n : v;
    }
    for (size_t d = b + k; d < r; ++d) xi[d] = oi[q - 1 + d - b - k];
    indexing::copy_element(x, ravel(xi.data(), xstr, r), y, e);
  }
}

}  // namespace

void register_indexing_gather(Registry& r) {
  for (const bool negative : {false, true}) {
    r.add(def_op("Gather", negative ? 11 : 1, negative ? INT_MAX : 10)
              .input("data", "T")
              .input("indices", "Tind")
              .output("output", "T")
              .attr("axis", AttrKind::kInt, int64_t{0})
              .type_constraint("T", numeric_bool_types())
              .type_constraint("Tind", kIndexTypes)
              .trait(kMovement)
              .describe(negative ? "output = data rows along axis selected by indices (negative "
                                   "indices count from the end)"
                                 : "output = data rows along axis selected by indices in [0, n)")
              .infer(gather_infer)
              .host_kernel(
                  [negative](const LaunchContext& ctx, std::span<const Tensor> in,
                             std::span<Tensor> out) { gather_kernel(ctx, in, out, negative); })
              .reference([negative](const Attrs& a, std::span<const Tensor> in,
                                    std::span<Tensor> out) { gather_reference(a, in, out); }));
  }

  r.add(def_op("GatherElements", 11)
            .input("data", "T")
            .input("indices", "Tind")
            .output("output", "T")
            .attr("axis", AttrKind::kInt, int64_t{0})
            .type_constraint("T", numeric_bool_types())
            .type_constraint("Tind", kIndexTypes)
            .trait(kMovement)
            .describe("output[p] = data[p with p[axis] = indices[p]]; output has indices' shape")
            .infer(gather_elements_infer)
            .host_kernel(gather_elements_kernel)
            .reference(gather_elements_reference));

  for (const bool batch : {false, true}) {
    OpDef d = def_op("GatherND", batch ? 12 : 11, batch ? INT_MAX : 11);
    d.input("data", "T")
        .input("indices", "Tind")
        .output("output", "T")
        .type_constraint("T", numeric_bool_types())
        .type_constraint("Tind", kIndexTypes)
        .trait(kMovement)
        .describe(batch ? "output = data slices addressed by the index tuples in indices' last "
                          "dim, after batch_dims shared leading dims"
                        : "output = data slices addressed by the index tuples in indices' last dim")
        .infer(gather_nd_infer)
        .host_kernel(gather_nd_kernel)
        .reference(gather_nd_reference);
    if (batch) d.attr("batch_dims", AttrKind::kInt, int64_t{0});
    r.add(std::move(d));
  }
}

}  // namespace asc

// TopK (1-9 attribute k; 10 K input; 11+ largest/sorted), Unique (11+), CumSum (11+). Host
// kernels over the view [outer, n, inner] around the axis: a "slice" is the n elements
// (o, 0..n-1, i) for TopK/CumSum, and for Unique the outer*inner elements (.., j, ..) of one
// index j (flattened input: [1, numel, 1]).
//
// Orders: values compare with NaN above every number; ties keep the lower index first (TopK's
// stable order, Unique's first occurrence).
#include <algorithm>
#include <limits>
#include <numeric>

#include "ops/indexing.h"

namespace asc {
namespace {

using indexing::dims_product;
using indexing::resolve_axis;
using indexing::value_less;

constexpr int64_t kNoAxis = std::numeric_limits<int64_t>::min();  // axis attribute absent

struct AxisView {
  int64_t outer = 1, n = 0, inner = 1;
};

AxisView axis_view(const Shape& s, size_t axis) {
  return {dims_product(s, 0, axis), s[axis], dims_product(s, axis + 1, s.size())};
}

// ---- TopK ------------------------------------------------------------------------------------

enum class KFrom { kAttr, kInput };

int64_t topk_k(const Attrs& a, const Tensor* k_input, KFrom from) {
  if (from == KFrom::kAttr) return a.i("k");
  const Tensor& t = *k_input;
  if (t.numel() != 1 || t.shape().size() > 1)
    throw ShapeError(cat("TopK: K must be a 1-element 1-D tensor, got ", t.desc().str()));
  return indexing::index_values(t)[0];
}

std::vector<TensorType> topk_infer(const InferContext& c, KFrom from) {
  const TensorType& x = c.inputs[0];
  const Tensor* kt = from == KFrom::kInput ? &need_value(c, 1) : nullptr;
  const int64_t k = topk_k(c.attrs, kt, from);
  if (!x.shape) return {{x.dtype, std::nullopt}, {DType::kI64, std::nullopt}};
  const int64_t r = static_cast<int64_t>(x.shape->size());
  if (r < 1) throw ShapeError(cat("TopK: input must have rank >= 1, got ", x.str()));
  const int64_t axis = resolve_axis(c.attrs.i("axis"), r, "TopK");
  SymShape s = *x.shape;
  const Dim& n = s[axis];
  if (k < 0 || (n.known() && k > n.value()))
    throw ShapeError(cat("TopK: k ", k, " is out of range [0, ", n.str(), "] for input ", x.str(),
                         " axis ", axis));
  s[axis] = Dim(k);
  return {{x.dtype, s}, {DType::kI64, s}};
}

void topk_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out,
                 KFrom from) {
  const Tensor& x = in[0];
  const Attrs& a = ctx.attr();
  const Tensor* kt = from == KFrom::kInput ? &in[1] : nullptr;
  const int64_t k = topk_k(a, kt, from);
  const size_t axis = static_cast<size_t>(
      resolve_axis(a.i("axis"), static_cast<int64_t>(x.shape().size()), "TopK"));
  const AxisView v = axis_view(x.shape(), axis);
  if (k < 0 || k > v.n) throw ShapeError(cat("TopK: k ", k, " is out of range [0, ", v.n, "]"));
  const bool largest = a.i("largest", 1) != 0;
  indexing::visit_elem(x.dtype(), "TopK", [&](auto tag) {
    using S = decltype(tag);
    using E = indexing::Elem<S>;
    using C = typename E::C;
    const S* xp = x.data_as<S>();
    S* vals = out[0].data_as<S>();
    int64_t* idxs = out[1].data_as<int64_t>();
    std::vector<C> row(static_cast<size_t>(v.n));
    std::vector<int64_t> order(static_cast<size_t>(v.n));
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const S* src = xp + o * v.n * v.inner + i;
        for (int64_t j = 0; j < v.n; ++j) row[j] = E::load(src[j * v.inner]);
        std::iota(order.begin(), order.end(), int64_t{0});
        auto before = [&](int64_t p, int64_t q) {
          const bool lt = largest ? value_less(row[q], row[p]) : value_less(row[p], row[q]);
          const bool gt = largest ? value_less(row[p], row[q]) : value_less(row[q], row[p]);
          return lt || (!gt && p < q);
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        const int64_t base = o * k * v.inner + i;
        for (int64_t j = 0; j < k; ++j) {
          vals[base + j * v.inner] = src[order[j] * v.inner];
          idxs[base + j * v.inner] = order[j];
        }
      }
  });
}

// Naive selection: the j-th output is the best element not taken yet (ties: lowest index).
void topk_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const size_t r = x.shape().size();
  const size_t axis = static_cast<size_t>(a.i("axis") < 0 ? a.i("axis") + r : a.i("axis"));
  const bool largest = a.i("largest", 1) != 0;
  const int64_t n = x.shape()[axis], k = out[0].shape()[axis];
  const int64_t inner = dims_product(x.shape(), axis + 1, r);
  const int64_t outer = dims_product(x.shape(), 0, axis);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<bool> taken(static_cast<size_t>(n), false);
      for (int64_t j = 0; j < k; ++j) {
        int64_t best = -1;
        for (int64_t m = 0; m < n; ++m) {
          if (taken[m]) continue;
          const double v = x.at((o * n + m) * inner + i);
          const double b = best < 0 ? 0 : x.at((o * n + best) * inner + i);
          if (best < 0 || (largest ? v > b : v < b)) best = m;
        }
        taken[best] = true;
        const int64_t at = (o * k + j) * inner + i;
        indexing::copy_element(x, (o * n + best) * inner + i, out[0], at);
        out[1].set(at, static_cast<double>(best));
      }
    }
}

// ---- Unique ----------------------------------------------------------------------------------

struct UniqueResult {
  std::vector<int64_t> first;    // per output group: index of its first occurrence
  std::vector<int64_t> count;    // per output group
  std::vector<int64_t> inverse;  // per input index j: its group
};

AxisView unique_view(const Shape& s, int64_t axis_attr) {
  if (axis_attr == kNoAxis) return {1, numel(s), 1};
  const size_t axis =
      static_cast<size_t>(resolve_axis(axis_attr, static_cast<int64_t>(s.size()), "Unique"));
  return axis_view(s, axis);
}

UniqueResult unique_groups(const Tensor& x, const AxisView& v, bool sorted) {
  UniqueResult res;
  std::vector<int64_t> order(static_cast<size_t>(v.n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::vector<std::pair<int64_t, int64_t>> runs;  // [begin, end) of equal slices in `order`
  indexing::visit_elem(x.dtype(), "Unique", [&](auto tag) {
    using S = decltype(tag);
    using E = indexing::Elem<S>;
    const S* p = x.data_as<S>();
    // -1, 0, 1: lexicographic comparison of slices j and m.
    auto cmp = [&](int64_t j, int64_t m) {
      for (int64_t o = 0; o < v.outer; ++o)
        for (int64_t i = 0; i < v.inner; ++i) {
          const auto a = E::load(p[(o * v.n + j) * v.inner + i]);
          const auto b = E::load(p[(o * v.n + m) * v.inner + i]);
          if (value_less(a, b)) return -1;
          if (value_less(b, a)) return 1;
        }
      return 0;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t j, int64_t m) { return cmp(j, m) < 0; });
    for (size_t b = 0; b < order.size();) {
      size_t e = b + 1;
      while (e < order.size() && cmp(order[b], order[e]) == 0) ++e;
      runs.emplace_back(static_cast<int64_t>(b), static_cast<int64_t>(e));
      b = e;
    }
  });
  if (!sorted)  // groups in order of first occurrence
    std::sort(runs.begin(), runs.end(),
              [&](const auto& a, const auto& b) { return order[a.first] < order[b.first]; });
  res.inverse.resize(order.size());
  for (size_t g = 0; g < runs.size(); ++g) {
    res.first.push_back(order[runs[g].first]);
    res.count.push_back(runs[g].second - runs[g].first);
    for (int64_t q = runs[g].first; q < runs[g].second; ++q)
      res.inverse[order[q]] = static_cast<int64_t>(g);
  }
  return res;
}

std::vector<TensorType> unique_infer(const InferContext& c) {
  const Tensor& x = need_value(c, 0);
  const int64_t axis = c.attrs.i("axis");
  const AxisView v = unique_view(x.shape(), axis);
  const int64_t g =
      static_cast<int64_t>(unique_groups(x, v, c.attrs.i("sorted") != 0).first.size());
  Shape y{g};
  if (axis != kNoAxis) {
    y = x.shape();
    y[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(y.size()) : axis)] = g;
  }
  return {{x.dtype(), to_sym(y)},
          {DType::kI64, to_sym(Shape{g})},
          {DType::kI64, to_sym(Shape{v.n})},
          {DType::kI64, to_sym(Shape{g})}};
}

// Outputs present in `out` (a node may ask for Y only): Y, indices, inverse_indices, counts.
void unique_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const AxisView v = unique_view(x.shape(), ctx.attr().i("axis"));
  const UniqueResult u = unique_groups(x, v, ctx.attr().i("sorted") != 0);
  const int64_t g = static_cast<int64_t>(u.first.size());
  const size_t row = static_cast<size_t>(v.inner) * dtype_size(x.dtype());
  const auto* src = static_cast<const std::byte*>(x.data());
  auto* dst = static_cast<std::byte*>(out[0].data());
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t j = 0; j < g; ++j)
      std::memcpy(dst + (o * g + j) * static_cast<int64_t>(row),
                  src + (o * v.n + u.first[j]) * static_cast<int64_t>(row), row);
  const std::vector<int64_t>* rest[] = {&u.first, &u.inverse, &u.count};
  for (size_t k = 1; k < out.size() && k < 4; ++k)
    if (out[k].defined() && !rest[k - 1]->empty())
      std::memcpy(out[k].data(), rest[k - 1]->data(), rest[k - 1]->size() * 8);
}

// Naive: slices compared element by element in double; groups found by linear search.
void unique_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const int64_t axis_attr = a.i("axis");
  const size_t r = x.shape().size();
  int64_t outer = 1, n = x.numel(), inner = 1;
  if (axis_attr != kNoAxis) {
    const size_t axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + r : axis_attr);
    outer = dims_product(x.shape(), 0, axis);
    n = x.shape()[axis];
    inner = dims_product(x.shape(), axis + 1, r);
  }
  auto slice = [&](int64_t j) {
    std::vector<double> s;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) s.push_back(x.at((o * n + j) * inner + i));
    return s;
  };
  std::vector<int64_t> firsts;  // in order of appearance
  std::vector<int64_t> group(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const std::vector<double> s = slice(j);
    size_t g = 0;
    while (g < firsts.size() && slice(firsts[g]) != s) ++g;
    if (g == firsts.size()) firsts.push_back(j);
    group[j] = static_cast<int64_t>(g);
  }
  std::vector<size_t> rank(firsts.size());  // output position of each appearance-order group
  std::iota(rank.begin(), rank.end(), size_t{0});
  if (a.i("sorted") != 0) {
    std::vector<size_t> by(firsts.size());
    std::iota(by.begin(), by.end(), size_t{0});
    std::sort(by.begin(), by.end(),
              [&](size_t p, size_t q) { return slice(firsts[p]) < slice(firsts[q]); });
    for (size_t pos = 0; pos < by.size(); ++pos) rank[by[pos]] = pos;
  }
  const int64_t g = static_cast<int64_t>(firsts.size());
  for (size_t k = 0; k < firsts.size(); ++k)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        indexing::copy_element(x, (o * n + firsts[k]) * inner + i, out[0],
                               (o * g + static_cast<int64_t>(rank[k])) * inner + i);
  if (out.size() > 1)
    for (size_t k = 0; k < firsts.size(); ++k)
      out[1].set(static_cast<int64_t>(rank[k]), static_cast<double>(firsts[k]));
  if (out.size() > 2)
    for (int64_t j = 0; j < n; ++j) out[2].set(j, static_cast<double>(rank[group[j]]));
  if (out.size() > 3) {
    for (size_t k = 0; k < firsts.size(); ++k) out[3].set(static_cast<int64_t>(rank[k]), 0);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = static_cast<int64_t>(rank[group[j]]);
      out[3].set(at, out[3].at(at) + 1);
    }
  }
}

// ---- CumSum ----------------------------------------------------------------------------------

size_t cumsum_axis(const Tensor& axis, int64_t rank) {
  if (axis.numel() != 1 || axis.shape().size() > 1)
    throw ShapeError(cat("CumSum: axis must be a scalar, got ", axis.desc().str()));
  return static_cast<size_t>(resolve_axis(indexing::index_values(axis)[0], rank, "CumSum"));
}

std::vector<TensorType> cumsum_infer(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  if (x.shape && x.shape->empty())
    throw ShapeError(cat("CumSum: input must have rank >= 1, got ", x.str()));
  if (x.shape && c.values.size() > 1 && c.values[1])
    cumsum_axis(*c.values[1], static_cast<int64_t>(x.shape->size()));
  return {x};
}

void cumsum_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const AxisView v =
      axis_view(x.shape(), cumsum_axis(in[1], static_cast<int64_t>(x.shape().size())));
  const bool exclusive = ctx.attr().i("exclusive") != 0, reverse = ctx.attr().i("reverse") != 0;
  indexing::visit_elem(x.dtype(), "CumSum", [&](auto tag) {
    using S = decltype(tag);
    using E = indexing::Elem<S>;
    using C = typename E::C;
    const S* xp = x.data_as<S>();
    S* yp = out[0].data_as<S>();
    std::vector<C> acc(static_cast<size_t>(v.inner));
    for (int64_t o = 0; o < v.outer; ++o) {
      std::fill(acc.begin(), acc.end(), C{});
      for (int64_t s = 0; s < v.n; ++s) {  // rows in scan order, inner elements vectorised
        const int64_t j = reverse ? v.n - 1 - s : s;
        const S* xr = xp + (o * v.n + j) * v.inner;
        S* yr = yp + (o * v.n + j) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) {
          const C next = static_cast<C>(acc[i] + E::load(xr[i]));
          yr[i] = E::store(exclusive ? acc[i] : next);
          acc[i] = next;
        }
      }
    }
  });
}

void cumsum_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const size_t r = x.shape().size();
  int64_t axis = static_cast<int64_t>(in[1].at(0));
  if (axis < 0) axis += static_cast<int64_t>(r);
  const bool exclusive = a.i("exclusive") != 0, reverse = a.i("reverse") != 0;
  const Shape xstr = contiguous_strides(x.shape());
  const int64_t n = x.shape()[axis];
  std::vector<int64_t> p(r + 1);
  for (int64_t e = 0; e < x.numel(); ++e) {
    unravel(e, x.shape(), p.data());
    const int64_t at = p[axis];
    double sum = 0;
    for (int64_t m = 0; m < n; ++m) {
      const bool in_range =
          reverse ? (exclusive ? m > at : m >= at) : (exclusive ? m < at : m <= at);
      if (!in_range) continue;
      p[axis] = m;
      sum += x.at(ravel(p.data(), xstr, r));
    }
    out[0].set(e, sum);
  }
}

}  // namespace

void register_indexing_sort(Registry& r) {
  struct TopKVersion {
    int since, until;
    KFrom from;
    bool largest_sorted;
  };
  const TopKVersion topk[] = {{1, 9, KFrom::kAttr, false},
                              {10, 10, KFrom::kInput, false},
                              {11, INT_MAX, KFrom::kInput, true}};
  for (const TopKVersion& v : topk) {
    OpDef d = def_op("TopK", v.since, v.until);
    d.input("X", "T");
    if (v.from == KFrom::kInput) d.input("K", "i64", Arity::kSingle, true);
    d.output("Values", "T")
        .output("Indices", "i64")
        .attr("axis", AttrKind::kInt, int64_t{-1})
        .type_constraint("T", numeric_types())
        .describe(v.largest_sorted
                      ? "Values, Indices = the k largest (or smallest) elements along axis, "
                        "sorted, ties by lower index"
                  : v.from == KFrom::kAttr
                      ? "Values, Indices = the k (attribute) largest elements along axis, ties "
                        "by lower index"
                      : "Values, Indices = the K (input) largest elements along axis, ties by "
                        "lower index")
        .infer([from = v.from](const InferContext& c) { return topk_infer(c, from); })
        .host_kernel([from = v.from](const LaunchContext& ctx, std::span<const Tensor> in,
                                     std::span<Tensor> out) { topk_kernel(ctx, in, out, from); })
        .reference(topk_reference);
    if (v.from == KFrom::kAttr) d.attr("k", AttrKind::kInt);
    if (v.largest_sorted)
      d.attr("largest", AttrKind::kInt, int64_t{1}).attr("sorted", AttrKind::kInt, int64_t{1});
    r.add(std::move(d));
  }

  r.add(def_op("Unique", 11)
            .input("X", "T", Arity::kSingle, true)
            .output("Y", "T")
            .output("indices", "i64", Arity::kOptional)
            .output("inverse_indices", "i64", Arity::kOptional)
            .output("counts", "i64", Arity::kOptional)
            .attr("axis", AttrKind::kInt, kNoAxis)
            .attr("sorted", AttrKind::kInt, int64_t{1})
            .type_constraint("T", numeric_bool_types())
            .describe("Y = the unique elements (or slices along axis) of X, sorted or in order of "
                      "first occurrence, with first indices, inverse indices and counts")
            .infer(unique_infer)
            .host_kernel(unique_kernel)
            .reference(unique_reference));

  r.add(def_op("CumSum", 11)
            .input("x", "T")
            .input("axis", "T2")
            .output("y", "T")
            .attr("exclusive", AttrKind::kInt, int64_t{0})
            .attr("reverse", AttrKind::kInt, int64_t{0})
            .type_constraint("T", numeric_types())
            .type_constraint("T2", {DType::kI32, DType::kI64})
            .describe("y = running sums of x along axis (exclusive: without the element itself; "
                      "reverse: from the end)")
            .infer(cumsum_infer)
            .host_kernel(cumsum_kernel)
            .reference(cumsum_reference));
}

}  // namespace asc

// OneHot (9-10; 11+ negative axis and indices), Compress (9-10; 11+ negative axis; both accept
// negative axes from 9 as ONNX Runtime does), NonZero (9+),
// ReverseSequence (10+). Host kernels; Compress and NonZero have data-dependent output sizes, so
// their inference needs the value of the condition / data input.
//
// OneHot layout: indices [outer, inner] split at axis, output [outer, depth, inner], every
// element `off` except output (o, indices(o, i), i) = `on`.
// Compress layout: input [outer, n, inner] around axis (flattened: [1, numel, 1]); output row j
// is the j-th input row whose condition is true.
// ReverseSequence layout: input [T, B, S...] or [B, T, S...]; (t, b) reads (len[b] - 1 - t, b)
// for t < len[b], else (t, b).
#include <limits>

#include "ops/indexing.h"
#include "registry/lenient.h"

namespace asc {
namespace {

using indexing::dims_product;
using indexing::resolve_axis;

constexpr int64_t kNoAxis = std::numeric_limits<int64_t>::min();  // axis attribute absent

// ---- OneHot ----------------------------------------------------------------------------------

// The output axis in [0, q] for indices of rank q. Opsets before 11 take -1 as the only negative
// axis by the spec; the others are accepted as ONNX Runtime does (registry/lenient.h).
int64_t onehot_axis(int64_t axis, int64_t q, bool negative, bool log = false) {
  if (axis > q || axis < -q - 1)
    throw ShapeError(cat("OneHot: axis ", axis, " is out of range for indices of rank ", q));
  if (log && !negative && axis < -1) log_lenient("OneHot", 9, cat("axis ", axis));
  return axis < 0 ? axis + q + 1 : axis;
}

int64_t onehot_depth(const Tensor& t) {
  if (t.numel() != 1)
    throw ShapeError(cat("OneHot: depth must hold one value, got ", t.desc().str()));
  const double d = t.at(0);
  if (!(d >= 0) || d > 1e12) throw ShapeError(cat("OneHot: depth ", d, " must be >= 0"));
  return static_cast<int64_t>(d);
}

std::vector<TensorType> onehot_infer(const InferContext& c, bool negative) {
  const TensorType& idx = c.inputs[0];
  const TensorType& vals = c.inputs[2];
  if (vals.shape && to_concrete(*vals.shape) && numel(*to_concrete(*vals.shape)) != 2)
    throw ShapeError(cat("OneHot: values must hold [off, on], got ", vals.str()));
  const int64_t depth = onehot_depth(need_value(c, 1));
  if (!idx.shape) return {{vals.dtype, std::nullopt}};
  const int64_t q = static_cast<int64_t>(idx.shape->size());
  const int64_t axis = onehot_axis(c.attrs.i("axis"), q, negative, true);
  SymShape s = *idx.shape;
  s.insert(s.begin() + axis, Dim(depth));
  return {{vals.dtype, s}};
}

void onehot_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out,
                   bool negative) {
  const Shape& is = in[0].shape();
  const int64_t depth = onehot_depth(in[1]);
  const size_t axis = static_cast<size_t>(
      onehot_axis(ctx.attr().i("axis"), static_cast<int64_t>(is.size()), negative));
  const int64_t inner = dims_product(is, axis, is.size());
  const std::vector<int64_t> idx = indexing::index_values(in[0]);
  indexing::visit_size(in[2].dtype(), "OneHot", [&](auto u) {
    using U = decltype(u);
    const U off = in[2].data_as<U>()[0], on = in[2].data_as<U>()[1];
    U* y = out[0].data_as<U>();
    std::fill(y, y + out[0].numel(), off);
    for (size_t e = 0; e < idx.size(); ++e) {
      int64_t k = idx[e];
      if (negative && k < 0) k += depth;
      if (k < 0 || k >= depth) continue;  // out of range: the whole row stays `off`
      const int64_t o = static_cast<int64_t>(e) / inner, i = static_cast<int64_t>(e) % inner;
      y[(o * depth + k) * inner + i] = on;
    }
  });
}

void onehot_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out,
                      bool negative) {
  const Tensor& ind = in[0];
  Tensor& y = out[0];
  const int64_t depth = static_cast<int64_t>(in[1].at(0));
  const size_t q = ind.shape().size();
  const size_t axis = static_cast<size_t>(a.i("axis") < 0 ? a.i("axis") + q + 1 : a.i("axis"));
  const Shape istr = contiguous_strides(ind.shape());
  std::vector<int64_t> oi(q + 2);
  for (int64_t e = 0; e < y.numel(); ++e) {
    unravel(e, y.shape(), oi.data());
    int64_t ipos = 0;
    for (size_t d = 0, k = 0; d <= q; ++d)
      if (d != axis) ipos += oi[d] * istr[k++];
    int64_t v = static_cast<int64_t>(ind.at(ipos));
    if (negative && v < 0) v += depth;
    indexing::copy_element(in[2], v == oi[axis] ? 1 : 0, y, e);
  }
}

// ---- Compress --------------------------------------------------------------------------------

struct CompressView {
  int64_t outer = 1, n = 0, inner = 1;
};

CompressView compress_view(const Shape& xs, int64_t axis_attr, bool negative, bool log = false) {
  CompressView v;
  if (axis_attr == kNoAxis) {
    v.n = numel(xs);
    return v;
  }
  const int64_t r = static_cast<int64_t>(xs.size());
  if (!negative && axis_attr < 0 && axis_attr >= -r && log)  // 9-10: [0, rank) by the spec
    log_lenient("Compress", 9, cat("negative axis ", axis_attr));
  const size_t axis = static_cast<size_t>(resolve_axis(axis_attr, r, "Compress"));
  v.outer = dims_product(xs, 0, axis);
  v.n = xs[axis];
  v.inner = dims_product(xs, axis + 1, xs.size());
  return v;
}

// Rows kept: the indices j < n with condition[j] true; true entries past n are an error.
std::vector<int64_t> compress_rows(const Tensor& cond, int64_t n) {
  if (cond.shape().size() != 1)
    throw ShapeError(cat("Compress: condition must be 1-D, got ", cond.desc().str()));
  std::vector<int64_t> rows;
  const uint8_t* c = cond.data_as<uint8_t>();
  for (int64_t j = 0; j < cond.numel(); ++j) {
    if (!c[j]) continue;
    if (j >= n)
      throw ShapeError(cat("Compress: condition index ", j, " is true beyond the axis size ", n));
    rows.push_back(j);
  }
  return rows;
}

std::vector<TensorType> compress_infer(const InferContext& c, bool negative) {
  const TensorType& x = c.inputs[0];
  const int64_t axis = c.attrs.i("axis");
  const Tensor& cond = need_value(c, 1);
  const auto xs = indexing::concrete(x);
  if (!xs) return {{x.dtype, std::nullopt}};
  const CompressView v = compress_view(*xs, axis, negative, true);
  const int64_t kept = static_cast<int64_t>(compress_rows(cond, v.n).size());
  if (axis == kNoAxis) return {{x.dtype, to_sym(Shape{kept})}};
  Shape s = *xs;
  s[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis)] = kept;
  return {{x.dtype, to_sym(s)}};
}

void compress_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out,
                     bool negative) {
  const CompressView v = compress_view(in[0].shape(), ctx.attr().i("axis"), negative);
  const std::vector<int64_t> rows = compress_rows(in[1], v.n);
  const size_t row = static_cast<size_t>(v.inner) * dtype_size(in[0].dtype());
  const auto* src = static_cast<const std::byte*>(in[0].data());
  auto* dst = static_cast<std::byte*>(out[0].data());
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t j : rows) {
      std::memcpy(dst, src + (o * v.n + j) * static_cast<int64_t>(row), row);
      dst += row;
    }
}

void compress_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &cond = in[1];
  Tensor& y = out[0];
  int64_t axis = a.i("axis");
  if (axis == kNoAxis) {
    int64_t k = 0;
    for (int64_t e = 0; e < cond.numel() && e < x.numel(); ++e)
      if (cond.at(e) != 0) indexing::copy_element(x, e, y, k++);
    return;
  }
  const size_t r = x.shape().size();
  if (axis < 0) axis += static_cast<int64_t>(r);
  std::vector<int64_t> pick;  // output row j reads input row pick[j]
  for (int64_t j = 0; j < cond.numel(); ++j)
    if (cond.at(j) != 0) pick.push_back(j);
  const Shape xstr = contiguous_strides(x.shape());
  std::vector<int64_t> oi(r + 1);
  for (int64_t e = 0; e < y.numel(); ++e) {
    unravel(e, y.shape(), oi.data());
    oi[axis] = pick[oi[axis]];
    indexing::copy_element(x, ravel(oi.data(), xstr, r), y, e);
  }
}

// ---- NonZero ---------------------------------------------------------------------------------

// Flat positions of the non-zero elements (row-major order).
std::vector<int64_t> nonzero_positions(const Tensor& x) {
  std::vector<int64_t> pos;
  indexing::visit_elem(x.dtype(), "NonZero", [&](auto tag) {
    using S = decltype(tag);
    using E = indexing::Elem<S>;
    const S* p = x.data_as<S>();
    for (int64_t i = 0; i < x.numel(); ++i)
      if (E::load(p[i]) != typename E::C{}) pos.push_back(i);
  });
  return pos;
}

std::vector<TensorType> nonzero_infer(const InferContext& c) {
  const Tensor& x = need_value(c, 0);
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(x.shape().size()));
  const int64_t n = static_cast<int64_t>(nonzero_positions(x).size());
  return {{DType::kI64, to_sym(Shape{rank, n})}};
}

// Output [rank, nnz] (a scalar counts as rank 1): column j is the j-th non-zero's index.
void nonzero_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const std::vector<int64_t> pos = nonzero_positions(x);
  const Shape s = x.shape().empty() ? Shape{1} : x.shape();
  const int64_t n = static_cast<int64_t>(pos.size());
  int64_t* y = out[0].data_as<int64_t>();
  for (int64_t j = 0; j < n; ++j) {
    int64_t flat = pos[j];
    for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 0; --d) {
      y[d * n + j] = flat % s[d];
      flat /= s[d];
    }
  }
}

void nonzero_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  const int64_t n = y.shape()[1];
  const size_t r = x.shape().size();
  std::vector<int64_t> xi(r + 1, 0);
  int64_t j = 0;
  for (int64_t e = 0; e < x.numel(); ++e) {
    if (x.at(e) == 0) continue;
    unravel(e, x.shape(), xi.data());
    for (size_t d = 0; d < std::max<size_t>(r, 1); ++d)
      y.set(static_cast<int64_t>(d) * n + j, static_cast<double>(xi[d]));
    ++j;
  }
}

// ---- ReverseSequence -------------------------------------------------------------------------

void reverse_sequence_axes(const Attrs& a, int64_t rank, int64_t& time, int64_t& batch) {
  time = a.i("time_axis");
  batch = a.i("batch_axis");
  if (rank < 2 || (time != 0 && time != 1) || (batch != 0 && batch != 1) || time == batch)
    throw ShapeError(cat("ReverseSequence: time_axis ", time, " and batch_axis ", batch,
                         " must be 0 and 1 (either order) on input of rank >= 2, got rank ", rank));
}

std::vector<TensorType> reverse_sequence_infer(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const TensorType& lens = c.inputs[1];
  if (!x.shape) return {x};
  int64_t t = 0, b = 0;
  reverse_sequence_axes(c.attrs, static_cast<int64_t>(x.shape->size()), t, b);
  if (lens.shape) {
    const Dim& bd = (*x.shape)[b];
    if (lens.shape->size() != 1 ||
        (bd.known() && (*lens.shape)[0].known() && (*lens.shape)[0].value() != bd.value()))
      throw ShapeError(cat("ReverseSequence: sequence_lens ", lens.str(),
                           " must be [batch] for input ", x.str(), " with batch_axis ", b));
  }
  return {x};
}

void reverse_sequence_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                             std::span<Tensor> out) {
  const Shape& xs = in[0].shape();
  int64_t ta = 0, ba = 0;
  reverse_sequence_axes(ctx.attr(), static_cast<int64_t>(xs.size()), ta, ba);
  const int64_t nt = xs[ta], nb = xs[ba];
  const std::vector<int64_t> lens = indexing::index_values(in[1]);
  for (int64_t len : lens)
    if (len < 0 || len > nt)
      throw ShapeError(
          cat("ReverseSequence: sequence length ", len, " is out of range [0, ", nt, "]"));
  const size_t chunk =
      static_cast<size_t>(dims_product(xs, 2, xs.size())) * dtype_size(in[0].dtype());
  // Chunk stride of time and batch steps.
  const int64_t ts = ta == 0 ? nb : 1, bs = ta == 0 ? 1 : nt;
  const auto* src = static_cast<const std::byte*>(in[0].data());
  auto* dst = static_cast<std::byte*>(out[0].data());
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t t = 0; t < nt; ++t) {
      const int64_t from = t < lens[b] ? lens[b] - 1 - t : t;
      std::memcpy(dst + (t * ts + b * bs) * static_cast<int64_t>(chunk),
                  src + (from * ts + b * bs) * static_cast<int64_t>(chunk), chunk);
    }
}

void reverse_sequence_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &lens = in[1];
  const size_t r = x.shape().size();
  const size_t ta = static_cast<size_t>(a.i("time_axis"));
  const size_t ba = static_cast<size_t>(a.i("batch_axis"));
  const Shape xstr = contiguous_strides(x.shape());
  std::vector<int64_t> p(r + 1);
  for (int64_t e = 0; e < x.numel(); ++e) {
    unravel(e, x.shape(), p.data());
    const int64_t len = static_cast<int64_t>(lens.at(p[ba]));
    if (len < 0 || len > x.shape()[ta]) throw ShapeError("ReverseSequence: bad length");
    if (p[ta] < len) p[ta] = len - 1 - p[ta];
    indexing::copy_element(x, ravel(p.data(), xstr, r), out[0], e);
  }
}

}  // namespace

void register_indexing_select(Registry& r) {
  for (const bool negative : {false, true}) {
    r.add(def_op("OneHot", negative ? 11 : 9, negative ? INT_MAX : 10)
              .input("indices", "T1")
              .input("depth", "T2", Arity::kSingle, true)
              .input("values", "T3")
              .output("output", "T3")
              .attr("axis", AttrKind::kInt, int64_t{-1})
              .type_constraint("T1", numeric_types())
              .type_constraint("T2", numeric_types())
              .type_constraint("T3", numeric_bool_types())
              .describe(negative ? "output = values[1] where the new depth axis equals indices "
                                   "(negative indices count from depth), else values[0]"
                                 : "output = values[1] where the new depth axis equals indices, "
                                   "else values[0]")
              .infer([negative](const InferContext& c) { return onehot_infer(c, negative); })
              .host_kernel(
                  [negative](const LaunchContext& ctx, std::span<const Tensor> in,
                             std::span<Tensor> out) { onehot_kernel(ctx, in, out, negative); })
              .reference(
                  [negative](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
                    onehot_reference(a, in, out, negative);
                  }));

    r.add(def_op("Compress", negative ? 11 : 9, negative ? INT_MAX : 10)
              .input("input", "T")
              .input("condition", "T1", Arity::kSingle, true)
              .output("output", "T")
              .attr("axis", AttrKind::kInt, kNoAxis)
              .type_constraint("T", numeric_bool_types())
              .type_constraint("T1", {DType::kBool})
              .trait(kMovement)
              .describe(negative ? "output = input rows along axis (or flattened when axis is "
                                   "absent) where condition is true; negative axis allowed"
                                 : "output = input rows along axis (or flattened when axis is "
                                   "absent) where condition is true")
              .infer([negative](const InferContext& c) { return compress_infer(c, negative); })
              .host_kernel(
                  [negative](const LaunchContext& ctx, std::span<const Tensor> in,
                             std::span<Tensor> out) { compress_kernel(ctx, in, out, negative); })
              .reference(compress_reference));
  }

  r.add(def_op("NonZero", 9)
            .input("X", "T", Arity::kSingle, true)
            .output("Y", "i64")
            .type_constraint("T", numeric_bool_types())
            .describe("Y = [rank, nnz] indices of the non-zero elements of X in row-major order")
            .infer(nonzero_infer)
            .host_kernel(nonzero_kernel)
            .reference(nonzero_reference));

  r.add(def_op("ReverseSequence", 10)
            .input("input", "T")
            .input("sequence_lens", "i64")
            .output("Y", "T")
            .attr("batch_axis", AttrKind::kInt, int64_t{1})
            .attr("time_axis", AttrKind::kInt, int64_t{0})
            .type_constraint("T", numeric_bool_types())
            .trait(kMovement)
            .describe("Y = input with the first sequence_lens[b] steps along time_axis reversed "
                      "for each batch b")
            .infer(reverse_sequence_infer)
            .host_kernel(reverse_sequence_kernel)
            .reference(reverse_sequence_reference));
}

}  // namespace asc

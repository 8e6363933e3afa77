// ReduceSum, ReduceMean, ReduceMax over any subset of axes (negative, non-adjacent, all, none).
// Axes are an attribute up to ReduceSum-12 / ReduceMean-17 / ReduceMax-17 and an optional i64
// input afterwards, where noop_with_empty_axes = 1 makes empty axes the identity. The input must
// then be known at launch (LaunchContext::values), as CANN's reduce kernels take axes as
// host-side tiling data.
//
// One tile: the row view (registry/rows.h) of the input with the axes reduced; the tile reduces
// its kept box over every reduced element, chunked by a loop with an accumulator when the
// reduced extent does not fit. Mean = sum / count. f16/bf16 compute in f32.
#include <algorithm>
#include <optional>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/rows.h"
#include "registry/tiling.h"

namespace asc {
namespace {

enum class ReduceKind : uint8_t { kSum, kMean, kMax };

struct ReduceVersion {
  const char* type;
  ReduceKind kind;
  int since, until;
  bool axes_input;  // axes as input 1 (with noop_with_empty_axes) rather than an attribute
};

constexpr ReduceVersion kVersions[] = {
    {"ReduceSum", ReduceKind::kSum, 1, 12, false},
    {"ReduceSum", ReduceKind::kSum, 13, INT_MAX, true},
    {"ReduceMean", ReduceKind::kMean, 1, 17, false},
    {"ReduceMean", ReduceKind::kMean, 18, INT_MAX, true},
    {"ReduceMax", ReduceKind::kMax, 1, 17, false},
    {"ReduceMax", ReduceKind::kMax, 18, INT_MAX, true},
};

const char* doc_of(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum:
      return "reduced = sum of data over axes (empty axes: all, or identity with "
             "noop_with_empty_axes)";
    case ReduceKind::kMean:
      return "reduced = mean of data over axes (f16/bf16 accumulate in f32)";
    default:
      return "reduced = max of data over axes (an empty set gives the lowest value)";
  }
}

std::vector<DType> types_of(ReduceKind k) {
  if (k == ReduceKind::kMean) return float_types();
  std::vector<DType> t = float_types();
  t.push_back(DType::kI32);
  t.push_back(DType::kI64);
  return t;
}

// The reduced axes, normalised and sorted; empty means identity. `given` is nullopt when the
// axes input is present but its value unknown.
std::vector<int64_t> resolve_axes(const ReduceVersion& v, const Attrs& a,
                                  const std::optional<std::vector<int64_t>>& given, int64_t rank) {
  std::vector<int64_t> axes = *given;
  if (axes.empty()) {
    if (v.axes_input && a.i("noop_with_empty_axes") != 0) return {};
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  for (auto& x : axes) x = normalize_axis(x, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw ShapeError(std::string(v.type) + ": repeated axis in axes");
  return axes;
}

// Axes as given: the attribute, or the input's value (nullopt when present but unknown).
std::optional<std::vector<int64_t>> given_axes(const ReduceVersion& v, const Attrs& a, bool present,
                                               const Tensor* value) {
  if (!v.axes_input) return a.ints("axes");
  if (!present) return std::vector<int64_t>{};
  if (!value) return std::nullopt;
  if (value->shape().size() > 1)
    throw ShapeError(std::string(v.type) + ": axes must be 1-D, got " + to_string(value->shape()));
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < value->numel(); ++i) axes.push_back(static_cast<int64_t>(value->at(i)));
  return axes;
}

std::vector<TensorType> infer_reduce(const ReduceVersion& v, const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const bool keep = c.attrs.i("keepdims") != 0;
  const bool present = c.inputs.size() > 1 && c.inputs[1].dtype != DType::kUndefined;
  const Tensor* value = c.values.size() > 1 ? c.values[1] : nullptr;
  const auto given = given_axes(v, c.attrs, present, value);
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const int64_t rank = static_cast<int64_t>(x.shape->size());
  if (!given) {  // axes unknown: only the rank when dims are kept
    if (!keep) return {{x.dtype, std::nullopt}};
    return {{x.dtype, SymShape(x.shape->size(), Dim())}};
  }
  const auto axes = resolve_axes(v, c.attrs, given, rank);
  SymShape out;
  for (int64_t d = 0; d < rank; ++d) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), d);
    if (!reduced || keep) out.push_back(reduced ? Dim(int64_t{1}) : (*x.shape)[d]);
  }
  return {{x.dtype, out}};
}

RowView reduce_view(const ReduceVersion& v, const LaunchContext& ctx) {
  const bool present = ctx.inputs.size() > 1 && ctx.inputs[1].dtype != DType::kUndefined;
  const Tensor* value = ctx.values.size() > 1 ? ctx.values[1] : nullptr;
  const auto given = given_axes(v, ctx.attr(), present, value);
  if (!given) throw ShapeError(ctx.str() + ": the axes input must be known at launch");
  const Shape& in = ctx.inputs[0].shape;
  return row_view(in, resolve_axes(v, ctx.attr(), given, static_cast<int64_t>(in.size())));
}

void reduce_kernel(const ReduceVersion& ver, TileBuilder& t) {
  const ReduceKind kind = ver.kind;
  const RowView v = reduce_view(ver, t.ctx());
  Buf r = row_reduce_input(t, 0, kind == ReduceKind::kMax ? ReduceOp::kMax : ReduceOp::kSum, v);
  if (kind == ReduceKind::kMean) r = r / static_cast<double>(v.count);  // 0 / 0 is NaN: undefined
  r = t.cast(r, t.ctx().outputs[0].dtype);
  t.copy_out(0, r, row_out_box(v, row_tile(v, t.tiling())));
}

// Naive reference in double: out[kept index] = reduce over the reduced positions.
void reduce_reference(const ReduceVersion& v, const Attrs& a, std::span<const Tensor> in,
                      Tensor& out) {
  const ReduceKind kind = v.kind;
  const Tensor& x = in[0];
  const bool present = in.size() > 1 && in[1].defined();
  const auto axes = resolve_axes(v, a, given_axes(v, a, present, present ? &in[1] : nullptr),
                                 static_cast<int64_t>(x.shape().size()));
  const size_t r = x.shape().size();
  std::vector<bool> red(r, false);
  for (int64_t d : axes) red[d] = true;
  const double init = kind == ReduceKind::kMax ? lowest_value(x.dtype()) : 0.0;
  std::vector<double> acc(static_cast<size_t>(out.numel()), init);
  int64_t count = 1;
  for (size_t d = 0; d < r; ++d)
    if (red[d]) count *= x.shape()[d];
  std::vector<int64_t> idx(r + 1);
  for (int64_t i = 0; i < x.numel(); ++i) {
    unravel(i, x.shape(), idx.data());
    int64_t o = 0;
    for (size_t d = 0; d < r; ++d)
      if (!red[d]) o = o * x.shape()[d] + idx[d];
    double& dst = acc[static_cast<size_t>(o)];
    dst = kind == ReduceKind::kMax ? std::max(dst, x.at(i)) : dst + x.at(i);
  }
  for (int64_t o = 0; o < out.numel(); ++o) {
    double val = acc[static_cast<size_t>(o)];
    if (kind == ReduceKind::kMean) val /= static_cast<double>(count);
    out.set(o, val);
  }
}

}  // namespace

void register_reduce(Registry& r) {
  for (const ReduceVersion& rv : kVersions) {
    const ReduceVersion* ver = &rv;
    OpDef def = def_op(rv.type, rv.since, rv.until);
    def.input("data", "T");
    if (rv.axes_input) {
      def.input("axes", "i64", Arity::kOptional, /*value_needed=*/true)
          .attr("noop_with_empty_axes", AttrKind::kInt, int64_t{0});
    } else {
      def.attr("axes", AttrKind::kInts, std::vector<int64_t>{});
    }
    def.output("reduced", "T")
        .attr("keepdims", AttrKind::kInt, int64_t{1})
        .type_constraint("T", types_of(rv.kind))
        .trait(kReduction)
        .describe(doc_of(rv.kind))
        .infer([ver](const InferContext& c) { return infer_reduce(*ver, c); })
        .tiling([ver](const LaunchContext& ctx) { return row_tiling(ctx, reduce_view(*ver, ctx)); })
        .kernel([ver](TileBuilder& t) { reduce_kernel(*ver, t); })
        .reference([ver](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          reduce_reference(*ver, a, in, out[0]);
        });
    r.add(std::move(def));
  }
}

}  // namespace asc

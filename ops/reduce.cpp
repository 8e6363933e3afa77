// The ReduceX engine (ops/reduce.h) and ReduceSum, ReduceMean, ReduceMax. Axes are any subset
// (negative, non-adjacent, all, none): an attribute up to ReduceSum-12 / ReduceX-17, an optional
// i64 input afterwards, where noop_with_empty_axes = 1 makes empty axes the identity. The input
// must then be known at launch (LaunchContext::values), as CANN's reduce kernels take axes as
// host-side tiling data. Opsets 1-10 take non-negative axes by the spec; negative ones are
// accepted as ONNX Runtime accepts them (registry/lenient.h).
//
// One tile: the row view (registry/rows.h) of the input with the axes reduced; the tile reduces
// its kept box over every reduced element, chunked by a loop with an accumulator when the
// reduced extent does not fit:
//   chunk partial = reduce_box(pre(x))     pre: |x| for L1, x^2 for L2 / SumSquare
//   acc = combine(acc, partial)            add, max, min or mul
//   out = post(acc)                        / count (Mean), sqrt (L2), log (LogSum)
// LogSumExp keeps a running max m and a running s = sum exp(x - m), rescaled by exp(m_old - m_new)
// when m grows (online, one pass); out = m + log(s). f16/bf16 compute in f32.
#include "ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/lenient.h"
#include "registry/rows.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

const char* doc_of(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum:
      return "reduced = sum of data over axes (empty axes: all, or identity with "
             "noop_with_empty_axes)";
    case ReduceKind::kMean:
      return "reduced = mean of data over axes (f16/bf16 accumulate in f32)";
    case ReduceKind::kMax:
      return "reduced = max of data over axes (an empty set gives the lowest value)";
    case ReduceKind::kMin:
      return "reduced = min of data over axes (an empty set gives the highest value)";
    case ReduceKind::kProd:
      return "reduced = product of data over axes (an empty set gives 1)";
    case ReduceKind::kL1:
      return "reduced = sum of |data| over axes";
    case ReduceKind::kL2:
      return "reduced = sqrt(sum of data^2) over axes";
    case ReduceKind::kLogSum:
      return "reduced = log(sum of data) over axes";
    case ReduceKind::kLogSumExp:
      return "reduced = log(sum of exp(data)) over axes, computed as m + log(sum exp(x - m))";
    default:
      return "reduced = sum of data^2 over axes";
  }
}

// Kinds whose result is exact in the input's integer type; the others are float-only.
bool integral_ok(ReduceKind k) {
  return k != ReduceKind::kMean && k != ReduceKind::kL2 && k != ReduceKind::kLogSum &&
         k != ReduceKind::kLogSumExp;
}

std::vector<DType> types_of(const ReduceVersion& v) {
  const ReduceKind k = v.kind;
  std::vector<DType> t = float_types();
  if (!integral_ok(k)) return t;
  for (DType d : {DType::kI32, DType::kI64, DType::kU32, DType::kU64}) t.push_back(d);
  if (k == ReduceKind::kMax || k == ReduceKind::kMin)
    for (DType d : {DType::kI8, DType::kU8}) t.push_back(d);
  if ((k == ReduceKind::kMax || k == ReduceKind::kMin) && v.since >= 20)
    t.push_back(DType::kBool);  // ReduceMax-20 / ReduceMin-20: false < true
  return t;
}

// Bool reduces as u8 (max: any, min: all).
DType reduce_compute_dtype(DType in) {
  return in == DType::kBool ? DType::kU8 : compute_dtype(in);
}

// The highest value of a compute dtype: +inf for floats, the maximum for integers.
double highest_value(DType t) {
  switch (t) {
    case DType::kI8:
      return std::numeric_limits<int8_t>::max();
    case DType::kU8:
      return std::numeric_limits<uint8_t>::max();
    case DType::kI32:
      return std::numeric_limits<int32_t>::max();
    case DType::kU32:
      return std::numeric_limits<uint32_t>::max();
    case DType::kI64:
      return static_cast<double>(std::numeric_limits<int64_t>::max());
    case DType::kU64:
      return static_cast<double>(std::numeric_limits<uint64_t>::max());
    default:
      return std::numeric_limits<double>::infinity();
  }
}

// The lowest finite value of a float compute dtype: a running max that starts here rescales by
// exp(lowest - m) = 0, never by exp(-inf + inf) = NaN.
double lowest_finite(DType t) {
  return t == DType::kF64 ? std::numeric_limits<double>::lowest()
                          : static_cast<double>(std::numeric_limits<float>::lowest());
}

// The reduced axes, normalised and sorted; empty means identity. `shape` names the input in
// messages.
std::vector<int64_t> resolve_axes(const ReduceVersion& v, const Attrs& a,
                                  const std::vector<int64_t>& given, int64_t rank,
                                  const std::string& shape) {
  std::vector<int64_t> axes = given;
  if (axes.empty()) {
    if (v.axes == AxesFrom::kInput && a.i("noop_with_empty_axes") != 0) return {};
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  // Opsets 1-10 take [0, rank) by the letter of the spec; negative axes are accepted as ONNX
  // Runtime does (infer_reduce logs it).
  for (auto& x : axes) {
    if (x < -rank || x >= rank)
      throw ShapeError(cat(v.type, "-", v.since, ": axis ", x, " out of range [", -rank, ", ", rank,
                           ") for data ", shape));
    if (x < 0) x += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw ShapeError(cat(v.type, ": repeated axis in axes for data ", shape));
  return axes;
}

// Axes as given: the attribute, or the input's value (nullopt when present but unknown).
std::optional<std::vector<int64_t>> given_axes(const ReduceVersion& v, const Attrs& a, bool present,
                                               const Tensor* value) {
  if (v.axes != AxesFrom::kInput) return a.ints("axes");
  if (!present) return std::vector<int64_t>{};
  if (!value) return std::nullopt;
  if (value->shape().size() > 1)
    throw ShapeError(cat(v.type, ": axes must be 1-D, got ", to_string(value->shape())));
  return to_int64s(*value);
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
  const auto axes = resolve_axes(v, c.attrs, *given, rank, to_string(*x.shape));
  if (v.axes == AxesFrom::kAttrNonNegative &&
      std::any_of(given->begin(), given->end(), [](int64_t a) { return a < 0; }))
    log_lenient(v.type, v.since, cat("negative axes ", to_string(Shape(*given))));
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
  if (!given) throw ShapeError(cat(ctx.str(), ": the axes input must be known at launch"));
  const Shape& in = ctx.inputs[0].shape;
  return row_view(
      in, resolve_axes(v, ctx.attr(), *given, static_cast<int64_t>(in.size()), to_string(in)));
}

// ---- Kernel -----------------------------------------------------------------------------------

// The reduction of one box dim and how chunk partials combine.
struct KindOps {
  ReduceOp op;
  BinaryOp combine;
};

KindOps ops_of(ReduceKind k) {
  switch (k) {
    case ReduceKind::kMax:
      return {ReduceOp::kMax, BinaryOp::kMax};
    case ReduceKind::kMin:
      return {ReduceOp::kMin, BinaryOp::kMin};
    case ReduceKind::kProd:
      return {ReduceOp::kProd, BinaryOp::kMul};
    case ReduceKind::kL2:
    case ReduceKind::kSumSquare:
      return {ReduceOp::kSumSquares, BinaryOp::kAdd};
    default:
      return {ReduceOp::kSum, BinaryOp::kAdd};
  }
}

double identity_of(ReduceKind k, DType cdt) {
  switch (k) {
    case ReduceKind::kMax:
      return lowest_value(cdt);
    case ReduceKind::kMin:
      return highest_value(cdt);
    case ReduceKind::kProd:
      return 1.0;
    default:
      return 0.0;
  }
}

// Reduces every reduced dim (size > 1) of the box x with `op`; a sum of squares squares only once
// (its further dims sum), and squares elementwise when no dim needed reducing.
Buf reduce_box(TileBuilder& t, ReduceOp op, Buf x, const RowView& v) {
  bool squared = op != ReduceOp::kSumSquares;
  for (size_t j = 0; j < v.dims.size(); ++j) {
    if (!v.reduced[j] || t.dims(x)[j] <= 1) continue;
    x = t.reduce(squared && op == ReduceOp::kSumSquares ? ReduceOp::kSum : op, x,
                 static_cast<int>(j));
    squared = true;
  }
  return squared ? x : x * x;
}

// x op m, where m is x's box with every reduced dim 1: m is broadcast along the reduced dims of x
// (size > 1), all but the last expanded by adding it to zeros.
Buf bcast_reduced(TileBuilder& t, BinaryOp op, Buf x, Buf m, const RowView& v) {
  std::vector<int> axes;
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j] && t.dims(x)[j] > 1) axes.push_back(static_cast<int>(j));
  if (axes.empty()) return t.binary(op, x, m);
  for (size_t k = 0; k + 1 < axes.size(); ++k) {
    Shape s = t.dims(m);
    s[axes[k]] = t.dims(x)[axes[k]];
    m = t.bcast_mid(BinaryOp::kAdd, t.duplicate(t.dtype(m), s, 0.0), m, axes[k]);
  }
  return t.bcast_mid(op, x, m, axes.back());
}

// The tile's kept box: the cursor's box with reduced dims 1.
Shape kept_box(const RowView& v, const RowCursor& tile) {
  Shape s = tile.size;
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j]) s[j] = 1;
  return s;
}

bool looped(const RowView& v, const RowCursor& tile) {
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j] && tile.size[j] < v.dims[j]) return true;
  return false;
}

// m + log(sum exp(x - m)) with an online running max (see the file comment).
Buf log_sum_exp_tile(TileBuilder& t, const RowView& v, DType cdt) {
  const Shape kept = kept_box(v, row_tile(v, t.tiling()));
  Buf m = t.duplicate(cdt, kept, lowest_finite(cdt));
  Buf s = t.duplicate(cdt, kept, 0.0);
  row_chunks(t, v, [&](const RowCursor& c) {
    Buf x = t.cast(t.copy_in(0, row_in_box(v, c)), cdt);
    Buf cm = reduce_box(t, ReduceOp::kMax, x, v);
    t.accumulate(BinaryOp::kMul, s, exp(m - max(m, cm)));  // rescale to the new max
    t.accumulate(BinaryOp::kMax, m, cm);
    t.accumulate(BinaryOp::kAdd, s,
                 reduce_box(t, ReduceOp::kSum, exp(bcast_reduced(t, BinaryOp::kSub, x, m, v)), v));
  });
  return m + log(s);
}

// The combined reduction of the tile before post-processing: one buffer of the kept box.
Buf reduce_tile(TileBuilder& t, ReduceKind kind, const RowView& v, DType cdt) {
  const KindOps ops = ops_of(kind);
  const RowCursor tile = row_tile(v, t.tiling());
  const Shape kept = kept_box(v, tile);
  const double identity = identity_of(kind, cdt);
  if (v.count == 0) return t.duplicate(cdt, kept, identity);
  auto partial = [&](const RowCursor& c) {
    Buf x = t.cast(t.copy_in(0, row_in_box(v, c)), cdt);
    if (kind == ReduceKind::kL1) x = t.unary(UnaryOp::kAbs, x);
    return reduce_box(t, ops.op, x, v);
  };
  if (!looped(v, tile)) return partial(tile);
  // Loop-carried: acc starts at the identity and takes every chunk's partial in place.
  Buf acc = t.duplicate(cdt, kept, identity);
  row_chunks(t, v, [&](const RowCursor& c) { t.accumulate(ops.combine, acc, partial(c)); });
  return acc;
}

void reduce_kernel(const ReduceVersion& ver, TileBuilder& t) {
  const RowView v = reduce_view(ver, t.ctx());
  const DType cdt = reduce_compute_dtype(t.ctx().inputs[0].dtype);
  Buf r;
  if (ver.kind == ReduceKind::kLogSumExp) {
    r = log_sum_exp_tile(t, v, cdt);
  } else {
    r = reduce_tile(t, ver.kind, v, cdt);
    if (ver.kind == ReduceKind::kMean) r = r / static_cast<double>(v.count);  // 0 / 0: NaN
    if (ver.kind == ReduceKind::kL2) r = sqrt(r);
    if (ver.kind == ReduceKind::kLogSum) r = log(r);
  }
  r = t.cast(r, t.ctx().outputs[0].dtype);
  t.copy_out(0, r, row_out_box(v, row_tile(v, t.tiling())));
}

// ---- Reference --------------------------------------------------------------------------------

// Naive reference in double: out[kept index] = reduce over the reduced positions.
void reduce_reference(const ReduceVersion& v, const Attrs& a, std::span<const Tensor> in,
                      Tensor& out) {
  const ReduceKind kind = v.kind;
  const Tensor& x = in[0];
  const bool present = in.size() > 1 && in[1].defined();
  const auto axes = resolve_axes(v, a, *given_axes(v, a, present, present ? &in[1] : nullptr),
                                 static_cast<int64_t>(x.shape().size()), to_string(x.shape()));
  const size_t r = x.shape().size();
  std::vector<bool> red(r, false);
  for (int64_t d : axes) red[d] = true;
  double init = 0.0;
  if (kind == ReduceKind::kMax) init = -std::numeric_limits<double>::infinity();
  if (kind == ReduceKind::kMin) init = std::numeric_limits<double>::infinity();
  if (kind == ReduceKind::kProd) init = 1.0;
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
    const double e = x.at(i);
    switch (kind) {
      case ReduceKind::kMax:
        dst = std::max(dst, e);
        break;
      case ReduceKind::kMin:
        dst = std::min(dst, e);
        break;
      case ReduceKind::kProd:
        dst *= e;
        break;
      case ReduceKind::kL1:
        dst += std::fabs(e);
        break;
      case ReduceKind::kL2:
      case ReduceKind::kSumSquare:
        dst += e * e;
        break;
      case ReduceKind::kLogSumExp:
        dst += std::exp(e);
        break;
      default:
        dst += e;
    }
  }
  for (int64_t o = 0; o < out.numel(); ++o) {
    double val = acc[static_cast<size_t>(o)];
    if (kind == ReduceKind::kMean) val /= static_cast<double>(count);
    if (kind == ReduceKind::kL2) val = std::sqrt(val);
    if (kind == ReduceKind::kLogSum || kind == ReduceKind::kLogSumExp) val = std::log(val);
    if (std::isinf(val) && (dtype_is_integer(out.dtype()) || out.dtype() == DType::kBool))
      // empty min / max of integers and bools
      val = val > 0 ? highest_value(out.dtype()) : lowest_value(out.dtype());
    out.set(o, val);
  }
}

constexpr ReduceVersion kSumMeanMax[] = {
    {"ReduceSum", ReduceKind::kSum, 1, 10, AxesFrom::kAttrNonNegative},
    {"ReduceSum", ReduceKind::kSum, 11, 12, AxesFrom::kAttr},
    {"ReduceSum", ReduceKind::kSum, 13, INT_MAX, AxesFrom::kInput},
    {"ReduceMean", ReduceKind::kMean, 1, 10, AxesFrom::kAttrNonNegative},
    {"ReduceMean", ReduceKind::kMean, 11, 17, AxesFrom::kAttr},
    {"ReduceMean", ReduceKind::kMean, 18, INT_MAX, AxesFrom::kInput},
    {"ReduceMax", ReduceKind::kMax, 1, 10, AxesFrom::kAttrNonNegative},
    {"ReduceMax", ReduceKind::kMax, 11, 17, AxesFrom::kAttr},
    {"ReduceMax", ReduceKind::kMax, 18, 19, AxesFrom::kInput},
    {"ReduceMax", ReduceKind::kMax, 20, INT_MAX, AxesFrom::kInput},  // + bool
};

}  // namespace

void register_reduce_versions(Registry& r, std::span<const ReduceVersion> versions) {
  for (const ReduceVersion rv : versions) {  // captured by value
    OpDef def = def_op(rv.type, rv.since, rv.until);
    def.input("data", "T");
    if (rv.axes == AxesFrom::kInput) {
      def.input("axes", "i64", Arity::kOptional, /*value_needed=*/true)
          .attr("noop_with_empty_axes", AttrKind::kInt, int64_t{0});
    } else {
      def.attr("axes", AttrKind::kInts, std::vector<int64_t>{});
    }
    def.output("reduced", "T")
        .attr("keepdims", AttrKind::kInt, int64_t{1})
        .type_constraint("T", types_of(rv))
        .trait(kReduction)
        .describe(doc_of(rv.kind))
        .infer([rv](const InferContext& c) { return infer_reduce(rv, c); })
        .tiling([rv](const LaunchContext& ctx) { return row_tiling(ctx, reduce_view(rv, ctx)); })
        .kernel([rv](TileBuilder& t) { reduce_kernel(rv, t); })
        .reference([rv](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          reduce_reference(rv, a, in, out[0]);
        });
    r.add(std::move(def));
  }
}

void register_reduce(Registry& r) {
  register_reduce_versions(r, kSumMeanMax);
}

}  // namespace asc

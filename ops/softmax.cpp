// Softmax and LogSoftmax. Opset 1-12 flattens the input to [prod(dims[:axis]), prod(dims[axis:])]
// and normalises each row (axis default 1); opset 13+ normalises along the single `axis` (default
// -1). Both are a row view (registry/rows.h) with one reduced dim r: [outer, r, inner].
//
// One tile, when a whole row fits: x = load, m = max_r x, e = exp(x - m), y = e * (1 / sum_r e)
// (log-softmax: (x - m) - log(sum_r e)).
// Longer rows: an online pass over the row's chunks keeps a running max m and a running sum
// s = sum exp(x - m) (rescaled by exp(m_old - m_new) when m grows), then a second pass writes
// exp(x - m) / s per chunk. LogSoftmax writes (x - m) - log(s) instead. f16/bf16 compute in f32.
#include <cmath>
#include <limits>

#include "ops/normalization.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/rows.h"
#include "registry/tiling.h"

namespace asc {
namespace {

// First normalised axis of `rank`; opset 1-12 also accepts axis == rank (rows of one element).
int64_t softmax_axis(bool flatten, int64_t axis, int64_t rank) {
  if (rank == 0) throw ShapeError("input must have rank >= 1");  // the caller names the op
  if (flatten && axis == rank) return rank;
  return normalize_axis(axis, rank);
}

// Reduced axes: [axis, rank) when flattening, else [axis].
std::vector<int64_t> softmax_axes(bool flatten, int64_t axis, int64_t rank) {
  const int64_t a = softmax_axis(flatten, axis, rank);
  std::vector<int64_t> axes;
  for (int64_t d = a; d < (flatten ? rank : a + 1); ++d) axes.push_back(d);
  return axes;
}

RowView softmax_view(bool flatten, const LaunchContext& ctx) {
  const Shape& in = ctx.inputs[0].shape;
  return row_view(in, softmax_axes(flatten, ctx.attr().i("axis"), static_cast<int64_t>(in.size())));
}

TilingData softmax_tiling(bool flatten, const LaunchContext& ctx) {
  const RowView v = softmax_view(flatten, ctx);
  TilingData t = row_tiling(ctx, v);
  if (v.count == 0)  // empty rows: the output is empty
    for (auto& g : t.grid) g = 0;
  return t;
}

// The lowest finite value of a compute dtype: a running max that starts here rescales by
// exp(lowest - m) = 0, never by exp(-inf + inf) = NaN.
double lowest_finite(DType t) {
  return t == DType::kF64 ? std::numeric_limits<double>::lowest()
                          : static_cast<double>(std::numeric_limits<float>::lowest());
}

// y from x (compute dtype), the row max m and the row sum s of exp(x - m) along view dim r.
Buf softmax_finish(TileBuilder& t, bool log_out, Buf x, Buf m, Buf s, int r) {
  Buf d = t.bcast_mid(BinaryOp::kSub, x, m, r);
  if (log_out) return t.bcast_mid(BinaryOp::kSub, d, log(s), r);
  return t.bcast_mid(BinaryOp::kDiv, exp(d), s, r);
}

void softmax_kernel(bool flatten, bool log_out, TileBuilder& t) {
  const RowView v = softmax_view(flatten, t.ctx());
  const DType cdt = compute_dtype(t.ctx().inputs[0].dtype);
  const DType odt = t.ctx().outputs[0].dtype;
  const RowCursor tile = row_tile(v, t.tiling());
  auto load = [&](const RowCursor& c) { return t.cast(t.copy_in(0, row_in_box(v, c)), cdt); };
  auto store = [&](const RowCursor& c, Buf y) { t.copy_out(0, t.cast(y, odt), row_in_box(v, c)); };

  int r = -1;  // the reduced view dim
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j]) r = static_cast<int>(j);
  if (r < 0) {  // rows of one element: softmax is 1, log-softmax 0
    store(tile, t.duplicate(cdt, tile.size, log_out ? 0.0 : 1.0));
    return;
  }
  if (tile.size[r] >= v.dims[r]) {  // whole rows in the tile: exp once, one reciprocal per row
    Buf x = load(tile);
    Buf d = t.bcast_mid(BinaryOp::kSub, x, t.reduce(ReduceOp::kMax, x, r), r);
    Buf e = exp(d);
    Buf s = t.reduce(ReduceOp::kSum, e, r);
    store(tile, log_out ? t.bcast_mid(BinaryOp::kSub, d, log(s), r)
                        : t.bcast_mid(BinaryOp::kMul, e, t.unary(UnaryOp::kReciprocal, s), r));
    return;
  }
  Shape kept = tile.size;
  kept[r] = 1;
  Buf m = t.duplicate(cdt, kept, lowest_finite(cdt));  // running max
  Buf s = t.duplicate(cdt, kept, 0.0);                 // running sum of exp(x - m)
  row_chunks(t, v, [&](const RowCursor& c) {
    Buf x = load(c);
    Buf cm = t.reduce(ReduceOp::kMax, x, r);
    t.accumulate(BinaryOp::kMul, s, exp(m - max(m, cm)));  // rescale to the new max
    t.accumulate(BinaryOp::kMax, m, cm);
    t.accumulate(BinaryOp::kAdd, s,
                 t.reduce(ReduceOp::kSum, exp(t.bcast_mid(BinaryOp::kSub, x, m, r)), r));
  });
  row_chunks(t, v,
             [&](const RowCursor& c) { store(c, softmax_finish(t, log_out, load(c), m, s, r)); });
}

// Naive reference in double over [outer, mid, inner] rows.
void softmax_reference(bool flatten, bool log_out, const Attrs& a, const Tensor& x, Tensor& y) {
  const Shape& s = x.shape();
  const int64_t rank = static_cast<int64_t>(s.size());
  const auto axes = softmax_axes(flatten, a.i("axis"), rank);
  int64_t outer = 1, mid = 1, inner = 1;
  const int64_t first = axes.empty() ? rank : axes.front();
  const int64_t last = axes.empty() ? rank : axes.back() + 1;
  for (int64_t d = 0; d < rank; ++d) (d < first ? outer : d < last ? mid : inner) *= s[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * mid * inner + i;
      double m = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t k = 0; k < mid; ++k) m = std::max(m, x.at(base + k * inner));
      for (int64_t k = 0; k < mid; ++k) sum += std::exp(x.at(base + k * inner) - m);
      for (int64_t k = 0; k < mid; ++k) {
        const double d = x.at(base + k * inner) - m;
        y.set(base + k * inner, log_out ? d - std::log(sum) : std::exp(d) / sum);
      }
    }
}

}  // namespace

void register_softmax(Registry& r) {
  for (const bool log_out : {false, true})
    for (const bool flatten : {true, false}) {
      const char* doc =
          log_out ? (flatten ? "output = log-softmax of each row of input flattened to 2-D at axis"
                             : "output = log-softmax of input along axis (x - max - log sum exp)")
                  : (flatten ? "output = softmax of each row of input flattened to 2-D at axis"
                             : "output = softmax of input along axis (x - max, exp, / sum)");
      r.add(
          def_op(log_out ? "LogSoftmax" : "Softmax", flatten ? 1 : 13, flatten ? 12 : INT_MAX)
              .input("input", "T")
              .output("output", "T")
              .attr("axis", AttrKind::kInt, int64_t{flatten ? 1 : -1})
              .type_constraint("T", float_types())
              .trait(kNormalization)
              .describe(doc)
              .infer([flatten](const InferContext& c) {
                const auto& x = c.inputs[0];
                if (x.shape)
                  softmax_axis(flatten, c.attrs.i("axis"), static_cast<int64_t>(x.shape->size()));
                return infer_unary(c);
              })
              .tiling([flatten](const LaunchContext& ctx) { return softmax_tiling(flatten, ctx); })
              .kernel([flatten, log_out](TileBuilder& t) { softmax_kernel(flatten, log_out, t); })
              .reference([flatten, log_out](const Attrs& a, std::span<const Tensor> in,
                                            std::span<Tensor> out) {
                softmax_reference(flatten, log_out, a, in[0], out[0]);
              }));
    }
}

}  // namespace asc

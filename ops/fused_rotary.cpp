// FusedRotary (ai.asc 1): what the pass makes of the rotate_half spelling of rotary embeddings
// (Slice halves, Neg, Concat, Mul cos, Mul sin, Add):
//   Y = X * cos + rotate_half(X) * sin,  rotate_half(X) = concat(-X[..., h:], X[..., :h])
// X [.., D] with D = 2h even; X, cos and sin broadcast (numpy) to Y, whose last dim is X's (cos
// and sin have last dim D or 1).
//
// The view: X's leading dims [.., D) as rows, merged where every operand broadcasts alike (the
// elementwise view of the shapes without their last dim); one tile is TR rows of the last leading
// view dim (one row of the others) times both halves of D:
//   x_lo, x_hi = X[rows, 0 : h], X[rows, h : D]     (cos, sin likewise; stride 0 where broadcast)
//   y_lo = x_lo * cos_lo - x_hi * sin_lo
//   y_hi = x_hi * cos_hi + x_lo * sin_hi
// in f32 for f16/bf16 storage; the halves are separate boxes, so nothing is shuffled in UB.
#include <algorithm>

#include "ops/fused.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc::fused {
namespace {

struct RotView {
  EwView rows;             // leading dims of every argument (X, cos, sin, Y), in rows
  std::vector<int64_t> l;  // per argument: its last dim (D, or 1 where it broadcasts)
  int64_t half = 0;
};

RotView rot_view(const LaunchContext& ctx) {
  const Shape &x = ctx.inputs[0].shape, &y = ctx.outputs[0].shape;
  if (x.empty() || x.back() % 2 != 0 || y.empty() || y.back() != x.back())
    throw ShapeError(cat(ctx.str(), ": X needs a last dim of even size, Y's"));
  LaunchContext lead = ctx;
  RotView v;
  auto trim = [&v](TensorDesc& d) {
    v.l.push_back(d.shape.empty() ? 1 : d.shape.back());
    if (!d.shape.empty()) d.shape.pop_back();
  };
  for (auto& d : lead.inputs) trim(d);
  for (auto& d : lead.outputs) trim(d);
  v.rows = ew_view(lead);
  v.half = x.back() / 2;
  return v;
}

// The box of argument `arg` (inputs, then the output) for half 0 or 1 of the last dim.
GmBox rot_box(const RotView& v, const TilingData& tiling, int arg, int half) {
  const int64_t tr = tiling.get("TR");
  const size_t r = v.rows.dims.size();
  const int64_t l = v.l[static_cast<size_t>(arg)];
  GmBox box;
  for (size_t d = 0; d < r; ++d) {
    BoxDim bd;
    bd.extent = v.rows.dims[d];
    bd.stride = v.rows.strides[static_cast<size_t>(arg)][d] * l;
    if (d + 1 < r) {
      bd.start = Coord{static_cast<int>(d), 1, 0};
    } else {
      bd.start = tr >= bd.extent ? Coord{} : Coord{static_cast<int>(d), tr, 0};
      bd.size = tr;
    }
    box.dims.push_back(bd);
  }
  const bool bcast = l != 2 * v.half;  // a last dim of 1 broadcasts
  box.dims.push_back(
      BoxDim{2 * v.half, bcast ? 0 : 1, Coord{-1, 0, bcast ? 0 : half * v.half}, v.half});
  return box;
}

TilingData make_rot_tiling(const RotView& v, int64_t tr, int64_t cores) {
  TilingData t;
  const size_t r = v.rows.dims.size();
  for (size_t d = 0; d + 1 < r; ++d) t.grid.push_back(v.rows.dims[d]);
  const int64_t last = v.rows.dims[r - 1];
  t.grid.push_back(last == 0 ? 0 : (last + tr - 1) / tr);
  t.params["TR"] = tr;
  t.block_dim = std::clamp<int64_t>(numel(t.grid), 1, cores);
  return t;
}

TilingData rot_tiling(const LaunchContext& ctx) {
  const RotView v = rot_view(ctx);
  const int64_t cores = cores_for(ctx);
  const int64_t last = v.rows.dims.back();
  if (numel(v.rows.dims) == 0 || v.half == 0) {
    TilingData t = make_rot_tiling(v, 1, cores);
    for (auto& g : t.grid) g = 0;
    return t;
  }
  TilingData best =
      auto_tiling(ctx, 1, last, [&](int64_t tr) { return make_rot_tiling(v, tr, cores); });
  // Balance: at least one tile per core where the rows allow it.
  const int64_t others = numel(v.rows.dims) / last;
  if (numel(best.grid) < cores) {
    const int64_t want = (cores + others - 1) / others;
    const int64_t tr = std::max<int64_t>(1, (last + want - 1) / want);
    if (tr < best.get("TR")) best = make_rot_tiling(v, tr, cores);
  }
  return best;
}

void rot_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const RotView v = rot_view(ctx);
  auto load = [&](int arg, int half) {
    Buf b = t.copy_in(arg, rot_box(v, t.tiling(), arg, half));
    return t.cast(b, compute_dtype(t.dtype(b)));
  };
  Buf x_lo = load(0, 0), x_hi = load(0, 1);
  Buf y_lo = x_lo * load(1, 0) - x_hi * load(2, 0);
  Buf y_hi = x_hi * load(1, 1) + x_lo * load(2, 1);
  const DType dt = ctx.outputs[0].dtype;
  t.copy_out(0, t.cast(y_lo, dt), rot_box(v, t.tiling(), 3, 0));
  t.copy_out(0, t.cast(y_hi, dt), rot_box(v, t.tiling(), 3, 1));
}

std::vector<TensorType> infer_rot(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  if (x.shape && (x.shape->empty() || (x.shape->back().known() && x.shape->back().value() % 2)))
    throw ShapeError(cat("FusedRotary: X ", x.str(), " needs a last dim of even size"));
  std::vector<TensorType> y = infer_broadcast(c);
  if (x.shape && y[0].shape) {
    const Dim &d = x.shape->back(), &yd = y[0].shape->back();
    if (d.known() && yd.known() && d.value() != yd.value())
      throw ShapeError(cat("FusedRotary: cos ", c.inputs[1].str(), " and sin ", c.inputs[2].str(),
                           " must have X's last dim (", d.value(), ") or 1"));
  }
  return y;
}

// In double: every element of Y from X at its own and at its rotate_half partner position.
void ref_rot(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape& ys = out[0].shape();
  const size_t r = ys.size();
  const int64_t d = ys.back(), h = d / 2;
  auto strides_of = [&](const Shape& s) {  // aligned to Y's rank, 0 where broadcast
    Shape st(r, 0);
    const Shape cs = contiguous_strides(s);
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] != 1) st[r - s.size() + i] = cs[i];
    return st;
  };
  const Shape sx = strides_of(in[0].shape()), sc = strides_of(in[1].shape()),
              ss = strides_of(in[2].shape());
  std::vector<int64_t> idx(r);
  for (int64_t i = 0; i < out[0].numel(); ++i) {
    unravel(i, ys, idx.data());
    const int64_t k = idx[r - 1], at = ravel(idx.data(), sx, r);
    const double rot = k < h ? -in[0].at(at + h) : in[0].at(at - h);
    const double y = in[0].at(at) * in[1].at(ravel(idx.data(), sc, r)) +
                     rot * in[2].at(ravel(idx.data(), ss, r));
    out[0].set(i, y);
  }
}

}  // namespace

void add_rotary(Registry& r) {
  r.add(def_op("FusedRotary", 1, INT_MAX, kDomain)
            .input("X", "T")
            .input("cos", "T")
            .input("sin", "T")
            .output("Y", "T")
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .describe("Y = X * cos + rotate_half(X) * sin, rotate_half(X) = concat(-X[..., D/2:], "
                      "X[..., :D/2]) (fused rotary embedding)")
            .infer(infer_rot)
            .tiling(rot_tiling)
            .kernel(rot_kernel)
            .reference(ref_rot));
}

}  // namespace asc::fused

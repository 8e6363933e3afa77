// Concat and Split along one axis, as tile kernels. Layout: a tensor of dims D viewed as
// [outer, D[axis] * inner] with outer = prod(D[:axis]) and inner = prod(D[axis+1:]); each input
// (Concat) or output (Split) i is the [outer, w_i] block at column col_i = sum_{j<i} w_j of the
// joined [outer, row] tensor, w_i = n_i * inner.
//
// Tiling: a [TR, TC] box per part; grid [ceil(outer / TR), ceil(max_i w_i / TC)]. One tile copies,
// for every part, its box at (rows r * TR, columns c * TC) between the part and the joined tensor
// (a box past a narrower part's width is empty and copies nothing). TC is the widest part, or an
// aligned piece of it when a row does not fit; TR fills the rest of the element budget.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "ops/movement.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

// Negative axes count from the back in every version: the specs before opset 11 do not define
// them, but exporters of that era (PyTorch's GLU as Split-2 on axis -1) wrote them that way.
int64_t join_axis(const std::string& op, int since, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw ShapeError(cat(op, "-", since, ": axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

std::pair<int64_t, int64_t> outer_inner(const Shape& s, int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  return {outer, inner};
}

// ---- Concat ----------------------------------------------------------------------------------
std::vector<TensorType> infer_concat(const InferContext& c) {
  const DType dt = c.inputs.at(0).dtype;
  const SymShape* first = nullptr;
  for (const auto& t : c.inputs)
    if (t.shape && !first) first = &*t.shape;
  if (!first) return {{dt, std::nullopt}};
  const int64_t rank = static_cast<int64_t>(first->size());
  if (rank == 0) throw ShapeError("Concat: inputs must have rank >= 1, got a scalar");
  const int64_t axis = join_axis("Concat", c.op.since, c.attrs.i("axis"), rank);
  SymShape out = *first;
  int64_t total = 0;
  bool known = true;
  for (const auto& t : c.inputs) {
    if (!t.shape) {
      known = false;
      continue;
    }
    if (static_cast<int64_t>(t.shape->size()) != rank)
      throw ShapeError(cat("Concat: inputs ", to_string(*first), " and ", to_string(*t.shape),
                           " differ in rank"));
    for (int64_t d = 0; d < rank; ++d) {
      const Dim& a = (*t.shape)[d];
      if (d == axis) {
        if (a.known())
          total += a.value();
        else
          known = false;
      } else if (a.known() && out[d].known() && a.value() != out[d].value()) {
        throw ShapeError(cat("Concat: inputs ", to_string(*first), " and ", to_string(*t.shape),
                             " differ in dim ", d, " (axis ", axis, ")"));
      } else if (!out[d].known()) {
        out[d] = a;
      }
    }
  }
  out[axis] = known ? Dim(total) : Dim();
  return {{dt, out}};
}

// Naive reference: every input element to its output position (axis index shifted).
void concat_reference(const Attrs& a, int since, std::span<const Tensor> in, Tensor& y) {
  const size_t r = y.shape().size();
  const int64_t axis = join_axis("Concat", since, a.i("axis"), static_cast<int64_t>(r));
  const Shape ys = contiguous_strides(y.shape());
  const size_t es = dtype_size(y.dtype());
  std::vector<int64_t> idx(r);
  int64_t offset = 0;
  for (const Tensor& x : in) {
    for (int64_t i = 0; i < x.numel(); ++i) {
      unravel(i, x.shape(), idx.data());
      idx[axis] += offset;
      std::memcpy(bytes_of(y) + ravel(idx.data(), ys, r) * es, bytes_of(x) + i * es, es);
    }
    offset += x.shape()[axis];
  }
}

// ---- Split -----------------------------------------------------------------------------------
struct SplitVersion {
  int since, until;
  bool split_input;  // split sizes as input 1 (else the attribute)
  bool num_outputs;  // Split-18's num_outputs attribute
  bool either;       // Split-1: the split attribute or an optional input 1 of data's dtype
};

// Split-1's sizes from its optional input 1, whose dtype is the data's (often float): every value
// must be a whole number.
std::vector<int64_t> split1_input_sizes(const InferContext& c) {
  const Tensor& t = need_value(c, 1);
  if (t.shape().size() > 1)
    throw ShapeError(cat("Split-1: input split must be 1-D, got ", to_string(t.shape())));
  for (int64_t i = 0; i < t.numel(); ++i)
    if (t.at(i) != std::floor(t.at(i)))
      throw ShapeError(cat("Split-1: input split holds ", t.at(i), ", not a whole number"));
  return to_int64s(t);
}

// Part sizes along the axis (of extent n).
std::vector<int64_t> split_sizes(const InferContext& c, const SplitVersion& v, int64_t n) {
  std::vector<int64_t> sizes;
  if (v.either) {
    sizes = c.attrs.ints("split");
    if (has_input(c, 1)) {
      if (!sizes.empty())
        throw ShapeError("Split-1: give split as the attribute or as input 1, not both");
      sizes = split1_input_sizes(c);
    }
  } else if (v.split_input) {
    if (has_input(c, 1)) sizes = need_ints(c, 1, "split");
  } else {
    sizes = c.attrs.ints("split");
  }
  if (!sizes.empty()) {
    int64_t sum = 0;
    for (int64_t s : sizes) {
      if (s < 0) throw ShapeError(cat("Split: negative size in split ", ints_str(sizes)));
      sum += s;
    }
    if (n >= 0 && sum != n)
      throw ShapeError(
          cat("Split: split ", ints_str(sizes), " sums to ", sum, ", the axis has ", n));
    return sizes;
  }
  // Without sizes: Split-18 names the part count, earlier versions split into as many equal
  // parts as the node has outputs.
  const int64_t parts =
      v.num_outputs ? c.attrs.i("num_outputs") : static_cast<int64_t>(c.num_outputs);
  if (parts <= 0)
    throw ShapeError(v.num_outputs ? "Split: give either split or num_outputs"
                                   : "Split: equal parts need the node's output count");
  if (n < 0) return std::vector<int64_t>(static_cast<size_t>(parts), -1);
  if (!v.num_outputs && n % parts != 0)
    throw ShapeError(cat("Split: an axis of ", n, " does not split into ", parts, " equal parts"));
  const int64_t chunk = (n + parts - 1) / parts;
  for (int64_t k = 0; k < parts; ++k)
    sizes.push_back(std::max<int64_t>(0, std::min(chunk, n - k * chunk)));
  return sizes;
}

std::vector<TensorType> infer_split(const InferContext& c, const SplitVersion& v) {
  const TensorType& x = c.inputs[0];
  if (!x.shape) {
    const auto sizes = split_sizes(c, v, -1);
    return std::vector<TensorType>(sizes.size(), {x.dtype, std::nullopt});
  }
  const int64_t rank = static_cast<int64_t>(x.shape->size());
  if (rank == 0) throw ShapeError("Split: input must have rank >= 1, got a scalar");
  const int64_t axis = join_axis("Split", c.op.since, c.attrs.i("axis"), rank);
  const Dim n = (*x.shape)[axis];
  const auto sizes = split_sizes(c, v, n.known() ? n.value() : -1);
  std::vector<TensorType> out;
  for (int64_t s : sizes) {
    SymShape o = *x.shape;
    o[axis] = s >= 0 ? Dim(s) : Dim();
    out.push_back({x.dtype, o});
  }
  return out;
}

void split_reference(const Attrs& a, int since, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const size_t r = x.shape().size();
  const int64_t axis = join_axis("Split", since, a.i("axis"), static_cast<int64_t>(r));
  const Shape xs = contiguous_strides(x.shape());
  const size_t es = dtype_size(x.dtype());
  std::vector<int64_t> idx(r);
  int64_t offset = 0;
  for (Tensor& y : out) {
    for (int64_t i = 0; i < y.numel(); ++i) {
      unravel(i, y.shape(), idx.data());
      idx[axis] += offset;
      std::memcpy(bytes_of(y) + i * es, bytes_of(x) + ravel(idx.data(), xs, r) * es, es);
    }
    offset += y.shape()[axis];
  }
}

// ---- Tile kernels ----------------------------------------------------------------------------
struct JoinView {
  int64_t outer = 0, row = 0;
  std::vector<int64_t> widths;  // per part
};

// The parts are Concat's inputs or Split's outputs; the joined tensor is the other side.
JoinView join_view(const LaunchContext& ctx, bool concat) {
  const std::vector<TensorDesc>& parts = concat ? ctx.inputs : ctx.outputs;
  const Shape& joined = (concat ? ctx.outputs : ctx.inputs).at(0).shape;
  const int64_t axis = join_axis(ctx.op->type, ctx.op->since, ctx.attr().i("axis"),
                                 static_cast<int64_t>(joined.size()));
  const auto [outer, inner] = outer_inner(joined, axis);
  JoinView v;
  v.outer = outer;
  v.row = joined[axis] * inner;
  for (const TensorDesc& p : parts) v.widths.push_back(p.shape.at(axis) * inner);
  return v;
}

TilingData make_join_tiling(const JoinView& v, int64_t elems, int64_t align) {
  const int64_t widest = std::max<int64_t>(1, *std::max_element(v.widths.begin(), v.widths.end()));
  const int64_t tc = widest <= elems ? widest : std::max(align, elems / align * align);
  const int64_t tr = std::clamp<int64_t>(elems / tc, 1, std::max<int64_t>(1, v.outer));
  TilingData td;
  td.grid = {(v.outer + tr - 1) / tr, (widest + tc - 1) / tc};
  td.params["TR"] = tr;
  td.params["TC"] = tc;
  return td;
}

TilingData join_tiling(const LaunchContext& ctx, bool concat) {
  const JoinView v = join_view(ctx, concat);
  const int64_t total = v.outer * v.row;
  if (total == 0) {
    TilingData t = make_join_tiling(v, 1, 1);
    t.grid = {0, 0};
    return t;
  }
  const int64_t cores = cores_for(ctx);
  const int64_t align = std::max<int64_t>(
      1, ctx.spec->block_bytes / static_cast<int64_t>(dtype_size(ctx.outputs[0].dtype)));
  auto make = [&](int64_t e) { return make_join_tiling(v, e, align); };
  TilingData best = auto_tiling(ctx, align, total, make);
  if (numel(best.grid) < cores && total >= cores * align) {  // keep every core busy
    TilingData smaller = make(std::max(align, total / cores));
    if (numel(smaller.grid) > numel(best.grid)) best = smaller;
  }
  best.block_dim = std::min<int64_t>(cores, std::max<int64_t>(1, numel(best.grid)));
  return best;
}

// Box [TR, TC] of a [outer, width] block whose columns start at `col` of rows of `stride`.
GmBox join_box(const JoinView& v, const TilingData& tiling, int64_t stride, int64_t col,
               int64_t width) {
  const int64_t tr = tiling.get("TR"), tc = tiling.get("TC");
  GmBox box;
  box.dims.push_back(BoxDim{v.outer, stride, Coord{0, tr, 0}, tr});
  box.dims.push_back(BoxDim{col + width, 1, Coord{1, tc, col}, tc});
  return box;
}

void join_kernel(TileBuilder& t, bool concat) {
  const JoinView v = join_view(t.ctx(), concat);
  int64_t col = 0;
  for (size_t i = 0; i < v.widths.size(); ++i) {
    const int64_t w = v.widths[i];
    if (w > 0) {
      const GmBox part = join_box(v, t.tiling(), w, 0, w);
      const GmBox joined = join_box(v, t.tiling(), v.row, col, w);
      const int p = static_cast<int>(i);
      if (concat) {
        t.copy_out(0, t.copy_in(p, part), joined);
      } else {
        t.copy_out(p, t.copy_in(0, joined), part);
      }
    }
    col += w;
  }
}

// Every dim before the axis is 1: each input is one contiguous block of the output, in order.
bool concat_back_to_back(const Attrs& a, std::span<const TensorDesc>, const TensorDesc& out) {
  if (out.shape.empty()) return false;
  const int64_t axis = normalize_axis(a.i("axis"), static_cast<int64_t>(out.shape.size()));
  for (int64_t d = 0; d < axis; ++d)
    if (out.shape[static_cast<size_t>(d)] != 1) return false;
  return true;
}

}  // namespace

void register_movement_join(Registry& r) {
  struct CV {
    int since, until;
  };
  for (CV v : {CV{1, 3}, CV{4, 10}, CV{11, INT_MAX}}) {
    const int since = v.since;
    OpDef d = def_op("Concat", v.since, v.until);
    d.input("inputs", "T", Arity::kVariadic).output("concat_result", "T");
    if (since == 1)
      d.attr("axis", AttrKind::kInt, int64_t{1});
    else
      d.attr("axis", AttrKind::kInt);
    d.type_constraint("T", movement_types())
        .trait(kMovement)
        .describe(since == 1 ? "concat_result = inputs joined along axis (default 1)"
                             : "concat_result = inputs joined along axis")
        .infer(infer_concat)
        .tiling([](const LaunchContext& ctx) { return join_tiling(ctx, true); })
        .kernel([](TileBuilder& t) { join_kernel(t, true); })
        .back_to_back(concat_back_to_back)
        .reference([since](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          concat_reference(a, since, in, out[0]);
        });
    r.add(std::move(d));
  }
  static constexpr SplitVersion kSplit[] = {{1, 1, false, false, true},
                                            {2, 10, false, false, false},
                                            {11, 12, false, false, false},
                                            {13, 17, true, false, false},
                                            {18, INT_MAX, true, true, false}};
  for (const SplitVersion& sv : kSplit) {
    const SplitVersion* v = &sv;
    OpDef d = def_op("Split", sv.since, sv.until);
    d.input("input", "T");
    if (sv.either)  // the spec types input 1 as T; any numeric dtype is accepted here
      d.input("split", "T1", Arity::kOptional, true).type_constraint("T1", numeric_types());
    if (sv.split_input)
      d.input("split", "i64", Arity::kOptional, true);
    else
      d.attr("split", AttrKind::kInts, std::vector<int64_t>{});
    if (sv.num_outputs) d.attr("num_outputs", AttrKind::kInt, int64_t{0});
    d.output("outputs", "T", Arity::kVariadic)
        .attr("axis", AttrKind::kInt, int64_t{0})
        .type_constraint("T", movement_types())
        .trait(kMovement)
        .describe(sv.num_outputs ? "outputs = input cut along axis by split sizes or into "
                                   "num_outputs parts (the last one smaller)"
                  : sv.either    ? "outputs = input cut along axis (default 0) by the split "
                                   "attribute or input 1, else into equal parts"
                                 : "outputs = input cut along axis by split sizes")
        .infer([v](const InferContext& c) { return infer_split(c, *v); })
        .tiling([](const LaunchContext& ctx) { return join_tiling(ctx, false); })
        .kernel([](TileBuilder& t) { join_kernel(t, false); })
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          split_reference(a, v->since, in, out);
        });
    r.add(std::move(d));
  }
}

}  // namespace asc

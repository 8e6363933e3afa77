#include "registry/rows.h"

#include <algorithm>
#include <limits>

#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {

int64_t RowView::kept_numel() const {
  int64_t n = 1;
  for (size_t j = 0; j < dims.size(); ++j)
    if (!reduced[j]) n *= dims[j];
  return n;
}

bool RowView::has_reduced() const {
  return std::find(reduced.begin(), reduced.end(), true) != reduced.end();
}

RowView row_view(const Shape& in, std::span<const int64_t> axes) {
  const size_t r = in.size();
  std::vector<bool> red(r, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= static_cast<int64_t>(r) || red[a])
      throw ShapeError("reduction axes " + to_string(Shape(axes.begin(), axes.end())) +
                       " invalid for input " + to_string(in));
    red[a] = true;
  }
  const Shape strides = contiguous_strides(in);
  RowView v;
  for (size_t d = 0; d < r; ++d) {
    if (red[d]) v.count *= in[d];
    if (in[d] == 1) continue;  // size-1 dims neither reduce nor tile
    if (!v.dims.empty() && v.reduced.back() == red[d]) {
      v.dims.back() *= in[d];  // contiguous input: the merged stride is the inner one
      v.in_strides.back() = strides[d];
    } else {
      v.dims.push_back(in[d]);
      v.reduced.push_back(red[d]);
      v.in_strides.push_back(strides[d]);
    }
  }
  if (v.dims.empty()) {  // scalar or all-ones input: one kept element
    v.dims.push_back(1);
    v.reduced.push_back(false);
    v.in_strides.push_back(1);
  }
  v.out_strides.assign(v.dims.size(), 0);
  int64_t acc = 1;
  for (size_t j = v.dims.size(); j-- > 0;) {
    if (v.reduced[j]) continue;
    v.out_strides[j] = acc;
    acc *= v.dims[j];
  }
  return v;
}

namespace {

std::string box_key(size_t j) {
  return cat("B", j);
}

// Greedy fill of the dims of one kind from the innermost outward within `budget` elements:
// whole dims while they fit, then one partial dim (a multiple of align when above it, at least
// `floor` when it is the innermost kept dim), then 1. Returns the box elements used.
int64_t fill(const RowView& v, bool reduced, int64_t budget, int64_t align, int64_t floor_inner,
             Shape& box) {
  bool cut = false;
  int64_t used = 1;
  bool first = true;
  for (size_t j = v.dims.size(); j-- > 0;) {
    if (v.reduced[j] != reduced) continue;
    const int64_t ext = std::max<int64_t>(1, v.dims[j]);
    const int64_t lo = first ? std::min(ext, floor_inner) : 1;
    first = false;
    if (cut) {
      box[j] = 1;
    } else if (ext <= budget) {
      box[j] = ext;
      budget /= ext;
    } else {
      int64_t b = budget > align ? budget / align * align : budget;
      box[j] = std::clamp<int64_t>(b, std::max<int64_t>(1, lo), ext);
      cut = true;
    }
    used *= box[j];
  }
  return used;
}

TilingData make_row_tiling(const RowView& v, int64_t e, int64_t align, int64_t kmin) {
  const size_t n = v.dims.size();
  Shape box(n, 1);
  // The innermost kept dim keeps at least kmin elements when it is the contiguous last dim.
  const bool kept_last = !v.reduced[n - 1];
  const int64_t kfloor = kept_last ? std::min(std::max<int64_t>(1, v.dims[n - 1]), kmin) : 1;
  const int64_t rbox = fill(v, true, std::max<int64_t>(1, e / kfloor), align, 1, box);
  fill(v, false, std::max<int64_t>(1, e / rbox), align, kfloor, box);
  TilingData t;
  for (size_t j = 0; j < n; ++j) {
    t.params[box_key(j)] = box[j];
    if (!v.reduced[j]) t.grid.push_back((v.dims[j] + box[j] - 1) / box[j]);
  }
  if (t.grid.empty()) t.grid.push_back(1);
  t.params["E"] = e;
  return t;
}

bool same_reduced_box(const RowView& v, const TilingData& a, const TilingData& b) {
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j] && a.get(box_key(j)) != b.get(box_key(j))) return false;
  return true;
}

}  // namespace

TilingData row_tiling(const LaunchContext& ctx, const RowView& v) {
  const int64_t es = static_cast<int64_t>(dtype_size(ctx.inputs.at(0).dtype));
  const int64_t align = std::max<int64_t>(1, ctx.spec->block_bytes / es);
  const int64_t kmin = std::max(align, ctx.spec->repeat_bytes / es);
  if (v.kept_numel() == 0) {  // empty output: no tiles
    TilingData t = make_row_tiling(v, align, align, kmin);
    return t;
  }
  int64_t total = 1;
  for (int64_t d : v.dims) total *= std::max<int64_t>(1, d);
  TilingData best = auto_tiling(ctx, align, std::max(align, total),
                                [&](int64_t e) { return make_row_tiling(v, e, align, kmin); });
  // Balance: shrink the kept box (never the reduced one) until every core has a tile.
  const int64_t cores = cores_for(ctx);
  for (int64_t e = best.get("E"); numel(best.grid) < cores && e > align;) {
    e /= 2;
    TilingData cand = make_row_tiling(v, e, align, kmin);
    if (!same_reduced_box(v, best, cand)) break;
    best = std::move(cand);
  }
  best.block_dim = std::min<int64_t>(cores, std::max<int64_t>(1, numel(best.grid)));
  return best;
}

Shape row_kept(const RowView& v, const RowCursor& tile, bool& looped) {
  Shape kept = tile.size;
  looped = false;
  for (size_t j = 0; j < v.dims.size(); ++j) {
    if (!v.reduced[j]) continue;
    looped = looped || tile.size[j] < v.dims[j];
    kept[j] = 1;
  }
  return kept;
}

RowCursor row_tile(const RowView& v, const TilingData& tiling) {
  RowCursor c;
  int g = 0;
  for (size_t j = 0; j < v.dims.size(); ++j) {
    const int64_t b = tiling.get(box_key(j));
    c.size.push_back(b);
    c.start.push_back(v.reduced[j] ? Coord{} : Coord{g++, b, 0});
  }
  return c;
}

GmBox row_in_box(const RowView& v, const RowCursor& c) {
  GmBox box;
  for (size_t j = 0; j < v.dims.size(); ++j)
    box.dims.push_back(BoxDim{v.dims[j], v.in_strides[j], c.start[j], c.size[j]});
  return box;
}

GmBox row_out_box(const RowView& v, const RowCursor& c) {
  GmBox box;
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (!v.reduced[j])
      box.dims.push_back(BoxDim{v.dims[j], v.out_strides[j], c.start[j], c.size[j]});
  return box;
}

namespace {

// Emits the chunks of reduced dims `order[level..]` (outermost first) around `chunk`.
void emit_chunks(TileBuilder& t, const RowView& v, const std::vector<size_t>& order, size_t level,
                 RowCursor& c, const std::function<void(const RowCursor&)>& chunk) {
  if (level == order.size()) {
    chunk(c);
    return;
  }
  const size_t j = order[level];
  const int64_t b = c.size[j];
  const int64_t full = v.dims[j] / b, tail = v.dims[j] % b;
  t.loop(full, [&](Coord k) {
    c.start[j] = Coord{k.var, b, 0};
    emit_chunks(t, v, order, level + 1, c, chunk);
  });
  if (tail > 0) {  // exact tail box: the reduction never sees padding
    c.start[j] = Coord{-1, 0, full * b};
    c.size[j] = tail;
    emit_chunks(t, v, order, level + 1, c, chunk);
    c.size[j] = b;
  }
  c.start[j] = Coord{};
}

}  // namespace

void row_chunks(TileBuilder& t, const RowView& v,
                const std::function<void(const RowCursor&)>& chunk) {
  if (v.count == 0) return;
  RowCursor c = row_tile(v, t.tiling());
  std::vector<size_t> looped;
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j] && c.size[j] < v.dims[j]) looped.push_back(j);
  emit_chunks(t, v, looped, 0, c, chunk);
}

Buf row_reduce_box(TileBuilder& t, ReduceOp op, Buf x, const RowView& v) {
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j] && t.dims(x)[j] > 1) x = t.reduce(op, x, static_cast<int>(j));
  return x;
}

double lowest_value(DType t) {
  switch (t) {
    case DType::kI8:
      return std::numeric_limits<int8_t>::lowest();
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
    case DType::kU64:
    case DType::kBool:
      return 0;
    case DType::kI16:
      return std::numeric_limits<int16_t>::lowest();
    case DType::kI32:
      return std::numeric_limits<int32_t>::lowest();
    case DType::kI64:
      return static_cast<double>(std::numeric_limits<int64_t>::lowest());
    default:
      return -std::numeric_limits<double>::infinity();
  }
}

Buf row_reduce_input(TileBuilder& t, int input, ReduceOp op, const RowView& v) {
  if (op != ReduceOp::kSum && op != ReduceOp::kMax)
    throw ShapeError(t.ctx().str() + ": row_reduce_input supports sum and max");
  const DType cdt = compute_dtype(t.ctx().inputs.at(input).dtype);
  const RowCursor tile = row_tile(v, t.tiling());
  Shape kept_box = tile.size;  // the result: reduced dims 1
  bool looped = false;
  for (size_t j = 0; j < v.dims.size(); ++j) {
    if (!v.reduced[j]) continue;
    looped = looped || tile.size[j] < v.dims[j];
    kept_box[j] = 1;
  }
  const double identity = op == ReduceOp::kSum ? 0.0 : lowest_value(cdt);
  if (v.count == 0) return t.duplicate(cdt, kept_box, identity);
  auto partial = [&](const RowCursor& c) {
    Buf x = t.cast(t.copy_in(input, row_in_box(v, c)), cdt);
    return row_reduce_box(t, op, x, v);
  };
  if (!looped) return partial(tile);
  // Loop-carried: acc starts at the identity and takes every chunk's partial in place.
  Buf acc = t.duplicate(cdt, kept_box, identity);
  const BinaryOp bin = op == ReduceOp::kSum ? BinaryOp::kAdd : BinaryOp::kMax;
  row_chunks(t, v, [&](const RowCursor& c) { t.accumulate(bin, acc, partial(c)); });
  return acc;
}

}  // namespace asc

#include "registry/tiling.h"

#include <algorithm>

#include "registry/error.h"
#include "registry/passes.h"

namespace asc {

TileProgram trace_program(const LaunchContext& ctx, const TilingData& tiling) {
  if (!ctx.op || !ctx.op->tile_kernel_fn) throw Error(ctx.str() + ": op has no tile kernel");
  TileProgram p = trace(ctx, tiling, ctx.op->tile_kernel_fn);
  run_passes(p, *ctx.spec, ctx.optimize);
  return p;
}

TilingData auto_tiling(const LaunchContext& ctx, const std::vector<TilingData>& candidates) {
  if (candidates.empty()) throw Error(ctx.str() + ": no tiling candidates");
  for (size_t i = 0; i + 1 < candidates.size(); ++i) {
    TileProgram p = trace(ctx, candidates[i], ctx.op->tile_kernel_fn);
    double_buffer(p, ctx.optimize);
    place_buffers(p, *ctx.spec);
    if (fits(p, *ctx.spec)) return candidates[i];
  }
  trace_program(ctx, candidates.back());  // throws CapacityError if even the last fails
  return candidates.back();
}

TilingData auto_tiling(const LaunchContext& ctx, int64_t align, int64_t hi,
                       const std::function<TilingData(int64_t)>& make) {
  std::vector<int64_t> sizes;
  for (int64_t s = align; s <= std::max(hi, align); s *= 2) sizes.push_back(s);
  if (sizes.back() < hi) sizes.push_back(hi);
  // Binary search for the largest fitting size.
  auto ok = [&](int64_t s) {
    TileProgram p = trace(ctx, make(s), ctx.op->tile_kernel_fn);
    double_buffer(p, ctx.optimize);
    place_buffers(p, *ctx.spec);
    return fits(p, *ctx.spec);
  };
  int lo = 0, hi_i = static_cast<int>(sizes.size()) - 1;
  if (!ok(sizes[0])) {
    trace_program(ctx, make(sizes[0]));  // throws the CapacityError
  }
  while (lo < hi_i) {
    const int mid = (lo + hi_i + 1) / 2;
    if (ok(sizes[mid])) {
      lo = mid;
    } else {
      hi_i = mid - 1;
    }
  }
  // Refine between the largest fitting power of two and the next, on multiples of align.
  int64_t good = sizes[lo];
  int64_t bad = lo + 1 < static_cast<int>(sizes.size()) ? sizes[lo + 1] : good;
  while (bad - good > align) {
    const int64_t mid = (good + bad) / 2 / align * align;
    if (mid <= good) break;
    if (ok(mid)) {
      good = mid;
    } else {
      bad = mid;
    }
  }
  return make(good);
}

int64_t cores_for(const LaunchContext& ctx) {
  const bool cube = ctx.op && ctx.op->has(kContraction);
  return std::max(1, cube ? ctx.spec->cube_cores : ctx.spec->vector_cores);
}

// ---- elementwise ------------------------------------------------------------------------------

EwView ew_view(const LaunchContext& ctx) {
  const Shape& out = ctx.outputs.at(0).shape;
  const size_t r = out.size();
  std::vector<Shape> aligned;  // every argument's shape padded to the output's rank
  for (const auto& in : ctx.inputs) {
    if (in.shape.size() > r) throw ShapeError(ctx.str() + ": input rank exceeds output rank");
    Shape s(r - in.shape.size(), 1);
    s.insert(s.end(), in.shape.begin(), in.shape.end());
    aligned.push_back(s);
  }
  for (const auto& o : ctx.outputs) aligned.push_back(o.shape);
  std::vector<Shape> full_strides;
  for (const auto& s : aligned) full_strides.push_back(contiguous_strides(s));

  EwView v;
  v.strides.resize(aligned.size());
  auto bcast = [&](size_t a, size_t d) { return aligned[a][d] == 1 && out[d] != 1; };
  for (size_t d = 0; d < r; ++d) {
    if (out[d] == 1) continue;
    bool merge = !v.dims.empty();
    if (merge) {
      // Merge into the previous kept dim when every operand broadcasts (or not) in both.
      size_t prev = d;
      while (prev > 0 && out[--prev] == 1) {
      }
      for (size_t a = 0; a < aligned.size() && merge; ++a) merge = bcast(a, prev) == bcast(a, d);
    }
    if (merge) {
      v.dims.back() *= out[d];
      for (size_t a = 0; a < aligned.size(); ++a)
        if (!bcast(a, d)) v.strides[a].back() = full_strides[a][d];
    } else {
      v.dims.push_back(out[d]);
      for (size_t a = 0; a < aligned.size(); ++a)
        v.strides[a].push_back(bcast(a, d) ? 0 : full_strides[a][d]);
    }
  }
  if (v.dims.empty()) {  // scalar output (or all-ones shape)
    v.dims.push_back(1);
    for (auto& s : v.strides) s.push_back(0);
  }
  return v;
}

namespace {

TilingData make_ew_tiling(const EwView& v, int64_t elems) {
  const size_t r = v.dims.size();
  const int64_t last = v.dims[r - 1];
  TilingData t;
  int64_t ti = std::min(elems, last);
  int64_t tr = 1;
  if (r >= 2 && ti == last) tr = std::max<int64_t>(1, std::min(v.dims[r - 2], elems / last));
  for (size_t d = 0; d + 2 < r; ++d) t.grid.push_back(v.dims[d]);
  if (r >= 2) t.grid.push_back((v.dims[r - 2] + tr - 1) / tr);
  t.grid.push_back(last == 0 ? 0 : (last + ti - 1) / ti);
  t.params["TI"] = ti;
  t.params["TR"] = tr;
  return t;
}

}  // namespace

TilingData elementwise_tiling(const LaunchContext& ctx) {
  const EwView v = ew_view(ctx);
  const int64_t total = numel(v.dims);
  const int64_t cores = cores_for(ctx);
  size_t widest = 1;
  for (const auto& a : ctx.inputs) widest = std::max(widest, dtype_size(a.dtype));
  for (const auto& a : ctx.outputs) widest = std::max(widest, dtype_size(a.dtype));
  // 32-byte aligned tiles for the narrowest output type.
  const int64_t align = std::max<int64_t>(
      1, ctx.spec->block_bytes / static_cast<int64_t>(dtype_size(ctx.outputs[0].dtype)));
  if (total == 0) {
    TilingData t = make_ew_tiling(v, align);
    for (auto& g : t.grid) g = 0;
    return t;
  }
  TilingData best = auto_tiling(ctx, align, total, [&](int64_t e) { return make_ew_tiling(v, e); });
  int64_t elems = best.params["TI"] * best.params["TR"];
  // Balance: at least one tile per core when there is enough work, in whole multiples.
  int64_t tiles = (total + elems - 1) / elems;
  if (tiles < cores || tiles % cores != 0) {
    tiles = (tiles + cores - 1) / cores * cores;
    int64_t e = (total + tiles - 1) / tiles;
    e = std::max(align, (e + align - 1) / align * align);
    if (e < elems) best = make_ew_tiling(v, e);
  }
  best.block_dim = std::min<int64_t>(cores, std::max<int64_t>(1, numel(best.grid)));
  return best;
}

GmBox ew_box(const LaunchContext& ctx, const TilingData& tiling, int arg) {
  const EwView v = ew_view(ctx);
  const size_t r = v.dims.size();
  const int64_t ti = tiling.get("TI"), tr = tiling.get("TR");
  GmBox box;
  for (size_t d = 0; d < r; ++d) {
    BoxDim bd;
    bd.extent = v.dims[d];
    bd.stride = v.strides[arg][d];
    const int var = r >= 2 ? static_cast<int>(d) : 0;
    // A dim covered by one tile starts at a constant 0, so a box spanning whole rows stays
    // contiguous (the cpu device then aliases GM instead of copying).
    if (d + 1 == r) {
      bd.start = ti >= v.dims[d] ? Coord{} : Coord{var, ti, 0};
      bd.size = ti;
    } else if (d + 2 == r) {
      bd.start = tr >= v.dims[d] ? Coord{} : Coord{var, tr, 0};
      bd.size = tr;
    } else {
      bd.start = Coord{var, 1, 0};
      bd.size = 1;
    }
    box.dims.push_back(bd);
  }
  return box;
}

DType compute_dtype(DType t) {
  return t == DType::kF16 || t == DType::kBF16 ? DType::kF32 : t;
}

Buf ew_copy_in(TileBuilder& t, int input) {
  const LaunchContext& ctx = t.ctx();
  const GmBox box = ew_box(ctx, t.tiling(), input);
  const auto i = static_cast<size_t>(input);
  const Tensor* v = i < ctx.values.size() ? ctx.values[i] : nullptr;
  if (!t.spliced() && v && v->numel() == 1 && dtype_is_float(v->dtype()) &&
      v->dtype() == ctx.inputs[i].dtype)
    return t.known_scalar(v->dtype(), box.sizes(), v->at(0));
  return t.copy_in(input, box);
}

Buf ew_load(TileBuilder& t, int input) {
  Buf b = ew_copy_in(t, input);
  return t.cast(b, compute_dtype(t.dtype(b)));
}

void ew_store(TileBuilder& t, int output, Buf value) {
  const int arg = static_cast<int>(t.ctx().inputs.size()) + output;
  Buf v = t.cast(value, t.ctx().outputs[output].dtype);
  t.copy_out(output, v, ew_box(t.ctx(), t.tiling(), arg));
}

}  // namespace asc

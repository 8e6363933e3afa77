// Expand and Tile as tile kernels: the output (contiguous) is a strided view of the input with
// stride 0 along broadcast or repeated dims, so one tile is a copy-in of a GM box with those
// strides followed by a copy-out of the same box of the output.
//
// View: output dims D[0..R-1] (R >= 1) and the input stride of each; size-1 dims are dropped and
// a dim is merged into the next inner one when the input steps over both contiguously.
//   Expand: D = output dims, input strides right-aligned, 0 where the input dim is 1.
//   Tile:   output dim k seen as [repeat r_k, input dim n_k] with input strides [0, xs_k]
//           (r_k = repeats[k] from 6 on; Tile-1 repeats one axis, r_axis = tiles).
// Tiling: tile sizes T<k>, filled from the innermost dim while a tile stays within the element
// budget (a partial dim ends the fill; a long last dim is cut into aligned pieces); grid over
// every dim; auto_tiling finds the largest budget that fits the local memory. copy_view,
// copy_tiling and copy_kernel (ops/movement.h) also serve DepthToSpace and SpaceToDepth.
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

TilingData make_copy_tiling(const CopyView& v, int64_t elems, int64_t align) {
  const int r = static_cast<int>(v.dims.size());
  Shape t(r, 1);
  if (v.dims[r - 1] > elems) {
    t[r - 1] = std::max(align, elems / align * align);
  } else {
    int64_t budget = elems;
    for (int k = r - 1; k >= 0 && budget > 1; --k) {
      t[k] = std::max<int64_t>(1, std::min(v.dims[k], budget));
      if (t[k] < v.dims[k]) break;
      budget /= std::max<int64_t>(1, v.dims[k]);
    }
  }
  TilingData td;
  for (int k = 0; k < r; ++k) {
    td.grid.push_back((v.dims[k] + t[k] - 1) / t[k]);
    td.params[cat("T", k)] = t[k];
  }
  return td;
}

// The tile's box over the input (arg 0: view strides) or the output (arg 1: contiguous).
GmBox copy_box(const CopyView& v, const TilingData& tiling, int arg) {
  const Shape out_strides = contiguous_strides(v.dims);
  GmBox box;
  box.offset = arg == 0 ? v.in_offset : 0;
  for (size_t k = 0; k < v.dims.size(); ++k) {
    BoxDim d;
    d.extent = v.dims[k];
    d.stride = arg == 0 ? v.in_strides[k] : out_strides[k];
    d.size = tiling.get(cat("T", k));
    d.start = Coord{static_cast<int>(k), d.size, 0};
    box.dims.push_back(d);
  }
  return box;
}

}  // namespace

CopyView copy_view(const Shape& dims, const Shape& in_strides, int64_t in_offset) {
  CopyView v;
  v.in_offset = in_offset;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 1) continue;
    // Merge the previous (outer) kept dim into this one when the input steps over both evenly.
    if (!v.dims.empty() && v.in_strides.back() == in_strides[k] * dims[k]) {
      v.dims.back() *= dims[k];
      v.in_strides.back() = in_strides[k];
    } else {
      v.dims.push_back(dims[k]);
      v.in_strides.push_back(in_strides[k]);
    }
  }
  if (v.dims.empty()) {
    v.dims.push_back(1);
    v.in_strides.push_back(1);
  }
  return v;
}

TilingData copy_tiling(const LaunchContext& ctx, const CopyView& v) {
  const int64_t total = numel(v.dims);
  if (total == 0) {
    TilingData t = make_copy_tiling(v, 1, 1);
    for (auto& g : t.grid) g = 0;
    return t;
  }
  const int64_t cores = cores_for(ctx);
  const int64_t align = std::max<int64_t>(
      1, ctx.spec->block_bytes / static_cast<int64_t>(dtype_size(ctx.outputs[0].dtype)));
  auto make = [&](int64_t e) { return make_copy_tiling(v, e, align); };
  TilingData best = auto_tiling(ctx, align, total, make);
  // Enough tiles to keep every core busy when the whole copy fits in a few tiles.
  const int64_t tiles = numel(best.grid);
  if (tiles < cores && total >= cores * align) {
    TilingData smaller = make(std::max(align, total / cores));
    if (numel(smaller.grid) > tiles) best = smaller;
  }
  best.block_dim = std::min<int64_t>(cores, std::max<int64_t>(1, numel(best.grid)));
  return best;
}

void copy_kernel(TileBuilder& t, const CopyView& v) {
  Buf x = t.copy_in(0, copy_box(v, t.tiling(), 0));
  t.copy_out(0, x, copy_box(v, t.tiling(), 1));
}

namespace {

Shape expand_strides(const Shape& x, const Shape& out) {
  const Shape xs = contiguous_strides(x);
  Shape s(out.size(), 0);
  const size_t off = out.size() - x.size();
  for (size_t d = 0; d < x.size(); ++d) s[off + d] = x[d] == 1 ? 0 : xs[d];
  return s;
}

CopyView expand_view(const LaunchContext& ctx) {
  const Shape& out = ctx.outputs.at(0).shape;
  return copy_view(out, expand_strides(ctx.inputs.at(0).shape, out), 0);
}

// Output dim k = repeats r_k x input dim n_k; r_k is out_k / n_k (any value when n_k is 0: the
// output is then empty).
CopyView tile_view(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs.at(0).shape;
  const Shape& y = ctx.outputs.at(0).shape;
  const Shape xs = contiguous_strides(x);
  Shape dims, strides;
  for (size_t k = 0; k < x.size(); ++k) {
    dims.insert(dims.end(), {x[k] == 0 ? 0 : y[k] / x[k], x[k]});
    strides.insert(strides.end(), {0, xs[k]});
  }
  return copy_view(dims, strides, 0);
}

std::vector<int64_t> tile_repeats(const std::vector<int64_t>& reps, size_t rank) {
  if (reps.size() != rank)
    throw ShapeError(
        cat("Tile: repeats ", ints_str(reps), " must have one entry per input dim (", rank, ")"));
  for (int64_t r : reps)
    if (r < 0) throw ShapeError(cat("Tile: negative repeat in ", ints_str(reps)));
  return reps;
}

// Tile-1's repeats: `tiles` copies along `axis` (inputs 1 and 2, one element each, typed like the
// data in the spec: any numeric dtype holding a whole number is accepted), 1 along every other dim.
std::vector<int64_t> tile1_repeats(const InferContext& c, size_t rank) {
  int64_t v[2];
  for (size_t k : {1, 2}) {
    const Tensor& t = need_value(c, k);
    const char* what = k == 1 ? "tiles" : "axis";
    if (t.numel() != 1)
      throw ShapeError(
          cat("Tile-1: ", what, " must hold one value, got shape ", to_string(t.shape())));
    if (t.at(0) != std::floor(t.at(0)))
      throw ShapeError(cat("Tile-1: ", what, " is ", t.at(0), ", not a whole number"));
    v[k - 1] = to_int64s(t)[0];
  }
  const auto r = static_cast<int64_t>(rank);
  if (v[1] < -r || v[1] >= r)
    throw ShapeError(cat("Tile-1: axis ", v[1], " is out of range for rank ", r));
  if (v[0] < 0) throw ShapeError(cat("Tile-1: tiles is negative (", v[0], ")"));
  std::vector<int64_t> reps(rank, 1);
  reps[static_cast<size_t>(v[1] < 0 ? v[1] + r : v[1])] = v[0];
  return reps;
}

// Output dim k = input dim k * reps[k] (unknown where the input dim is unknown and reps[k] != 1).
std::vector<TensorType> infer_tile(const TensorType& x, const std::vector<int64_t>& reps) {
  SymShape out;
  for (size_t k = 0; k < reps.size(); ++k) {
    const Dim& d = (*x.shape)[k];
    out.push_back(reps[k] == 1 ? d : d.known() ? Dim(d.value() * reps[k]) : Dim());
  }
  return {{x.dtype, out}};
}

// Naive reference: output index i reads input index i mod n per dim.
void tile_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  const size_t r = x.shape().size();
  const Shape xs = contiguous_strides(x.shape());
  const size_t es = dtype_size(x.dtype());
  std::vector<int64_t> idx(r + 1);
  for (int64_t i = 0; i < y.numel(); ++i) {
    unravel(i, y.shape(), idx.data());
    int64_t src = 0;
    for (size_t d = 0; d < r; ++d) src += idx[d] % x.shape()[d] * xs[d];
    std::memcpy(bytes_of(y) + i * es, bytes_of(x) + src * es, es);
  }
}

}  // namespace

void register_movement_broadcast(Registry& r) {
  r.add(
      def_op("Expand", 8)
          .input("input", "T")
          .input("shape", "i64", Arity::kSingle, true)
          .output("output", "T")
          .type_constraint("T", movement_types())
          .trait(kMovement | kBroadcast)
          .describe("output = input broadcast numpy-style with shape")
          .infer([](const InferContext& c) {
            const TensorType& x = c.inputs[0];
            const Shape shape = need_ints(c, 1, "shape");
            for (int64_t d : shape)
              if (d < 0) throw ShapeError(cat("Expand: negative dim in shape ", to_string(shape)));
            if (!x.shape) return std::vector<TensorType>{{x.dtype, std::nullopt}};
            try {
              return std::vector<TensorType>{{x.dtype, broadcast_shapes(*x.shape, to_sym(shape))}};
            } catch (const ShapeError&) {
              throw ShapeError(cat("Expand: input ", to_string(*x.shape),
                                   " does not broadcast with shape ", to_string(shape)));
            }
          })
          .tiling([](const LaunchContext& ctx) { return copy_tiling(ctx, expand_view(ctx)); })
          .kernel([](TileBuilder& t) { copy_kernel(t, expand_view(t.ctx())); })
          .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
            ref_elementwise(in.subspan(0, 1), out[0], [](const double* v) { return v[0]; });
          }));
  r.add(def_op("Tile", 6)
            .input("input", "T")
            .input("repeats", "i64", Arity::kSingle, true)
            .output("output", "T")
            .type_constraint("T", movement_types())
            .trait(kMovement)
            .describe("output = input repeated repeats[k] times along each dim k")
            .infer([](const InferContext& c) {
              const TensorType& x = c.inputs[0];
              const auto reps = need_ints(c, 1, "repeats");
              if (!x.shape) return std::vector<TensorType>{{x.dtype, SymShape(reps.size(), Dim())}};
              return infer_tile(x, tile_repeats(reps, x.shape->size()));
            })
            .tiling([](const LaunchContext& ctx) { return copy_tiling(ctx, tile_view(ctx)); })
            .kernel([](TileBuilder& t) { copy_kernel(t, tile_view(t.ctx())); })
            .reference(tile_reference));
  // Tile-1: the same copy; the repeats come from the inputs tiles and axis.
  r.add(def_op("Tile", 1, 5)
            .input("input", "T")
            .input("tiles", "T1", Arity::kSingle, true)
            .input("axis", "T1", Arity::kSingle, true)
            .output("output", "T")
            .type_constraint("T", movement_types())
            .type_constraint("T1", numeric_types())
            .trait(kMovement)
            .describe("output = input repeated tiles times along axis")
            .infer([](const InferContext& c) {
              const TensorType& x = c.inputs[0];
              if (!x.shape) {
                need_value(c, 1);  // an unknown repeat count waits for its value
                need_value(c, 2);
                return std::vector<TensorType>{{x.dtype, std::nullopt}};
              }
              return infer_tile(x, tile1_repeats(c, x.shape->size()));
            })
            .tiling([](const LaunchContext& ctx) { return copy_tiling(ctx, tile_view(ctx)); })
            .kernel([](TileBuilder& t) { copy_kernel(t, tile_view(t.ctx())); })
            .reference(tile_reference));
}

}  // namespace asc

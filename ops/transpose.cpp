// Transpose: Y[i_0..i_{r-1}] = X[j] with j[perm[k]] = i_k; perm defaults to reversed dims.
//
// View: size-1 dims are dropped and runs of input dims that stay adjacent (in order) under perm
// are merged, so the kernel sees the reduced output dims O[0..R-1] (R >= 1) with the input
// stride of each (`in_strides`) and a permutation that moves no adjacent pair together.
// One tile: a box of the output read from the input with permuted strides (copy-in gathers it,
// a transposed read when the input's unit-stride dim is not the output's last), then copied out
// row by row. Tiled dims, in box order (both boxes, so the local buffer is the same for both):
//   inner unmoved (A == C): a suffix of output dims, greedily filled from the innermost;
//   inner moved:            extra dims (greedy, innermost first), then A = the output dim with
//                           input stride 1, then C = the output's last dim, as a square-ish
//                           [TA, TC] block so reads (along A) and writes (along C) both run in
//                           contiguous rows.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

// perm resolved against rank: the attribute, or reversed dims when it is empty (the default).
std::vector<int64_t> resolve_perm(const Attrs& a, size_t rank) {
  std::vector<int64_t> p = a.ints("perm");
  if (p.empty()) {
    p.resize(rank);
    for (size_t i = 0; i < rank; ++i) p[i] = static_cast<int64_t>(rank - 1 - i);
  }
  std::vector<bool> seen(rank, false);
  bool ok = p.size() == rank;
  for (int64_t d : p) {
    ok = ok && d >= 0 && d < static_cast<int64_t>(rank) && !seen[static_cast<size_t>(d)];
    if (ok) seen[static_cast<size_t>(d)] = true;
  }
  if (!ok) {
    std::string s;
    for (int64_t d : p) s += cat(s.empty() ? "" : ",", d);
    throw ShapeError(cat("Transpose: perm [", s, "] is not a permutation of ", rank, " dims"));
  }
  return p;
}

struct TransposeView {
  Shape dims;        // reduced output dims, R >= 1
  Shape in_strides;  // input stride (elements) of each reduced output dim
  int inner = 0;     // A: the reduced output dim with input stride 1
};

TransposeView transpose_view(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs.at(0).shape;
  const std::vector<int64_t> perm = resolve_perm(ctx.attr(), x.size());
  const Shape xs = contiguous_strides(x);
  TransposeView v;
  int64_t prev = -2;  // input dim of the previous kept output dim
  for (int64_t d : perm) {
    if (x[d] == 1) continue;
    // Merge with the previous kept dim when it is the next-outer kept input dim.
    int64_t q = d - 1;
    while (q >= 0 && x[q] == 1) --q;
    if (!v.dims.empty() && prev == q) {
      v.dims.back() *= x[d];
      v.in_strides.back() = xs[d];
    } else {
      v.dims.push_back(x[d]);
      v.in_strides.push_back(xs[d]);
    }
    prev = d;
  }
  if (v.dims.empty()) {  // scalar or all-ones
    v.dims.push_back(1);
    v.in_strides.push_back(1);
  }
  const int r = static_cast<int>(v.dims.size());
  v.inner = r - 1;
  for (int k = 0; k < r; ++k)
    if (v.in_strides[k] == 1) v.inner = k;
  return v;
}

// Tile sizes T<k> per reduced output dim for at most `elems` elements per tile, plus the box
// order (TA_DIM: -1 when the inner dim is unmoved). Grid over every reduced dim.
TilingData make_transpose_tiling(const TransposeView& v, int64_t elems, int64_t align) {
  const int r = static_cast<int>(v.dims.size());
  const int c = r - 1, a = v.inner;
  Shape t(r, 1);
  auto fill_greedy = [&](int64_t budget, int skip) {  // innermost first, stop at a partial dim
    for (int k = c; k >= 0 && budget > 1; --k) {
      if (k == skip || t[k] != 1) continue;
      t[k] = std::max<int64_t>(1, std::min(v.dims[k], budget));
      if (t[k] < v.dims[k]) break;
      budget /= std::max<int64_t>(1, v.dims[k]);
    }
  };
  if (a == c) {
    // Rows of the last dim: whole rows, or aligned pieces of one.
    if (v.dims[c] > elems) {
      t[c] = std::max(align, elems / align * align);
    } else {
      fill_greedy(elems, -1);
    }
  } else {
    const int64_t na = v.dims[a], nc = v.dims[c];
    int64_t side = static_cast<int64_t>(std::sqrt(static_cast<double>(elems)));
    if (side >= 16) side = side / 16 * 16;
    side = std::max<int64_t>(side, 1);
    if (na * nc <= elems) {
      t[a] = na;
      t[c] = nc;
      fill_greedy(elems / std::max<int64_t>(1, na * nc), a);
    } else if (na <= side) {
      t[a] = na;
      t[c] = std::max<int64_t>(1, std::min(nc, elems / na));
    } else if (nc <= side) {
      t[c] = nc;
      t[a] = std::max<int64_t>(1, std::min(na, elems / nc));
    } else {
      t[a] = t[c] = side;
    }
  }
  for (auto& n : t) n = std::max<int64_t>(n, 1);
  TilingData td;
  for (int k = 0; k < r; ++k) {
    td.grid.push_back(t[k] == 0 ? 0 : (v.dims[k] + t[k] - 1) / t[k]);
    td.params[cat("T", k)] = t[k];
  }
  td.params["TA_DIM"] = a == c ? -1 : a;
  return td;
}

// The tile's box over input (arg 0) or output (arg 1); both list dims in the same order:
// untiled dims, tiled dims other than A and C, then A, then C.
GmBox transpose_box(const LaunchContext& ctx, const TilingData& tiling, int arg) {
  const TransposeView v = transpose_view(ctx);
  const int r = static_cast<int>(v.dims.size());
  const Shape out_strides = contiguous_strides(v.dims);
  const int64_t a = tiling.get("TA_DIM");
  std::vector<int> order;
  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < r; ++k) {
      const bool tiled = tiling.get(cat("T", k)) > 1;
      if (tiled == (pass == 1) && k != a && k != r - 1) order.push_back(k);
    }
  if (a >= 0) order.push_back(static_cast<int>(a));
  order.push_back(r - 1);
  GmBox box;
  for (int k : order) {
    BoxDim d;
    d.extent = v.dims[k];
    d.stride = arg == 0 ? v.in_strides[k] : out_strides[k];
    d.size = tiling.get(cat("T", k));
    d.start = Coord{k, d.size, 0};
    box.dims.push_back(d);
  }
  return box;
}

TilingData transpose_tiling(const LaunchContext& ctx) {
  const TransposeView v = transpose_view(ctx);
  const int64_t total = numel(v.dims);
  const int64_t cores = cores_for(ctx);
  const int64_t align = std::max<int64_t>(
      1, ctx.spec->block_bytes / static_cast<int64_t>(dtype_size(ctx.outputs[0].dtype)));
  if (total == 0) {
    TilingData t = make_transpose_tiling(v, 1, 1);
    for (auto& g : t.grid) g = 0;
    return t;
  }
  auto make = [&](int64_t e) { return make_transpose_tiling(v, e, align); };
  TilingData best = auto_tiling(ctx, align, total, make);
  // Balance: a whole multiple of the cores when there are fewer tiles than a few per core.
  const int64_t tiles = numel(best.grid);
  if (tiles < 4 * cores && tiles % cores != 0) {
    const int64_t want = (tiles + cores - 1) / cores * cores;
    const int64_t e = std::max(align, (total + want - 1) / want);
    TilingData smaller = make(e);
    if (numel(smaller.grid) > tiles) best = smaller;
  }
  best.block_dim = std::min<int64_t>(cores, std::max<int64_t>(1, numel(best.grid)));
  return best;
}

void transpose_kernel(TileBuilder& t) {
  Buf x = t.copy_in(0, transpose_box(t.ctx(), t.tiling(), 0));
  t.copy_out(0, x, transpose_box(t.ctx(), t.tiling(), 1));
}

// Naive reference: element copies in output order (bytes, so every dtype is exact).
void transpose_reference(const Attrs& attrs, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  const size_t r = x.shape().size();
  const std::vector<int64_t> perm = resolve_perm(attrs, r);
  const Shape xs = contiguous_strides(x.shape());
  const size_t es = dtype_size(x.dtype());
  std::vector<int64_t> idx(std::max<size_t>(r, 1));
  for (int64_t i = 0; i < y.numel(); ++i) {
    unravel(i, y.shape(), idx.data());
    int64_t src = 0;
    for (size_t k = 0; k < r; ++k) src += idx[k] * xs[perm[k]];
    std::memcpy(static_cast<std::byte*>(y.data()) + i * es,
                static_cast<const std::byte*>(x.data()) + src * es, es);
  }
}

}  // namespace

void register_transpose(Registry& r) {
  r.add(def_op("Transpose", 1)
            .input("data", "T")
            .output("transposed", "T")
            .attr("perm", AttrKind::kInts, std::vector<int64_t>{})
            .type_constraint("T", numeric_bool_types())
            .trait(kMovement)
            .describe("transposed = data with dims permuted by perm (default: reversed)")
            .infer([](const InferContext& c) {
              const TensorType& x = c.inputs[0];
              if (!x.shape) return std::vector<TensorType>{{x.dtype, std::nullopt}};
              const std::vector<int64_t> perm = resolve_perm(c.attrs, x.shape->size());
              SymShape s;
              for (int64_t d : perm) s.push_back((*x.shape)[d]);
              return std::vector<TensorType>{{x.dtype, s}};
            })
            .same_bytes([](const Attrs& a, const TensorDesc& in, const TensorDesc&) {
              // The dims of more than one element keep their order: only size-1 dims move.
              const std::vector<int64_t> perm = resolve_perm(a, in.shape.size());
              int64_t last = -1;
              for (int64_t d : perm) {
                if (in.shape[d] == 1) continue;
                if (d < last) return false;
                last = d;
              }
              return true;
            })
            .tiling(transpose_tiling)
            .kernel(transpose_kernel)
            .reference(transpose_reference));
}

}  // namespace asc

// Hardmax (1-12: rows of the input flattened at axis; 13+: one axis; host kernel: an argmax),
// LRN (1+; tile kernel) and LpNormalization (1+; tile kernel).
//
// Hardmax: y = 1 at the first maximum of each row, 0 elsewhere. Rows are [outer, mid, inner]
// with mid the normalised extent.
// LRN over X [N, C, d...] (S = prod d): for channel c the window is
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to [0, C), and
//   y = x / (bias + alpha / size * sum_window x^2) ^ beta.
// LpNormalization along `axis` (a row view [outer, n, inner] reducing n):
//   y = x / ||x||_p,  ||x||_1 = sum |x|,  ||x||_2 = sqrt(sum x^2),
// with a zero norm replaced by 1 (a zero row stays zero, as in ONNX Runtime) instead of 0 / 0.
// A tile holding whole rows reduces and divides in one pass; longer rows accumulate the norm over
// the row's chunks, then divide chunk by chunk. f16/bf16 compute in f32.
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "ops/normalization.h"
#include "ops/ops.h"
#include "registry/infer.h"
#include "registry/rows.h"
#include "registry/tiling.h"

namespace asc {
namespace {

// ---- Hardmax ---------------------------------------------------------------------------------

struct Rows {
  int64_t outer = 1, mid = 1, inner = 1;
};

Rows hardmax_rows(bool flatten, int64_t axis, const Shape& s) {
  const auto rank = static_cast<int64_t>(s.size());
  if (rank == 0) throw ShapeError("Hardmax: input must have rank >= 1");
  const int64_t a = flatten && axis == rank ? rank : normalize_axis(axis, rank);
  const int64_t last = flatten ? rank : a + 1;
  Rows r;
  for (int64_t d = 0; d < rank; ++d) (d < a ? r.outer : d < last ? r.mid : r.inner) *= s[d];
  return r;
}

template <typename T>
void hardmax_rows_kernel(const Rows& r, const T* x, T* y) {
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t i = 0; i < r.inner; ++i) {
      const int64_t base = o * r.mid * r.inner + i;
      int64_t best = 0;
      double m = r.mid > 0 ? norm::load(x, base) : 0.0;
      for (int64_t k = 1; k < r.mid; ++k) {
        const double v = norm::load(x, base + k * r.inner);
        if (v > m) {
          m = v;
          best = k;
        }
      }
      for (int64_t k = 0; k < r.mid; ++k) norm::store(y, base + k * r.inner, k == best ? 1.0 : 0.0);
    }
}

void hardmax_reference(bool flatten, const Attrs& a, const Tensor& x, Tensor& y) {
  const Rows r = hardmax_rows(flatten, a.i("axis"), x.shape());
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t i = 0; i < r.inner; ++i) {
      int64_t best = -1;
      for (int64_t k = 0; k < r.mid; ++k) {
        const int64_t at = (o * r.mid + k) * r.inner + i;
        if (best < 0 || x.at(at) > x.at((o * r.mid + best) * r.inner + i)) best = k;
      }
      for (int64_t k = 0; k < r.mid; ++k) y.set((o * r.mid + k) * r.inner + i, k == best);
    }
}

void add_hardmax(Registry& r, bool flatten) {
  r.add(
      def_op("Hardmax", flatten ? 1 : 13, flatten ? 12 : INT_MAX)
          .input("input", "T")
          .output("output", "T")
          .attr("axis", AttrKind::kInt, int64_t{flatten ? 1 : -1})
          .type_constraint("T", float_types())
          .trait(kNormalization)
          .describe(flatten ? "output = 1 at the first max of each row of input flattened to "
                              "2-D at axis, else 0"
                            : "output = 1 at the first max of input along axis, else 0")
          .infer([flatten](const InferContext& c) {
            if (c.inputs[0].shape) {
              Shape probe(c.inputs[0].shape->size(), 1);
              hardmax_rows(flatten, c.attrs.i("axis"), probe);
            }
            return infer_unary(c);
          })
          .host_kernel([flatten](const LaunchContext& ctx, std::span<const Tensor> in,
                                 std::span<Tensor> out) {
            const Rows rows = hardmax_rows(flatten, ctx.attr().i("axis"), in[0].shape());
            norm::dispatch_float(in[0].dtype(), [&](auto tag) {
              using T = decltype(tag);
              hardmax_rows_kernel(rows, in[0].data_as<T>(), out[0].data_as<T>());
            });
          })
          .reference([flatten](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
            hardmax_reference(flatten, a, in[0], out[0]);
          }));
}

// ---- LRN -------------------------------------------------------------------------------------

struct LrnParams {
  double alpha, beta, bias;
  int64_t size, lo, hi;  // window [c - lo, c + hi]
};

LrnParams lrn_params(const Attrs& a) {
  const int64_t size = a.i("size");
  if (size < 1) throw ShapeError(cat("LRN: size must be >= 1, got ", size));
  return {a.f("alpha"), a.f("beta"), a.f("bias"), size, (size - 1) / 2, size / 2};
}

// X as [N, C, S]. Tiles: grid [N, ceil(S / BS)], BS elements of S per tile, every channel.
struct Ncs {
  int64_t n = 1, c = 1, s = 1;
};

Ncs lrn_dims(const Shape& x) {
  Ncs d{x[0], x[1], 1};
  for (size_t i = 2; i < x.size(); ++i) d.s *= x[i];
  return d;
}

TilingData lrn_make(const Ncs& d, int64_t bs) {
  TilingData t;
  t.grid = {d.n, (d.s + bs - 1) / bs};
  t.params["BS"] = bs;
  return t;
}

TilingData lrn_tiling(const LaunchContext& ctx) {
  const Ncs d = lrn_dims(ctx.inputs[0].shape);
  const int64_t align = std::max<int64_t>(
      1, ctx.spec->block_bytes / static_cast<int64_t>(dtype_size(ctx.inputs[0].dtype)));
  if (d.n * d.c * d.s == 0) {  // empty: no tiles
    TilingData t = lrn_make(d, align);
    t.grid = {0};
    return t;
  }
  TilingData best =
      auto_tiling(ctx, align, std::max(align, d.s), [&](int64_t bs) { return lrn_make(d, bs); });
  const int64_t cores = cores_for(ctx);
  for (int64_t bs = best.get("BS"); numel(best.grid) < cores && bs > align;) {
    bs = std::max(align, bs / 2 / align * align);
    best = lrn_make(d, bs);
  }
  best.block_dim = std::min<int64_t>(cores, std::max<int64_t>(1, numel(best.grid)));
  return best;
}

// One tile: for each channel c, ss = sum of x^2 over the window's channels, y_c = x_c *
// (bias + alpha / size * ss) ^ -beta. Channels whose window lies inside [0, C) run in one loop
// (window start c - lo, `size` channels); the clipped ones near either end are unrolled.
void lrn_tile_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const LrnParams p = lrn_params(ctx.attr());
  const Ncs d = lrn_dims(ctx.inputs[0].shape);
  const int64_t bs = t.param("BS");
  const DType cdt = compute_dtype(ctx.inputs[0].dtype);
  const DType odt = ctx.outputs[0].dtype;
  auto box = [&](Coord first, int64_t channels) {
    GmBox b;
    b.dims = {BoxDim{d.n, d.c * d.s, t.grid(0), 1}, BoxDim{d.c, d.s, first, channels},
              BoxDim{d.s, 1, t.grid(1, bs), bs}};
    return b;
  };
  const double scale = p.alpha / static_cast<double>(p.size);
  auto channel = [&](Coord window, int64_t w, Coord c) {
    Buf xw = t.cast(t.copy_in(0, box(window, w)), cdt);
    Buf ss = w > 1 ? t.reduce(ReduceOp::kSumSquares, xw, 1) : xw * xw;
    Buf den = ss * scale + p.bias;  // scalar ops keep f64 precision on f64 buffers
    Buf x = t.cast(t.copy_in(0, box(c, 1)), cdt);
    Buf y = x * t.unary(UnaryOp::kPowScalar, den, -static_cast<float>(p.beta));
    t.copy_out(0, t.cast(y, odt), box(c, 1));
  };
  auto constant = [](int64_t v) { return Coord{-1, 0, v}; };
  const int64_t first_inner = p.lo, last_inner = d.c - 1 - p.hi;  // unclipped windows
  for (int64_t c = 0; c < d.c; ++c) {
    if (c >= first_inner && c <= last_inner) continue;
    const int64_t from = std::max<int64_t>(0, c - p.lo), to = std::min(d.c - 1, c + p.hi);
    channel(constant(from), to - from + 1, constant(c));
  }
  if (last_inner >= first_inner)
    t.loop(last_inner - first_inner + 1, [&](Coord k) {
      channel(Coord{k.var, 1, 0}, p.size, Coord{k.var, 1, first_inner});
    });
}

void lrn_reference(const Attrs& a, const Tensor& x, Tensor& y) {
  const LrnParams p = lrn_params(a);
  const Shape& s = x.shape();
  const int64_t c_ = s[1];
  const int64_t sp = c_ == 0 || s[0] == 0 ? 0 : x.numel() / (s[0] * c_);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t c = (i / sp) % c_;
    double sum = 0;
    for (int64_t k = c - p.lo; k <= c + p.hi; ++k) {
      if (k < 0 || k >= c_) continue;
      const double v = x.at(i + (k - c) * sp);
      sum += v * v;
    }
    y.set(i, x.at(i) / std::pow(p.bias + p.alpha / static_cast<double>(p.size) * sum, p.beta));
  }
}

void add_lrn(Registry& r) {
  r.add(def_op("LRN", 1)
            .input("X", "T")
            .output("Y", "T")
            .attr("alpha", AttrKind::kFloat, 1e-4f)
            .attr("beta", AttrKind::kFloat, 0.75f)
            .attr("bias", AttrKind::kFloat, 1.0f)
            .attr("size", AttrKind::kInt)
            .type_constraint("T", float_types())
            .trait(kNormalization)
            .describe("Y = X / (bias + alpha / size * sum of X^2 over a window of size channels) "
                      "^ beta")
            .infer([](const InferContext& c) {
              lrn_params(c.attrs);
              if (c.inputs[0].shape && c.inputs[0].shape->size() < 2)
                throw ShapeError(cat("LRN: X must be [N, C, ...], got ", c.inputs[0].str()));
              return infer_unary(c);
            })
            .tiling(lrn_tiling)
            .kernel(lrn_tile_kernel)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              lrn_reference(a, in[0], out[0]);
            }));
}

// ---- LpNormalization -------------------------------------------------------------------------

// The normalised axis of a rank; ShapeError for p other than 1 and 2 or an axis out of range.
int64_t lpnorm_axis(const Attrs& a, int64_t rank) {
  const int64_t p = a.i("p");
  if (p != 1 && p != 2) throw ShapeError(cat("LpNormalization: p must be 1 or 2, got ", p));
  if (rank == 0) throw ShapeError("LpNormalization: input must have rank >= 1, got a scalar");
  const int64_t axis = a.i("axis");
  if (axis < -rank || axis >= rank)
    throw ShapeError(cat("LpNormalization: axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

RowView lpnorm_view(const LaunchContext& ctx) {
  const Shape& in = ctx.inputs[0].shape;
  const int64_t axis = lpnorm_axis(ctx.attr(), static_cast<int64_t>(in.size()));
  return row_view(in, std::span<const int64_t>(&axis, 1));
}

TilingData lpnorm_tiling(const LaunchContext& ctx) {
  const RowView v = lpnorm_view(ctx);
  TilingData t = row_tiling(ctx, v);
  if (v.count == 0)  // empty rows: the output is empty
    for (auto& g : t.grid) g = 0;
  return t;
}

void lpnorm_kernel(TileBuilder& t) {
  const RowView v = lpnorm_view(t.ctx());
  const bool l1 = t.ctx().attr().i("p") == 1;
  const DType cdt = compute_dtype(t.ctx().inputs[0].dtype);
  const DType odt = t.ctx().outputs[0].dtype;
  const RowCursor tile = row_tile(v, t.tiling());
  auto load = [&](const RowCursor& c) { return t.cast(t.copy_in(0, row_in_box(v, c)), cdt); };
  auto store = [&](const RowCursor& c, Buf y) { t.copy_out(0, t.cast(y, odt), row_in_box(v, c)); };
  int r = -1;  // the reduced view dim; none when the axis has extent 1 (dropped from the view)
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j]) r = static_cast<int>(j);
  // sum |x| or sum x^2 of a chunk along r; rows of one element: their norm |x| for either p.
  const bool squares = !l1 && r >= 0;
  auto partial = [&](Buf x) {
    if (r < 0) return t.unary(UnaryOp::kAbs, x);
    return l1 ? t.reduce(ReduceOp::kSum, t.unary(UnaryOp::kAbs, x), r)
              : t.reduce(ReduceOp::kSumSquares, x, r);
  };
  // The divisor from the summed partials: the norm, 1 where it is 0.
  auto divisor = [&](Buf sum) {
    Buf n = squares ? sqrt(sum) : sum;
    const Shape d = t.dims(n);  // a copy: new buffers may move the declarations
    Buf zero = t.compare(CmpOp::kEq, n, t.duplicate(cdt, d, 0.0));
    return t.select(zero, t.duplicate(cdt, d, 1.0), n);
  };
  auto divide = [&](Buf x, Buf n) { return r < 0 ? x / n : t.bcast_mid(BinaryOp::kDiv, x, n, r); };
  if (r < 0 || tile.size[r] >= v.dims[r]) {  // whole rows in the tile
    Buf x = load(tile);
    store(tile, divide(x, divisor(partial(x))));
    return;
  }
  Shape kept = tile.size;
  kept[r] = 1;
  Buf sum = t.duplicate(cdt, kept, 0.0);
  row_chunks(t, v,
             [&](const RowCursor& c) { t.accumulate(BinaryOp::kAdd, sum, partial(load(c))); });
  Buf n = divisor(sum);
  row_chunks(t, v, [&](const RowCursor& c) { store(c, divide(load(c), n)); });
}

// Naive reference in double over [outer, n, inner] rows.
void lpnorm_reference(const Attrs& a, const Tensor& x, Tensor& y) {
  const Shape& s = x.shape();
  const int64_t rank = static_cast<int64_t>(s.size());
  const int64_t axis = lpnorm_axis(a, rank);
  const bool l1 = a.i("p") == 1;
  int64_t outer = 1, n = s[axis], inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= d == axis ? 1 : s[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        const double v = x.at(base + k * inner);
        sum += l1 ? std::fabs(v) : v * v;
      }
      const double norm = l1 ? sum : std::sqrt(sum);
      for (int64_t k = 0; k < n; ++k)
        y.set(base + k * inner, x.at(base + k * inner) / (norm == 0 ? 1.0 : norm));
    }
}

void add_lpnorm(Registry& r) {
  r.add(def_op("LpNormalization", 1)
            .input("input", "T")
            .output("output", "T")
            .attr("axis", AttrKind::kInt, int64_t{-1})
            .attr("p", AttrKind::kInt, int64_t{2})
            .type_constraint("T", float_types())
            .trait(kNormalization)
            .describe("output = input / its L1 (p = 1) or L2 (p = 2) norm along axis (a zero norm "
                      "divides by 1)")
            .infer([](const InferContext& c) {
              if (c.inputs[0].shape)
                lpnorm_axis(c.attrs, static_cast<int64_t>(c.inputs[0].shape->size()));
              else if (c.attrs.i("p") != 1 && c.attrs.i("p") != 2)
                throw ShapeError(cat("LpNormalization: p must be 1 or 2, got ", c.attrs.i("p")));
              return infer_unary(c);
            })
            .tiling(lpnorm_tiling)
            .kernel(lpnorm_kernel)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              lpnorm_reference(a, in[0], out[0]);
            }));
}

}  // namespace

void register_normalization_misc(Registry& r) {
  add_hardmax(r, true);
  add_hardmax(r, false);
  add_lrn(r);
  add_lpnorm(r);
}

}  // namespace asc

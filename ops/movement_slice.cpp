// Slice, Expand and Tile: each output is a strided view of the input, copied by copy_strided
// (contiguous inner runs as one memcpy; stride 0 along broadcast or repeated dims).
#include <algorithm>
#include <climits>
#include <cstring>

#include "ops/movement.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// ---- Slice -----------------------------------------------------------------------------------
// Per input dim: the first index, the step and the element count taken.
struct SliceDim {
  int64_t start = 0, step = 1, count = 0;
};

struct SliceArgs {
  std::vector<int64_t> starts, ends, axes, steps;
};

// ONNX clamping: negative starts/ends count from the back; then, for step > 0, start and end are
// clamped to [0, n]; for step < 0, start to [0, n - 1] and end to [-1, n - 1].
// dims[d] < 0 (unknown) gives count -1 on a sliced dim.
std::vector<SliceDim> slice_dims(const Shape& dims, const SliceArgs& a) {
  const int64_t r = static_cast<int64_t>(dims.size());
  std::vector<SliceDim> out(dims.size());
  for (int64_t d = 0; d < r; ++d) out[d] = {0, 1, dims[d]};
  const size_t k = a.starts.size();
  if (a.ends.size() != k || (!a.axes.empty() && a.axes.size() != k) ||
      (!a.steps.empty() && a.steps.size() != k))
    throw ShapeError(cat("Slice: starts ", ints_str(a.starts), ", ends ", ints_str(a.ends),
                         ", axes ", ints_str(a.axes), " and steps ", ints_str(a.steps),
                         " differ in length"));
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < k; ++i) {
    int64_t axis = a.axes.empty() ? static_cast<int64_t>(i) : a.axes[i];
    if (axis < -r || axis >= r)
      throw ShapeError(cat("Slice: axis ", axis, " is out of range for ", to_string(dims)));
    if (axis < 0) axis += r;
    if (seen[axis]) throw ShapeError(cat("Slice: repeated axis in ", ints_str(a.axes)));
    seen[axis] = true;
    const int64_t step = a.steps.empty() ? 1 : a.steps[i];
    if (step == 0) throw ShapeError("Slice: a step is 0");
    const int64_t n = dims[axis];
    if (n < 0) {
      out[axis] = {0, step, -1};
      continue;
    }
    int64_t s = a.starts[i], e = a.ends[i];
    if (s < 0) s += n;
    if (e < 0) e += n;
    int64_t count;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
      count = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
      count = s > e ? (s - e - step - 1) / -step : 0;
    }
    out[axis] = {s, step, count};
  }
  return out;
}

// Slice-1 takes attributes; Slice-10 takes inputs 1..4 (starts, ends, axes?, steps?).
SliceArgs slice_args_attrs(const Attrs& a) {
  return {a.ints("starts"), a.ints("ends"), a.ints("axes"), {}};
}
SliceArgs slice_args_inputs(std::span<const Tensor> in) {
  SliceArgs a;
  a.starts = to_int64s(in[1]);
  a.ends = to_int64s(in[2]);
  if (has_input(in, 3)) a.axes = to_int64s(in[3]);
  if (has_input(in, 4)) a.steps = to_int64s(in[4]);
  return a;
}

std::vector<TensorType> infer_slice(const InferContext& c, bool inputs) {
  const TensorType& x = c.inputs[0];
  SliceArgs a;
  if (inputs) {
    a.starts = need_ints(c, 1, "starts");
    a.ends = need_ints(c, 2, "ends");
    if (has_input(c, 3)) a.axes = need_ints(c, 3, "axes");
    if (has_input(c, 4)) a.steps = need_ints(c, 4, "steps");
  } else {
    a = slice_args_attrs(c.attrs);
  }
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const auto sd = slice_dims(known_dims(*x.shape), a);
  SymShape out = *x.shape;
  for (size_t d = 0; d < out.size(); ++d)
    if (sd[d].count >= 0 &&
        !(sd[d].step == 1 && sd[d].start == 0 && out[d].known() && sd[d].count == out[d].value()))
      out[d] = Dim(sd[d].count);
  return {{x.dtype, out}};
}

void slice_copy(const SliceArgs& a, const Tensor& x, Tensor& y) {
  const auto sd = slice_dims(x.shape(), a);
  const Shape xs = contiguous_strides(x.shape());
  Shape dims, src_strides;
  int64_t offset = 0;
  for (size_t d = 0; d < sd.size(); ++d) {
    dims.push_back(sd[d].count);
    src_strides.push_back(sd[d].step * xs[d]);
    offset += sd[d].start * xs[d];
  }
  if (numel(dims) == 0) return;
  const size_t es = dtype_size(x.dtype());
  copy_strided(bytes_of(y), contiguous_strides(dims),
               bytes_of(x) + offset * static_cast<int64_t>(es), src_strides, dims, es);
}

// Naive reference: output index i reads input index start + i * step per dim.
void slice_reference(const SliceArgs& a, const Tensor& x, Tensor& y) {
  const auto sd = slice_dims(x.shape(), a);
  const size_t r = x.shape().size();
  const Shape xs = contiguous_strides(x.shape());
  const size_t es = dtype_size(x.dtype());
  std::vector<int64_t> idx(r + 1);
  for (int64_t i = 0; i < y.numel(); ++i) {
    unravel(i, y.shape(), idx.data());
    int64_t src = 0;
    for (size_t d = 0; d < r; ++d) src += (sd[d].start + idx[d] * sd[d].step) * xs[d];
    std::memcpy(bytes_of(y) + i * es, bytes_of(x) + src * es, es);
  }
}

// ---- Expand / Tile ---------------------------------------------------------------------------
// Strides of x (rank <= out rank, right-aligned) read at output positions: 0 where x broadcasts.
Shape broadcast_strides(const Shape& x, const Shape& out) {
  const Shape xs = contiguous_strides(x);
  Shape s(out.size(), 0);
  const size_t off = out.size() - x.size();
  for (size_t d = 0; d < x.size(); ++d) s[off + d] = x[d] == 1 ? 0 : xs[d];
  return s;
}

void expand_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  copy_strided(bytes_of(y), contiguous_strides(y.shape()), bytes_of(in[0]),
               broadcast_strides(in[0].shape(), y.shape()), y.shape(), dtype_size(y.dtype()));
}

std::vector<int64_t> tile_repeats(const std::vector<int64_t>& reps, size_t rank) {
  if (reps.size() != rank)
    throw ShapeError(
        cat("Tile: repeats ", ints_str(reps), " must have one entry per input dim (", rank, ")"));
  for (int64_t r : reps)
    if (r < 0) throw ShapeError(cat("Tile: negative repeat in ", ints_str(reps)));
  return reps;
}

// Output dim k is [repeat r_k, input dim n_k]: the view [r_0, n_0, r_1, n_1, ...] reads x with
// strides [0, xs_0, 0, xs_1, ...] and writes y contiguously.
void tile_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  const auto reps = tile_repeats(to_int64s(in[1]), x.shape().size());
  const Shape xs = contiguous_strides(x.shape()), ys = contiguous_strides(y.shape());
  Shape dims, ds, ss;
  for (size_t k = 0; k < reps.size(); ++k) {
    dims.insert(dims.end(), {reps[k], x.shape()[k]});
    ds.insert(ds.end(), {x.shape()[k] * ys[k], ys[k]});
    ss.insert(ss.end(), {0, xs[k]});
  }
  copy_strided(bytes_of(y), ds, bytes_of(x), ss, dims, dtype_size(y.dtype()));
}

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

void register_movement_slice(Registry& r) {
  r.add(def_op("Slice", 1, 9)
            .input("data", "T")
            .output("output", "T")
            .attr("starts", AttrKind::kInts)
            .attr("ends", AttrKind::kInts)
            .attr("axes", AttrKind::kInts, std::vector<int64_t>{})
            .type_constraint("T", movement_types())
            .trait(kMovement)
            .describe("output = data[starts:ends] along axes (attributes; clamped to the dims)")
            .infer([](const InferContext& c) { return infer_slice(c, false); })
            .host_kernel(
                [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                  slice_copy(slice_args_attrs(ctx.attr()), in[0], out[0]);
                })
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              slice_reference(slice_args_attrs(a), in[0], out[0]);
            }));
  r.add(
      def_op("Slice", 10)
          .input("data", "T")
          .input("starts", "Tind", Arity::kSingle, true)
          .input("ends", "Tind", Arity::kSingle, true)
          .input("axes", "Tind", Arity::kOptional, true)
          .input("steps", "Tind", Arity::kOptional, true)
          .output("output", "T")
          .type_constraint("T", movement_types())
          .type_constraint("Tind", {DType::kI32, DType::kI64})
          .trait(kMovement)
          .describe("output = data[starts:ends:steps] along axes (negative steps; clamped)")
          .infer([](const InferContext& c) { return infer_slice(c, true); })
          .host_kernel([](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
            slice_copy(slice_args_inputs(in), in[0], out[0]);
          })
          .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
            slice_reference(slice_args_inputs(in), in[0], out[0]);
          }));
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
          .host_kernel(expand_kernel)
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
              tile_repeats(reps, x.shape->size());
              SymShape out;
              for (size_t k = 0; k < reps.size(); ++k) {
                const Dim& d = (*x.shape)[k];
                out.push_back(reps[k] == 1 ? d : d.known() ? Dim(d.value() * reps[k]) : Dim());
              }
              return std::vector<TensorType>{{x.dtype, out}};
            })
            .host_kernel(tile_kernel)
            .reference(tile_reference));
}

}  // namespace asc

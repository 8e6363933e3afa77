// Slice: the output is a strided view of the input (stride = step x input stride, any sign),
// copied by copy_strided (a unit-stride inner run is one memcpy).
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
  bool sliced = false;  // named in axes (else the whole dim)
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
  for (int64_t d = 0; d < r; ++d) out[d] = {0, 1, dims[d], false};
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
      out[axis] = {0, step, -1, true};
      continue;
    }
    int64_t s = a.starts[i], e = a.ends[i];
    if (s < 0) s += n;
    if (e < 0) e += n;
    int64_t count;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
      count = e > s ? (e - s - 1) / step + 1 : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
      count = s > e ? (s - e - 1) / -std::max(step, -INT64_MAX) + 1 : 0;
    }
    out[axis] = {s, count > 1 ? step : 1, count, true};  // a huge step taking one element: stride 1
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
    if (sd[d].sliced) out[d] = sd[d].count >= 0 ? Dim(sd[d].count) : Dim();
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
}

}  // namespace asc

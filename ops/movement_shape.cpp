// Ops that change only the shape, never the bytes: Reshape, Flatten, Squeeze, Unsqueeze and
// Identity (one memcpy; none where the planner gives the output its input's memory: OpDef::
// same_bytes), and Shape / Size (i64 metadata).
#include <algorithm>
#include <climits>
#include <cstring>

#include "ops/movement.h"
#include "registry/error.h"
#include "registry/lenient.h"
#include "registry/strings.h"

namespace asc {
namespace {

// Naive reference shared by the byte-preserving ops: element i of the output is element i of the
// input (row-major order is unchanged), copied element by element.
void reference_same_bytes(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const size_t es = dtype_size(in[0].dtype());
  for (int64_t i = 0; i < out[0].numel(); ++i)
    std::memcpy(bytes_of(out[0]) + i * es, bytes_of(in[0]) + i * es, es);
}

void kernel_same_bytes(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  copy_all(out[0], in[0]);
}

// An axis against rank. Opsets before `neg_since` take non-negative axes by the spec; negative
// ones are accepted as ONNX Runtime does (registry/lenient.h).
int64_t resolve_axis(const InferContext& c, int64_t axis, int64_t rank, int neg_since) {
  if (axis < 0 && c.op.since < neg_since && axis >= -rank)
    log_lenient(c.op.type, c.op.since, cat("negative axis ", axis));
  if (axis < -rank || axis >= rank)
    throw ShapeError(cat(c.op.type, ": axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

// Sorted, normalised, duplicate-free axes.
std::vector<int64_t> resolve_axes(const InferContext& c, std::vector<int64_t> axes, int64_t rank,
                                  int neg_since) {
  for (auto& a : axes) a = resolve_axis(c, a, rank, neg_since);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw ShapeError(cat(c.op.type, ": repeated axis in ", ints_str(axes)));
  return axes;
}

// ---- Reshape ---------------------------------------------------------------------------------
// shape[i] == 0 copies input dim i (unless allowzero, where it is a zero dim); one -1 is inferred.
std::vector<TensorType> infer_reshape(const InferContext& c, bool shape_attr) {
  const TensorType& x = c.inputs[0];
  const std::vector<int64_t> shape =
      shape_attr ? c.attrs.ints("shape") : need_ints(c, 1, "the shape input");
  const bool allowzero = !shape_attr && c.op.since >= 14 && c.attrs.i("allowzero") != 0;
  const std::string where = cat(c.op.type, ": shape ", ints_str(shape));
  SymShape out;
  int infer_at = -1;
  bool known = true;
  int64_t prod = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t s = shape[i];
    if (s == -1) {
      if (infer_at >= 0) throw ShapeError(cat(where, " has more than one -1"));
      infer_at = static_cast<int>(i);
      out.push_back(Dim());
      continue;
    }
    if (s < -1) throw ShapeError(cat(where, " has a negative dim"));
    if (s == 0 && !allowzero) {
      if (!x.shape) return {{x.dtype, SymShape(shape.size(), Dim())}};
      if (i >= x.shape->size())
        throw ShapeError(cat(where, " copies dim ", i, " (0) of ", to_string(*x.shape)));
      const Dim d = (*x.shape)[i];
      out.push_back(d);
      if (d.known())
        prod *= d.value();
      else
        known = false;
      continue;
    }
    out.push_back(Dim(s));
    prod *= s;
  }
  if (allowzero && infer_at >= 0 && std::find(shape.begin(), shape.end(), 0) != shape.end())
    throw ShapeError(cat(where, ": allowzero with both 0 and -1"));
  if (!x.shape || !known) return {{x.dtype, out}};
  const auto in = to_concrete(*x.shape);
  if (!in) return {{x.dtype, out}};
  const int64_t n = numel(*in);
  if (infer_at >= 0) {
    if (prod == 0 || n % prod != 0)
      throw ShapeError(cat(where, " cannot hold ", to_string(*in), " (", n, " elements)"));
    out[infer_at] = Dim(n / prod);
  } else if (prod != n) {
    throw ShapeError(
        cat(where, " has ", prod, " elements, the input ", to_string(*in), " has ", n));
  }
  return {{x.dtype, out}};
}

// ---- Flatten ---------------------------------------------------------------------------------
std::vector<TensorType> infer_flatten(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  if (!x.shape) return {{x.dtype, SymShape(2, Dim())}};
  const int64_t r = static_cast<int64_t>(x.shape->size());
  int64_t axis = c.attrs.i("axis");
  if (axis < 0 && c.op.since < 11)  // ONNX Runtime refuses it too (its shape inference)
    throw ShapeError(cat("Flatten-", c.op.since, ": negative axis ", axis, " needs opset >= 11"));
  if (axis < -r || axis > r)
    throw ShapeError(cat("Flatten: axis ", axis, " is out of range for ", to_string(*x.shape)));
  if (axis < 0) axis += r;
  auto prod = [&](int64_t lo, int64_t hi) {
    int64_t p = 1;
    for (int64_t d = lo; d < hi; ++d) {
      if (!(*x.shape)[d].known()) return Dim();
      p *= (*x.shape)[d].value();
    }
    return Dim(p);
  };
  SymShape out;  // push_back: GCC 12 -O3 warns falsely on an initializer list of Dims
  out.push_back(prod(0, axis));
  out.push_back(prod(axis, r));
  return {{x.dtype, out}};
}

// ---- Squeeze / Unsqueeze ---------------------------------------------------------------------
std::vector<int64_t> given_axes(const InferContext& c, bool axes_input, bool required) {
  if (!axes_input) return c.attrs.ints("axes");
  if (!has_input(c, 1)) {
    if (required) throw ShapeError(cat(c.op.type, ": the axes input is required"));
    return {};
  }
  return need_ints(c, 1, "axes");
}

std::vector<TensorType> infer_squeeze(const InferContext& c, bool axes_input) {
  const TensorType& x = c.inputs[0];
  const std::vector<int64_t> given = given_axes(c, axes_input, false);
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const SymShape& s = *x.shape;
  const int64_t r = static_cast<int64_t>(s.size());
  std::vector<bool> drop(s.size(), false);
  if (given.empty()) {  // every size-1 dim
    for (size_t d = 0; d < s.size(); ++d) {
      if (!s[d].known()) return {{x.dtype, std::nullopt}};
      drop[d] = s[d].value() == 1;
    }
  } else {
    for (int64_t a : resolve_axes(c, given, r, 11)) {
      if (s[a].known() && s[a].value() != 1)
        throw ShapeError(cat(c.op.type, ": cannot squeeze axis ", a, " of ", to_string(s),
                             " (size ", s[a].value(), ")"));
      drop[a] = true;
    }
  }
  SymShape out;
  for (size_t d = 0; d < s.size(); ++d)
    if (!drop[d]) out.push_back(s[d]);
  return {{x.dtype, out}};
}

std::vector<TensorType> infer_unsqueeze(const InferContext& c, bool axes_input) {
  const TensorType& x = c.inputs[0];
  const std::vector<int64_t> given = given_axes(c, axes_input, true);
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const int64_t r = static_cast<int64_t>(x.shape->size() + given.size());
  std::vector<bool> inserted(static_cast<size_t>(r), false);
  for (int64_t a : resolve_axes(c, given, r, 11)) inserted[a] = true;
  SymShape out;
  size_t next = 0;
  for (int64_t d = 0; d < r; ++d) out.push_back(inserted[d] ? Dim(int64_t{1}) : (*x.shape)[next++]);
  return {{x.dtype, out}};
}

// ---- Shape / Size ----------------------------------------------------------------------------
// Shape-15's [start, end) clamped to [0, rank] after adding rank to negative bounds.
std::pair<int64_t, int64_t> shape_range(const Attrs& a, bool ranged, int64_t r) {
  if (!ranged) return {0, r};
  auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  const int64_t lo = clamp(a.i("start")), hi = clamp(a.i("end"));
  return {lo, std::max(lo, hi)};
}

void register_reshape(Registry& r) {
  r.add(def_op("Reshape", 1, 4)
            .input("data", "T")
            .output("reshaped", "T")
            .attr("shape", AttrKind::kInts, std::vector<int64_t>{})
            .type_constraint("T", float_types())
            .trait(kMovement)
            .describe("reshaped = data with the dims of the shape attribute (0 copies, -1 infers)")
            .infer([](const InferContext& c) { return infer_reshape(c, true); })
            .host_kernel(kernel_same_bytes)
            .same_bytes()
            .reference(reference_same_bytes));
  for (int since : {5, 14}) {
    OpDef d = def_op("Reshape", since, since == 5 ? 13 : INT_MAX);
    d.input("data", "T")
        .input("shape", "i64", Arity::kSingle, true)
        .output("reshaped", "T")
        .type_constraint("T", movement_types())
        .trait(kMovement);
    if (since == 14) d.attr("allowzero", AttrKind::kInt, int64_t{0});
    d.describe(since == 14 ? "reshaped = data with dims `shape` (0 copies a dim, or is a zero dim "
                             "with allowzero; -1 infers)"
                           : "reshaped = data with dims `shape` (0 copies a dim, -1 infers)")
        .infer([](const InferContext& c) { return infer_reshape(c, false); })
        .host_kernel(kernel_same_bytes)
        .same_bytes()
        .reference(reference_same_bytes);
    r.add(std::move(d));
  }
}

void register_shape_size(Registry& r) {
  for (int since : {1, 15}) {
    const bool ranged = since == 15;
    OpDef d = def_op("Shape", since, ranged ? INT_MAX : 14);
    d.input("data", "T")
        .output("shape", "i64")
        .type_constraint("T", movement_types())
        .trait(kShapeOf);  // reads only data's type: foldable at planning
    if (ranged)
      d.attr("start", AttrKind::kInt, int64_t{0}).attr("end", AttrKind::kInt, int64_t{INT64_MAX});
    d.describe(ranged ? "shape = data's dims [start, end) as i64" : "shape = data's dims as i64")
        .infer([ranged](const InferContext& c) {
          const TensorType& x = c.inputs[0];
          if (!x.shape) return std::vector<TensorType>{{DType::kI64, SymShape(1, Dim())}};
          const auto [lo, hi] = shape_range(c.attrs, ranged, static_cast<int64_t>(x.shape->size()));
          return std::vector<TensorType>{{DType::kI64, SymShape(1, Dim(hi - lo))}};
        })
        .host_kernel(
            [ranged](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
              const Shape& s = in[0].shape();
              const auto [lo, hi] = shape_range(ctx.attr(), ranged, static_cast<int64_t>(s.size()));
              if (hi > lo)
                std::memcpy(out[0].data(), s.data() + lo, static_cast<size_t>(hi - lo) * 8);
            })
        .reference([ranged](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          const Shape& s = in[0].shape();
          const auto [lo, hi] = shape_range(a, ranged, static_cast<int64_t>(s.size()));
          for (int64_t i = lo; i < hi; ++i) out[0].data_as<int64_t>()[i - lo] = s[i];
        });
    r.add(std::move(d));
  }
  r.add(def_op("Size", 1)
            .input("data", "T")
            .output("size", "i64")
            .type_constraint("T", movement_types())
            .trait(kShapeOf)
            .describe("size = the number of elements of data, as an i64 scalar")
            .infer([](const InferContext&) {
              return std::vector<TensorType>{{DType::kI64, SymShape{}}};
            })
            .host_kernel([](const LaunchContext&, std::span<const Tensor> in,
                            std::span<Tensor> out) { *out[0].data_as<int64_t>() = in[0].numel(); })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              int64_t n = 1;
              for (int64_t d : in[0].shape()) n *= d;
              out[0].data_as<int64_t>()[0] = n;
            }));
}

void register_flatten(Registry& r) {
  struct V {
    int since, until;
  };
  for (V v : {V{1, 8}, V{9, 10}, V{11, INT_MAX}}) {
    r.add(def_op("Flatten", v.since, v.until)
              .input("input", "T")
              .output("output", "T")
              .attr("axis", AttrKind::kInt, int64_t{1})
              .type_constraint("T", v.since == 1 ? float_types() : movement_types())
              .trait(kMovement)
              .describe(v.since == 11
                            ? "output = input as 2-D [prod(dims[:axis]), prod(dims[axis:])], "
                              "axis in [-r, r]"
                            : "output = input as 2-D [prod(dims[:axis]), prod(dims[axis:])]")
              .infer(infer_flatten)
              .host_kernel(kernel_same_bytes)
              .same_bytes()
              .reference(reference_same_bytes));
  }
}

void register_squeeze_unsqueeze(Registry& r) {
  struct V {
    int since, until;
    bool axes_input;
  };
  for (V v : {V{1, 10, false}, V{11, 12, false}, V{13, INT_MAX, true}}) {
    const bool axes_input = v.axes_input;
    OpDef sq = def_op("Squeeze", v.since, v.until);
    sq.input("data", "T");
    if (axes_input)
      sq.input("axes", "i64", Arity::kOptional, true);
    else
      sq.attr("axes", AttrKind::kInts, std::vector<int64_t>{});
    sq.output("squeezed", "T")
        .type_constraint("T", movement_types())
        .trait(kMovement)
        .describe("squeezed = data without the size-1 dims in axes (all size-1 dims if empty)")
        .infer([axes_input](const InferContext& c) { return infer_squeeze(c, axes_input); })
        .host_kernel(kernel_same_bytes)
        .same_bytes()
        .reference(reference_same_bytes);
    r.add(std::move(sq));

    OpDef un = def_op("Unsqueeze", v.since, v.until);
    un.input("data", "T");
    if (axes_input)
      un.input("axes", "i64", Arity::kSingle, true);
    else
      un.attr("axes", AttrKind::kInts);
    un.output("expanded", "T")
        .type_constraint("T", movement_types())
        .trait(kMovement)
        .describe("expanded = data with size-1 dims inserted at axes (of the output rank)")
        .infer([axes_input](const InferContext& c) { return infer_unsqueeze(c, axes_input); })
        .host_kernel(kernel_same_bytes)
        .same_bytes()
        .reference(reference_same_bytes);
    r.add(std::move(un));
  }
}

}  // namespace

void register_movement_shape(Registry& r) {
  register_reshape(r);
  register_shape_size(r);
  register_flatten(r);
  register_squeeze_unsqueeze(r);
  // Strings, sequences (14+) and optionals (16+) are host objects: copied whole.
  auto identity = [](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
    if (dtype_is_host_object(in[0].dtype()))
      out[0].assign(in[0]);
    else
      copy_all(out[0], in[0]);
  };
  r.add(def_op("Identity", 1)
            .input("input", "T")
            .output("output", "T")
            .type_constraint("T", any_types())
            .trait(kMovement)
            .describe("output = input (tensors, strings, sequences, optionals)")
            .infer(infer_unary)
            .host_kernel(identity)
            .same_bytes([](const Attrs&, const TensorDesc& in, const TensorDesc&) {
              return !dtype_is_host_object(in.dtype);
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              out[0] = in[0].clone();
            }));
}

}  // namespace asc

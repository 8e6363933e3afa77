// Concat and Split along one axis. Layout: a tensor of dims D viewed as [outer, D[axis], inner]
// with outer = prod(D[:axis]) and inner = prod(D[axis+1:]); each input (Concat) or output (Split)
// is one [outer, n_i * inner] block at column offset sum_{j<i} n_j * inner of the joined tensor,
// so every outer row is one memcpy.
#include <climits>
#include <cstring>

#include "ops/movement.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

int64_t join_axis(const std::string& op, int since, int64_t axis, int64_t rank) {
  if (axis < 0 && since < 11)
    throw ShapeError(cat(op, "-", since, ": negative axis ", axis, " needs opset >= 11"));
  if (axis < -rank || axis >= rank)
    throw ShapeError(cat(op, ": axis ", axis, " is out of range for rank ", rank));
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

void concat_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  Tensor& y = out[0];
  const int64_t axis = join_axis("Concat", ctx.op->since, ctx.attr().i("axis"),
                                 static_cast<int64_t>(y.shape().size()));
  const auto [outer, inner] = outer_inner(y.shape(), axis);
  const int64_t row = y.shape()[axis] * inner;
  const size_t es = dtype_size(y.dtype());
  int64_t col = 0;
  for (const Tensor& x : in) {
    const int64_t w = x.shape()[axis] * inner;
    copy_strided(bytes_of(y) + col * static_cast<int64_t>(es), {row, 1}, bytes_of(x), {w, 1},
                 {outer, w}, es);
    col += w;
  }
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
};

// Part sizes along the axis (of extent n).
std::vector<int64_t> split_sizes(const InferContext& c, const SplitVersion& v, int64_t n) {
  std::vector<int64_t> sizes;
  if (v.split_input) {
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
  const int64_t parts = v.num_outputs ? c.attrs.i("num_outputs") : 0;
  if (parts <= 0)
    throw ShapeError(v.num_outputs
                         ? "Split: give either split or num_outputs"
                         : "Split: equal parts without `split` need the node's output count, "
                           "which inference does not see");
  if (n < 0) return std::vector<int64_t>(static_cast<size_t>(parts), -1);
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

void split_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const int64_t axis = join_axis("Split", ctx.op->since, ctx.attr().i("axis"),
                                 static_cast<int64_t>(x.shape().size()));
  const auto [outer, inner] = outer_inner(x.shape(), axis);
  const int64_t row = x.shape()[axis] * inner;
  const size_t es = dtype_size(x.dtype());
  int64_t col = 0;
  for (Tensor& y : out) {
    const int64_t w = y.shape()[axis] * inner;
    copy_strided(bytes_of(y), {w, 1}, bytes_of(x) + col * static_cast<int64_t>(es), {row, 1},
                 {outer, w}, es);
    col += w;
  }
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
        .host_kernel(concat_kernel)
        .reference([since](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          concat_reference(a, since, in, out[0]);
        });
    r.add(std::move(d));
  }
  static constexpr SplitVersion kSplit[] = {{2, 10, false, false},
                                            {11, 12, false, false},
                                            {13, 17, true, false},
                                            {18, INT_MAX, true, true}};
  for (const SplitVersion& sv : kSplit) {
    const SplitVersion* v = &sv;
    OpDef d = def_op("Split", sv.since, sv.until);
    d.input("input", "T");
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
                                 : "outputs = input cut along axis by split sizes")
        .infer([v](const InferContext& c) { return infer_split(c, *v); })
        .host_kernel(split_kernel)
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          split_reference(a, v->since, in, out);
        });
    r.add(std::move(d));
  }
}

}  // namespace asc

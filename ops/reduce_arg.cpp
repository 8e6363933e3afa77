// ArgMax / ArgMin: the i64 index of the largest / smallest element along `axis`, as host kernels
// (the vector vocabulary has no index reduction). Versions: 1-10 (axis in [0, rank) by the spec;
// negative accepted as ONNX Runtime does, registry/lenient.h), 11
// (negative axes), 12+ (select_last_index: ties give the last index instead of the first).
//
// Layout: data viewed as [outer, n, inner] around `axis`; the output is [outer, inner] (with the
// axis kept as 1 when keepdims). The kernel walks the n rows of a slab once, keeping the best
// value and index per inner position, so inner loops run over contiguous memory. A NaN never
// replaces a value (comparisons with NaN are false); a NaN first element stays.
#include <type_traits>
#include <vector>

#include "ops/reduce.h"
#include "ops/slabs.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/lenient.h"
#include "registry/strings.h"

namespace asc {
namespace {

struct ArgVersion {
  const char* type;
  bool is_max;
  int since, until;
};

constexpr ArgVersion kArgVersions[] = {
    {"ArgMax", true, 1, 10},  {"ArgMax", true, 11, 11},  {"ArgMax", true, 12, INT_MAX},
    {"ArgMin", false, 1, 10}, {"ArgMin", false, 11, 11}, {"ArgMin", false, 12, INT_MAX},
};

// The normalised axis; throws ShapeError naming the op and the data shape.
int64_t arg_axis(const ArgVersion& v, int64_t axis, int64_t rank, const std::string& shape) {
  if (axis < -rank || axis >= rank)  // 1-10: [0, rank) by the spec, negative as ORT accepts
    throw ShapeError(cat(v.type, "-", v.since, ": axis ", axis, " out of range [", -rank, ", ",
                         rank, ") for data ", shape));
  return axis < 0 ? axis + rank : axis;
}

bool select_last(const ArgVersion& v, const Attrs& a) {
  return v.since >= 12 && a.i("select_last_index") != 0;
}

std::vector<TensorType> infer_arg(const ArgVersion& v, const InferContext& c) {
  const TensorType& x = c.inputs[0];
  if (!x.shape) return {{DType::kI64, std::nullopt}};
  const int64_t rank = static_cast<int64_t>(x.shape->size());
  const int64_t axis = arg_axis(v, c.attrs.i("axis"), rank, to_string(*x.shape));
  if (v.since < 11 && c.attrs.i("axis") < 0)
    log_lenient(v.type, v.since, cat("negative axis ", c.attrs.i("axis")));
  const Dim& n = (*x.shape)[axis];
  if (n.known() && n.value() == 0)
    throw ShapeError(cat(v.type, ": cannot take the index over an empty axis ", axis, " of data ",
                         to_string(*x.shape)));
  SymShape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      out.push_back((*x.shape)[d]);
    else if (c.attrs.i("keepdims") != 0)
      out.push_back(Dim(int64_t{1}));
  }
  return {{DType::kI64, out}};
}

// y[o, i] = arg best of x[o, :, i]; Better(a, b) says whether a replaces the current best b.
template <class T, class Better>
void arg_slabs(const T* x, int64_t* y, const Slabs& s, Better better) {
  using V = decltype(element_value(T{}));
  const auto inner = static_cast<size_t>(s.inner);
  std::vector<V> best(inner);
  for (int64_t o = 0; o < s.outer; ++o) {
    const T* slab = x + o * s.n * s.inner;
    int64_t* out = y + o * s.inner;
    for (size_t i = 0; i < inner; ++i) {
      best[i] = element_value(slab[i]);
      out[i] = 0;
    }
    for (int64_t k = 1; k < s.n; ++k) {
      const T* row = slab + k * s.inner;
      for (size_t i = 0; i < inner; ++i) {
        const V e = element_value(row[i]);
        if (better(e, best[i])) {
          best[i] = e;
          out[i] = k;
        }
      }
    }
  }
}

template <class T>
void arg_typed(const Tensor& x, Tensor& y, const Slabs& s, bool is_max, bool last) {
  const T* px = x.data_as<T>();
  int64_t* py = y.data_as<int64_t>();
  if (is_max && last) arg_slabs(px, py, s, [](auto a, auto b) { return a >= b; });
  if (is_max && !last) arg_slabs(px, py, s, [](auto a, auto b) { return a > b; });
  if (!is_max && last) arg_slabs(px, py, s, [](auto a, auto b) { return a <= b; });
  if (!is_max && !last) arg_slabs(px, py, s, [](auto a, auto b) { return a < b; });
}

void arg_kernel(const ArgVersion& v, const LaunchContext& ctx, const Tensor& x, Tensor& y) {
  const Shape& shape = x.shape();
  const int64_t axis =
      arg_axis(v, ctx.attr().i("axis"), static_cast<int64_t>(shape.size()), to_string(shape));
  const Slabs s = slabs_of(shape, axis);
  if (y.numel() == 0) return;
  const bool last = select_last(v, ctx.attr());
  const bool ok = visit_numeric(
      x.dtype(), [&](auto tag) { arg_typed<decltype(tag)>(x, y, s, v.is_max, last); });
  if (!ok) throw ShapeError(cat(ctx.str(), ": unsupported data type ", dtype_name(x.dtype())));
}

// Naive reference in double: scan every output position's line for the extreme value.
void arg_reference(const ArgVersion& v, const Attrs& a, const Tensor& x, Tensor& y) {
  const Shape& shape = x.shape();
  const int64_t axis =
      arg_axis(v, a.i("axis"), static_cast<int64_t>(shape.size()), to_string(shape));
  const Slabs s = slabs_of(shape, axis);
  const bool last = select_last(v, a);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      int64_t best = 0;
      double bv = x.at(o * s.n * s.inner + i);
      for (int64_t k = 1; k < s.n; ++k) {
        const double e = x.at((o * s.n + k) * s.inner + i);
        const bool wins = v.is_max ? (e > bv || (last && e == bv)) : (e < bv || (last && e == bv));
        if (wins) {
          bv = e;
          best = k;
        }
      }
      y.set(o * s.inner + i, static_cast<double>(best));
    }
}

}  // namespace

void register_arg_reduce(Registry& r) {
  for (const ArgVersion v : kArgVersions) {
    OpDef def = def_op(v.type, v.since, v.until);
    def.input("data", "T")
        .output("reduced", "i64")
        .attr("axis", AttrKind::kInt, int64_t{0})
        .attr("keepdims", AttrKind::kInt, int64_t{1});
    if (v.since >= 12) def.attr("select_last_index", AttrKind::kInt, int64_t{0});
    def.type_constraint("T", numeric_types())
        .trait(kReduction)
        .describe(v.is_max ? "reduced = index of the largest element of data along axis (i64)"
                           : "reduced = index of the smallest element of data along axis (i64)")
        .infer([v](const InferContext& c) { return infer_arg(v, c); })
        .host_kernel([v](const LaunchContext& ctx, std::span<const Tensor> in,
                         std::span<Tensor> out) { arg_kernel(v, ctx, in[0], out[0]); })
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          arg_reference(v, a, in[0], out[0]);
        });
    r.add(std::move(def));
  }
}

}  // namespace asc

// Shared pieces of the elementwise family (ops/elementwise.h): dtype groups, the legacy
// broadcast convention, constant tiles and broadcast offsets for references.
#include "ops/elementwise.h"

#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {

std::vector<DType> ew_f16_f32_f64() {
  return {DType::kF16, DType::kF32, DType::kF64};
}

std::vector<DType> ew_floats(bool bf16) {
  std::vector<DType> v = ew_f16_f32_f64();
  if (bf16) v.push_back(DType::kBF16);
  return v;
}

std::vector<DType> ew_ints() {
  return {DType::kI8, DType::kI16, DType::kI32, DType::kI64,
          DType::kU8, DType::kU16, DType::kU32, DType::kU64};
}

std::vector<DType> ew_numeric(bool bf16) {
  return ew_plus(ew_ints(), ew_floats(bf16));
}

std::vector<DType> ew_plus(std::vector<DType> a, const std::vector<DType>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---- legacy broadcast ---------------------------------------------------------------------------

Shape legacy_b_shape(const std::string& op, const Shape& a, const Shape& b, const Attrs& attrs) {
  if (attrs.i("broadcast") == 0) {
    if (a != b)
      throw ShapeError(
          cat(op, ": shapes ", to_string(a), " and ", to_string(b), " differ and broadcast = 0"));
    return b;
  }
  const auto ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  if (rb > ra)
    throw ShapeError(cat(op, ": B ", to_string(b), " has a higher rank than A ", to_string(a)));
  int64_t axis = attrs.i("axis");
  if (axis < 0) axis = ra - rb;
  if (axis + rb > ra)
    throw ShapeError(
        cat(op, ": B ", to_string(b), " does not fit into A ", to_string(a), " at axis ", axis));
  Shape padded(a.size(), 1);
  for (int64_t j = 0; j < rb; ++j) {
    if (b[j] != 1 && b[j] != a[axis + j])
      throw ShapeError(
          cat(op, ": B ", to_string(b), " does not match A ", to_string(a), " at axis ", axis));
    padded[axis + j] = b[j];
  }
  return padded;
}

std::vector<TensorType> infer_legacy(const InferContext& ctx, DType out) {
  const TensorType& a = ctx.inputs.at(0);
  const TensorType& b = ctx.inputs.at(1);
  if (a.shape && b.shape) {
    const auto ca = to_concrete(*a.shape), cb = to_concrete(*b.shape);
    if (ca && cb) {
      legacy_b_shape(ctx.op.name(), *ca, *cb, ctx.attrs);  // validates
    } else if (b.shape->size() > a.shape->size()) {
      throw ShapeError(cat(ctx.op.name(), ": B ", to_string(*b.shape), " has a higher rank than A ",
                           to_string(*a.shape)));
    }
  }
  return {TensorType{out == DType::kUndefined ? a.dtype : out, a.shape}};
}

LaunchContext legacy_ctx(const LaunchContext& ctx) {
  LaunchContext c = ctx;
  const Shape& a = ctx.inputs.at(0).shape;
  const Shape& b = ctx.inputs.at(1).shape;
  if (a.size() != b.size()) c.inputs[1].shape = legacy_b_shape(ctx.op->name(), a, b, ctx.attr());
  return c;
}

void ref_legacy(const Attrs& attrs, std::span<const Tensor> in, Tensor& out,
                const std::function<double(const double*)>& f) {
  const Shape padded = legacy_b_shape("legacy broadcast", in[0].shape(), in[1].shape(), attrs);
  // A read-only view of B with the padded shape (same elements, same order).
  const Tensor b = Tensor::wrap(in[1].dtype(), padded, const_cast<void*>(in[1].data()));
  const Tensor args[2] = {in[0], b};
  ref_elementwise(args, out, f);
}

void add_legacy_binary(Registry& r, const char* type, int since, int until,
                       std::vector<DType> types, DType out, bool consumed, const char* doc,
                       EwBinaryFn kernel, EwRefFn ref) {
  OpDef d = def_op(type, since, until);
  d.input("A", "T").input("B", "T");
  d.output("C", out == DType::kUndefined ? std::string("T") : std::string(dtype_name(out)));
  d.attr("broadcast", AttrKind::kInt, int64_t{0}).attr("axis", AttrKind::kInt, int64_t{-1});
  if (consumed) d.attr("consumed_inputs", AttrKind::kInts, std::vector<int64_t>{});
  // No kElementwise/kBroadcast traits: B broadcasts by the legacy rule, not numpy's.
  d.type_constraint("T", std::move(types))
      .describe(doc)
      .infer([out](const InferContext& c) { return infer_legacy(c, out); })
      .tiling([](const LaunchContext& ctx) { return elementwise_tiling(legacy_ctx(ctx)); })
      .kernel([kernel](TileBuilder& t) {
        const LaunchContext c = legacy_ctx(t.ctx());
        Buf a = t.copy_in(0, ew_box(c, t.tiling(), 0));
        Buf b = t.copy_in(1, ew_box(c, t.tiling(), 1));
        a = t.cast(a, compute_dtype(t.dtype(a)));
        b = t.cast(b, compute_dtype(t.dtype(b)));
        const Buf y = t.cast(kernel(t, a, b), c.outputs.at(0).dtype);
        t.copy_out(0, y, ew_box(c, t.tiling(), 2));
      })
      .reference([ref](const Attrs& attrs, std::span<const Tensor> in, std::span<Tensor> o) {
        const DType t = in[0].dtype();
        ref_legacy(attrs, in, o[0], [&ref, t](const double* v) { return ref(v[0], v[1], t); });
      });
  r.add(std::move(d));
}

// ---- kernels and references ---------------------------------------------------------------------

Buf ew_const(TileBuilder& t, Buf like, double v) {
  return t.duplicate(t.dtype(like), t.dims(like), v);
}

Buf ew_cmp_const(TileBuilder& t, CmpOp op, Buf x, double v) {
  return t.compare(op, x, ew_const(t, x, v));
}

std::vector<int64_t> bcast_offsets(const Shape& in, const Shape& out) {
  const size_t r = out.size();
  if (in.size() > r)
    throw ShapeError(cat("bcast_offsets: ", to_string(in), " into ", to_string(out)));
  Shape strides(r, 0);  // aligned to the output's rank, 0 where broadcast
  const Shape cs = contiguous_strides(in);
  const size_t off = r - in.size();
  for (size_t d = 0; d < in.size(); ++d) strides[off + d] = in[d] == 1 ? 0 : cs[d];
  const int64_t n = numel(out);
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::vector<int64_t> idx(r);
  for (int64_t i = 0; i < n; ++i) {
    unravel(i, out, idx.data());
    v[static_cast<size_t>(i)] = ravel(idx.data(), strides, r);
  }
  return v;
}

}  // namespace asc

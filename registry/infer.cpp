#include "registry/infer.h"

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {

std::vector<TensorType> infer_broadcast(const InferContext& ctx, int dtype_of) {
  TensorType out;
  out.dtype = ctx.inputs.at(dtype_of).dtype;
  SymShape shape;
  bool known = true;
  for (const auto& in : ctx.inputs) {
    if (in.dtype == DType::kUndefined) continue;
    if (!in.shape) {
      known = false;
      continue;
    }
    shape = broadcast_shapes(shape, *in.shape);
  }
  if (known) out.shape = shape;
  return {out};
}

std::vector<TensorType> infer_unary(const InferContext& ctx) {
  return {ctx.inputs.at(0)};
}

const Tensor& need_value(const InferContext& ctx, size_t k) {
  if (k >= ctx.inputs.size() || ctx.inputs[k].dtype == DType::kUndefined)
    throw ShapeError(cat(ctx.op.name(), ": input ", k, " is required"));
  if (k >= ctx.values.size() || !ctx.values[k])
    throw ValueUnknownError(
        cat(ctx.op.name(), ": the value of input ", k, " ('",
            k < ctx.op.inputs.size() ? ctx.op.inputs[k].name : ctx.op.inputs.back().name,
            "') is not known yet"));
  return *ctx.values[k];
}

std::vector<int64_t> to_int64s(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DType::kI64:
        v[i] = t.data_as<int64_t>()[i];
        break;
      case DType::kI32:
        v[i] = t.data_as<int32_t>()[i];
        break;
      default:
        v[i] = static_cast<int64_t>(t.at(i));
        break;
    }
  }
  return v;
}

void unravel(int64_t flat, const Shape& shape, int64_t* idx) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
}

int64_t ravel(const int64_t* idx, const Shape& strides, size_t rank) {
  int64_t off = 0;
  for (size_t d = 0; d < rank; ++d) off += idx[d] * strides[d];
  return off;
}

void ref_elementwise(std::span<const Tensor> in, Tensor& out,
                     const std::function<double(const double*)>& f) {
  const Shape& os = out.shape();
  const size_t r = os.size();
  std::vector<Shape> strides;  // per input, aligned to the output rank, 0 where broadcast
  for (const auto& t : in) {
    Shape s(r, 0);
    const Shape cs = contiguous_strides(t.shape());
    const size_t off = r - t.shape().size();
    for (size_t d = 0; d < t.shape().size(); ++d) s[off + d] = t.shape()[d] == 1 ? 0 : cs[d];
    strides.push_back(s);
  }
  std::vector<int64_t> idx(r + 1);
  std::vector<double> vals(in.size());
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel(i, os, idx.data());
    for (size_t k = 0; k < in.size(); ++k) vals[k] = in[k].at(ravel(idx.data(), strides[k], r));
    out.set(i, f(vals.data()));
  }
}

}  // namespace asc

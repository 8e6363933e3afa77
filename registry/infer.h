// Shape-inference and reference helpers shared by op families. Inference functions are pure:
// they take symbolic types and return what they know.
#pragma once

#include <functional>
#include <span>

#include "registry/op_def.h"

namespace asc {

// Output 0 has the broadcast shape of every present input and the dtype of input `dtype_of`.
std::vector<TensorType> infer_broadcast(const InferContext& ctx, int dtype_of = 0);
// Output 0 has input 0's dtype and shape.
std::vector<TensorType> infer_unary(const InferContext& ctx);

// The value of input k (a constant, or known when planning); throws ValueUnknownError naming the
// input when it is not known yet, and ShapeError when the input is absent.
const Tensor& need_value(const InferContext& ctx, size_t k);
// A tensor's elements as int64 (any integer dtype; shape-like inputs).
std::vector<int64_t> to_int64s(const Tensor& t);

// out[i] = f(inputs at the broadcast positions of i), evaluated in double.
void ref_elementwise(std::span<const Tensor> in, Tensor& out,
                     const std::function<double(const double*)>& f);

// Row-major multi-index helpers for references.
void unravel(int64_t flat, const Shape& shape, int64_t* idx);
int64_t ravel(const int64_t* idx, const Shape& strides, size_t rank);

}  // namespace asc

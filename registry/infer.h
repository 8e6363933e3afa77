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

// out[i] = f(inputs at the broadcast positions of i), evaluated in double.
void ref_elementwise(std::span<const Tensor> in, Tensor& out,
                     const std::function<double(const double*)>& f);

// Row-major multi-index helpers for references.
void unravel(int64_t flat, const Shape& shape, int64_t* idx);
int64_t ravel(const int64_t* idx, const Shape& strides, size_t rank);

}  // namespace asc

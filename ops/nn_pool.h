// The pool versions of the nn family: one table entry per ONNX version range, shared by the
// kernels (pool.cpp) and the registration, references, global pools and MaxUnpool (pool_ops.cpp).
#pragma once

#include <span>
#include <vector>

#include "ops/nn.h"

namespace asc {

enum class PoolKind : uint8_t { kMax, kAvg, kLp };

struct PoolVersion {
  const char* type;
  PoolKind kind;
  int since, until;
};

Window pool_window(const PoolVersion& v, const Attrs& a, const std::vector<int64_t>& x);
std::vector<TensorType> infer_pool(const PoolVersion& v, const InferContext& ctx);
void pool_kernel(const PoolVersion& v, const LaunchContext& ctx, std::span<const Tensor> in,
                 std::span<Tensor> out);

}  // namespace asc

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

// LpPool's / GlobalLpPool's p: a float attribute in version 1, an int from 2.
double pool_p(int since, const Attrs& a);
// |x|^p of an f32 tile (p 1: Abs, 2: Square, else Abs then PowScalar) and the root s^(1/p) of a
// sum of them (1: as it is, 2: Sqrt, else PowScalar).
Buf lp_power(TileBuilder& t, Buf x, double p);
Buf lp_root(TileBuilder& t, Buf s, double p);

// The tile kernels of MaxPool, AveragePool and LpPool (ops/pool_tile.cpp) and the launches they
// take.
bool pool_tile_covers(const PoolVersion& v, const Attrs& a, std::span<const TensorDesc> in,
                      std::span<const TensorDesc> out);
TilingData pool_tiling(const PoolVersion& v, const LaunchContext& ctx);
void pool_tile_kernel(const PoolVersion& v, TileBuilder& t);

}  // namespace asc

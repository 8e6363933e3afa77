// Shared pieces of the runtime tests: seeded random f32 tensors (uniform in [lo, hi)) and ai.onnx
// opset-17 nodes for hand-built graphs.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ops/ops.h"
#include "registry/tensor.h"
#include "runtime/graph.h"

namespace asc::test {

inline Tensor random(Shape shape, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  Tensor t(DType::kF32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
  return t;
}

// An ai.onnx node of `op` at opset 17, its def looked up in the registry.
inline Node node(const std::string& op, std::vector<int> in, std::vector<int> out,
                 Attrs attrs = {}) {
  Node n;
  n.op_type = op;
  n.opset = 17;
  n.def = global_registry().find("", op, 17);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  return n;
}

}  // namespace asc::test

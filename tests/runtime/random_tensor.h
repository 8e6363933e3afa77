// Seeded random f32 tensors for the runtime tests (uniform in [lo, hi)).
#pragma once

#include <cstdint>
#include <random>
#include <utility>

#include "registry/tensor.h"

namespace asc::test {

inline Tensor random(Shape shape, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  Tensor t(DType::kF32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
  return t;
}

}  // namespace asc::test

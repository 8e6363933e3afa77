// The normalization family, split by kernel style:
//   normalization_rows.cpp  the moments tile kernel (mean, variance, normalise, affine)
//   normalization_layer.cpp LayerNormalization, MeanVarianceNormalization, InstanceNormalization,
//                           GroupNormalization
//   normalization_batch.cpp BatchNormalization (tile kernels over [N, C, S])
//   normalization_misc.cpp  Hardmax (host kernel), LRN, LpNormalization (tile kernels)
//   normalization_loss.cpp  NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss (host kernels)
// LogSoftmax lives next to Softmax (softmax.cpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "registry/dtype.h"
#include "registry/error.h"
#include "registry/op_def.h"
#include "registry/registry.h"
#include "registry/strings.h"

namespace asc {

void register_normalization_rows(Registry& r);  // normalization_layer.cpp
void register_normalization_batch(Registry& r);
void register_normalization_misc(Registry& r);
void register_normalization_loss(Registry& r);

namespace norm {

// Host-kernel element access with the dtype resolved once: f16/bf16 go through f32.
template <typename T>
inline double load(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, f16>) {
    return f16_to_f32(p[i]);
  } else if constexpr (std::is_same_v<T, bf16>) {
    return bf16_to_f32(p[i]);
  } else {
    return static_cast<double>(p[i]);
  }
}

template <typename T>
inline void store(T* p, int64_t i, double v) {
  if constexpr (std::is_same_v<T, f16>) {
    p[i] = f32_to_f16(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bf16>) {
    p[i] = f32_to_bf16(static_cast<float>(v));
  } else {
    p[i] = static_cast<T>(v);
  }
}

// Calls f(T{}) with the storage type of a float dtype; throws ShapeError for any other dtype.
template <typename F>
void dispatch_float(DType dt, F&& f) {
  switch (dt) {
    case DType::kF32:
      return f(float{});
    case DType::kF64:
      return f(double{});
    case DType::kF16:
      return f(f16{});
    case DType::kBF16:
      return f(bf16{});
    default:
      throw ShapeError(cat("expected a float dtype, got ", dtype_name(dt)));
  }
}

}  // namespace norm
}  // namespace asc

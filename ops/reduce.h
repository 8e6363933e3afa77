// The reduce family: the ReduceX ops as row-view tile kernels (reduce.cpp: the engine and
// Sum/Mean/Max; reduce_more.cpp: the rest), ArgMax/ArgMin (reduce_arg.cpp), the recurrent ops
// (rnn*.cpp) and Einsum (einsum*.cpp). register_reduce and register_reduce_more (ops/ops.h) are
// the family's entry points.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "registry/dtype.h"
#include "registry/registry.h"

namespace asc {

// What a ReduceX op computes over the reduced set S of each output element.
enum class ReduceKind : uint8_t {
  kSum,        // sum x                           (empty S: 0)
  kMean,       // sum x / |S|                     (empty S: NaN)
  kMax,        // max x                           (empty S: lowest value)
  kMin,        // min x                           (empty S: highest value)
  kProd,       // prod x                          (empty S: 1)
  kL1,         // sum |x|                         (empty S: 0)
  kL2,         // sqrt(sum x^2)                   (empty S: 0)
  kLogSum,     // log(sum x)                      (empty S: -inf)
  kLogSumExp,  // log(sum exp x), computed as m + log(sum exp(x - m)), m = max x (empty S: -inf)
  kSumSquare,  // sum x^2                         (empty S: 0)
};

// How a version takes its axes.
enum class AxesFrom : uint8_t {
  kAttrNonNegative,  // attribute `axes`, each in [0, rank) by the spec (opsets 1-10; negative
                     // accepted as ONNX Runtime does)
  kAttr,             // attribute `axes`, each in [-rank, rank) (opsets 11+)
  kInput,            // optional i64 input 1 plus noop_with_empty_axes (opset 13 / 18+)
};

// One registered version range of a ReduceX op.
struct ReduceVersion {
  const char* type;
  ReduceKind kind;
  int since, until;
  AxesFrom axes;
};

// Registers each version as a row-view tile kernel with its inference and naive reference.
void register_reduce_versions(Registry& r, std::span<const ReduceVersion> versions);

// ArgMax / ArgMin (host kernels).
void register_arg_reduce(Registry& r);
// RNN, GRU, LSTM (host kernels, ops/reduce_rnn.h).
void register_rnn(Registry& r);
// Einsum (host kernel, einsum.cpp).
void register_einsum(Registry& r);

// A stored element as an arithmetic value (f16/bf16 widen to float), for host kernels that
// switch on the dtype once and then loop over typed pointers.
template <class T>
auto element_value(T x) {
  if constexpr (std::is_same_v<T, f16>)
    return f16_to_f32(x);
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16_to_f32(x);
  else
    return x;
}

// Calls f(T{}) with T the storage type of a numeric dtype (float, double, f16, bf16, the
// integers); returns false for other dtypes.
template <class F>
bool visit_numeric(DType t, F&& f) {
  switch (t) {
    case DType::kF32:
      return f(float{}), true;
    case DType::kF64:
      return f(double{}), true;
    case DType::kF16:
      return f(f16{}), true;
    case DType::kBF16:
      return f(bf16{}), true;
    case DType::kI8:
      return f(int8_t{}), true;
    case DType::kU8:
      return f(uint8_t{}), true;
    case DType::kI16:
      return f(int16_t{}), true;
    case DType::kU16:
      return f(uint16_t{}), true;
    case DType::kI32:
      return f(int32_t{}), true;
    case DType::kU32:
      return f(uint32_t{}), true;
    case DType::kI64:
      return f(int64_t{}), true;
    case DType::kU64:
      return f(uint64_t{}), true;
    default:
      return false;
  }
}

}  // namespace asc

// vec_reduce: y[o, i] = reduce_r x[o, r, i]. f32/f64 run Highway SIMD loops (runtime dispatch):
// rows (inner == 1) with four vector accumulators per block of kBlock elements, columns
// (inner > 1) vectorised over i, four vectors of columns at a time, blocks of kBlock rows. Sums of
// blocks are added in f64, so the error of an f32 sum grows with kBlock / lanes, not with mid.
// Other dtypes are scalar loops (floats accumulate in f64, integers in 64 bits).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/devices/cpu/vec.h"
#include "runtime/devices/cpu/vec_internal.h"

// foreach_target.h must precede the other Highway headers.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/devices/cpu/vec_reduce.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace asc::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kBlock = 1024;

template <class T>
HWY_INLINE T ReduceInit(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMax:
      return -std::numeric_limits<T>::infinity();
    case ReduceOp::kMin:
      return std::numeric_limits<T>::infinity();
    case ReduceOp::kProd:
      return T(1);
    default:
      return T(0);
  }
}

// acc (op) v for one vector; nan collects NaN lanes for Max/Min (x86 max/min drop them).
template <class D, class V>
HWY_INLINE V ReduceStep(D d, ReduceOp op, V acc, V v, V& nan) {
  switch (op) {
    case ReduceOp::kSum:
      return hn::Add(acc, v);
    case ReduceOp::kSumSquares:
      return hn::MulAdd(v, v, acc);
    case ReduceOp::kProd:
      return hn::Mul(acc, v);
    case ReduceOp::kMax:
      nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
      return hn::Max(acc, v);
    default:
      nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
      return hn::Min(acc, v);
  }
}

template <class T>
HWY_INLINE T ScalarStep(ReduceOp op, T acc, T v) {
  switch (op) {
    case ReduceOp::kSum:
      return acc + v;
    case ReduceOp::kSumSquares:
      return acc + v * v;
    case ReduceOp::kProd:
      return acc * v;
    case ReduceOp::kMax:
      return (v != v || acc != acc) ? (acc != acc ? acc : v) : std::max(acc, v);
    default:
      return (v != v || acc != acc) ? (acc != acc ? acc : v) : std::min(acc, v);
  }
}

// Reduces x[0, n) with the op across the lanes of 4 vector accumulators.
template <class D>
HWY_INLINE hn::TFromD<D> ReduceRow(D d, ReduceOp op, const hn::TFromD<D>* x, size_t n) {
  using T = hn::TFromD<D>;
  const size_t N = hn::Lanes(d);
  const bool additive = op == ReduceOp::kSum || op == ReduceOp::kSumSquares;
  double total = 0;  // additive ops: block sums
  const auto init = hn::Set(d, ReduceInit<T>(op));
  auto a0 = init, a1 = init, a2 = init, a3 = init;
  auto nan = hn::Zero(d);
  T tail = ReduceInit<T>(op);
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t e = std::min(n, b + kBlock);
    size_t i = b;
    for (; i + 4 * N <= e; i += 4 * N) {
      a0 = ReduceStep(d, op, a0, hn::LoadU(d, x + i), nan);
      a1 = ReduceStep(d, op, a1, hn::LoadU(d, x + i + N), nan);
      a2 = ReduceStep(d, op, a2, hn::LoadU(d, x + i + 2 * N), nan);
      a3 = ReduceStep(d, op, a3, hn::LoadU(d, x + i + 3 * N), nan);
    }
    for (; i + N <= e; i += N) a0 = ReduceStep(d, op, a0, hn::LoadU(d, x + i), nan);
    for (; i < e; ++i) tail = ScalarStep(op, tail, x[i]);
    if (additive) {
      const auto s = hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
      total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, s))) + static_cast<double>(tail);
      a0 = a1 = a2 = a3 = init;
      tail = T(0);
    }
  }
  if (additive) return static_cast<T>(total);
  if (!hn::AllFalse(d, hn::MaskFromVec(nan))) return std::numeric_limits<T>::quiet_NaN();
  switch (op) {
    case ReduceOp::kMax:
      return std::max(tail,
                      hn::GetLane(hn::MaxOfLanes(d, hn::Max(hn::Max(a0, a1), hn::Max(a2, a3)))));
    case ReduceOp::kMin:
      return std::min(tail,
                      hn::GetLane(hn::MinOfLanes(d, hn::Min(hn::Min(a0, a1), hn::Min(a2, a3)))));
    default: {  // kProd
      HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
      hn::Store(hn::Mul(hn::Mul(a0, a1), hn::Mul(a2, a3)), d, lanes);
      for (size_t k = 0; k < N; ++k) tail *= lanes[k];
      return tail;
    }
  }
}

// Columns [i0, i0 + 4N) of one [mid, inner] slab.
template <class D>
HWY_INLINE void ReduceCols4(D d, ReduceOp op, const hn::TFromD<D>* x, hn::TFromD<D>* y, size_t mid,
                            size_t inner) {
  using T = hn::TFromD<D>;
  const size_t N = hn::Lanes(d);
  const bool additive = op == ReduceOp::kSum || op == ReduceOp::kSumSquares;
  HWY_ALIGN T part[4 * HWY_MAX_BYTES / sizeof(T)];
  double total[4 * HWY_MAX_BYTES / sizeof(T)] = {};
  const auto init = hn::Set(d, ReduceInit<T>(op));
  auto a0 = init, a1 = init, a2 = init, a3 = init;
  auto n0 = hn::Zero(d), n1 = n0, n2 = n0, n3 = n0;  // NaN lanes per column vector
  for (size_t b = 0; b < mid; b += kBlock) {
    const size_t e = std::min(mid, b + kBlock);
    for (size_t r = b; r < e; ++r) {
      const T* row = x + r * inner;
      a0 = ReduceStep(d, op, a0, hn::LoadU(d, row), n0);
      a1 = ReduceStep(d, op, a1, hn::LoadU(d, row + N), n1);
      a2 = ReduceStep(d, op, a2, hn::LoadU(d, row + 2 * N), n2);
      a3 = ReduceStep(d, op, a3, hn::LoadU(d, row + 3 * N), n3);
    }
    if (additive) {
      hn::Store(a0, d, part);
      hn::Store(a1, d, part + N);
      hn::Store(a2, d, part + 2 * N);
      hn::Store(a3, d, part + 3 * N);
      for (size_t k = 0; k < 4 * N; ++k) total[k] += static_cast<double>(part[k]);
      a0 = a1 = a2 = a3 = init;
    }
  }
  if (additive) {
    for (size_t k = 0; k < 4 * N; ++k) y[k] = static_cast<T>(total[k]);
    return;
  }
  const auto qnan = hn::Set(d, std::numeric_limits<T>::quiet_NaN());
  hn::StoreU(hn::IfThenElse(hn::MaskFromVec(n0), qnan, a0), d, y);
  hn::StoreU(hn::IfThenElse(hn::MaskFromVec(n1), qnan, a1), d, y + N);
  hn::StoreU(hn::IfThenElse(hn::MaskFromVec(n2), qnan, a2), d, y + 2 * N);
  hn::StoreU(hn::IfThenElse(hn::MaskFromVec(n3), qnan, a3), d, y + 3 * N);
}

template <class T>
HWY_INLINE void ReduceFloat(uint8_t op_id, const T* x, T* y, size_t outer, size_t mid,
                            size_t inner) {
  const hn::ScalableTag<T> d;
  const auto op = static_cast<ReduceOp>(op_id);
  const size_t N = hn::Lanes(d);
  if (inner == 1) {
    for (size_t o = 0; o < outer; ++o) y[o] = ReduceRow(d, op, x + o * mid, mid);
    return;
  }
  for (size_t o = 0; o < outer; ++o) {
    const T* xo = x + o * mid * inner;
    T* yo = y + o * inner;
    size_t i = 0;
    for (; i + 4 * N <= inner; i += 4 * N) ReduceCols4(d, op, xo + i, yo + i, mid, inner);
    for (; i < inner; ++i) {  // leftover columns
      double total = 0;
      T acc = ReduceInit<T>(op);
      for (size_t r = 0; r < mid; ++r) {
        const T v = xo[r * inner + i];
        if (op == ReduceOp::kSum)
          total += static_cast<double>(v);
        else if (op == ReduceOp::kSumSquares)
          total += static_cast<double>(v) * v;
        else
          acc = ScalarStep(op, acc, v);
      }
      yo[i] = (op == ReduceOp::kSum || op == ReduceOp::kSumSquares) ? static_cast<T>(total) : acc;
    }
  }
}

void ReduceF32(uint8_t op, const float* x, float* y, size_t outer, size_t mid, size_t inner) {
  ReduceFloat(op, x, y, outer, mid, inner);
}
void ReduceF64(uint8_t op, const double* x, double* y, size_t outer, size_t mid, size_t inner) {
  ReduceFloat(op, x, y, outer, mid, inner);
}

}  // namespace asc::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::cpu {

HWY_EXPORT(ReduceF32);
HWY_EXPORT(ReduceF64);

namespace {

// Scalar reduction for every other dtype. Acc: double for floats, int64/uint64 for integers.
template <class T>
void reduce_scalar(ReduceOp op, const T* x, T* y, size_t outer, size_t mid, size_t inner) {
  using R = decltype(detail::elem_read(T{}));
  constexpr bool kFloat = std::is_floating_point_v<R>;
  using Acc = std::conditional_t<kFloat, double,
                                 std::conditional_t<std::is_signed_v<R>, int64_t, uint64_t>>;
  using U = std::conditional_t<kFloat, double, uint64_t>;  // wrapping integer arithmetic
  Acc init = 0;
  if (op == ReduceOp::kProd) init = 1;
  if (op == ReduceOp::kMax)
    init = kFloat ? Acc(-std::numeric_limits<double>::infinity())
                  : Acc(std::numeric_limits<R>::lowest());
  if (op == ReduceOp::kMin)
    init =
        kFloat ? Acc(std::numeric_limits<double>::infinity()) : Acc(std::numeric_limits<R>::max());
  std::vector<Acc> acc(inner);
  for (size_t o = 0; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), init);
    for (size_t r = 0; r < mid; ++r) {
      const T* row = x + (o * mid + r) * inner;
      for (size_t i = 0; i < inner; ++i) {
        const Acc v = static_cast<Acc>(detail::elem_read(row[i]));
        Acc& a = acc[i];
        switch (op) {
          case ReduceOp::kSum:
            a = static_cast<Acc>(U(a) + U(v));
            break;
          case ReduceOp::kSumSquares:
            a = static_cast<Acc>(U(a) + U(v) * U(v));
            break;
          case ReduceOp::kProd:
            a = static_cast<Acc>(U(a) * U(v));
            break;
          case ReduceOp::kMax:
            a = (a != a || v != v) ? (a != a ? a : v) : std::max(a, v);
            break;
          case ReduceOp::kMin:
            a = (a != a || v != v) ? (a != a ? a : v) : std::min(a, v);
            break;
        }
      }
    }
    for (size_t i = 0; i < inner; ++i) {
      if constexpr (kFloat)
        y[o * inner + i] = detail::elem_convert<T>(acc[i]);
      else
        y[o * inner + i] = static_cast<T>(acc[i]);
    }
  }
}

}  // namespace

void vec_reduce(ReduceOp op, DType t, const void* x, void* y, int64_t outer, int64_t mid,
                int64_t inner) {
  if (outer <= 0 || inner <= 0) {
    if (t == DType::kBool || dtype_size(t) == 0)
      detail::vec_unsupported("vec_reduce", op_name(op), t);
    return;
  }
  const auto uo = static_cast<size_t>(outer), um = static_cast<size_t>(std::max<int64_t>(mid, 0)),
             ui = static_cast<size_t>(inner);
  if (t == DType::kF32) {
    HWY_DYNAMIC_DISPATCH(ReduceF32)
    (static_cast<uint8_t>(op), static_cast<const float*>(x), static_cast<float*>(y), uo, um, ui);
    return;
  }
  if (t == DType::kF64) {
    HWY_DYNAMIC_DISPATCH(ReduceF64)
    (static_cast<uint8_t>(op), static_cast<const double*>(x), static_cast<double*>(y), uo, um, ui);
    return;
  }
  bool ok = false;
  if (t != DType::kBool) {
    ok = detail::dispatch_dtype(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>)
        reduce_scalar(op, static_cast<const T*>(x), static_cast<T*>(y), uo, um, ui);
    });
  }
  if (!ok) detail::vec_unsupported("vec_reduce", op_name(op), t);
}

}  // namespace asc::cpu
#endif  // HWY_ONCE

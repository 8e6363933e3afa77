// Host API (kernel_operator.h): the vector unit's calls, count forms (docs/ASCENDC.md).
#pragma once

#include "kernel_operator_core.h"

namespace AscendC {

// ---- vector unit: count forms; f16/bf16 compute in float and round once on store ----
template <typename T>
using HostCompute =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>, float, T>;
template <typename T>
constexpr bool kHostFloat = std::is_floating_point_v<HostCompute<T>>;

template <typename T>
inline T* HostVec(const LocalTensor<T>& t, int32_t count, const char* what) {
  HostCheck(count >= 0, what, "negative count");
  HostCheck(static_cast<uint32_t>(count) <= t.GetSize(), what, "count past the tensor");
  HostCheck(t.GetPosition() != TPosition::A2 && t.GetPosition() != TPosition::B2 &&
                t.GetPosition() != TPosition::CO1,
            what, "vector operand outside UB");
  return t.GetPhyAddr();
}
// Integer arithmetic wraps (two's complement).
template <typename T>
inline T HostWrap(uint64_t v) {
  return static_cast<T>(v);
}
template <typename C>
inline C HostNanMax(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a || b != b) return a != a ? a : b;
  }
  return a < b ? b : a;
}
template <typename C>
inline C HostNanMin(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a || b != b) return a != a ? a : b;
  }
  return b < a ? b : a;
}

enum class HostBinOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kAnd, kOr, kXor, kPow, kMod };
template <typename C>
inline C HostBinary(HostBinOp op, C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
      case HostBinOp::kAdd:
        return a + b;
      case HostBinOp::kSub:
        return a - b;
      case HostBinOp::kMul:
        return a * b;
      case HostBinOp::kDiv:
        return a / b;
      case HostBinOp::kMax:
        return HostNanMax(a, b);
      case HostBinOp::kMin:
        return HostNanMin(a, b);
      case HostBinOp::kPow:
        return static_cast<C>(std::pow(double(a), double(b)));
      case HostBinOp::kMod:
        return std::fmod(a, b);
      default:
        HostFail("vector binary", "bitwise op on a float type");
    }
  } else {
    const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (op) {
      case HostBinOp::kAdd:
        return HostWrap<C>(ua + ub);
      case HostBinOp::kSub:
        return HostWrap<C>(ua - ub);
      case HostBinOp::kMul:
        return HostWrap<C>(ua * ub);
      case HostBinOp::kDiv:
        if (b == 0) return 0;
        if (std::is_signed_v<C> && b == C(-1)) return HostWrap<C>(0 - ua);
        return static_cast<C>(a / b);
      case HostBinOp::kMod: {
        if (b == 0 || (std::is_signed_v<C> && b == C(-1))) return 0;
        C r = static_cast<C>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        return r;
      }
      case HostBinOp::kPow: {
        if (b < C(0)) {
          if (a == C(1)) return 1;
          if (std::is_signed_v<C> && a == C(-1)) return (ub & 1) ? C(-1) : C(1);
          return 0;
        }
        uint64_t base = ua, r = 1;
        for (uint64_t e = ub; e; e >>= 1) {
          if (e & 1) r *= base;
          base *= base;
        }
        return HostWrap<C>(r);
      }
      case HostBinOp::kMax:
        return HostNanMax(a, b);
      case HostBinOp::kMin:
        return HostNanMin(a, b);
      case HostBinOp::kAnd:
        return static_cast<C>(a & b);
      case HostBinOp::kOr:
        return static_cast<C>(a | b);
      case HostBinOp::kXor:
        return static_cast<C>(a ^ b);
    }
    return 0;
  }
}
template <typename T>
inline void HostBinaryVec(HostBinOp op, const LocalTensor<T>& dst, const LocalTensor<T>& a,
                          const LocalTensor<T>& b, int32_t n, const char* what) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, n, what);
  const T* x = HostVec(a, n, what);
  const T* y = HostVec(b, n, what);
  for (int32_t i = 0; i < n; ++i) d[i] = static_cast<T>(HostBinary<C>(op, C(x[i]), C(y[i])));
}
template <typename T>
inline void HostScalarVec(HostBinOp op, const LocalTensor<T>& dst, const LocalTensor<T>& a, T s,
                          int32_t n, const char* what) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, n, what);
  const T* x = HostVec(a, n, what);
  for (int32_t i = 0; i < n; ++i) d[i] = static_cast<T>(HostBinary<C>(op, C(x[i]), C(s)));
}

#define ASC_HOST_BINARY(NAME, OP)                                                               \
  template <typename T>                                                                         \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, \
                   int32_t count) {                                                             \
    HostBinaryVec(HostBinOp::OP, dst, a, b, count, #NAME);                                      \
  }
ASC_HOST_BINARY(Add, kAdd)
ASC_HOST_BINARY(Sub, kSub)
ASC_HOST_BINARY(Mul, kMul)
ASC_HOST_BINARY(Div, kDiv)
ASC_HOST_BINARY(Max, kMax)
ASC_HOST_BINARY(Min, kMin)
ASC_HOST_BINARY(And, kAnd)
ASC_HOST_BINARY(Or, kOr)
ASC_HOST_BINARY(Xor, kXor)
ASC_HOST_BINARY(Fmod, kMod)  // integers: the result takes the divisor's sign
#undef ASC_HOST_BINARY
#define ASC_HOST_SCALAR(NAME, OP)                                                       \
  template <typename T>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const T& scalar, \
                   int32_t count) {                                                     \
    HostScalarVec(HostBinOp::OP, dst, a, scalar, count, #NAME);                         \
  }
ASC_HOST_SCALAR(Adds, kAdd)
ASC_HOST_SCALAR(Muls, kMul)
ASC_HOST_SCALAR(Maxs, kMax)
ASC_HOST_SCALAR(Mins, kMin)
#undef ASC_HOST_SCALAR
// dst = a ^ b (tensor exponent), a ^ scalar, scalar ^ b.
template <typename T>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                  int32_t count) {
  HostBinaryVec(HostBinOp::kPow, dst, a, b, count, "Power");
}
template <typename T>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& a, const T& scalar,
                  int32_t count) {
  HostScalarVec(HostBinOp::kPow, dst, a, scalar, count, "Power");
}
// dst += a * b
template <typename T>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                      int32_t count) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, count, "MulAddDst");
  const T* x = HostVec(a, count, "MulAddDst");
  const T* y = HostVec(b, count, "MulAddDst");
  for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(C(d[i]) + C(x[i]) * C(y[i]));
}

template <typename C>
inline C HostAbs(C x) {
  if constexpr (std::is_floating_point_v<C>)
    return std::fabs(x);
  else
    return x < C(0) ? HostWrap<C>(0 - static_cast<uint64_t>(x)) : x;
}
template <typename T, typename F>
inline void HostUnaryVec(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t n, F f,
                         const char* what) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, n, what);
  const T* x = HostVec(src, n, what);
  for (int32_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(C(x[i])));
}
#define ASC_HOST_UNARY(NAME, EXPR)                                                        \
  template <typename T>                                                                   \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) { \
    using C = HostCompute<T>;                                                             \
    HostUnaryVec(                                                                         \
        dst, src, count, [](C x) { return static_cast<C>(EXPR); }, #NAME);                \
  }
ASC_HOST_UNARY(Abs, HostAbs(x))
ASC_HOST_UNARY(Relu, (x < C(0) ? C(0) : x))
ASC_HOST_UNARY(Exp, std::exp(x))
ASC_HOST_UNARY(Ln, std::log(x))
ASC_HOST_UNARY(Sqrt, std::sqrt(x))
ASC_HOST_UNARY(Rsqrt, C(1) / std::sqrt(x))
ASC_HOST_UNARY(Reciprocal, C(1) / x)
ASC_HOST_UNARY(Sigmoid, C(1) / (C(1) + std::exp(-x)))
ASC_HOST_UNARY(Tanh, std::tanh(x))
ASC_HOST_UNARY(Erf, std::erf(x))
ASC_HOST_UNARY(Sin, std::sin(x))
ASC_HOST_UNARY(Cos, std::cos(x))
ASC_HOST_UNARY(Floor, std::floor(x))
ASC_HOST_UNARY(Ceil, std::ceil(x))
ASC_HOST_UNARY(Round, std::nearbyint(x))  // half to even (the default rounding mode)
ASC_HOST_UNARY(Sign, (x != x ? x : C((x > C(0)) - (x < C(0)))))
ASC_HOST_UNARY(Silu, x / (C(1) + std::exp(-x)))
#undef ASC_HOST_UNARY
template <typename T>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& alpha,
                      int32_t count) {
  using C = HostCompute<T>;
  const C a = C(alpha);
  HostUnaryVec(
      dst, src, count, [a](C x) { return x < C(0) ? a * x : x; }, "LeakyRelu");
}
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, int32_t count) {
  T* d = HostVec(dst, count, "Duplicate");
  for (int32_t i = 0; i < count; ++i) d[i] = scalar;
}

// Compare / Select: bool bytes (0/1) here; the hardware writes and reads bit masks (docs).
enum class CMPMODE : uint8_t { LT, GT, EQ, LE, GE, NE };
template <typename C>
inline bool HostCmp(CMPMODE m, C a, C b) {
  switch (m) {
    case CMPMODE::LT:
      return a < b;
    case CMPMODE::GT:
      return a > b;
    case CMPMODE::EQ:
      return a == b;
    case CMPMODE::LE:
      return a <= b;
    case CMPMODE::GE:
      return a >= b;
    case CMPMODE::NE:
      return !(a == b);
  }
  return false;
}
template <typename T>
inline void Compare(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& a,
                    const LocalTensor<T>& b, CMPMODE mode, int32_t count) {
  using C = HostCompute<T>;
  uint8_t* d = HostVec(dst, count, "Compare");
  const T* x = HostVec(a, count, "Compare");
  const T* y = HostVec(b, count, "Compare");
  for (int32_t i = 0; i < count; ++i) d[i] = HostCmp<C>(mode, C(x[i]), C(y[i])) ? 1 : 0;
}
template <typename T>
inline void CompareScalar(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& a, const T& b,
                          CMPMODE mode, int32_t count) {
  using C = HostCompute<T>;
  uint8_t* d = HostVec(dst, count, "CompareScalar");
  const T* x = HostVec(a, count, "CompareScalar");
  for (int32_t i = 0; i < count; ++i) d[i] = HostCmp<C>(mode, C(x[i]), C(b)) ? 1 : 0;
}
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
template <typename T>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& cond,
                   const LocalTensor<T>& a, const LocalTensor<T>& b, SELMODE, int32_t count) {
  T* d = HostVec(dst, count, "Select");
  const uint8_t* c = HostVec(cond, count, "Select");
  const T* x = HostVec(a, count, "Select");
  const T* y = HostVec(b, count, "Select");
  for (int32_t i = 0; i < count; ++i) d[i] = c[i] ? x[i] : y[i];
}

// Cast: float -> integer truncates (CAST_TRUNC) and saturates, NaN -> 0; to a float rounds to
// nearest even (CAST_RINT); integer -> integer wraps (CAST_NONE).
enum class RoundMode : uint8_t {
  CAST_NONE,
  CAST_RINT,
  CAST_FLOOR,
  CAST_CEIL,
  CAST_ROUND,
  CAST_TRUNC
};
template <typename D, typename S>
inline D HostCastElem(S s, RoundMode) {
  using CS = HostCompute<S>;
  using CD = HostCompute<D>;
  const CS v = static_cast<CS>(s);
  if constexpr (std::is_floating_point_v<CD>) {
    if constexpr (std::is_same_v<CD, float> && std::is_same_v<CS, double>) {
      return static_cast<D>(static_cast<float>(v));
    } else if constexpr (std::is_same_v<CD, float> && std::is_same_v<CS, int64_t>) {
      return static_cast<D>(static_cast<float>(static_cast<double>(v)));
    } else {
      return static_cast<D>(static_cast<CD>(v));
    }
  } else if constexpr (std::is_floating_point_v<CS>) {
    if (v != v) return D(0);
    const double t = std::trunc(static_cast<double>(v));
    if (t <= static_cast<double>(std::numeric_limits<D>::lowest()))
      return std::numeric_limits<D>::lowest();
    if (t >= static_cast<double>(std::numeric_limits<D>::max()))
      return std::numeric_limits<D>::max();
    return static_cast<D>(t);
  } else {
    return static_cast<D>(v);
  }
}
template <typename D, typename S>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode,
                 int32_t count) {
  D* d = HostVec(dst, count, "Cast");
  const S* x = HostVec(src, count, "Cast");
  for (int32_t i = 0; i < count; ++i) d[i] = HostCastElem<D, S>(x[i], mode);
}

// dst[0] = reduce over src[0, count); sums accumulate in double here.
template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, 1, "ReduceSum");
  const T* x = HostVec(src, count, "ReduceSum");
  HostCheck(work.GetSize() > 0, "ReduceSum", "empty work tensor");
  if constexpr (std::is_floating_point_v<C>) {
    double acc = 0;
    for (int32_t i = 0; i < count; ++i) acc += static_cast<double>(C(x[i]));
    d[0] = static_cast<T>(static_cast<C>(acc));
  } else {
    uint64_t acc = 0;
    for (int32_t i = 0; i < count; ++i) acc += static_cast<uint64_t>(x[i]);
    d[0] = HostWrap<T>(acc);
  }
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count, bool calIndex = false) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, 1, "ReduceMax");
  const T* x = HostVec(src, count, "ReduceMax");
  HostCheck(work.GetSize() > 0 && !calIndex, "ReduceMax", "empty work tensor or calIndex");
  C acc = C(x[0]);
  for (int32_t i = 1; i < count; ++i) acc = HostNanMax(acc, C(x[i]));
  d[0] = static_cast<T>(acc);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count, bool calIndex = false) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, 1, "ReduceMin");
  const T* x = HostVec(src, count, "ReduceMin");
  HostCheck(work.GetSize() > 0 && !calIndex, "ReduceMin", "empty work tensor or calIndex");
  C acc = C(x[0]);
  for (int32_t i = 1; i < count; ++i) acc = HostNanMin(acc, C(x[i]));
  d[0] = static_cast<T>(acc);
}

}  // namespace AscendC

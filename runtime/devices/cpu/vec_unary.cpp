// vec_unary: y = op(x; alpha, beta). f32/f64 run Highway SIMD loops (runtime dispatch) with the
// transcendentals from hwy/contrib/math; f16/bf16 widen to f32 in chunks; integers and bool are
// scalar loops (simple enough for the compiler to vectorise).
#include <cmath>
#include <cstring>

#include "runtime/devices/cpu/vec.h"
#include "runtime/devices/cpu/vec_internal.h"

// foreach_target.h must precede the other Highway headers.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/devices/cpu/vec_unary.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
#include "runtime/devices/cpu/vec_unary-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace asc::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = op(d, x[i]): four vectors per iteration, then single vectors, then the tail through a
// zero-padded stack vector (x and y may be the same buffer).
template <class D, class Op>
HWY_INLINE void Map1(D d, const hn::TFromD<D>* HWY_RESTRICT x, hn::TFromD<D>* y, size_t n,
                     const Op& op) {
  using T = hn::TFromD<D>;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto v0 = op(d, hn::LoadU(d, x + i));
    const auto v1 = op(d, hn::LoadU(d, x + i + N));
    const auto v2 = op(d, hn::LoadU(d, x + i + 2 * N));
    const auto v3 = op(d, hn::LoadU(d, x + i + 3 * N));
    hn::StoreU(v0, d, y + i);
    hn::StoreU(v1, d, y + i + N);
    hn::StoreU(v2, d, y + i + 2 * N);
    hn::StoreU(v3, d, y + i + 3 * N);
  }
  for (; i + N <= n; i += N) hn::StoreU(op(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(T));
    hn::Store(op(d, hn::Load(d, buf)), d, buf);
    std::memcpy(y + i, buf, (n - i) * sizeof(T));
  }
}

// Returns false when (op, T) has no SIMD kernel here; the caller then runs a scalar loop.
template <class T>
HWY_INLINE bool UnaryFloat(uint8_t op_id, const T* x, T* y, size_t n, float alpha, float beta) {
  const hn::ScalableTag<T> d;
  const P p{alpha, beta};
  switch (static_cast<UnaryOp>(op_id)) {
    case UnaryOp::kNeg:
      Map1(d, x, y, n, OpNeg{p});
      return true;
    case UnaryOp::kAbs:
      Map1(d, x, y, n, OpAbs{p});
      return true;
    case UnaryOp::kRelu:
      Map1(d, x, y, n, OpRelu{p});
      return true;
    case UnaryOp::kSigmoid:
      Map1(d, x, y, n, OpSigmoid{p});
      return true;
    case UnaryOp::kTanh:
      Map1(d, x, y, n, OpTanh{p});
      return true;
    case UnaryOp::kExp:
      Map1(d, x, y, n, OpExp{p});
      return true;
    case UnaryOp::kLog:
      Map1(d, x, y, n, OpLog{p});
      return true;
    case UnaryOp::kSqrt:
      Map1(d, x, y, n, OpSqrt{p});
      return true;
    case UnaryOp::kRsqrt:
      Map1(d, x, y, n, OpRsqrt{p});
      return true;
    case UnaryOp::kReciprocal:
      Map1(d, x, y, n, OpReciprocal{p});
      return true;
    case UnaryOp::kErf:
      if constexpr (sizeof(T) != 4) {
        return false;
      } else {
        Map1(d, x, y, n, OpErf{p});
        return true;
      }
    case UnaryOp::kSin:
      Map1(d, x, y, n, OpSin{p});
      return true;
    case UnaryOp::kCos:
      Map1(d, x, y, n, OpCos{p});
      return true;
    case UnaryOp::kFloor:
      Map1(d, x, y, n, OpFloor{p});
      return true;
    case UnaryOp::kCeil:
      Map1(d, x, y, n, OpCeil{p});
      return true;
    case UnaryOp::kRound:
      Map1(d, x, y, n, OpRound{p});
      return true;
    case UnaryOp::kSign:
      Map1(d, x, y, n, OpSign{p});
      return true;
    case UnaryOp::kSquare:
      Map1(d, x, y, n, OpSquare{p});
      return true;
    case UnaryOp::kSilu:
      Map1(d, x, y, n, OpSilu{p});
      return true;
    case UnaryOp::kLeakyRelu:
      Map1(d, x, y, n, OpLeakyRelu{p});
      return true;
    case UnaryOp::kClip:
      Map1(d, x, y, n, OpClip{p});
      return true;
    case UnaryOp::kAffine:
      Map1(d, x, y, n, OpAffine{p});
      return true;
    case UnaryOp::kPowScalar:
      // The exponents models use; others take the scalar std::pow path.
      if (alpha == 0.f)
        Map1(d, x, y, n, OpOne{p});
      else if (alpha == 1.f)
        Map1(d, x, y, n, OpAffine{P{1.f, 0.f}});
      else if (alpha == 2.f)
        Map1(d, x, y, n, OpSquare{p});
      else if (alpha == 3.f)
        Map1(d, x, y, n, OpCube{p});
      else if (alpha == 0.5f)
        Map1(d, x, y, n, OpPowHalf{p});
      else if (alpha == -0.5f)
        Map1(d, x, y, n, OpPowMinusHalf{p});
      else if (alpha == -1.f)
        Map1(d, x, y, n, OpReciprocal{p});
      else if (alpha == -2.f)
        Map1(d, x, y, n, OpPowMinusTwo{p});
      else
        return false;
      return true;
    default:
      return false;
  }
}

bool UnaryF32(uint8_t op, const float* x, float* y, size_t n, float alpha, float beta) {
  return UnaryFloat<float>(op, x, y, n, alpha, beta);
}
bool UnaryF64(uint8_t op, const double* x, double* y, size_t n, float alpha, float beta) {
  return UnaryFloat<double>(op, x, y, n, alpha, beta);
}

}  // namespace asc::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::cpu {

HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);

namespace {

// Scalar fallbacks for floats: ops/exponents without a SIMD kernel (f64 erf, general pow).
template <class T>
bool unary_float_scalar(UnaryOp op, const T* x, T* y, size_t n, float alpha) {
  if (op == UnaryOp::kErf) {
    for (size_t i = 0; i < n; ++i) y[i] = std::erf(x[i]);
    return true;
  }
  if (op == UnaryOp::kPowScalar) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<T>(std::pow(double(x[i]), double(alpha)));
    return true;
  }
  return false;
}

bool unary_f32(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta) {
  if (HWY_DYNAMIC_DISPATCH(UnaryF32)(static_cast<uint8_t>(op), x, y, n, alpha, beta)) return true;
  return unary_float_scalar(op, x, y, n, alpha);
}

// f16/bf16: widen a chunk to f32, run the f32 kernel in place, round back.
bool unary_half(UnaryOp op, DType t, const void* x, void* y, size_t n, float alpha, float beta) {
  constexpr size_t kChunk = 1024;
  float buf[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    vec_cast(t, DType::kF32, static_cast<const uint16_t*>(x) + i, buf, static_cast<int64_t>(m));
    if (!unary_f32(op, buf, buf, m, alpha, beta)) return false;
    vec_cast(DType::kF32, t, buf, static_cast<uint16_t*>(y) + i, static_cast<int64_t>(m));
  }
  return true;
}

// Integers: wrapping arithmetic in the unsigned type of at least 32 bits; kClip bounds round
// inwards (ceil(alpha), floor(beta)) and saturate; kAffine with integral alpha/beta is exact
// wrapping integer arithmetic, otherwise computed in double, truncated and saturated.
template <class T>
bool unary_int(UnaryOp op, const T* x, T* y, size_t n, float alpha, float beta) {
  using W = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
  switch (op) {
    case UnaryOp::kNeg:
      for (size_t i = 0; i < n; ++i) y[i] = static_cast<T>(W(0) - static_cast<W>(x[i]));
      return true;
    case UnaryOp::kAbs:
      for (size_t i = 0; i < n; ++i)
        y[i] = x[i] < T(0) ? static_cast<T>(W(0) - static_cast<W>(x[i])) : x[i];
      return true;
    case UnaryOp::kRelu:
      for (size_t i = 0; i < n; ++i) y[i] = x[i] < T(0) ? T(0) : x[i];
      return true;
    case UnaryOp::kSign:
      for (size_t i = 0; i < n; ++i) y[i] = static_cast<T>((x[i] > T(0)) - (x[i] < T(0)));
      return true;
    case UnaryOp::kSquare:
      for (size_t i = 0; i < n; ++i)
        y[i] = static_cast<T>(static_cast<W>(x[i]) * static_cast<W>(x[i]));
      return true;
    case UnaryOp::kClip: {
      const T lo = detail::sat_int<T>(std::ceil(static_cast<double>(alpha)));
      const T hi = detail::sat_int<T>(std::floor(static_cast<double>(beta)));
      for (size_t i = 0; i < n; ++i) y[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
      return true;
    }
    case UnaryOp::kAffine: {
      const double a = alpha, b = beta;
      if (a == std::floor(a) && b == std::floor(b) && std::abs(a) < 9.2e18 &&
          std::abs(b) < 9.2e18) {
        const W wa = static_cast<W>(static_cast<int64_t>(a));
        const W wb = static_cast<W>(static_cast<int64_t>(b));
        for (size_t i = 0; i < n; ++i) y[i] = static_cast<T>(wa * static_cast<W>(x[i]) + wb);
      } else {
        for (size_t i = 0; i < n; ++i) y[i] = detail::sat_int<T>(a * static_cast<double>(x[i]) + b);
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

void vec_unary(UnaryOp op, DType t, const void* x, void* y, int64_t n, float alpha, float beta) {
  const size_t un = n > 0 ? static_cast<size_t>(n) : 0;
  bool ok = false;
  if (op == UnaryOp::kCopy && dtype_size(t) != 0) {
    if (un && x != y) std::memmove(y, x, un * dtype_size(t));
    ok = true;
  } else if (t == DType::kBool) {
    if (op == UnaryOp::kNot) {
      const auto* xb = static_cast<const uint8_t*>(x);
      auto* yb = static_cast<uint8_t*>(y);
      for (size_t i = 0; i < un; ++i) yb[i] = xb[i] == 0;
      ok = true;
    }
  } else if (op == UnaryOp::kNot) {
    ok = false;
  } else if (t == DType::kF32) {
    ok = unary_f32(op, static_cast<const float*>(x), static_cast<float*>(y), un, alpha, beta);
  } else if (t == DType::kF64) {
    const auto* xd = static_cast<const double*>(x);
    auto* yd = static_cast<double*>(y);
    ok = HWY_DYNAMIC_DISPATCH(UnaryF64)(static_cast<uint8_t>(op), xd, yd, un, alpha, beta) ||
         unary_float_scalar(op, xd, yd, un, alpha);
  } else if (t == DType::kF16 || t == DType::kBF16) {
    ok = unary_half(op, t, x, y, un, alpha, beta);
  } else {
    detail::dispatch_int(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      ok = unary_int<T>(op, static_cast<const T*>(x), static_cast<T*>(y), un, alpha, beta);
    });
  }
  if (!ok) detail::vec_unsupported("vec_unary", op_name(op), t);
}

}  // namespace asc::cpu
#endif  // HWY_ONCE

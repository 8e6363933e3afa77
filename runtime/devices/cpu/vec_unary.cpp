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

template <class V>
HWY_INLINE auto IsNan(V v) {
  return hn::IsNaN(v);  // not Ne(v, v): Highway's Ne is an ordered compare on AVX2/AVX-512
}

// exp with the IEEE edge cases Highway leaves out of its valid range: overflow -> +inf, NaN -> NaN.
template <class D, class V>
HWY_INLINE V ExpFull(D d, V v) {
  using T = hn::TFromD<D>;
  const T kMax = sizeof(T) == 4 ? T(88.72283) : T(709.782712893384);  // ln(largest finite)
  const V r = hn::Exp(d, hn::Min(v, hn::Set(d, kMax)));
  const V big = hn::IfThenElse(hn::Gt(v, hn::Set(d, kMax)), hn::Inf(d), r);
  return hn::IfThenElse(IsNan(v), v, big);
}

// log with log(0) = -inf, log(x < 0) = NaN, log(inf) = inf (Highway's range is (0, max]).
template <class D, class V>
HWY_INLINE V LogFull(D d, V v) {
  const V r = hn::Log(d, hn::Max(v, hn::Set(d, std::numeric_limits<hn::TFromD<D>>::min())));
  V out = hn::IfThenElse(hn::Eq(v, hn::Zero(d)), hn::Neg(hn::Inf(d)), r);
  out = hn::IfThenElse(hn::Eq(v, hn::Inf(d)), v, out);
  return hn::IfThenElse(hn::Or(hn::Lt(v, hn::Zero(d)), IsNan(v)), hn::NaN(d), out);
}

// erf for f32, max error ~2e-7 relative:
//  |x| < 1: erf(x) = x * sum_k c_k x^(2k), the Maclaurin series c_k = 2/sqrt(pi) (-1)^k /
//           (k! (2k + 1)) cut after k = 10 (truncation error < 2e-9 at |x| = 1);
//  |x| >= 1: erf(x) = sign(x) (1 - exp(-x^2) h(|x|)), h(t) = erfc(t) exp(t^2) as a degree-11
//           Chebyshev series in u = (2t - 5) / 3 on t in [1, 4] (Chebyshev interpolation at 12
//           nodes computed in long double with erfcl/expl; max relative error of h 1.9e-7 in f32).
//           t is clamped at 4, where 1 - erfc(4) already rounds to 1 in f32.
//  exp(-x^2) uses x^2 = hi + lo (FMA residual) so the rounding of x^2 does not cost accuracy.
template <class D, class V>
HWY_INLINE V ErfF32(D d, V x) {
  static constexpr float kTaylor[11] = {1.1283791671e+00f,  -3.7612638903e-01f, 1.1283791671e-01f,
                                        -2.6866170645e-02f, 5.2239776254e-03f,  -8.5483270234e-04f,
                                        1.2055332982e-04f,  -1.4925650358e-05f, 1.6462114365e-06f,
                                        -1.6365844691e-07f, 1.4807192815e-08f};
  static constexpr float kCheb[12] = {2.444257528e-01f,  -1.358986289e-01f, 3.563511415e-02f,
                                      -8.884098618e-03f, 2.118423998e-03f,  -4.853987640e-04f,
                                      1.072737543e-04f,  -2.293663335e-05f, 4.756867990e-06f,
                                      -9.589556037e-07f, 1.880687538e-07f,  -3.482829958e-08f};
  const V ax = hn::Abs(x);
  const V s = hn::Mul(x, x);
  V p = hn::Set(d, kTaylor[10]);
  for (int k = 9; k >= 0; --k) p = hn::MulAdd(p, s, hn::Set(d, kTaylor[k]));
  const V small = hn::Mul(x, p);

  const V t = hn::Min(hn::Max(ax, hn::Set(d, 1.0f)), hn::Set(d, 4.0f));
  const V u = hn::MulAdd(t, hn::Set(d, 2.0f / 3.0f), hn::Set(d, -5.0f / 3.0f));
  const V u2 = hn::Add(u, u);
  V b1 = hn::Zero(d), b2 = hn::Zero(d);
  for (int k = 11; k >= 1; --k) {
    const V b0 = hn::Sub(hn::MulAdd(u2, b1, hn::Set(d, kCheb[k])), b2);
    b2 = b1;
    b1 = b0;
  }
  const V h = hn::Sub(hn::MulAdd(u, b1, hn::Set(d, kCheb[0])), b2);
  const V hi = hn::Mul(t, t);
  const V lo = hn::MulSub(t, t, hi);
  const V e =
      hn::Mul(hn::Exp(d, hn::Neg(hi)), hn::NegMulAdd(lo, hn::Set(d, 1.0f), hn::Set(d, 1.0f)));
  const V big = hn::CopySign(hn::NegMulAdd(e, h, hn::Set(d, 1.0f)), x);
  const V r = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 1.0f)), small, big);
  return hn::IfThenElse(IsNan(x), x, r);
}

// One functor per op; alpha/beta are the op's scalar parameters.
struct P {
  float alpha, beta;
};
#define ASC_UNARY_OP(NAME, EXPR)              \
  struct NAME {                               \
    P p;                                      \
    template <class D, class V>               \
    HWY_INLINE V operator()(D d, V v) const { \
      using T = hn::TFromD<D>;                \
      (void)d;                                \
      (void)v;                                \
      (void)sizeof(T);                        \
      return EXPR;                            \
    }                                         \
  };

ASC_UNARY_OP(OpNeg, hn::Neg(v))
ASC_UNARY_OP(OpAbs, hn::Abs(v))
ASC_UNARY_OP(OpRelu, hn::IfThenZeroElse(hn::Lt(v, hn::Zero(d)), v))
ASC_UNARY_OP(OpSigmoid,
             hn::Div(hn::Set(d, T(1)), hn::Add(hn::Set(d, T(1)), ExpFull(d, hn::Neg(v)))))
ASC_UNARY_OP(OpTanh, hn::IfThenElse(IsNan(v), v, hn::Tanh(d, v)))
ASC_UNARY_OP(OpExp, ExpFull(d, v))
ASC_UNARY_OP(OpLog, LogFull(d, v))
ASC_UNARY_OP(OpSqrt, hn::Sqrt(v))
ASC_UNARY_OP(OpRsqrt, hn::Div(hn::Set(d, T(1)), hn::Sqrt(v)))
ASC_UNARY_OP(OpReciprocal, hn::Div(hn::Set(d, T(1)), v))
ASC_UNARY_OP(OpErf, ErfF32(d, v))
ASC_UNARY_OP(OpSin, hn::Sin(d, v))
ASC_UNARY_OP(OpCos, hn::Cos(d, v))
ASC_UNARY_OP(OpFloor, hn::Floor(v))
ASC_UNARY_OP(OpCeil, hn::Ceil(v))
ASC_UNARY_OP(OpRound, hn::Round(v))
ASC_UNARY_OP(OpSign, hn::IfThenElse(hn::Gt(v, hn::Zero(d)), hn::Set(d, T(1)),
                                    hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Set(d, T(-1)), v)))
ASC_UNARY_OP(OpSquare, hn::Mul(v, v))
// x / (1 + exp(-x)); silu(-inf) = -0 rather than -inf / inf.
ASC_UNARY_OP(OpSilu, hn::IfThenElse(hn::Eq(v, hn::Neg(hn::Inf(d))), hn::Set(d, T(-0.0)),
                                    hn::Div(v, hn::Add(hn::Set(d, T(1)), ExpFull(d, hn::Neg(v))))))
ASC_UNARY_OP(OpLeakyRelu,
             hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Mul(hn::Set(d, T(p.alpha)), v), v))
ASC_UNARY_OP(OpClip, hn::IfThenElse(hn::Gt(v, hn::Set(d, T(p.beta))), hn::Set(d, T(p.beta)),
                                    hn::IfThenElse(hn::Lt(v, hn::Set(d, T(p.alpha))),
                                                   hn::Set(d, T(p.alpha)), v)))
ASC_UNARY_OP(OpAffine, hn::MulAdd(hn::Set(d, T(p.alpha)), v, hn::Set(d, T(p.beta))))
ASC_UNARY_OP(OpOne, hn::Set(d, T(1)))
ASC_UNARY_OP(OpCube, hn::Mul(hn::Mul(v, v), v))
// pow(x, 0.5): sqrt with pow's pow(-0, .5) = +0 and pow(-inf, .5) = +inf.
ASC_UNARY_OP(OpPowHalf,
             hn::IfThenElse(hn::Eq(v, hn::Neg(hn::Inf(d))), hn::Inf(d), hn::Abs(hn::Sqrt(v))))
ASC_UNARY_OP(OpPowMinusHalf, hn::Div(hn::Set(d, T(1)), hn::Sqrt(v)))
ASC_UNARY_OP(OpPowMinusTwo, hn::Div(hn::Set(d, T(1)), hn::Mul(v, v)))
#undef ASC_UNARY_OP

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

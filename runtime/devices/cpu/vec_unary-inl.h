// The per-vector unary ops of the cpu device's vector unit (vec_unary.cpp's loops, and the fused
// chains of vec_chain.cpp): one functor per UnaryOp over a Highway vector, with the IEEE edge
// cases Highway's math leaves out. Included once per Highway target (the per-target include guard
// below), inside the files' foreach_target passes.
#if defined(ASC_CPU_VEC_UNARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ASC_CPU_VEC_UNARY_INL_H_
#undef ASC_CPU_VEC_UNARY_INL_H_
#else
#define ASC_CPU_VEC_UNARY_INL_H_
#endif

#include <limits>
#include <type_traits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace asc::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

// erf's Maclaurin series x sum_k c_k x^(2k), c_k = 2/sqrt(pi) (-1)^k / (k! (2k + 1)), k <= 10.
inline constexpr float kErfTaylor[11] = {1.1283791671e+00f,  -3.7612638903e-01f, 1.1283791671e-01f,
                                         -2.6866170645e-02f, 5.2239776254e-03f,  -8.5483270234e-04f,
                                         1.2055332982e-04f,  -1.4925650358e-05f, 1.6462114365e-06f,
                                         -1.6365844691e-07f, 1.4807192815e-08f};

#if HWY_TARGET <= HWY_AVX3
// e^-a for a >= 0 over a full f32 zmm (a NaN stays NaN): 2^n e^-r with n = round(-a log2 e) and
// r = a + n ln 2 in [-ln2/2, ln2/2] (ln 2 in two parts), e^-r by its degree-7 Taylor polynomial,
// 2^n by vscalefps (0 past 2^-149). Callers cap a where the result is 0 anyway.
HWY_INLINE __m512 ExpNegAvx512(__m512 a) {
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(a, _mm512_set1_ps(-1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(0.693359375f), a);  // ln 2's high part: 9 bits
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(-1.0f / 5040);  // e^-r = sum (-r)^i / i!, i <= 7
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(-1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(-1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(-1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

// 1 / d for d in [1, 2]: rcp14 and one Newton step (relative error ~2^-28; no special case).
HWY_INLINE __m512 RecipNearOneAvx512(__m512 d) {
  const __m512 r0 = _mm512_rcp14_ps(d);
  return _mm512_mul_ps(r0, _mm512_fnmadd_ps(d, r0, _mm512_set1_ps(2.0f)));
}

// sigmoid over a full f32 zmm in half the vector ops of the division form (which made the SiLU
// epilogues of efficientnet's convolutions port-bound): e = e^-|x|, 1 / (1 + e), and e / (1 + e)
// for x < 0. |x| is capped at 105 (e = 0 there) by a min that keeps a NaN, so NaN propagates.
HWY_INLINE __m512 SigmoidAvx512(__m512 x) {
  const __m512 e = ExpNegAvx512(_mm512_min_ps(_mm512_set1_ps(105.0f), _mm512_abs_ps(x)));
  const __m512 inv = RecipNearOneAvx512(_mm512_add_ps(_mm512_set1_ps(1.0f), e));
  return _mm512_mask_mul_ps(inv, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), e, inv);
}

// erf over a full f32 zmm in half the vector ops of ErfF32 (GELU epilogues were port-bound):
// |x| < 1/2: x P(x^2), the Maclaurin series to x^13 (truncation < 3e-8 relative); beyond,
// 1 - t Q(t) e^-x^2 with t = 1 / (1 + p |x|) (Abramowitz and Stegun 7.1.26: absolute error
// <= 1.5e-7, so <= 3e-7 relative where erf >= erf(1/2)), |x| capped at 10 (erf = 1 there) by a
// min that keeps a NaN; the sign restored.
HWY_INLINE __m512 ErfAvx512(__m512 x) {
  const __m512 ax = _mm512_min_ps(_mm512_set1_ps(10.0f), _mm512_abs_ps(x));
  const __m512 s = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(kErfTaylor[6]);
  for (int k = 5; k >= 0; --k) p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(kErfTaylor[k]));
  const __m512 small = _mm512_mul_ps(x, p);
  const __m512 t =
      RecipNearOneAvx512(_mm512_fmadd_ps(ax, _mm512_set1_ps(0.3275911f), _mm512_set1_ps(1.0f)));
  __m512 q = _mm512_set1_ps(1.061405429f);
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(-1.453152027f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(1.421413741f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(-0.284496736f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(0.254829592f));
  q = _mm512_mul_ps(q, t);
  const __m512 big = _mm512_fnmadd_ps(q, ExpNegAvx512(_mm512_mul_ps(ax, ax)), _mm512_set1_ps(1.0f));
  const __m512 sign = _mm512_and_ps(x, _mm512_set1_ps(-0.0f));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.5f), _CMP_LT_OQ),
                              _mm512_or_ps(big, sign), small);
}
#endif

// 1 / (1 + exp(-x)).
template <class D, class V>
HWY_INLINE V SigmoidOf(D d, V v) {
  using T = hn::TFromD<D>;
#if HWY_TARGET <= HWY_AVX3
  if constexpr (std::is_same_v<decltype(v.raw), __m512>) return V{SigmoidAvx512(v.raw)};
#endif
  return hn::Div(hn::Set(d, T(1)), hn::Add(hn::Set(d, T(1)), ExpFull(d, hn::Neg(v))));
}

// x sigmoid(x); silu(-inf) = -0 rather than -inf x 0.
template <class D, class V>
HWY_INLINE V SiluOf(D d, V v) {
  using T = hn::TFromD<D>;
#if HWY_TARGET <= HWY_AVX3
  if constexpr (std::is_same_v<decltype(v.raw), __m512>) {
    // max(-FLT_MAX, x) keeps a NaN (vmaxps returns its second operand) and turns -inf into a
    // finite value whose product with sigmoid(-inf) = 0 is -0.
    const __m512 x = _mm512_max_ps(_mm512_set1_ps(-std::numeric_limits<float>::max()), v.raw);
    return V{_mm512_mul_ps(x, SigmoidAvx512(v.raw))};
  }
#endif
  return hn::IfThenElse(hn::Eq(v, hn::Neg(hn::Inf(d))), hn::Set(d, T(-0.0)),
                        hn::Div(v, hn::Add(hn::Set(d, T(1)), ExpFull(d, hn::Neg(v)))));
}

// log with log(0) = -inf, log(x < 0) = NaN, log(inf) = inf (Highway's range is (0, max]).
template <class D, class V>
HWY_INLINE V LogFull(D d, V v) {
  const V r = hn::Log(d, hn::Max(v, hn::Set(d, std::numeric_limits<hn::TFromD<D>>::min())));
  V out = hn::IfThenElse(hn::Eq(v, hn::Zero(d)), hn::Neg(hn::Inf(d)), r);
  out = hn::IfThenElse(hn::Eq(v, hn::Inf(d)), v, out);
  return hn::IfThenElse(hn::Or(hn::Lt(v, hn::Zero(d)), IsNan(v)), hn::NaN(d), out);
}

// erf for f32 (a full AVX-512 vector takes ErfAvx512 instead), max error ~2e-7 relative:
//  |x| < 1: erf(x) = x * sum_k c_k x^(2k), the Maclaurin series c_k = 2/sqrt(pi) (-1)^k /
//           (k! (2k + 1)) cut after k = 10 (truncation error < 2e-9 at |x| = 1);
//  |x| >= 1: erf(x) = sign(x) (1 - exp(-x^2) h(|x|)), h(t) = erfc(t) exp(t^2) as a degree-11
//           Chebyshev series in u = (2t - 5) / 3 on t in [1, 4] (Chebyshev interpolation at 12
//           nodes computed in long double with erfcl/expl; max relative error of h 1.9e-7 in f32).
//           t is clamped at 4, where 1 - erfc(4) already rounds to 1 in f32.
//  exp(-x^2) uses x^2 = hi + lo (FMA residual) so the rounding of x^2 does not cost accuracy.
template <class D, class V>
HWY_INLINE V ErfF32(D d, V x) {
#if HWY_TARGET <= HWY_AVX3
  if constexpr (std::is_same_v<decltype(x.raw), __m512>) return V{ErfAvx512(x.raw)};
#endif
  static constexpr float kCheb[12] = {2.444257528e-01f,  -1.358986289e-01f, 3.563511415e-02f,
                                      -8.884098618e-03f, 2.118423998e-03f,  -4.853987640e-04f,
                                      1.072737543e-04f,  -2.293663335e-05f, 4.756867990e-06f,
                                      -9.589556037e-07f, 1.880687538e-07f,  -3.482829958e-08f};
  const V ax = hn::Abs(x);
  const V s = hn::Mul(x, x);
  V p = hn::Set(d, kErfTaylor[10]);
  for (int k = 9; k >= 0; --k) p = hn::MulAdd(p, s, hn::Set(d, kErfTaylor[k]));
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
ASC_UNARY_OP(OpSigmoid, SigmoidOf(d, v))
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
ASC_UNARY_OP(OpSilu, SiluOf(d, v))
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

}  // namespace asc::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard

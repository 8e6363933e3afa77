// Trigonometric and hyperbolic functions the vector unit has no instruction for, composed from
// the ones it has (sin, cos, exp, log, sqrt, select, arithmetic). Tiles compute in f32 (f16
// storage widens) or f64; each composition keeps the relative error within a few ulp of the
// compute type over the whole domain, edge cases (0, ±1, ±inf, NaN) included:
//
//   tan   = sin / cos
//   atan  = odd; |x| > 1 -> pi/2 - atan(1/|x|); then t > tan(pi/8) -> pi/4 + atan((t-1)/(t+1));
//           then |u| <= tan(pi/8): u + u z P(z), z = u^2
//   asin  = atan(x / sqrt((1-x)(1+x)))            acos = 2 atan(sqrt((1-x)/(1+x)))
//   sinh  = |x| < 1: Taylor series; else sign(x) (h/2 h - 1/(2h) / h), h = exp(|x|/2)
//   cosh  = h/2 h + 1/(2h) / h                      (h squared late: no early overflow)
//   asinh = sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))), a = |x|; a > 2^30: log(a) + ln 2
//   acosh = log1p(d + sqrt(d) sqrt(d + 2)), d = x - 1;  x > 2^30: log(x) + ln 2
//   atanh = sign(x) log1p(2a / (1 - a)) / 2
//   log1p(v) = w == 1 ? v : log(w) v / (w - 1), w = 1 + v   (exact w - 1 cancels log's error)
#include <cmath>
#include <numbers>

#include "ops/elementwise.h"
#include "ops/ops.h"
#include "registry/tiling.h"

namespace asc {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kLn2 = std::numbers::ln2;
constexpr double kLarge = 1073741824.0;  // 2^30: beyond it asinh(a), acosh(a) = log(2a) in f64

bool is_f64(TileBuilder& t, Buf x) {
  return t.dtype(x) == DType::kF64;
}

// c[0] + c[1] z + ... + c[n-1] z^(n-1).
Buf horner(Buf z, std::span<const double> c) {
  Buf p = z * c.back();
  for (size_t k = c.size() - 1; k-- > 1;) p = (p + c[k]) * z;
  return p + c[0];
}

Buf sign(TileBuilder& t, Buf x) {
  return t.unary(UnaryOp::kSign, x);
}

Buf abs(TileBuilder& t, Buf x) {
  return t.unary(UnaryOp::kAbs, x);
}

// (atan(u) - u) / (u z), z = u^2, on z in [0, tan^2(pi/8)]: interpolation at Chebyshev nodes
// (mpmath, 50 digits); max relative error of atan 2.5e-9 (5 terms) and 3e-18 (12 terms).
constexpr double kAtanF32[] = {-0.3333333176116852, 0.19999540483648963, -0.14263955597984639,
                               0.10743731490791083, -0.064519282081217488};
constexpr double kAtanF64[] = {-0.33333333333333333,  0.19999999999999805,   -0.14285714285659828,
                               0.11111111105155447,   -0.090909087535008768, 0.076922963750321424,
                               -0.066664248857382553, 0.058789289978347751,  -0.052304542706502445,
                               0.045515932206265492,  -0.034570561981427747, 0.016285756855221028};

Buf atan_of(TileBuilder& t, Buf x) {
  const Buf a = abs(t, x);
  const Buf big = ew_cmp_const(t, CmpOp::kGt, a, 1.0);
  const Buf r = t.select(big, t.scalar(BinaryOp::kDiv, a, 1.0, true), a);  // in [0, 1]
  const Buf mid = ew_cmp_const(t, CmpOp::kGt, r, std::tan(kPi / 8));
  const Buf u = t.select(mid, (r - 1.0) / (r + 1.0), r);  // |u| <= tan(pi/8)
  const Buf z = u * u;
  Buf p = is_f64(t, x) ? horner(z, kAtanF64) : horner(z, kAtanF32);
  p = u + u * z * p;
  p = t.select(mid, p + kPi / 4, p);
  p = t.select(big, t.scalar(BinaryOp::kSub, p, kPi / 2, true), p);
  return p * sign(t, x);
}

Buf asin_of(TileBuilder& t, Buf x) {
  const Buf one_minus = t.scalar(BinaryOp::kSub, x, 1.0, true);
  return atan_of(t, x / sqrt(one_minus * (x + 1.0)));
}

Buf acos_of(TileBuilder& t, Buf x) {
  const Buf one_minus = t.scalar(BinaryOp::kSub, x, 1.0, true);
  return atan_of(t, sqrt(one_minus / (x + 1.0))) * 2.0;
}

Buf tan_of(TileBuilder& t, Buf x) {
  return t.unary(UnaryOp::kSin, x) / t.unary(UnaryOp::kCos, x);
}

// h/2 h and 1/(2h) / h with h = exp(|x| / 2): e^|x| / 2 and e^-|x| / 2 without overflow before
// the result does.
std::pair<Buf, Buf> half_exps(TileBuilder& t, Buf x) {
  const Buf h = exp(abs(t, x) * 0.5);
  return {(h * 0.5) * h, t.scalar(BinaryOp::kDiv, h, 0.5, true) / h};
}

Buf sinh_of(TileBuilder& t, Buf x) {
  // Taylor coefficients 1/3!, 1/5!, ...: the first omitted term is below 2e-10 (f32) and 4e-23
  // (f64) relative for |x| < 1.
  std::vector<double> c;
  double f = 1;
  for (int k = 1; k <= (is_f64(t, x) ? 10 : 5); ++k) {
    f *= (2 * k) * (2 * k + 1);
    c.push_back(1 / f);
  }
  const Buf z = x * x;
  const Buf series = x + x * z * horner(z, c);
  const auto [up, down] = half_exps(t, x);
  const Buf small = ew_cmp_const(t, CmpOp::kLt, abs(t, x), 1.0);
  return t.select(small, series, (up - down) * sign(t, x));
}

Buf cosh_of(TileBuilder& t, Buf x) {
  const auto [up, down] = half_exps(t, x);
  return up + down;
}

Buf log1p_of(TileBuilder& t, Buf v) {
  const Buf w = v + 1.0;
  Buf r = log(w) * (v / (w - 1.0));
  r = t.select(ew_cmp_const(t, CmpOp::kEq, w, 1.0), v, r);
  return t.select(ew_cmp_const(t, CmpOp::kEq, w, INFINITY), w, r);
}

Buf asinh_of(TileBuilder& t, Buf x) {
  const Buf a = abs(t, x);
  const Buf a2 = a * a;
  const Buf y = log1p_of(t, a + a2 / (sqrt(a2 + 1.0) + 1.0));
  const Buf large = ew_cmp_const(t, CmpOp::kGt, a, kLarge);
  return t.select(large, log(a) + kLn2, y) * sign(t, x);
}

Buf acosh_of(TileBuilder& t, Buf x) {
  const Buf d = x - 1.0;
  const Buf y = log1p_of(t, d + sqrt(d) * sqrt(d + 2.0));  // NaN for every x < 1
  const Buf large = ew_cmp_const(t, CmpOp::kGt, x, kLarge);
  return t.select(large, log(x) + kLn2, y);
}

Buf atanh_of(TileBuilder& t, Buf x) {
  const Buf a = abs(t, x);
  const Buf v = (a * 2.0) / t.scalar(BinaryOp::kSub, a, 1.0, true);
  return log1p_of(t, v) * 0.5 * sign(t, x);
}

struct MathOpInfo {
  const char* type;
  int since;
  Buf (*kernel)(TileBuilder&, Buf);
  double (*ref)(double);
  const char* doc;
};

const MathOpInfo kMath[] = {
    {"Tan", 7, tan_of, [](double x) { return std::tan(x); }, "y = tan(x)"},
    {"Asin", 7, asin_of, [](double x) { return std::asin(x); }, "y = asin(x)"},
    {"Acos", 7, acos_of, [](double x) { return std::acos(x); }, "y = acos(x)"},
    {"Atan", 7, atan_of, [](double x) { return std::atan(x); }, "y = atan(x)"},
    {"Sinh", 9, sinh_of, [](double x) { return std::sinh(x); }, "y = sinh(x)"},
    {"Cosh", 9, cosh_of, [](double x) { return std::cosh(x); }, "y = cosh(x)"},
    {"Asinh", 9, asinh_of, [](double x) { return std::asinh(x); }, "y = asinh(x)"},
    {"Acosh", 9, acosh_of, [](double x) { return std::acosh(x); }, "y = acosh(x)"},
    {"Atanh", 9, atanh_of, [](double x) { return std::atanh(x); }, "y = atanh(x)"},
};

}  // namespace

void register_elementwise_math(Registry& r) {
  // Opset 22 adds bf16 to each (ONNX's bf16 sweep); nothing else changed.
  for (const MathOpInfo& m : kMath) {
    for (const auto& [since, until] : {std::pair{m.since, 21}, std::pair{22, INT_MAX}}) {
      auto* kernel = m.kernel;
      auto* ref = m.ref;
      r.add(def_op(m.type, since, until)
                .input("input", "T")
                .output("output", "T")
                .type_constraint("T", ew_floats(since >= 22))
                .trait(kElementwise)
                .describe(m.doc)
                .infer(infer_unary)
                .tiling(elementwise_tiling)
                .kernel([kernel](TileBuilder& t) { ew_store(t, 0, kernel(t, ew_load(t, 0))); })
                .reference([ref](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
                  ref_elementwise(in, out[0], [ref](const double* v) { return ref(v[0]); });
                }));
    }
  }
}

}  // namespace asc

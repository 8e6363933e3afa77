// The advanced math and activation APIs in the forms asc's emitter calls (calCount, no
// sharedTmpBuffer: the framework's temp) and with a sharedTmpBuffer, on seeded inputs with
// signs, zeros, large and small magnitudes and the documented edge cases, against a double
// reference at a tolerance stated per call (float: a few ulps; half: its rounding, 2^-10).
#include "math_test_util.h"

namespace {

using mathtest::compare;
using mathtest::dbl;
using mathtest::kRel;
using mathtest::Ops;
using mathtest::run;
using mathtest::values;

constexpr uint32_t kN = 333;  // odd, not whole repeats

// Runs a unary call both ways (framework temp, then sharedTmpBuffer) and compares each with
// ref(x) within abs_tol + rel * |ref|.
template <typename T, typename Call>
void unary(const char* what, Call call, double (*ref)(double), const std::vector<T>& x,
           double abs_tol, double rel = kRel<T>) {
  const uint32_t n = static_cast<uint32_t>(x.size());
  for (bool with_tmp : {false, true}) {
    const std::vector<T> out = run<T>(x, x, n, [&](const Ops<T>& o) { call(o, with_tmp, n); });
    const std::string label = std::string(what) + (with_tmp ? " (sharedTmpBuffer)" : "");
    EXPECT_EQ(compare<T>(
                  label.c_str(), out, [&](uint32_t i) { return ref(dbl(x[i])); }, abs_tol, rel),
              0);
  }
}

// The same for a binary call against ref(a, b).
template <typename T, typename Call>
void binary(const char* what, Call call, double (*ref)(double, double), const std::vector<T>& a,
            const std::vector<T>& b, double abs_tol, double rel = kRel<T>) {
  const uint32_t n = static_cast<uint32_t>(a.size());
  for (bool with_tmp : {false, true}) {
    const std::vector<T> out = run<T>(a, b, n, [&](const Ops<T>& o) { call(o, with_tmp, n); });
    const std::string label = std::string(what) + (with_tmp ? " (sharedTmpBuffer)" : "");
    EXPECT_EQ(compare<T>(
                  label.c_str(), out, [&](uint32_t i) { return ref(dbl(a[i]), dbl(b[i])); },
                  abs_tol, rel),
              0);
  }
}

// A unary API called as the emitter does (no temp) or with the buffer.
#define ASCEMU_CALL1(NAME)                       \
  [](const auto& o, bool with_tmp, uint32_t n) { \
    if (with_tmp)                                \
      AscendC::NAME(o.d, o.a, o.tmp, n);         \
    else                                         \
      AscendC::NAME(o.d, o.a, n);                \
  }
#define ASCEMU_CALL2(NAME)                       \
  [](const auto& o, bool with_tmp, uint32_t n) { \
    if (with_tmp)                                \
      AscendC::NAME(o.d, o.a, o.b, o.tmp, n);    \
    else                                         \
      AscendC::NAME(o.d, o.a, o.b, n);           \
  }

double sign_ref(double x) {
  return x > 0 ? 1 : x < 0 ? -1 : 0;
}
double round_ref(double x) {
  return std::nearbyint(x);  // the default rounding: to nearest, halves to even
}
double sigmoid_ref(double x) {
  return 1 / (1 + std::exp(-x));
}
double silu_ref(double x) {
  return x / (1 + std::exp(-x));
}
double fmod_ref(double a, double b) {
  return std::fmod(a, b);
}
double pow_ref(double a, double b) {
  return std::pow(a, b);
}

template <typename T>
void unary_suite(uint32_t seed) {
  const double big = std::is_same_v<T, half> ? 60000 : 1e30, tiny = 1e-30;
  const double abs_tol = std::is_same_v<T, half> ? 1e-3 : 1e-6;
  unary<T>("Sign", ASCEMU_CALL1(Sign), sign_ref,
           values<T>(kN, seed, -100, 100, {0.0, -0.0, 1.0, -1.0, big, -big, tiny, -tiny}), 0, 0);
  // Sin/Cos: the A2 takes [-65504, 65504]; float's argument reduction error grows with |x|.
  const std::vector<T> angles =
      values<T>(kN, seed + 1, -50, 50, {0.0, -0.0, 3.14159265, 1e-5, 1e4});
  unary<T>(
      "Sin", ASCEMU_CALL1(Sin), [](double x) { return std::sin(x); }, angles, abs_tol);
  unary<T>(
      "Cos", ASCEMU_CALL1(Cos), [](double x) { return std::cos(x); }, angles, abs_tol);
  const std::vector<T> r =
      values<T>(kN, seed + 2, -1000, 1000,
                {2.5, -2.5, 0.5, -0.5, 1.5, 3.5, -3.4, 3.9, -3.9, 0.0, -0.0, 1023.5, big, -big});
  unary<T>(
      "Floor", ASCEMU_CALL1(Floor), [](double x) { return std::floor(x); }, r, 0, 0);
  unary<T>(
      "Ceil", ASCEMU_CALL1(Ceil), [](double x) { return std::ceil(x); }, r, 0, 0);
  unary<T>("Round", ASCEMU_CALL1(Round), round_ref, r, 0, 0);
  const std::vector<T> act = values<T>(kN, seed + 3, -20, 20, {0.0, -0.0, 1e-4, -1e-4, 80, -80});
  // float: the float formulas' few ulps; half: its rounding.
  const double frel = std::is_same_v<T, half> ? kRel<T> : 4e-6;
  unary<T>("Sigmoid", ASCEMU_CALL1(Sigmoid), sigmoid_ref, act, abs_tol * 1e-2, frel);
  unary<T>(
      "Tanh", ASCEMU_CALL1(Tanh), [](double x) { return std::tanh(x); }, act, abs_tol * 1e-2, frel);
  unary<T>(
      "Erf", ASCEMU_CALL1(Erf), [](double x) { return std::erf(x); }, act, abs_tol * 1e-2, frel);
  // Silu has the dataSize form only: run it both ways the same.
  unary<T>(
      "Silu", [](const auto& o, bool, uint32_t n) { AscendC::Silu(o.d, o.a, n); }, silu_ref, act,
      abs_tol * 1e-2, frel);
}

TEST(EmulatorVecMath, UnaryFloat) {
  unary_suite<float>(11);
}
TEST(EmulatorVecMath, UnaryHalf) {
  unary_suite<half>(12);
}

TEST(EmulatorVecMath, RoundIsHalfToEven) {
  const std::vector<float> x = {0.5f, 1.5f, 2.5f, -2.5f, -0.5f, 8388607.5f};
  const std::vector<float> out =
      run<float>(x, x, 6, [](const Ops<float>& o) { AscendC::Round(o.d, o.a, 6); });
  EXPECT_EQ(out, (std::vector<float>{0, 2, 2, -2, -0.0f, 8388608}));
  EXPECT_TRUE(std::signbit(out[4]));
}

template <typename T>
void fmod_suite(uint32_t seed) {
  const std::vector<double> sa = {2.0, -3.0, 5.0, 0.0, -0.0, 60000, -60000, 7.5, 1e-3};
  const std::vector<double> sb = {1.5, 1.1, 0.0, 3.0, 3.0, 7.0, 7.0, -2.0, 1e-4};
  std::vector<T> a = values<T>(kN, seed, -100, 100, sa), b = values<T>(kN, seed + 1, -10, 10, sb);
  binary<T>("Fmod", ASCEMU_CALL2(Fmod), fmod_ref, a, b, 0, kRel<T>);
}
TEST(EmulatorVecMath, FmodFloatAndHalf) {
  fmod_suite<float>(21);
  fmod_suite<half>(22);
  // The docs' examples: Fmod(2.0, 1.5) = 0.5, Fmod(-3.0, 1.1) = -0.8.
  const std::vector<float> a = {2.0f, -3.0f}, b = {1.5f, 1.1f};
  const std::vector<float> out =
      run<float>(a, b, 2, [](const Ops<float>& o) { AscendC::Fmod(o.d, o.a, o.b, 2); });
  EXPECT_FLOAT_EQ(out[0], 0.5f);
  EXPECT_NEAR(out[1], -0.8f, 1e-6);
}

template <typename T>
void power_suite(uint32_t seed, double hi_base, double hi_exp) {
  // half: its subnormals' spacing (2^-24) bounds tiny results' error.
  const double abs_tol = std::is_same_v<T, half> ? 6e-8 : 0;
  const std::vector<double> sa = {0.0, 0.0, -2.0, -2.0, 2.0, 1.0, -1.0, 0.5, 10.0};
  const std::vector<double> sb = {0.0, -1.0, 3.0, 0.5, -2.0, 100.0, 3.0, 0.0, -3.0};
  const std::vector<T> a = values<T>(kN, seed, -hi_base, hi_base, sa);
  const std::vector<T> b = values<T>(kN, seed + 1, -hi_exp, hi_exp, sb);
  binary<T>("Power tensor^tensor", ASCEMU_CALL2(Power), pow_ref, a, b, abs_tol, kRel<T>);
  const T e = T(2.5f), base = T(1.5f);
  // tensor^scalar and scalar^tensor, as the emitter calls them (and with the buffer).
  unary<T>(
      "Power tensor^scalar",
      [e](const auto& o, bool with_tmp, uint32_t n) {
        if (with_tmp)
          AscendC::Power(o.d, o.a, e, o.tmp, n);
        else
          AscendC::Power(o.d, o.a, e, n);
      },
      [](double x) { return std::pow(x, 2.5); }, a, abs_tol, kRel<T>);
  unary<T>(
      "Power scalar^tensor",
      [base](const auto& o, bool with_tmp, uint32_t n) {
        if (with_tmp)
          AscendC::Power(o.d, base, o.a, o.tmp, n);
        else
          AscendC::Power(o.d, base, o.a, n);
      },
      [](double x) { return std::pow(1.5, x); }, b, abs_tol, kRel<T>);
}
TEST(EmulatorVecMath, PowerFloatAndHalf) {
  power_suite<float>(31, 10, 5);
  power_suite<half>(32, 4, 3);  // |results| within half's range
}

int32_t int_pow_ref(int32_t b, int32_t e) {
  if (e < 0) return b == 1 ? 1 : b == -1 ? (e % 2 ? -1 : 1) : 0;
  int64_t r = 1;
  for (int32_t k = 0; k < e; ++k) r *= b;
  return static_cast<int32_t>(r);
}
TEST(EmulatorVecMath, PowerInt32) {
  const std::vector<int32_t> a = values<int32_t>(kN, 41, -9, 9, {0, 0, 2, -2, 1, -1, -1, 7, 3});
  const std::vector<int32_t> b = values<int32_t>(kN, 42, -3, 9, {0, 5, -1, 3, -7, -3, -4, 9, 0});
  for (int form = 0; form < 4; ++form) {
    const std::vector<int32_t> out = run<int32_t>(a, b, kN, [&](const Ops<int32_t>& o) {
      if (form == 0) AscendC::Power(o.d, o.a, o.b, kN);
      if (form == 1) AscendC::Power(o.d, o.a, o.b, o.tmp, kN);
      if (form == 2) AscendC::Power(o.d, o.a, int32_t{3}, kN);
      if (form == 3) AscendC::Power(o.d, int32_t{-2}, o.b, kN);
    });
    for (uint32_t i = 0; i < kN; ++i) {
      const int32_t want = form < 2    ? int_pow_ref(a[i], b[i])
                           : form == 2 ? int_pow_ref(a[i], 3)
                                       : int_pow_ref(-2, b[i]);
      ASSERT_EQ(out[i], want) << "form " << form << " element " << i;
    }
  }
}

template <typename T>
void xor_suite(uint32_t seed, double lo, double hi) {
  const std::vector<T> a = values<T>(kN, seed, lo, hi, {0, 3, hi, lo});
  const std::vector<T> b = values<T>(kN, seed + 1, lo, hi, {0, 5, hi, hi});
  for (bool with_tmp : {false, true}) {
    const std::vector<T> out = run<T>(a, b, kN, [&](const Ops<T>& o) {
      if (with_tmp)
        AscendC::Xor(o.d, o.a, o.b, o.tmp, kN);
      else
        AscendC::Xor(o.d, o.a, o.b, kN);
    });
    for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], static_cast<T>(a[i] ^ b[i])) << i;
    EXPECT_EQ(out[1], 6);  // the docs' 3 ^ 5
  }
}
TEST(EmulatorVecMath, XorInt16AndUint16) {
  xor_suite<int16_t>(51, -32768, 32767);
  xor_suite<uint16_t>(52, 0, 65535);
}

// The whole-tensor forms (no calCount) run over the operands' sizes (64 floats each here).
TEST(EmulatorVecMath, WholeTensorForms) {
  const std::vector<float> x = values<float>(64, 61, -3, 3), y = values<float>(64, 62, 1, 2);
  const std::vector<float> p =
      run<float>(x, y, 64, [](const Ops<float>& o) { AscendC::Power(o.d, o.a, o.b); });
  EXPECT_EQ(compare<float>(
                "Power whole", p, [&](uint32_t i) { return pow_ref(x[i], y[i]); }, 0, 1e-6),
            0);
  const std::vector<float> s =
      run<float>(x, y, 64, [](const Ops<float>& o) { AscendC::Sin(o.d, o.a, o.tmp); });
  EXPECT_EQ(compare<float>(
                "Sin whole", s, [&](uint32_t i) { return std::sin(x[i]); }, 1e-6, 0),
            0);
  const std::vector<float> e =
      run<float>(x, y, 64, [](const Ops<float>& o) { AscendC::Erf(o.d, o.a); });
  EXPECT_EQ(compare<float>(
                "Erf whole", e, [&](uint32_t i) { return std::erf(x[i]); }, 1e-7, 4e-6),
            0);
}

}  // namespace

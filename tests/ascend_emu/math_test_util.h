// Helpers of the advanced-math tests: one vector core whose TPipe holds src0, src1, dst and a
// sharedTmpBuffer (each 32-byte padded), GM in and out, and a double reference compared per
// element at a stated tolerance.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "vec_test_util.h"

namespace mathtest {

template <typename T>
struct Ops {
  AscendC::LocalTensor<T> a, b, d;    // src0, src1, dst: n elements each (size padded to 32 B)
  AscendC::LocalTensor<uint8_t> tmp;  // a sharedTmpBuffer of tmp_bytes
};

inline uint32_t padded(uint32_t n, uint32_t es) {
  return (n * es + 31) / 32 * 32 / es;
}

// Runs body on the operands loaded from a and b (n elements each); returns dst's n elements.
// The TPipe hands out 3 padded operands and tmp_bytes: the rest of UB is the framework's temp.
template <typename T>
std::vector<T> run(const std::vector<T>& a, const std::vector<T>& b, uint32_t n,
                   const std::function<void(const Ops<T>&)>& body, uint32_t tmp_bytes = 8192) {
  const uint32_t p = padded(n, sizeof(T));
  vectest::Gm ga(p * sizeof(T)), gb(p * sizeof(T)), gd(p * sizeof(T));
  std::memset(ga.p, 0, p * sizeof(T));
  std::memset(gb.p, 0, p * sizeof(T));
  std::memcpy(ga.p, a.data(), n * sizeof(T));
  std::memcpy(gb.p, b.data(), n * sizeof(T));
  vectest::run1([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> ba, bb, bd, bt;
    pipe.InitBuffer(ba, p * sizeof(T));
    pipe.InitBuffer(bb, p * sizeof(T));
    pipe.InitBuffer(bd, p * sizeof(T));
    pipe.InitBuffer(bt, tmp_bytes);
    Ops<T> o{ba.Get<T>(), bb.Get<T>(), bd.Get<T>(), bt.Get<uint8_t>()};
    vectest::load(o.a, ga.as<T>(), p);
    vectest::load(o.b, gb.as<T>(), p);
    body(o);
    vectest::save(gd.as<T>(), o.d, p);
  });
  std::vector<T> out(n);
  std::memcpy(out.data(), gd.p, n * sizeof(T));
  return out;
}

// Seeded values of T: `special` first (cycled), then uniform in [lo, hi].
template <typename T>
std::vector<T> values(uint32_t n, uint32_t seed, double lo, double hi,
                      const std::vector<double>& special = {}) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> v(n);
  for (uint32_t i = 0; i < n; ++i) {
    const double x = i < special.size() ? special[i] : u(rng);
    if constexpr (std::is_integral_v<T>)
      v[i] = static_cast<T>(std::llround(x));
    else
      v[i] = T(static_cast<float>(x));
  }
  return v;
}

template <typename T>
double dbl(T v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<double>(v);
  else
    return static_cast<double>(static_cast<float>(v));
}

// Every out[i] within abs_tol + rel_tol * |ref(i)| of ref(i) (NaN matches NaN, inf matches an
// inf of its sign, a reference past T's range is that inf); returns the count of mismatches,
// reporting the first few.
template <typename T>
int compare(const char* what, const std::vector<T>& out, const std::function<double(uint32_t)>& ref,
            double abs_tol, double rel_tol) {
  int bad = 0;
  for (uint32_t i = 0; i < out.size(); ++i) {
    double r = ref(i);
    const double o = dbl(out[i]);
    // A reference past T's range rounds to an infinity.
    const double top = std::is_same_v<T, half> ? 65520.0 : 3.4028235677973366e38;
    if (std::is_floating_point_v<T> || std::is_same_v<T, half>)
      if (std::fabs(r) >= top) r = std::copysign(HUGE_VAL, r);
    bool ok;
    if (std::isnan(r))
      ok = std::isnan(o);
    else if (std::isinf(r))
      ok = o == r;
    else
      ok = std::fabs(o - r) <= abs_tol + rel_tol * std::fabs(r);
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << " element " << i << ": got " << o << ", reference " << r;
  }
  return bad;
}

// Half's rounding (2^-11 relative) on top of float's.
template <typename T>
constexpr double kRel = std::is_same_v<T, half> ? 1.0 / 1024 : 1e-6;

}  // namespace mathtest

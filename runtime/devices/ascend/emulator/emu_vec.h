// The emulator's vector unit (include kernel_operator.h): the level-2 (count) forms of the
// elementwise calls, on UB operands of a vector core, with the element types the Atlas A2's
// vector unit has for each. half/bfloat16_t compute in float and round once on the store.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>

#include "emu_tensor.h"

namespace ascemu {

template <typename T>
using Calc = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>, float, T>;

template <typename T, typename... Us>
constexpr bool kOneOf = (std::is_same_v<T, Us> || ...);

template <typename T>
const char* type_name() {
  if constexpr (std::is_same_v<T, half>) return "half";
  if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16_t";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
  if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
  if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
  return "this type";
}

inline void vec_type(bool ok, const char* call, const char* type, const char* has) {
  check(ok, call,
        std::string("the Atlas A2 vector unit has no ") + call + " on " + type + " (it has " + has +
            ")");
}

// A vector operand: on a vector core, in UB, 32-byte aligned, `elems` inside it.
template <typename T>
inline Access vec_operand(const char* call, const AscendC::LocalTensor<T>& t, uint64_t elems,
                          bool write) {
  const Core& c = current();
  check(!c.aic(), call, "vector calls run on an AIV (vector core), not on the AIC");
  check(t.HostMem() == Mem::kUB, call,
        std::string("operand in ") + mem_name(t.HostMem()) + ", not UB");
  check(t.HostOffset() % 32 == 0, call,
        "UB address " + std::to_string(t.HostOffset()) + " is not 32-byte aligned");
  check(elems <= t.GetSize(), call,
        "count " + std::to_string(elems) + " past an operand of " + std::to_string(t.GetSize()) +
            " elements");
  return Access{Mem::kUB, t.HostOffset(), t.HostEnd(elems), write};
}

inline void vec_count(const char* call, int32_t count) {
  check(count >= 0, call, "negative count " + std::to_string(count));
}

template <typename T, typename F>
inline void vec_binary(const char* call, const AscendC::LocalTensor<T>& dst,
                       const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>& b,
                       int32_t count, F f) {
  vec_count(call, count);
  const uint64_t n = static_cast<uint64_t>(count);
  std::vector<Access> acc = {vec_operand(call, a, n, false), vec_operand(call, b, n, false),
                             vec_operand(call, dst, n, true)};
  T* d = dst.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  const T* y = b.GetPhyAddr();
  current().issue(kV, call, std::move(acc), [=] {
    for (uint64_t i = 0; i < n; ++i)
      d[i] = static_cast<T>(f(static_cast<Calc<T>>(x[i]), static_cast<Calc<T>>(y[i])));
  });
}

template <typename T, typename F>
inline void vec_unary(const char* call, const AscendC::LocalTensor<T>& dst,
                      const AscendC::LocalTensor<T>& a, int32_t count, F f) {
  vec_count(call, count);
  const uint64_t n = static_cast<uint64_t>(count);
  std::vector<Access> acc = {vec_operand(call, a, n, false), vec_operand(call, dst, n, true)};
  T* d = dst.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  current().issue(kV, call, std::move(acc), [=] {
    for (uint64_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(static_cast<Calc<T>>(x[i])));
  });
}

template <typename T>
constexpr bool kArith = kOneOf<T, half, float, int16_t, int32_t>;
template <typename T>
constexpr bool kFloat = kOneOf<T, half, float>;

}  // namespace ascemu

namespace AscendC {

#define ASCEMU_BINARY(NAME, OK, HAS, EXPR)                                                     \
  template <typename T>                                                                        \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                      \
                   const LocalTensor<T>& src1, const int32_t& count) {                         \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                  \
    ascemu::vec_binary(#NAME, dst, src0, src1, count,                                          \
                       [](ascemu::Calc<T> a, ascemu::Calc<T> b) -> ascemu::Calc<T> { EXPR; }); \
  }
ASCEMU_BINARY(Add, ascemu::kArith<T>, "half, float, int16_t, int32_t", return a + b)
ASCEMU_BINARY(Sub, ascemu::kArith<T>, "half, float, int16_t, int32_t", return a - b)
ASCEMU_BINARY(Mul, ascemu::kArith<T>, "half, float, int16_t, int32_t", return a * b)
ASCEMU_BINARY(Div, ascemu::kFloat<T>, "half, float", return a / b)
ASCEMU_BINARY(Max, ascemu::kArith<T>, "half, float, int16_t, int32_t", return a < b ? b : a)
ASCEMU_BINARY(Min, ascemu::kArith<T>, "half, float, int16_t, int32_t", return b < a ? b : a)
#undef ASCEMU_BINARY

#define ASCEMU_UNARY(NAME, OK, HAS, EXPR)                                                          \
  template <typename T>                                                                            \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {   \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                      \
    ascemu::vec_unary(#NAME, dst, src, count, [](ascemu::Calc<T> a) -> ascemu::Calc<T> { EXPR; }); \
  }
ASCEMU_UNARY(Exp, ascemu::kFloat<T>, "half, float", return std::exp(a))
ASCEMU_UNARY(Ln, ascemu::kFloat<T>, "half, float", return std::log(a))
ASCEMU_UNARY(Abs, ascemu::kFloat<T>, "half, float", return std::fabs(a))
ASCEMU_UNARY(Sqrt, ascemu::kFloat<T>, "half, float", return std::sqrt(a))
ASCEMU_UNARY(Rsqrt, ascemu::kFloat<T>, "half, float", return 1 / std::sqrt(a))
ASCEMU_UNARY(Reciprocal, ascemu::kFloat<T>, "half, float", return 1 / a)
ASCEMU_UNARY(Relu, (ascemu::kOneOf<T, half, float, int32_t>), "half, float, int32_t",
             return a > 0 ? a : ascemu::Calc<T>(0))
#undef ASCEMU_UNARY

#define ASCEMU_SCALAR(NAME, OK, HAS, EXPR)                                                \
  template <typename T, typename U>                                                       \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, \
                   const int32_t& count) {                                                \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                             \
    const auto s = static_cast<ascemu::Calc<T>>(static_cast<T>(scalar));                  \
    ascemu::vec_unary(#NAME, dst, src, count,                                             \
                      [s](ascemu::Calc<T> a) -> ascemu::Calc<T> { EXPR; });               \
  }
ASCEMU_SCALAR(Adds, ascemu::kArith<T>, "half, float, int16_t, int32_t", return a + s)
ASCEMU_SCALAR(Muls, ascemu::kArith<T>, "half, float, int16_t, int32_t", return a * s)
ASCEMU_SCALAR(Maxs, ascemu::kArith<T>, "half, float, int16_t, int32_t", return a < s ? s : a)
ASCEMU_SCALAR(Mins, ascemu::kArith<T>, "half, float, int16_t, int32_t", return s < a ? s : a)
ASCEMU_SCALAR(LeakyRelu, ascemu::kFloat<T>, "half, float", return a >= 0 ? a : a * s)
#undef ASCEMU_SCALAR

template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, const int32_t& count) {
  ascemu::vec_type(ascemu::kOneOf<T, half, bfloat16_t, int16_t, uint16_t, float, int32_t, uint32_t>,
                   "Duplicate", ascemu::type_name<T>(),
                   "half, bfloat16_t, int16_t, uint16_t, float, int32_t, uint32_t");
  ascemu::vec_count("Duplicate", count);
  const uint64_t n = static_cast<uint64_t>(count);
  std::vector<ascemu::Access> acc = {ascemu::vec_operand("Duplicate", dst, n, true)};
  T* d = dst.GetPhyAddr();
  const T v = scalar;
  ascemu::current().issue(ascemu::kV, "Duplicate", std::move(acc), [=] {
    for (uint64_t i = 0; i < n; ++i) d[i] = v;
  });
}

}  // namespace AscendC

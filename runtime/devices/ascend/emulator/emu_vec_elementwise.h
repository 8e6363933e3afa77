// The vector unit's elementwise calls (include kernel_operator.h), each in its level-2 form
// (count) and its two level-0 forms (continuous mask / bit mask[2], repeatTime, repeat params),
// with the element types the Atlas A2 vector unit has: binary Add/Sub/Mul/Div/Max/Min/And/Or/
// AddRelu/SubRelu, with dst as an operand FusedMulAdd/MulAddRelu/MulAddDst,
// unary Exp/Ln/Abs/Sqrt/Rsqrt/Reciprocal/Relu/Not, with a scalar Adds/Muls/Maxs/Mins/LeakyRelu/
// ShiftLeft/ShiftRight, Axpy and Duplicate. half computes in float and rounds once on the store.
#pragma once

#include "emu_vec_mask.h"

namespace ascemu {

// The geometry of a level-0 call: the mask form sets the mask register when isSetMask.
template <bool isSetMask>
inline VGeom geom0(const char* call, uint32_t per, uint64_t mask, Repeat rep) {
  const uint32_t n = repeat_times(call, rep);
  if (isSetMask) set_mask_len(call, per, mask);
  return vgeom(call, per, n);
}
template <bool isSetMask>
inline VGeom geom0(const char* call, uint32_t per, const uint64_t mask[], Repeat rep) {
  const uint32_t n = repeat_times(call, rep);
  if (isSetMask) set_mask_bits(call, per, mask);
  return vgeom(call, per, n);
}
// The geometry of a level-2 call over `count` elements (counter mode, then normal mode again).
inline VGeom geom2(const char* call, uint32_t per, int64_t count) {
  vec_count(call, count);
  level2_begin(static_cast<uint64_t>(count));
  const VGeom g = vgeom(call, per, 1);
  level2_end();
  return g;
}

inline void dst_stride(const char* call, uint32_t blk) {
  check(blk != 0, call, "dstBlkStride 0 is undefined on the hardware (a source may take 0)");
}

// dst[i] = f(src0[i], src1[i]) over the geometry.
template <typename T, typename F>
inline void vbinary(const char* call, const AscendC::LocalTensor<T>& dst,
                    const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>& b,
                    const VGeom& g, const AscendC::BinaryRepeatParams& p, F f) {
  dst_stride(call, p.dstBlkStride);
  const VOp x = vop(call, a, p.src0BlkStride, p.src0RepStride, false, "src0");
  const VOp y = vop(call, b, p.src1BlkStride, p.src1RepStride, false, "src1");
  const VOp d = vop(call, dst, p.dstBlkStride, p.dstRepStride, true, "dst");
  vec_issue(call, g, {x, y, d}, [=](uint8_t* ub) {
    g.each([&](uint32_t r, uint32_t j) {
      const auto u = static_cast<Calc<T>>(load<T>(ub, x.at(r, j)));
      const auto v = static_cast<Calc<T>>(load<T>(ub, y.at(r, j)));
      store<T>(ub, d.at(r, j), static_cast<T>(f(u, v)));
    });
  });
}

// dst[i] = f(src0[i], src1[i], dst[i]) in float over the geometry (D may be wider than S).
template <typename D, typename S, typename F>
inline void vternary(const char* call, const AscendC::LocalTensor<D>& dst,
                     const AscendC::LocalTensor<S>& a, const AscendC::LocalTensor<S>& b,
                     const VGeom& g, const AscendC::BinaryRepeatParams& p, F f) {
  dst_stride(call, p.dstBlkStride);
  const VOp x = vop(call, a, p.src0BlkStride, p.src0RepStride, false, "src0");
  const VOp y = vop(call, b, p.src1BlkStride, p.src1RepStride, false, "src1");
  const VOp d = vop(call, dst, p.dstBlkStride, p.dstRepStride, true, "dst");
  VOp dr = d;
  dr.write = false;
  vec_issue(call, g, {x, y, dr, d}, [=](uint8_t* ub) {
    g.each([&](uint32_t r, uint32_t j) {
      const auto u = static_cast<float>(load<S>(ub, x.at(r, j)));
      const auto v = static_cast<float>(load<S>(ub, y.at(r, j)));
      const auto o = static_cast<float>(load<D>(ub, d.at(r, j)));
      store<D>(ub, d.at(r, j), static_cast<D>(f(u, v, o)));
    });
  });
}

// dst[i] = f(src[i]) over the geometry (D may differ from S: Axpy's float += half).
template <typename D, typename S, typename F>
inline void vunary(const char* call, const AscendC::LocalTensor<D>& dst,
                   const AscendC::LocalTensor<S>& src, const VGeom& g, uint32_t dblk, uint32_t drep,
                   uint32_t sblk, uint32_t srep, F f, bool reads_dst = false) {
  dst_stride(call, dblk);
  const VOp x = vop(call, src, sblk, srep, false, "src");
  const VOp d = vop(call, dst, dblk, drep, true, "dst");
  VOp dr = d;
  dr.write = false;
  std::vector<VOp> ops = {x};
  if (reads_dst) ops.push_back(dr);
  ops.push_back(d);
  vec_issue(call, g, ops, [=](uint8_t* ub) {
    g.each([&](uint32_t r, uint32_t j) {
      const auto u = static_cast<Calc<S>>(load<S>(ub, x.at(r, j)));
      const auto old = static_cast<Calc<D>>(load<D>(ub, d.at(r, j)));
      store<D>(ub, d.at(r, j), static_cast<D>(f(u, old)));
    });
  });
}

// Shifts of integer lanes: left fills zeros; right is arithmetic on signed types.
template <typename T>
inline Calc<T> shift(Calc<T> a, Calc<T> by, bool left) {
  if constexpr (std::is_integral_v<T>) {
    const auto n = static_cast<uint32_t>(by);
    if (n >= 8 * sizeof(T)) {
      if constexpr (std::is_signed_v<T>)
        if (!left && a < 0) return T(-1);
      return T(0);
    }
    if (left) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << n);
    return static_cast<T>(a >> n);
  } else {
    return a;
  }
}

template <typename T>
inline uint32_t per_repeat() {
  return 256 / sizeof(T);
}

}  // namespace ascemu

namespace AscendC {

// ---- binary: dst = src0 op src1 ----
#define ASCEMU_BINARY(NAME, OK, HAS, EXPR)                                                     \
  template <typename T>                                                                        \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                      \
                   const LocalTensor<T>& src1, const int32_t& count) {                         \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                  \
    const ascemu::VGeom g = ascemu::geom2(#NAME, ascemu::per_repeat<T>(), count);              \
    ascemu::vbinary(#NAME, dst, src0, src1, g, BinaryRepeatParams(),                           \
                    [](ascemu::Calc<T> a, ascemu::Calc<T> b) -> ascemu::Calc<T> { EXPR; });    \
  }                                                                                            \
  template <typename T, bool isSetMask = true, typename M>                                     \
  inline ascemu::IfMask<M> NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,         \
                                const LocalTensor<T>& src1, M mask, ascemu::Repeat repeatTime, \
                                const BinaryRepeatParams& repeatParams) {                      \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                  \
    const ascemu::VGeom g =                                                                    \
        ascemu::geom0<isSetMask>(#NAME, ascemu::per_repeat<T>(), mask, repeatTime);            \
    ascemu::vbinary(#NAME, dst, src0, src1, g, repeatParams,                                   \
                    [](ascemu::Calc<T> a, ascemu::Calc<T> b) -> ascemu::Calc<T> { EXPR; });    \
  }
#define ASCEMU_ARITH "half, float, int16_t, int32_t"
ASCEMU_BINARY(Add, ascemu::kArith<T>, ASCEMU_ARITH, return a + b)
ASCEMU_BINARY(Sub, ascemu::kArith<T>, ASCEMU_ARITH, return a - b)
ASCEMU_BINARY(Mul, ascemu::kArith<T>, ASCEMU_ARITH, return a * b)
ASCEMU_BINARY(Div, ascemu::kFloat<T>, "half, float", return a / b)
ASCEMU_BINARY(Max, ascemu::kArith<T>, ASCEMU_ARITH, return a < b ? b : a)
ASCEMU_BINARY(Min, ascemu::kArith<T>, ASCEMU_ARITH, return b < a ? b : a)
ASCEMU_BINARY(And, (ascemu::kOneOf<T, int16_t, uint16_t>), "int16_t, uint16_t", return a & b)
ASCEMU_BINARY(Or, (ascemu::kOneOf<T, int16_t, uint16_t>), "int16_t, uint16_t", return a | b)
ASCEMU_BINARY(AddRelu, (ascemu::kOneOf<T, int16_t, half, float>), "int16_t, half, float",
              return a + b > 0 ? a + b : ascemu::Calc<T>(0))
ASCEMU_BINARY(SubRelu, (ascemu::kOneOf<T, int16_t, half, float>), "int16_t, half, float",
              return a - b > 0 ? a - b : ascemu::Calc<T>(0))
#undef ASCEMU_BINARY

// ---- with dst as a third operand: dst = f(src0, src1, dst) ----
#define ASCEMU_TERNARY(NAME, EXPR)                                                             \
  template <typename T>                                                                        \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                      \
                   const LocalTensor<T>& src1, const int32_t& count) {                         \
    ascemu::vec_type(ascemu::kFloat<T>, #NAME, ascemu::type_name<T>(), "half, float");         \
    const ascemu::VGeom g = ascemu::geom2(#NAME, ascemu::per_repeat<T>(), count);              \
    ascemu::vternary(#NAME, dst, src0, src1, g, BinaryRepeatParams(),                          \
                     [](float a, float b, float d) -> float { EXPR; });                        \
  }                                                                                            \
  template <typename T, bool isSetMask = true, typename M>                                     \
  inline ascemu::IfMask<M> NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,         \
                                const LocalTensor<T>& src1, M mask, ascemu::Repeat repeatTime, \
                                const BinaryRepeatParams& repeatParams) {                      \
    ascemu::vec_type(ascemu::kFloat<T>, #NAME, ascemu::type_name<T>(), "half, float");         \
    const ascemu::VGeom g =                                                                    \
        ascemu::geom0<isSetMask>(#NAME, ascemu::per_repeat<T>(), mask, repeatTime);            \
    ascemu::vternary(#NAME, dst, src0, src1, g, repeatParams,                                  \
                     [](float a, float b, float d) -> float { EXPR; });                        \
  }
ASCEMU_TERNARY(FusedMulAdd, return a * d + b)
ASCEMU_TERNARY(MulAddRelu, return a * d + b > 0 ? a * d + b : 0.0f)
#undef ASCEMU_TERNARY

// MulAddDst: dst = src0 * src1 + dst (half/half, float/float, float += half * half).
template <typename T, typename U>
inline void mul_add_dst_types() {
  ascemu::vec_type(
      ascemu::kFloat<U> &&
          (std::is_same_v<T, U> || (std::is_same_v<T, float> && std::is_same_v<U, half>)),
      "MulAddDst", (std::string(ascemu::type_name<U>()) + " -> " + ascemu::type_name<T>()).c_str(),
      "half -> half, float -> float, half -> float");
}
template <typename T, typename U>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0,
                      const LocalTensor<U>& src1, const int32_t& count) {
  mul_add_dst_types<T, U>();
  const uint32_t per = 256 / std::max(sizeof(T), sizeof(U));
  const ascemu::VGeom g = ascemu::geom2("MulAddDst", per, count);
  const uint8_t srep = static_cast<uint8_t>(per * sizeof(U) / 32);
  ascemu::vternary(
      "MulAddDst", dst, src0, src1, g,
      BinaryRepeatParams(1, 1, 1, static_cast<uint8_t>(per * sizeof(T) / 32), srep, srep),
      [](float a, float b, float d) { return a * b + d; });
}
template <typename T, typename U, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0,
                                   const LocalTensor<U>& src1, M mask, ascemu::Repeat repeatTime,
                                   const BinaryRepeatParams& repeatParams) {
  mul_add_dst_types<T, U>();
  const ascemu::VGeom g =
      ascemu::geom0<isSetMask>("MulAddDst", 256 / std::max(sizeof(T), sizeof(U)), mask, repeatTime);
  ascemu::vternary("MulAddDst", dst, src0, src1, g, repeatParams,
                   [](float a, float b, float d) { return a * b + d; });
}

// ---- unary: dst = op(src) ----
#define ASCEMU_UNARY(NAME, OK, HAS, EXPR)                                                        \
  template <typename T>                                                                          \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) { \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                    \
    const ascemu::VGeom g = ascemu::geom2(#NAME, ascemu::per_repeat<T>(), count);                \
    ascemu::vunary(#NAME, dst, src, g, 1, 8, 1, 8,                                               \
                   [](ascemu::Calc<T> a, ascemu::Calc<T>) -> ascemu::Calc<T> { EXPR; });         \
  }                                                                                              \
  template <typename T, bool isSetMask = true, typename M>                                       \
  inline ascemu::IfMask<M> NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask,    \
                                ascemu::Repeat repeatTime, const UnaryRepeatParams& p) {         \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                    \
    const ascemu::VGeom g =                                                                      \
        ascemu::geom0<isSetMask>(#NAME, ascemu::per_repeat<T>(), mask, repeatTime);              \
    ascemu::vunary(#NAME, dst, src, g, p.dstBlkStride, p.dstRepStride, p.srcBlkStride,           \
                   p.srcRepStride,                                                               \
                   [](ascemu::Calc<T> a, ascemu::Calc<T>) -> ascemu::Calc<T> { EXPR; });         \
  }
ASCEMU_UNARY(Exp, ascemu::kFloat<T>, "half, float", return std::exp(a))
ASCEMU_UNARY(Ln, ascemu::kFloat<T>, "half, float", return std::log(a))
ASCEMU_UNARY(Abs, ascemu::kFloat<T>, "half, float", return std::fabs(a))
ASCEMU_UNARY(Sqrt, ascemu::kFloat<T>, "half, float", return std::sqrt(a))
ASCEMU_UNARY(Rsqrt, ascemu::kFloat<T>, "half, float", return 1 / std::sqrt(a))
ASCEMU_UNARY(Reciprocal, ascemu::kFloat<T>, "half, float", return 1 / a)
ASCEMU_UNARY(Relu, (ascemu::kOneOf<T, half, float, int32_t>), "half, float, int32_t",
             return a > 0 ? a : ascemu::Calc<T>(0))
ASCEMU_UNARY(Not, (ascemu::kOneOf<T, int16_t, uint16_t>), "int16_t, uint16_t",
             return static_cast<ascemu::Calc<T>>(~a))
#undef ASCEMU_UNARY

// ---- with a scalar: dst = op(src, scalar) ----
#define ASCEMU_SCALAR(NAME, OK, HAS, CHECK, EXPR)                                              \
  template <typename T, bool isSetMask = true, typename U>                                     \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue, \
                   const int32_t& count) {                                                     \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                  \
    const auto s = static_cast<ascemu::Calc<T>>(static_cast<T>(scalarValue));                  \
    CHECK;                                                                                     \
    const ascemu::VGeom g = isSetMask ? ascemu::geom2(#NAME, ascemu::per_repeat<T>(), count)   \
                                      : ascemu::vgeom(#NAME, ascemu::per_repeat<T>(), 1);      \
    ascemu::vunary(#NAME, dst, src, g, 1, 8, 1, 8,                                             \
                   [s](ascemu::Calc<T> a, ascemu::Calc<T>) -> ascemu::Calc<T> { EXPR; });      \
  }                                                                                            \
  template <typename T, bool isSetMask = true, typename U, typename M>                         \
  inline ascemu::IfMask<M> NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,          \
                                const U& scalarValue, M mask, ascemu::Repeat repeatTime,       \
                                const UnaryRepeatParams& p, bool = false) {                    \
    ascemu::vec_type(OK, #NAME, ascemu::type_name<T>(), HAS);                                  \
    const auto s = static_cast<ascemu::Calc<T>>(static_cast<T>(scalarValue));                  \
    CHECK;                                                                                     \
    const ascemu::VGeom g =                                                                    \
        ascemu::geom0<isSetMask>(#NAME, ascemu::per_repeat<T>(), mask, repeatTime);            \
    ascemu::vunary(#NAME, dst, src, g, p.dstBlkStride, p.dstRepStride, p.srcBlkStride,         \
                   p.srcRepStride,                                                             \
                   [s](ascemu::Calc<T> a, ascemu::Calc<T>) -> ascemu::Calc<T> { EXPR; });      \
  }
#define ASCEMU_SHIFT_CHECK(NAME)                                                       \
  ascemu::check(static_cast<int64_t>(s) >= 0 &&                                        \
                    static_cast<int64_t>(s) <= static_cast<int64_t>(8 * sizeof(T)),    \
                #NAME,                                                                 \
                "shift " + std::to_string(static_cast<int64_t>(s)) + " outside [0, " + \
                    std::to_string(8 * sizeof(T)) + "] for " + ascemu::type_name<T>())
#define ASCEMU_SHIFT_TYPES (ascemu::kOneOf<T, int16_t, uint16_t, int32_t, uint32_t>)
ASCEMU_SCALAR(Adds, ascemu::kArith<T>, ASCEMU_ARITH, (void)0, return a + s)
ASCEMU_SCALAR(Muls, ascemu::kArith<T>, ASCEMU_ARITH, (void)0, return a * s)
ASCEMU_SCALAR(Maxs, ascemu::kArith<T>, ASCEMU_ARITH, (void)0, return a < s ? s : a)
ASCEMU_SCALAR(Mins, ascemu::kArith<T>, ASCEMU_ARITH, (void)0, return s < a ? s : a)
ASCEMU_SCALAR(LeakyRelu, ascemu::kFloat<T>, "half, float", (void)0, return a >= 0 ? a : a * s)
ASCEMU_SCALAR(ShiftLeft, ASCEMU_SHIFT_TYPES, "int16_t, uint16_t, int32_t, uint32_t",
              ASCEMU_SHIFT_CHECK(ShiftLeft), return ascemu::shift<T>(a, s, true))
ASCEMU_SCALAR(ShiftRight, ASCEMU_SHIFT_TYPES, "int16_t, uint16_t, int32_t, uint32_t",
              ASCEMU_SHIFT_CHECK(ShiftRight), return ascemu::shift<T>(a, s, false))
#undef ASCEMU_SHIFT_CHECK
#undef ASCEMU_SHIFT_TYPES
#undef ASCEMU_SCALAR
#undef ASCEMU_ARITH

// ---- Axpy: dst = src * scalar + dst (half/half, float/float, float += half) ----
template <typename T, typename U>
inline void axpy_types() {
  ascemu::vec_type(
      ascemu::kOneOf<T, half, float> &&
          (std::is_same_v<T, U> || (std::is_same_v<T, float> && std::is_same_v<U, half>)),
      "Axpy", (std::string(ascemu::type_name<U>()) + " -> " + ascemu::type_name<T>()).c_str(),
      "half -> half, float -> float, half -> float");
}
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                 const int32_t& count) {
  axpy_types<T, U>();
  const float s = static_cast<float>(scalarValue);
  const ascemu::VGeom g = ascemu::geom2("Axpy", 256 / std::max(sizeof(T), sizeof(U)), count);
  const uint32_t drep = sizeof(T) >= sizeof(U) ? 8 : 4, srep = sizeof(U) >= sizeof(T) ? 8 : 4;
  ascemu::vunary(
      "Axpy", dst, src, g, 1, drep, 1, srep,
      [s](ascemu::Calc<U> a, ascemu::Calc<T> d) { return static_cast<ascemu::Calc<T>>(a * s + d); },
      true);
}
template <typename T, typename U, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                              const U& scalarValue, M mask, ascemu::Repeat repeatTime,
                              const UnaryRepeatParams& p) {
  axpy_types<T, U>();
  const float s = static_cast<float>(scalarValue);
  const ascemu::VGeom g =
      ascemu::geom0<isSetMask>("Axpy", 256 / std::max(sizeof(T), sizeof(U)), mask, repeatTime);
  ascemu::vunary(
      "Axpy", dst, src, g, p.dstBlkStride, p.dstRepStride, p.srcBlkStride, p.srcRepStride,
      [s](ascemu::Calc<U> a, ascemu::Calc<T> d) { return static_cast<ascemu::Calc<T>>(a * s + d); },
      true);
}

// ---- Duplicate: dst = scalar ----
#define ASCEMU_DUP_TYPES \
  (ascemu::kOneOf<T, half, bfloat16_t, int16_t, uint16_t, float, int32_t, uint32_t>)
#define ASCEMU_DUP_HAS "half, bfloat16_t, int16_t, uint16_t, float, int32_t, uint32_t"
template <typename T>
inline void duplicate(const LocalTensor<T>& dst, const T& v, const ascemu::VGeom& g, uint32_t blk,
                      uint32_t rep) {
  ascemu::vec_type(ASCEMU_DUP_TYPES, "Duplicate", ascemu::type_name<T>(), ASCEMU_DUP_HAS);
  ascemu::dst_stride("Duplicate", blk);
  const ascemu::VOp d = ascemu::vop("Duplicate", dst, blk, rep, true, "dst");
  ascemu::vec_issue("Duplicate", g, {d}, [=](uint8_t* ub) {
    g.each([&](uint32_t r, uint32_t j) { ascemu::store<T>(ub, d.at(r, j), v); });
  });
}
#undef ASCEMU_DUP_TYPES
#undef ASCEMU_DUP_HAS
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count) {
  duplicate(dst, scalarValue, ascemu::geom2("Duplicate", ascemu::per_repeat<T>(), count), 1, 8);
}
template <typename T, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> Duplicate(const LocalTensor<T>& dst, const T& scalarValue, M mask,
                                   ascemu::Repeat repeatTime, const uint16_t dstBlockStride,
                                   const uint8_t dstRepeatStride) {
  duplicate(dst, scalarValue,
            ascemu::geom0<isSetMask>("Duplicate", ascemu::per_repeat<T>(), mask, repeatTime),
            dstBlockStride, dstRepeatStride);
}

}  // namespace AscendC

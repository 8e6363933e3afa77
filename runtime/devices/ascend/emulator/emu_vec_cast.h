// The vector unit's Cast (include kernel_operator.h): level 2 (count) and level 0 (mask,
// repeatTime, UnaryRepeatParams) over the Atlas A2 conversion table, each pair with the RoundModes
// the table gives it. A repeat holds 256 bytes of the wider type (the mask counts its elements);
// the narrower operand's repeat spans fewer blocks. Rounding is exact: CAST_NONE rounds as
// CAST_RINT where the conversion loses precision; float results follow the A2's default Inf/NaN
// mode (IEEE 754, ACL's aclrtFloatOverflowMode: NaN stays NaN, a result past the range is inf or
// the largest finite value as the round mode directs); integer results saturate, NaN to 0;
// float -> float rounds to an integral value.
#pragma once

#include "emu_vec_elementwise.h"

namespace ascemu {

// Refuses a pair the Atlas A2 does not convert, or a mode the pair does not take.
void cast_check(const char* src, const char* dst, AscendC::RoundMode mode);

// v rounded to `mant` fraction bits (exponent at least emin); past +-maxv, inf or +-maxv as the
// mode rounds (IEEE 754); NaN and infinities kept.
long double round_float(long double v, AscendC::RoundMode mode, int mant, int emin,
                        long double maxv);
long double round_integer(long double v, AscendC::RoundMode mode);  // NaN -> 0

template <typename S>
inline long double widen(S v) {
  if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bfloat16_t>)
    return static_cast<float>(v);
  else
    return static_cast<long double>(v);
}

template <typename D, typename S>
inline D cast_value(S s, AscendC::RoundMode mode) {
  const long double v = widen(s);
  if constexpr (std::is_integral_v<D>) {
    const long double r = round_integer(v, mode);
    if (r <= static_cast<long double>(std::numeric_limits<D>::min()))
      return std::numeric_limits<D>::min();
    if (r >= static_cast<long double>(std::numeric_limits<D>::max()))
      return std::numeric_limits<D>::max();
    return static_cast<D>(r);
  } else if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16_t>) {
    const long double maxv = std::is_same_v<D, half> ? 65504.0L : 0x1.fep127L;
    const long double r = v;
    D out;
    if constexpr (std::is_same_v<D, half>)
      out.bits = f32_to_f16(static_cast<float>(round_float(r, mode, 10, -14, maxv)));
    else
      out.bits = static_cast<uint16_t>(
          f32_bits(static_cast<float>(round_float(r, mode, 7, -126, maxv))) >> 16);
    return out;
  } else if constexpr (std::is_same_v<S, float>) {
    return static_cast<D>(round_integer(v, mode));  // float -> float rounds to an integer
  } else {
    return static_cast<D>(round_float(v, mode, 23, -126, std::numeric_limits<float>::max()));
  }
}

template <typename D, typename S>
inline void vcast(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<S>& src,
                  AscendC::RoundMode mode, const VGeom& g, uint32_t dblk, uint32_t drep,
                  uint32_t sblk, uint32_t srep) {
  const char* call = "Cast";
  cast_check(type_name<S>(), type_name<D>(), mode);
  dst_stride(call, dblk);
  const VOp x = vop(call, src, sblk, srep, false, "src");
  const VOp d = vop(call, dst, dblk, drep, true, "dst");
  vec_issue(call, g, {x, d}, [=](uint8_t* ub) {
    g.each([&](uint32_t r, uint32_t j) {
      store<D>(ub, d.at(r, j), cast_value<D>(load<S>(ub, x.at(r, j)), mode));
    });
  });
}

template <typename D, typename S>
constexpr uint32_t cast_per() {
  return 256 / (sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S));
}

}  // namespace ascemu

namespace AscendC {

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint32_t count) {
  constexpr uint32_t per = ascemu::cast_per<T, U>();
  const ascemu::VGeom g = ascemu::geom2("Cast", per, count);
  ascemu::vcast(dst, src, roundMode, g, 1, per * sizeof(T) / 32, 1, per * sizeof(U) / 32);
}

template <typename T, typename U, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                              const RoundMode& roundMode, M mask, ascemu::Repeat repeatTime,
                              const UnaryRepeatParams& p) {
  const ascemu::VGeom g =
      ascemu::geom0<isSetMask>("Cast", ascemu::cast_per<T, U>(), mask, repeatTime);
  ascemu::vcast(dst, src, roundMode, g, p.dstBlkStride, p.dstRepStride, p.srcBlkStride,
                p.srcRepStride);
}

}  // namespace AscendC

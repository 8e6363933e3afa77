// The vector unit's compare and select (include kernel_operator.h).
// Compare/CompareScalar write a bit mask: bit i (LSB first in byte i / 8) is the result for element
// i. On the Atlas A2 they compute whole 256-byte repeats (a level-2 count must fill them; the mask
// of a level-0 call is ignored) and write each repeat's 256 / sizeof(T) bits right after the
// previous repeat's; T is half or float (every CMPMODE) or int32_t (EQ only).
// Compare without a destination compares one repeat into the 128-bit CMPMASK register.
// Select takes src0[i] where its selection bit is 1, else src1[i] (or the scalar): in
// VSEL_CMPMASK_SPR mode the bits are the first 256 / sizeof(T) bits of selMask, loaded into the
// CMPMASK register (16 bytes) and reused by every repeat; in VSEL_TENSOR_SCALAR_MODE and
// VSEL_TENSOR_TENSOR_MODE bit r * (256 / sizeof(T)) + j of selMask selects element j of repeat r.
#pragma once

#include "emu_vec_elementwise.h"

namespace ascemu {

template <typename T>
inline bool compare(AscendC::CMPMODE m, Calc<T> a, Calc<T> b) {
  switch (m) {
    case AscendC::CMPMODE::LT:
      return a < b;
    case AscendC::CMPMODE::GT:
      return a > b;
    case AscendC::CMPMODE::EQ:
      return a == b;
    case AscendC::CMPMODE::LE:
      return a <= b;
    case AscendC::CMPMODE::GE:
      return a >= b;
    default:
      return a != b;
  }
}

template <typename T, typename U>
inline void compare_types(const char* call, AscendC::CMPMODE m, bool u8_only) {
  vec_type(kFloat<T> || (std::is_same_v<T, int32_t> && m == AscendC::CMPMODE::EQ), call,
           std::is_same_v<T, int32_t> ? "int32_t with a CMPMODE other than EQ" : type_name<T>(),
           "half and float with every CMPMODE, int32_t with EQ");
  if (u8_only)
    check(std::is_same_v<U, uint8_t>, call,
          std::string("the bit mask is uint8_t on the Atlas A2, not ") + type_name<U>());
  else
    check((kOneOf<U, int8_t, uint8_t>), call,
          std::string("the bit mask is int8_t or uint8_t on the Atlas A2, not ") + type_name<U>());
}

inline uint32_t whole_repeats(const char* call, uint64_t count, uint32_t elem) {
  const uint64_t bytes = count * elem;
  check(bytes % 256 == 0, call,
        "count " + std::to_string(count) + " is " + std::to_string(bytes) +
            " bytes, not whole 256-byte repeats (the Atlas A2 would compare only the first " +
            std::to_string(bytes / 256 * 256 / elem) + " elements)");
  return static_cast<uint32_t>(bytes / 256);
}

// Bits of `repeats` whole repeats into dst; src1 is a tensor (y) or the scalar s.
template <typename T, typename U>
inline void vcompare(const char* call, const AscendC::LocalTensor<U>& dst, const VOp& x,
                     const VOp* y, Calc<T> s, AscendC::CMPMODE m, uint32_t repeats) {
  const uint32_t per = 256 / sizeof(T);
  VGeom g;
  g.per = per;
  g.repeats = repeats;
  g.hi = g.lo = ~uint64_t{0};
  const uint64_t bytes = uint64_t{repeats} * per / 8;
  vec_operand(call, dst, bytes / sizeof(U), true);
  std::vector<VOp> src = {x};
  if (y) src.push_back(*y);
  std::vector<Access> acc = vec_accesses(call, g, src);
  acc.push_back(Access{Mem::kUB, dst.HostOffset(), dst.HostOffset() + bytes, true});
  const VOp yy = y ? *y : x;
  const bool tensor = y != nullptr;
  const uint64_t d = dst.HostOffset();
  uint8_t* ub = ub_base();
  current().issue(kV, call, std::move(acc), [=] {
    for (uint32_t r = 0; r < repeats; ++r) {
      uint8_t bits[32] = {};  // 256 bytes per repeat: at most 256 elements
      for (uint32_t j = 0; j < per; ++j) {
        const auto a = static_cast<Calc<T>>(load<T>(ub, x.at(r, j)));
        const auto b = tensor ? static_cast<Calc<T>>(load<T>(ub, yy.at(r, j))) : s;
        if (compare<T>(m, a, b)) bits[j / 8] |= static_cast<uint8_t>(1u << (j % 8));
      }
      std::memcpy(ub + d + uint64_t{r} * per / 8, bits, per / 8);
    }
  });
}

// dst = sel ? src0 : src1 over the geometry; `bit(r, j, sel bytes)` picks the selection bit.
template <typename T, typename U>
inline void vselect(const char* call, const AscendC::LocalTensor<T>& dst,
                    const AscendC::LocalTensor<U>& sel, const AscendC::LocalTensor<T>& src0,
                    const AscendC::LocalTensor<T>* src1, T scalar, AscendC::SELMODE mode,
                    const VGeom& g, const AscendC::BinaryRepeatParams& p) {
  vec_type(kFloat<T>, call, type_name<T>(), "half, float");
  check((kOneOf<U, uint8_t, uint16_t, uint32_t, uint64_t>), call,
        std::string("selMask is uint8_t, uint16_t, uint32_t or uint64_t, not ") + type_name<U>());
  const bool scalar_mode = mode == AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE;
  check(scalar_mode == (src1 == nullptr), call,
        scalar_mode ? "VSEL_TENSOR_SCALAR_MODE takes a scalar src1"
                    : "VSEL_CMPMASK_SPR and VSEL_TENSOR_TENSOR_MODE take a tensor src1");
  dst_stride(call, p.dstBlkStride);
  const bool shared = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  // VSEL_CMPMASK_SPR loads 16 bytes of selMask into CMPMASK first (it stays there).
  const uint64_t sel_bytes = shared ? 16 : (uint64_t{g.repeats} * g.per + 7) / 8;
  vec_operand(call, sel, 0, false);
  check(sel_bytes <= uint64_t{sel.GetSize()} * sizeof(U), call,
        "selMask holds " + std::to_string(uint64_t{sel.GetSize()} * sizeof(U)) +
            " bytes; the call reads " + std::to_string(sel_bytes));
  const VOp x = vop(call, src0, p.src0BlkStride, p.src0RepStride, false, "src0");
  const VOp y = src1 ? vop(call, *src1, p.src1BlkStride, p.src1RepStride, false, "src1") : x;
  const VOp d = vop(call, dst, p.dstBlkStride, p.dstRepStride, true, "dst");
  std::vector<Access> acc =
      vec_accesses(call, g, src1 ? std::vector<VOp>{x, y} : std::vector<VOp>{x});
  acc.push_back(Access{Mem::kUB, sel.HostOffset(), sel.HostOffset() + sel_bytes, false});
  for (const Access& a : vec_accesses(call, g, {d})) acc.push_back(a);
  const uint64_t s = sel.HostOffset();
  uint8_t* ub = ub_base();
  const bool tensor = src1 != nullptr;
  uint64_t* cmp = current().vec.cmp;
  current().issue(kV, call, std::move(acc), [=] {
    if (shared) std::memcpy(cmp, ub + s, 16);
    g.each([&](uint32_t r, uint32_t j) {
      const uint64_t i = shared ? j : uint64_t{r} * g.per + j;
      const bool take0 = (ub[s + i / 8] >> (i % 8)) & 1u;
      const T v = take0 ? load<T>(ub, x.at(r, j)) : tensor ? load<T>(ub, y.at(r, j)) : scalar;
      store<T>(ub, d.at(r, j), v);
    });
  });
}

}  // namespace ascemu

namespace AscendC {

// ---- Compare: dst bits = src0 cmp src1 ----
template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                    const LocalTensor<T>& src1, CMPMODE cmpMode, uint32_t count) {
  ascemu::compare_types<T, U>("Compare", cmpMode, false);
  const uint32_t n = ascemu::whole_repeats("Compare", count, sizeof(T));
  const ascemu::VOp x = ascemu::vop("Compare", src0, 1, 8, false, "src0");
  const ascemu::VOp y = ascemu::vop("Compare", src1, 1, 8, false, "src1");
  ascemu::vcompare<T>("Compare", dst, x, &y, ascemu::Calc<T>(), cmpMode, n);
}

template <typename T, typename U, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                                 const LocalTensor<T>& src1, CMPMODE cmpMode, M mask,
                                 ascemu::Repeat repeatTime, const BinaryRepeatParams& p) {
  ascemu::compare_types<T, U>("Compare", cmpMode, false);
  (void)mask;  // reserved on the A2: neither used nor written to the mask register
  const uint32_t n = ascemu::repeat_times("Compare", repeatTime);
  const ascemu::VOp x =
      ascemu::vop("Compare", src0, p.src0BlkStride, p.src0RepStride, false, "src0");
  const ascemu::VOp y =
      ascemu::vop("Compare", src1, p.src1BlkStride, p.src1RepStride, false, "src1");
  ascemu::vcompare<T>("Compare", dst, x, &y, ascemu::Calc<T>(), cmpMode, n);
}

// One repeat into the CMPMASK register; elements outside the mask compare false.
template <typename T, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                 CMPMODE cmpMode, M mask, const BinaryRepeatParams& p) {
  ascemu::compare_types<T, uint8_t>("Compare", cmpMode, true);
  const ascemu::VGeom g = ascemu::geom0<isSetMask>("Compare", 256 / sizeof(T), mask, 1);
  const ascemu::VOp x =
      ascemu::vop("Compare", src0, p.src0BlkStride, p.src0RepStride, false, "src0");
  const ascemu::VOp y =
      ascemu::vop("Compare", src1, p.src1BlkStride, p.src1RepStride, false, "src1");
  uint64_t* cmp = ascemu::current().vec.cmp;
  uint8_t* ub = ascemu::ub_base();
  ascemu::current().issue(ascemu::kV, "Compare", ascemu::vec_accesses("Compare", g, {x, y}), [=] {
    cmp[0] = cmp[1] = 0;
    g.each([&](uint32_t r, uint32_t j) {
      if (ascemu::compare<T>(cmpMode, ascemu::load<T>(ub, x.at(r, j)),
                             ascemu::load<T>(ub, y.at(r, j))))
        cmp[j / 64] |= uint64_t{1} << (j % 64);
    });
  });
}

// ---- CompareScalar (also named Compares): dst bits = src0 cmp scalar ----
#define ASCEMU_CMP_SCALAR(NAME)                                                                    \
  template <typename T, typename U>                                                                \
  inline void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar,      \
                   CMPMODE cmpMode, uint32_t count) {                                              \
    ascemu::compare_types<T, U>(#NAME, cmpMode, true);                                             \
    const uint32_t n = ascemu::whole_repeats(#NAME, count, sizeof(T));                             \
    const ascemu::VOp x = ascemu::vop(#NAME, src0, 1, 8, false, "src0");                           \
    ascemu::vcompare<T>(#NAME, dst, x, nullptr, static_cast<ascemu::Calc<T>>(src1Scalar), cmpMode, \
                        n);                                                                        \
  }                                                                                                \
  template <typename T, typename U, bool isSetMask = true, typename M>                             \
  inline ascemu::IfMask<M> NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0,             \
                                const T src1Scalar, CMPMODE cmpMode, M mask,                       \
                                ascemu::Repeat repeatTime, const UnaryRepeatParams& p) {           \
    ascemu::compare_types<T, U>(#NAME, cmpMode, true);                                             \
    (void)mask; /* reserved on the A2 */                                                           \
    const uint32_t n = ascemu::repeat_times(#NAME, repeatTime);                                    \
    const ascemu::VOp x = ascemu::vop(#NAME, src0, p.srcBlkStride, p.srcRepStride, false, "src0"); \
    ascemu::vcompare<T>(#NAME, dst, x, nullptr, static_cast<ascemu::Calc<T>>(src1Scalar), cmpMode, \
                        n);                                                                        \
  }
ASCEMU_CMP_SCALAR(CompareScalar)
ASCEMU_CMP_SCALAR(Compares)
#undef ASCEMU_CMP_SCALAR

// ---- CMPMASK <-> UB (16 bytes) ----
template <typename T>
inline void GetCmpMask(const LocalTensor<T>& dst) {
  ascemu::vec_operand("GetCmpMask", dst, 16 / sizeof(T), true, 16);
  const uint64_t* cmp = ascemu::current().vec.cmp;
  uint8_t* p = ascemu::ub_base() + dst.HostOffset();
  ascemu::current().issue(
      ascemu::kV, "GetCmpMask",
      {ascemu::Access{ascemu::Mem::kUB, dst.HostOffset(), dst.HostOffset() + 16, true}},
      [=] { std::memcpy(p, cmp, 16); });
}
template <typename T>
inline void SetCmpMask(const LocalTensor<T>& src) {
  ascemu::vec_operand("SetCmpMask", src, 16 / sizeof(T), false, 16);
  uint64_t* cmp = ascemu::current().vec.cmp;
  const uint8_t* p = ascemu::ub_base() + src.HostOffset();
  ascemu::current().issue(
      ascemu::kV, "SetCmpMask",
      {ascemu::Access{ascemu::Mem::kUB, src.HostOffset(), src.HostOffset() + 16, false}},
      [=] { std::memcpy(cmp, p, 16); });
}

// ---- Select ----
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE selMode,
                   uint32_t count) {
  const ascemu::VGeom g = ascemu::geom2("Select", 256 / sizeof(T), count);
  ascemu::vselect("Select", dst, selMask, src0, &src1, T(), selMode, g, BinaryRepeatParams());
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0, T src1, SELMODE selMode, uint32_t count) {
  const ascemu::VGeom g = ascemu::geom2("Select", 256 / sizeof(T), count);
  ascemu::vselect<T, U>("Select", dst, selMask, src0, nullptr, src1, selMode, g,
                        BinaryRepeatParams());
}
template <typename T, typename U, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                                const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                SELMODE selMode, M mask, ascemu::Repeat repeatTime,
                                const BinaryRepeatParams& p) {
  const ascemu::VGeom g = ascemu::geom0<isSetMask>("Select", 256 / sizeof(T), mask, repeatTime);
  ascemu::vselect("Select", dst, selMask, src0, &src1, T(), selMode, g, p);
}
template <typename T, typename U, bool isSetMask = true, typename M>
inline ascemu::IfMask<M> Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                                const LocalTensor<T>& src0, T src1, SELMODE selMode, M mask,
                                ascemu::Repeat repeatTime, const BinaryRepeatParams& p) {
  const ascemu::VGeom g = ascemu::geom0<isSetMask>("Select", 256 / sizeof(T), mask, repeatTime);
  ascemu::vselect<T, U>("Select", dst, selMask, src0, nullptr, src1, selMode, g, p);
}

// The register form: the CMPMASK register selects (VSEL_CMPMASK_SPR), the mask register masks.
template <typename T, SELMODE selMode>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, ascemu::Repeat repeatTime,
                   const BinaryRepeatParams& p) {
  const char* call = "Select";
  ascemu::check(selMode == SELMODE::VSEL_CMPMASK_SPR, call,
                "the register form is emulated in VSEL_CMPMASK_SPR mode only");
  ascemu::vec_type(ascemu::kFloat<T>, call, ascemu::type_name<T>(), "half, float");
  ascemu::dst_stride(call, p.dstBlkStride);
  const ascemu::VGeom g =
      ascemu::vgeom(call, 256 / sizeof(T), ascemu::repeat_times(call, repeatTime));
  const ascemu::VOp x = ascemu::vop(call, src0, p.src0BlkStride, p.src0RepStride, false, "src0");
  const ascemu::VOp y = ascemu::vop(call, src1, p.src1BlkStride, p.src1RepStride, false, "src1");
  const ascemu::VOp d = ascemu::vop(call, dst, p.dstBlkStride, p.dstRepStride, true, "dst");
  const uint64_t* cmp = ascemu::current().vec.cmp;
  ascemu::vec_issue(call, g, {x, y, d}, [=](uint8_t* ub) {
    g.each([&](uint32_t r, uint32_t j) {
      const bool take0 = (cmp[j / 64] >> (j % 64)) & 1u;
      ascemu::store<T>(ub, d.at(r, j), ascemu::load<T>(ub, (take0 ? x : y).at(r, j)));
    });
  });
}

}  // namespace AscendC

// The vector unit's machinery (include kernel_operator.h): element types, operand checks, and the
// repeat geometry every vector instruction shares.
//
// An instruction runs `repeats` repeats of 256 bytes. In repeat r, element j (0 <= j < per, where
// per = 256 / the widest element size of the instruction) of an operand with element size s sits
// in its block b = j / (32 / s) at byte
//   base + (r * repStride + b * blkStride) * 32 + (j % (32 / s)) * s.
// Which elements run: in normal mode, bit j of the mask register (mask_lo holds elements 0..63,
// mask_hi 64..127); in counter mode, the first mask_lo elements of the whole call (the repeat count
// given to the call is ignored and ceil(mask_lo / per) repeats run). The race checker sees each
// operand's touched bytes block by block, merged.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "emu_tensor.h"

namespace ascemu {

template <typename T>
using Calc = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>, float, T>;

template <typename T, typename... Us>
constexpr bool kOneOf = (std::is_same_v<T, Us> || ...);

template <typename T>
constexpr bool kArith = kOneOf<T, half, float, int16_t, int32_t>;
template <typename T>
constexpr bool kFloat = kOneOf<T, half, float>;

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
  if constexpr (std::is_same_v<T, AscendC::int4b_t>) return "int4b_t";
  return "this type";
}

inline void vec_type(bool ok, const char* call, const char* type, const char* has) {
  check(ok, call,
        std::string("the Atlas A2 vector unit has no ") + call + " on " + type + " (it has " + has +
            ")");
}

// A vector operand: on a vector core, in UB, 32-byte aligned (or `align` bytes), `elems` inside it.
template <typename T>
inline Access vec_operand(const char* call, const AscendC::LocalTensor<T>& t, uint64_t elems,
                          bool write, uint64_t align = 32) {
  const Core& c = current();
  check(!c.aic(), call, "vector calls run on an AIV (vector core), not on the AIC");
  check(t.HostMem() == Mem::kUB, call,
        std::string("operand in ") + mem_name(t.HostMem()) + ", not UB");
  check(t.HostOffset() % align == 0, call,
        "UB address " + std::to_string(t.HostOffset()) + " is not " + std::to_string(align) +
            "-byte aligned");
  check(elems <= t.GetSize(), call,
        "count " + std::to_string(elems) + " past an operand of " + std::to_string(t.GetSize()) +
            " elements");
  return Access{Mem::kUB, t.HostOffset(), t.HostEnd(elems), write};
}

// A level-0 mask argument: a continuous count (integral) or the two-word bit mask (uint64_t[]).
template <typename M>
constexpr bool kMaskArg =
    std::is_integral_v<M> || std::is_same_v<M, uint64_t*> || std::is_same_v<M, const uint64_t*>;
template <typename M>
using IfMask = std::enable_if_t<kMaskArg<M>>;

inline void vec_count(const char* call, int64_t count) {
  check(count >= 0, call, "negative count " + std::to_string(count));
}

// A repeat count as the API types it (uint8_t), taken wide so that a value the narrowing would
// wrap is refused rather than run modulo 256.
struct Repeat {
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  Repeat(I v) : value(static_cast<int64_t>(v)) {}  // NOLINT: implicit, as the API's uint8_t
  int64_t value;
};
inline uint32_t repeat_times(const char* call, Repeat r, int64_t max = 255) {
  check(r.value >= 0 && r.value <= max, call,
        "repeatTime " + std::to_string(r.value) + " outside [0, " + std::to_string(max) + "]" +
            (max == 255 ? " (a uint8_t: the hardware would run " +
                              std::to_string(static_cast<uint8_t>(r.value)) + " repeats)"
                        : std::string()));
  return static_cast<uint32_t>(r.value);
}

// One operand of a level-0 instruction: `stride`s in 32-byte blocks.
struct VOp {
  uint64_t off = 0;  // UB byte offset of the tensor
  uint64_t end = 0;  // UB byte offset just past the tensor
  uint32_t es = 0;   // element bytes
  uint32_t blk = 1;  // blocks between the blocks of one repeat
  uint32_t rep = 8;  // blocks between repeats
  bool write = false;
  const char* role = "src";
  uint64_t at(uint32_t r, uint32_t j) const {
    const uint32_t epb = 32 / es;
    return off + (uint64_t{r} * rep + uint64_t{j / epb} * blk) * 32 + uint64_t{j % epb} * es;
  }
};

template <typename T>
inline VOp vop(const char* call, const AscendC::LocalTensor<T>& t, uint32_t blk, uint32_t rep,
               bool write, const char* role, uint32_t es = sizeof(T)) {
  vec_operand(call, t, 0, write);
  return VOp{t.HostOffset(), t.HostEnd(t.GetSize()), es, blk, rep, write, role};
}

// Which elements of which repeats an instruction runs.
struct VGeom {
  uint32_t per = 0;      // elements per repeat
  uint32_t repeats = 0;  // repeats that run
  bool counter = false;
  uint64_t count = 0;  // counter mode: elements of the call
  uint64_t hi = 0, lo = 0;
  bool active(uint32_t r, uint32_t j) const {
    if (counter) return uint64_t{r} * per + j < count;
    return j < 64 ? (lo >> j) & 1u : (hi >> (j - 64)) & 1u;
  }
  template <typename F>
  void each(F f) const {
    for (uint32_t r = 0; r < repeats; ++r)
      for (uint32_t j = 0; j < per; ++j)
        if (active(r, j)) f(r, j);
  }
};

// The geometry the mask registers give an instruction of `per` elements and `repeats` repeats.
inline VGeom vgeom(const char* call, uint32_t per, uint32_t repeats) {
  const VecRegs& g = current().vec;
  VGeom v;
  v.per = per;
  v.counter = g.counter;
  if (g.counter) {
    v.count = g.mask_lo;
    check(v.count <= mem_capacity(Mem::kUB, false), call,
          "counter mode runs " + std::to_string(v.count) + " elements, more than UB holds");
    v.repeats = static_cast<uint32_t>((v.count + per - 1) / per);
  } else {
    v.repeats = repeats;
    v.hi = g.mask_hi;
    v.lo = g.mask_lo;
  }
  return v;
}

// The mask register a continuous mask of `len` elements sets (the API's expansion, whatever mode).
void set_mask_len(const char* call, uint32_t per, uint64_t len);
// isSetMask with the two-word form: mask[0] low, mask[1] high (32-bit and wider: high unused).
void set_mask_bits(const char* call, uint32_t per, const uint64_t mask[]);
// A level-2 call: counter mode over `count` elements; level2_end() puts back normal mode and a
// full mask.
void level2_begin(uint64_t count);
void level2_end();

// UB byte ranges sorted and merged into accesses.
void merge_into(std::vector<std::pair<uint64_t, uint64_t>>& ranges, bool write,
                std::vector<Access>& out);
// The touched bytes of each operand, checked against its tensor and merged per operand.
std::vector<Access> vec_accesses(const char* call, const VGeom& g, const std::vector<VOp>& ops);

inline uint8_t* ub_base() {
  return current().base(Mem::kUB);
}

template <typename T>
inline T load(const uint8_t* ub, uint64_t at) {
  T v;
  std::memcpy(&v, ub + at, sizeof(T));
  return v;
}
template <typename T>
inline void store(uint8_t* ub, uint64_t at, T v) {
  std::memcpy(ub + at, &v, sizeof(T));
}

// Queue one vector instruction: fn(ub) runs when the V pipe reaches it.
template <typename F>
inline void vec_issue(const char* call, const VGeom& g, const std::vector<VOp>& ops, F fn) {
  std::vector<Access> acc = vec_accesses(call, g, ops);
  uint8_t* ub = ub_base();
  current().issue(kV, call, std::move(acc), [ub, fn] { fn(ub); });
}

}  // namespace ascemu

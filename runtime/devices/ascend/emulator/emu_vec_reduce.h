// The vector unit's reductions (include kernel_operator.h), on half and float:
//  - WholeReduceSum/Max/Min (renamed ReduceRepeat<ReduceType> in CANN 9.1): one result per repeat
//    at dst + r * dstRepStride units (sum: one T; max/min by ReduceOrder: [value, index] or
//    [index, value] = two T, value only = one T, index only = one uint32_t). The index is the
//    element's place in its repeat, stored as the bits of an unsigned integer of T's size; ties
//    give the first.
//  - BlockReduceSum/Max/Min (ReduceDataBlock): eight results per repeat, one per 32-byte block,
//    at dst + r * dstRepStride * (8 * sizeof(T)) bytes (dst aligned to 8 * sizeof(T)).
//  - PairReduceSum (ReducePairElem): src[2k] + src[2k+1], per / 2 results per repeat, repeats
//    dstRepStride * 128 bytes apart.
//  - ReduceSum/ReduceMax/ReduceMin: one result (and with calIndex the index over the whole input)
//    in dst[0] (dst[1]); level 2 (count) and level 0 (mask, repeatTime, srcRepStride), checking
//    sharedTmpBuffer against the sizes the API documents.
// Sums add in a binary tree of adjacent pairs inside each repeat (masked elements count as 0),
// rounding every addition to T. An element outside the mask takes no part; a block or pair with
// none writes nothing (dst keeps its value, as the Atlas A2 does).
#pragma once

#include <limits>

#include "emu_vec_elementwise.h"

namespace AscendC {
enum class ReduceType { NONE = -1, SUM = 0, MAX, MIN };
enum class ReduceOrder : uint8_t {
  ORDER_VALUE_INDEX = 0,
  ORDER_INDEX_VALUE,
  ORDER_ONLY_VALUE,
  ORDER_ONLY_INDEX,
};
}  // namespace AscendC

namespace ascemu {

using AscendC::ReduceOrder;
using AscendC::ReduceType;

template <typename T>
inline Calc<T> round_t(Calc<T> v) {
  return static_cast<Calc<T>>(static_cast<T>(v));
}

// Adjacent-pair tree over v (an odd one out passes up a level), each addition rounded to T.
template <typename T>
inline Calc<T> tree_sum(std::vector<Calc<T>> v) {
  if (v.empty()) return 0;
  for (size_t n = v.size(); n > 1;) {
    size_t half = n / 2;
    for (size_t i = 0; i < half; ++i) v[i] = round_t<T>(v[2 * i] + v[2 * i + 1]);
    if (n % 2) v[half++] = v[n - 1];
    n = half;
  }
  return v[0];
}

template <typename T>
inline Calc<T> identity(ReduceType k) {
  if (k == ReduceType::SUM) return 0;
  if constexpr (std::is_floating_point_v<Calc<T>>) {
    const Calc<T> inf = std::numeric_limits<Calc<T>>::infinity();
    return k == ReduceType::MAX ? -inf : inf;
  } else {  // a type the A2 does not reduce (refused before use): any compilable value
    return k == ReduceType::MAX ? std::numeric_limits<Calc<T>>::lowest()
                                : std::numeric_limits<Calc<T>>::max();
  }
}

// Value and first index of the max/min among elements [lo, hi) of repeat r.
struct Best {
  float value;
  uint32_t index;
  bool any;
};
template <typename T>
inline Best best_of(const uint8_t* ub, const VGeom& g, const VOp& x, uint32_t r, uint32_t lo,
                    uint32_t hi, ReduceType k) {
  Best b{static_cast<float>(identity<T>(k)), 0, false};
  for (uint32_t j = lo; j < hi; ++j) {
    if (!g.active(r, j)) continue;
    const float v = static_cast<float>(load<T>(ub, x.at(r, j)));
    if (!b.any || (k == ReduceType::MAX ? v > b.value : v < b.value)) b = Best{v, j, true};
  }
  return b;
}

// Sum of elements [lo, hi) of repeat r (a power-of-two span), masked ones as 0.
template <typename T>
inline Calc<T> sum_of(const uint8_t* ub, const VGeom& g, const VOp& x, uint32_t r, uint32_t lo,
                      uint32_t hi) {
  std::vector<Calc<T>> v(hi - lo, 0);
  for (uint32_t j = lo; j < hi; ++j)
    if (g.active(r, j)) v[j - lo] = static_cast<Calc<T>>(load<T>(ub, x.at(r, j)));
  return tree_sum<T>(std::move(v));
}

template <typename T>
inline void put_index(uint8_t* ub, uint64_t at, uint32_t index, uint32_t bytes) {
  if (bytes == 2)
    store<uint16_t>(ub, at, static_cast<uint16_t>(index));
  else
    store<uint32_t>(ub, at, index);
}

inline void reduce_stride(const char* call, int32_t v, const char* name) {
  check(v >= 0 && v <= 65535, call,
        std::string(name) + " " + std::to_string(v) + " outside [0, 65535]");
}

// Results of `bytes` each at dst + r * step, checked against dst and merged.
template <typename T>
inline std::vector<Access> dst_ranges(const char* call, const AscendC::LocalTensor<T>& dst,
                                      uint32_t repeats, uint64_t step, uint64_t bytes,
                                      uint64_t align) {
  vec_operand(call, dst, 0, true, align);
  std::vector<std::pair<uint64_t, uint64_t>> r;
  const uint64_t end = dst.HostEnd(dst.GetSize());
  for (uint32_t i = 0; i < repeats; ++i) {
    const uint64_t lo = dst.HostOffset() + i * step;
    check(lo + bytes <= end, call,
          "dst reaches UB byte " + std::to_string(lo + bytes) + " (repeat " + std::to_string(i) +
              "), past its tensor's end at " + std::to_string(end));
    r.emplace_back(lo, lo + bytes);
  }
  std::vector<Access> out;
  merge_into(r, true, out);
  return out;
}

// WholeReduce*/ReduceRepeat.
template <typename T>
inline void whole_reduce(const char* call, ReduceType k, const AscendC::LocalTensor<T>& dst,
                         const AscendC::LocalTensor<T>& src, const VGeom& g, int32_t dstRepStride,
                         int32_t srcBlkStride, int32_t srcRepStride, ReduceOrder order) {
  vec_type(kFloat<T>, call, type_name<T>(), "half, float");
  reduce_stride(call, dstRepStride, "dstRepStride");
  reduce_stride(call, srcBlkStride, "srcBlkStride");
  reduce_stride(call, srcRepStride, "srcRepStride");
  const uint32_t es = sizeof(T);
  const bool sum = k == ReduceType::SUM;
  const uint32_t unit = sum || order == ReduceOrder::ORDER_ONLY_VALUE ? es
                        : order == ReduceOrder::ORDER_ONLY_INDEX      ? 4
                                                                      : 2 * es;
  const VOp x = vop(call, src, static_cast<uint32_t>(srcBlkStride),
                    static_cast<uint32_t>(srcRepStride), false, "src");
  std::vector<Access> acc = vec_accesses(call, g, {x});
  for (const Access& a : dst_ranges(
           call, dst, g.repeats, uint64_t{unit} * static_cast<uint32_t>(dstRepStride), unit, unit))
    acc.push_back(a);
  const uint64_t d = dst.HostOffset(), step = uint64_t{unit} * static_cast<uint32_t>(dstRepStride);
  uint8_t* ub = ub_base();
  current().issue(kV, call, std::move(acc), [=] {
    for (uint32_t r = 0; r < g.repeats; ++r) {
      const uint64_t at = d + r * step;
      if (sum) {
        store<T>(ub, at, static_cast<T>(sum_of<T>(ub, g, x, r, 0, g.per)));
        continue;
      }
      const Best b = best_of<T>(ub, g, x, r, 0, g.per, k);
      switch (order) {
        case ReduceOrder::ORDER_VALUE_INDEX:
          store<T>(ub, at, static_cast<T>(b.value));
          put_index<T>(ub, at + es, b.index, es);
          break;
        case ReduceOrder::ORDER_INDEX_VALUE:
          put_index<T>(ub, at, b.index, es);
          store<T>(ub, at + es, static_cast<T>(b.value));
          break;
        case ReduceOrder::ORDER_ONLY_VALUE:
          store<T>(ub, at, static_cast<T>(b.value));
          break;
        default:
          store<uint32_t>(ub, at, b.index);
      }
    }
  });
}

// BlockReduce*/ReduceDataBlock (span 32 / sizeof(T), 8 results) and PairReduceSum (span 2).
template <typename T>
inline void group_reduce(const char* call, ReduceType k, const AscendC::LocalTensor<T>& dst,
                         const AscendC::LocalTensor<T>& src, const VGeom& g, uint32_t span,
                         uint64_t dst_unit, uint64_t dst_align, int32_t dstRepStride,
                         int32_t srcBlkStride, int32_t srcRepStride) {
  vec_type(kFloat<T>, call, type_name<T>(), "half, float");
  reduce_stride(call, dstRepStride, "dstRepStride");
  reduce_stride(call, srcBlkStride, "srcBlkStride");
  reduce_stride(call, srcRepStride, "srcRepStride");
  const uint32_t groups = g.per / span;
  const VOp x = vop(call, src, static_cast<uint32_t>(srcBlkStride),
                    static_cast<uint32_t>(srcRepStride), false, "src");
  const uint64_t step = dst_unit * static_cast<uint32_t>(dstRepStride);
  auto any = [g, span](uint32_t r, uint32_t q) {
    for (uint32_t j = q * span; j < (q + 1) * span; ++j)
      if (g.active(r, j)) return true;
    return false;
  };
  vec_operand(call, dst, 0, true, dst_align);
  const uint64_t d = dst.HostOffset(), end = dst.HostEnd(dst.GetSize());
  std::vector<std::pair<uint64_t, uint64_t>> w;
  for (uint32_t r = 0; r < g.repeats; ++r)
    for (uint32_t q = 0; q < groups; ++q) {
      if (!any(r, q)) continue;
      const uint64_t at = d + r * step + uint64_t{q} * sizeof(T);
      check(at + sizeof(T) <= end, call,
            "dst reaches UB byte " + std::to_string(at + sizeof(T)) + " (repeat " +
                std::to_string(r) + "), past its tensor's end at " + std::to_string(end));
      w.emplace_back(at, at + sizeof(T));
    }
  std::vector<Access> acc = vec_accesses(call, g, {x});
  merge_into(w, true, acc);
  uint8_t* ub = ub_base();
  current().issue(kV, call, std::move(acc), [=] {
    for (uint32_t r = 0; r < g.repeats; ++r)
      for (uint32_t q = 0; q < groups; ++q) {
        if (!any(r, q)) continue;  // a group with no element in the mask keeps dst
        const Calc<T> v =
            k == ReduceType::SUM
                ? sum_of<T>(ub, g, x, r, q * span, (q + 1) * span)
                : static_cast<Calc<T>>(best_of<T>(ub, g, x, r, q * span, (q + 1) * span, k).value);
        store<T>(ub, d + r * step + uint64_t{q} * sizeof(T), static_cast<T>(v));
      }
  });
}

// sharedTmpBuffer elements ReduceMax/ReduceMin (calIndex or not) and level-0 ReduceSum need.
uint64_t reduce_tmp_elems(ReduceType k, bool level0, bool index, uint64_t first_repeats,
                          uint32_t per, uint32_t per_block);

// ReduceSum/Max/Min: one value (and index) from `g`, srcRepStride apart.
template <typename T>
inline void reduce_all(const char* call, ReduceType k, const AscendC::LocalTensor<T>& dst,
                       const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<T>& tmp,
                       const VGeom& g, uint32_t src_rep, bool index, bool level0,
                       uint64_t first_repeats) {
  vec_type(kFloat<T>, call, type_name<T>(), "half, float");
  if (g.repeats == 0 || (g.counter && g.count == 0)) return;  // a NOP on the Atlas A2
  const uint32_t es = sizeof(T);
  check(!index || es != 2 || uint64_t{g.repeats} * g.per <= 65536, call,
        "a half ReduceMax/ReduceMin index stops at 65535");
  const uint64_t need = reduce_tmp_elems(k, level0, index, first_repeats, g.per, 32 / es);
  vec_operand(call, tmp, 0, true);
  check(need <= tmp.GetSize(), call,
        "sharedTmpBuffer holds " + std::to_string(tmp.GetSize()) + " elements; the call needs " +
            std::to_string(need));
  const VOp x = vop(call, src, 1, src_rep, false, "src");
  std::vector<Access> acc = vec_accesses(call, g, {x});
  std::vector<std::pair<uint64_t, uint64_t>> w = {
      {dst.HostOffset(), dst.HostOffset() + (index ? 2 : 1) * es}};
  vec_operand(call, dst, index ? 2 : 1, true, index ? 2 * es : es);
  if (need) w.emplace_back(tmp.HostOffset(), tmp.HostEnd(need));
  merge_into(w, true, acc);
  const uint64_t d = dst.HostOffset();
  uint8_t* ub = ub_base();
  current().issue(kV, call, std::move(acc), [=] {
    if (k == ReduceType::SUM) {
      std::vector<Calc<T>> parts;
      for (uint32_t r = 0; r < g.repeats; ++r) parts.push_back(sum_of<T>(ub, g, x, r, 0, g.per));
      Calc<T> total = 0;
      if (!level0) {
        for (const Calc<T> p : parts) total = round_t<T>(total + p);
      } else {
        while (parts.size() > 1) {  // the repeat sums reduced again, `per` at a time
          std::vector<Calc<T>> next;
          for (size_t i = 0; i < parts.size(); i += g.per) {
            std::vector<Calc<T>> chunk(g.per, 0);
            for (size_t j = i; j < parts.size() && j < i + g.per; ++j) chunk[j - i] = parts[j];
            next.push_back(tree_sum<T>(std::move(chunk)));
          }
          parts = std::move(next);
        }
        total = parts[0];
      }
      store<T>(ub, d, static_cast<T>(total));
      return;
    }
    Best b{static_cast<float>(identity<T>(k)), 0, false};
    for (uint32_t r = 0; r < g.repeats; ++r) {
      const Best c = best_of<T>(ub, g, x, r, 0, g.per, k);
      if (c.any && (!b.any || (k == ReduceType::MAX ? c.value > b.value : c.value < b.value)))
        b = Best{c.value, r * g.per + c.index, true};
    }
    store<T>(ub, d, static_cast<T>(b.value));
    if (index) put_index<T>(ub, d + es, b.index, es);
  });
}

template <typename T>
inline VGeom geom_reduce(const char* call, const int32_t mask, int32_t repeats, bool set) {
  check(repeats >= 0, call, "negative repeatTime " + std::to_string(repeats));
  if (set) set_mask_len(call, 256 / sizeof(T), static_cast<uint64_t>(mask < 0 ? 0 : mask));
  return vgeom(call, 256 / sizeof(T), static_cast<uint32_t>(repeats));
}
template <typename T>
inline VGeom geom_reduce(const char* call, const uint64_t mask[], int32_t repeats, bool set) {
  check(repeats >= 0, call, "negative repeatTime " + std::to_string(repeats));
  if (set) set_mask_bits(call, 256 / sizeof(T), mask);
  return vgeom(call, 256 / sizeof(T), static_cast<uint32_t>(repeats));
}

}  // namespace ascemu

namespace AscendC {

#define ASCEMU_MASK_ARG typename M, typename = ascemu::IfMask<M>

// ---- WholeReduce / ReduceRepeat ----
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true, ASCEMU_MASK_ARG>
inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, M mask,
                         const int32_t repeatTime, const int32_t dstRepStride,
                         const int32_t srcBlkStride, const int32_t srcRepStride,
                         ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  static_assert(std::is_same_v<T, U>, "the Atlas A2 reduces into the source's type");
  const char* call = reduceType == ReduceType::SUM   ? "WholeReduceSum"
                     : reduceType == ReduceType::MAX ? "WholeReduceMax"
                                                     : "WholeReduceMin";
  ascemu::repeat_times(call, repeatTime);
  const ascemu::VGeom g = ascemu::geom_reduce<T>(
      call, static_cast<std::conditional_t<std::is_integral_v<M>, int32_t, M>>(mask), repeatTime,
      isSetMask);
  ascemu::whole_reduce(call, reduceType, dst, src, g, dstRepStride, srcBlkStride, srcRepStride,
                       order);
}
template <typename T, bool isSetMask = true, ASCEMU_MASK_ARG>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride) {
  ReduceRepeat<ReduceType::SUM, T, T, isSetMask>(dst, src, mask, repeatTime, dstRepStride,
                                                 srcBlkStride, srcRepStride);
}
template <typename T, bool isSetMask = true, ASCEMU_MASK_ARG>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  ReduceRepeat<ReduceType::MAX, T, T, isSetMask>(dst, src, mask, repeatTime, dstRepStride,
                                                 srcBlkStride, srcRepStride, order);
}
template <typename T, bool isSetMask = true, ASCEMU_MASK_ARG>
inline void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  ReduceRepeat<ReduceType::MIN, T, T, isSetMask>(dst, src, mask, repeatTime, dstRepStride,
                                                 srcBlkStride, srcRepStride, order);
}

// ---- BlockReduce / ReduceDataBlock (mask before repeatTime), PairReduceSum / ReducePairElem ----
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true, ASCEMU_MASK_ARG>
inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, M mask,
                            const int32_t repeatTime, const int32_t dstRepStride,
                            const int32_t srcBlkStride, const int32_t srcRepStride) {
  static_assert(std::is_same_v<T, U>, "the Atlas A2 reduces into the source's type");
  const char* call = reduceType == ReduceType::SUM   ? "BlockReduceSum"
                     : reduceType == ReduceType::MAX ? "BlockReduceMax"
                                                     : "BlockReduceMin";
  ascemu::repeat_times(call, repeatTime);
  const ascemu::VGeom g = ascemu::geom_reduce<T>(
      call, static_cast<std::conditional_t<std::is_integral_v<M>, int32_t, M>>(mask), repeatTime,
      isSetMask);
  ascemu::group_reduce(call, reduceType, dst, src, g, 32 / sizeof(T), 8 * sizeof(T), 8 * sizeof(T),
                       dstRepStride, srcBlkStride, srcRepStride);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true, ASCEMU_MASK_ARG>
inline void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, M mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride) {
  static_assert(std::is_same_v<T, U>, "the Atlas A2 reduces into the source's type");
  static_assert(reduceType == ReduceType::SUM, "ReducePairElem sums only");
  ascemu::repeat_times("PairReduceSum", repeatTime);
  const ascemu::VGeom g = ascemu::geom_reduce<T>(
      "PairReduceSum", static_cast<std::conditional_t<std::is_integral_v<M>, int32_t, M>>(mask),
      repeatTime, isSetMask);
  ascemu::group_reduce("PairReduceSum", reduceType, dst, src, g, 2, 128, 32, dstRepStride,
                       srcBlkStride, srcRepStride);
}
#define ASCEMU_OLD_GROUP(NAME, NEW, KIND)                                                          \
  template <typename T, bool isSetMask = true, ASCEMU_MASK_ARG>                                    \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, \
                   M mask, const int32_t dstRepStride, const int32_t srcBlkStride,                 \
                   const int32_t srcRepStride) {                                                   \
    NEW<KIND, T, T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,             \
                               srcRepStride);                                                      \
  }
ASCEMU_OLD_GROUP(BlockReduceSum, ReduceDataBlock, ReduceType::SUM)
ASCEMU_OLD_GROUP(BlockReduceMax, ReduceDataBlock, ReduceType::MAX)
ASCEMU_OLD_GROUP(BlockReduceMin, ReduceDataBlock, ReduceType::MIN)
ASCEMU_OLD_GROUP(PairReduceSum, ReducePairElem, ReduceType::SUM)
#undef ASCEMU_OLD_GROUP

// ---- ReduceSum / ReduceMax / ReduceMin ----
#define ASCEMU_REDUCE(NAME, KIND, INDEX_PARAM, INDEX)                                        \
  template <typename T>                                                                      \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                     \
                   const LocalTensor<T>& sharedTmpBuffer, const int32_t count INDEX_PARAM) { \
    ascemu::vec_count(#NAME, count);                                                         \
    const uint32_t per = 256 / sizeof(T);                                                    \
    const ascemu::VGeom g = ascemu::geom2(#NAME, per, count);                                \
    const uint64_t first = std::max<uint64_t>(1, static_cast<uint64_t>(count) / per);        \
    ascemu::reduce_all(#NAME, KIND, dst, src, sharedTmpBuffer, g, 8, INDEX, false, first);   \
  }                                                                                          \
  template <typename T, ASCEMU_MASK_ARG>                                                     \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                     \
                   const LocalTensor<T>& sharedTmpBuffer, M mask, const int32_t repeatTime,  \
                   const int32_t srcRepStride INDEX_PARAM) {                                 \
    ascemu::reduce_stride(#NAME, srcRepStride, "srcRepStride");                              \
    const ascemu::VGeom g = ascemu::geom_reduce<T>(                                          \
        #NAME, static_cast<std::conditional_t<std::is_integral_v<M>, int32_t, M>>(mask),     \
        repeatTime, true);                                                                   \
    ascemu::reduce_all(#NAME, KIND, dst, src, sharedTmpBuffer, g,                            \
                       static_cast<uint32_t>(srcRepStride), INDEX, true,                     \
                       static_cast<uint64_t>(repeatTime));                                   \
  }
#define ASCEMU_COMMA ,
ASCEMU_REDUCE(ReduceSum, ReduceType::SUM, , false)
ASCEMU_REDUCE(ReduceMax, ReduceType::MAX, ASCEMU_COMMA bool calIndex = 0, calIndex)
ASCEMU_REDUCE(ReduceMin, ReduceType::MIN, ASCEMU_COMMA bool calIndex = 0, calIndex)
#undef ASCEMU_COMMA
#undef ASCEMU_REDUCE
#undef ASCEMU_MASK_ARG

}  // namespace AscendC

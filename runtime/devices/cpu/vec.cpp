// vec_binary / vec_binary_scalar / vec_binary_bcast_mid / vec_compare / vec_select /
// vec_duplicate. f32/f64 arithmetic, f32 compares and 4-byte selects run Highway SIMD loops
// (runtime dispatch); f16/bf16 widen to f32 in chunks; integers, bool and the rare float ops
// (Pow, Mod) are scalar loops.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/devices/cpu/vec.h"
#include "runtime/devices/cpu/vec_internal.h"

// foreach_target.h must precede the other Highway headers.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/devices/cpu/vec.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace asc::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Operand modes: vector-vector, vector-scalar (a op s), scalar-vector (s op a).
enum Mode : int { kVV, kVS, kSV };

// y[i] = op(a[i], b[i] or s): four vectors per iteration, single vectors, then the tail through
// zero-padded stack vectors (y may alias a or b).
template <int kMode, class D, class Op>
HWY_INLINE void Map2(D d, const hn::TFromD<D>* a, const hn::TFromD<D>* b, hn::TFromD<D> s,
                     hn::TFromD<D>* y, size_t n, const Op& op) {
  using T = hn::TFromD<D>;
  const size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, s);
  auto apply = [&](auto va, auto vb) HWY_ATTR {
    if constexpr (kMode == kVV) return op(d, va, vb);
    if constexpr (kMode == kVS) return op(d, va, vs);
    if constexpr (kMode == kSV) return op(d, vs, va);
  };
  auto load_b = [&](size_t i) HWY_ATTR {
    if constexpr (kMode == kVV) return hn::LoadU(d, b + i);
    return vs;
  };
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto r0 = apply(hn::LoadU(d, a + i), load_b(i));
    const auto r1 = apply(hn::LoadU(d, a + i + N), load_b(i + N));
    const auto r2 = apply(hn::LoadU(d, a + i + 2 * N), load_b(i + 2 * N));
    const auto r3 = apply(hn::LoadU(d, a + i + 3 * N), load_b(i + 3 * N));
    hn::StoreU(r0, d, y + i);
    hn::StoreU(r1, d, y + i + N);
    hn::StoreU(r2, d, y + i + 2 * N);
    hn::StoreU(r3, d, y + i + 3 * N);
  }
  for (; i + N <= n; i += N) hn::StoreU(apply(hn::LoadU(d, a + i), load_b(i)), d, y + i);
  if (i < n) {
    HWY_ALIGN T ba[HWY_MAX_BYTES / sizeof(T)] = {};
    HWY_ALIGN T bb[HWY_MAX_BYTES / sizeof(T)] = {};
    std::memcpy(ba, a + i, (n - i) * sizeof(T));
    if constexpr (kMode == kVV) std::memcpy(bb, b + i, (n - i) * sizeof(T));
    hn::Store(apply(hn::Load(d, ba), hn::Load(d, bb)), d, ba);
    std::memcpy(y + i, ba, (n - i) * sizeof(T));
  }
}

#define ASC_BINARY_OP(NAME, EXPR)                  \
  struct NAME {                                    \
    template <class D, class V>                    \
    HWY_INLINE V operator()(D d, V a, V b) const { \
      (void)d;                                     \
      return EXPR;                                 \
    }                                              \
  };
ASC_BINARY_OP(OpAdd, hn::Add(a, b))
ASC_BINARY_OP(OpSub, hn::Sub(a, b))
ASC_BINARY_OP(OpMul, hn::Mul(a, b))
ASC_BINARY_OP(OpDiv, hn::Div(a, b))
// NaN-propagating max/min (the x86 instructions return the second operand on NaN).
ASC_BINARY_OP(OpMax,
              hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, hn::Max(a, b))))
ASC_BINARY_OP(OpMin,
              hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, hn::Min(a, b))))
#undef ASC_BINARY_OP

// Calls f with the functor of a float binary op; false for the others.
template <class F>
HWY_INLINE bool WithFloatOp(BinaryOp op, const F& f) {
  switch (op) {
    case BinaryOp::kAdd:
      f(OpAdd{});
      return true;
    case BinaryOp::kSub:
      f(OpSub{});
      return true;
    case BinaryOp::kMul:
      f(OpMul{});
      return true;
    case BinaryOp::kDiv:
      f(OpDiv{});
      return true;
    case BinaryOp::kMax:
      f(OpMax{});
      return true;
    case BinaryOp::kMin:
      f(OpMin{});
      return true;
    default:
      return false;
  }
}

template <int kMode, class T>
HWY_INLINE bool BinaryMode(BinaryOp op, const T* a, const T* b, T s, T* y, size_t n) {
  const hn::ScalableTag<T> d;
  return WithFloatOp(op, [&](auto fn) HWY_ATTR { Map2<kMode>(d, a, b, s, y, n, fn); });
}

template <class T>
HWY_INLINE bool BinaryFloat(uint8_t op, int mode, const T* a, const T* b, T s, T* y, size_t n) {
  const auto bop = static_cast<BinaryOp>(op);
  if (mode == kVV) return BinaryMode<kVV>(bop, a, b, s, y, n);
  if (mode == kVS) return BinaryMode<kVS>(bop, a, b, s, y, n);
  return BinaryMode<kSV>(bop, a, b, s, y, n);
}

bool BinaryF32(uint8_t op, int mode, const float* a, const float* b, float s, float* y, size_t n) {
  return BinaryFloat(op, mode, a, b, s, y, n);
}
// y[o, r, :] = a[o, r, :] op b[o, :] over outer x mid rows of `inner` elements (inner == 1: b[o]
// against a row of mid elements) in one call: short rows (a depthwise conv's 7-wide maps) take
// masked vectors instead of a dispatch and a padded copy each.
template <class Op>
HWY_INLINE void BcastRows(const float* a, const float* b, float* y, size_t outer, size_t mid,
                          size_t inner, const Op& op) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto row = [&](const float* pa, const float* pb, bool scalar_b, float* py, size_t n) HWY_ATTR {
    const auto vs = hn::Set(d, *pb);
    size_t i = 0;
    for (; i + N <= n; i += N)
      hn::StoreU(op(d, hn::LoadU(d, pa + i), scalar_b ? vs : hn::LoadU(d, pb + i)), d, py + i);
    if (i < n) {
      const auto m = hn::FirstN(d, n - i);
      const auto vb = scalar_b ? vs : hn::MaskedLoad(m, d, pb + i);
      hn::BlendedStore(op(d, hn::MaskedLoad(m, d, pa + i), vb), m, d, py + i);
    }
  };
  for (size_t o = 0; o < outer; ++o) {
    if (inner == 1) {
      row(a + o * mid, b + o, true, y + o * mid, mid);
      continue;
    }
    for (size_t r = 0; r < mid; ++r) {
      const size_t off = (o * mid + r) * inner;
      row(a + off, b + o * inner, false, y + off, inner);
    }
  }
}

bool BcastMidF32(uint8_t op, const float* a, const float* b, float* y, size_t outer, size_t mid,
                 size_t inner) {
  return WithFloatOp(static_cast<BinaryOp>(op),
                     [&](auto fn) HWY_ATTR { BcastRows(a, b, y, outer, mid, inner, fn); });
}
bool BinaryF64(uint8_t op, int mode, const double* a, const double* b, double s, double* y,
               size_t n) {
  return BinaryFloat(op, mode, a, b, s, y, n);
}

// f32 compares: lane mask -> i32 0/1 -> u8.
template <class Cmp>
HWY_INLINE void CompareLoop(const float* a, const float* b, uint8_t* y, size_t n, const Cmp& cmp) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> du8;
  const size_t N = hn::Lanes(df);
  const auto one = hn::Set(di, 1);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto m = cmp(hn::LoadU(df, a + i), hn::LoadU(df, b + i));
    const auto v = hn::And(hn::BitCast(di, hn::VecFromMask(df, m)), one);
    hn::StoreU(hn::DemoteTo(du8, v), du8, y + i);
  }
  for (; i < n; ++i) {
    const auto m = cmp(hn::Set(df, a[i]), hn::Set(df, b[i]));
    y[i] = static_cast<uint8_t>(hn::GetLane(hn::BitCast(di, hn::VecFromMask(df, m))) & 1);
  }
}

struct CmpEq {
  template <class V>
  HWY_INLINE auto operator()(V a, V b) const {
    return hn::Eq(a, b);
  }
};
// Not Ne(a, b): Highway's Ne is an ordered compare on AVX2/AVX-512 (false on NaN).
struct CmpNe {
  template <class V>
  HWY_INLINE auto operator()(V a, V b) const {
    return hn::Not(hn::Eq(a, b));
  }
};
struct CmpLt {
  template <class V>
  HWY_INLINE auto operator()(V a, V b) const {
    return hn::Lt(a, b);
  }
};
struct CmpLe {
  template <class V>
  HWY_INLINE auto operator()(V a, V b) const {
    return hn::Le(a, b);
  }
};
struct CmpGt {
  template <class V>
  HWY_INLINE auto operator()(V a, V b) const {
    return hn::Gt(a, b);
  }
};
struct CmpGe {
  template <class V>
  HWY_INLINE auto operator()(V a, V b) const {
    return hn::Ge(a, b);
  }
};

void CompareF32(uint8_t op, const float* a, const float* b, uint8_t* y, size_t n) {
  switch (static_cast<CmpOp>(op)) {
    case CmpOp::kEq:
      return CompareLoop(a, b, y, n, CmpEq{});
    case CmpOp::kNe:
      return CompareLoop(a, b, y, n, CmpNe{});
    case CmpOp::kLt:
      return CompareLoop(a, b, y, n, CmpLt{});
    case CmpOp::kLe:
      return CompareLoop(a, b, y, n, CmpLe{});
    case CmpOp::kGt:
      return CompareLoop(a, b, y, n, CmpGt{});
    case CmpOp::kGe:
      return CompareLoop(a, b, y, n, CmpGe{});
  }
}

// 4-byte select: cond bytes widened to u32 lanes.
void Select32(const uint8_t* c, const uint32_t* a, const uint32_t* b, uint32_t* y, size_t n) {
  const hn::ScalableTag<uint32_t> du;
  const hn::Rebind<uint8_t, decltype(du)> du8;
  const size_t N = hn::Lanes(du);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto m = hn::Ne(hn::PromoteTo(du, hn::LoadU(du8, c + i)), hn::Zero(du));
    hn::StoreU(hn::IfThenElse(m, hn::LoadU(du, a + i), hn::LoadU(du, b + i)), du, y + i);
  }
  for (; i < n; ++i) y[i] = c[i] ? a[i] : b[i];
}

}  // namespace asc::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::cpu {

HWY_EXPORT(BinaryF32);
HWY_EXPORT(BcastMidF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(CompareF32);
HWY_EXPORT(Select32);

namespace {

constexpr int kVV = 0, kVS = 1, kSV = 2;

// Scalar element op for every numeric type (T is the compute type: float, double or integer).
template <class T>
bool binary_elem(BinaryOp op, T a, T b, T& y) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::kAdd:
        y = a + b;
        return true;
      case BinaryOp::kSub:
        y = a - b;
        return true;
      case BinaryOp::kMul:
        y = a * b;
        return true;
      case BinaryOp::kDiv:
        y = a / b;
        return true;
      case BinaryOp::kPow:
        y = static_cast<T>(std::pow(double(a), double(b)));
        return true;
      case BinaryOp::kMax:
        y = (a != a || b != b) ? (a != a ? a : b) : std::max(a, b);
        return true;
      case BinaryOp::kMin:
        y = (a != a || b != b) ? (a != a ? a : b) : std::min(a, b);
        return true;
      case BinaryOp::kMod:
        y = std::fmod(a, b);
        return true;
      default:
        return false;
    }
  } else {
    // Wrapping arithmetic in the unsigned type of at least 32 bits.
    using W = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
    switch (op) {
      case BinaryOp::kAdd:
        y = static_cast<T>(W(a) + W(b));
        return true;
      case BinaryOp::kSub:
        y = static_cast<T>(W(a) - W(b));
        return true;
      case BinaryOp::kMul:
        y = static_cast<T>(W(a) * W(b));
        return true;
      case BinaryOp::kDiv:
        if (b == 0)
          y = 0;
        else if (std::is_signed_v<T> && b == T(-1))
          y = static_cast<T>(W(0) - W(a));
        else
          y = static_cast<T>(a / b);
        return true;
      case BinaryOp::kMod: {
        if (b == 0 || (std::is_signed_v<T> && b == T(-1))) {
          y = 0;
          return true;
        }
        T r = static_cast<T>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        y = r;
        return true;
      }
      case BinaryOp::kPow: {
        if (b < T(0)) {  // 1 / a^|b| truncated: 0 unless |a| == 1 (and 0 for a == 0)
          if (a == T(1))
            y = 1;
          else if (std::is_signed_v<T> && a == T(-1))
            y = (W(b) & 1) ? T(-1) : T(1);
          else
            y = 0;
          return true;
        }
        W base = W(a), r = 1;
        for (W e = W(b); e; e >>= 1) {
          if (e & 1) r *= base;
          base *= base;
        }
        y = static_cast<T>(r);
        return true;
      }
      case BinaryOp::kMax:
        y = std::max(a, b);
        return true;
      case BinaryOp::kMin:
        y = std::min(a, b);
        return true;
      default:
        return false;
    }
  }
}

template <class T>
bool binary_scalar_loop(BinaryOp op, int mode, const T* a, const T* b, T s, T* y, size_t n) {
  T probe{};
  if (!binary_elem(op, T{}, T{1}, probe)) return false;
  if (mode == kVV)
    for (size_t i = 0; i < n; ++i) binary_elem(op, a[i], b[i], y[i]);
  else if (mode == kVS)
    for (size_t i = 0; i < n; ++i) binary_elem(op, a[i], s, y[i]);
  else
    for (size_t i = 0; i < n; ++i) binary_elem(op, s, a[i], y[i]);
  return true;
}

bool binary_f32(BinaryOp op, int mode, const float* a, const float* b, float s, float* y,
                size_t n) {
  return HWY_DYNAMIC_DISPATCH(BinaryF32)(static_cast<uint8_t>(op), mode, a, b, s, y, n) ||
         binary_scalar_loop(op, mode, a, b, s, y, n);
}

// f16/bf16: widen chunks of a (and b) to f32, compute, round back.
bool binary_half(BinaryOp op, DType t, int mode, const void* a, const void* b, float s, void* y,
                 size_t n) {
  constexpr size_t kChunk = 1024;
  float fa[kChunk], fb[kChunk];
  const auto* ha = static_cast<const uint16_t*>(a);
  const auto* hb = static_cast<const uint16_t*>(b);
  auto* hy = static_cast<uint16_t*>(y);
  for (size_t i = 0; i < n; i += kChunk) {
    const auto m = static_cast<int64_t>(std::min(kChunk, n - i));
    vec_cast(t, DType::kF32, ha + i, fa, m);
    if (mode == kVV) vec_cast(t, DType::kF32, hb + i, fb, m);
    if (!binary_f32(op, mode, fa, fb, s, fa, static_cast<size_t>(m))) return false;
    vec_cast(DType::kF32, t, fa, hy + i, m);
  }
  return true;
}

// The common entry: b is n elements (kVV) or one element (kVS, kSV), both of dtype t.
void binary_any(const char* fn, BinaryOp op, DType t, int mode, const void* a, const void* b,
                void* y, int64_t n) {
  const size_t un = n > 0 ? static_cast<size_t>(n) : 0;
  // The scalar operand (kVS, kSV); b is only dereferenced when it is one.
  auto scalar = [&](auto tag) {
    using T = typename decltype(tag)::type;
    return mode == kVV ? T{} : *static_cast<const T*>(b);
  };
  bool ok = false;
  if (t == DType::kBool) {
    if (op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor) {
      const auto* xa = static_cast<const uint8_t*>(a);
      const auto* xb = static_cast<const uint8_t*>(b);
      const bool sb = scalar(detail::Tag<uint8_t>{}) != 0;
      auto* yb = static_cast<uint8_t*>(y);
      for (size_t i = 0; i < un; ++i) {
        const bool p = xa[i] != 0, q = mode == kVV ? xb[i] != 0 : sb;
        yb[i] = op == BinaryOp::kAnd ? (p && q) : op == BinaryOp::kOr ? (p || q) : (p != q);
      }
      ok = true;
    }
  } else if (op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor) {
    ok = false;
  } else if (t == DType::kF32) {
    const auto* fb = static_cast<const float*>(b);
    ok = binary_f32(op, mode, static_cast<const float*>(a), fb, scalar(detail::Tag<float>{}),
                    static_cast<float*>(y), un);
  } else if (t == DType::kF64) {
    const auto* da = static_cast<const double*>(a);
    const auto* db = static_cast<const double*>(b);
    auto* dy = static_cast<double*>(y);
    const double s = scalar(detail::Tag<double>{});
    ok = HWY_DYNAMIC_DISPATCH(BinaryF64)(static_cast<uint8_t>(op), mode, da, db, s, dy, un) ||
         binary_scalar_loop(op, mode, da, db, s, dy, un);
  } else if (t == DType::kF16) {
    const float s = f16_to_f32(scalar(detail::Tag<f16>{}));
    ok = binary_half(op, t, mode, a, b, s, y, un);
  } else if (t == DType::kBF16) {
    const float s = bf16_to_f32(scalar(detail::Tag<bf16>{}));
    ok = binary_half(op, t, mode, a, b, s, y, un);
  } else {
    detail::dispatch_int(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto* tb = static_cast<const T*>(b);
      ok = binary_scalar_loop(op, mode, static_cast<const T*>(a), tb, scalar(tag),
                              static_cast<T*>(y), un);
    });
  }
  if (!ok) detail::vec_unsupported(fn, op_name(op), t);
}

template <class T>
bool compare_elem(CmpOp op, T a, T b) {
  switch (op) {
    case CmpOp::kEq:
      return a == b;
    case CmpOp::kNe:
      return a != b;
    case CmpOp::kLt:
      return a < b;
    case CmpOp::kLe:
      return a <= b;
    case CmpOp::kGt:
      return a > b;
    case CmpOp::kGe:
      return a >= b;
  }
  return false;
}

}  // namespace

void vec_binary(BinaryOp op, DType t, const void* a, const void* b, void* y, int64_t n) {
  binary_any("vec_binary", op, t, kVV, a, b, y, n);
}

void vec_binary_scalar(BinaryOp op, DType t, const void* a, double s, void* y, int64_t n,
                       bool scalar_left) {
  if (dtype_size(t) == 0) detail::vec_unsupported("vec_binary_scalar", op_name(op), t);
  alignas(8) unsigned char elem[8];
  vec_cast(DType::kF64, t, &s, elem, 1);
  binary_any("vec_binary_scalar", op, t, scalar_left ? kSV : kVS, a, elem, y, n);
}

void vec_binary_bcast_mid(BinaryOp op, DType t, const void* a, const void* b, void* y,
                          int64_t outer, int64_t mid, int64_t inner) {
  const size_t es = dtype_size(t);
  if (es == 0) detail::vec_unsupported("vec_binary_bcast_mid", op_name(op), t);
  const auto* pa = static_cast<const char*>(a);
  const auto* pb = static_cast<const char*>(b);
  auto* py = static_cast<char*>(y);
  if (outer <= 0 || mid <= 0 || inner <= 0) {
    binary_any("vec_binary_bcast_mid", op, t, kVV, a, b, y, 0);  // validates (op, t)
    return;
  }
  if (t == DType::kF32 &&
      HWY_DYNAMIC_DISPATCH(BcastMidF32)(static_cast<uint8_t>(op), static_cast<const float*>(a),
                                        static_cast<const float*>(b), static_cast<float*>(y),
                                        static_cast<size_t>(outer), static_cast<size_t>(mid),
                                        static_cast<size_t>(inner)))
    return;
  for (int64_t o = 0; o < outer; ++o) {
    const char* bo = pb + static_cast<size_t>(o * inner) * es;
    if (inner == 1) {  // one row of mid elements against one element
      binary_any("vec_binary_bcast_mid", op, t, kVS, pa + static_cast<size_t>(o * mid) * es, bo,
                 py + static_cast<size_t>(o * mid) * es, mid);
      continue;
    }
    for (int64_t r = 0; r < mid; ++r) {
      const size_t off = static_cast<size_t>((o * mid + r) * inner) * es;
      binary_any("vec_binary_bcast_mid", op, t, kVV, pa + off, bo, py + off, inner);
    }
  }
}

void vec_compare(CmpOp op, DType t, const void* a, const void* b, uint8_t* y, int64_t n) {
  const size_t un = n > 0 ? static_cast<size_t>(n) : 0;
  if (t == DType::kF32) {
    HWY_DYNAMIC_DISPATCH(CompareF32)
    (static_cast<uint8_t>(op), static_cast<const float*>(a), static_cast<const float*>(b), y, un);
    return;
  }
  bool ok = false;
  if (t != DType::kBool) {
    ok = detail::dispatch_dtype(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto* ta = static_cast<const T*>(a);
      const auto* tb = static_cast<const T*>(b);
      for (size_t i = 0; i < un; ++i)
        y[i] = compare_elem(op, detail::elem_read(ta[i]), detail::elem_read(tb[i]));
    });
  }
  if (!ok) detail::vec_unsupported("vec_compare", op_name(op), t);
}

void vec_select(size_t elem_bytes, const uint8_t* cond, const void* a, const void* b, void* y,
                int64_t n) {
  const size_t un = n > 0 ? static_cast<size_t>(n) : 0;
  auto loop = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* ta = static_cast<const T*>(a);
    const auto* tb = static_cast<const T*>(b);
    auto* ty = static_cast<T*>(y);
    for (size_t i = 0; i < un; ++i) ty[i] = cond[i] ? ta[i] : tb[i];
  };
  switch (elem_bytes) {
    case 1:
      loop(detail::Tag<uint8_t>{});
      break;
    case 2:
      loop(detail::Tag<uint16_t>{});
      break;
    case 4:
      HWY_DYNAMIC_DISPATCH(Select32)
      (cond, static_cast<const uint32_t*>(a), static_cast<const uint32_t*>(b),
       static_cast<uint32_t*>(y), un);
      break;
    case 8:
      loop(detail::Tag<uint64_t>{});
      break;
    default:
      throw std::invalid_argument("vec_select: element size " + std::to_string(elem_bytes) +
                                  " is not supported (1, 2, 4 or 8 bytes)");
  }
}

void vec_duplicate(DType t, double v, void* y, int64_t n) {
  const size_t es = dtype_size(t);
  if (es == 0) detail::vec_unsupported("vec_duplicate", "duplicate", t);
  alignas(8) unsigned char elem[8];
  vec_cast(DType::kF64, t, &v, elem, 1);
  const size_t un = n > 0 ? static_cast<size_t>(n) : 0;
  auto fill = [&](auto tag) {
    using T = typename decltype(tag)::type;
    T e;
    std::memcpy(&e, elem, sizeof(T));
    std::fill_n(static_cast<T*>(y), un, e);
  };
  switch (es) {
    case 1:
      fill(detail::Tag<uint8_t>{});
      break;
    case 2:
      fill(detail::Tag<uint16_t>{});
      break;
    case 4:
      fill(detail::Tag<uint32_t>{});
      break;
    default:
      fill(detail::Tag<uint64_t>{});
      break;
  }
}

}  // namespace asc::cpu
#endif  // HWY_ONCE

#include "registry/dtype.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace asc {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t size;
};

constexpr std::array<DTypeInfo, 19> kInfo = {{
    {DType::kUndefined, "undefined", 0},
    {DType::kF32, "f32", 4},
    {DType::kU8, "u8", 1},
    {DType::kI8, "i8", 1},
    {DType::kU16, "u16", 2},
    {DType::kI16, "i16", 2},
    {DType::kI32, "i32", 4},
    {DType::kI64, "i64", 8},
    {DType::kString, "string", 0},
    {DType::kBool, "bool", 1},
    {DType::kF16, "f16", 2},
    {DType::kF64, "f64", 8},
    {DType::kU32, "u32", 4},
    {DType::kU64, "u64", 8},
    {DType::kBF16, "bf16", 2},
    {DType::kUInt4, "u4", 1},
    {DType::kInt4, "i4", 1},
    {DType::kSequence, "seq", 0},
    {DType::kOptional, "optional", 0},
}};

const DTypeInfo* find(DType t) {
  for (const auto& i : kInfo)
    if (i.type == t) return &i;
  return nullptr;
}

}  // namespace

size_t dtype_size(DType t) {
  const DTypeInfo* i = find(t);
  return i ? i->size : 0;
}

std::string_view dtype_name(DType t) {
  const DTypeInfo* i = find(t);
  return i ? i->name : "invalid";
}

DType dtype_from_name(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name) return i.type;
  return DType::kUndefined;
}

bool dtype_is_float(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || t == DType::kF64;
}

bool dtype_is_integer(DType t) {
  switch (t) {
    case DType::kU8:
    case DType::kI8:
    case DType::kU16:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kU32:
    case DType::kU64:
    case DType::kUInt4:
    case DType::kInt4:
      return true;
    default:
      return false;
  }
}

bool dtype_is_signed(DType t) {
  return dtype_is_float(t) || t == DType::kI8 || t == DType::kI16 || t == DType::kI32 ||
         t == DType::kI64 || t == DType::kInt4;
}

float f16_to_f32(f16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      u = sign;
    } else {  // subnormal: renormalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      u = sign | static_cast<uint32_t>(112 - e) << 23 | (mant & 0x3ffu) << 13;
    }
  } else {
    u = sign | (exp + 112) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

f16 f32_to_f16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return f16{static_cast<uint16_t>(sign | 0x7e00u)};   // NaN
  if (abs >= 0x477ff000u) return f16{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow -> inf
  if (abs < 0x38800000u) {  // result is subnormal or zero
    if (abs < 0x33000000u) return f16{sign};
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t r = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return f16{static_cast<uint16_t>(sign | r)};
  }
  uint32_t r = abs - 0x38000000u;  // rebias exponent 127 -> 15
  r += 0xfffu + ((r >> 13) & 1u);
  return f16{static_cast<uint16_t>(sign | (r >> 13))};
}

double load_as_double(DType t, const void* base, int64_t i) {
  switch (t) {
    case DType::kF32:
      return static_cast<const float*>(base)[i];
    case DType::kF64:
      return static_cast<const double*>(base)[i];
    case DType::kF16:
      return f16_to_f32(static_cast<const f16*>(base)[i]);
    case DType::kBF16:
      return bf16_to_f32(static_cast<const bf16*>(base)[i]);
    case DType::kU8:
      return static_cast<const uint8_t*>(base)[i];
    case DType::kBool:
      return static_cast<const uint8_t*>(base)[i] != 0;
    case DType::kI8:
    case DType::kInt4:
      return static_cast<const int8_t*>(base)[i];
    case DType::kUInt4:
      return static_cast<const uint8_t*>(base)[i];
    case DType::kU16:
      return static_cast<const uint16_t*>(base)[i];
    case DType::kI16:
      return static_cast<const int16_t*>(base)[i];
    case DType::kI32:
      return static_cast<const int32_t*>(base)[i];
    case DType::kI64:
      return static_cast<double>(static_cast<const int64_t*>(base)[i]);
    case DType::kU32:
      return static_cast<const uint32_t*>(base)[i];
    case DType::kU64:
      return static_cast<double>(static_cast<const uint64_t*>(base)[i]);
    default:
      return 0.0;
  }
}

namespace {
// Truncates toward zero and saturates at the type's range; NaN gives 0.
template <typename I>
I saturating_int(double v) {
  if (std::isnan(v)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (v <= lo) return std::numeric_limits<I>::min();
  if (v >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}
}  // namespace

void store_from_double(DType t, void* base, int64_t i, double v) {
  switch (t) {
    case DType::kF32:
      static_cast<float*>(base)[i] = static_cast<float>(v);
      break;
    case DType::kF64:
      static_cast<double*>(base)[i] = v;
      break;
    case DType::kF16:
      static_cast<f16*>(base)[i] = f32_to_f16(static_cast<float>(v));
      break;
    case DType::kBF16:
      static_cast<bf16*>(base)[i] = f32_to_bf16(static_cast<float>(v));
      break;
    case DType::kBool:
      static_cast<uint8_t*>(base)[i] = v != 0.0;
      break;
    case DType::kU8:
      static_cast<uint8_t*>(base)[i] = saturating_int<uint8_t>(v);
      break;
    case DType::kI8:
      static_cast<int8_t*>(base)[i] = saturating_int<int8_t>(v);
      break;
    case DType::kInt4:  // [-8, 7]
      static_cast<int8_t*>(base)[i] = saturating_int<int8_t>(std::clamp(v, -8.0, 7.0));
      break;
    case DType::kUInt4:  // [0, 15]
      static_cast<uint8_t*>(base)[i] = saturating_int<uint8_t>(std::clamp(v, 0.0, 15.0));
      break;
    case DType::kU16:
      static_cast<uint16_t*>(base)[i] = saturating_int<uint16_t>(v);
      break;
    case DType::kI16:
      static_cast<int16_t*>(base)[i] = saturating_int<int16_t>(v);
      break;
    case DType::kI32:
      static_cast<int32_t*>(base)[i] = saturating_int<int32_t>(v);
      break;
    case DType::kI64:
      static_cast<int64_t*>(base)[i] = saturating_int<int64_t>(v);
      break;
    case DType::kU32:
      static_cast<uint32_t*>(base)[i] = saturating_int<uint32_t>(v);
      break;
    case DType::kU64:
      static_cast<uint64_t*>(base)[i] = saturating_int<uint64_t>(v);
      break;
    default:
      break;
  }
}

const std::vector<DType>& float_types() {
  static const std::vector<DType> v = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};
  return v;
}

const std::vector<DType>& numeric_types() {
  static const std::vector<DType> v = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                       DType::kI8,  DType::kI16, DType::kI32,  DType::kI64,
                                       DType::kU8,  DType::kU16, DType::kU32,  DType::kU64};
  return v;
}

const std::vector<DType>& numeric_bool_types() {
  static const std::vector<DType> v = [] {
    std::vector<DType> t = numeric_types();
    t.push_back(DType::kBool);
    return t;
  }();
  return v;
}

const std::vector<DType>& all_types() {
  static const std::vector<DType> v = {DType::kF32,  DType::kF16,   DType::kBF16, DType::kF64,
                                       DType::kI8,   DType::kI16,   DType::kI32,  DType::kI64,
                                       DType::kU8,   DType::kU16,   DType::kU32,  DType::kU64,
                                       DType::kBool, DType::kString};
  return v;
}

const std::vector<DType>& any_types() {
  static const std::vector<DType> v = [] {
    std::vector<DType> t = all_types();
    t.push_back(DType::kSequence);
    t.push_back(DType::kOptional);
    return t;
  }();
  return v;
}

}  // namespace asc

// The vector unit's Cast table and rounding (emu_vec_cast.h).
#include "emu_vec_cast.h"

#include <cmath>
#include <cstring>

namespace ascemu {

using AscendC::RoundMode;

namespace {

// Bit i = RoundMode i.
constexpr uint32_t kNone = 1u << 0;
constexpr uint32_t kFive = (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5);
constexpr uint32_t kOdd = 1u << 6;

struct CastPair {
  const char* src;
  const char* dst;
  uint32_t modes;
};

// The Atlas A2 table (int4b_t pairs and int32_t -> half with SetDeqScale are not emulated).
const CastPair kPairs[] = {
    {"int8_t", "half", kNone},
    {"uint8_t", "half", kNone},
    {"int16_t", "half", kFive | kNone},
    {"int16_t", "float", kNone},
    {"half", "int8_t", kFive | kNone},
    {"half", "uint8_t", kFive | kNone},
    {"half", "int16_t", kFive},
    {"half", "int32_t", kFive},
    {"half", "float", kNone},
    {"bfloat16_t", "int32_t", kFive},
    {"bfloat16_t", "float", kNone},
    {"int32_t", "int16_t", kNone},
    {"int32_t", "float", kFive | kNone},
    {"int32_t", "int64_t", kNone},
    {"float", "int16_t", kFive},
    {"float", "half", kFive | kOdd | kNone},
    {"float", "bfloat16_t", kFive},
    {"float", "int32_t", kFive},
    {"float", "float", kFive},
    {"float", "int64_t", kFive},
    {"int64_t", "int32_t", kNone},
    {"int64_t", "float", kFive},
};

const char* mode_name(int m) {
  static const char* const kNames[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  return m >= 0 && m < 7 ? kNames[m] : "an unknown RoundMode";
}

std::string modes_text(uint32_t modes) {
  std::string s;
  for (int m = 0; m < 7; ++m)
    if (modes & (1u << m)) s += std::string(s.empty() ? "" : ", ") + mode_name(m);
  return s;
}

bool round_up(RoundMode mode, long double frac, long double whole, bool neg) {
  const bool odd = std::fmod(whole, 2.0L) != 0;
  switch (mode) {
    case RoundMode::CAST_NONE:
    case RoundMode::CAST_RINT:
      return frac > 0.5L || (frac == 0.5L && odd);
    case RoundMode::CAST_FLOOR:
      return neg && frac > 0;
    case RoundMode::CAST_CEIL:
      return !neg && frac > 0;
    case RoundMode::CAST_ROUND:
      return frac >= 0.5L;
    case RoundMode::CAST_ODD:
      return frac > 0 && !odd;
    default:
      return false;  // CAST_TRUNC
  }
}

// |v| rounded in units of q.
long double round_in(long double v, RoundMode mode, long double q) {
  const bool neg = std::signbit(v);
  const long double k = std::fabs(v) / q, whole = std::floor(k);
  const long double r = (whole + (round_up(mode, k - whole, whole, neg) ? 1 : 0)) * q;
  return neg ? -r : r;
}

}  // namespace

void cast_check(const char* src, const char* dst, RoundMode mode) {
  check(!(std::strcmp(src, "int32_t") == 0 && std::strcmp(dst, "half") == 0), "Cast",
        "int32_t -> half dequantises with the scale SetDeqScale sets, which the emulator does not "
        "model");
  check(std::strcmp(src, "int4b_t") != 0 && std::strcmp(dst, "int4b_t") != 0, "Cast",
        std::string(src) + " -> " + dst +
            ": the A2's int4b_t <-> half casts are not emulated (packed nibbles)");
  std::string from;
  for (const CastPair& p : kPairs) {
    if (std::strcmp(p.src, src) != 0) continue;
    if (std::strcmp(p.dst, dst) == 0) {
      const auto m = static_cast<unsigned>(mode);
      check(m < 7 && (p.modes & (1u << m)), "Cast",
            std::string(src) + " -> " + dst + " takes " + modes_text(p.modes) + ", not " +
                mode_name(static_cast<int>(m)));
      return;
    }
    from += std::string(from.empty() ? "" : ", ") + p.dst;
  }
  fail("Cast", std::string("the Atlas A2 has no Cast ") + src + " -> " + dst +
                   (from.empty() ? std::string(" (it casts nothing from ") + src + ")"
                                 : std::string(" (from ") + src + " it casts to " + from + ")"));
}

long double round_float(long double v, RoundMode mode, int mant, int emin, long double maxv) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return v;
  int ex;
  std::frexp(std::fabs(v), &ex);  // |v| in [2^(ex-1), 2^ex)
  const int e = ex - 1 < emin ? emin : ex - 1;
  const long double r = round_in(v, mode, std::ldexp(1.0L, e - mant));
  if (std::fabs(r) > maxv) return std::signbit(r) ? -maxv : maxv;
  return r;
}

long double round_integer(long double v, RoundMode mode) {
  if (std::isnan(v)) return 0;
  if (std::isinf(v)) return v;
  return round_in(v, mode, 1.0L);
}

}  // namespace ascemu

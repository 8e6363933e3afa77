// The vector unit's Cast table and rounding (emu_vec_cast.h).
#include "emu_vec_cast.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "../a2_casts.h"

namespace ascemu {

using AscendC::RoundMode;

namespace {

using asc::ascend::a2::kCasts;

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
  for (const asc::ascend::a2::CastPair& p : kCasts) {
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
  if (std::fabs(r) <= maxv) return r;
  // Past the range in the A2's default Inf/NaN mode (IEEE 754): inf where the mode rounds away
  // from zero on that side, the largest finite value where it rounds toward zero.
  const bool neg = std::signbit(r);
  const bool to_inf = mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT ||
                      mode == RoundMode::CAST_ROUND || (mode == RoundMode::CAST_FLOOR && neg) ||
                      (mode == RoundMode::CAST_CEIL && !neg);
  const long double lim = to_inf ? std::numeric_limits<long double>::infinity() : maxv;
  return neg ? -lim : lim;
}

long double round_integer(long double v, RoundMode mode) {
  if (std::isnan(v)) return 0;
  if (std::isinf(v)) return v;
  return round_in(v, mode, 1.0L);
}

}  // namespace ascemu

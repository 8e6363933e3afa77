// The Atlas A2 vector unit's Cast conversions and their RoundModes, from the public Ascend C API
// reference: the emulator checks calls against it, the emitter plans its cast chains with it.
#pragma once

#include <cstdint>

namespace asc::ascend::a2 {

// Bit i = RoundMode i (CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC,
// CAST_ODD).
constexpr uint32_t kNone = 1u << 0;
constexpr uint32_t kRint = 1u << 1;
constexpr uint32_t kTrunc = 1u << 5;
constexpr uint32_t kFive = (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5);
constexpr uint32_t kOdd = 1u << 6;

struct CastPair {
  const char* src;  // Ascend C element type names
  const char* dst;
  uint32_t modes;
};

// int4b_t pairs and int32_t -> half (a dequantisation with SetDeqScale's scale) left out.
inline constexpr CastPair kCasts[] = {
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

}  // namespace asc::ascend::a2

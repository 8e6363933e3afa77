// Cases of the logical family: And/Or/Xor/Not, BitShift, comparisons (ties come from integral
// values), IsNaN, IsInf; the legacy broadcast forms of opsets 1-6.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "ops/op_cases.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kBool = DType::kBool;
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<std::pair<Shape, Shape>> kPairs = {
    {{7}, {7}},          {{3, 1, 5}, {4, 5}},     {{2, 3}, {}},     {{}, {}}, {{0, 4}, {4}},
    {{65, 33}, {65, 1}}, {{2, 1, 17}, {1, 9, 1}}, {{1000}, {1000}},
};

InputSpec values(DType dt, const std::vector<double>& v) {
  Tensor t(dt, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return fixed_tensor(std::move(t));
}

Attrs legacy(int64_t broadcast, std::optional<int64_t> axis = {}) {
  Attrs a{{"broadcast", broadcast}};
  if (axis) a.set("axis", *axis);
  return a;
}

void add_logic(std::vector<OpCase>& v) {
  for (const char* op : {"And", "Or", "Xor"}) {
    for (const auto& [a, b] : kPairs) v.push_back({op, 7, {in(kBool, a), in(kBool, b)}});
    v.push_back({op, 6, {in(kBool, {2, 3, 4}), in(kBool, {3})}, legacy(1, 1), "axis1"});
    v.push_back({op, 1, {in(kBool, {2, 3, 4}), in(kBool, {4})}, legacy(1), "suffix"});
    v.push_back({op, 1, {in(kBool, {9}), in(kBool, {9})}, legacy(0)});
  }
  for (const Shape& s : {Shape{}, Shape{0}, Shape{3, 5, 7}, Shape{1025}})
    v.push_back({"Not", 1, {in(kBool, s)}});
}

// BitwiseAnd/Or/Xor/Not-18: every integer dtype over its whole range (64-bit: +-2^50, exact in the
// double the inputs are drawn in), negative values included.
void add_bitwise(std::vector<OpCase>& v) {
  const DType ints[] = {DType::kI8,  DType::kU8,  DType::kI16, DType::kU16,
                        DType::kI32, DType::kU32, DType::kI64, DType::kU64};
  for (DType dt : ints) {
    const double bits = static_cast<double>(dtype_size(dt) * 8);
    const double lo = dtype_is_signed(dt) ? -std::pow(2.0, std::min(bits, 51.0) - 1) : 0;
    const double hi = std::pow(2.0, std::min(bits, 51.0) - (dtype_is_signed(dt) ? 1 : 0)) - 1;
    for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
      v.push_back({op, 18, {in_int(dt, {4, 9}, lo, hi), in_int(dt, {9}, lo, hi)}});
    v.push_back({"BitwiseNot", 18, {in_int(dt, {3, 17}, lo, hi)}});
  }
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    for (const auto& [a, b] : kPairs)
      v.push_back({op, 18, {in_int(DType::kI32, a, -1000, 1000), in_int(DType::kI32, b, -9, 9)}});
  for (const Shape& s : {Shape{}, Shape{0}, Shape{1025}})
    v.push_back({"BitwiseNot", 18, {in_int(DType::kI64, s, -1e6, 1e6)}});
}

void add_bitshift(std::vector<OpCase>& v) {
  for (const char* dir : {"LEFT", "RIGHT"}) {
    const Attrs a{{"direction", std::string(dir)}};
    for (DType dt : {DType::kU8, DType::kU16, DType::kU32, DType::kU64}) {
      const double bits = static_cast<double>(dtype_size(dt) * 8);
      const double top = dt == DType::kU64 ? 1e15 : std::min(1e15, std::pow(2.0, bits) - 1);
      v.push_back({"BitShift", 11, {in(dt, {4, 9}, 0, top), in_int(dt, {9}, 0, bits + 3)}, a, dir});
      v.push_back({"BitShift", 11, {in(dt, {}, 0, top), in_int(dt, {}, 0, bits - 1)}, a, dir});
    }
    v.push_back(
        {"BitShift", 11, {in(DType::kU32, {0, 3}, 0, 9), in_int(DType::kU32, {3}, 0, 9)}, a, dir});
    v.push_back({"BitShift",
                 11,
                 {in(DType::kU8, {65, 33}, 0, 255), in_int(DType::kU8, {65, 1}, 0, 8)},
                 a,
                 dir});
  }
}

InputSpec strings(const Shape& shape, const std::vector<std::string>& words) {
  Tensor t(DType::kString, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.strings()[i] = words[i % words.size()];
  return fixed_tensor(std::move(t));
}

void add_compare(std::vector<OpCase>& v) {
  // Equal-19: strings (byte-wise; ties, an empty string, broadcasting).
  v.push_back({"Equal",
               19,
               {strings({2, 3}, {"a", "", "bc", "bc", "a", "x"}), strings({3}, {"a", "", "bc"})},
               {},
               "strings"});
  v.push_back({"Equal",
               19,
               {strings({}, {"hi"}), strings({4}, {"hi", "h", "hi ", "hi"})},
               {},
               "strings_scalar"});
  struct Version {
    const char* op;
    int opset;
    std::vector<DType> types;
  };
  const Version versions[] = {
      {"Equal", 10, {kBool, DType::kI32, DType::kI64}},
      {"Equal", 12, {kF32, DType::kU8, DType::kI16, DType::kF16, DType::kF64}},
      {"Equal", 17, {DType::kBF16, kBool, DType::kU64}},
      {"Equal", 19, {kF32, DType::kI64, kBool}},
      {"Greater", 8, {kF32, DType::kF16}},
      {"Greater", 12, {DType::kI32, DType::kU16, DType::kF64}},
      {"Greater", 17, {DType::kBF16, DType::kI8}},
      {"Less", 8, {kF32, DType::kF64}},
      {"Less", 12, {DType::kI64, DType::kU32}},
      {"Less", 17, {DType::kBF16, DType::kF16}},
      {"GreaterOrEqual", 12, {kF32, DType::kI32, DType::kU8}},
      {"GreaterOrEqual", 16, {DType::kBF16, DType::kI64}},
      {"LessOrEqual", 12, {kF32, DType::kI32, DType::kU8}},
      {"LessOrEqual", 16, {DType::kBF16, DType::kF16}},
  };
  for (const Version& ver : versions) {
    for (DType dt : ver.types) {
      const double lo = dtype_is_signed(dt) || dtype_is_float(dt) ? -3 : 0;
      v.push_back({ver.op, ver.opset, {in_int(dt, {5, 1, 7}, lo, 3), in_int(dt, {4, 7}, lo, 3)}});
    }
  }
  for (const char* op : {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"}) {
    for (const auto& [a, b] : kPairs)
      v.push_back({op, 17, {in_int(kF32, a, -3, 3), in_int(kF32, b, -3, 3)}});
    v.push_back(
        {op,
         17,
         {values(kF32, {1, kNaN, kInf, -kInf, 0}), values(kF32, {1, kNaN, kInf, kInf, -0.0})},
         {},
         "special"});
    v.push_back({op, 17, {in(kF32, {33}), in(kF32, {33})}, {}, "random"});
  }
  // Opsets 1-6.
  const std::pair<const char*, DType> legacy_ops[] = {
      {"Equal", DType::kI32}, {"Equal", kBool}, {"Greater", kF32}, {"Less", DType::kF16}};
  for (const auto& [op, dt] : legacy_ops) {
    v.push_back(
        {op, 6, {in_int(dt, {2, 3, 4}, 0, 2), in_int(dt, {3}, 0, 2)}, legacy(1, 1), "axis1"});
    v.push_back({op, 1, {in_int(dt, {2, 3, 4}, 0, 2), in_int(dt, {3, 4}, 0, 2)}, legacy(1)});
    v.push_back({op, 6, {in_int(dt, {5, 5}, 0, 2), in_int(dt, {5, 5}, 0, 2)}, legacy(0)});
  }
}

void add_classify(std::vector<OpCase>& v) {
  const std::vector<double> special = {0, -0.0, 1, -1, kInf, -kInf, kNaN, 1e30, -1e-30, 3.5};
  for (int opset : {12, 13}) {
    for (DType dt : {kF32, DType::kF16, DType::kF64})
      v.push_back({"IsNaN", opset, {values(dt, special)}, {}, "special"});
    v.push_back({"IsNaN", opset, {in(kF32, {3, 5, 7})}});
    v.push_back({"IsNaN", opset, {in(kF32, {0, 3})}});
  }
  v.push_back({"IsNaN", 13, {values(DType::kBF16, special)}, {}, "special"});
  for (int64_t neg : {0, 1}) {
    for (int64_t pos : {0, 1}) {
      const Attrs a{{"detect_negative", neg}, {"detect_positive", pos}};
      const std::string l = "neg" + std::to_string(neg) + "_pos" + std::to_string(pos);
      for (DType dt : {kF32, DType::kF64}) v.push_back({"IsInf", 10, {values(dt, special)}, a, l});
      v.push_back({"IsInf", 10, {in(kF32, {3, 5, 7})}, a, l});
      v.push_back({"IsInf", 10, {in(kF32, {})}, a, l});
      // IsInf-20: f16 and bf16 too.
      for (DType dt : {kF32, DType::kF16, DType::kBF16, DType::kF64})
        v.push_back({"IsInf", 20, {values(dt, special)}, a, l});
    }
  }
  v.push_back({"IsInf", 20, {in(kF32, {2, 0, 3})}});
  v.push_back({"IsNaN", 20, {values(kF32, special)}, {}, "special"});
}

}  // namespace

std::vector<OpCase> cases_logical() {
  std::vector<OpCase> v;
  add_logic(v);
  add_bitshift(v);
  add_bitwise(v);
  add_compare(v);
  add_classify(v);
  return v;
}

}  // namespace asc::test

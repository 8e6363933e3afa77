// Cases of the elementwise family beyond the basics: legacy broadcast (opset < 7), Mod, rounding
// and sign, the composed trig/hyperbolic functions, and the variadic Max/Min/Sum/Mean.
#include <cmath>
#include <limits>
#include <optional>

#include "ops/op_cases.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kF64 = DType::kF64;
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A fixed input holding `v` (shape [v.size()] unless given).
InputSpec values(DType dt, const std::vector<double>& v, std::optional<Shape> shape = {}) {
  Tensor t(dt, shape ? *shape : Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return fixed_tensor(std::move(t));
}

Attrs legacy(int64_t broadcast, std::optional<int64_t> axis = {}) {
  Attrs a{{"broadcast", broadcast}};
  if (axis) a.set("axis", *axis);
  return a;
}

void add_legacy_arith(std::vector<OpCase>& v) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (int opset : {5, 6}) {
      v.push_back(
          {op, opset, {in(kF32, {2, 3, 4, 5}), in(kF32, {3, 4}, 0.5, 2)}, legacy(1, 1), "axis1"});
      v.push_back(
          {op, opset, {in(kF32, {2, 3, 4, 5}), in(kF32, {5}, 0.5, 2)}, legacy(1), "suffix"});
      v.push_back(
          {op, opset, {in(kF32, {2, 3, 4, 5}), in(kF32, {2}, 0.5, 2)}, legacy(1, 0), "axis0"});
      v.push_back({op, opset, {in(kF32, {3, 67}), in(kF32, {3, 67}, 0.5, 2)}, legacy(0)});
      v.push_back({op, opset, {in(kF32, {4, 3}), in(kF32, {}, 0.5, 2)}, legacy(1), "scalar"});
      v.push_back({op, opset, {in(kF32, {0, 3}), in(kF32, {3}, 0.5, 2)}, legacy(1), "empty"});
      v.push_back({op, opset, {in(kF16, {5, 33}), in(kF16, {5, 1}, 0.5, 2)}, legacy(1, 0)});
    }
    v.push_back(
        {op, 6, {in(DType::kI32, {6, 7}, -50, 50), in(DType::kI32, {6}, 1, 9)}, legacy(1, 0)});
    v.push_back({op, 6, {in(DType::kI64, {2, 9}, -50, 50), in(DType::kI64, {9}, 1, 9)}, legacy(1)});
  }
  v.push_back({"Pow", 6, {in(kF32, {3, 4}, 0.1, 3), in(kF32, {4}, -2, 2)}, legacy(1), "suffix"});
  v.push_back({"Pow", 1, {in(kF32, {3, 4}, 0.1, 3), in(kF32, {3}, -2, 2)}, legacy(1, 0), "axis0"});
  v.push_back({"Pow", 1, {in(kF64, {7}, 0.1, 3), in(kF64, {7}, -2, 2)}, legacy(0)});
}

void add_mod(std::vector<OpCase>& v) {
  // Integer divisors of both signs, never 0.
  const std::vector<double> divs = {-7, -3, -2, -1, 1, 2, 3, 5, 9};
  for (int opset : {12, 13}) {
    for (int64_t fmod : {0, 1}) {
      const Attrs a{{"fmod", fmod}};
      const std::string l = fmod ? "fmod" : "python";
      for (DType dt : {DType::kI32, DType::kI64, DType::kI8, DType::kI16})
        v.push_back({"Mod", opset, {in(dt, {5, 9}, -100, 100), values(dt, divs)}, a, l});
      v.push_back(
          {"Mod", opset, {in(DType::kU8, {3, 40}, 0, 255), in_int(DType::kU8, {40}, 1, 30)}, a, l});
      v.push_back(
          {"Mod", opset, {in(DType::kU64, {17}, 0, 1e6), in_int(DType::kU64, {}, 1, 1000)}, a, l});
      v.push_back(
          {"Mod", opset, {in(DType::kI32, {0, 9}, -100, 100), values(DType::kI32, divs)}, a, l});
    }
    const Attrs f{{"fmod", int64_t{1}}};
    v.push_back({"Mod", opset, {in(kF32, {4, 33}, -10, 10), in(kF32, {33}, -3, 3)}, f});
    v.push_back({"Mod", opset, {in(kF32, {}, -10, 10), in(kF32, {}, -3, 3)}, f});
    v.push_back({"Mod", opset, {in(kF16, {2, 17}, -10, 10), in(kF16, {2, 1}, -3, 3)}, f});
    v.push_back({"Mod", opset, {in(kF64, {65}, -10, 10), in(kF64, {65}, -3, 3)}, f});
  }
  v.push_back(
      {"Mod", 13, {in(kBF16, {3, 8}, -10, 10), in(kBF16, {8}, 0.5, 3)}, {{"fmod", int64_t{1}}}});
}

void add_unary(std::vector<OpCase>& v) {
  const std::vector<double> halves = {-3.5, -2.5, -1.5, -0.5,  0.5, 1.5,   2.5,  3.5,   -0.0,
                                      0.0,  2.49, 2.51, -2.51, 1e9, -1e-9, kInf, -kInf, kNaN};
  for (const char* op : {"Floor", "Ceil", "Round", "Sign"}) {
    const int opset = std::string(op) == "Round" ? 11 : 13;
    for (const Shape& s : {Shape{}, Shape{0}, Shape{3, 5, 7}, Shape{1025}})
      v.push_back({op, opset, {in(kF32, s, -4, 4)}});
    for (DType dt : {kF16, kF64}) v.push_back({op, opset, {in(dt, {4, 33}, -4, 4)}});
    for (DType dt : {kF32, kF16, kF64}) v.push_back({op, opset, {values(dt, halves)}, {}, "edges"});
  }
  for (const char* op : {"Floor", "Ceil", "Sign"})
    v.push_back({op, 13, {in(kBF16, {9, 7}, -4, 4)}});
  for (DType dt : {DType::kI32, DType::kI64, DType::kI8, DType::kU8, DType::kU32})
    v.push_back({"Sign", 13, {in(dt, {37}, dtype_is_signed(dt) ? -5 : 0, 5)}});
  for (const char* op : {"Sin", "Cos"}) {
    for (const Shape& s : {Shape{}, Shape{0}, Shape{3, 5, 7}, Shape{1025}})
      v.push_back({op, 7, {in(kF32, s, -10, 10)}});
    for (DType dt : {kF16, kF64}) v.push_back({op, 7, {in(dt, {4, 33}, -10, 10)}});
  }
  for (DType dt : {kF32, DType::kI32, DType::kU16})
    v.push_back({"Abs", 13, {in(dt, {40}, dtype_is_signed(dt) ? -9 : 0, 9)}});
  // Opsets 1-5 (consumed_inputs).
  const std::pair<const char*, std::pair<double, double>> legacy_unary[] = {
      {"Neg", {-3, 3}},   {"Abs", {-3, 3}},   {"Relu", {-3, 3}},         {"Sigmoid", {-8, 8}},
      {"Tanh", {-4, 4}},  {"Exp", {-10, 10}}, {"Log", {0.01, 50}},       {"Sqrt", {0, 100}},
      {"Floor", {-4, 4}}, {"Ceil", {-4, 4}},  {"Reciprocal", {0.1, 10}},
  };
  for (const auto& [op, r] : legacy_unary) {
    OpCase c{op, 5, {in(kF32, {3, 17}, r.first, r.second)}};
    c.attrs.set("consumed_inputs", std::vector<int64_t>{0});
    v.push_back(c);
    v.push_back({op, 5, {in(kF16, {8}, r.first, r.second)}});
  }
}

void add_math(std::vector<OpCase>& v) {
  struct Range {
    const char* op;
    int opset;
    double lo, hi;
    std::vector<std::pair<double, double>> extra;  // more ranges (near edges, small values)
  };
  const Range ranges[] = {
      {"Tan", 7, -1.5, 1.5, {{-1e-3, 1e-3}, {-20, 20}}},
      {"Asin", 7, -1, 1, {{-1e-3, 1e-3}, {0.999, 1}, {-1, -0.999}}},
      {"Acos", 7, -1, 1, {{-1e-3, 1e-3}, {0.999, 1}, {-1, -0.999}}},
      {"Atan", 7, -10, 10, {{-1e-3, 1e-3}, {-1e6, 1e6}, {0.3, 0.5}, {0.9, 1.1}}},
      {"Sinh", 9, -5, 5, {{-1e-3, 1e-3}, {-1.2, 1.2}, {-80, 80}}},
      {"Cosh", 9, -5, 5, {{-1e-3, 1e-3}, {-80, 80}}},
      {"Asinh", 9, -100, 100, {{-1e-3, 1e-3}, {-1.5, 1.5}, {-1e12, 1e12}}},
      {"Acosh", 9, 1, 50, {{1, 1.001}, {1, 3}, {1e8, 1e12}}},
      {"Atanh", 9, -0.999, 0.999, {{-1e-3, 1e-3}, {0.99, 1}}},
  };
  const std::vector<double> edges = {0.0,    -0.0, 1.0,  -1.0,  0.5,  -0.5,  2.0, 1e-20,
                                     -1e-20, 10.0, 1e20, -1e20, kInf, -kInf, kNaN};
  const std::vector<double> tan_edges = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-20, 10.0, kNaN};
  for (const Range& r : ranges) {
    for (const Shape& s : {Shape{}, Shape{0}, Shape{3, 5, 7}, Shape{1025}})
      v.push_back({r.op, r.opset, {in(kF32, s, r.lo, r.hi)}});
    for (DType dt : {kF16, kF64}) v.push_back({r.op, r.opset, {in(dt, {4, 33}, r.lo, r.hi)}});
    for (const auto& [lo, hi] : r.extra)
      for (DType dt : {kF32, kF64}) v.push_back({r.op, r.opset, {in(dt, {301}, lo, hi)}});
    // sin/cos are accurate on |x| < 39000 only: Tan skips the huge edges.
    const bool tan = std::string(r.op) == "Tan";
    for (DType dt : {kF32, kF64})
      v.push_back({r.op, r.opset, {values(dt, tan ? tan_edges : edges)}, {}, "edges"});
    // Opset 22: bf16 too.
    for (DType dt : {DType::kBF16, kF32}) v.push_back({r.op, 22, {in(dt, {4, 33}, r.lo, r.hi)}});
  }
}

void add_variadic(std::vector<OpCase>& v) {
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) {
    const bool minmax = op[0] == 'M' && op[1] != 'e';
    v.push_back({op, 6, {in(kF32, {3, 5}), in(kF32, {3, 5}), in(kF32, {3, 5})}});
    v.push_back({op, 6, {in(kF16, {7})}});
    for (int opset : {8, 13}) {
      v.push_back({op, opset, {in(kF32, {3, 1}), in(kF32, {4}), in(kF32, {})}});
      v.push_back({op, opset, {in(kF32, {2, 1, 17}), in(kF32, {1, 9, 1})}});
      v.push_back({op, opset, {in(kF32, {0, 4}), in(kF32, {4})}});
      v.push_back({op, opset, {in(kF32, {1000})}});
      v.push_back(
          {op, opset, {in(kF64, {65, 3}), in(kF64, {3}), in(kF64, {65, 1}), in(kF64, {1})}});
      v.push_back({op, opset, {in(kF16, {5, 33}), in(kF16, {33})}});
    }
    v.push_back({op, 13, {in(kBF16, {5, 9}), in(kBF16, {9})}});
    v.push_back(
        {op, 13, {values(kF32, {1, kNaN, 3, kNaN}), values(kF32, {kNaN, 2, 2, kNaN})}, {}, "nan"});
    if (minmax) {
      v.push_back({op, 12, {in(DType::kI32, {4, 6}, -99, 99), in(DType::kI32, {6}, -99, 99)}});
      for (DType dt : {DType::kI64, DType::kU8, DType::kI8, DType::kU64})
        v.push_back({op, 13, {in(dt, {4, 6}, 0, 99), in(dt, {6}, 0, 99), in(dt, {4, 1}, 0, 99)}});
    }
  }
}

}  // namespace

std::vector<OpCase> cases_elementwise_more() {
  std::vector<OpCase> v;
  add_legacy_arith(v);
  add_mod(v);
  add_unary(v);
  add_math(v);
  add_variadic(v);
  return v;
}

}  // namespace asc::test

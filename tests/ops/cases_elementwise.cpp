// Cases of the elementwise families: binary arithmetic, unary math, Cast, Where; the legacy
// (opset < 7) forms, Mod, the composed math functions and the variadic ops live in
// cases_elementwise_more.cpp.
#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {

std::vector<OpCase> cases_elementwise_more();

namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16;

// Broadcast shape pairs: aligned, odd, empty, scalar, row/column/middle broadcasts (a value per
// row on either side: the vector unit's per-row broadcast).
const std::vector<std::pair<Shape, Shape>> kPairs = {
    {{7}, {7}},
    {{1000}, {1000}},
    {{3, 1, 5}, {4, 5}},
    {{2, 3}, {}},
    {{}, {}},
    {{0, 4}, {4}},
    {{65, 33}, {33}},
    {{65, 33}, {65, 1}},
    {{65, 1}, {65, 33}},  // A one value per row
    {{2, 1, 17}, {1, 9, 1}},
    {{1}, {2, 3, 4}},
    {{5, 1, 1, 3}, {5, 4, 6, 3}},
    {{70000}, {1}},
};

}  // namespace

std::vector<OpCase> cases_elementwise() {
  std::vector<OpCase> v;
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (const auto& [a, b] : kPairs) {
      const bool div = std::string(op) == "Div";
      OpCase c{op, 17, {in(kF32, a), in(kF32, b, div ? 0.5 : -2.0, 2.0)}};
      v.push_back(c);
    }
    for (DType dt : {kF16, kBF16})
      v.push_back({op, 17, {in(dt, {3, 1, 37}), in(dt, {4, 37}, 0.5, 2.0)}});
    v.push_back({op, 17, {in(DType::kI64, {5, 6}, -50, 50), in(DType::kI64, {6}, 1, 9)}});
    v.push_back({op, 17, {in(DType::kI32, {130}, -50, 50), in(DType::kI32, {130}, 1, 9)}});
  }
  v.push_back({"Pow", 17, {in(kF32, {4, 33}, 0.1, 3.0), in(kF32, {33}, -2, 2)}});
  v.push_back({"Pow", 17, {in(kF32, {9}, 0.1, 3.0), in(kF32, {}, 2, 2)}});
  v.push_back({"Pow", 17, {in(kF16, {2, 17}, 0.5, 2.0), in(kF32, {17}, 0, 2)}});
  v.push_back({"Pow", 17, {in(kF32, {0, 3}, 0.5, 2.0), in(kF32, {3}, 0, 2)}});

  struct Range {
    const char* op;
    double lo, hi;
  };
  const Range unary[] = {{"Neg", -3, 3},     {"Abs", -3, 3},   {"Relu", -3, 3},
                         {"Sigmoid", -8, 8}, {"Tanh", -4, 4},  {"Exp", -10, 10},
                         {"Log", 0.01, 50},  {"Sqrt", 0, 100}, {"Reciprocal", 0.1, 10},
                         {"Erf", -3, 3}};
  for (const Range& u : unary) {
    for (const Shape& s : {Shape{1}, Shape{}, Shape{0}, Shape{1023}, Shape{3, 5, 7}, Shape{70001}})
      v.push_back({u.op, 17, {in(kF32, s, u.lo, u.hi)}});
    for (DType dt : {kF16, kBF16}) v.push_back({u.op, 17, {in(dt, {4, 129}, u.lo, u.hi)}});
  }
  for (const char* op : {"Neg", "Abs", "Relu"})
    v.push_back({op, 17, {in(DType::kI64, {77}, -100, 100)}});

  const std::pair<DType, DType> casts[] = {{kF32, kF16},
                                           {kF16, kF32},
                                           {kF32, kBF16},
                                           {kBF16, kF32},
                                           {kF32, DType::kI64},
                                           {DType::kI64, kF32},
                                           {kF32, DType::kI32},
                                           {DType::kI32, kF32},
                                           {kF32, DType::kBool},
                                           {DType::kBool, kF32},
                                           {DType::kF64, kF32},
                                           {kF32, DType::kF64},
                                           {DType::kI64, DType::kI32},
                                           {kF16, kBF16},
                                           {DType::kU8, kF32},
                                           {kF32, DType::kI8}};
  for (const auto& [from, to] : casts) {
    for (const Shape& s : {Shape{}, Shape{0}, Shape{5, 67}}) {
      OpCase c{"Cast", 17, {in(from, s, -100, 100)}};
      if (from == DType::kU8) c.inputs[0] = in(from, s, 0, 255);
      c.attrs.set("to", static_cast<int64_t>(to));
      c.label = std::string("to_") + std::string(dtype_name(to));
      v.push_back(c);
    }
    // Cast-19 (saturate: read by float8 targets only) as Cast-21 and Cast-23 select it.
    for (const int opset : {19, 23}) {
      OpCase c{"Cast", opset, {in(from, {3, 31}, from == DType::kU8 ? 0 : -100, 100)}};
      c.attrs.set("to", static_cast<int64_t>(to));
      if (opset == 19) c.attrs.set("saturate", int64_t{1});
      c.label = cat("to_", dtype_name(to), "/opset", opset);
      v.push_back(c);
    }
  }
  const std::vector<std::vector<Shape>> where_shapes = {{{16}, {16}, {16}},
                                                        {{3, 1}, {1, 5}, {3, 5}},
                                                        {{}, {4, 4}, {}},
                                                        {{0, 2}, {2}, {2}},
                                                        {{2, 3, 33}, {33}, {2, 1, 1}}};
  for (const auto& s : where_shapes) {
    v.push_back({"Where", 17, {in(DType::kBool, s[0]), in(kF32, s[1]), in(kF32, s[2])}});
  }
  v.push_back({"Where", 17, {in(DType::kBool, {9}), in(DType::kI64, {9}), in(DType::kI64, {1})}});
  v.push_back({"Where", 17, {in(DType::kBool, {2, 9}), in(kF16, {9}), in(kF16, {2, 1})}});
  for (OpCase& c : cases_elementwise_more()) v.push_back(std::move(c));
  return v;
}

}  // namespace asc::test

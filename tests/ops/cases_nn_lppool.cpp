// Cases of LpPool and GlobalLpPool (tile kernels on the vector unit; the host kernels keep
// p <= 0): seeded random shapes over 1-3 spatial dims, p, kernel_shape, strides, pads, dilations,
// ceil_mode and auto_pad, against the naive reference.
#include <random>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

using V = std::vector<int64_t>;
constexpr DType f32 = DType::kF32, f16 = DType::kF16;

std::string S(const char* s) {
  return s;
}

void add_lp_pool(std::vector<OpCase>& c) {
  std::mt19937 rng(18);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const char* kAutoPad[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  for (int opset : {1, 2, 11, 18})
    for (int64_t p : {1, 2, 3})
      for (int rep = 0; rep < 3; ++rep) {
        const int64_t ns = pick(1, 3);
        Shape x = {pick(1, 2), pick(1, 5)};
        V k, s, pads(static_cast<size_t>(2 * ns)), d;
        for (int64_t i = 0; i < ns; ++i) {
          x.push_back(pick(ns == 3 ? 2 : 3, ns == 3 ? 7 : 13));
          k.push_back(pick(1, std::min<int64_t>(3, x.back())));
          s.push_back(pick(1, 2));
          d.push_back(pick(1, 2));
        }
        Attrs a{{"kernel_shape", k}};
        std::string label = cat("p", p);
        if (opset == 1) {
          a.set("p", static_cast<float>(p));
        } else {
          a.set("p", p);
        }
        if (opset >= 2 && pick(0, 1)) a.set("strides", s), label += "/strides";
        const char* ap = kAutoPad[pick(0, 3)];
        if (S(ap) != "NOTSET") {
          a.set("auto_pad", S(ap));
          label += cat("/", ap);
        } else if (pick(0, 1)) {
          for (int64_t i = 0; i < ns; ++i) {  // pads below the kernel extent
            pads[static_cast<size_t>(i)] = pick(0, k[static_cast<size_t>(i)] - 1);
            pads[static_cast<size_t>(i + ns)] = pick(0, k[static_cast<size_t>(i)] - 1);
          }
          a.set("pads", pads);
          label += "/pads";
        }
        if (opset >= 18 && S(ap) == "NOTSET") {
          if (pick(0, 1)) a.set("dilations", d), label += "/dilations";
          if (pick(0, 1)) a.set("ceil_mode", int64_t{1}), label += "/ceil";
        }
        c.push_back({"LpPool", opset, {in(pick(0, 3) ? f32 : f16, x)}, std::move(a), label});
      }
  // A stem-sized map (many tiles), p = 2 and 3; LpPool-1's float p.
  c.push_back({"LpPool",
               18,
               {in(f32, {2, 16, 40, 37})},
               {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}},
               "stem_p2"});
  c.push_back({"LpPool",
               18,
               {in(f32, {1, 24, 30, 31})},
               {{"kernel_shape", V{2, 2}}, {"strides", V{2, 2}}, {"p", int64_t{3}}},
               "stem_p3"});
  c.push_back(
      {"LpPool", 1, {in(f32, {1, 3, 9, 8})}, {{"kernel_shape", V{2, 3}}, {"p", 1.5f}}, "p1_5"});
  c.push_back({"LpPool", 18, {in(f32, {0, 3, 5, 5})}, {{"kernel_shape", V{2, 2}}}, "empty"});
  // p <= 0 takes the host kernel.
  c.push_back({"LpPool",
               18,
               {in(f32, {1, 2, 5, 5}, 0.5, 2)},
               {{"kernel_shape", V{2, 2}}, {"p", int64_t{-1}}},
               "p_negative"});
  for (int64_t p : {1, 2, 3}) {
    c.push_back({"GlobalLpPool", 2, {in(f32, {2, 3, 37, 41})}, {{"p", p}}, cat("chunked_p", p)});
    c.push_back({"GlobalLpPool", 2, {in(f16, {1, 4, 7})}, {{"p", p}}, cat("f16_p", p)});
  }
  c.push_back({"GlobalLpPool", 1, {in(f32, {2, 3, 5, 4, 3})}, {{"p", 2.5f}}, "3d_p2_5"});
  c.push_back({"GlobalLpPool", 2, {in(DType::kF64, {1, 4, 6, 6})}, {{"p", int64_t{3}}}, "f64"});
  c.push_back({"GlobalLpPool", 2, {in(f32, {0, 3, 4})}, {}, "empty"});
  c.push_back(
      {"GlobalLpPool", 2, {in(f32, {1, 2, 3, 3}, 0.5, 2)}, {{"p", int64_t{-2}}}, "p_negative"});
}

}  // namespace

std::vector<OpCase> cases_nn_lppool() {
  std::vector<OpCase> c;
  add_lp_pool(c);
  return c;
}

}  // namespace asc::test

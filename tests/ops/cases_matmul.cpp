// Cases of the contraction family: MatMul (numpy matmul) and Gemm.
#include <cmath>
#include <optional>

#include "ops/op_cases.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16;

// Tolerance for a K-long dot product of values in [-1, 1]: the reference sums the same rounded
// inputs in double, so the error is the f32 accumulation (grows ~sqrt(K)) plus the rounding of
// the output to its dtype (relative, plus an absolute floor for results near zero).
void set_tolerance(OpCase& c, DType out, int64_t k) {
  const double sk = std::sqrt(static_cast<double>(std::max<int64_t>(k, 1)));
  switch (out) {
    case DType::kBF16:
      c.rtol = 1e-2, c.atol = 1e-2 * sk;
      break;
    case DType::kF16:
      c.rtol = 2e-3, c.atol = 2e-3 * sk;
      break;
    default:
      c.rtol = 1e-5, c.atol = 1e-6 * sk;
      break;
  }
}

OpCase matmul(DType dt, Shape a, Shape b, std::string label = "") {
  const int64_t k = a.empty() ? 0 : a.back();
  OpCase c{"MatMul", 13, {in(dt, std::move(a), -1, 1), in(dt, std::move(b), -1, 1)}, {}, label};
  set_tolerance(c, dt, k);
  return c;
}

OpCase gemm(DType dt, Shape a, Shape b, bool ta, bool tb, std::optional<Shape> cshape,
            float alpha = 1.f, float beta = 1.f) {
  const int64_t k = ta ? a[0] : a[1];
  std::vector<InputSpec> ins{in(dt, std::move(a), -1, 1), in(dt, std::move(b), -1, 1)};
  std::string label = std::string(ta ? "tA" : "nA") + (tb ? "tB" : "nB");
  if (cshape) {
    ins.push_back(in(dt, *cshape, -1, 1));
  }
  Attrs at;
  at.set("transA", int64_t{ta});
  at.set("transB", int64_t{tb});
  if (alpha != 1.f) {
    at.set("alpha", alpha);
    label += "/alpha";
  }
  if (beta != 1.f) {
    at.set("beta", beta);
    label += "/beta";
  }
  if (!cshape) label += "/noC";
  OpCase c{"Gemm", 13, std::move(ins), std::move(at), label};
  set_tolerance(c, dt, k);
  return c;
}

}  // namespace

std::vector<OpCase> cases_matmul() {
  std::vector<OpCase> v;
  // 2-D, odd and aligned shapes: [M, K] x [K, N].
  const int64_t mkn[][3] = {{1, 1, 1},     {7, 13, 5},   {33, 65, 17},  {128, 96, 80},
                            {16, 200, 70}, {9, 64, 100}, {50, 300, 129}};
  for (const auto& s : mkn) v.push_back(matmul(kF32, {s[0], s[1]}, {s[1], s[2]}));
  // B rows further apart than 65535 elements (an lm_head's [hidden, vocab]: Ascend's Nd2Nz
  // takes a 16-bit row stride, so its L1 copy goes row by row).
  v.push_back(matmul(kF32, {1, 24}, {24, 65600}, "wide_n"));
  // 1-D operands: promoted to a row / a column and the unit dim dropped.
  v.push_back(matmul(kF32, {13}, {13, 7}));
  v.push_back(matmul(kF32, {7, 13}, {13}));
  v.push_back(matmul(kF32, {33}, {33}));
  v.push_back(matmul(kF32, {13}, {2, 13, 7}));
  v.push_back(matmul(kF32, {2, 3, 7, 13}, {13}));
  // Batched and broadcast batch dims.
  v.push_back(matmul(kF32, {3, 9, 17}, {3, 17, 6}));
  v.push_back(matmul(kF32, {2, 1, 5, 7}, {3, 7, 4}));
  v.push_back(matmul(kF32, {4, 20, 33}, {33, 40}));
  v.push_back(matmul(kF32, {5, 33}, {2, 3, 33, 10}));
  v.push_back(matmul(kF32, {2, 1, 3, 1, 6, 8}, {1, 4, 1, 5, 8, 3}));
  // Batches B does not vary over, folded into rows (sequence-first Linear [S, 1, K]).
  v.push_back(matmul(kF32, {37, 1, 48}, {48, 70}));
  v.push_back(matmul(kF32, {3, 5, 7, 24}, {1, 24, 9}));
  v.push_back(matmul(kF32, {3, 2, 5, 24}, {3, 1, 24, 9}));  // B varies over the outer batch dim
  // Empty M, N, batch and K (K = 0 gives zeros).
  v.push_back(matmul(kF32, {0, 5}, {5, 3}));
  v.push_back(matmul(kF32, {4, 5}, {5, 0}));
  v.push_back(matmul(kF32, {0, 2, 5}, {5, 3}));
  v.push_back(matmul(kF32, {4, 0}, {0, 3}));
  v.push_back(matmul(kF32, {0}, {0}));
  // Half precisions (f32 accumulation, output rounded by the copy-out).
  for (DType dt : {kF16, kBF16}) {
    v.push_back(matmul(dt, {7, 13}, {13, 5}));
    v.push_back(matmul(dt, {33, 130}, {130, 65}));
    v.push_back(matmul(dt, {3, 257}, {257, 96}));
    v.push_back(matmul(dt, {2, 1, 5, 7}, {3, 7, 4}));
    v.push_back(matmul(dt, {40}, {40, 9}));
  }
  // Qwen2.5-0.5B-like projections (hidden 896): prefill-ish and decode rows.
  v.push_back(matmul(kF32, {3, 896}, {896, 128}, "qwen"));
  v.push_back(matmul(kBF16, {1, 3, 896}, {896, 128}, "qwen"));
  v.push_back(matmul(kF32, {20, 896}, {896, 160}, "qwen"));

  // Gemm: every transpose combination, alpha/beta, every C broadcast form, C absent.
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Shape a = ta ? Shape{19, 11} : Shape{11, 19}, b = tb ? Shape{23, 19} : Shape{19, 23};
      v.push_back(gemm(kF32, a, b, ta, tb, Shape{11, 23}));
      v.push_back(gemm(kF32, a, b, ta, tb, std::nullopt));
      v.push_back(gemm(kF32, a, b, ta, tb, Shape{23}, 0.5f, 2.0f));
    }
  v.push_back(gemm(kF32, {11, 19}, {19, 23}, false, false, Shape{}, 1.0f, -1.5f));
  v.push_back(gemm(kF32, {11, 19}, {19, 23}, false, false, Shape{11, 1}, 2.0f, 1.0f));
  v.push_back(gemm(kF32, {11, 19}, {19, 23}, false, false, Shape{1, 23}, 1.0f, 1.0f));
  v.push_back(gemm(kF32, {11, 19}, {19, 23}, false, false, Shape{1}, 1.0f, 0.0f));
  v.push_back(gemm(kF32, {3, 64}, {100, 64}, false, true, Shape{100}));  // Linear: x W^T + b
  v.push_back(gemm(kF32, {130, 70}, {130, 90}, true, false, Shape{90}, 0.25f, 3.0f));
  OpCase undefined_c = gemm(kF32, {11, 19}, {23, 19}, false, true, std::nullopt, 2.0f);
  undefined_c.inputs.push_back(InputSpec{DType::kUndefined, {}});  // C given as an empty name
  undefined_c.label += "/undefC";
  v.push_back(undefined_c);
  v.push_back(gemm(kF32, {0, 4}, {4, 5}, false, false, Shape{5}));
  v.push_back(gemm(kF32, {3, 0}, {0, 5}, false, false, Shape{3, 5}));
  // Gemm-6: C [M,N], or broadcast with the legacy attribute.
  OpCase g6 = gemm(kF32, {11, 19}, {23, 19}, false, true, Shape{11, 23}, 0.5f, 2.0f);
  g6.opset = 6;
  v.push_back(g6);
  OpCase g6b = gemm(kF32, {3, 64}, {100, 64}, false, true, Shape{100});
  g6b.opset = 6;
  g6b.attrs.set("broadcast", int64_t{1});
  g6b.label += "/broadcast";
  v.push_back(g6b);
  for (DType dt : {kF16, kBF16}) {
    v.push_back(gemm(dt, {9, 40}, {33, 40}, false, true, Shape{33}, 0.5f, 2.0f));
    v.push_back(gemm(dt, {40, 9}, {40, 33}, true, false, std::nullopt));
  }
  return v;
}

}  // namespace asc::test

// Cases of Transpose: every perm of rank 3, the attention layouts, default (reversed) perm,
// identity, rank 0/1/5/6, size-1 and empty dims, odd and large 2-D shapes, every storage width.
#include <algorithm>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32;

OpCase transpose_case(InputSpec x, std::vector<int64_t> perm) {
  OpCase c{"Transpose", 17, {std::move(x)}};
  c.label = perm.empty() ? "default" : "perm";
  for (int64_t d : perm) c.label += cat("_", d);
  if (!perm.empty()) c.attrs.set("perm", std::move(perm));
  return c;
}

}  // namespace

std::vector<OpCase> cases_transpose() {
  std::vector<OpCase> v;
  // Every perm of rank 3, on odd sizes and on a shape with a size-1 dim.
  for (const Shape& s : {Shape{5, 7, 33}, Shape{3, 1, 40}}) {
    std::vector<int64_t> p = {0, 1, 2};
    do {
      v.push_back(transpose_case(in(kF32, s), p));
    } while (std::next_permutation(p.begin(), p.end()));
  }
  // Attention layouts: [B,S,H,D] -> [B,H,S,D] (prefill and decode), K^T, and back.
  v.push_back(transpose_case(in(kF32, {2, 37, 4, 64}), {0, 2, 1, 3}));
  v.push_back(transpose_case(in(DType::kF16, {1, 1, 14, 64}), {0, 2, 1, 3}));
  v.push_back(transpose_case(in(DType::kBF16, {1, 67, 2, 64}), {0, 2, 1, 3}));
  v.push_back(transpose_case(in(kF32, {1, 2, 67, 64}), {0, 1, 3, 2}));
  v.push_back(transpose_case(in(kF32, {2, 4, 37, 64}), {0, 2, 1, 3}));
  // Default perm (reversed), identity, rank 0 and 1, rank 5 and 6.
  v.push_back(transpose_case(in(kF32, {4, 5, 6}), {}));
  v.push_back(transpose_case(in(kF32, {3, 4, 5}), {0, 1, 2}));
  v.push_back(transpose_case(in(kF32, {}), {}));
  v.push_back(transpose_case(in(kF32, {1000}), {0}));
  v.push_back(transpose_case(in(kF32, {2, 3, 1, 4, 5}), {4, 2, 0, 3, 1}));
  v.push_back(transpose_case(in(kF32, {2, 3, 2, 5, 3, 7}), {5, 1, 3, 0, 4, 2}));
  v.push_back(transpose_case(in(kF32, {2, 1, 3, 1, 2, 9}), {1, 3, 0, 2, 5, 4}));
  v.push_back(transpose_case(in(kF32, {1, 1, 1}), {2, 0, 1}));
  // Empty tensors.
  v.push_back(transpose_case(in(kF32, {0, 5}), {1, 0}));
  v.push_back(transpose_case(in(kF32, {3, 0, 4}), {2, 0, 1}));
  // Odd and large 2-D, thin matrices.
  v.push_back(transpose_case(in(kF32, {33, 65}), {1, 0}));
  v.push_back(transpose_case(in(kF32, {1024, 1000}), {1, 0}));
  v.push_back(transpose_case(in(kF32, {3, 5000}), {1, 0}));
  v.push_back(transpose_case(in(kF32, {5000, 3}), {1, 0}));
  v.push_back(transpose_case(in(kF32, {4096, 2, 2}), {0, 2, 1}));
  // Every storage width: 2 bytes, 8 bytes, 1 byte.
  v.push_back(transpose_case(in(DType::kF16, {33, 65}), {1, 0}));
  v.push_back(transpose_case(in(DType::kBF16, {3, 17, 40}), {2, 0, 1}));
  v.push_back(transpose_case(in(DType::kI64, {6, 35, 9}), {1, 2, 0}));
  v.push_back(transpose_case(in(DType::kBool, {33, 65}), {1, 0}));
  v.push_back(transpose_case(in(DType::kU8, {5, 70, 3}), {2, 1, 0}));
  v.push_back(transpose_case(in(DType::kF64, {7, 9}), {}));
  v.push_back(transpose_case(in_int(DType::kI32, {129, 3, 31}, -1000, 1000), {2, 0, 1}));
  return v;
}

}  // namespace asc::test

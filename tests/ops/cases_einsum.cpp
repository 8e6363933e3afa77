// Cases of Einsum (matmul, batch, diagonal, trace, transpose, implicit output, ellipsis broadcast,
// one / two / three operands, empty dims, the equations of real models: attention scores and
// context, batched projections, a dot, an outer product; labels summed by one operand alone,
// operands whose summed labels do not chain, outputs whose unit-stride label is an M or batch
// label; f16 / bf16 / f64 / i32) and of the two programs its tile path launches, EinsumMatMul
// and EinsumPrep (ai.asc; ops/einsum_ops.cpp): plain, transposed and broadcast operands, sums,
// diagonals, permutes, a scalar.
#include "ops/op_cases.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kF64 = DType::kF64;
using V = std::vector<int64_t>;

OpCase einsum(const char* eq, std::vector<InputSpec> ins) {
  OpCase c{"Einsum", 12, std::move(ins)};
  c.attrs.set("equation", std::string(eq));
  c.label = eq;
  return c;
}

void add_einsum_cases(std::vector<OpCase>& v) {
  v.push_back(einsum("ij,jk->ik", {in(kF32, {3, 5}), in(kF32, {5, 4})}));
  v.push_back(einsum("bij,bjk->bik", {in(kF32, {2, 3, 5}), in(kF32, {2, 5, 4})}));
  v.push_back(einsum("ii->i", {in(kF32, {4, 4})}));
  v.push_back(einsum("ii", {in(kF32, {5, 5})}));  // implicit: trace
  v.push_back(einsum("bii->bi", {in(kF32, {3, 4, 4})}));
  v.push_back(einsum("ij->ji", {in(kF32, {3, 7})}));
  v.push_back(einsum("ji", {in(kF32, {3, 7})}));  // implicit: sorted output, a transpose
  v.push_back(einsum("i,i", {in(kF32, {9}), in(kF32, {9})}));
  v.push_back(einsum("i,j->ij", {in(kF32, {3}), in(kF32, {4})}));
  v.push_back(einsum("ij->", {in(kF32, {6, 5})}));
  v.push_back(einsum("...ij,...jk->...ik", {in(kF32, {2, 1, 3, 4}), in(kF32, {5, 4, 2})}));
  v.push_back(einsum("...ii->...i", {in(kF32, {2, 3, 3})}));
  v.push_back(einsum("i...->...", {in(kF32, {4, 2, 3})}));
  v.push_back(einsum("...,...", {in(kF32, {3, 1}), in(kF32, {4})}));  // implicit broadcast
  v.push_back(einsum("ij,jk,kl->il", {in(kF32, {2, 3}), in(kF32, {3, 4}), in(kF32, {4, 5})}));
  v.push_back(einsum("Ab, bC -> AC", {in(kF32, {2, 3}), in(kF32, {3, 4})}));
  v.push_back(einsum("i,->i", {in(kF32, {5}), in(kF32, {})}));
  v.push_back(einsum("ij,jk->ik", {in(kF32, {0, 3}), in(kF32, {3, 4})}));
  v.push_back(einsum("ij,jk->ik", {in(kF32, {2, 0}), in(kF32, {0, 3})}));  // empty sum: 0
  v.push_back(
      einsum("ij,jk->ik", {in(DType::kI32, {3, 4}, -5, 5), in(DType::kI32, {4, 2}, -5, 5)}));
  v.push_back(einsum("bij,bkj->bik", {in(kF16, {2, 3, 8}), in(kF16, {2, 5, 8})}));
  v.push_back(einsum("ij,jk->ik", {in(kF64, {17, 33}), in(kF64, {33, 9})}));
  // Real models' equations.
  v.push_back(einsum("bhid,bhjd->bhij", {in(kF32, {1, 3, 17, 8}), in(kF32, {1, 3, 19, 8})}));
  v.push_back(einsum("bhij,bhjd->bhid", {in(kF32, {2, 2, 9, 11}), in(kF32, {2, 2, 11, 5})}));
  v.push_back(einsum("bid,bjd->bij", {in(kF32, {2, 13, 6}), in(kF32, {2, 7, 6})}));
  v.push_back(einsum("bij,jk->bik", {in(kF32, {2, 7, 33}), in(kF32, {33, 20})}));
  v.push_back(einsum("bn,anm,bm->ba", {in(kF32, {3, 4}), in(kF32, {5, 4, 6}), in(kF32, {3, 6})}));
  v.push_back(einsum("...ij,...jk->...ik", {in(kF32, {3, 1, 4, 5}), in(kF32, {1, 2, 5, 3})}));
  v.push_back(einsum("bhid,bhjd->bhij", {in(kF32, {1, 2, 67, 40}), in(kF32, {1, 2, 70, 40})}));
  v.push_back(einsum("bhid,bhjd->bhij", {in(kF16, {1, 2, 9, 16}), in(kF16, {1, 2, 11, 16})}));
  v.push_back(einsum("bhij,bhjd->bhid", {in(kBF16, {1, 2, 9, 11}), in(kBF16, {1, 2, 11, 8})}));
  v.push_back(einsum("bij,jk->bik", {in(kBF16, {2, 5, 12}), in(kBF16, {12, 7})}));
  // The planner's other forms.
  v.push_back(einsum("ij,jk->ki", {in(kF32, {3, 5}), in(kF32, {5, 4})}));           // swapped
  v.push_back(einsum("bij,bjk->ikb", {in(kF32, {2, 3, 5}), in(kF32, {2, 5, 4})}));  // permuted
  v.push_back(einsum("ijk,kl->il", {in(kF32, {3, 4, 5}), in(kF32, {5, 2})}));  // j summed first
  v.push_back(einsum("abc,cb->a", {in(kF32, {3, 4, 5}), in(kF32, {5, 4})}));   // K not chained
  v.push_back(einsum("ii,ij->j", {in(kF32, {4, 4}), in(kF32, {4, 3})}));       // a diagonal
  v.push_back(einsum("ij,ij->", {in(kF16, {5, 7}), in(kF16, {5, 7})}));
  // A matrix chain times a vector: the vector's product first.
  v.push_back(einsum("ij,jk,k->i", {in(kF32, {40, 30}), in(kF32, {30, 50}), in(kF32, {50})}));
}

OpCase program(const char* op, std::vector<InputSpec> ins, Attrs a, const char* label) {
  OpCase c{op, 1, std::move(ins), std::move(a), label};
  c.domain = "ai.asc";
  return c;
}

void add_program_cases(std::vector<OpCase>& v) {
  v.push_back(program("EinsumMatMul", {in(kF32, {2, 3, 5}), in(kF32, {2, 5, 4})},
                      {{"batch", V{2}},
                       {"a_bs", V{15}},
                       {"b_bs", V{20}},
                       {"y_bs", V{12}},
                       {"mnk", V{3, 4, 5}},
                       {"strides", V{5, 1, 4, 1, 4}},
                       {"y_shape", V{2, 3, 4}}},
                      "batched"));
  v.push_back(program("EinsumMatMul", {in(kF32, {3, 9, 8}), in(kF32, {3, 10, 8})},
                      {{"batch", V{3}},
                       {"a_bs", V{72}},
                       {"b_bs", V{80}},
                       {"y_bs", V{90}},
                       {"mnk", V{9, 10, 8}},
                       {"strides", V{8, 1, 1, 8, 10}},
                       {"y_shape", V{3, 9, 10}}},
                      "transposed_b"));
  v.push_back(program("EinsumMatMul", {in(kF32, {2, 6, 5}), in(kF32, {5, 4})},
                      {{"batch", V{2}},
                       {"a_bs", V{30}},
                       {"b_bs", V{0}},
                       {"y_bs", V{24}},
                       {"mnk", V{6, 4, 5}},
                       {"strides", V{5, 1, 4, 1, 4}},
                       {"y_shape", V{2, 6, 4}}},
                      "broadcast_b"));
  for (DType dt : {kF16, kBF16})
    v.push_back(
        program("EinsumMatMul", {in(dt, {40, 70}), in(dt, {70, 50})},
                {{"mnk", V{40, 50, 70}}, {"strides", V{70, 1, 50, 1, 50}}, {"y_shape", V{40, 50}}},
                "plain"));
  v.push_back(program("EinsumPrep", {in(kF32, {3, 7})},
                      {{"dims", V{3, 7}},
                       {"in_strides", V{7, 1}},
                       {"out_strides", V{1, 3}},
                       {"reduced", V{0, 0}},
                       {"y_shape", V{7, 3}}},
                      "transpose"));
  v.push_back(program("EinsumPrep", {in(kF32, {4, 5, 5})},
                      {{"dims", V{4, 5}},
                       {"in_strides", V{25, 6}},
                       {"out_strides", V{1, 0}},
                       {"reduced", V{0, 1}},
                       {"y_shape", V{4}}},
                      "trace"));
  for (DType dt : {kF32, kF16})
    v.push_back(program("EinsumPrep", {in(dt, {6, 33, 10})},
                        {{"dims", V{6, 33, 10}},
                         {"in_strides", V{330, 10, 1}},
                         {"out_strides", V{1, 0, 6}},
                         {"reduced", V{0, 1, 0}},
                         {"y_shape", V{10, 6}}},
                        "sum_permute"));
  v.push_back(program("EinsumPrep", {in(kF32, {9})},
                      {{"dims", V{9}},
                       {"in_strides", V{1}},
                       {"out_strides", V{0}},
                       {"reduced", V{1}},
                       {"y_shape", V{}}},
                      "scalar"));
}

}  // namespace

std::vector<OpCase> cases_einsum() {
  std::vector<OpCase> v;
  add_einsum_cases(v);
  add_program_cases(v);
  return v;
}

}  // namespace asc::test

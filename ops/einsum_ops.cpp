// The two tile programs Einsum launches (einsum_tile.cpp), ai.asc, each reading its operands
// through strided GM views given as attributes (element strides into the GM arguments as they
// are, so a diagonal, a permuted or a broadcast operand is read in place):
//
// EinsumMatMul: Y[b, i, j] = sum_k A[b, i, k] B[b, k, j] over batch dims `batch` (A, B, Y
//   strides a_bs, b_bs, y_bs; 0 broadcasts) and mnk = [M, N, K] with strides
//   [a_rs, a_cs, b_rs, b_cs, y_rs] (Y's column stride is 1): MatMul's tile (ops/matmul.h) on that
//   view — a transposed B (b_rs = 1) is a transposed read, as Gemm's transB.
// EinsumPrep: Y = the sum of X over the `reduced` dims of the view dims `dims` (X strides
//   in_strides, Y strides out_strides for the kept dims): a row-view program (registry/rows.h)
//   whose input box gathers a diagonal or a permutation and whose output box scatters into the
//   layout asked for; without reduced dims a copy (a Transpose). f16 / bf16 sum in f32.
#include <climits>

#include "ops/einsum.h"
#include "ops/matmul.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/rows.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

const std::vector<int64_t>& ints_of(const Attrs& a, const char* key, size_t n, const char* op) {
  const std::vector<int64_t>& v = a.ints(key);
  if (v.size() != n)
    throw ShapeError(cat(op, ": attribute ", key, " needs ", n, " values, has ", v.size()));
  return v;
}

// ---- EinsumMatMul ------------------------------------------------------------------------------

MmView contract_view(const Attrs& a) {
  MmView v;
  v.batch = a.ints("batch");
  const size_t nb = v.batch.size();
  v.a_bs = ints_of(a, "a_bs", nb, "EinsumMatMul");
  v.b_bs = ints_of(a, "b_bs", nb, "EinsumMatMul");
  v.y_bs = ints_of(a, "y_bs", nb, "EinsumMatMul");
  const auto& mnk = ints_of(a, "mnk", 3, "EinsumMatMul");
  const auto& s = ints_of(a, "strides", 5, "EinsumMatMul");
  v.m = mnk[0], v.n = mnk[1], v.k = mnk[2];
  v.a_rs = s[0], v.a_cs = s[1], v.b_rs = s[2], v.b_cs = s[3], v.y_rs = s[4];
  return v;
}

void contract_kernel(TileBuilder& t) {
  const MmView v = contract_view(t.ctx().attr());
  const MmTile tile = matmul_accumulate(t, v);
  t.copy_out(0, tile.c, matmul_out_box(v, tile));
}

// Naive reference in double over the view.
void contract_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const MmView v = contract_view(a);
  std::vector<int64_t> idx(v.batch.size() + 1);
  for (int64_t bi = 0; bi < numel(v.batch); ++bi) {
    unravel(bi, v.batch, idx.data());
    int64_t oa = 0, ob = 0, oy = 0;
    for (size_t d = 0; d < v.batch.size(); ++d)
      oa += idx[d] * v.a_bs[d], ob += idx[d] * v.b_bs[d], oy += idx[d] * v.y_bs[d];
    for (int64_t i = 0; i < v.m; ++i)
      for (int64_t j = 0; j < v.n; ++j) {
        double s = 0;
        for (int64_t k = 0; k < v.k; ++k)
          s += in[0].at(oa + i * v.a_rs + k * v.a_cs) * in[1].at(ob + k * v.b_rs + j * v.b_cs);
        out[0].set(oy + i * v.y_rs + j, s);
      }
  }
}

// ---- EinsumPrep --------------------------------------------------------------------------------

RowView prep_view(const Attrs& a) {
  RowView v;
  v.dims = a.ints("dims");
  const size_t n = v.dims.size();
  v.in_strides = ints_of(a, "in_strides", n, "EinsumPrep");
  v.out_strides = ints_of(a, "out_strides", n, "EinsumPrep");
  const auto& red = ints_of(a, "reduced", n, "EinsumPrep");
  for (size_t j = 0; j < n; ++j) {
    v.reduced.push_back(red[j] != 0);
    if (red[j]) v.count *= v.dims[j];
  }
  if (n == 0) {  // a scalar: one kept element
    v.dims = {1}, v.reduced = {false}, v.in_strides = {1}, v.out_strides = {1};
  }
  return v;
}

void prep_kernel(TileBuilder& t) {
  const RowView v = prep_view(t.ctx().attr());
  const RowCursor tile = row_tile(v, t.tiling());
  Buf y = v.has_reduced()
              ? t.cast(row_reduce_input(t, 0, ReduceOp::kSum, v), t.ctx().outputs.at(0).dtype)
              : t.copy_in(0, row_in_box(v, tile));
  t.copy_out(0, y, row_out_box(v, tile));
}

// Naive reference in double: every point of the view adds its element to its output element.
void prep_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const RowView v = prep_view(a);
  std::vector<double> acc(static_cast<size_t>(out[0].numel()), 0.0);
  std::vector<int64_t> idx(v.dims.size() + 1);
  for (int64_t p = 0; p < numel(v.dims); ++p) {
    unravel(p, v.dims, idx.data());
    int64_t src = 0, dst = 0;
    for (size_t j = 0; j < v.dims.size(); ++j) {
      src += idx[j] * v.in_strides[j];
      if (!v.reduced[j]) dst += idx[j] * v.out_strides[j];
    }
    acc[static_cast<size_t>(dst)] += in[0].at(src);
  }
  for (int64_t o = 0; o < out[0].numel(); ++o) out[0].set(o, acc[static_cast<size_t>(o)]);
}

std::vector<TensorType> infer_y_shape(const InferContext& c) {
  const std::vector<int64_t>& y = c.attrs.ints("y_shape");
  return {TensorType{c.inputs.at(0).dtype, to_sym(Shape(y.begin(), y.end()))}};
}

}  // namespace

void register_einsum_programs(Registry& r) {
  const std::vector<int64_t> none;
  r.add(def_op("EinsumMatMul", 1, INT_MAX, "ai.asc")
            .input("A", "T")
            .input("B", "T")
            .output("Y", "T")
            .attr("batch", AttrKind::kInts, none)
            .attr("a_bs", AttrKind::kInts, none)
            .attr("b_bs", AttrKind::kInts, none)
            .attr("y_bs", AttrKind::kInts, none)
            .attr("mnk", AttrKind::kInts)
            .attr("strides", AttrKind::kInts)
            .attr("y_shape", AttrKind::kInts)
            .type_constraint("T", cube_types())
            .trait(kContraction)
            .describe("Einsum's batched product on the cube: Y[b, i, j] = sum_k A[b, i, k] "
                      "B[b, k, j], every operand a strided view (its attributes)")
            .infer(infer_y_shape)
            .tiling([](const LaunchContext& ctx) {
              return matmul_tiling(ctx, contract_view(ctx.attr()));
            })
            .kernel(contract_kernel)
            .reference(contract_reference));
  r.add(def_op("EinsumPrep", 1, INT_MAX, "ai.asc")
            .input("X", "T")
            .output("Y", "T")
            .attr("dims", AttrKind::kInts, none)
            .attr("in_strides", AttrKind::kInts, none)
            .attr("out_strides", AttrKind::kInts, none)
            .attr("reduced", AttrKind::kInts, none)
            .attr("y_shape", AttrKind::kInts)
            .type_constraint("T", cube_types())
            .describe("Einsum's operand preparation on the vector unit: Y = X summed over the "
                      "reduced view dims, read and written through strided views (diagonals, "
                      "permutes)")
            .infer(infer_y_shape)
            .tiling([](const LaunchContext& ctx) { return row_tiling(ctx, prep_view(ctx.attr())); })
            .kernel(prep_kernel)
            .reference(prep_reference));
}

}  // namespace asc

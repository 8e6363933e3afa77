// PackedMatMul (ai.asc 1): FusedMatMulBias with B stored pre-packed, the way Ascend's model
// converter stores weights in the cube's fractal layout ahead of time. The load-time pass
// (runtime/weight_pack.h) packs a constant weight B [K, N] once into the packed B layout of the
// device's cube kernels (runtime/devices/cpu/gemm.h) and rewrites its MatMul into this op:
//   Bp [ceil(N / panel), KP * panel], KP = K rounded up to k_pack:
//     Bp[q, (kk / k_pack) * panel * k_pack + j * k_pack + kk % k_pack] = B[kk, q * panel + j]
//     (zero past K and N)
//   Y = act(A x B + bias)            (attributes k = K, n = N, panel, k_pack, activation)
// Each panel is one contiguous run over all of K, so a decoding step (M = 1) streams a few panels
// at a time at the memory's rate instead of rows of B (docs/PERFORMANCE.md).
//
// One tile is FusedMatMulBias's, B's copy-in being whole panels:
//   a1 (L1) = A'[b, m0 : +TM, k0 : +TK]
//   b1 (L1) = Bp[n0 / panel : +TN / panel, k0 * panel : +TK * panel]
//   c (L0C) += a1 x load_l0_panels(b1)      (the packed rows are the cube's operand as they are)
//   y = act(c + bias) -> Y[b, m0 : +TM, n0 : +TN]
#include <numeric>

#include "ops/fused.h"
#include "ops/matmul.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc::fused {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct Packing {
  int64_t k, n, panel, k_pack;

  int64_t kp() const { return ceil_div(k, k_pack) * k_pack; }
  int64_t panels() const { return ceil_div(n, panel); }
  Shape shape() const { return {panels(), kp() * panel}; }
};

Packing packing_of(const Attrs& a) {
  const Packing p{a.i("k"), a.i("n"), a.i("panel"), a.i("k_pack")};
  if (p.k <= 0 || p.n <= 0 || p.panel <= 0 || (p.k_pack != 1 && p.k_pack != 2))
    throw ShapeError(cat("PackedMatMul: k ", p.k, ", n ", p.n, ", panel ", p.panel, ", k_pack ",
                         p.k_pack, " (k, n, panel > 0, k_pack 1 or 2)"));
  return p;
}

MmView packed_view(const LaunchContext& ctx) {
  const Packing pk = packing_of(ctx.attr());
  MmView v = matmul_view(ctx.inputs[0].shape, Shape{pk.k, pk.n});
  const bool bias = ctx.inputs.size() > 2 && ctx.inputs[2].dtype != DType::kUndefined;
  if (bias || ctx.attr().s("activation") != "none") v.epilogue_ub = 4;
  return v;
}

void packed_matmul_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const Packing pk = packing_of(ctx.attr());
  const MmView v = packed_view(ctx);
  const int64_t tm = t.param("TM"), tn = t.param("TN"), tk = t.param("TK");
  if (tn % pk.panel != 0 || tk % pk.k_pack != 0)
    throw ShapeError(cat("PackedMatMul: tile ", tn, " x ", tk, " does not hold whole panels of ",
                         pk.panel, " columns and k_pack ", pk.k_pack));
  const int nb = static_cast<int>(v.batch.size());
  const int m_axis = nb + (t.param("ORDER") == 0 ? 0 : 1), n_axis = 2 * nb + 1 - m_axis;
  MmTile r{Buf{}, t.grid(m_axis, tm), t.grid(n_axis, tn), tm, tn};
  r.c = t.alloc(Pos::kL0C, DType::kF32, {tm, tn}, "c");
  const int64_t row = pk.kp() * pk.panel;  // elements of one panel
  t.loop(std::max<int64_t>(1, ceil_div(v.k, tk)), [&](Coord kv) {
    Buf a1 = t.copy_in(
        0, matmul_box(v, v.a_bs, {v.m, v.a_rs, r.m0, tm}, {v.k, v.a_cs, Coord{kv.var, tk, 0}, tk}),
        Pos::kL1, "a1");
    GmBox box;
    box.dims.push_back(BoxDim{pk.panels(), row, t.grid(n_axis, tn / pk.panel), tn / pk.panel});
    box.dims.push_back(BoxDim{row, 1, Coord{kv.var, tk * pk.panel, 0}, tk * pk.panel});
    Buf b1 = t.copy_in(1, box, Pos::kL1, "b1");
    t.mmad(r.c, t.load_l0(a1, Pos::kL0A), t.load_l0_panels(b1, pk.panel, pk.k_pack, pk.n), kv);
  });
  t.copy_out(0, matmul_epilogue(t, v, r), matmul_out_box(v, r));
}

// MatMul's tiling with tiles of whole panels (TN a multiple of `panel`, TK of k_pack).
TilingData packed_tiling(const LaunchContext& ctx) {
  const Packing pk = packing_of(ctx.attr());
  DeviceSpec spec = *ctx.spec;
  spec.mmad_n_align = std::lcm(spec.mmad_n_align, pk.panel);
  spec.mmad_k_align = std::lcm(spec.mmad_k_align, pk.k_pack);
  LaunchContext aligned = ctx;
  aligned.spec = &spec;
  return matmul_tiling(aligned, packed_view(aligned));
}

std::vector<TensorType> infer_packed_matmul(const InferContext& c) {
  check_matmul_activation(c.attrs.s("activation"));
  const Packing pk = packing_of(c.attrs);
  const TensorType& bp = c.inputs.at(1);
  const std::optional<Shape> bs = bp.shape ? to_concrete(*bp.shape) : std::nullopt;
  if (bp.shape && (!bs || *bs != pk.shape()))
    throw ShapeError(cat("PackedMatMul: B ", bp.str(), " is not the packed [", pk.panels(), ", ",
                         pk.kp() * pk.panel, "] of a [", pk.k, ", ", pk.n, "] weight"));
  // As FusedMatMulBias with B [k, n].
  std::vector<TensorType> inputs = c.inputs;
  inputs[1].shape = SymShape{Dim(pk.k), Dim(pk.n)};
  InferContext unpacked{c.op, inputs, c.attrs, c.values, c.num_outputs};
  return infer_matmul(unpacked);
}

// B unpacked into [k, n] (f64), then FusedMatMulBias's reference.
void ref_packed_matmul(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Packing pk = packing_of(a);
  Tensor b(DType::kF64, {pk.k, pk.n});
  const int64_t row = pk.kp() * pk.panel;
  for (int64_t kk = 0; kk < pk.k; ++kk)
    for (int64_t j = 0; j < pk.n; ++j) {
      const int64_t q = j / pk.panel, jj = j % pk.panel;
      b.set(kk * pk.n + j, in[1].at(q * row + (kk / pk.k_pack) * pk.panel * pk.k_pack +
                                    jj * pk.k_pack + kk % pk.k_pack));
    }
  std::vector<Tensor> unpacked(in.begin(), in.end());
  unpacked[1] = b;
  ref_fused_matmul(a, unpacked, out);
}

}  // namespace

void add_packed_matmul(Registry& r) {
  r.add(
      def_op("PackedMatMul", 1, INT_MAX, kDomain)
          .input("A", "T")
          .input("B", "T")
          .input("bias", "T", Arity::kOptional)
          .output("Y", "T")
          .attr("k", AttrKind::kInt)
          .attr("n", AttrKind::kInt)
          .attr("panel", AttrKind::kInt)
          .attr("k_pack", AttrKind::kInt, AttrValue{int64_t{1}})
          .attr("activation", AttrKind::kString, AttrValue{std::string("none")})
          .type_constraint("T", cube_types())
          .trait(kContraction)
          .describe("Y = act(A x B + bias) with B a [k, n] weight stored pre-packed in the cube's "
                    "panel layout (the load-time weight packing of the cpu device)")
          .infer(infer_packed_matmul)
          .tiling(packed_tiling)
          .kernel(packed_matmul_kernel)
          .reference(ref_packed_matmul));
}

}  // namespace asc::fused

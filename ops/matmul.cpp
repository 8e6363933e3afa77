// MatMul (numpy matmul) and Gemm (Y = alpha * A' x B' + beta * C) on the cube unit.
//
// One tile is Y[b, m0 : m0+TM, n0 : n0+TN] of the batched product Y[b] = A'[b] x B'[b]:
//   c (L0C, f32 [TM, TN])
//   for k in [0, max(1, ceil(K / TK))):          (one step when K = 0: mmad of k 0 gives zeros)
//     a1 (L1) = A'[b, m0 : +TM, k*TK : +TK]      b1 (L1) = B'[b, k*TK : +TK, n0 : +TN]
//     a0 (L0A) = load_l0(a1)                     b0 (L0B) = load_l0(b1)
//     c = (k == 0 ? 0 : c) + a0 x b0
//   Gemm epilogue on the vector unit: y = alpha * c + beta * C[m0 : +TM, n0 : +TN]
//   copy_out Y (Fixpipe: f32 -> the output dtype)
// A' and B' are strided GM views (MmView): Gemm's transA/transB swap an operand's row and column
// strides, broadcast batch dims have stride 0, a 1-D A is one row and a 1-D B one column. Every
// box carries the batch dims (size 1) before its two matrix dims.
#include <algorithm>
#include <cmath>

#include "ops/matmul.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t round_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}

std::string shapes_str(const Shape& a, const Shape& b) {
  return cat(to_string(a), " x ", to_string(b));
}

}  // namespace

MmView matmul_view(const Shape& sa, const Shape& sb, bool fold_rows) {
  const size_t ra = sa.size(), rb = sb.size();
  if (ra == 0 || rb == 0) throw ShapeError("MatMul of a scalar: " + shapes_str(sa, sb));
  MmView v;
  v.k = sa[ra - 1];
  v.m = ra >= 2 ? sa[ra - 2] : 1;
  v.n = rb >= 2 ? sb[rb - 1] : 1;
  const int64_t kb = rb >= 2 ? sb[rb - 2] : sb[0];
  if (kb != v.k) throw ShapeError("MatMul inner dims differ: " + shapes_str(sa, sb));
  v.a_rs = v.k;
  v.b_rs = rb >= 2 ? v.n : 1;
  v.y_rs = rb >= 2 ? v.n : 1;  // a 1-D B drops N: Y is [..., M]
  const Shape ba(sa.begin(), sa.end() - std::min<size_t>(ra, 2));
  const Shape bb(sb.begin(), sb.end() - std::min<size_t>(rb, 2));
  const Shape ob = broadcast_shapes(ba, bb);
  const size_t r = ob.size();
  Shape pa(r - ba.size(), 1), pb(r - bb.size(), 1);
  pa.insert(pa.end(), ba.begin(), ba.end());
  pb.insert(pb.end(), bb.begin(), bb.end());
  int64_t sa_acc = v.m * v.k, sb_acc = v.k * v.n, sy_acc = v.m * v.n;
  Shape a_full(r), b_full(r), y_full(r);  // contiguous batch strides, innermost first filled
  for (size_t d = r; d-- > 0;) {
    a_full[d] = sa_acc, b_full[d] = sb_acc, y_full[d] = sy_acc;
    sa_acc *= pa[d], sb_acc *= pb[d], sy_acc *= ob[d];
  }
  bool prev_a = false, prev_b = false;  // broadcast flags of the last kept dim
  for (size_t d = 0; d < r; ++d) {
    if (ob[d] == 1) continue;
    const bool bc_a = pa[d] == 1, bc_b = pb[d] == 1;
    if (!v.batch.empty() && bc_a == prev_a && bc_b == prev_b) {  // merge into the previous dim
      v.batch.back() *= ob[d];
    } else {
      v.batch.push_back(ob[d]);
      v.a_bs.push_back(0), v.b_bs.push_back(0), v.y_bs.push_back(0);
    }
    v.a_bs.back() = bc_a ? 0 : a_full[d];
    v.b_bs.back() = bc_b ? 0 : b_full[d];
    v.y_bs.back() = y_full[d];
    prev_a = bc_a, prev_b = bc_b;
  }
  // A batch B does not vary over (B 2-D, or broadcast there) with A and Y dense across it is more
  // rows of one product: [S, 1, K] x [K, N] (torch's sequence-first Linear) is one M = S GEMM,
  // not S products of one row each.
  if (fold_rows && !v.batch.empty() && ra >= 2 && !prev_a && v.b_bs.back() == 0 &&
      v.a_bs.back() == v.m * v.k && v.y_bs.back() == v.m * v.n && v.y_rs == v.n) {
    v.m *= v.batch.back();
    v.batch.pop_back(), v.a_bs.pop_back(), v.b_bs.pop_back(), v.y_bs.pop_back();
  }
  return v;
}

namespace {

bool gemm_has_c(const std::vector<TensorDesc>& in) {
  return in.size() > 2 && in[2].dtype != DType::kUndefined;
}

MmView gemm_view(const std::vector<TensorDesc>& in, const Attrs& at) {
  const Shape &sa = in[0].shape, &sb = in[1].shape;
  if (sa.size() != 2 || sb.size() != 2)
    throw ShapeError("Gemm needs 2-D A and B: " + shapes_str(sa, sb));
  MmView v;
  const bool ta = at.i("transA") != 0, tb = at.i("transB") != 0;
  v.m = ta ? sa[1] : sa[0];
  v.k = ta ? sa[0] : sa[1];
  v.a_rs = ta ? 1 : sa[1];
  v.a_cs = ta ? sa[1] : 1;
  v.n = tb ? sb[0] : sb[1];
  const int64_t kb = tb ? sb[1] : sb[0];
  if (kb != v.k)
    throw ShapeError("Gemm inner dims differ: " + shapes_str(sa, sb) +
                     cat(" (transA=", int(ta), ", transB=", int(tb), ")"));
  v.b_rs = tb ? 1 : sb[1];
  v.b_cs = tb ? sb[1] : 1;
  v.y_rs = v.n;
  v.alpha = at.f("alpha");
  v.beta = at.f("beta");
  if (gemm_has_c(in) && v.beta != 0.0) {
    const Shape& sc = in[2].shape;
    if (sc.size() > 2) throw ShapeError("Gemm C of rank > 2: " + to_string(sc));
    Shape c2(2 - sc.size(), 1);
    c2.insert(c2.end(), sc.begin(), sc.end());
    if ((c2[0] != 1 && c2[0] != v.m) || (c2[1] != 1 && c2[1] != v.n))
      throw ShapeError(
          cat("Gemm C ", to_string(sc), " does not broadcast to [", v.m, ",", v.n, "]"));
    v.has_c = true;
    v.c_rs = c2[0] == 1 ? 0 : c2[1];
    v.c_cs = c2[1] == 1 ? 0 : 1;
  }
  return v;
}

MmView view_of(const LaunchContext& ctx) {
  return ctx.op->type == "Gemm" ? gemm_view(ctx.inputs, ctx.attr())
                                : matmul_view(ctx.inputs[0].shape, ctx.inputs[1].shape);
}

// ---- tiling ------------------------------------------------------------------------------------
struct TileSizes {
  int64_t tm, tn, tk;
};

TilingData make_tiling(const MmView& v, const TileSizes& s, int order, int64_t cores) {
  TilingData t;
  t.grid = v.batch;
  const int64_t gm = ceil_div(v.m, s.tm), gn = ceil_div(v.n, s.tn);
  t.grid.push_back(order == 0 ? gm : gn);
  t.grid.push_back(order == 0 ? gn : gm);
  t.params = {{"TM", s.tm}, {"TN", s.tn}, {"TK", s.tk}, {"ORDER", order}};
  t.block_dim = std::clamp<int64_t>(numel(t.grid), 1, cores);
  return t;
}

// Sizes that cut `extent` into t pieces, aligned up, largest first: t = 1, 2, .., `dense`, then
// growing by half (every small count, so some tile count balances the cores).
std::vector<int64_t> tile_sizes(int64_t extent, int64_t align, int64_t dense = 32) {
  std::vector<int64_t> s;
  for (int64_t t = 1;; t = t < dense ? t + 1 : t * 3 / 2) {
    const int64_t sz = round_up(ceil_div(std::max<int64_t>(extent, 1), t), align);
    if (s.empty() || sz < s.back()) s.push_back(sz);
    if (sz <= align) break;
  }
  return s;
}

}  // namespace

// Candidates in order of an estimated time per core (MAC units): padded MACs per wave, plus
// packing A and B per k step (A re-packed for every N tile, B for every M tile), plus C re-read
// per k step. Small M on a device that streams B unpacked (DeviceSpec::MatmulCosts): B's bytes
// dominate, fewer k steps win. Tile sizes are multiples of the spec's mmad granules (TM = M
// exactly on the direct path).
TilingData matmul_tiling(const LaunchContext& ctx, const MmView& v) {
  const DeviceSpec& spec = *ctx.spec;
  const DeviceSpec::MatmulCosts& mc = spec.matmul;
  const int64_t cores = cores_for(ctx);
  const int64_t am = spec.mmad_m_align, an = spec.mmad_n_align, ak = spec.mmad_k_align;
  const int64_t es =
      v.ints && mc.ints_as_f32 ? 4 : static_cast<int64_t>(dtype_size(ctx.inputs[0].dtype));
  // B is the bigger operand: cores split N (grid N-major) so each streams its share of B once.
  const int order = v.k * v.n > v.m * v.k ? 1 : 0;
  if (numel(v.batch) == 0 || v.m == 0 || v.n == 0)
    return make_tiling(v, {round_up(std::max<int64_t>(v.m, 1), am), an, ak}, order, cores);
  const bool direct = v.m <= mc.direct_max_m;
  const std::vector<int64_t> tms = direct ? std::vector<int64_t>{v.m} : tile_sizes(v.m, am);
  const std::vector<int64_t> tns = tile_sizes(v.n, an);
  std::vector<int64_t> tks = tile_sizes(v.k, ak, 4);
  // Powers of two from 128 too: whole k chunks of the micro-kernels (on the cpu, direct: 128-row
  // blocks; packed: 256 f32 / 512 bf16 in k), each of which re-reads the C tile.
  const int64_t kp = round_up(std::max<int64_t>(v.k, 1), ak);
  if (direct) tks = {kp};
  for (int64_t tk = 128; tk < kp; tk *= 2)
    if (std::find(tks.begin(), tks.end(), tk) == tks.end()) tks.push_back(tk);
  const int64_t chunk =
      ctx.inputs[0].dtype == DType::kBF16 && mc.k_chunk_bf16 > 0 ? mc.k_chunk_bf16 : mc.k_chunk;
  const int64_t k_chunk = chunk > 0 ? chunk : kp;
  const int64_t slots = ctx.optimize ? 2 : 1;
  const int64_t ub_per_elem = (v.has_c ? 4 + slots * es : 0) + v.epilogue_ub;
  const double pack_a = mc.pack_a, pack_b = mc.pack_b, c_step = 8;
  const double step_fixed = mc.step_fixed;
  struct Scored {
    double cost;
    TileSizes t;
  };
  std::vector<Scored> cands;
  for (int64_t tm : tms)
    for (int64_t tn : tns)
      for (int64_t tk : tks) {
        // Necessary capacity conditions; auto_tiling checks the traced program exactly.
        if (tm * tk * es > spec.l0a_bytes || tk * tn * es > spec.l0b_bytes ||
            tm * tn * 4 > spec.l0c_bytes || slots * (tm + tn) * tk * es > spec.l1_bytes ||
            tm * tn * ub_per_elem > spec.ub_bytes)
          continue;
        const int64_t tiles = numel(v.batch) * ceil_div(v.m, tm) * ceil_div(v.n, tn);
        const double waves = static_cast<double>(ceil_div(tiles, cores));
        // Per tile: MACs over the padded K, packing A and B, and the C tile re-read once per
        // k step plus once per micro-kernel k chunk.
        const double m = static_cast<double>(std::min(tm, round_up(v.m, am)));
        const double n = static_cast<double>(std::min(tn, round_up(v.n, an)));
        const double k = static_cast<double>(kp);
        const int64_t rem = kp % tk;
        const double steps = static_cast<double>(kp / tk + (rem > 0));
        const double chunks =
            static_cast<double>(kp / tk * ceil_div(tk, k_chunk) + ceil_div(rem, k_chunk));
        // Direct: bytes of B streamed, each row run costing ~256 bytes more (page, prefetch
        // start), plus the C tile re-read from L2 per k step.
        const double per_tile = direct ? k * (n * static_cast<double>(es) + 256) + 2 * m * n * steps
                                       : m * n * k + pack_a * m * k + pack_b * k * n +
                                             c_step * m * n * (steps + chunks) + step_fixed * steps;
        // On the host L0A/L0B/L0C all live in one L2: a step whose packed A and B blocks and C
        // tile spill it re-streams them from L3.
        const double working = static_cast<double>((tm * tk + tk * tn) * es + tm * tn * 4);
        const double spill =
            spec.shared_cache_bytes > 0 && working > spec.shared_cache_bytes && !direct ? 1.5 : 1.0;
        cands.push_back({waves * per_tile * spill, {tm, tn, tk}});
      }
  std::stable_sort(cands.begin(), cands.end(), [](const Scored& a, const Scored& b) {
    if (a.cost != b.cost) return a.cost < b.cost;
    return a.t.tk > b.t.tk;
  });
  std::vector<TilingData> list;
  for (const Scored& s : cands) list.push_back(make_tiling(v, s.t, order, cores));
  if (list.empty())
    list.push_back(make_tiling(v, {tms.back(), tns.back(), tks.back()}, order, cores));
  return auto_tiling(ctx, list);
}

// ---- kernel ------------------------------------------------------------------------------------

GmBox matmul_box(const MmView& v, const Shape& batch_strides, BoxDim rows, BoxDim cols) {
  GmBox box;
  for (size_t d = 0; d < v.batch.size() && !batch_strides.empty(); ++d)
    box.dims.push_back(BoxDim{v.batch[d], batch_strides[d], Coord{static_cast<int>(d), 1, 0}, 1});
  box.dims.push_back(rows);
  box.dims.push_back(cols);
  return box;
}

MmTile matmul_accumulate(TileBuilder& t, const MmView& v) {
  const int64_t tm = t.param("TM"), tn = t.param("TN"), tk = t.param("TK");
  const int nb = static_cast<int>(v.batch.size());
  const int m_axis = nb + (t.param("ORDER") == 0 ? 0 : 1), n_axis = 2 * nb + 1 - m_axis;
  MmTile r{Buf{}, t.grid(m_axis, tm), t.grid(n_axis, tn), tm, tn};
  r.c = t.alloc(Pos::kL0C, v.ints ? DType::kI32 : DType::kF32, {tm, tn}, "c");
  // Zero points of the integer form: one value, A's per row or B's per column of the tile.
  auto zero = [&](int arg, int64_t extent, Coord start, int64_t size, const char* name) {
    if (arg < 0) return Buf{};
    GmBox b;
    b.dims = {BoxDim{1, 1, Coord{}, 1}};
    if (numel(t.ctx().inputs[static_cast<size_t>(arg)].shape) != 1)
      b.dims = {BoxDim{extent, 1, start, size}};
    return t.copy_in(arg, b, Pos::kUB, name);
  };
  const Buf az = zero(v.az_arg, v.m, r.m0, tm, "az"), bz = zero(v.bz_arg, v.n, r.n0, tn, "bz");
  t.loop(std::max<int64_t>(1, ceil_div(v.k, tk)), [&](Coord kv) {
    const Coord k0{kv.var, tk, 0};
    Buf a1 =
        t.copy_in(v.a_arg, matmul_box(v, v.a_bs, {v.m, v.a_rs, r.m0, tm}, {v.k, v.a_cs, k0, tk}),
                  Pos::kL1, "a1");
    Buf b1 =
        t.copy_in(v.b_arg, matmul_box(v, v.b_bs, {v.k, v.b_rs, k0, tk}, {v.n, v.b_cs, r.n0, tn}),
                  Pos::kL1, "b1");
    t.mmad(r.c, t.load_l0(a1, Pos::kL0A, az), t.load_l0(b1, Pos::kL0B, bz), kv);
  });
  return r;
}

GmBox matmul_out_box(const MmView& v, const MmTile& tile) {
  return matmul_box(v, v.y_bs, {v.m, v.y_rs, tile.m0, tile.tm}, {v.n, 1, tile.n0, tile.tn});
}

namespace {

void matmul_kernel(TileBuilder& t) {
  const MmView v = view_of(t.ctx());
  const MmTile tile = matmul_accumulate(t, v);
  Buf y = tile.c;
  if (v.alpha != 1.0) y = y * v.alpha;
  if (v.has_c) {
    Buf cf = t.cast(
        t.copy_in(
            2, matmul_box(v, {}, {v.m, v.c_rs, tile.m0, tile.tm}, {v.n, v.c_cs, tile.n0, tile.tn}),
            Pos::kUB, "c_in"),
        DType::kF32);
    y = y + (v.beta != 1.0 ? cf * v.beta : cf);
  }
  t.copy_out(0, y, matmul_out_box(v, tile));
}

// ---- inference and references ------------------------------------------------------------------

}  // namespace

std::vector<TensorType> infer_matmul(const InferContext& c) {
  TensorType out{c.inputs.at(0).dtype, std::nullopt};
  const auto &a = c.inputs[0].shape, &b = c.inputs[1].shape;
  if (!a || !b) return {out};
  if (a->empty() || b->empty())
    throw ShapeError("MatMul of a scalar: " + to_string(*a) + " x " + to_string(*b));
  const Dim ka = a->back(), kb = b->size() >= 2 ? (*b)[b->size() - 2] : (*b)[0];
  if (ka.known() && kb.known() && ka.value() != kb.value())
    throw ShapeError("MatMul inner dims differ: " + to_string(*a) + " x " + to_string(*b));
  const SymShape ba(a->begin(), a->end() - std::min<size_t>(a->size(), 2));
  const SymShape bb(b->begin(), b->end() - std::min<size_t>(b->size(), 2));
  SymShape s = broadcast_shapes(ba, bb);
  if (a->size() >= 2) s.push_back((*a)[a->size() - 2]);
  if (b->size() >= 2) s.push_back(b->back());
  out.shape = s;
  return {out};
}

namespace {

std::vector<TensorType> infer_gemm(const InferContext& c) {
  TensorType out{c.inputs.at(0).dtype, std::nullopt};
  const auto &a = c.inputs[0].shape, &b = c.inputs[1].shape;
  if (!a || !b) return {out};
  if (a->size() != 2 || b->size() != 2)
    throw ShapeError("Gemm needs 2-D A and B: " + to_string(*a) + " x " + to_string(*b));
  const bool ta = c.attrs.i("transA") != 0, tb = c.attrs.i("transB") != 0;
  const Dim ka = (*a)[ta ? 0 : 1], kb = (*b)[tb ? 1 : 0];
  if (ka.known() && kb.known() && ka.value() != kb.value())
    throw ShapeError(cat("Gemm inner dims differ: ", to_string(*a), " x ", to_string(*b),
                         " (transA=", int(ta), ", transB=", int(tb), ")"));
  out.shape = SymShape{(*a)[ta ? 1 : 0], (*b)[tb ? 0 : 1]};
  if (c.inputs.size() > 2 && c.inputs[2].dtype != DType::kUndefined && c.inputs[2].shape) {
    const SymShape& sc = *c.inputs[2].shape;
    if (sc.size() > 2 || broadcast_shapes(*out.shape, sc).size() != 2)
      throw ShapeError("Gemm C " + to_string(sc) + " does not broadcast to " +
                       to_string(*out.shape));
  }
  return {out};
}

}  // namespace

// Naive numpy matmul in double, written from the definition (not from MmView).
void ref_matmul(std::span<const Tensor> in, std::span<Tensor> out) {
  Shape sa = in[0].shape(), sb = in[1].shape();
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  const Shape ob = broadcast_shapes(ba, bb);
  Shape pa(ob.size() - ba.size(), 1), pb(ob.size() - bb.size(), 1);
  pa.insert(pa.end(), ba.begin(), ba.end());
  pb.insert(pb.end(), bb.begin(), bb.end());
  Shape sta = contiguous_strides(pa), stb = contiguous_strides(pb);
  for (size_t d = 0; d < ob.size(); ++d) {
    if (pa[d] == 1) sta[d] = 0;
    if (pb[d] == 1) stb[d] = 0;
  }
  std::vector<int64_t> idx(ob.size() + 1);
  for (int64_t bi = 0; bi < numel(ob); ++bi) {
    unravel(bi, ob, idx.data());
    const int64_t oa = ravel(idx.data(), sta, ob.size()) * m * k;
    const int64_t obb = ravel(idx.data(), stb, ob.size()) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          s += in[0].at(oa + i * k + kk) * in[1].at(obb + kk * n + j);
        out[0].set((bi * m + i) * n + j, s);
      }
  }
}

namespace {

void ref_gemm(const Attrs& at, std::span<const Tensor> in, std::span<Tensor> out) {
  const bool ta = at.i("transA") != 0, tb = at.i("transB") != 0;
  const Shape &sa = in[0].shape(), &sb = in[1].shape();
  const int64_t m = out[0].shape()[0], n = out[0].shape()[1], k = ta ? sa[0] : sa[1];
  const double alpha = at.f("alpha"), beta = at.f("beta");
  const bool has_c = in.size() > 2 && in[2].defined();
  Shape c2 = has_c ? in[2].shape() : Shape{};
  c2.insert(c2.begin(), 2 - c2.size(), 1);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        s += in[0].at(ta ? kk * sa[1] + i : i * sa[1] + kk) *
             in[1].at(tb ? j * sb[1] + kk : kk * sb[1] + j);
      double y = alpha * s;
      if (has_c) y += beta * in[2].at((c2[0] == 1 ? 0 : i) * c2[1] + (c2[1] == 1 ? 0 : j));
      out[0].set(i * n + j, y);
    }
}

TilingData matmul_gemm_tiling(const LaunchContext& ctx) {
  return matmul_tiling(ctx, view_of(ctx));
}

}  // namespace

const std::vector<DType>& cube_types() {
  static const std::vector<DType> t{DType::kF32, DType::kF16, DType::kBF16};
  return t;
}

void register_matmul(Registry& r) {
  // ONNX MatMul 1, 9 and 13 differ only in their type lists: one version covers them.
  r.add(def_op("MatMul", 1)
            .input("A", "T")
            .input("B", "T")
            .output("Y", "T")
            .type_constraint("T", cube_types())
            .trait(kContraction | kBroadcast)
            .describe("Y = A x B, numpy matmul: 1-D operands promoted, batch dims broadcast")
            .infer(infer_matmul)
            .tiling(matmul_gemm_tiling)
            .kernel(matmul_kernel)
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              ref_matmul(in, out);
            }));
  // Gemm 1-6: C required; it broadcasts to [M,N] only with the legacy `broadcast` attribute set.
  r.add(def_op("Gemm", 1, 6)
            .input("A", "T")
            .input("B", "T")
            .input("C", "T")
            .output("Y", "T")
            .attr("alpha", AttrKind::kFloat, AttrValue{1.0f})
            .attr("beta", AttrKind::kFloat, AttrValue{1.0f})
            .attr("transA", AttrKind::kInt, AttrValue{int64_t{0}})
            .attr("transB", AttrKind::kInt, AttrValue{int64_t{0}})
            .attr("broadcast", AttrKind::kInt, AttrValue{int64_t{0}})
            .type_constraint("T", float_types())
            .trait(kContraction)
            .describe("Y = alpha * A' x B' + beta * C; C is [M,N] unless broadcast=1")
            .infer([](const InferContext& c) {
              auto out = infer_gemm(c);
              const auto& sc = c.inputs.at(2).shape;
              if (c.attrs.i("broadcast") == 0 && out[0].shape && sc && *sc != *out[0].shape)
                throw ShapeError(cat("Gemm-6 C ", to_string(*sc), " must be ",
                                     to_string(*out[0].shape), " without broadcast=1"));
              return out;
            })
            .tiling(matmul_gemm_tiling)
            .kernel(matmul_kernel)
            .reference(ref_gemm));
  // Gemm 7-10 (C required) and 11+ (C optional, 13 adds bf16) share one definition with C optional.
  r.add(def_op("Gemm", 7)
            .input("A", "T")
            .input("B", "T")
            .input("C", "T", Arity::kOptional)
            .output("Y", "T")
            .attr("alpha", AttrKind::kFloat, AttrValue{1.0f})
            .attr("beta", AttrKind::kFloat, AttrValue{1.0f})
            .attr("transA", AttrKind::kInt, AttrValue{int64_t{0}})
            .attr("transB", AttrKind::kInt, AttrValue{int64_t{0}})
            .type_constraint("T", cube_types())
            .trait(kContraction)
            .describe("Y = alpha * A' x B' + beta * C, A' = transA ? A^T : A, C broadcast to [M,N]")
            .infer(infer_gemm)
            .tiling(matmul_gemm_tiling)
            .kernel(matmul_kernel)
            .reference(ref_gemm));
}

}  // namespace asc

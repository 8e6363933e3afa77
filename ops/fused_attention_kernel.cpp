// FusedAttention's tile kernel and tiling (semantics in fused_attention.h).
//
// Grid [B, K, ceil(G / GT), ceil(S / ST)] (G = N / K): a tile is GT query heads of one KV head
// times ST tokens, R = GT * ST rows — either GT heads x all S tokens (ST = S, the rows then lie
// contiguously in the query and form one matrix dim) or one head x ST tokens. Every K/V tile read
// serves all R rows, so K/V are never repeated. Per tile:
//
//   q (L1 -> L0A) [R, D]                         m = lowest [R, 1], l = 0 [R, 1], acc = 0 [R, D]
//   for each key block [j0, j0 + n) of past_key (then of key; n = KT, one exact tail block):
//     s (L0C) = q x k^T                         k^T: a transposed read of the block [D, n]
//     x = s * scale + mask[rows, P? + j0 : +n]  (the mask box: broadcast dims have stride 0)
//     mn = max(m, rowmax x); corr = e^(m - mn); m = mn
//     p = e^(x - mn); l = l * corr + rowsum p
//     acc = acc * corr + p x v                  (p cast to the K/V dtype for the cube, L0C f32)
//   output rows = acc / max(l, tiny)            (l = 0 only when every score is -inf: zeros)
//
// Key blocks are exact (a loop over whole KT blocks plus a tail block of P % KT keys), so no
// padded key ever enters a softmax. The running max starts at the lowest finite value, so a
// block of -inf scores rescales by e^0 and adds e^-inf = 0, never NaN.
//
// present_key/value: the tile with grid coordinates (b, kh, 0, 0) copies (b, kh)'s past rows and
// new rows into present, CP rows at a time (again whole chunks plus an exact tail): the box of
// every other tile is empty (a size-1 dim of extent 1 that starts at the tile's head/token block
// coordinate). A chunk is a copy-in from GM and a copy-out: when present is the memory of past
// (a KV cache written in place) the copy-in of a past chunk aliases GM and its copy-out finds its
// destination already there, so only the S new rows are written.
#include <algorithm>
#include <cfloat>
#include <limits>

#include "ops/fused_attention.h"
#include "registry/error.h"
#include "registry/tiling.h"

namespace asc::attention {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

Coord fixed(int64_t offset) {
  return Coord{-1, 0, offset};
}

Geom geom_of(const LaunchContext& c) {
  std::vector<const Shape*> sh(6, nullptr);
  for (size_t i = 0; i < c.inputs.size() && i < 6; ++i)
    if (c.inputs[i].dtype != DType::kUndefined) sh[i] = &c.inputs[i].shape;
  return geom(c.attr(), sh);
}

// Element strides of a launch argument (past and present may be strided views).
Shape strides_of(const TensorDesc& d) {
  return d.strides.empty() ? contiguous_strides(d.shape) : d.strides;
}

TilingData make_tiling(const Geom& g, int64_t gt, int64_t st, int64_t kt, int64_t cp,
                       int64_t cores) {
  TilingData t;
  t.grid = {g.batch, g.kv_heads, ceil_div(g.group(), gt), ceil_div(g.seq, st)};
  t.params = {{"GT", gt}, {"ST", st}, {"KT", kt}, {"CP", cp}};
  t.block_dim = std::clamp<int64_t>(numel(t.grid), 1, cores);
  return t;
}

}  // namespace

// Candidates, most work per tile first: rows per tile up to rmax (all heads of a KV head when
// G * S fits, else whole-sequence head groups, else token blocks of one head), keys per block,
// rows per present-copy chunk. auto_tiling keeps the first whose program fits the device.
TilingData tiling(const LaunchContext& ctx) {
  const Geom g = geom_of(ctx);
  const int64_t cores = cores_for(ctx);
  const int64_t es = static_cast<int64_t>(dtype_size(ctx.inputs[0].dtype));
  std::vector<TilingData> list;
  for (int64_t rmax : {128, 64, 32, 16, 8, 4, 2, 1}) {
    int64_t gt = 1, st = std::min(rmax, g.seq);
    if (g.seq <= rmax) {
      gt = std::min(g.group(), rmax / g.seq);
      st = g.seq;
    }
    for (int64_t kt : {128, 64, 32, 16, 8})
      for (int64_t cp_bytes : {8192, 1024, 128})
        list.push_back(
            make_tiling(g, gt, st, kt, std::max<int64_t>(1, cp_bytes / (g.head * es)), cores));
  }
  return auto_tiling(ctx, list);
}

void kernel(TileBuilder& t) {
  const LaunchContext& c = t.ctx();
  const Geom g = geom_of(c);
  const int64_t GT = t.param("GT"), ST = t.param("ST"), KT = t.param("KT"), CP = t.param("CP");
  const int64_t B = g.batch, K = g.kv_heads, G = g.group(), S = g.seq, D = g.head, P = g.past;
  const int64_t T = g.total(), R = GT * ST;
  const DType dt = c.inputs[0].dtype;
  const Coord cb = t.grid(0), ck = t.grid(1);
  const Shape qs = strides_of(c.inputs[0]);

  // (b, kh) dims of a [B, K, rows, D] argument with strides st.
  auto head_dims = [&](const Shape& st) {
    return std::vector<BoxDim>{{B, st[0], cb, 1}, {K, st[1], ck, 1}};
  };
  // The tile's rows of a [B, N, S, *] view with head stride hs and token stride ts: heads
  // (kh * G + GT-block) and tokens (ST-block) as two box dims.
  auto row_dims = [&](int64_t bs, int64_t hs, int64_t ts) {
    return std::vector<BoxDim>{
        {B, bs, cb, 1}, {K, G * hs, ck, 1}, {G, hs, t.grid(2, GT), GT}, {S, ts, t.grid(3, ST), ST}};
  };

  // present <- past and new rows, from the (b, kh, 0, 0) tile only.
  auto copy_rows = [&](int in, int out, int64_t rows, int64_t row0) {
    const Shape ss = strides_of(c.inputs[in]), ds = strides_of(c.outputs[out]);
    auto chunk = [&](Coord start, int64_t n) {
      GmBox src, dst;
      src.dims = {{1, 0, t.grid(2), 1}, {1, 0, t.grid(3), 1}};
      dst.dims = src.dims;
      for (const BoxDim& d : head_dims(ss)) src.dims.push_back(d);
      for (const BoxDim& d : head_dims(ds)) dst.dims.push_back(d);
      src.dims.push_back({rows, ss[2], start, n});
      dst.dims.push_back(
          {row0 + rows, ds[2], Coord{start.var, start.scale, start.offset + row0}, n});
      src.dims.push_back({D, ss[3], fixed(0), D});
      dst.dims.push_back({D, ds[3], fixed(0), D});
      t.copy_out(out, t.copy_in(in, src, Pos::kUB, "rows"), dst);
    };
    if (rows / CP > 0) t.loop(rows / CP, [&](Coord j) { chunk(Coord{j.var, CP, 0}, CP); });
    if (rows % CP > 0) chunk(fixed(rows / CP * CP), rows % CP);
  };
  if (P > 0) {
    copy_rows(3, 1, P, 0);
    copy_rows(4, 2, P, 0);
  }
  copy_rows(1, 1, S, P);
  copy_rows(2, 2, S, P);

  // Query rows as the cube's A operand [R, D].
  std::vector<BoxDim> qd = head_dims({qs[0], G * qs[1]});
  if (ST == S) {  // GT heads x all tokens: contiguous rows
    qd.push_back({G * S, qs[2], t.grid(2, GT * S), GT * S});
  } else {
    qd.push_back({G, qs[1], t.grid(2), 1});
    qd.push_back({S, qs[2], t.grid(3, ST), ST});
  }
  qd.push_back({D, qs[3], fixed(0), D});
  const Buf q = t.load_l0(t.copy_in(0, GmBox{0, qd}, Pos::kL1, "q"), Pos::kL0A);

  const Buf m = t.duplicate(DType::kF32, {R, 1}, std::numeric_limits<float>::lowest());
  const Buf l = t.duplicate(DType::kF32, {R, 1}, 0.0);
  const Buf acc = t.duplicate(DType::kF32, {R, D}, 0.0);
  const Buf zeros = t.duplicate(DType::kF32, {R, D}, 0.0);

  // Keys [j0, j0 + n) of the key/value inputs kin/vin (rows of extent E), mask columns col0 + j.
  auto block = [&](int kin, int vin, int64_t E, int64_t col0, Coord j0, int64_t n) {
    const Shape ks = strides_of(c.inputs[kin]), vs = strides_of(c.inputs[vin]);
    GmBox kb{0, head_dims(ks)};
    kb.dims.push_back({D, ks[3], fixed(0), D});
    kb.dims.push_back({E, ks[2], j0, n});
    const Buf s = t.alloc(Pos::kL0C, DType::kF32, {R, n}, "s");
    t.mmad(s, q, t.load_l0(t.copy_in(kin, kb, Pos::kL1, "k"), Pos::kL0B), Coord{});
    Buf x = s * static_cast<double>(g.scale);
    if (g.has_mask) {
      const Shape& ms = g.mask_strides;
      GmBox mb{0, row_dims(ms[0], ms[1], ms[2])};
      mb.dims.push_back({T, ms[3], Coord{j0.var, j0.scale, j0.offset + col0}, n});
      x = x + t.cast(t.copy_in(5, mb, Pos::kUB, "mask"), DType::kF32);
    }
    const Buf mx = t.reduce(ReduceOp::kMax, x, 1);
    const Buf mn = max(m, mx);
    const Buf corr = exp(m - mn);
    t.accumulate(BinaryOp::kMax, m, mx);
    const Buf p = exp(t.bcast_mid(BinaryOp::kSub, x, mn, 1));
    t.accumulate(BinaryOp::kMul, l, corr);
    t.accumulate(BinaryOp::kAdd, l, t.reduce(ReduceOp::kSum, p, 1));
    GmBox vb{0, head_dims(vs)};
    vb.dims.push_back({E, vs[2], j0, n});
    vb.dims.push_back({D, vs[3], fixed(0), D});
    const Buf pv = t.alloc(Pos::kL0C, DType::kF32, {R, D}, "pv");
    t.mmad(pv, t.load_l0(t.cast(p, dt), Pos::kL0A),
           t.load_l0(t.copy_in(vin, vb, Pos::kL1, "v"), Pos::kL0B), Coord{});
    t.accumulate(BinaryOp::kMul, acc, t.bcast_mid(BinaryOp::kAdd, zeros, corr, 1));
    t.accumulate(BinaryOp::kAdd, acc, pv);
  };
  auto blocks = [&](int kin, int vin, int64_t E, int64_t col0) {
    if (E / KT > 0)
      t.loop(E / KT, [&](Coord j) { block(kin, vin, E, col0, Coord{j.var, KT, 0}, KT); });
    if (E % KT > 0) block(kin, vin, E, col0, fixed(E / KT * KT), E % KT);
  };
  if (P > 0) blocks(3, 4, P, 0);
  blocks(1, 2, S, P);

  const Buf out = t.bcast_mid(BinaryOp::kDiv, acc, t.scalar(BinaryOp::kMax, l, FLT_MIN), 1);
  const int64_t N = g.heads;
  const Shape os = g.transpose_output ? Shape{S * N * D, D, N * D} : Shape{N * S * D, S * D, D};
  GmBox ob{0, row_dims(os[0], os[1], os[2])};
  ob.dims.push_back({D, 1, fixed(0), D});
  t.copy_out(0, out, ob);
}

}  // namespace asc::attention

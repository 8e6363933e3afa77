// The static half of the cpu device's tile interpreter (tile_exec.h): which copy-ins may be GM
// views or aliases, which results may be written through to GM, which packed blocks a core keeps,
// and which mmads stream B unpacked — decided once per launch from the program alone.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "registry/error.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/tile_exec.h"

namespace asc::cpu {
namespace {}  // namespace

Lowering lower(const TileProgram& p) {
  Lowering low;
  low.conv5hd = lower_conv5hd(p);
  const int ni = static_cast<int>(p.instrs.size());
  const int nb = static_cast<int>(p.buffers.size());
  low.alias_in.assign(ni, false);
  low.view_in.assign(ni, false);
  low.map_in.assign(ni, false);
  low.reshaped_in.assign(ni, false);
  low.map_c0.assign(ni, 1);
  low.alias_out.assign(nb, -1);
  low.pack_keep.assign(nb, 0);
  low.loop_end.assign(ni, -1);
  low.loop_begin.assign(ni, -1);
  std::vector<int> stack;
  for (int i = 0; i < ni; ++i) {
    if (p.instrs[i].kind == InstrKind::kLoopBegin) stack.push_back(i);
    if (p.instrs[i].kind == InstrKind::kLoopEnd) {
      low.loop_end[stack.back()] = i;
      low.loop_begin[i] = stack.back();
      stack.pop_back();
    }
  }
  // Producers and consumers per buffer.
  std::vector<std::vector<int>> producers(nb), consumers(nb);
  for (int i = 0; i < ni; ++i) {
    const Instr& in = p.instrs[i];
    if (in.dst >= 0) producers[in.dst].push_back(i);
    for (int s : in.src)
      if (s >= 0) consumers[s].push_back(i);
  }
  for (int i = 0; i < ni; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind != InstrKind::kCopyIn) continue;
    // A box that may start before its tensor (padding) is a view only for load_l0_im2col, which
    // reads its valid region alone.
    bool pads = false;
    for (const auto& d : in.box.dims)
      pads = pads || d.start.offset < 0 || d.start.scale < 0 || d.strided_view();
    if (in.box.fill != 0) pads = true;  // (a view reads no fill: never one)
    // A buffer shaped otherwise than its box (copy_in's `as`) is its box's elements in order:
    // never a matrix view of GM.
    low.reshaped_in[i] = p.buffers[in.dst].dims != in.box.sizes();
    bool only_l0 = !consumers[in.dst].empty() && !pads && !low.reshaped_in[i],
         only_map = !consumers[in.dst].empty();
    for (int c : consumers[in.dst]) {
      only_l0 = only_l0 && p.instrs[c].kind == InstrKind::kLoadL0;
      only_map = only_map && p.instrs[c].kind == InstrKind::kLoadIm2col;
    }
    only_map = only_map && in.box.fill == 0;  // the column matrix's padding is zeros
    // A zero point only the loads into L0 read (their src[1]): a GM view too.
    bool zero = !consumers[in.dst].empty() && !pads;
    for (int c : consumers[in.dst])
      zero = zero && p.instrs[c].src[0] != in.dst &&
             (p.instrs[c].kind == InstrKind::kLoadL0 || p.instrs[c].kind == InstrKind::kLoadIm2col);
    if (zero) only_l0 = true, only_map = false;
    low.view_in[i] = only_l0 || only_map;
    low.map_in[i] = only_map;
    for (int c : consumers[in.dst])
      if (p.instrs[c].kind == InstrKind::kLoadIm2col) low.map_c0[i] = p.instrs[c].im2col.c0;
    low.alias_in[i] = !only_l0 && !only_map && !pads && in.box.contiguous();
  }
  // A copy-in only read by the accumulate right after it (a pool's window offsets): one pass.
  low.acc_in.assign(ni, false);
  for (int i = 0; i + 1 < ni; ++i) {
    const Instr& in = p.instrs[i];
    const Instr& nx = p.instrs[i + 1];
    if (in.kind != InstrKind::kCopyIn || low.view_in[i] || nx.kind != InstrKind::kBinary ||
        !nx.in_place || nx.src[1] != in.dst || nx.src[0] == in.dst ||
        consumers[in.dst].size() != 1 || p.args[in.arg].dtype != DType::kF32 ||
        p.buffers[in.dst].dtype != DType::kF32 || p.buffers[nx.dst].dtype != DType::kF32 ||
        numel(p.buffers[nx.dst].dims) != numel(p.buffers[in.dst].dims))
      continue;
    const auto op = static_cast<BinaryOp>(nx.op);
    const double f = in.box.fill;  // the padding must leave the accumulator as it is
    low.acc_in[i] = (op == BinaryOp::kAdd && f == 0) ||
                    (op == BinaryOp::kMax && std::isinf(f) && f < 0) ||
                    (op == BinaryOp::kMin && std::isinf(f) && f > 0);
  }
  low.acc_run.assign(ni, 0);
  // (Extents may differ: a tile's clamp is compared where it runs.)
  const auto same_shape = [](const GmBox& a, const GmBox& b) {
    if (a.dims.size() != b.dims.size() || a.fill != b.fill) return false;
    for (size_t j = 0; j < a.dims.size(); ++j) {
      const BoxDim &x = a.dims[j], &y = b.dims[j];
      if (x.stride != y.stride || x.size != y.size || x.start.var != y.start.var ||
          x.start.scale != y.start.scale || x.strided_view() || y.strided_view())
        return false;
    }
    return true;
  };
  for (int i = 0; i + 1 < ni; i += 2) {
    if (!low.acc_in[i]) {
      --i;  // pairs start anywhere
      continue;
    }
    int k = 1;
    const Instr &in = p.instrs[i], &acc = p.instrs[i + 1];
    while (i + 2 * k + 1 < ni && low.acc_in[i + 2 * k]) {
      const Instr &c = p.instrs[i + 2 * k], &a = p.instrs[i + 2 * k + 1];
      if (c.arg != in.arg || a.dst != acc.dst || a.op != acc.op || !same_shape(c.box, in.box))
        break;
      ++k;
    }
    if (k > 1) low.acc_run[i] = k;
    i += 2 * (k - 1);
  }
  low.chains = find_row_chains(p, low.acc_in, low.chain_at);
  // A chain's results may go to GM through any matrix box (written strip by strip, row by row);
  // a closed chain's (no result read outside it but by its copy-out) through a partial one too.
  // A chain of one instruction is kept only when closed: its result then goes straight to GM.
  std::vector<bool> chain_row(nb, false);
  for (RowChain& c : low.chains) {
    c.closed = true;
    for (size_t r = 0; r < c.row_ops.size(); ++r)
      for (int u : consumers[p.instrs[c.row_ops[r]].dst]) {
        const bool inside = std::find(c.row_ops.begin(), c.row_ops.end(), u) != c.row_ops.end();
        const bool out = r + 1 == c.row_ops.size() && p.instrs[u].kind == InstrKind::kCopyOut;
        c.closed = c.closed && (inside || out);
      }
    if (c.row_ops.size() < 2 && !c.closed) {
      low.chain_at[c.begin] = -1;
      continue;
    }
    for (int q : c.row_ops) {
      const Shape& d = p.buffers[p.instrs[q].dst].dims;
      chain_row[p.instrs[q].dst] = !d.empty() && d.back() == c.cols;
    }
  }
  low.view_chain_in.assign(ni, false);
  const auto same_box = [&](const GmBox& a, const GmBox& b) {  // same_shape, at the same start
    if (!same_shape(a, b) || a.offset != b.offset) return false;
    for (size_t j = 0; j < a.dims.size(); ++j)
      if (a.dims[j].extent != b.dims[j].extent || a.dims[j].start.offset != b.dims[j].start.offset)
        return false;
    return true;
  };
  for (const RowChain& c : low.chains) {
    if (low.chain_at[c.begin] < 0 || !c.closed) continue;
    const int last = p.instrs[c.row_ops.back()].dst;
    if (consumers[last].size() != 1) continue;
    const Instr& out = p.instrs[consumers[last][0]];
    if (out.kind != InstrKind::kCopyOut) continue;
    for (int q = c.begin; q <= c.end; ++q) {
      const Instr& in = p.instrs[q];
      if (in.kind != InstrKind::kCopyIn || low.acc_in[q] || low.view_in[q] ||
          p.buffers[in.dst].dtype != DType::kF32 || p.args[in.arg].dtype != DType::kF32 ||
          numel(p.buffers[in.dst].dims) != c.n || p.buffers[in.dst].dims.back() != c.cols ||
          !in.box.unit_inner() || p.args[in.arg].shape != p.args[out.arg].shape ||
          !same_box(in.box, out.box))
        continue;
      bool only_rows = true;
      for (int u : consumers[in.dst])
        only_rows =
            only_rows && std::find(c.row_ops.begin(), c.row_ops.end(), u) != c.row_ops.end();
      low.view_chain_in[q] = only_rows;
    }
  }
  // An f32 mmad of a column matrix whose product only a closed chain of at most two row ops
  // right after it reads (nothing but the ends of loops around the mmad between them; the chain's
  // other instructions touch none of its operands): its last pass runs with the chain, which the
  // product may then apply itself (row_epilogue's forms, from the map's phase planes).
  low.post_chain.assign(ni, -1);
  for (size_t ci = 0; ci < low.chains.size(); ++ci) {
    const RowChain& c = low.chains[ci];
    if (low.chain_at[c.begin] != static_cast<int>(ci) || !c.closed) continue;
    int m = c.begin - 1;
    while (m >= 0 && p.instrs[m].kind == InstrKind::kLoopEnd) --m;
    if (m < 0 || p.instrs[m].kind != InstrKind::kMmad) continue;
    const Instr& mm = p.instrs[m];
    const int cb = mm.dst;
    // C's columns are the chain's (not, say, a ConvTranspose phase's rows of a [TM, OH, OW] tile).
    const Shape& cd = p.buffers[cb].dims;
    bool ok = p.buffers[cb].dtype == DType::kF32 && p.buffers[mm.src[0]].dtype == DType::kF32 &&
              producers[cb].size() == 1 && cd.size() == 2 && cd[1] == c.cols && numel(cd) == c.n &&
              c.row_ops.size() <= 2;
    for (int q : producers[mm.src[1]]) ok = ok && p.instrs[q].kind == InstrKind::kLoadIm2col;
    for (int u : consumers[cb])
      ok = ok && std::find(c.row_ops.begin(), c.row_ops.end(), u) != c.row_ops.end();
    for (int q = c.begin; q <= c.end; ++q) {
      if (std::find(c.row_ops.begin(), c.row_ops.end(), q) != c.row_ops.end()) continue;
      const Instr& x = p.instrs[q];
      ok = ok && x.dst != mm.src[0] && x.dst != mm.src[1] && x.dst != cb;
      for (int s : x.src) ok = ok && s != cb;
    }
    if (ok) low.post_chain[m] = static_cast<int>(ci);
  }
  for (int b = 0; b < nb; ++b) {
    if (producers[b].empty() || consumers[b].size() != 1) continue;
    const Instr& out = p.instrs[consumers[b][0]];
    if (out.kind != InstrKind::kCopyOut || p.args[out.arg].dtype != p.buffers[b].dtype) continue;
    const Instr& prod = p.instrs[producers[b].front()];
    if (prod.kind == InstrKind::kCopyIn || prod.kind == InstrKind::kLoadL0 ||
        prod.kind == InstrKind::kLoadIm2col)
      continue;
    bool box_on_grid = true;  // the copy-out box must not move with a loop variable
    for (const auto& d : out.box.dims)
      box_on_grid = box_on_grid && d.start.var < p.grid_rank() && d.phase.var < p.grid_rank();
    if (!box_on_grid) continue;
    if (prod.kind == InstrKind::kMmad) {
      if (out.box.unit_inner()) low.alias_out[b] = consumers[b][0];
      continue;
    }
    if (producers[b].size() != 1 || !(out.box.contiguous() || chain_row[b])) continue;
    bool same_region = true;  // no loop boundary between producer and copy-out
    for (int i = producers[b][0]; i < consumers[b][0]; ++i)
      same_region = same_region && p.instrs[i].kind != InstrKind::kLoopBegin &&
                    p.instrs[i].kind != InstrKind::kLoopEnd;
    if (same_region) low.alias_out[b] = consumers[b][0];
  }
  low.lazy_im2col.assign(ni, false);
  for (int i = 0; i < ni; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind != InstrKind::kLoadIm2col || p.buffers[in.dst].pos != Pos::kL0B ||
        consumers[in.dst].size() != 1)
      continue;
    const Instr& mm = p.instrs[consumers[in.dst][0]];
    low.lazy_im2col[i] = mm.kind == InstrKind::kMmad && mm.diag == in.im2col.window() &&
                         mm.src[1] == in.dst && mm.src[0] != in.dst;
  }
  // Packed-block reuse: the grid axis that changes between a core's consecutive tiles; at most
  // kKeepBytes of blocks kept per buffer and core.
  constexpr int64_t kKeepBytes = 16 << 20, kKeepIm2colBytes = 1 << 20;
  const int64_t tiles = p.num_tiles();
  const int64_t cores = std::clamp<int64_t>(p.block_dim, 1, std::max<int64_t>(tiles, 1));
  const int64_t per_core = (tiles + cores - 1) / cores;
  // A column matrix (load_l0_im2col into L0B) against weights stored pre-packed costs more to
  // make than anything else a tile loads: walk last an axis its map does not move with (a conv's
  // output-channel tiles), so a core makes it once for all of them.
  low.walk.resize(static_cast<size_t>(p.grid_rank()));
  std::iota(low.walk.begin(), low.walk.end(), 0);
  low.keep_im2col.assign(ni, 0);
  bool a_packed = false;
  for (const auto& in : p.instrs)
    a_packed = a_packed ||
               (in.kind == InstrKind::kLoadL0 && in.axis > 0 && p.buffers[in.dst].pos == Pos::kL0A);
  for (int i = 0; i < ni && a_packed; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind != InstrKind::kLoadIm2col || p.buffers[in.dst].pos != Pos::kL0B ||
        producers[in.src[0]].size() != 1 || low.lazy_im2col[i])
      continue;
    const DType dt = p.buffers[in.src[0]].dtype;
    if (dt == DType::kI8 || dt == DType::kU8) continue;
    std::vector<bool> moves(static_cast<size_t>(p.grid_rank()), false);
    for (const auto& d : p.instrs[producers[in.src[0]][0]].box.dims)
      for (int v : {d.start.var, d.phase.var})
        if (v >= 0 && v < p.grid_rank()) moves[v] = true;
    int still = -1;  // the innermost axis of several tiles the map does not move with
    for (int g = 0; g < p.grid_rank(); ++g)
      if (p.grid[g] > 1 && !moves[g]) still = g;
    const Instr* mm = consumers[in.dst].size() == 1 ? &p.instrs[consumers[in.dst][0]] : nullptr;
    const auto panels_a = [&](int buf) {
      return producers[buf].size() == 1 && p.instrs[producers[buf][0]].kind == InstrKind::kLoadL0 &&
             p.instrs[producers[buf][0]].axis > 0;
    };
    const bool lazy = dt == DType::kF32 && mm && mm->kind == InstrKind::kMmad && mm->diag == 0 &&
                      mm->src[1] == in.dst && panels_a(mm->src[0]);
    const auto& kdims = p.buffers[in.dst].dims;
    // No other tile of the core reads it (no axis the map stays on, or one tile per core), or
    // Winograd's product reads the map itself for less than keeping the matrix saves: made chunk
    // by chunk inside the product.
    if (still < 0 || per_core < 2 ||
        (lazy && !kdims.empty() && winograd_window(in.im2col, kdims[0]))) {
      low.lazy_im2col[i] = lazy;
      continue;
    }
    low.walk.erase(std::find(low.walk.begin(), low.walk.end(), still));
    low.walk.push_back(still);
    int64_t blocks = 1;  // distinct maps per tile: the trip counts of the enclosing loops
    for (int q = 0; q < i; ++q)
      if (p.instrs[q].kind == InstrKind::kLoopBegin && low.loop_end[q] > i)
        blocks *= std::max<int64_t>(1, p.instrs[q].count);
    // Every chunk of a K loop kept where they all fit in L2 (a strided 1x1 conv's matrix, a
    // quarter of its map); a larger set (a 3x3 window's matrix is nine times its map) keeps one
    // block, as before (not measured otherwise).
    const int64_t bytes = p.buffers[in.dst].bytes() / dtype_size(dt) * 4;  // packed as f32
    low.keep_im2col[i] = blocks * bytes <= kKeepIm2colBytes ? static_cast<int>(blocks) : 1;
    break;
  }
  int fastest = -1;
  for (int g : low.walk)
    if (p.grid[g] > 1) fastest = g;
  for (int i = 0; i < ni && per_core > 1 && fastest >= 0; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind != InstrKind::kLoadL0 || in.axis > 0 || producers[in.src[0]].empty()) continue;
    const int c = producers[in.src[0]][0];
    if (!low.view_in[c]) continue;
    bool moves = false;
    for (const auto& d : p.instrs[c].box.dims)
      moves = moves || d.start.var == fastest || d.phase.var == fastest;
    if (moves) continue;
    int64_t blocks = 1;  // distinct blocks per tile: the trip counts of the enclosing loops
    for (int q = 0; q < i; ++q)
      if (p.instrs[q].kind == InstrKind::kLoopBegin && low.loop_end[q] > i)
        blocks *= std::max<int64_t>(1, p.instrs[q].count);
    const int64_t bytes = 2 * p.buffers[in.dst].bytes();  // f16 packs widen to f32
    low.pack_keep[in.dst] =
        static_cast<int>(std::min<int64_t>(blocks, std::max<int64_t>(1, kKeepBytes / bytes)));
  }
  low.panel_arg.assign(ni, -1);
  for (int i = 0; i < ni; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind != InstrKind::kLoadL0 || in.axis <= 0) continue;
    if (producers[in.src[0]].size() != 1 || !low.view_in[producers[in.src[0]][0]])
      throw Error(p.op + ": load_l0_panels needs a copy-in of whole panels it alone reads");
    low.panel_arg[i] = p.instrs[producers[in.src[0]][0]].arg;
  }
  // B of a few columns against pre-packed A panels: read as it lies (gemm_mmad_a_panels_narrow).
  low.narrow_b.assign(nb, false);
  for (const Instr& in : p.instrs) {
    if (in.kind != InstrKind::kMmad || in.diag > 0 || producers[in.src[0]].size() != 1 ||
        producers[in.src[1]].size() != 1)
      continue;
    const Instr& la = p.instrs[producers[in.src[0]][0]];
    const Instr& lb = p.instrs[producers[in.src[1]][0]];
    const Shape& bd = p.buffers[in.src[1]].dims;
    low.narrow_b[in.src[1]] =
        la.kind == InstrKind::kLoadL0 && la.axis > 0 && lb.kind == InstrKind::kLoadL0 &&
        lb.axis == 0 && !bd.empty() && bd.back() <= kNarrowMax &&
        p.buffers[in.src[1]].dtype == DType::kF32 && consumers[in.src[1]].size() == 1;
  }
  // Small-m products stream B unpacked; a column matrix (load_l0_im2col) is always packed.
  for (const auto& in : p.instrs) {
    low.has_mmad = low.has_mmad || in.kind == InstrKind::kMmad;
    if (in.kind != InstrKind::kMmad || p.buffers[in.src[0]].dims[0] > kGemmDirectMaxM) continue;
    bool columns = false;
    for (int q : producers[in.src[1]]) columns = columns || p.instrs[q].kind != InstrKind::kLoadL0;
    for (int q : producers[in.src[0]])
      columns = columns || p.instrs[q].kind != InstrKind::kLoadL0 || p.instrs[q].axis > 0;
    if (!columns) low.mmad_direct = true;
  }
  // A B block used once (not kept) that is a GM view is packed panel by panel by the mmad
  // (against an A pre-packed in panels: gemm_mmad_a_panels_b_rows, where the ISA has it).
  low.b_rows.assign(nb, false);
  bool a_panels = false;
  for (const auto& in : p.instrs)
    a_panels = a_panels ||
               (in.kind == InstrKind::kLoadL0 && in.axis > 0 && p.buffers[in.dst].pos == Pos::kL0A);
  for (int i = 0; i < ni && !low.mmad_direct; ++i) {
    const Instr& in = p.instrs[i];
    const DType dt = in.src[0] >= 0 ? p.buffers[in.src[0]].dtype : DType::kUndefined;
    if (in.kind != InstrKind::kLoadL0 || in.axis > 0 || p.buffers[in.dst].pos != Pos::kL0B ||
        low.pack_keep[in.dst] > 0 || producers[in.src[0]].size() != 1 ||
        consumers[in.src[0]].size() != 1 ||
        !(a_panels ? gemm_mmad_a_panels_b_rows_supported(dt) : gemm_mmad_b_rows_supported(dt)))
      continue;
    const int c = producers[in.src[0]][0];
    if (!low.view_in[c]) continue;
    low.b_rows[in.dst] = true;
  }
  return low;
}

}  // namespace asc::cpu

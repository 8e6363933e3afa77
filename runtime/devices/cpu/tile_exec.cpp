#include "runtime/devices/cpu/tile_exec.h"

#include <algorithm>
#include <cstring>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/cpu/box_io.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_int8.h"
#include "runtime/devices/cpu/im2col.h"
#include "runtime/devices/cpu/tile_state.h"
#include "runtime/devices/cpu/vec.h"

namespace asc::cpu {
namespace {

int64_t outer_of(const Shape& d, int axis) {
  int64_t o = 1;
  for (int i = 0; i < axis; ++i) o *= d[i];
  return o;
}
int64_t inner_of(const Shape& d, int axis) {
  int64_t o = 1;
  for (size_t i = static_cast<size_t>(axis) + 1; i < d.size(); ++i) o *= d[i];
  return o;
}

// A pre-packed B must be in the layout the active GEMM kernels read: a weight packed for another
// ISA (gemm_force_isa after load) or copied in with gaps would be read wrongly.
void check_panels(const TileProgram& p, const Instr& in, DType dt, const BufState& s, bool a_side) {
  const GemmKernel& g = gemm_kernel(dt);
  const int want = a_side ? g.mr : g.nr;
  if (in.axis != want || in.op != g.k_pack || g.packed != dt || s.cs != 1)
    throw Error(cat(p.op, ": ", a_side ? "A" : "B", " was packed in panels of ", in.axis,
                    a_side ? " rows" : " columns", " (k_pack ", int(in.op),
                    "), the active GEMM kernels (", gemm_active_isa(), ") read ", want, " (k_pack ",
                    g.k_pack, ")"));
}

// dst = the view `v` of src's dense elements (TileBuilder::gather): dst element i, in the view's
// order, at row i / cols, column i % cols of rows `rs` apart (a result bound to GM). A run of
// the view's innermost dim at a time; the outer dims advance as an odometer.
template <typename T>
void gather_view_as(const T* src, T* dst, int64_t rs, int64_t cols, const GmBox& v) {
  const size_t r = v.dims.size();
  const int64_t n = numel(v.sizes());
  const int64_t inner = r > 0 ? v.dims[r - 1].size : 1, step = r > 0 ? v.dims[r - 1].stride : 0;
  cols = std::max<int64_t>(cols, 1);
  std::vector<int64_t> idx(r, 0);
  int64_t at = v.offset;
  for (int64_t i = 0; i < n; i += inner) {
    for (int64_t e = 0; e < inner; ++e)
      dst[(i + e) / cols * rs + (i + e) % cols] = src[at + e * step];
    for (size_t j = r > 0 ? r - 1 : 0; j-- > 0;) {
      at += v.dims[j].stride;
      if (++idx[j] < v.dims[j].size) break;
      at -= v.dims[j].stride * v.dims[j].size;
      idx[j] = 0;
    }
  }
}

void gather_view(size_t es, const std::byte* src, std::byte* dst, int64_t rs, int64_t cols,
                 const GmBox& v) {
  const auto run = [&](auto tag) {
    using T = decltype(tag);
    gather_view_as(reinterpret_cast<const T*>(src), reinterpret_cast<T*>(dst), rs, cols, v);
  };
  switch (es) {
    case 1:
      return run(uint8_t{});
    case 2:
      return run(uint16_t{});
    case 4:
      return run(uint32_t{});
    default:
      return run(uint64_t{});
  }
}

}  // namespace

void CoreArena::reserve(const TileProgram& p) {
  for (int pos = 1; pos < 6; ++pos) {
    const size_t need = static_cast<size_t>(p.placement.used[pos]);
    if (mem[pos].size() < need) mem[pos].resize(need);
  }
}

void run_tiles(const TileProgram& p, const Lowering& low, std::span<void* const> args,
               CoreArena& arena, const std::function<int64_t()>& claim) {
  const int nb = static_cast<int>(p.buffers.size());
  const int ni = static_cast<int>(p.instrs.size());
  const int gr = p.grid_rank();
  // Each call starts from fresh states, in a thread's kept vector: constructing one per call
  // (an allocation and a string-op clear per buffer) cost ~0.4 us, a tenth of an RNN step's tile.
  static thread_local std::vector<BufState> states;
  states.assign(static_cast<size_t>(nb), BufState{});
  std::vector<BufState>& st = states;
  auto& packs = arena.packs;  // memory kept across launches, contents valid for this one only
  if (packs.size() < static_cast<size_t>(nb)) packs.resize(nb);
  for (auto& slots : packs)
    for (auto& blk : slots.blocks) blk.src = nullptr;
  im2col_begin_run();
  int64_t vars[kMaxRank * 2] = {};
  std::vector<BoxEval> taps;  // the boxes of a run of accumulated copy-ins (acc_run)
  // An mmad's last pass, run when the chain that finishes its product is (Lowering::post_chain).
  struct Deferred {
    int pc = -1;
    int64_t m = 0, n = 0;
    bool acc = false;
  } deferred;
  // Whether the mmad at pc runs its last pass: every loop ending right after it is on its last
  // trip.
  auto last_pass = [&](int pc) {
    for (int q = pc + 1; q < ni && p.instrs[q].kind == InstrKind::kLoopEnd; ++q) {
      const Instr& lb = p.instrs[low.loop_begin[q]];
      if (vars[lb.var] + 1 < lb.count) return false;
    }
    return true;
  };

  auto slot_ptr = [&](int b) {
    const BufferDecl& d = p.buffers[b];
    const int64_t slot = d.slots > 1 ? static_cast<int64_t>(st[b].uses++ % d.slots) : 0;
    return arena.mem[static_cast<int>(d.pos)].data() + p.placement.offset[b] +
           slot * p.placement.slot_stride[b];
  };
  auto gm = [&](int arg) { return static_cast<std::byte*>(args[arg]); };
  // The zero point load_l0 / load_l0_im2col subtract (buffer b; none: b < 0).
  auto zero_of = [&](int b) {
    ZeroPoint z;
    if (b < 0) return z;
    z.p = st[b].ptr;
    z.dtype = p.buffers[b].dtype;
    z.stride = st[b].cs;
    z.count = numel(p.buffers[b].dims) == 1 ? 1 : st[b].cols;
    return z;
  };
  // Points a result buffer at GM when it is only copied out and this tile is full.
  auto bind_result = [&](int b, bool needs_full) {
    BufState& s = st[b];
    const BufferDecl& d = p.buffers[b];
    s.ptr = nullptr;
    s.gm = false;
    if (low.alias_out[b] >= 0) {
      const Instr& out = p.instrs[low.alias_out[b]];
      const BoxEval e = eval_box(out.box, vars);
      BoxMatrix m;
      if ((e.full || !needs_full) && !e.empty &&
          box_matrix_of(out.box, e, d.dims.empty() ? 1 : d.dims.back(), m) &&
          m.cs == 1) {  // (an inner dim of size 1 may hide a strided one: ConvTranspose's)
        const size_t es = dtype_size(p.args[out.arg].dtype);
        s.ptr = gm(out.arg) + static_cast<size_t>(e.first) * es;
        s.rs = m.rs, s.cs = m.cs, s.rows = m.rows, s.cols = m.cols;
        s.gm = true;
        return;
      }
    }
    s.ptr = slot_ptr(b);
    s.cs = 1;
    s.rs = d.dims.empty() ? 1 : d.dims.back();
    // A local result viewed as a matrix of its last two dims (load_l0 of a vector result).
    s.cols = s.rs;
    s.rows = d.dims.size() >= 2 ? d.dims[d.dims.size() - 2] : 1;
  };

  // One instruction; pc may move (loops).
  auto exec = [&](int& pc) {
    const Instr& in = p.instrs[pc];
    const auto n_of = [&](int b) { return numel(p.buffers[b].dims); };
    switch (in.kind) {
      case InstrKind::kLoopBegin:
        vars[in.var] = 0;
        if (in.count <= 0) pc = low.loop_end[pc];
        break;
      case InstrKind::kLoopEnd: {
        const Instr& lb = p.instrs[low.loop_begin[pc]];
        if (++vars[lb.var] < lb.count) pc = low.loop_begin[pc];
        break;
      }
      case InstrKind::kCopyIn: {
        if (low.acc_run[pc] > 1) {
          const int k = low.acc_run[pc];
          taps.clear();
          for (int t = 0; t < k; ++t) taps.push_back(eval_box(p.instrs[pc + 2 * t].box, vars));
          const Instr& acc = p.instrs[pc + 1];
          if (box_accumulate_taps(gm(in.arg), in.box, taps, st[acc.dst].ptr,
                                  static_cast<BinaryOp>(acc.op))) {
            pc += 2 * k - 1;
            break;
          }
        }
        if (low.acc_in[pc]) {
          const Instr& acc = p.instrs[++pc];
          box_accumulate(gm(in.arg), in.box, eval_box(in.box, vars), st[acc.dst].ptr,
                         static_cast<BinaryOp>(acc.op));
          break;
        }
        BufState& s = st[in.dst];
        const BufferDecl& d = p.buffers[in.dst];
        const size_t es = dtype_size(d.dtype);
        const BoxEval e = eval_box(in.box, vars);
        std::byte* src = gm(in.arg) + static_cast<size_t>(e.first) * es;
        s.map.gm = nullptr;
        s.gm = false;
        if (low.view_chain_in[pc] && !e.empty) {  // read in GM by its chain, through rs
          BoxMatrix m;
          if (box_matrix_of(in.box, e, d.dims.empty() ? 1 : d.dims.back(), m) && m.cs == 1) {
            s.ptr = src;
            s.rs = m.rs, s.cs = 1, s.rows = m.rows, s.cols = m.cols;
            s.gm = true;
            break;
          }
        }
        if (low.view_in[pc] && low.map_in[pc]) {
          s.map = map_view(gm(in.arg), in.box, e, low.map_c0[pc]);
        } else if (low.view_in[pc]) {
          s.ptr = src;
          const BoxMatrix m = box_matrix(in.box, e);
          s.rs = m.rs, s.cs = m.cs, s.rows = m.rows, s.cols = m.cols;
        } else if (low.alias_in[pc] && e.full) {
          s.ptr = src;
        } else {
          s.ptr = slot_ptr(in.dst);
          if (!e.full && in.box.fill == 0) std::memset(s.ptr, 0, static_cast<size_t>(d.bytes()));
          if (!e.full && in.box.fill != 0)
            vec_duplicate(d.dtype, in.box.fill, s.ptr, numel(d.dims));
          box_gather(gm(in.arg), in.box, e, s.ptr, es);
          const BoxMatrix m = box_matrix(in.box, e);
          s.cs = 1;
          s.rs = d.dims.empty() ? 1 : d.dims.back();
          s.rows = m.rows;
          s.cols = m.cols;
          if (low.reshaped_in[pc]) {  // (TileBuilder::copy_in's `as`: whole, zero past the box)
            s.cols = s.rs;
            s.rows = numel(d.dims) / std::max<int64_t>(s.rs, 1);
          }
        }
        // No copy-in is prefetched (Instr::prefetch_next): the operands read where they lie are
        // fetched inside the products (the in-kernel streams of gemm_fill_avx512.cpp, the B panel
        // two ahead of gemm_mmad_b_rows). Fetching the next loop iteration's block as well cost
        // more than it saved: a 512-channel 3x3 conv on a 7x7 map 13 %, Qwen 0.5B prefill 6 %,
        // ViT-B/16 4 %, nothing measured faster.
        break;
      }
      case InstrKind::kCopyOut: {
        const BufState& s = st[in.src[0]];
        const DType from = p.buffers[in.src[0]].dtype, to = p.args[in.arg].dtype;
        const BoxEval e = eval_box(in.box, vars);
        std::byte* dst = gm(in.arg) + static_cast<size_t>(e.first) * dtype_size(to);
        if (s.ptr == dst || e.empty) break;  // written in place through an alias
        const Shape& sd = p.buffers[in.src[0]].dims;
        BoxMatrix m;
        if (p.buffers[in.src[0]].pos == Pos::kL0C && !in.box.dims.empty() &&
            box_matrix_of(in.box, e, sd.empty() ? 1 : sd.back(), m)) {  // row stride s.rs
          const int64_t es_to = static_cast<int64_t>(dtype_size(to));
          for (int64_t r = 0; r < m.rows; ++r) {
            const std::byte* row = s.ptr + r * s.rs * 4;
            if (m.cs == 1) {
              vec_cast(from, to, row, dst + r * m.rs * es_to, m.cols);
            } else {
              for (int64_t c = 0; c < m.cols; ++c)
                vec_cast(from, to, row + c * 4, dst + (r * m.rs + c * m.cs) * es_to, 1);
            }
          }
          break;
        }
        box_scatter(gm(in.arg), in.box, e, s.ptr, from, to);
        break;
      }
      case InstrKind::kUnary:
        bind_result(in.dst, true);
        vec_unary(static_cast<UnaryOp>(in.op), p.buffers[in.dst].dtype, st[in.src[0]].ptr,
                  st[in.dst].ptr, n_of(in.dst), in.alpha, in.beta);
        break;
      case InstrKind::kBinary:
        if (!in.in_place) bind_result(in.dst, true);
        vec_binary(static_cast<BinaryOp>(in.op), p.buffers[in.dst].dtype, st[in.src[0]].ptr,
                   st[in.src[1]].ptr, st[in.dst].ptr, n_of(in.dst));
        break;
      case InstrKind::kScalar:
        bind_result(in.dst, true);
        vec_binary_scalar(static_cast<BinaryOp>(in.op), p.buffers[in.dst].dtype, st[in.src[0]].ptr,
                          in.scalar, st[in.dst].ptr, n_of(in.dst), in.scalar_left);
        break;
      case InstrKind::kBcastMid: {
        bind_result(in.dst, true);
        const Shape& d = p.buffers[in.src[0]].dims;
        vec_binary_bcast_mid(static_cast<BinaryOp>(in.op), p.buffers[in.dst].dtype,
                             st[in.src[0]].ptr, st[in.src[1]].ptr, st[in.dst].ptr,
                             outer_of(d, in.axis), d[in.axis], inner_of(d, in.axis));
        break;
      }
      case InstrKind::kCompare:
        bind_result(in.dst, true);
        vec_compare(static_cast<CmpOp>(in.op), p.buffers[in.src[0]].dtype, st[in.src[0]].ptr,
                    st[in.src[1]].ptr, reinterpret_cast<uint8_t*>(st[in.dst].ptr), n_of(in.dst));
        break;
      case InstrKind::kSelect:
        bind_result(in.dst, true);
        vec_select(dtype_size(p.buffers[in.dst].dtype),
                   reinterpret_cast<const uint8_t*>(st[in.src[0]].ptr), st[in.src[1]].ptr,
                   st[in.src[2]].ptr, st[in.dst].ptr, n_of(in.dst));
        break;
      case InstrKind::kCast:
        bind_result(in.dst, true);
        vec_cast(p.buffers[in.src[0]].dtype, p.buffers[in.dst].dtype, st[in.src[0]].ptr,
                 st[in.dst].ptr, n_of(in.dst));
        break;
      case InstrKind::kReduce: {
        bind_result(in.dst, true);
        const Shape& d = p.buffers[in.src[0]].dims;
        vec_reduce(static_cast<ReduceOp>(in.op), p.buffers[in.dst].dtype, st[in.src[0]].ptr,
                   st[in.dst].ptr, outer_of(d, in.axis), d[in.axis], inner_of(d, in.axis));
        break;
      }
      case InstrKind::kGather: {
        bind_result(in.dst, true);
        const BufState& r = st[in.dst];
        gather_view(dtype_size(p.buffers[in.dst].dtype), st[in.src[0]].ptr, r.ptr, r.rs, r.cols,
                    in.box);
        break;
      }
      case InstrKind::kDuplicate:
        bind_result(in.dst, true);
        vec_duplicate(p.buffers[in.dst].dtype, in.scalar, st[in.dst].ptr, n_of(in.dst));
        break;
      case InstrKind::kLoadL0: {
        const BufState& s = st[in.src[0]];
        BufState& d = st[in.dst];
        const DType dt = p.buffers[in.src[0]].dtype;
        if (in.axis > 0 && p.buffers[in.dst].pos == Pos::kL0A) {  // A pre-packed in GM
          check_panels(p, in, dt, s, true);
          // Rows up to the weight's last (in.count); the last panel's padding rows are zeros
          // and take no products.
          const Shape& w = p.args[low.panel_arg[pc]].shape;
          const int64_t es = static_cast<int64_t>(dtype_size(dt));
          const int64_t first = (s.ptr - gm(low.panel_arg[pc])) / es / s.rs % w[w.size() - 2];
          d = s;
          d.rows = std::min(s.rows * in.axis, in.count - first * in.axis);
          d.cols = s.cols / in.axis;  // k, padded to k_pack
          d.panel_stride = s.rs;
          d.packed = true;
          d.b_rows = false;
          break;
        }
        if (in.axis > 0 && dt == DType::kF32 && in.axis != gemm_kernel(dt).nr) {
          // f32 panels of another width than the kernels' (FusedConv5HD's, made for its own
          // kernel: tile_conv5hd.h): repacked as the kernels' B.
          const int64_t es = 4, kp = in.op, w = in.axis;
          const int64_t first = (s.ptr - gm(low.panel_arg[pc])) / es / s.rs;
          const int64_t k = s.cols / w, cols = std::min(s.rows * w, in.count - first * w);
          std::vector<float> rows(static_cast<size_t>(std::max<int64_t>(k * cols, 0)));
          const float* src = reinterpret_cast<const float*>(s.ptr);
          for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t j = 0; j < cols; ++j)
              rows[static_cast<size_t>(kk * cols + j)] =
                  src[j / w * s.rs + kk / kp * w * kp + j % w * kp + kk % kp];
          auto& slots = packs[in.dst];
          if (slots.blocks.empty()) slots.blocks.resize(1);
          PackedBlock& blk = slots.blocks[0];
          blk.src = nullptr;
          blk.data.resize(gemm_packed_b_bytes(dt, k, cols));
          gemm_pack_b(dt, rows.data(), cols, 1, k, cols, blk.data.data());
          d.ptr = blk.data.data();
          d.rows = k;
          d.cols = cols;
          d.packed = true;
          d.b_rows = false;
          d.panel_stride = 0;
          break;
        }
        if (in.axis > 0) {  // B pre-packed in GM: its panels are the operand (no layout change)
          check_panels(p, in, dt, s, false);
          const int64_t es = static_cast<int64_t>(dtype_size(dt));
          const int64_t first = (s.ptr - gm(low.panel_arg[pc])) / es / s.rs;  // first panel
          d = s;
          d.rows = s.cols / in.axis;  // k, padded to k_pack
          d.cols = std::min(s.rows * in.axis, in.count - first * in.axis);
          d.panel_stride = s.rs;
          d.packed = true;
          d.b_rows = false;
          break;
        }
        const bool ints = dt == DType::kI8 || dt == DType::kU8;
        if (low.narrow_b[in.dst] && gemm_kernel(DType::kF32).k_pack == 1) {
          d = s;
          d.packed = false;
          d.b_rows = false;
          d.panel_stride = 0;
          break;
        }
        if (!ints && (low.mmad_direct || low.b_rows[in.dst]) && s.cs == 1) {
          d = s;
          d.packed = false;
          d.b_rows = low.b_rows[in.dst];
          break;
        }
        const bool is_a = p.buffers[in.dst].pos == Pos::kL0A;
        // Blocks kept for reuse are keyed by their GM view (GM inputs do not change within a
        // launch); otherwise slot 0 is repacked every time.
        const size_t keep = static_cast<size_t>(low.pack_keep[in.dst]);
        PackedBlock* blk = nullptr;
        auto& slots = packs[in.dst];
        for (size_t q = 0; q < std::min(keep, slots.blocks.size()); ++q) {
          PackedBlock& b = slots.blocks[q];
          if (b.src == s.ptr && b.rs == s.rs && b.cs == s.cs && b.rows == s.rows &&
              b.cols == s.cols)
            blk = &b;
        }
        if (!blk) {
          const size_t slot = keep == 0 ? 0 : slots.next++ % keep;
          if (slots.blocks.size() <= slot) slots.blocks.resize(slot + 1);
          blk = &slots.blocks[slot];
          const size_t bytes = ints   ? (is_a ? int8_packed_a_bytes(s.rows, s.cols)
                                              : int8_packed_b_bytes(s.rows, s.cols))
                               : is_a ? gemm_packed_a_bytes(dt, s.rows, s.cols)
                                      : gemm_packed_b_bytes(dt, s.rows, s.cols);
          if (blk->data.size() < bytes) blk->data.resize(bytes);
          float* f = reinterpret_cast<float*>(blk->data.data());
          if (ints && is_a) {
            int8_pack_a(dt, s.ptr, s.rs, s.cs, s.rows, s.cols, zero_of(in.src[1]), f);
          } else if (ints) {
            int8_pack_b(dt, s.ptr, s.rs, s.cs, s.rows, s.cols, zero_of(in.src[1]), f);
          } else if (is_a) {
            gemm_pack_a(dt, s.ptr, s.rs, s.cs, s.rows, s.cols, blk->data.data());
          } else {
            gemm_pack_b(dt, s.ptr, s.rs, s.cs, s.rows, s.cols, blk->data.data());
          }
          blk->src = keep > 0 ? s.ptr : nullptr;
          blk->rs = s.rs;
          blk->cs = s.cs;
          blk->rows = s.rows;
          blk->cols = s.cols;
        }
        d.ptr = blk->data.data();
        d.rows = s.rows;
        d.cols = s.cols;
        d.packed = true;
        d.b_rows = false;
        break;
      }
      case InstrKind::kLoadIm2col: {
        const BufState& s = st[in.src[0]];
        BufState& d = st[in.dst];
        const BufferDecl& sd = p.buffers[in.src[0]];
        const bool a_side = p.buffers[in.dst].pos == Pos::kL0A;
        Im2colSource map = s.map.gm ? s.map : map_local(s.ptr, sd.dims, in.im2col.c0);
        DType dt = sd.dtype;
        if (dt == DType::kI8 || dt == DType::kU8) {  // widened, zero point subtracted
          if (a_side || !s.map.gm)  // (a local map's padding would take the zero point)
            throw Error(p.op + ": load_l0_im2col of i8/u8 needs a GM map into L0B");
          map = int8_widen_map(dt, map, zero_of(in.src[1]).at(0), arena.int8_map);
          dt = DType::kF32;
        }
        // Rows of channels inside the map: the mmad's k (the weight block's columns match).
        const int64_t k = (map.hi[0] - map.lo[0]) * in.im2col.window() * in.im2col.c0;
        const int64_t np = in.im2col.positions();
        d.lazy = nullptr;
        if (low.lazy_im2col[pc] && sd.dtype == DType::kF32 && !a_side) {
          d.map = map;
          d.lazy = &in.im2col;
          d.rows = k;
          d.cols = np;
          d.packed = true;
          d.b_rows = false;
          d.panel_stride = 0;
          break;
        }
        const size_t keep = static_cast<size_t>(low.keep_im2col[pc]);
        auto& slots = packs[in.dst];
        PackedBlock* blk = nullptr;
        for (size_t q = 0; q < std::min(keep, slots.blocks.size()); ++q) {
          PackedBlock& b = slots.blocks[q];
          if (b.src != nullptr && b.src == map.gm && same_map(b.map, map) && b.rows == k &&
              b.cols == np)
            blk = &b;
        }
        if (!blk) {
          const size_t slot = keep == 0 ? 0 : slots.next++ % keep;
          if (slots.blocks.size() <= slot) slots.blocks.resize(slot + 1);
          blk = &slots.blocks[slot];
          const size_t bytes = im2col_packed_bytes(dt, a_side, k, np);
          if (blk->data.size() < bytes) blk->data.resize(bytes);
          im2col_pack(dt, a_side, map, in.im2col, k, blk->data.data());
          blk->src = keep > 0 ? map.gm : nullptr;
          blk->map = map;
          blk->rows = k;
          blk->cols = np;
        }
        d.ptr = blk->data.data();
        d.rows = a_side ? np : k;
        d.cols = a_side ? k : np;
        d.packed = true;
        d.b_rows = false;
        d.panel_stride = 0;
        break;
      }
      case InstrKind::kMmad: {
        const bool acc = in.in_place || (in.var >= 0 && vars[in.var] > 0);
        BufState& c = st[in.dst];
        if (!acc) bind_result(in.dst, false);
        const BufState& a = st[in.src[0]];
        const BufState& b = st[in.src[1]];
        int64_t m = a.rows, n = b.cols;
        if (c.gm) {  // written into GM: no rows or columns past its box
          m = std::min(m, c.rows);
          n = std::min(n, c.cols);
        }
        if (low.post_chain[pc] >= 0 && last_pass(pc)) {
          deferred = {pc, m, n, acc};
          break;
        }
        mmad_product(p, in, c, a, b, m, n, acc, arena);
        break;
      }
    }
  };

  for (int64_t tile = claim(); tile >= 0; tile = claim()) {
    int64_t rem = tile;  // grid coordinates in the walk's order, its last axis fastest
    for (int q = gr - 1; q >= 0; --q) {
      const int g = low.walk[q];
      vars[g] = rem % p.grid[g];
      rem /= p.grid[g];
    }
    if (low.conv5hd.on && run_conv5hd_tile(p, low.conv5hd, vars, args)) continue;
    for (int pc = 0; pc < ni; ++pc) {
      if (low.chain_at[pc] < 0) {
        exec(pc);
        continue;
      }
      // A row chain: what is not over the tile first, whole; then the rest strip by strip.
      const RowChain& ch = low.chains[low.chain_at[pc]];
      size_t next = 0;
      for (int q = ch.begin; q <= ch.end; ++q) {
        if (next < ch.row_ops.size() && ch.row_ops[next] == q) {
          ++next;
          continue;
        }
        int qq = q;
        exec(qq);
      }
      for (int q : ch.row_ops)
        if (!(p.instrs[q].kind == InstrKind::kBinary && p.instrs[q].in_place))
          bind_result(p.instrs[q].dst, !ch.closed);
      pc = ch.end;
      if (deferred.pc >= 0 && low.post_chain[deferred.pc] == low.chain_at[ch.begin]) {
        const Instr& mm = p.instrs[deferred.pc];
        RowEpilogue ep;
        const bool fits = row_epilogue(p, ch, st, mm.dst, ep);
        mmad_product(p, mm, st[mm.dst], st[mm.src[0]], st[mm.src[1]], deferred.m, deferred.n,
                     deferred.acc, arena, fits ? &ep : nullptr);
        deferred.pc = -1;
        if (ep.done) continue;  // y written by the product
      }
      run_row_chain(p, ch, st);
    }
  }
}

}  // namespace asc::cpu

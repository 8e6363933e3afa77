// Row chains (tile_chain.h): found from the program and its placement, run strip by strip.
#include "runtime/devices/cpu/tile_chain.h"

#include <algorithm>
#include <utility>

#include "runtime/devices/cpu/tile_state.h"
#include "runtime/devices/cpu/vec.h"

namespace asc::cpu {
namespace {

constexpr int64_t kStrip = 2048;        // elements per strip: a few strips' buffers stay in L1
constexpr size_t kMaxRowOps = 64;       // instructions over the tile per chain
constexpr int64_t kFusedMaxCols = 512;  // run_fused: rows this short, written apart

bool elementwise(InstrKind k) {
  return k == InstrKind::kUnary || k == InstrKind::kBinary || k == InstrKind::kScalar ||
         k == InstrKind::kCast || k == InstrKind::kBcastMid;
}

int64_t n_of(const TileProgram& p, int b) {
  return numel(p.buffers[b].dims);
}

// A bcast_mid's operand b indexed by the tile's row (the last axis broadcast) or by its column
// (b spans the last dim, broadcast over every row); kNone: neither.
enum class Bcast { kNone, kRow, kCol };
Bcast bcast_of(const TileProgram& p, const Instr& in, int64_t cols) {
  const Shape& d = p.buffers[in.src[0]].dims;
  if (d.empty() || d.back() != cols) return Bcast::kNone;
  const size_t axis = static_cast<size_t>(in.axis);
  if (axis + 1 == d.size()) return Bcast::kRow;
  int64_t outer = 1;
  for (size_t i = 0; i < axis; ++i) outer *= d[i];
  if (outer == 1 && axis + 2 == d.size()) return Bcast::kCol;
  return Bcast::kNone;
}

// Instruction `in` over a tile of n elements (rows of `cols`): every operand tile-sized but a
// broadcast one.
bool row_op(const TileProgram& p, const Instr& in, int64_t n, int64_t cols) {
  if (!elementwise(in.kind) || n_of(p, in.dst) != n || n_of(p, in.src[0]) != n) return false;
  if (in.kind == InstrKind::kBinary) return n_of(p, in.src[1]) == n;
  if (in.kind == InstrKind::kBcastMid) return bcast_of(p, in, cols) != Bcast::kNone;
  return true;
}

struct Range {
  int pos;
  int64_t lo, hi, bytes, es;
  int slots;
};

Range range_of(const TileProgram& p, int b) {
  const BufferDecl& d = p.buffers[b];
  const int64_t lo = p.placement.offset[b];
  const int64_t span = d.slots > 1 ? d.slots * p.placement.slot_stride[b] : d.bytes();
  return {static_cast<int>(d.pos),
          lo,
          lo + span,
          d.bytes(),
          static_cast<int64_t>(dtype_size(d.dtype)),
          d.slots};
}

// Two buffers' memory is the same (equal placement and element size, one slot) or disjoint.
bool same_or_apart(const TileProgram& p, int a, int b) {
  if (a == b) return true;
  const Range x = range_of(p, a), y = range_of(p, b);
  if (x.pos != y.pos || x.hi <= y.lo || y.hi <= x.lo) return true;
  return x.lo == y.lo && x.bytes == y.bytes && x.es == y.es && x.slots == 1 && y.slots == 1;
}

bool apart(const TileProgram& p, int a, int b) {
  const Range x = range_of(p, a), y = range_of(p, b);
  return a != b && (x.pos != y.pos || x.hi <= y.lo || y.hi <= x.lo);
}

void operands(const Instr& in, std::vector<int>& out) {
  out.push_back(in.dst);
  for (int s : in.src)
    if (s >= 0) out.push_back(s);
}

}  // namespace

std::vector<RowChain> find_row_chains(const TileProgram& p, const std::vector<bool>& skip,
                                      std::vector<int>& chain_at) {
  const int ni = static_cast<int>(p.instrs.size());
  chain_at.assign(ni, -1);
  std::vector<RowChain> chains;
  for (int i = 0; i < ni;) {
    // The window of copy-ins and elementwise instructions from i; its largest result is the tile.
    int j = i;
    int64_t n = 0, cols = 0;
    while (j < ni && !skip[j] && !(j > 0 && skip[j - 1]) &&
           (p.instrs[j].kind == InstrKind::kCopyIn || elementwise(p.instrs[j].kind))) {
      const Instr& in = p.instrs[j];
      if (elementwise(in.kind) && n_of(p, in.dst) > n) {
        n = n_of(p, in.dst);
        const Shape& d = p.buffers[in.dst].dims;
        cols = d.empty() ? 1 : d.back();
      }
      ++j;
    }
    RowChain c;
    c.begin = i;
    c.n = n;
    c.cols = std::max<int64_t>(cols, 1);
    std::vector<bool> written(p.buffers.size(), false);  // by the chain's row ops
    std::vector<int> touched;                            // buffers of its row ops
    int end = i - 1;
    for (int q = i; q < j && n > 0; ++q) {
      const Instr& in = p.instrs[q];
      if (row_op(p, in, n, c.cols)) {
        if (c.row_ops.size() == kMaxRowOps) break;
        std::vector<int> ops;
        operands(in, ops);
        bool ok = true;
        for (int a : ops)
          for (int b : touched) ok = ok && same_or_apart(p, a, b);
        if (!ok) break;
        touched.insert(touched.end(), ops.begin(), ops.end());
        written[in.dst] = true;
        c.row_ops.push_back(q);
      } else {  // runs before the row ops: reads none of their results, writes none of theirs
        bool ok = !written[in.dst];
        for (int s : in.src) ok = ok && (s < 0 || !written[s]);
        for (int b : touched) ok = ok && apart(p, in.dst, b);
        if (!ok) break;
      }
      end = q;
    }
    // Trailing instructions that are not row ops run before the chain for nothing: drop them.
    while (!c.row_ops.empty() && end > c.row_ops.back()) --end;
    if (!c.row_ops.empty()) {
      c.end = end;
      chain_at[i] = static_cast<int>(chains.size());
      chains.push_back(std::move(c));
      i = end + 1;
    } else {
      ++i;
    }
  }
  return chains;
}

namespace {

// A closed chain of f32 instructions as vec_chain_f32 steps: each operand an earlier
// instruction's result (kept in L1), a tile, a bias per row or column, or a scalar; only the last
// result is stored. 0 where an instruction has no such form, else the number of steps.
template <class RowStride>
int fused_steps(const TileProgram& p, const RowChain& c, const std::vector<BufState>& st,
                int64_t ld, const RowStride& rs_of, ChainStep* steps) {
  const int n = static_cast<int>(c.row_ops.size());
  if (n > kChainMaxSteps) return 0;
  const auto f32 = [&](int b) { return p.buffers[b].dtype == DType::kF32; };
  for (int k = 0; k < n; ++k) {
    const Instr& in = p.instrs[c.row_ops[k]];
    // Buffer b as an operand of instruction k: the latest earlier result written to it, else
    // memory.
    const auto arg = [&](int b, Bcast bc) {
      ChainArg a;
      for (int j = k - 1; j >= 0; --j)
        if (p.instrs[c.row_ops[j]].dst == b) {
          a.kind = ChainArg::kStep;
          a.step = j;
          return a;
        }
      a.p = reinterpret_cast<const float*>(st[b].ptr);
      a.kind = bc == Bcast::kRow   ? ChainArg::kRow
               : bc == Bcast::kCol ? ChainArg::kCol
                                   : ChainArg::kTile;
      a.rs = rs_of(b);
      return a;
    };
    if (!f32(in.dst) || !f32(in.src[0]) || (in.src[1] >= 0 && !f32(in.src[1]))) return 0;
    ChainStep& s = steps[k];
    s = ChainStep{};
    s.op = in.op;
    s.alpha = in.alpha;
    s.beta = in.beta;
    s.a = arg(in.src[0], Bcast::kNone);
    switch (in.kind) {
      case InstrKind::kUnary:
        break;
      case InstrKind::kBinary:
        s.binary = true;
        s.b = arg(in.src[1], Bcast::kNone);
        break;
      case InstrKind::kScalar:
        s.binary = true;
        s.b.kind = ChainArg::kScalar;
        s.b.s = static_cast<float>(in.scalar);
        if (in.scalar_left) std::swap(s.a, s.b);
        break;
      case InstrKind::kBcastMid:
        s.binary = true;
        s.b = arg(in.src[1], bcast_of(p, in, ld));
        break;
      default:
        return 0;
    }
  }
  return n;
}

// The rows and columns chain c runs over: a closed chain stops at its result's valid region in
// GM, which is that of an operand read in GM (Lowering::view_chain_in: the same box).
void chain_extent(const TileProgram& p, const RowChain& c, const std::vector<BufState>& st,
                  int64_t& rows, int64_t& cols) {
  cols = c.cols, rows = c.n / cols;
  const auto clamp = [&](int b) {
    if (b >= 0 && st[b].gm) {
      rows = std::min(rows, st[b].rows);
      cols = std::min(cols, st[b].cols);
    }
  };
  for (int q : c.row_ops)
    if (c.closed)
      for (int b : {p.instrs[q].dst, p.instrs[q].src[0], p.instrs[q].src[1]}) clamp(b);
}

// Row stride per buffer: its GM box's when written there, else the dense tile's (ld).
struct RowStrides {
  const std::vector<BufState>& st;
  int64_t ld;
  int64_t operator()(int b) const { return b >= 0 && st[b].gm ? st[b].rs : ld; }
};

}  // namespace

bool row_epilogue(const TileProgram& p, const RowChain& c, const std::vector<BufState>& st, int cb,
                  RowEpilogue& ep) {
  if (!c.closed || c.row_ops.size() > 2) return false;
  chain_extent(p, c, st, ep.rows, ep.cols);
  const int64_t ld = c.cols;
  const RowStrides rs_of{st, ld};
  ChainStep s[2];
  const int n = fused_steps(p, c, st, ld, rs_of, s);
  const auto is_c = [&](const ChainArg& a) {
    return a.kind == ChainArg::kTile && a.p == reinterpret_cast<const float*>(st[cb].ptr) &&
           a.rs == st[cb].rs;
  };
  const auto act = [&](const ChainStep& x) {
    if (x.binary) return false;
    if (static_cast<UnaryOp>(x.op) == UnaryOp::kRelu) {
      ep.act = RowEpilogue::kRelu;
    } else if (static_cast<UnaryOp>(x.op) == UnaryOp::kClip) {
      ep.act = RowEpilogue::kClip;
      ep.lo = x.alpha, ep.hi = x.beta;
    } else {
      return false;
    }
    return true;
  };
  ep.bias = nullptr;
  ep.act = RowEpilogue::kNone;
  ep.done = false;
  bool ok = false;
  if (n >= 1 && s[0].binary && static_cast<BinaryOp>(s[0].op) == BinaryOp::kAdd) {
    const ChainArg *t = &s[0].a, *b = &s[0].b;
    if (!is_c(*t)) std::swap(t, b);
    ok = is_c(*t) && b->kind == ChainArg::kRow;
    ep.bias = b->p;
    if (n == 2) ok = ok && s[1].a.kind == ChainArg::kStep && s[1].a.step == 0 && act(s[1]);
  } else if (n == 1) {
    ok = is_c(s[0].a) && act(s[0]);
  }
  const int last = p.instrs[c.row_ops.back()].dst;
  ep.y = reinterpret_cast<float*>(st[last].ptr);
  ep.ldy = rs_of(last);
  return ok;
}

void run_row_chain(const TileProgram& p, const RowChain& c, const std::vector<BufState>& st) {
  int64_t cols = 0, rows = 0;
  chain_extent(p, c, st, rows, cols);
  const int64_t ld = c.cols;  // a local tile's row stride
  const RowStrides rs_of{st, ld};
  // Only the last result is read after a closed chain. An epilogue's form (vec_epilogue_f32)
  // takes one pass with nothing stored between its steps. Otherwise, where the strips would be
  // single short rows (a tile of few columns written into GM row by row: a call per row and
  // instruction), one pass, the intermediate results in L1 blocks; long rows keep the strips.
  const int last = p.instrs[c.row_ops.back()].dst;
  if (c.closed) {
    ChainStep steps[kChainMaxSteps];
    const int n = fused_steps(p, c, st, ld, rs_of, steps);
    float* y = reinterpret_cast<float*>(st[last].ptr);
    if (n > 0 && (vec_epilogue_f32(steps, n, y, rs_of(last), rows, cols) ||
                  (cols <= kFusedMaxCols && (cols != ld || rs_of(last) != ld) &&
                   vec_chain_f32(steps, n, y, rs_of(last), rows, cols))))
      return;
  }
  struct Op {
    const Instr* in;
    DType dt;
    int64_t es[3];
    bool rows_apart;  // an operand's rows are not contiguous: one call per row
    Bcast bcast;
  };
  Op ops[kMaxRowOps];
  const size_t nops = c.row_ops.size();
  for (size_t k = 0; k < nops; ++k) {
    const Instr& in = p.instrs[c.row_ops[k]];
    Op& o = ops[k];
    o.in = &in;
    o.dt = p.buffers[in.dst].dtype;
    o.es[0] = static_cast<int64_t>(dtype_size(o.dt));
    for (int j = 0; j < 2; ++j)
      o.es[j + 1] =
          in.src[j] >= 0 ? static_cast<int64_t>(dtype_size(p.buffers[in.src[j]].dtype)) : 0;
    o.bcast = in.kind == InstrKind::kBcastMid ? bcast_of(p, in, ld) : Bcast::kNone;
    o.rows_apart = cols != ld || rs_of(in.dst) != ld || rs_of(in.src[0]) != ld ||
                   (in.kind == InstrKind::kBinary && rs_of(in.src[1]) != ld);
  }
  const int64_t w = std::min(cols, kStrip);
  const int64_t h = w < cols ? 1 : std::max<int64_t>(1, kStrip / cols);
  for (int64_t r0 = 0; r0 < rows; r0 += h) {
    const int64_t hr = std::min(h, rows - r0);
    for (int64_t c0 = 0; c0 < cols; c0 += w) {
      const int64_t wc = std::min(w, cols - c0);
      for (size_t k = 0; k < nops; ++k) {
        const Op& o = ops[k];
        const Instr& in = *o.in;
        // Rows [r, r + nr) of the strip: one call when they are contiguous in every operand.
        auto run = [&](int64_t r, int64_t nr) {
          std::byte* y = st[in.dst].ptr + (r * rs_of(in.dst) + c0) * o.es[0];
          const std::byte* a = st[in.src[0]].ptr + (r * rs_of(in.src[0]) + c0) * o.es[1];
          const int64_t len = nr * wc;
          switch (in.kind) {
            case InstrKind::kUnary:
              vec_unary(static_cast<UnaryOp>(in.op), o.dt, a, y, len, in.alpha, in.beta);
              break;
            case InstrKind::kBinary:
              vec_binary(static_cast<BinaryOp>(in.op), o.dt, a,
                         st[in.src[1]].ptr + (r * rs_of(in.src[1]) + c0) * o.es[2], y, len);
              break;
            case InstrKind::kScalar:
              vec_binary_scalar(static_cast<BinaryOp>(in.op), o.dt, a, in.scalar, y, len,
                                in.scalar_left);
              break;
            case InstrKind::kCast:
              vec_cast(p.buffers[in.src[0]].dtype, o.dt, a, y, len);
              break;
            default: {  // kBcastMid
              const std::byte* b = st[in.src[1]].ptr;
              if (o.bcast == Bcast::kRow)
                vec_binary_bcast_mid(static_cast<BinaryOp>(in.op), o.dt, a, b + r * o.es[2], y, nr,
                                     wc, 1);
              else
                vec_binary_bcast_mid(static_cast<BinaryOp>(in.op), o.dt, a, b + c0 * o.es[2], y, 1,
                                     nr, wc);
              break;
            }
          }
        };
        if (o.rows_apart)
          for (int64_t r = r0; r < r0 + hr; ++r) run(r, 1);
        else
          run(r0, hr);
      }
    }
  }
}

}  // namespace asc::cpu

#include "registry/passes.h"

#include <algorithm>
#include <numeric>

#include "registry/error.h"

namespace asc {
namespace {

int64_t align_up(int64_t v, int64_t a) {
  return (v + a - 1) / a * a;
}

struct LoopSpan {
  int begin, end;  // indices of kLoopBegin / kLoopEnd
};

std::vector<LoopSpan> loop_spans(const TileProgram& p) {
  std::vector<LoopSpan> spans;
  std::vector<int> stack;
  for (int i = 0; i < static_cast<int>(p.instrs.size()); ++i) {
    if (p.instrs[i].kind == InstrKind::kLoopBegin) stack.push_back(i);
    if (p.instrs[i].kind == InstrKind::kLoopEnd && !stack.empty()) {
      spans.push_back({stack.back(), i});  // inner loops close first
      stack.pop_back();
    }
  }
  return spans;
}

}  // namespace

Liveness analyze_liveness(const TileProgram& p) {
  const size_t nb = p.buffers.size();
  Liveness lv{std::vector<int>(nb, -1), std::vector<int>(nb, -1)};
  auto touch = [&lv](int b, int i) {
    if (b < 0) return;
    if (lv.first[b] < 0) lv.first[b] = i;
    lv.last[b] = std::max(lv.last[b], i);
  };
  for (int i = 0; i < static_cast<int>(p.instrs.size()); ++i) {
    const Instr& in = p.instrs[i];
    touch(in.dst, i);
    for (int s : in.src) touch(s, i);
  }
  for (const LoopSpan& l : loop_spans(p)) {  // inner loops first, so outer ones see extensions
    for (size_t b = 0; b < nb; ++b) {
      if (lv.first[b] < 0 || lv.last[b] < l.begin || lv.first[b] > l.end) continue;
      bool carried = lv.first[b] < l.begin || lv.last[b] > l.end;
      if (!carried) {  // read before written inside the body?
        for (int i = l.begin; i <= l.end; ++i) {
          const Instr& in = p.instrs[i];
          if (in.reads(static_cast<int>(b))) {
            carried = true;
            break;
          }
          if (in.dst == static_cast<int>(b)) break;
        }
      }
      if (carried) {
        lv.first[b] = std::min(lv.first[b], l.begin);
        lv.last[b] = std::max(lv.last[b], l.end);
      }
    }
  }
  return lv;
}

void double_buffer(TileProgram& p, bool optimize) {
  p.optimized = optimize;
  for (auto& b : p.buffers) b.slots = optimize && b.copy_in ? 2 : 1;
  int depth = 0;
  for (auto& in : p.instrs) {
    if (in.kind == InstrKind::kLoopBegin) ++depth;
    if (in.kind == InstrKind::kLoopEnd) --depth;
    if (in.kind == InstrKind::kCopyIn)
      in.prefetch_next = optimize && depth > 0 && p.buffers[in.dst].pos == Pos::kL1;
  }
}

void pad_rows(TileProgram& p, const DeviceSpec& spec) {
  const int n = static_cast<int>(p.buffers.size());
  for (BufferDecl& b : p.buffers) b.pitch = b.row = b.round = 0;
  if (!spec.aligned_rows) return;
  // The narrowest element a UB row holds: a buffer's, or a copy-out's GM dtype (the copy-out
  // converts in UB first).
  int64_t min_es = 0;
  const auto narrow = [&min_es](DType t) {
    const auto es = static_cast<int64_t>(dtype_size(t));
    min_es = min_es == 0 ? es : std::min(min_es, es);
  };
  for (const BufferDecl& b : p.buffers)
    if (b.pos == Pos::kUB) narrow(b.dtype);
  if (min_es == 0) return;
  for (const Instr& in : p.instrs)
    if (in.kind == InstrKind::kCopyOut && p.buffers[in.src[0]].pos == Pos::kUB)
      narrow(p.args[in.arg].dtype);
  const int64_t g = std::max<int64_t>(1, spec.block_bytes / min_es);
  // Layout classes: the operands of an elementwise instruction (and a BcastMid's result and
  // first operand) are one class.
  std::vector<int> parent(n);
  for (int b = 0; b < n; ++b) parent[b] = b;
  const auto find = [&](int b) {
    while (parent[b] != b) b = parent[b] = parent[parent[b]];
    return b;
  };
  const auto unite = [&](int a, int b) {
    if (a >= 0 && b >= 0) parent[find(a)] = find(b);
  };
  for (const Instr& in : p.instrs) {
    switch (in.kind) {
      case InstrKind::kUnary:
      case InstrKind::kBinary:
      case InstrKind::kScalar:
      case InstrKind::kCompare:
      case InstrKind::kSelect:
      case InstrKind::kCast:
        for (int s : in.src) unite(in.dst, s);
        break;
      case InstrKind::kBcastMid:
        unite(in.dst, in.src[0]);
        break;
      default:
        break;
    }
  }
  // A class's rows: the greatest common divisor of its members' innermost extents, so each
  // member's own rows are whole local rows. An L0C member (a cube result a vector instruction
  // reads through its UB copy) takes the class's layout when the class's rows are its matrix
  // rows (the hand-off writes them at the pitch); otherwise, or with an L1/L0A/L0B member, the
  // class stays dense.
  std::vector<int64_t> row(n, 0);
  std::vector<bool> dense(n, false);
  for (const Instr& in : p.instrs)  // a gather's view is over dense element indices
    if (in.kind == InstrKind::kGather) dense[find(in.src[0])] = true;
  for (int b = 0; b < n; ++b) {
    const BufferDecl& d = p.buffers[b];
    if (d.pos != Pos::kUB && d.pos != Pos::kL0C) dense[find(b)] = true;
    if (d.pos == Pos::kUB || d.pos == Pos::kL0C) row[find(b)] = std::gcd(row[find(b)], d.row_len());
  }
  for (int b = 0; b < n; ++b) {
    const BufferDecl& d = p.buffers[b];
    if (d.pos == Pos::kL0C && (d.mat_cols() <= 1 || row[find(b)] != d.mat_cols()))
      dense[find(b)] = true;
  }
  for (int b = 0; b < n; ++b) {
    BufferDecl& d = p.buffers[b];
    const int c = find(b);
    if ((d.pos == Pos::kUB || d.pos == Pos::kL0C) && !dense[c] && row[c] > 0 && row[c] % g != 0 &&
        numel(d.dims) > 0) {
      d.row = row[c];
      d.pitch = align_up(row[c], g);
    }
  }
  // A comparison reads whole repeats of its operands (a bit per element): their extents round up.
  const auto whole_repeats = [&](int b) {
    BufferDecl& d = p.buffers[b];
    if (b >= 0 && d.pos == Pos::kUB)
      d.round = std::max<int64_t>(1, spec.repeat_bytes / static_cast<int64_t>(dtype_size(d.dtype)));
  };
  for (const Instr& in : p.instrs) {
    const bool to_bool =
        (in.kind == InstrKind::kCast && p.buffers[in.dst].dtype == DType::kBool) ||
        (in.kind == InstrKind::kUnary && static_cast<UnaryOp>(in.op) == UnaryOp::kNot);
    // The Ascend emitter keeps NaN through Max/Min and Floor/Ceil/Round/Sign by comparing the
    // float sources with themselves (emit_vector.cpp, keep_nan).
    const bool fl = in.kind != InstrKind::kLoopBegin && in.kind != InstrKind::kLoopEnd &&
                    in.dst >= 0 && dtype_is_float(p.buffers[in.dst].dtype);
    const auto uop = static_cast<UnaryOp>(in.op);
    const auto bop = static_cast<BinaryOp>(in.op);
    const bool nan_unary =
        in.kind == InstrKind::kUnary && (uop == UnaryOp::kFloor || uop == UnaryOp::kCeil ||
                                         uop == UnaryOp::kRound || uop == UnaryOp::kSign);
    const bool nan_binary =
        in.kind == InstrKind::kBinary && (bop == BinaryOp::kMax || bop == BinaryOp::kMin);
    if (in.kind == InstrKind::kCompare || (fl && nan_binary)) {
      whole_repeats(in.src[0]);
      whole_repeats(in.src[1]);
    } else if (to_bool || (fl && nan_unary)) {
      whole_repeats(in.src[0]);
    }
  }
}

void pad_fractals(TileProgram& p, const DeviceSpec& spec) {
  for (BufferDecl& b : p.buffers) b.frac_rows = b.frac_cols = 0;
  if (!spec.fractal_layout) return;
  std::vector<bool> map(p.buffers.size(), false);  // Load3D's maps keep their NC1HWC0 layout
  for (const Instr& in : p.instrs) {               // packed panels keep theirs
    if (in.kind == InstrKind::kLoadL0 && in.axis > 0) return;
    if (in.kind == InstrKind::kLoadIm2col) map[static_cast<size_t>(in.src[0])] = true;
  }
  const int64_t f = spec.fractal > 0 ? spec.fractal : 16;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    BufferDecl& b = p.buffers[i];
    if (b.pos == Pos::kUB || map[i]) continue;
    const int64_t c0 =
        std::max<int64_t>(f, spec.block_bytes / static_cast<int64_t>(dtype_size(b.dtype)));
    const int64_t rows = align_up(b.mat_rows(), f), cols = align_up(b.mat_cols(), c0);
    if (rows == b.mat_rows() && cols == b.mat_cols()) continue;
    b.frac_rows = rows;
    b.frac_cols = cols;
  }
}

void place_buffers(TileProgram& p, const DeviceSpec& spec) {
  pad_rows(p, spec);
  pad_fractals(p, spec);
  const Liveness lv = analyze_liveness(p);
  const int n = static_cast<int>(p.buffers.size());
  const int last_instr = static_cast<int>(p.instrs.size());
  Placement pl;
  pl.offset.assign(n, 0);
  pl.slot_stride.assign(n, 0);

  // Ping-pong buffers hold the next tile's data while this tile runs: live for the whole program.
  std::vector<int> first(lv.first), last(lv.last);
  for (int b = 0; b < n; ++b) {
    pl.slot_stride[b] = align_up(p.buffers[b].bytes(), spec.alignment(p.buffers[b].pos));
    if (p.buffers[b].slots > 1 && first[b] >= 0) {
      first[b] = 0;
      last[b] = last_instr;
    }
  }
  // In-place candidates: for an elementwise instruction, its result may take a source's space
  // when the source dies there and has the same size.
  std::vector<std::vector<int>> inplace(n);
  for (int i = 0; i < last_instr; ++i) {
    const Instr& in = p.instrs[i];
    if (!in.elementwise() || in.dst < 0) continue;
    for (int s : in.src)
      if (s >= 0 && last[s] == i && p.buffers[s].slots == 1 &&
          p.buffers[s].pos == p.buffers[in.dst].pos &&
          p.buffers[s].bytes() == p.buffers[in.dst].bytes())
        inplace[in.dst].push_back(s);
  }

  // Place in order of first use (ties: bigger first); first fit by address.
  std::vector<int> order;
  for (int b = 0; b < n; ++b)
    if (first[b] >= 0) order.push_back(b);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (first[a] != first[b]) return first[a] < first[b];
    return p.buffers[a].bytes() > p.buffers[b].bytes();
  });
  std::vector<int> placed;
  for (int b : order) {
    const BufferDecl& d = p.buffers[b];
    const int64_t size = pl.slot_stride[b] * d.slots;
    const int64_t align = spec.alignment(d.pos);
    auto conflicts = [&](int64_t off, int& bump) {
      for (int q : placed) {
        if (p.buffers[q].pos != d.pos) continue;
        const bool live_overlap = first[q] <= last[b] && first[b] <= last[q];
        if (!live_overlap) continue;
        const bool in_place = off == pl.offset[q] && std::find(inplace[b].begin(), inplace[b].end(),
                                                               q) != inplace[b].end();
        if (in_place) continue;
        const int64_t qend = pl.offset[q] + pl.slot_stride[q] * p.buffers[q].slots;
        if (off < qend && pl.offset[q] < off + size) {
          bump = static_cast<int>(q);
          return true;
        }
      }
      return false;
    };
    int64_t chosen = -1;
    for (int s : inplace[b]) {  // try the in-place spots first
      int bump = -1;
      if (std::find(placed.begin(), placed.end(), s) != placed.end() &&
          !conflicts(pl.offset[s], bump)) {
        chosen = pl.offset[s];
        break;
      }
    }
    if (chosen < 0) {
      int64_t off = 0;
      int bump = -1;
      while (conflicts(off, bump))
        off = align_up(pl.offset[bump] + pl.slot_stride[bump] * p.buffers[bump].slots, align);
      chosen = off;
    }
    pl.offset[b] = chosen;
    placed.push_back(b);
    const int pos = static_cast<int>(d.pos);
    pl.used[pos] = std::max(pl.used[pos], chosen + size);
    pl.used_no_reuse[pos] += align_up(size, align);
  }
  p.placement = std::move(pl);
}

void check_capacity(const TileProgram& p, const DeviceSpec& spec) {
  for (int pos = 1; pos < 6; ++pos) {
    const int64_t cap = spec.capacity(static_cast<Pos>(pos));
    if (p.placement.used[pos] <= cap) continue;
    // Name the buffer that ends highest: the one that does not fit.
    int worst = -1;
    int64_t worst_end = -1;
    for (const auto& b : p.buffers) {
      if (static_cast<int>(b.pos) != pos || b.id >= static_cast<int>(p.placement.offset.size()))
        continue;
      const int64_t end = p.placement.offset[b.id] + p.placement.slot_stride[b.id] * b.slots;
      if (end > worst_end) {
        worst_end = end;
        worst = b.id;
      }
    }
    const BufferDecl& b = p.buffers[worst];
    throw CapacityError(p.op + ": buffer '" + b.name + "' (" + std::string(dtype_name(b.dtype)) +
                        to_string(b.dims) +
                        (b.slots > 1 ? " x" + std::to_string(b.slots) + " slots" : "") +
                        ") does not fit in " + std::string(pos_name(b.pos)) + ": needs " +
                        std::to_string(p.placement.used[pos]) + " bytes, " + spec.name + " has " +
                        std::to_string(cap));
  }
}

void run_passes(TileProgram& p, const DeviceSpec& spec, bool optimize) {
  double_buffer(p, optimize);
  place_buffers(p, spec);
  // Double buffering within the capacities: where a memory overflows, its largest ping-pong
  // copy-in takes one slot (no prefetch of the next box), until it fits or none is left.
  // auto_tiling still prefers a tiling that fits double-buffered; this serves its last candidate
  // (a 7x7 window's K steps of single kernel rows on a small L1).
  for (;;) {
    int widest = -1;
    for (const BufferDecl& b : p.buffers)
      if (b.slots > 1 && p.placement.used[static_cast<int>(b.pos)] > spec.capacity(b.pos) &&
          (widest < 0 || b.bytes() > p.buffers[widest].bytes()))
        widest = b.id;
    if (widest < 0) break;
    p.buffers[widest].slots = 1;
    for (Instr& in : p.instrs)
      if (in.kind == InstrKind::kCopyIn && in.dst == widest) in.prefetch_next = false;
    place_buffers(p, spec);
  }
  check_capacity(p, spec);
}

bool fits(const TileProgram& p, const DeviceSpec& spec) {
  for (int pos = 1; pos < 6; ++pos)
    if (p.placement.used[pos] > spec.capacity(static_cast<Pos>(pos))) return false;
  return true;
}

}  // namespace asc

#include "registry/tile_program.h"

#include <array>
#include <atomic>
#include <sstream>

#include "registry/strings.h"

namespace asc {
namespace {

std::string var_name(int var, int grid_rank) {
  if (var < grid_rank) return cat("g", var);
  return cat("k", var - grid_rank);
}

std::string kib(int64_t b) {
  std::ostringstream os;
  os.precision(1);
  os << std::fixed << static_cast<double>(b) / 1024.0 << " KiB";
  return os.str();
}

}  // namespace

uint64_t ProgramId::next() {
  static std::atomic<uint64_t> count{0};
  return count.fetch_add(1, std::memory_order_relaxed) + 1;
}

std::string Coord::str(int grid_rank) const {
  if (var < 0) return std::to_string(offset);
  std::string s = var_name(var, grid_rank);
  if (scale != 1) s += cat("*", scale);
  if (offset != 0) s += cat("+", offset);
  return s;
}

Shape GmBox::sizes() const {
  Shape s;
  for (const auto& d : dims) s.push_back(d.size);
  return s;
}

bool GmBox::contiguous() const {
  // Contiguous when, from the innermost dim outwards, each dim either has size 1 or has the
  // packed stride and every inner dim covers its whole extent.
  int64_t expect = 1;
  bool inner_full = true;
  for (int64_t j = static_cast<int64_t>(dims.size()) - 1; j >= 0; --j) {
    const BoxDim& d = dims[j];
    if (d.size == 1) continue;
    if (d.stride != expect || !inner_full) return false;
    inner_full = d.size == d.extent && d.start.var < 0 && d.start.offset == 0 && !d.strided_view();
    expect *= d.size;
  }
  return true;
}

std::string GmBox::str(int grid_rank) const {
  std::string s = "[";
  for (size_t j = 0; j < dims.size(); ++j) {
    const BoxDim& d = dims[j];
    s += (j ? ", " : "") + d.start.str(grid_rank) + ":+" + std::to_string(d.size) + " /" +
         std::to_string(d.extent) + " s" + std::to_string(d.stride);
    if (d.strided_view()) s += " step" + std::to_string(d.step) + "+" + d.phase.str(grid_rank);
  }
  s += "]";
  if (offset) s += " @" + std::to_string(offset);
  if (fill != 0) s += " fill " + std::to_string(fill);
  return s;
}

std::string_view instr_name(InstrKind k) {
  static constexpr std::array<std::string_view, 17> kNames = {
      "copy_in", "copy_out",       "unary", "binary", "scalar",    "bcast_mid",
      "compare", "select",         "cast",  "reduce", "duplicate", "gather",
      "load_l0", "load_l0_im2col", "mmad",  "loop",   "end"};
  return kNames[static_cast<size_t>(k)];
}

bool Instr::reads(int buf) const {
  if (buf < 0) return false;
  if (kind == InstrKind::kMmad && dst == buf) return true;  // accumulates
  return src[0] == buf || src[1] == buf || src[2] == buf;
}

bool Instr::elementwise() const {
  switch (kind) {
    case InstrKind::kUnary:
    case InstrKind::kBinary:
    case InstrKind::kScalar:
    case InstrKind::kCompare:
    case InstrKind::kSelect:
      return true;
    default:
      return false;
  }
}

int64_t Placement::total_used() const {
  int64_t t = 0;
  for (int i = 1; i < 6; ++i) t += used[i];
  return t;
}

int64_t Placement::total_no_reuse() const {
  int64_t t = 0;
  for (int i = 1; i < 6; ++i) t += used_no_reuse[i];
  return t;
}

std::string TileProgram::dump() const {
  std::ostringstream os;
  const int gr = grid_rank();
  os << "program " << op << "\n  args:";
  for (size_t i = 0; i < args.size(); ++i)
    os << (i ? ", " : " ") << (static_cast<int>(i) < num_inputs ? "in" : "out")
       << (static_cast<int>(i) < num_inputs ? i : i - num_inputs) << " " << args[i].str();
  os << "\n  grid " << to_string(grid) << " = " << num_tiles() << " tiles over block_dim "
     << block_dim << (optimized ? ", optimised" : ", unoptimised") << "\n";
  os << "  buffers:\n";
  for (const auto& b : buffers) {
    os << "    %" << b.id << " " << b.name << ": " << pos_name(b.pos) << " " << dtype_name(b.dtype)
       << to_string(b.dims) << " " << b.bytes() << " B";
    if (b.pitch > 0) os << " rows padded to " << b.pitch;
    if (b.slots > 1) os << " x" << b.slots << " slots";
    if (static_cast<size_t>(b.id) < placement.offset.size()) os << " @" << placement.offset[b.id];
    os << "\n";
  }
  os << "  for tile (";
  for (int g = 0; g < gr; ++g) os << (g ? ", " : "") << "g" << g;
  os << ") in grid:\n";
  int indent = 4;
  auto pad = [&os, &indent] { os << std::string(static_cast<size_t>(indent), ' '); };
  for (const auto& in : instrs) {
    if (in.kind == InstrKind::kLoopEnd) {
      indent -= 2;
      continue;
    }
    pad();
    switch (in.kind) {
      case InstrKind::kLoopBegin:
        os << "for " << var_name(in.var, gr) << " in [0, " << in.count << "):\n";
        indent += 2;
        continue;
      case InstrKind::kCopyIn:
        os << "%" << in.dst << " = copy_in in" << in.arg << in.box.str(gr)
           << (in.prefetch_next ? " prefetch-next" : "");
        break;
      case InstrKind::kCopyOut:
        os << "copy_out out" << (in.arg - num_inputs) << in.box.str(gr) << " <- %" << in.src[0];
        break;
      default: {
        os << "%" << in.dst << " = " << instr_name(in.kind);
        switch (in.kind) {
          case InstrKind::kUnary:
            os << "." << op_name(static_cast<UnaryOp>(in.op));
            break;
          case InstrKind::kBinary:
          case InstrKind::kScalar:
          case InstrKind::kBcastMid:
            os << "." << op_name(static_cast<BinaryOp>(in.op));
            break;
          case InstrKind::kCompare:
            os << "." << op_name(static_cast<CmpOp>(in.op));
            break;
          case InstrKind::kReduce:
            os << "." << op_name(static_cast<ReduceOp>(in.op));
            break;
          default:
            break;
        }
        for (int s : in.src)
          if (s >= 0) os << " %" << s;
        if (in.kind == InstrKind::kScalar || in.kind == InstrKind::kDuplicate)
          os << " " << in.scalar;
        if (in.kind == InstrKind::kReduce || in.kind == InstrKind::kBcastMid)
          os << " axis=" << in.axis;
        if (in.kind == InstrKind::kMmad && !in.in_place)
          os << " init@" << var_name(in.var, gr) << "==0";
        if (in.kind == InstrKind::kMmad && in.diag > 0) os << " diag=" << in.diag;
        if (in.kind == InstrKind::kGather) os << " " << in.box.str(gr);
        if (in.kind == InstrKind::kLoadIm2col) {
          const Im2col& g = in.im2col;
          os << " k=" << g.k[0] << "x" << g.k[1] << "x" << g.k[2] << " s=" << g.s[0] << "x"
             << g.s[1] << "x" << g.s[2] << " d=" << g.d[0] << "x" << g.d[1] << "x" << g.d[2]
             << " out=" << g.out[0] << "x" << g.out[1] << "x" << g.out[2];
          if (g.c0 > 1) os << " c0=" << g.c0;
        }
      }
    }
    os << "\n";
  }
  os << "  local memory:";
  for (int p = 1; p < 6; ++p)
    if (placement.used_no_reuse[p] > 0)
      os << " " << pos_name(static_cast<Pos>(p)) << " " << kib(placement.used[p]) << " (no reuse "
         << kib(placement.used_no_reuse[p]) << ")";
  const int64_t with = placement.total_used(), without = placement.total_no_reuse();
  if (without > 0)
    os << "\n  liveness reuse saves " << kib(without - with) << " of " << kib(without) << " ("
       << (100 * (without - with) / without) << "%)";
  os << "\n";
  return os.str();
}

}  // namespace asc

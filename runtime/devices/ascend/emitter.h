// The Ascend C emitter's internals (docs/ASCENDC.md), shared by emit_ascendc.cpp (buffers, the
// cube's loads, the kernel), emit_cores.cpp (kernel types, the mixed kernel's AIC/AIV split),
// emit_copy.cpp (GM <-> local copies), emit_vector.cpp (vector calls, the L0C stage),
// emit_masks.cpp (casts, comparisons, selections), emit_gather.cpp (the vector unit's
// gathers) and emit_project.cpp (tiling struct, host stub, CMake project).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tile_program.h"
#include "runtime/devices/ascend/emit_ascendc.h"

namespace asc::ascend::detail {

inline std::string ctype(DType t) {
  switch (t) {
    case DType::kF32:
      return "float";
    case DType::kF16:
      return "half";
    case DType::kBF16:
      return "bfloat16_t";
    case DType::kF64:
      return "double";
    case DType::kI8:
      return "int8_t";
    case DType::kU8:
    case DType::kBool:
      return "uint8_t";
    case DType::kI16:
      return "int16_t";
    case DType::kU16:
      return "uint16_t";
    case DType::kI32:
      return "int32_t";
    case DType::kU32:
      return "uint32_t";
    case DType::kI64:
      return "int64_t";
    case DType::kU64:
      return "uint64_t";
    case DType::kUndefined:
      return "uint8_t";  // an absent optional argument, never read
    default:
      throw Error(cat("Ascend C emission: no element type for ", dtype_name(t)));
  }
}

// A scalar converted to t at emission time (integers: truncated and saturated).
inline std::string literal(DType t, double v) {
  const std::string ty = ctype(t);
  if (t == DType::kBool) return v != 0 ? "static_cast<uint8_t>(1)" : "static_cast<uint8_t>(0)";
  if (dtype_is_float(t)) {
    // Compiler builtins, not std::numeric_limits: device code has no standard library.
    const bool dbl = t == DType::kF64;
    if (std::isnan(v)) return cat(ty, dbl ? "(__builtin_nan(\"\"))" : "(__builtin_nanf(\"\"))");
    if (std::isinf(v))
      return cat(ty, "(", v < 0 ? "-" : "", dbl ? "__builtin_inf())" : "__builtin_inff())");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return t == DType::kF64 ? cat("double(", buf, ")") : cat(ty, "(static_cast<float>(", buf, "))");
  }
  double lo = 0, hi = 0;
  switch (t) {
    case DType::kI8:
      lo = -128, hi = 127;
      break;
    case DType::kU8:
      lo = 0, hi = 255;
      break;
    case DType::kI16:
      lo = -32768, hi = 32767;
      break;
    case DType::kU16:
      lo = 0, hi = 65535;
      break;
    case DType::kI32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case DType::kU32:
      lo = 0, hi = 4294967295.0;
      break;
    case DType::kI64:
      lo = -9223372036854775808.0, hi = 9223372036854775807.0;
      break;
    case DType::kU64:
      lo = 0, hi = 18446744073709551615.0;
      break;
    default:
      break;
  }
  if (std::isnan(v)) v = 0;
  v = std::trunc(v);
  if (t == DType::kI64 && v <= lo) return "static_cast<int64_t>(-9223372036854775807LL - 1)";
  if (t == DType::kU64 && v >= hi) return "static_cast<uint64_t>(18446744073709551615ULL)";
  v = std::clamp(v, lo, hi);
  if (t == DType::kI64 && v >= hi) return "static_cast<int64_t>(9223372036854775807LL)";
  if (t == DType::kU64 && v >= 9223372036854775807.0)
    return cat("static_cast<uint64_t>(", static_cast<uint64_t>(v), "ULL)");
  return cat("static_cast<", ty, ">(", static_cast<int64_t>(v), "LL)");
}

inline std::string tpos(Pos p, bool b_side) {
  switch (p) {
    case Pos::kL1:
      return b_side ? "AscendC::TPosition::B1" : "AscendC::TPosition::A1";
    case Pos::kL0A:
      return "AscendC::TPosition::A2";
    case Pos::kL0B:
      return "AscendC::TPosition::B2";
    case Pos::kL0C:
      return "AscendC::TPosition::CO1";
    default:
      return "AscendC::TPosition::VECCALC";
  }
}

constexpr int64_t kUbBytes = 196608;  // the 910B's UB, as the emulator checks it

inline int64_t align_up(int64_t v, int64_t a) {
  return (v + a - 1) / a * a;
}

inline int64_t outer_of(const Shape& d, int axis) {
  int64_t o = 1;
  for (int i = 0; i < axis; ++i) o *= d[i];
  return o;
}
inline int64_t inner_of(const Shape& d, int axis) {
  int64_t o = 1;
  for (size_t i = static_cast<size_t>(axis) + 1; i < d.size(); ++i) o *= d[i];
  return o;
}

inline std::string coord(const Coord& c) {
  if (c.var < 0) return cat(c.offset, "LL");
  return cat("v[", c.var, "] * ", c.scale, "LL + ", c.offset, "LL");
}

// A mixed kernel's workspace slots per AI Core, in floats: off[b] for each L0C buffer a vector
// instruction reads (-1 for the others); returns their total.
int64_t workspace_slots(const TileProgram& p, std::vector<int64_t>* off);

// `struct <name>TilingData` and `<name>MakeTiling()` (kernel and host stub alike).
std::string tiling_struct(const TileProgram& p, const std::string& name);

class Emitter {
 public:
  Emitter(const TileProgram& p, const std::string& name) : p_(p), name_(name) {}
  std::string run();

 private:
  const TileProgram& p_;
  std::string name_;
  std::string body_;
  int indent_ = 2;
  std::vector<bool> queued_;             // per buffer: its own TQue (copy-in with 2 slots)
  std::vector<bool> unqueued_;           // per buffer: a 2-slot UB copy-in past kMaxQueues
  static constexpr int kMaxQueues = 28;  // TQues of two buffers, beside the TBufs, within 64
  std::vector<bool> b_side_;             // per L1 buffer: feeds L0B
  std::vector<bool> im2col_src_;         // per L1 buffer: Load3D's feature map
  std::vector<bool> trans_l1_;           // per L1 buffer: B^T as Nz (copy_in_l1)
  std::vector<int64_t> region_off_;  // per non-queued buffer: byte offset in its position's TBuf
  int64_t region_bytes_[6] = {0, 0, 0, 0, 0, 0};
  int64_t scratch_bytes_ = 0;    // UB scratch (reduce work space, temporaries)
  std::vector<int> free_after_;  // per instr: queued buffer to free after it (-1)
  std::vector<std::vector<int>> frees_;
  int full_ = -1, empty_ = -1;     // of the last box_prologue: 1 always, 0 never, -1 per tile
  std::string lfirst_;             // of the last box_prologue: the innermost dim's leading pad
  int64_t lfirst_max_ = 0;         // its bound
  std::vector<int64_t> lpad_max_;  // of the last box_prologue: each dim's leading pad bound
  int64_t move_bytes_ = 0;         // UB for the scalar unit's moves to GM (`mv`, box_rows)

  void line(const std::string& s) {
    body_ += std::string(static_cast<size_t>(indent_), ' ') + s + "\n";
  }
  std::string buf(int b) const {
    for (const auto& [id, name] : staged_)
      if (id == b) return name;
    return chunked_ ? cat("b", b, "[c]") : cat("b", b);
  }
  // Element count of an elementwise instruction on b: `len` inside a chunk loop.
  std::string cnt(int b) const { return chunked_ ? std::string("len") : cat(n_of(b)); }
  bool chunked_ = false;  // emitting one chunk of an elementwise instruction (offset c, len)
  std::string o_bound_;   // Reduce/BcastMid on a block of outer rows: their count
  std::vector<std::pair<int, std::string>> staged_;  // L0C operands read from their UB copy
  int64_t stage_bytes_ = 0;                          // UB room for those copies
  int64_t ub_free_ = 0;                              // UB left after queues and the region
  int64_t chunk_elems_ = 0;                          // elements per chunk when chunked_
  std::string ty(int b) const { return ctype(p_.buffers[b].dtype); }
  // Elements buffer b takes locally: an elementwise instruction's count (padded rows included).
  int64_t n_of(int b) const { return p_.buffers[b].local_elems(); }
  // The local offset of dense element `e` (an expression) of buffer b.
  std::string lidx(int b, const std::string& e) const { return lidx(p_.buffers[b], e); }
  static std::string lidx(const BufferDecl& d, const std::string& e) {
    if (d.pitch == 0) return e;
    return cat("((", e, ") / ", d.row, " * ", d.pitch, " + (", e, ") % ", d.row, ")");
  }
  // True when buffers a and b hold their elements (in dims' order) at the same local offsets:
  // both dense or in one row, or the same rows at the same pitch.
  bool same_offsets(int a, int b) const {
    const BufferDecl &x = p_.buffers[a], &y = p_.buffers[b];
    const auto one_row = [](const BufferDecl& d) { return d.pitch == 0 || numel(d.dims) <= d.row; };
    return (one_row(x) && one_row(y)) || (x.pitch == y.pitch && x.row == y.row);
  }
  // The local stride of `dense` elements of buffer b: whole rows when its rows are padded.
  int64_t lstride(int b, int64_t dense, int pc) const {
    const BufferDecl& d = p_.buffers[b];
    if (d.pitch == 0) return dense;
    if (dense % d.row != 0)
      fail(pc, cat("a step of ", dense, " elements inside the padded rows of ", d.name));
    return dense / d.row * d.pitch;
  }
  // The local extent of a run of `dense` elements of b that must be contiguous (a reduction's
  // row): dense, or within one padded row.
  int64_t lrun(int b, int64_t dense, int pc) const {
    const BufferDecl& d = p_.buffers[b];
    if (d.pitch > 0 && dense > d.row)
      fail(pc, cat("a run of ", dense, " elements across the padded rows of ", d.name));
    return dense;
  }
  [[noreturn]] void fail(int pc, const std::string& why) const {
    throw Error(cat(p_.op, ": Ascend C emission: instruction ", pc, " (",
                    instr_name(p_.instrs[pc].kind), "): ", why));
  }
  // An operation the A2's units lack (Unsupported): `why` names it.
  [[noreturn]] void lack(int pc, const std::string& why) const {
    throw Unsupported(cat(p_.op, ": instruction ", pc, " (", instr_name(p_.instrs[pc].kind),
                          "): the Atlas A2 has no ", why));
  }
  // Refuses (lack) the vector call `call` on element type `t` when the A2's vector unit has no
  // such call on it (the types per call: the Ascend C API reference for Atlas A2).
  void unit(int pc, const char* call, DType t) const;
  bool aliases(int a, int b) const {
    if (a == b) return true;
    if (queued_[a] || queued_[b] || p_.buffers[a].pos != p_.buffers[b].pos) return false;
    const int64_t a0 = region_off_[a], a1 = a0 + p_.buffers[a].bytes();
    const int64_t b0 = region_off_[b], b1 = b0 + p_.buffers[b].bytes();
    return a0 < b1 && b0 < a1;
  }
  void need_scratch(int64_t bytes) {
    scratch_bytes_ = std::max(scratch_bytes_, align_up(bytes, 32));
  }
  void need_move(int64_t bytes) { move_bytes_ = std::max(move_bytes_, align_up(bytes, 32)); }
  void layout();
  void plan_frees();
  // One line: a sync point is a line (the mutation test leaves out one line's calls at a time).
  void sync(const char* event) {
    line(cat("AscendC::SetFlag<AscendC::HardEvent::", event, ">(EVENT_ID0); AscendC::WaitFlag<",
             "AscendC::HardEvent::", event, ">(EVENT_ID0);"));
  }
  void box_prologue(const GmBox& box);
  void box_rows(const GmBox& box, const BufferDecl& ld, const std::string& local,
                const std::string& g, const std::string& t, int64_t es, bool to_gm,
                const std::string& fill, int pc);
  void duplicate(const std::string& dst, DType t, const std::string& v, const std::string& n,
                 int pc);
  void emit_instr(int pc);
  void emit_instr_body(int pc);
  bool cube_instr(const Instr& in) const;
  void ws_copy(int src, const std::string& dst, const std::string& off, const std::string& count);
  enum class Side { kOne, kAic, kAiv };  // a single-core kernel, or a mixed kernel's two sides
  Side side_ = Side::kOne;
  // Per buffer handed between the cores (an L0C result to the AIVs, a UB result the cube loads to
  // the AIC): its workspace slot, in floats; -1 for the others.
  std::vector<int64_t> ws_off_;
  int64_t l1_stage_bytes_ = 0;  // L1 room for the UB results the cube loads (ub_to_l1)
  void ub_to_l1(int pc);
  void stage_l0c(int pc);
  void emit_vector_simple(int pc);
  void copy_in(int pc);
  void copy_in_l1(int pc);
  void load_l0(int pc);
  void copy_out(int pc);
  void load_im2col(int pc);
  void gather(int pc);
  int64_t ub_operands_ = 0;  // UB results the cube loads (their workspace slots): hand-off depth
  void unary(int pc);
  void scalar(int pc);
  void keep_nan(const std::string& r, std::initializer_list<std::string> srcs, DType t, int64_t n,
                int64_t at);
  void binary_call(BinaryOp op, const std::string& d, const std::string& a, const std::string& b,
                   const std::string& n, int pc);
  void bcast_mid(int pc);
  void reduce(int pc);
  void cast(int pc);
  int64_t chunk_for(int64_t n, int64_t per_elem, int64_t reserved = 0);
  void open_chunks(int64_t n, int64_t k);
  void copy_ub(const std::string& d, const std::string& s, DType t, const std::string& n);
  void cast_into(int pc, const std::string& d, DType to, const std::string& s, DType from,
                 int64_t n, int64_t at);
  void bool_bytes(int pc, int a, int b, CmpOp op, double s);
  void select(int pc);
};

}  // namespace asc::ascend::detail

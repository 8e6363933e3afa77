#include "runtime/devices/ascend/emit_ascendc.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "registry/error.h"
#include "registry/strings.h"

namespace asc::ascend {
namespace {

std::string ctype(DType t) {
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
std::string literal(DType t, double v) {
  const std::string ty = ctype(t);
  if (t == DType::kBool) return v != 0 ? "static_cast<uint8_t>(1)" : "static_cast<uint8_t>(0)";
  if (dtype_is_float(t)) {
    const std::string lim = t == DType::kF64 ? "double" : "float";
    if (std::isnan(v)) return cat(ty, "(std::numeric_limits<", lim, ">::quiet_NaN())");
    if (std::isinf(v))
      return cat(ty, "(", v < 0 ? "-" : "", "std::numeric_limits<", lim, ">::infinity())");
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
  if (v <= lo) return cat("std::numeric_limits<", ty, ">::lowest()");
  if (v >= hi) return cat("std::numeric_limits<", ty, ">::max()");
  return cat("static_cast<", ty, ">(", static_cast<int64_t>(v), "LL)");
}

std::string tpos(Pos p, bool b_side) {
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

constexpr int64_t kUbBytes = 196608;  // the 910B's UB, as the host API checks it

int64_t align_up(int64_t v, int64_t a) {
  return (v + a - 1) / a * a;
}

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

std::string coord(const Coord& c) {
  if (c.var < 0) return cat(c.offset, "LL");
  return cat("v[", c.var, "] * ", c.scale, "LL + ", c.offset, "LL");
}

class Emitter {
 public:
  Emitter(const TileProgram& p, const std::string& name) : p_(p), name_(name) {}
  std::string run();

 private:
  const TileProgram& p_;
  std::string name_;
  std::string body_;
  int indent_ = 2;
  std::vector<bool> queued_;         // per buffer: its own TQue (copy-in with 2 slots)
  std::vector<bool> b_side_;         // per L1 buffer: feeds L0B
  std::vector<int64_t> region_off_;  // per non-queued buffer: byte offset in its position's TBuf
  int64_t region_bytes_[6] = {0, 0, 0, 0, 0, 0};
  int64_t scratch_bytes_ = 0;    // UB scratch (reduce work space, temporaries)
  std::vector<int> free_after_;  // per instr: queued buffer to free after it (-1)
  std::vector<std::vector<int>> frees_;
  int full_ = -1, empty_ = -1;  // of the last box_prologue: 1 always, 0 never, -1 per tile

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
  int64_t n_of(int b) const { return numel(p_.buffers[b].dims); }
  [[noreturn]] void fail(int pc, const std::string& why) const {
    throw Error(cat(p_.op, ": Ascend C emission: instruction ", pc, " (",
                    instr_name(p_.instrs[pc].kind), "): ", why));
  }
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
  void layout();
  void plan_frees();
  void sync(const char* event) {
    line(cat("AscendC::SetFlag<AscendC::HardEvent::", event, ">(AscendC::EVENT_ID0);"));
    line(cat("AscendC::WaitFlag<AscendC::HardEvent::", event, ">(AscendC::EVENT_ID0);"));
  }
  void box_prologue(const GmBox& box);
  void box_rows(const GmBox& box, const std::string& local, const std::string& g,
                const std::string& t, int64_t es, bool to_gm);
  void emit_instr(int pc);
  void stage_l0c(int pc);
  void emit_vector_simple(int pc);
  void copy_in(int pc);
  void copy_out(int pc);
  void unary(int pc);
  void scalar(int pc);
  void binary_call(BinaryOp op, const std::string& d, const std::string& a, const std::string& b,
                   const std::string& n, int pc);
  void bcast_mid(int pc);
  void reduce(int pc);
  void cast(int pc);
};

// Buffers with 2 slots get a TQue each; the others share one TBuf per position at their placed
// offsets with the queued ranges removed (slotted buffers are live for the whole program, so no
// other buffer overlaps them).
void Emitter::layout() {
  const int nb = static_cast<int>(p_.buffers.size());
  queued_.assign(nb, false);
  b_side_.assign(nb, false);
  region_off_.assign(nb, 0);
  for (int b = 0; b < nb; ++b) {
    const BufferDecl& d = p_.buffers[b];
    queued_[b] = d.copy_in && d.slots == 2 && (d.pos == Pos::kUB || d.pos == Pos::kL1);
  }
  for (const Instr& in : p_.instrs)
    if (in.kind == InstrKind::kLoadL0 && p_.buffers[in.dst].pos == Pos::kL0B)
      b_side_[in.src[0]] = true;
  for (int b = 0; b < nb; ++b) {
    if (queued_[b]) continue;
    const BufferDecl& d = p_.buffers[b];
    const int64_t placed = p_.placement.offset[b];
    int64_t off = placed;
    for (int q = 0; q < nb; ++q)
      if (queued_[q] && p_.buffers[q].pos == d.pos &&
          p_.placement.offset[q] + p_.placement.slot_stride[q] * p_.buffers[q].slots <= placed)
        off -= p_.placement.slot_stride[q] * p_.buffers[q].slots;
    region_off_[b] = off;
    auto& r = region_bytes_[static_cast<int>(d.pos)];
    r = std::max(r, align_up(std::max<int64_t>(off + d.bytes(), 1), 32));
  }
  ub_free_ = kUbBytes - region_bytes_[static_cast<int>(Pos::kUB)];
  for (int b = 0; b < nb; ++b)
    if (queued_[b] && p_.buffers[b].pos == Pos::kUB)
      ub_free_ -= 2 * align_up(p_.buffers[b].bytes(), 32);
}

// A queued copy-in buffer is freed after its last reader in the copy-in's own loop body.
void Emitter::plan_frees() {
  const int ni = static_cast<int>(p_.instrs.size());
  frees_.assign(ni, {});
  std::vector<int> stack;
  std::vector<int> scope_end(ni, ni);  // per instr: end of its innermost enclosing loop
  {
    std::vector<int> ends(ni, ni), st;
    for (int i = 0; i < ni; ++i) {
      if (p_.instrs[i].kind == InstrKind::kLoopBegin) st.push_back(i);
      if (p_.instrs[i].kind == InstrKind::kLoopEnd) {
        ends[st.back()] = i;
        st.pop_back();
      }
    }
    for (int i = 0; i < ni; ++i) {
      int enclosing = -1;
      for (int q = 0; q < i; ++q)
        if (p_.instrs[q].kind == InstrKind::kLoopBegin && ends[q] > i) enclosing = q;
      scope_end[i] = enclosing < 0 ? ni : ends[enclosing];
    }
  }
  for (int i = 0; i < ni; ++i) {
    const Instr& in = p_.instrs[i];
    if (in.kind != InstrKind::kCopyIn || !queued_[in.dst]) continue;
    int last = i;
    for (int j = 0; j < ni; ++j) {
      if (j == i || !p_.instrs[j].reads(in.dst)) continue;
      if (j < i || j >= scope_end[i]) fail(i, "a queued copy-in read outside its loop body");
      last = std::max(last, j);
    }
    frees_[last].push_back(in.dst);
  }
}

// Declares s<j>, n<j> (start, valid extent), base, full, empty for a box.
// Declares n<j> (valid extent per dim) and base (GM element offset) for a box; full_/empty_ say
// whether the box is full / empty for every tile (1), for none (0) or depends on the tile (-1,
// then `full` and `empty` are declared too).
void Emitter::box_prologue(const GmBox& box) {
  bool fixed = true;
  for (const BoxDim& d : box.dims) fixed = fixed && d.start.var < 0;
  if (fixed) {
    int64_t base = box.offset;
    bool full = true, empty = false;
    for (size_t j = 0; j < box.dims.size(); ++j) {
      const BoxDim& d = box.dims[j];
      const int64_t n = std::clamp<int64_t>(d.extent - d.start.offset, 0, d.size);
      line(cat("[[maybe_unused]] const int64_t n", j, " = ", n, ";"));
      base += d.start.offset * d.stride;
      full = full && n == d.size;
      empty = empty || n == 0;
    }
    line(cat("[[maybe_unused]] const int64_t base = ", base, ";"));
    full_ = full ? 1 : 0;
    empty_ = empty ? 1 : 0;
    return;
  }
  std::string base = cat(box.offset, "LL"), full = "true", empty = "false";
  for (size_t j = 0; j < box.dims.size(); ++j) {
    const BoxDim& d = box.dims[j];
    if (d.start.var < 0) {
      const int64_t n = std::clamp<int64_t>(d.extent - d.start.offset, 0, d.size);
      line(cat("[[maybe_unused]] const int64_t n", j, " = ", n, ";"));
      base += cat(" + ", d.start.offset * d.stride, "LL");
      if (n != d.size) full = "false";
      if (n == 0) empty = "true";
      continue;
    }
    line(cat("[[maybe_unused]] const int64_t s", j, " = ", coord(d.start), ";"));
    line(cat("[[maybe_unused]] const int64_t n", j, " = AscHostClamp(", d.extent, "LL - s", j, ", ",
             d.size, "LL);"));
    base += cat(" + s", j, " * ", d.stride, "LL");
    full += cat(" && n", j, " == ", d.size, "LL");
    empty += cat(" || n", j, " == 0");
  }
  line(cat("[[maybe_unused]] const int64_t base = ", base, ";"));
  line(cat("[[maybe_unused]] const bool full = ", full, ";"));
  line(cat("[[maybe_unused]] const bool empty = ", empty, ";"));
  full_ = empty_ = -1;
}

// The rows of a box between local tensor `local` (dense over the box sizes) and GM tensor `g`:
// one DataCopyPad per contiguous innermost run, one per element when that dim is strided.
void Emitter::box_rows(const GmBox& box, const std::string& local, const std::string& g,
                       const std::string& t, int64_t es, bool to_gm) {
  const auto copy = [&](const std::string& l, const std::string& gm, const std::string& bytes) {
    if (to_gm)
      line(cat("AscendC::DataCopyPad(", g, "[", gm, "], ", local, "[", l,
               "], AscendC::DataCopyExtParams{1, ", bytes, ", 0, 0, 0});"));
    else
      line(cat("AscendC::DataCopyPad(", local, "[", l, "], ", g, "[", gm,
               "], AscendC::DataCopyExtParams{1, ", bytes,
               ", 0, 0, 0}, AscendC::DataCopyPadExtParams<", t, ">{});"));
  };
  const int r = static_cast<int>(box.dims.size());
  if (r == 0) {
    copy("0", "base", cat(es));
    return;
  }
  std::vector<int64_t> inner_of_dim(static_cast<size_t>(r));
  int64_t inner = 1;
  for (int j = r - 1; j >= 0; --j) {
    inner_of_dim[static_cast<size_t>(j)] = inner;
    inner *= box.dims[static_cast<size_t>(j)].size;
  }
  std::string loff = "0", goff = "base";
  for (int j = 0; j + 1 < r; ++j) {
    line(cat("for (int64_t i", j, " = 0; i", j, " < n", j, "; ++i", j, ") {"));
    indent_ += 2;
    loff += cat(" + i", j, " * ", inner_of_dim[static_cast<size_t>(j)], "LL");
    goff += cat(" + i", j, " * ", box.dims[static_cast<size_t>(j)].stride, "LL");
  }
  const int l = r - 1;
  const int64_t stride = box.dims[static_cast<size_t>(l)].stride;
  if (stride == 1) {
    copy(loff, goff, cat("static_cast<uint32_t>(n", l, " * ", es, ")"));
  } else {  // transposed or broadcast innermost dim: one element per copy
    line(cat("for (int64_t e = 0; e < n", l, "; ++e) {"));
    indent_ += 2;
    copy(loff + " + e", cat(goff, " + e * ", stride, "LL"), cat(es));
    indent_ -= 2;
    line("}");
  }
  for (int j = 0; j + 1 < r; ++j) {
    indent_ -= 2;
    line("}");
  }
}

void Emitter::copy_in(int pc) {
  const Instr& in = p_.instrs[pc];
  const int b = in.dst;
  const BufferDecl& d = p_.buffers[b];
  const std::string t = ty(b), g = cat("g", in.arg);
  const int64_t es = static_cast<int64_t>(dtype_size(d.dtype));
  if (queued_[b]) line(cat(buf(b), " = q", b, ".AllocTensor<", t, ">();"));
  line("{");
  indent_ += 2;
  box_prologue(in.box);
  const bool fast = in.box.contiguous() && n_of(b) * es % 32 == 0;
  int open = 0;
  if (fast && full_ != 0) {
    line(cat(full_ == 1 ? "" : "if (full) ", "AscendC::DataCopy(", buf(b), ", ", g, "[base], ",
             n_of(b), ");"));
    if (full_ == -1) {
      line("else {");
      indent_ += 2;
      ++open;
    }
  }
  if (!(fast && full_ == 1)) {
    if (full_ != 1) {
      line(cat(full_ == 0 ? "" : "if (!full) ", "AscendC::Duplicate(", buf(b), ", ",
               literal(d.dtype, 0), ", ", n_of(b), ");"));
      if (d.pos == Pos::kUB) sync("V_MTE2");
    }
    if (empty_ != 1) {
      if (empty_ == -1) {
        line("if (!empty) {");
        indent_ += 2;
        ++open;
      }
      box_rows(in.box, buf(b), g, t, es, false);
    }
  }
  for (; open > 0; --open) {
    indent_ -= 2;
    line("}");
  }
  indent_ -= 2;
  line("}");
  if (queued_[b]) {
    line(cat("q", b, ".EnQue(", buf(b), ");"));
    line(cat(buf(b), " = q", b, ".DeQue<", t, ">();"));
  } else {
    sync(d.pos == Pos::kL1 ? "MTE2_MTE1" : "MTE2_V");
  }
}

void Emitter::copy_out(int pc) {
  const Instr& in = p_.instrs[pc];
  const int b = in.src[0];
  const BufferDecl& d = p_.buffers[b];
  const DType to = p_.args[in.arg].dtype;
  const std::string g = cat("g", in.arg);
  const int r = static_cast<int>(in.box.dims.size());
  const int64_t es = static_cast<int64_t>(dtype_size(to));
  if (d.pos == Pos::kL0C) {
    if (d.dtype != DType::kF32) fail(pc, "L0C buffer not f32");
    const char* quant = to == DType::kF32    ? "NoQuant"
                        : to == DType::kF16  ? "F322F16"
                        : to == DType::kBF16 ? "F322BF16"
                                             : nullptr;
    if (!quant) fail(pc, cat("Fixpipe to ", dtype_name(to)));
    if (r == 0 || in.box.dims.back().stride != 1) fail(pc, "Fixpipe to a strided box");
    sync("M_FIX");
    line("{");
    indent_ += 2;
    box_prologue(in.box);
    std::string loff = "0", goff = "base";
    int64_t inner = 1;
    for (size_t j = 0; j < in.box.dims.size(); ++j) inner *= in.box.dims[j].size;
    const int64_t cols = in.box.dims.back().size;
    line(empty_ == -1 ? "if (!empty) {" : empty_ == 1 ? "if (false) {" : "{");
    indent_ += 2;
    int64_t acc = inner;
    for (int j = 0; j + 2 < r; ++j) {
      acc /= in.box.dims[static_cast<size_t>(j)].size;
      line(cat("for (int64_t i", j, " = 0; i", j, " < n", j, "; ++i", j, ") {"));
      indent_ += 2;
      loff += cat(" + i", j, " * ", acc, "LL");
      goff += cat(" + i", j, " * ", in.box.dims[static_cast<size_t>(j)].stride, "LL");
    }
    const std::string rows = r >= 2 ? cat("n", r - 2) : "1";
    const int64_t dst_stride = r >= 2 ? in.box.dims[static_cast<size_t>(r - 2)].stride : cols;
    line(cat("AscendC::FixpipeParamsV220 fp;"));
    line(cat("fp.nSize = static_cast<uint16_t>(n", r - 1, ");"));
    line(cat("fp.mSize = static_cast<uint16_t>(", rows, ");"));
    line(cat("fp.srcStride = ", d.dims.back(), ";"));
    line(cat("fp.dstStride = ", dst_stride, ";"));
    line(cat("fp.quantPre = AscendC::QuantMode_t::", quant, ";"));
    line(cat("AscendC::Fixpipe(", g, "[", goff, "], ", buf(b), "[", loff, "], fp);"));
    for (int j = 0; j + 2 < r; ++j) {
      indent_ -= 2;
      line("}");
    }
    indent_ -= 2;
    line("}");
    indent_ -= 2;
    line("}");
    sync("FIX_M");
    return;
  }
  std::string src = buf(b);
  if (d.dtype != to) {  // convert in UB first (Fixpipe converts only from L0C)
    if (d.pos != Pos::kUB) fail(pc, "copy-out converting from L1");
    need_scratch(n_of(b) * es);
    src = cat("scratch.ReinterpretCast<", ctype(to), ">()");
    const char* mode = dtype_is_float(to)        ? "CAST_RINT"
                       : dtype_is_float(d.dtype) ? "CAST_TRUNC"
                                                 : "CAST_NONE";
    line(cat("AscendC::Cast(", src, ", ", buf(b), ", AscendC::RoundMode::", mode, ", ", n_of(b),
             ");"));
  }
  sync("V_MTE3");
  line("{");
  indent_ += 2;
  box_prologue(in.box);
  const bool fast = in.box.contiguous() && n_of(b) * es % 32 == 0;
  int open = 0;
  if (fast && full_ != 0) {
    line(cat(full_ == 1 ? "" : "if (full) ", "AscendC::DataCopy(", g, "[base], ", src, ", ",
             n_of(b), ");"));
    if (full_ == -1) {
      line("else {");
      indent_ += 2;
      ++open;
    }
  }
  if (!(fast && full_ == 1) && empty_ != 1) {
    if (empty_ == -1) {
      line("if (!empty) {");
      indent_ += 2;
      ++open;
    }
    box_rows(in.box, src, g, ctype(to), es, true);
  }
  for (; open > 0; --open) {
    indent_ -= 2;
    line("}");
  }
  indent_ -= 2;
  line("}");
  sync("MTE3_V");
}

void Emitter::binary_call(BinaryOp op, const std::string& d, const std::string& a,
                          const std::string& b, const std::string& n, int pc) {
  const char* f = nullptr;
  switch (op) {
    case BinaryOp::kAdd:
      f = "Add";
      break;
    case BinaryOp::kSub:
      f = "Sub";
      break;
    case BinaryOp::kMul:
      f = "Mul";
      break;
    case BinaryOp::kDiv:
      f = "Div";
      break;
    case BinaryOp::kPow:
      f = "Power";
      break;
    case BinaryOp::kMax:
      f = "Max";
      break;
    case BinaryOp::kMin:
      f = "Min";
      break;
    case BinaryOp::kMod:
      f = "Fmod";
      break;
    case BinaryOp::kAnd:
      f = "And";
      break;
    case BinaryOp::kOr:
      f = "Or";
      break;
    case BinaryOp::kXor:
      f = "Xor";
      break;
  }
  if (!f) fail(pc, "binary op");
  line(cat("AscendC::", f, "(", d, ", ", a, ", ", b, ", ", n, ");"));
}

void Emitter::unary(int pc) {
  const Instr& in = p_.instrs[pc];
  const DType dt = p_.buffers[in.dst].dtype;
  const std::string d = buf(in.dst), s = buf(in.src[0]), n = cnt(in.dst);
  const auto call = [&](const char* f) {
    line(cat("AscendC::", f, "(", d, ", ", s, ", ", n, ");"));
  };
  switch (static_cast<UnaryOp>(in.op)) {
    case UnaryOp::kCopy:
      line(cat("AscendC::Muls(", d, ", ", s, ", ", literal(dt, 1), ", ", n, ");"));
      return;
    case UnaryOp::kNeg:
      line(cat("AscendC::Muls(", d, ", ", s, ", ", literal(dt, -1), ", ", n, ");"));
      if (!dtype_is_float(dt) && dt != DType::kI8 && dt != DType::kI16 && dt != DType::kI32 &&
          dt != DType::kI64)
        fail(pc, "Neg of an unsigned type");
      return;
    case UnaryOp::kAbs:
      return call("Abs");
    case UnaryOp::kRelu:
      return call("Relu");
    case UnaryOp::kSigmoid:
      return call("Sigmoid");
    case UnaryOp::kTanh:
      return call("Tanh");
    case UnaryOp::kExp:
      return call("Exp");
    case UnaryOp::kLog:
      return call("Ln");
    case UnaryOp::kSqrt:
      return call("Sqrt");
    case UnaryOp::kRsqrt:
      return call("Rsqrt");
    case UnaryOp::kReciprocal:
      return call("Reciprocal");
    case UnaryOp::kErf:
      return call("Erf");
    case UnaryOp::kSin:
      return call("Sin");
    case UnaryOp::kCos:
      return call("Cos");
    case UnaryOp::kFloor:
      return call("Floor");
    case UnaryOp::kCeil:
      return call("Ceil");
    case UnaryOp::kRound:
      return call("Round");
    case UnaryOp::kSign:
      return call("Sign");
    case UnaryOp::kSilu:
      return call("Silu");
    case UnaryOp::kSquare:
      line(cat("AscendC::Mul(", d, ", ", s, ", ", s, ", ", n, ");"));
      return;
    case UnaryOp::kLeakyRelu:
      line(cat("AscendC::LeakyRelu(", d, ", ", s, ", ", literal(dt, in.alpha), ", ", n, ");"));
      return;
    case UnaryOp::kClip: {
      const bool f = dtype_is_float(dt);
      line(cat("AscendC::Maxs(", d, ", ", s, ", ",
               literal(dt, f ? in.alpha : std::ceil(static_cast<double>(in.alpha))), ", ", n,
               ");"));
      line(cat("AscendC::Mins(", d, ", ", d, ", ",
               literal(dt, f ? in.beta : std::floor(static_cast<double>(in.beta))), ", ", n, ");"));
      return;
    }
    case UnaryOp::kAffine:
      if (!dtype_is_float(dt) &&
          (in.alpha != std::floor(in.alpha) || in.beta != std::floor(in.beta)))
        fail(pc, "integer affine with a fractional coefficient");
      line(cat("AscendC::Muls(", d, ", ", s, ", ", literal(dt, in.alpha), ", ", n, ");"));
      line(cat("AscendC::Adds(", d, ", ", d, ", ", literal(dt, in.beta), ", ", n, ");"));
      return;
    case UnaryOp::kPowScalar:
      line(cat("AscendC::Power(", d, ", ", s, ", ", literal(dt, in.alpha), ", ", n, ");"));
      return;
    case UnaryOp::kNot:
      line(cat("AscendC::CompareScalar(", d, ", ", s, ", ", literal(dt, 0),
               ", AscendC::CMPMODE::EQ, ", n, ");"));
      return;
  }
  fail(pc, "unary op");
}

void Emitter::scalar(int pc) {
  const Instr& in = p_.instrs[pc];
  const DType dt = p_.buffers[in.dst].dtype;
  const auto op = static_cast<BinaryOp>(in.op);
  const std::string d = buf(in.dst), s = buf(in.src[0]), n = cnt(in.dst);
  const std::string lit = literal(dt, in.scalar);
  const char* fast = op == BinaryOp::kAdd                      ? "Adds"
                     : op == BinaryOp::kMul                    ? "Muls"
                     : op == BinaryOp::kMax                    ? "Maxs"
                     : op == BinaryOp::kMin                    ? "Mins"
                     : op == BinaryOp::kPow && !in.scalar_left ? "Power"
                                                               : nullptr;
  if (fast) {
    line(cat("AscendC::", fast, "(", d, ", ", s, ", ", lit, ", ", n, ");"));
    return;
  }
  // s op x or x op s through a duplicated scalar: in dst, or in scratch when dst is x's place.
  std::string t = d;
  if (aliases(in.dst, in.src[0])) {
    need_scratch(p_.buffers[in.dst].bytes());
    t = cat("scratch.ReinterpretCast<", ty(in.dst), ">()");
  }
  line(cat("AscendC::Duplicate(", t, ", ", lit, ", ", n, ");"));
  if (in.scalar_left)
    binary_call(op, d, t, s, n, pc);
  else
    binary_call(op, d, s, t, n, pc);
}

void Emitter::bcast_mid(int pc) {
  const Instr& in = p_.instrs[pc];
  const Shape& sd = p_.buffers[in.src[0]].dims;
  const int64_t o = outer_of(sd, in.axis), r = sd[static_cast<size_t>(in.axis)],
                i = inner_of(sd, in.axis);
  const auto op = static_cast<BinaryOp>(in.op);
  const std::string d = buf(in.dst), a = buf(in.src[0]), b = buf(in.src[1]);
  if (o * r * i == 0) return;
  line(cat("for (int64_t o = 0; o < ", o_bound_.empty() ? cat(o) : o_bound_, "; ++o) {"));
  indent_ += 2;
  const char* fast = op == BinaryOp::kAdd   ? "Adds"
                     : op == BinaryOp::kMul ? "Muls"
                     : op == BinaryOp::kMax ? "Maxs"
                     : op == BinaryOp::kMin ? "Mins"
                                            : nullptr;
  if (i == 1 && fast && !aliases(in.dst, in.src[1])) {  // a row op the scalar b[o]
    line(cat("AscendC::", fast, "(", d, "[o * ", r, "], ", a, "[o * ", r, "], ", b,
             ".GetValue(o), ", r, ");"));
  } else {
    line(cat("for (int64_t r = 0; r < ", r, "; ++r)"));
    indent_ += 2;
    binary_call(op, cat(d, "[(o * ", r, " + r) * ", i, "]"),
                cat(a, "[(o * ", r, " + r) * ", i, "]"), cat(b, "[o * ", i, "]"), cat(i), pc);
    indent_ -= 2;
  }
  indent_ -= 2;
  line("}");
}

void Emitter::reduce(int pc) {
  const Instr& in = p_.instrs[pc];
  const Shape& sd = p_.buffers[in.src[0]].dims;
  const int64_t o = outer_of(sd, in.axis), r = sd[static_cast<size_t>(in.axis)],
                i = inner_of(sd, in.axis);
  const DType dt = p_.buffers[in.dst].dtype;
  if (p_.buffers[in.src[0]].dtype != dt) fail(pc, "reduce changing the dtype");
  const auto op = static_cast<ReduceOp>(in.op);
  const std::string final_d = buf(in.dst), s = buf(in.src[0]), t = ty(in.dst);
  const int64_t es = static_cast<int64_t>(dtype_size(dt));
  if (o * i == 0) return;
  if (r == 0) {
    const double id = op == ReduceOp::kProd  ? 1.0
                      : op == ReduceOp::kMax ? -std::numeric_limits<double>::infinity()
                      : op == ReduceOp::kMin ? std::numeric_limits<double>::infinity()
                                             : 0.0;
    line(cat("AscendC::Duplicate(", final_d, ", ", literal(dt, id), ", ", o * i, ");"));
    return;
  }
  // In place is safe when dst starts where src does: row o of dst lies within rows <= o of
  // src, which are read before it is written. Other overlaps reduce into scratch, then copy.
  const bool redirect = aliases(in.dst, in.src[0]) && r != 1 &&
                        (queued_[in.dst] || region_off_[in.dst] != region_off_[in.src[0]]);
  const int64_t dst_room = redirect ? align_up(o * i * es, 32) : 0;
  const std::string d = redirect ? cat("scratch.ReinterpretCast<", t, ">()") : final_d;
  need_scratch(dst_room);
  const int64_t work = align_up(std::max<int64_t>(1, (r * es + 255) / 256) * es, 32);
  if (i == 1 && op == ReduceOp::kSumSquares) {
    // Squares in chunks that fit the UB left: per chunk Mul, ReduceSum, Add to the row's sum.
    const int64_t room = ub_free_ - stage_bytes_ - dst_room - work - 64;
    const int64_t chunk = std::clamp<int64_t>(room / es / 8 * 8, 8, align_up(r, 8));
    const int64_t tmp = dst_room + work, part = tmp + align_up(chunk * es, 32);
    need_scratch(part + 32);
    const std::string tt = cat("scratch[", tmp, "].ReinterpretCast<", t, ">()");
    const std::string pt = cat("scratch[", part, "].ReinterpretCast<", t, ">()");
    line(cat("for (int64_t o = 0; o < ", o_bound_.empty() ? cat(o) : o_bound_, "; ++o) {"));
    line(cat("  AscendC::Duplicate(", d, "[o], ", literal(dt, 0), ", 1);"));
    line(cat("  for (int64_t c = 0; c < ", r, "; c += ", chunk, ") {"));
    line(cat("    const int32_t len = static_cast<int32_t>(", r, " - c < ", chunk, " ? ", r,
             " - c : ", chunk, ");"));
    line(cat("    AscendC::Mul(", tt, ", ", s, "[o * ", r, " + c], ", s, "[o * ", r,
             " + c], len);"));
    line(cat("    AscendC::ReduceSum(", pt, ", ", tt, ", scratch[", dst_room, "].ReinterpretCast<",
             t, ">(), len);"));
    line(cat("    AscendC::Add(", d, "[o], ", d, "[o], ", pt, ", 1);"));
    line("  }");
    line("}");
    if (redirect)
      line(cat("AscendC::Muls(", final_d, ", ", d, ", ", literal(dt, 1), ", ", o * i, ");"));
    return;
  }
  if (i == 1 && op != ReduceOp::kProd) {  // whole-row reductions
    const bool sq = false;
    need_scratch(dst_room + work + (sq ? align_up(r * es, 32) : 0));
    const char* f = op == ReduceOp::kMax   ? "ReduceMax"
                    : op == ReduceOp::kMin ? "ReduceMin"
                                           : "ReduceSum";
    line(cat("for (int64_t o = 0; o < ", o_bound_.empty() ? cat(o) : o_bound_, "; ++o) {"));
    std::string src = cat(s, "[o * ", r, "]");
    if (sq) {
      line(cat("  AscendC::Mul(scratch[", dst_room + work, "].ReinterpretCast<", t, ">(), ", src,
               ", ", src, ", ", r, ");"));
      src = cat("scratch[", dst_room + work, "].ReinterpretCast<", t, ">()");
    }
    line(cat("  AscendC::", f, "(", d, "[o], ", src, ", scratch[", dst_room, "].ReinterpretCast<",
             t, ">(), ", r, ");"));
    line("}");
    if (redirect)
      line(cat("AscendC::Muls(", final_d, ", ", d, ", ", literal(dt, 1), ", ", o * i, ");"));
    return;
  }
  // Reduction over a middle axis: row-wise accumulation of [i]-vectors.
  line(cat("for (int64_t o = 0; o < ", o_bound_.empty() ? cat(o) : o_bound_, "; ++o) {"));
  indent_ += 2;
  const std::string row0 = cat(s, "[o * ", r * i, "]"), dr = cat(d, "[o * ", i, "]");
  if (op == ReduceOp::kSumSquares)
    line(cat("AscendC::Mul(", dr, ", ", row0, ", ", row0, ", ", i, ");"));
  else
    line(cat("AscendC::Muls(", dr, ", ", row0, ", ", literal(dt, 1), ", ", i, ");"));
  line(cat("for (int64_t r = 1; r < ", r, "; ++r) {"));
  const std::string row = cat(s, "[(o * ", r, " + r) * ", i, "]");
  switch (op) {
    case ReduceOp::kSum:
      line(cat("  AscendC::Add(", dr, ", ", dr, ", ", row, ", ", i, ");"));
      break;
    case ReduceOp::kMax:
      line(cat("  AscendC::Max(", dr, ", ", dr, ", ", row, ", ", i, ");"));
      break;
    case ReduceOp::kMin:
      line(cat("  AscendC::Min(", dr, ", ", dr, ", ", row, ", ", i, ");"));
      break;
    case ReduceOp::kProd:
      line(cat("  AscendC::Mul(", dr, ", ", dr, ", ", row, ", ", i, ");"));
      break;
    case ReduceOp::kSumSquares:
      line(cat("  AscendC::MulAddDst(", dr, ", ", row, ", ", row, ", ", i, ");"));
      break;
  }
  line("}");
  indent_ -= 2;
  line("}");
  if (redirect)
    line(cat("AscendC::Muls(", final_d, ", ", d, ", ", literal(dt, 1), ", ", o * i, ");"));
}

void Emitter::cast(int pc) {
  const Instr& in = p_.instrs[pc];
  const DType from = p_.buffers[in.src[0]].dtype, to = p_.buffers[in.dst].dtype;
  const std::string d = buf(in.dst), s = buf(in.src[0]), n = cnt(in.dst);
  if (to == DType::kBool) {
    line(cat("AscendC::CompareScalar(", d, ", ", s, ", ", literal(from, 0),
             ", AscendC::CMPMODE::NE, ", n, ");"));
    return;
  }
  if (ctype(from) == ctype(to)) {
    line(cat("AscendC::Muls(", d, ", ", s, ", ", literal(to, 1), ", ", n, ");"));
    return;
  }
  const char* mode = dtype_is_float(to)     ? "CAST_RINT"
                     : dtype_is_float(from) ? "CAST_TRUNC"
                                            : "CAST_NONE";
  line(cat("AscendC::Cast(", d, ", ", s, ", AscendC::RoundMode::", mode, ", ", n, ");"));
}

// A vector instruction reading an L0C buffer reads its UB copy: DataCopy CO1 -> UB (on the 910B
// this stands for Fixpipe to a GM workspace and a copy back, see docs/ASCENDC.md).
void Emitter::stage_l0c(int pc) {
  const Instr& in = p_.instrs[pc];
  staged_.clear();
  const bool vector = in.kind != InstrKind::kCopyIn && in.kind != InstrKind::kCopyOut &&
                      in.kind != InstrKind::kLoadL0 && in.kind != InstrKind::kMmad &&
                      in.kind != InstrKind::kLoopBegin && in.kind != InstrKind::kLoopEnd;
  if (!vector) return;
  if (in.dst >= 0 && p_.buffers[in.dst].pos == Pos::kL0C) fail(pc, "vector result in L0C");
  int64_t off = 0;
  if (chunked_) {  // the chunk [c, c + len) of each L0C operand
    for (int src : in.src) {
      if (src < 0 || p_.buffers[src].pos != Pos::kL0C) continue;
      const std::string name = cat("stage[", off, "].ReinterpretCast<", ty(src), ">()");
      sync("M_FIX");
      line(cat("AscendC::DataCopy(", name, ", b", src,
               "[c], AscendC::DataCopyCO12DstParams{1, static_cast<uint16_t>((len * 4 + 1023) / "
               "1024), 0, 0});"));
      sync("FIX_V");
      staged_.emplace_back(src, name);
      off += align_up(chunk_elems_ * 4, 32);
    }
    stage_bytes_ = std::max(stage_bytes_, off);
    return;
  }
  for (int src : in.src) {
    if (src < 0 || p_.buffers[src].pos != Pos::kL0C) continue;
    bool seen = false;
    for (const auto& st : staged_) seen = seen || st.first == src;
    if (seen) continue;
    const BufferDecl& d = p_.buffers[src];
    const std::string name = cat("stage[", off, "].ReinterpretCast<", ty(src), ">()");
    sync("M_FIX");
    line(cat("AscendC::DataCopy(", name, ", b", src, ", AscendC::DataCopyCO12DstParams{1, ",
             (d.bytes() + 1023) / 1024, ", 0, 0});"));
    sync("FIX_V");
    staged_.emplace_back(src, name);
    off += align_up(d.bytes(), 32);
  }
  stage_bytes_ = std::max(stage_bytes_, off);
}

// Binary, Compare and Select: one call each.
void Emitter::emit_vector_simple(int pc) {
  const Instr& in = p_.instrs[pc];
  static const char* kModes[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  if (in.kind == InstrKind::kBinary)
    binary_call(static_cast<BinaryOp>(in.op), buf(in.dst), buf(in.src[0]), buf(in.src[1]),
                cnt(in.dst), pc);
  else if (in.kind == InstrKind::kCompare)
    line(cat("AscendC::Compare(", buf(in.dst), ", ", buf(in.src[0]), ", ", buf(in.src[1]),
             ", AscendC::CMPMODE::", kModes[in.op], ", ", cnt(in.dst), ");"));
  else
    line(cat("AscendC::Select(", buf(in.dst), ", ", buf(in.src[0]), ", ", buf(in.src[1]), ", ",
             buf(in.src[2]), ", AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, ", cnt(in.dst), ");"));
}

void Emitter::emit_instr(int pc) {
  const Instr& in = p_.instrs[pc];
  // An elementwise instruction whose L0C operands would take more than half the free UB runs in
  // chunks of whole 1 KiB L0C blocks.
  const bool elementwise = in.kind == InstrKind::kUnary || in.kind == InstrKind::kBinary ||
                           in.kind == InstrKind::kScalar || in.kind == InstrKind::kCast ||
                           in.kind == InstrKind::kCompare || in.kind == InstrKind::kSelect;
  int64_t l0c_bytes = 0, l0c_ops = 0;
  for (int src : in.src)
    if (src >= 0 && p_.buffers[src].pos == Pos::kL0C) {
      l0c_bytes += align_up(p_.buffers[src].bytes(), 32);
      ++l0c_ops;
    }
  if (elementwise && l0c_ops > 0 && l0c_bytes > ub_free_ / 2 &&
      numel(p_.buffers[in.dst].dims) > 0) {
    const int64_t n = n_of(in.dst);
    chunk_elems_ = std::max<int64_t>(256, ub_free_ / 2 / l0c_ops / 1024 * 256);
    line(cat("for (int64_t c = 0; c < ", n, "; c += ", chunk_elems_, ") {"));
    indent_ += 2;
    line(cat("const int32_t len = static_cast<int32_t>(", n, " - c < ", chunk_elems_, " ? ", n,
             " - c : ", chunk_elems_, ");"));
    chunked_ = true;
    stage_l0c(pc);
    switch (in.kind) {
      case InstrKind::kUnary:
        unary(pc);
        break;
      case InstrKind::kScalar:
        scalar(pc);
        break;
      case InstrKind::kCast:
        cast(pc);
        break;
      default:
        emit_vector_simple(pc);
        break;
    }
    chunked_ = false;
    staged_.clear();
    indent_ -= 2;
    line("}");
    for (int b : frees_[static_cast<size_t>(pc)]) line(cat("q", b, ".FreeTensor(", buf(b), ");"));
    return;
  }
  if ((in.kind == InstrKind::kReduce || in.kind == InstrKind::kBcastMid) && l0c_ops > 0 &&
      l0c_bytes > ub_free_ / 2) {
    // Blocks of outer rows o: src0 [o, r, i] (and BcastMid's src1 [o, i]) staged per block.
    const Shape& sd = p_.buffers[in.src[0]].dims;
    const int64_t o = outer_of(sd, in.axis), r = sd[static_cast<size_t>(in.axis)],
                  i = inner_of(sd, in.axis);
    if (o * r * i > 0) {
      const int64_t rows =
          std::clamp<int64_t>(ub_free_ / 2 / l0c_ops / std::max<int64_t>(1, r * i * 4), 1, o);
      line(cat("for (int64_t c = 0; c < ", o, "; c += ", rows, ") {"));
      indent_ += 2;
      line(cat("const int64_t rows = ", o, " - c < ", rows, " ? ", o, " - c : ", rows, ";"));
      staged_.clear();
      int64_t off = 0;
      for (int k = 0; k < 2; ++k) {
        const int src = in.src[k];
        if (src < 0 || (k == 1 && in.kind == InstrKind::kReduce)) continue;
        const int64_t per_row = k == 0 ? r * i : i;
        if (p_.buffers[src].pos != Pos::kL0C) {
          staged_.emplace_back(src, cat("b", src, "[c * ", per_row, "]"));
          continue;
        }
        const std::string name = cat("stage[", off, "].ReinterpretCast<", ty(src), ">()");
        sync("M_FIX");
        line(cat("AscendC::DataCopy(", name, ", b", src, "[c * ", per_row,
                 "], AscendC::DataCopyCO12DstParams{1, static_cast<uint16_t>((rows * ", per_row,
                 " * 4 + 1023) / 1024), 0, 0});"));
        sync("FIX_V");
        staged_.emplace_back(src, name);
        off += align_up(rows * per_row * 4, 32);
      }
      stage_bytes_ = std::max(stage_bytes_, off);
      staged_.emplace_back(
          in.dst, cat("b", in.dst, "[c * ", in.kind == InstrKind::kReduce ? i : r * i, "]"));
      o_bound_ = "rows";
      if (in.kind == InstrKind::kReduce)
        reduce(pc);
      else
        bcast_mid(pc);
      o_bound_.clear();
      staged_.clear();
      indent_ -= 2;
      line("}");
      for (int b : frees_[static_cast<size_t>(pc)]) line(cat("q", b, ".FreeTensor(", buf(b), ");"));
      return;
    }
  }
  stage_l0c(pc);
  const auto vec = [&](int b) { return numel(p_.buffers[b].dims) > 0; };
  switch (in.kind) {
    case InstrKind::kLoopBegin:
      line(cat("for (v[", in.var, "] = 0; v[", in.var, "] < ", in.count, "LL; ++v[", in.var,
               "]) {"));
      indent_ += 2;
      break;
    case InstrKind::kLoopEnd:
      indent_ -= 2;
      line("}");
      break;
    case InstrKind::kCopyIn:
      copy_in(pc);
      break;
    case InstrKind::kCopyOut:
      copy_out(pc);
      break;
    case InstrKind::kUnary:
      if (vec(in.dst)) unary(pc);
      break;
    case InstrKind::kBinary:
      if (vec(in.dst)) emit_vector_simple(pc);
      break;
    case InstrKind::kScalar:
      if (vec(in.dst)) scalar(pc);
      break;
    case InstrKind::kBcastMid:
      bcast_mid(pc);
      break;
    case InstrKind::kCompare:
    case InstrKind::kSelect:
      if (vec(in.dst)) emit_vector_simple(pc);
      break;
    case InstrKind::kCast:
      if (vec(in.dst)) cast(pc);
      break;
    case InstrKind::kReduce:
      reduce(pc);
      break;
    case InstrKind::kDuplicate:
      if (vec(in.dst))
        line(cat("AscendC::Duplicate(", buf(in.dst), ", ",
                 literal(p_.buffers[in.dst].dtype, in.scalar), ", ", n_of(in.dst), ");"));
      break;
    case InstrKind::kLoadL0: {
      const BufferDecl& dd = p_.buffers[in.dst];
      const BufferDecl& sd = p_.buffers[in.src[0]];
      if (dd.dtype != sd.dtype || dd.bytes() != sd.bytes()) fail(pc, "load_l0 changing the size");
      if (sd.pos == Pos::kUB) sync("V_MTE3");  // UB -> GM -> L1 on the 910B (docs)
      line(cat("AscendC::LoadData(", buf(in.dst), ", ", buf(in.src[0]),
               ", AscendC::LoadData2DParams{0, ", (dd.bytes() + 511) / 512,
               ", 1, 0, 0, false, 0});"));
      sync("MTE1_M");
      break;
    }
    case InstrKind::kMmad: {
      // [.., m, k] x [.., k, n] with leading dims of 1.
      const auto last2 = [](const Shape& d) {
        Shape m = {1, 1};
        int64_t lead = 1;
        for (size_t j = 0; j < d.size(); ++j) {
          if (j + 2 < d.size()) lead *= d[j];
          if (j + 2 >= d.size()) m[j + 2 - d.size()] = d[j];
        }
        return lead == 1 ? m : Shape{};
      };
      const Shape a = last2(p_.buffers[in.src[0]].dims), b = last2(p_.buffers[in.src[1]].dims);
      if (a.empty() || b.empty() || a[1] != b[0]) fail(pc, "mmad operands not [m,k] x [k,n]");
      line("{");
      line("  AscendC::MmadParams mp;");
      line(cat("  mp.m = ", a[0], ";"));
      line(cat("  mp.n = ", b[1], ";"));
      line(cat("  mp.k = ", a[1], ";"));
      line(cat("  mp.cmatrixInitVal = ", in.var < 0 ? "true" : cat("v[", in.var, "] == 0"), ";"));
      line(cat("  AscendC::Mmad(", buf(in.dst), ", ", buf(in.src[0]), ", ", buf(in.src[1]),
               ", mp);"));
      line("}");
      break;
    }
  }
  staged_.clear();
  for (int b : frees_[static_cast<size_t>(pc)]) line(cat("q", b, ".FreeTensor(", buf(b), ");"));
}

std::string tiling_struct(const TileProgram& p, const std::string& name) {
  const int gr = std::max(1, p.grid_rank());
  std::string s = cat("#ifndef ", name, "_TILING_DATA\n#define ", name, "_TILING_DATA\n");
  s += cat("// Tiling data of ", name, ", copied byte for byte to the device.\nstruct ", name,
           "TilingData {\n  int64_t grid[", gr, "];  // tile grid, row-major, last axis fastest\n",
           "  int64_t numTiles;\n  int64_t blockDim;  // cores; core c runs tiles [c * per, (c + "
           "1) * per)\n};\n");
  s += cat("inline ", name, "TilingData ", name, "MakeTiling() {\n  ", name, "TilingData t{};\n");
  for (int g = 0; g < gr; ++g)
    s += cat("  t.grid[", g, "] = ", g < p.grid_rank() ? p.grid[static_cast<size_t>(g)] : 1, ";\n");
  s += cat("  t.numTiles = ", p.num_tiles(),
           ";\n  t.blockDim = ", std::max<int64_t>(1, p.block_dim), ";\n  return t;\n}\n#endif\n");
  return s;
}

std::string Emitter::run() {
  layout();
  plan_frees();
  const int nb = static_cast<int>(p_.buffers.size());
  const int ni = static_cast<int>(p_.instrs.size());
  // The tile body first: it decides the scratch size.
  indent_ = 6;
  for (int pc = 0; pc < ni; ++pc) emit_instr(pc);
  const std::string tile_body = body_;
  body_.clear();

  std::string s;
  s += cat("// ", p_.op, ": ");
  for (size_t a = 0; a < p_.args.size(); ++a)
    s += cat(a == 0                                    ? ""
             : a == static_cast<size_t>(p_.num_inputs) ? " -> "
                                                       : ", ",
             p_.args[a].str());
  s += cat("\n// grid ", to_string(p_.grid), ", block_dim ", p_.block_dim, ", ", nb, " buffers, ",
           ni, " instructions (generated by asc)\n");
  s += "#include \"kernel_operator.h\"\n\n";
  s += tiling_struct(p_, name_);
  s += cat("\nnamespace ", name_, "_impl {\n\n");
  s += "inline int64_t AscHostClamp(int64_t v, int64_t hi) {\n  return v < 0 ? 0 : v > hi ? hi : "
       "v;\n}\n\n";
  s += "class Kernel {\n public:\n  __aicore__ inline void Init(";
  for (size_t a = 0; a < p_.args.size(); ++a) s += cat("GM_ADDR a", a, ", ");
  s += cat("const ", name_, "TilingData& t) {\n    tiling_ = t;\n");
  for (size_t a = 0; a < p_.args.size(); ++a)
    s += cat("    g", a, ".SetGlobalBuffer(reinterpret_cast<__gm__ ", ctype(p_.args[a].dtype),
             "*>(a", a, "), ", numel(p_.args[a].shape), ");\n");
  for (int b = 0; b < nb; ++b)
    if (queued_[b])
      s += cat("    pipe_.InitBuffer(q", b, ", 2, ", align_up(p_.buffers[b].bytes(), 32), ");\n");
  static const char* kRegion[6] = {"", "ub", "l1", "l0a", "l0b", "l0c"};
  for (int pos = 1; pos < 6; ++pos)
    if (region_bytes_[pos] > 0)
      s += cat("    pipe_.InitBuffer(", kRegion[pos], "_, ", region_bytes_[pos], ");\n");
  if (scratch_bytes_ > 0) s += cat("    pipe_.InitBuffer(scratch_, ", scratch_bytes_, ");\n");
  if (stage_bytes_ > 0) s += cat("    pipe_.InitBuffer(stage_, ", stage_bytes_, ");\n");
  for (int pos = 1; pos < 6; ++pos)
    if (region_bytes_[pos] > 0)
      s += cat("    AscendC::LocalTensor<uint8_t> ", kRegion[pos], " = ", kRegion[pos],
               "_.Get<uint8_t>();\n");
  for (int b = 0; b < nb; ++b)
    if (!queued_[b])
      s += cat("    ", buf(b), " = ", kRegion[static_cast<int>(p_.buffers[b].pos)], "[",
               region_off_[b], "].ReinterpretCast<", ty(b), ">();\n");
  s += "  }\n\n  __aicore__ inline void Process() {\n";
  if (scratch_bytes_ > 0)
    s += "    AscendC::LocalTensor<uint8_t> scratch = scratch_.Get<uint8_t>();\n";
  if (stage_bytes_ > 0) s += "    AscendC::LocalTensor<uint8_t> stage = stage_.Get<uint8_t>();\n";
  s += "    const int64_t tiles = tiling_.numTiles;\n";
  s += "    const int64_t cores = tiling_.blockDim < tiles ? tiling_.blockDim : tiles;\n";
  s += "    if (tiles <= 0 || AscendC::GetBlockIdx() >= cores) return;\n";
  s += "    const int64_t per = (tiles + cores - 1) / cores;\n";
  s += "    const int64_t begin = AscendC::GetBlockIdx() * per;\n";
  s += "    const int64_t end = begin + per < tiles ? begin + per : tiles;\n";
  s += cat("    int64_t v[", std::max(1, p_.num_vars()), "] = {};\n");
  s += "    for (int64_t tile = begin; tile < end; ++tile) {\n      int64_t rem = tile;\n";
  for (int g = p_.grid_rank() - 1; g >= 0; --g)
    s += cat("      v[", g, "] = rem % tiling_.grid[", g, "];\n      rem /= tiling_.grid[", g,
             "];\n");
  s += "      (void)rem;\n      (void)v;\n";
  s += tile_body;
  s += "    }\n  }\n\n private:\n  AscendC::TPipe pipe_;\n";
  for (int b = 0; b < nb; ++b)
    if (queued_[b])
      s += cat(
          "  AscendC::TQue<",
          p_.buffers[b].pos == Pos::kL1 ? tpos(Pos::kL1, b_side_[b]) : "AscendC::TPosition::VECIN",
          ", 1> q", b, ";\n");
  for (int pos = 1; pos < 6; ++pos)
    if (region_bytes_[pos] > 0)
      s += cat("  AscendC::TBuf<", tpos(static_cast<Pos>(pos), false), "> ", kRegion[pos], "_;\n");
  if (scratch_bytes_ > 0) s += "  AscendC::TBuf<AscendC::TPosition::VECCALC> scratch_;\n";
  if (stage_bytes_ > 0) s += "  AscendC::TBuf<AscendC::TPosition::VECIN> stage_;\n";
  for (size_t a = 0; a < p_.args.size(); ++a)
    s += cat("  AscendC::GlobalTensor<", ctype(p_.args[a].dtype), "> g", a, ";\n");
  for (int b = 0; b < nb; ++b) {
    const BufferDecl& d = p_.buffers[b];
    s += cat("  AscendC::LocalTensor<", ty(b), "> ", buf(b), ";  // ", d.name, " ", pos_name(d.pos),
             " ", dtype_name(d.dtype), to_string(d.dims), queued_[b] ? " (TQue, 2 buffers)" : "",
             "\n");
  }
  s += cat("  ", name_, "TilingData tiling_;\n};\n\n}  // namespace ", name_, "_impl\n\n");
  s += cat("extern \"C\" __global__ __aicore__ void ", name_, "(");
  for (size_t a = 0; a < p_.args.size(); ++a) s += cat("GM_ADDR a", a, ", ");
  s += "GM_ADDR tiling) {\n";
  s += cat("  ", name_, "TilingData t;\n");
  s += cat(
      "  const __gm__ uint8_t* src = tiling;\n  uint8_t* dst = reinterpret_cast<uint8_t*>(&t);\n");
  s += "  for (size_t i = 0; i < sizeof(t); ++i) dst[i] = src[i];\n";
  s += cat("  ", name_, "_impl::Kernel op;\n  op.Init(");
  for (size_t a = 0; a < p_.args.size(); ++a) s += cat("a", a, ", ");
  s += "t);\n  op.Process();\n}\n";
  return s;
}

}  // namespace

std::string kernel_ident(const std::string& op) {
  std::string s;
  for (char c : op)
    s += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return s;
}

std::string emit_kernel(const TileProgram& p, const std::string& name) {
  return Emitter(p, name).run();
}

std::string emit_cpu_runner(const TileProgram& p, const std::string& name) {
  std::string s = cat("void ", name, "_cpu_run(uint8_t* const* args) {\n");
  s += cat("  ", name, "TilingData t = ", name, "MakeTiling();\n");
  s += cat("  AscendC::RunKernel(", name, ", t.blockDim < t.numTiles ? t.blockDim : t.numTiles");
  for (size_t a = 0; a < p.args.size(); ++a) s += cat(", args[", a, "]");
  s += ", reinterpret_cast<uint8_t*>(&t));\n}\n";
  return s;
}

std::string emit_host_stub(const TileProgram& p, const std::string& name) {
  std::string s =
      cat("// Host launch stub of ", name, " (", p.op, ") through ACL (generated by asc).\n");
  s += "#include <cstdint>\n#include <cstdio>\n\n#include \"acl/acl.h\"\n";
  s += cat("#include \"aclrtlaunch_", name, ".h\"\n\n");
  s += tiling_struct(p, name);
  s += "\n#define ASC_ACL_CHECK(x)                                              \\\n"
       "  do {                                                                \\\n"
       "    aclError e_ = (x);                                                \\\n"
       "    if (e_ != ACL_SUCCESS) {                                          \\\n"
       "      std::fprintf(stderr, \"%s failed: %d\\n\", #x, static_cast<int>(e_)); \\\n"
       "      return 1;                                                       \\\n"
       "    }                                                                 \\\n"
       "  } while (0)\n\n";
  s += cat("// host[k]: argument k (inputs, then outputs), ");
  for (size_t a = 0; a < p.args.size(); ++a) s += cat(a ? ", " : "", p.args[a].str());
  s += cat(".\n// The caller has run aclInit and aclrtSetDevice.\nint ", name,
           "_run(void* const* host) {\n");
  s += cat("  const size_t bytes[", std::max<size_t>(1, p.args.size()), "] = {");
  for (size_t a = 0; a < p.args.size(); ++a)
    s += cat(a ? ", " : "",
             numel(p.args[a].shape) * static_cast<int64_t>(dtype_size(p.args[a].dtype)));
  s += cat("};\n  constexpr int kArgs = ", p.args.size(), ", kInputs = ", p.num_inputs, ";\n");
  s += cat("  void* dev[kArgs + 1] = {};\n  aclrtStream stream = nullptr;\n");
  s += "  ASC_ACL_CHECK(aclrtCreateStream(&stream));\n";
  s += "  for (int a = 0; a < kArgs; ++a) {\n"
       "    ASC_ACL_CHECK(aclrtMalloc(&dev[a], bytes[a] ? bytes[a] : 32, "
       "ACL_MEM_MALLOC_HUGE_FIRST));\n"
       "    if (a < kInputs && bytes[a])\n"
       "      ASC_ACL_CHECK(aclrtMemcpy(dev[a], bytes[a], host[a], bytes[a], "
       "ACL_MEMCPY_HOST_TO_DEVICE));\n"
       "  }\n";
  s += cat("  ", name, "TilingData tiling = ", name, "MakeTiling();\n");
  s += "  ASC_ACL_CHECK(aclrtMalloc(&dev[kArgs], sizeof(tiling), ACL_MEM_MALLOC_HUGE_FIRST));\n"
       "  ASC_ACL_CHECK(aclrtMemcpy(dev[kArgs], sizeof(tiling), &tiling, sizeof(tiling),\n"
       "                            ACL_MEMCPY_HOST_TO_DEVICE));\n";
  s += "  const uint32_t blockDim =\n      static_cast<uint32_t>(tiling.blockDim < tiling.numTiles "
       "? tiling.blockDim : tiling.numTiles);\n";
  s += cat("  if (blockDim > 0) ASC_ACL_CHECK(aclrtlaunch_", name, "(blockDim, stream");
  for (size_t a = 0; a <= p.args.size(); ++a) s += cat(", dev[", a, "]");
  s += "));\n  ASC_ACL_CHECK(aclrtSynchronizeStream(stream));\n";
  s += "  for (int a = kInputs; a < kArgs; ++a)\n"
       "    if (bytes[a])\n"
       "      ASC_ACL_CHECK(aclrtMemcpy(host[a], bytes[a], dev[a], bytes[a], "
       "ACL_MEMCPY_DEVICE_TO_HOST));\n";
  s += "  for (void* d : dev) ASC_ACL_CHECK(aclrtFree(d));\n";
  s += "  ASC_ACL_CHECK(aclrtDestroyStream(stream));\n  return 0;\n}\n";
  return s;
}

std::string emit_cmake(const std::vector<std::string>& names) {
  std::string s =
      "# Builds the kernels asc emitted with the CANN toolchain (generated by asc; needs CANN:\n"
      "# source ${ASCEND_HOME_PATH}/set_env.sh, or set ASCEND_CANN_PACKAGE_PATH).\n"
      "cmake_minimum_required(VERSION 3.16)\nproject(asc_kernels LANGUAGES CXX)\n\n"
      "set(SOC_VERSION \"Ascend910B1\" CACHE STRING \"target SoC\")\n"
      "set(RUN_MODE \"npu\" CACHE STRING \"npu, sim or cpu\")\n"
      "if(NOT ASCEND_CANN_PACKAGE_PATH)\n"
      "  set(ASCEND_CANN_PACKAGE_PATH $ENV{ASCEND_HOME_PATH} CACHE PATH \"CANN toolkit\")\n"
      "endif()\n"
      "if(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)\n"
      "  set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)\n"
      "elseif(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)\n"
      "  set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)\n"
      "else()\n"
      "  message(FATAL_ERROR \"ascendc_kernel_cmake not found under "
      "${ASCEND_CANN_PACKAGE_PATH}\")\n"
      "endif()\ninclude(${ASCENDC_CMAKE_DIR}/ascendc.cmake)\n\n"
      "# Kernels: one library; ascendc_library generates aclrtlaunch_<kernel>.h for each.\n"
      "ascendc_library(asc_kernels STATIC\n";
  for (const auto& n : names) s += cat("  ", n, ".cpp\n");
  s += ")\n\nadd_executable(asc_kernels_host main.cpp\n";
  for (const auto& n : names) s += cat("  ", n, "_host.cpp\n");
  s += ")\ntarget_link_libraries(asc_kernels_host PRIVATE asc_kernels ascendcl)\n";
  return s;
}

}  // namespace asc::ascend

// Conversions and comparisons on the A2's vector unit (docs/ASCENDC.md, InstrKind table): the
// cast chains of its Cast pairs, Compare and Select through bit masks, binary calls, and the
// chunk loops that run them through UB scratch.
#include <algorithm>

#include "runtime/devices/ascend/a2_casts.h"
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend::detail {

// dst = src as the A2 casts: the shortest chain of its Cast pairs (a2_casts.h), e.g. uint8_t ->
// half -> float, each step with the mode ONNX's Cast means (widening exactly, to a float type to
// nearest even, float to integer truncating, integer to integer as is).
void Emitter::cast(int pc) {
  const Instr& in = p_.instrs[pc];
  const DType from = p_.buffers[in.src[0]].dtype, to = p_.buffers[in.dst].dtype;
  if (to == DType::kBool) {
    if (chunked_) fail(pc, "a cast of an L0C operand to bool");
    bool_bytes(pc, in.src[0], -1, CmpOp::kNe, 0.0);
    return;
  }
  if (ctype(from) == ctype(to)) {
    copy_ub(buf(in.dst), buf(in.src[0]), to, cnt(in.dst));
    return;
  }
  cast_into(pc, buf(in.dst), to, buf(in.src[0]), from, n_of(in.dst), 0);
}

void Emitter::copy_ub(const std::string& d, const std::string& s, DType t, const std::string& n) {
  const int64_t es = static_cast<int64_t>(dtype_size(t));
  const std::string it = es == 1 || es == 2 ? "int16_t" : "int32_t";
  const std::string count = es == 1 ? cat("(", n, " + 1) / 2") : es == 8 ? cat("(", n, ") * 2") : n;
  line(cat("AscendC::Muls(", d, ".ReinterpretCast<", it, ">(), ", s, ".ReinterpretCast<", it,
           ">(), static_cast<", it, ">(1), ", count, ");"));
}

namespace {

bool float_name(const std::string& t) {
  return t == "half" || t == "float" || t == "bfloat16_t";
}

// The A2 Cast steps from `from` to `to` (element type names) with their modes; empty when the
// A2 has no chain.
std::vector<std::pair<std::string, std::string>> cast_steps(const std::string& from,
                                                            const std::string& to) {
  std::vector<std::string> seen = {from}, prev = {""};
  for (size_t i = 0; i < seen.size() && seen[i] != to; ++i)
    for (const a2::CastPair& c : a2::kCasts)
      if (seen[i] == c.src && std::find(seen.begin(), seen.end(), c.dst) == seen.end()) {
        seen.emplace_back(c.dst);
        prev.push_back(seen[i]);
      }
  const auto at = std::find(seen.begin(), seen.end(), to);
  if (at == seen.end()) return {};
  std::vector<std::string> path;
  for (size_t i = static_cast<size_t>(at - seen.begin()); !prev[i].empty();
       i = static_cast<size_t>(std::find(seen.begin(), seen.end(), prev[i]) - seen.begin()))
    path.push_back(seen[i]);
  std::reverse(path.begin(), path.end());
  std::vector<std::pair<std::string, std::string>> steps;
  std::string a = from;
  for (const std::string& b : path) {
    uint32_t modes = 0;
    for (const a2::CastPair& c : a2::kCasts)
      if (a == c.src && b == c.dst) modes = c.modes;
    // Toward an integer, a float hop truncates too (f32 73.99 -> half 73.94, not 74.0), so the
    // last hop truncates the value the source held.
    const bool to_int = !float_name(to) && float_name(a) && float_name(b) && (modes & a2::kTrunc);
    const char* m = to_int              ? "CAST_TRUNC"
                    : float_name(b)     ? (modes & a2::kNone ? "CAST_NONE" : "CAST_RINT")
                    : float_name(a)     ? "CAST_TRUNC"
                    : modes & a2::kNone ? "CAST_NONE"
                                        : "CAST_TRUNC";
    steps.emplace_back(b, m);
    a = b;
  }
  return steps;
}

}  // namespace

// d = s converted, n elements; a chain of more than one Cast runs in chunks through scratch
// (from byte `at`).
void Emitter::cast_into(int pc, const std::string& d, DType to, const std::string& s, DType from,
                        int64_t n, int64_t at) {
  const std::string ft = ctype(from), tt = ctype(to);
  const auto steps = cast_steps(ft, tt);
  if (steps.empty()) lack(pc, cat("Cast from ", ft, " to ", tt, " (no chain of its Cast pairs)"));
  if (steps.size() == 1) {
    line(cat("AscendC::Cast(", d, ", ", s, ", AscendC::RoundMode::", steps[0].second, ", ",
             chunked_ ? std::string("len") : cat(n), ");"));
    return;
  }
  if (chunked_) fail(pc, cat("a cast ", ft, " -> ", tt, " of an L0C operand"));
  const int64_t k = chunk_for(n, 16, at), area = align_up(8 * k, 32);
  need_scratch(at + 2 * area);
  open_chunks(n, k);
  std::string src = cat(s, "[c]");
  for (size_t i = 0; i < steps.size(); ++i) {
    const bool last = i + 1 == steps.size();
    const std::string dst = last ? cat(d, "[c]")
                                 : cat("scratch[", at + static_cast<int64_t>(i % 2) * area,
                                       "].ReinterpretCast<", steps[i].first, ">()");
    line(cat("AscendC::Cast(", dst, ", ", src, ", AscendC::RoundMode::", steps[i].second,
             ", len);"));
    src = dst;
  }
  indent_ -= 2;
  line("}");
}

// Binary: one call. Compare, Select and the casts to bool go through the bit masks the A2's
// Compare writes and Select reads (bool_bytes, select).
void Emitter::emit_vector_simple(int pc) {
  const Instr& in = p_.instrs[pc];
  if (chunked_ && in.kind != InstrKind::kBinary) fail(pc, "a comparison of an L0C operand");
  const auto op = static_cast<BinaryOp>(in.op);
  if (in.kind == InstrKind::kBinary && (op == BinaryOp::kMod || op == BinaryOp::kPow) &&
      (aliases(in.dst, in.src[0]) || aliases(in.dst, in.src[1]))) {
    // Fmod and Power are advanced APIs, which refuse a result in an operand's place: into
    // scratch, then copied back.
    need_scratch(p_.buffers[in.dst].bytes());
    const std::string t = cat("scratch.ReinterpretCast<", ty(in.dst), ">()");
    binary_call(op, t, buf(in.src[0]), buf(in.src[1]), cnt(in.dst), pc);
    copy_ub(buf(in.dst), t, p_.buffers[in.dst].dtype, cnt(in.dst));
  } else if (in.kind == InstrKind::kBinary && (op == BinaryOp::kMax || op == BinaryOp::kMin)) {
    // NaN in, NaN out (keep_nan). A result in one operand's place (that operand dies here): per
    // chunk, the operand first takes the other's NaNs, its mask (x == x) is kept, the call runs,
    // and NaN goes where the mask is false; only the chunk's mask takes scratch.
    const std::string d = buf(in.dst), a = buf(in.src[0]), b = buf(in.src[1]);
    const DType t = p_.buffers[in.dst].dtype;
    const bool in_a = aliases(in.dst, in.src[0]), in_b = aliases(in.dst, in.src[1]);
    if (chunked_ || (t != DType::kF16 && t != DType::kF32) || in_a == in_b) {
      binary_call(op, d, a, b, cnt(in.dst), pc);
      if (!in_a) keep_nan(d, {a, b}, t, n_of(in.dst), 0);
    } else {
      const int64_t n = n_of(in.dst), k = chunk_for(n, 1);
      const int64_t per = 256 / static_cast<int64_t>(dtype_size(t));
      const std::string x = in_a ? a : b, y = in_a ? b : a, bits = "scratch[0]";
      need_scratch(align_up(k / 8, 32));
      line("// NaN in, NaN out");
      open_chunks(n, k);
      line(cat("const int32_t whole = (len + ", per - 1, ") / ", per, " * ", per, ";"));
      line(cat("AscendC::Compare(", bits, ", ", y, "[c], ", y,
               "[c], AscendC::CMPMODE::EQ, whole);"));
      line(cat("AscendC::Select(", x, "[c], ", bits, ", ", x, "[c], ", y,
               "[c], AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, len);"));
      line(cat("AscendC::Compare(", bits, ", ", x, "[c], ", x,
               "[c], AscendC::CMPMODE::EQ, whole);"));
      binary_call(op, cat(d, "[c]"), cat(a, "[c]"), cat(b, "[c]"), "len", pc);
      line(cat("AscendC::Select(", d, "[c], ", bits, ", ", d, "[c], ", literal(t, std::nan("")),
               ", AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, len);"));
      indent_ -= 2;
      line("}");
    }
  } else if (in.kind == InstrKind::kBinary) {
    binary_call(op, buf(in.dst), buf(in.src[0]), buf(in.src[1]), cnt(in.dst), pc);
  } else if (in.kind == InstrKind::kCompare) {
    bool_bytes(pc, in.src[0], in.src[1], static_cast<CmpOp>(in.op), 0.0);
  } else {
    select(pc);
  }
}

namespace {

const char* cmp_mode(CmpOp op) {
  static const char* kModes[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  return kModes[static_cast<int>(op)];
}

}  // namespace

// `for (c = 0; c < n; c += k) { const int32_t len = ...;` (the caller closes it).
void Emitter::open_chunks(int64_t n, int64_t k) {
  line(cat("for (int64_t c = 0; c < ", n, "; c += ", k, ") {"));
  indent_ += 2;
  line(cat("const int32_t len = static_cast<int32_t>(", n, " - c < ", k, " ? ", n, " - c : ", k,
           ");"));
}

// Chunks of an elementwise conversion through UB scratch: `per_elem` scratch bytes per element,
// chunks a multiple of 256 elements (whole repeats of every type, 32-byte aligned offsets).
int64_t Emitter::chunk_for(int64_t n, int64_t per_elem, int64_t reserved) {
  const int64_t room = std::max<int64_t>(ub_free_ - stage_bytes_ - reserved - 1024, 0);
  const int64_t fit = std::max<int64_t>(256, room / std::max<int64_t>(per_elem, 1) / 256 * 256);
  return std::min<int64_t>(fit, align_up(std::max<int64_t>(n, 1), 256));
}

// dst (bool, a byte per element) = a cmp b (b < 0: cmp the scalar s), by way of a bit mask:
// Compare (whole 256-byte repeats; half and float, int32_t with EQ; other types converted first),
// then Select of 1 or 0 into half and a Cast to uint8_t.
void Emitter::bool_bytes(int pc, int a, int b, CmpOp op, double s) {
  const Instr& in = p_.instrs[pc];
  const DType t = p_.buffers[a].dtype;
  const int64_t n = n_of(in.dst);
  if (n == 0) return;
  // The type Compare runs on, and whether the operands are converted into scratch first.
  DType ct = t;
  if (t == DType::kBF16 || t == DType::kI16) ct = DType::kF32;
  if (t == DType::kI8 || t == DType::kU8 || t == DType::kBool) ct = DType::kF16;
  bool invert = false;
  if (t == DType::kI32 || t == DType::kU32) {
    if (op != CmpOp::kEq && op != CmpOp::kNe)
      lack(pc, cat("Compare ", cmp_mode(op), " on ", ctype(t),
                   " (it compares 32-bit integers for equality only)"));
    ct = DType::kI32;
    invert = op == CmpOp::kNe;
    if (invert) op = CmpOp::kEq;
  }
  if (ct != DType::kF32 && ct != DType::kF16 && ct != DType::kI32)
    lack(pc, cat("Compare on ", ctype(t), " (it compares half, float and int32_t)"));
  const bool convert = ct != t && !(t == DType::kU32 && ct == DType::kI32);
  const int64_t ces = static_cast<int64_t>(dtype_size(ct));
  const int64_t per = 256 / ces;  // elements per Compare repeat
  const int64_t k = chunk_for(n, 1 + 2 + (convert ? 2 * ces : 0));
  const int64_t bits_at = 0, h_at = align_up(k / 8, 32), c0_at = h_at + align_up(2 * k, 32),
                c1_at = c0_at + align_up(ces * k, 32);
  need_scratch(convert ? c1_at + align_up(ces * k, 32) : c0_at);
  const std::string cty = ctype(ct);
  const std::string bits = cat("scratch[", bits_at, "]");
  const std::string h = cat("scratch[", h_at, "].ReinterpretCast<half>()");
  open_chunks(n, k);
  line(cat("const int32_t whole = (len + ", per - 1, ") / ", per, " * ", per, ";"));
  const auto operand = [&](int src, int64_t at) {
    const std::string x = cat(buf(src), "[c]");
    if (!convert) return ct == t ? x : cat(x, ".ReinterpretCast<", cty, ">()");
    const std::string y = cat("scratch[", at, "].ReinterpretCast<", cty, ">()");
    line(cat("AscendC::Cast(", y, ", ", x, ", AscendC::RoundMode::CAST_NONE, len);"));
    return y;
  };
  const std::string x = operand(a, c0_at);
  if (b >= 0) {
    const std::string y = operand(b, c1_at);
    line(cat("AscendC::Compare(", bits, ", ", x, ", ", y, ", AscendC::CMPMODE::", cmp_mode(op),
             ", whole);"));
  } else {
    line(cat("AscendC::CompareScalar(", bits, ", ", x, ", ", literal(ct, s),
             ", AscendC::CMPMODE::", cmp_mode(op), ", whole);"));
  }
  line(cat("AscendC::Duplicate(", h, ", ", literal(DType::kF16, invert ? 0 : 1), ", len);"));
  line(cat("AscendC::Select(", h, ", ", bits, ", ", h, ", ", literal(DType::kF16, invert ? 1 : 0),
           ", AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, len);"));
  line(cat("AscendC::Cast(", buf(in.dst), "[c], ", h, ", AscendC::RoundMode::CAST_NONE, len);"));
  indent_ -= 2;
  line("}");
}

// dst = cond ? a : b, cond a byte per element: its bit mask by a Cast to half and CompareScalar,
// then Select (half and float; 16- and 32-bit integers move as half and float).
void Emitter::select(int pc) {
  const Instr& in = p_.instrs[pc];
  const DType t = p_.buffers[in.dst].dtype;
  const int64_t n = n_of(in.dst);
  if (n == 0) return;
  const int64_t es = static_cast<int64_t>(dtype_size(t));
  if (es != 2 && es != 4) lack(pc, cat("Select on ", ctype(t), " (it selects half and float)"));
  const std::string st = es == 2 ? "half" : "float";
  const auto as = [&](const std::string& x) {
    return ctype(t) == st ? x : cat(x, ".ReinterpretCast<", st, ">()");
  };
  const int64_t k = chunk_for(n, 1 + 2);
  const int64_t bits_at = 0, h_at = align_up(k / 8, 32);
  need_scratch(h_at + align_up(2 * k, 32));
  const std::string bits = cat("scratch[", bits_at, "]");
  const std::string h = cat("scratch[", h_at, "].ReinterpretCast<half>()");
  open_chunks(n, k);
  line(cat("AscendC::Cast(", h, ", ", buf(in.src[0]), "[c], AscendC::RoundMode::CAST_NONE, len);"));
  line(cat("AscendC::CompareScalar(", bits, ", ", h, ", ", literal(DType::kF16, 0),
           ", AscendC::CMPMODE::NE, (len + 127) / 128 * 128);"));
  line(cat("AscendC::Select(", as(cat(buf(in.dst), "[c]")), ", ", bits, ", ",
           as(cat(buf(in.src[1]), "[c]")), ", ", as(cat(buf(in.src[2]), "[c]")),
           ", AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, len);"));
  indent_ -= 2;
  line("}");
}

}  // namespace asc::ascend::detail

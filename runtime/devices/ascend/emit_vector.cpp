// Vector instructions and the UB copies of L0C operands (docs/ASCENDC.md, InstrKind table).
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend::detail {

namespace {

// The element types of the A2 vector calls the emitter makes (Ascend C API reference, Atlas A2).
struct UnitTypes {
  const char* call;
  std::initializer_list<DType> types;
};
constexpr DType kH = DType::kF16, kF = DType::kF32, kS16 = DType::kI16, kS32 = DType::kI32;
const UnitTypes kUnits[] = {
    {"Add", {kH, kF, kS16, kS32}},
    {"Sub", {kH, kF, kS16, kS32}},
    {"Mul", {kH, kF, kS16, kS32}},
    {"Max", {kH, kF, kS16, kS32}},
    {"Min", {kH, kF, kS16, kS32}},
    {"Adds", {kH, kF, kS16, kS32}},
    {"Muls", {kH, kF, kS16, kS32}},
    {"Maxs", {kH, kF, kS16, kS32}},
    {"Mins", {kH, kF, kS16, kS32}},
    {"Relu", {kH, kF, kS32}},
    {"Power", {kH, kF, kS32}},
    {"And", {kS16, DType::kU16}},
    {"Or", {kS16, DType::kU16}},
    {"Xor", {kS16, DType::kU16}},
    {"Duplicate", {kH, DType::kBF16, kS16, DType::kU16, kF, kS32, DType::kU32}},
};

}  // namespace

// Calls not in kUnits (Div, Exp, Ln, the advanced APIs, the Reduce APIs, ...) take half and float.
void Emitter::unit(int pc, const char* call, DType t) const {
  std::initializer_list<DType> types = {kH, kF};
  for (const UnitTypes& u : kUnits)
    if (std::string_view(u.call) == call) types = u.types;
  for (DType x : types)
    if (x == t) return;
  std::string has;
  for (DType x : types) has += cat(has.empty() ? "" : ", ", ctype(x));
  lack(pc, cat(call, " on ", ctype(t), " (it has ", has, ")"));
}

// NaN in, NaN out, as ONNX and the cpu device have it: where a source (intact, n elements) is
// NaN, result r takes it. The A2's Max/Min and half Floor/Ceil/Round/Sign are not documented to
// keep NaN (the emulator's give the other operand and 0), so the result is mended whatever they
// do: per chunk, Compare(x == x) (false on NaN only, whole 256-byte repeats) and Select(r, x).
// Scratch from byte `at` holds the chunk's bit mask. An L0C operand's chunks are left as they are.
void Emitter::keep_nan(const std::string& r, std::initializer_list<std::string> srcs, DType t,
                       int64_t n, int64_t at) {
  if ((t != DType::kF16 && t != DType::kF32) || n == 0 || chunked_) return;
  const int64_t k = chunk_for(n, 1, at), per = 256 / static_cast<int64_t>(dtype_size(t));
  need_scratch(at + align_up(k / 8, 32));
  const std::string bits = cat("scratch[", at, "]");
  line("// NaN in, NaN out");
  open_chunks(n, k);
  line(cat("const int32_t whole = (len + ", per - 1, ") / ", per, " * ", per, ";"));
  for (const std::string& x : srcs) {
    line(cat("AscendC::Compare(", bits, ", ", x, "[c], ", x, "[c], AscendC::CMPMODE::EQ, whole);"));
    line(cat("AscendC::Select(", r, "[c], ", bits, ", ", r, "[c], ", x,
             "[c], AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, len);"));
  }
  indent_ -= 2;
  line("}");
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
  const DType t = p_.buffers[p_.instrs[pc].dst].dtype;
  const int64_t es = static_cast<int64_t>(dtype_size(t));
  const bool bitwise = op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor;
  if (bitwise && t != DType::kI16 && t != DType::kU16) {
    // The A2's And/Or/Xor take 16-bit integers; bits are bits: the operands as int16_t (1-byte
    // types in pairs, the odd last byte landing in the rounding of the 32-byte allocation).
    const std::string count = es == 1 ? cat("(", n, " + 1) / 2") : cat("(", n, ") * ", es / 2);
    const auto v = [](const std::string& x) { return cat(x, ".ReinterpretCast<int16_t>()"); };
    line(cat("AscendC::", f, "(", v(d), ", ", v(a), ", ", v(b), ", ", count, ");"));
    return;
  }
  unit(pc, f, t);
  line(cat("AscendC::", f, "(", d, ", ", a, ", ", b, ", ", n, ");"));
}

void Emitter::unary(int pc) {
  const Instr& in = p_.instrs[pc];
  const DType dt = p_.buffers[in.dst].dtype;
  const std::string d = buf(in.dst), s = buf(in.src[0]), n = cnt(in.dst);
  const auto call = [&](const char* f) {
    unit(pc, f, dt);
    line(cat("AscendC::", f, "(", d, ", ", s, ", ", n, ");"));
  };
  // The advanced APIs refuse a result in their source's place: into scratch, then copied back.
  // nan: NaN in, NaN out (keep_nan), which needs the source intact after the call.
  const auto advanced = [&](const char* f, const std::string& extra = "", bool nan = false) {
    unit(pc, f, dt);
    const int64_t bytes = p_.buffers[in.dst].bytes();
    if (!aliases(in.dst, in.src[0])) {
      line(cat("AscendC::", f, "(", d, ", ", s, extra, ", ", n, ");"));
      if (nan) keep_nan(d, {s}, dt, n_of(in.dst), 0);
      return;
    }
    need_scratch(bytes);
    const std::string t = cat("scratch.ReinterpretCast<", ty(in.dst), ">()");
    line(cat("AscendC::", f, "(", t, ", ", s, extra, ", ", n, ");"));
    if (nan) keep_nan(t, {s}, dt, n_of(in.dst), align_up(bytes, 32));
    copy_ub(d, t, dt, n);
  };
  switch (static_cast<UnaryOp>(in.op)) {
    case UnaryOp::kCopy:
      copy_ub(d, s, dt, n);
      return;
    case UnaryOp::kNeg:
      unit(pc, "Muls", dt);
      line(cat("AscendC::Muls(", d, ", ", s, ", ", literal(dt, -1), ", ", n, ");"));
      if (!dtype_is_float(dt) && dt != DType::kI8 && dt != DType::kI16 && dt != DType::kI32 &&
          dt != DType::kI64)
        fail(pc, "Neg of an unsigned type");
      return;
    case UnaryOp::kAbs:
      if (dt == DType::kI16 || dt == DType::kI32) {  // no integer Abs on the A2: max(x, -x)
        need_scratch(p_.buffers[in.dst].bytes());
        const std::string t = cat("scratch.ReinterpretCast<", ty(in.dst), ">()");
        line(cat("AscendC::Muls(", t, ", ", s, ", ", literal(dt, -1), ", ", n, ");"));
        line(cat("AscendC::Max(", d, ", ", s, ", ", t, ", ", n, ");"));
        return;
      }
      return call("Abs");
    case UnaryOp::kRelu:
      return call("Relu");
    case UnaryOp::kSigmoid:
      return advanced("Sigmoid");
    case UnaryOp::kTanh:
      return advanced("Tanh");
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
      return advanced("Erf");
    case UnaryOp::kSin:
      return advanced("Sin");
    case UnaryOp::kCos:
      return advanced("Cos");
    case UnaryOp::kFloor:
      return advanced("Floor", "", true);
    case UnaryOp::kCeil:
      return advanced("Ceil", "", true);
    case UnaryOp::kRound:
      return advanced("Round", "", true);
    case UnaryOp::kSign:
      return advanced("Sign", "", true);
    case UnaryOp::kSilu:
      return advanced("Silu");
    case UnaryOp::kSquare:
      unit(pc, "Mul", dt);
      line(cat("AscendC::Mul(", d, ", ", s, ", ", s, ", ", n, ");"));
      return;
    case UnaryOp::kLeakyRelu:
      unit(pc, "LeakyRelu", dt);
      line(cat("AscendC::LeakyRelu(", d, ", ", s, ", ", literal(dt, in.alpha), ", ", n, ");"));
      return;
    case UnaryOp::kClip: {
      const bool f = dtype_is_float(dt);
      unit(pc, "Maxs", dt);
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
      unit(pc, "Muls", dt);
      line(cat("AscendC::Muls(", d, ", ", s, ", ", literal(dt, in.alpha), ", ", n, ");"));
      line(cat("AscendC::Adds(", d, ", ", d, ", ", literal(dt, in.beta), ", ", n, ");"));
      return;
    case UnaryOp::kPowScalar:
      advanced("Power", cat(", ", literal(dt, in.alpha)));
      return;
    case UnaryOp::kNot:
      if (chunked_) fail(pc, "Not of an L0C operand");
      bool_bytes(pc, in.src[0], -1, CmpOp::kEq, 0.0);
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
    unit(pc, fast, dt);
    line(cat("AscendC::", fast, "(", d, ", ", s, ", ", lit, ", ", n, ");"));
    return;
  }
  // s op x or x op s through a duplicated scalar: in dst, or, when dst is x's place, in one
  // chunk's scratch that every chunk reuses.
  std::string t = d;
  if (aliases(in.dst, in.src[0]) && !chunked_) {
    const int64_t es = static_cast<int64_t>(dtype_size(dt)), all = n_of(in.dst);
    const int64_t k = std::min(all, chunk_for(all, es));
    need_scratch(k * es);
    t = cat("scratch.ReinterpretCast<", ty(in.dst), ">()");
    duplicate(t, dt, lit, cat(k), pc);
    open_chunks(all, k);
    if (in.scalar_left)
      binary_call(op, cat(d, "[c]"), t, cat(s, "[c]"), "len", pc);
    else
      binary_call(op, cat(d, "[c]"), cat(s, "[c]"), t, "len", pc);
    indent_ -= 2;
    line("}");
    return;
  }
  if (aliases(in.dst, in.src[0])) {
    need_scratch(p_.buffers[in.dst].bytes());
    t = cat("scratch.ReinterpretCast<", ty(in.dst), ">()");
  }
  duplicate(t, dt, lit, n, pc);
  if (in.scalar_left)
    binary_call(op, d, t, s, n, pc);
  else
    binary_call(op, d, s, t, n, pc);
}

// dst[o, r, i] = a[o, r, i] op b[o, i]: a row op of the scalar b[o] when i = 1 (rows of r),
// else one call per row of i.
void Emitter::bcast_mid(int pc) {
  const Instr& in = p_.instrs[pc];
  const Shape& sd = p_.buffers[in.src[0]].dims;
  const int64_t o = outer_of(sd, in.axis), r = sd[static_cast<size_t>(in.axis)],
                i = inner_of(sd, in.axis);
  const auto op = static_cast<BinaryOp>(in.op);
  const std::string d = buf(in.dst), a = buf(in.src[0]), b = buf(in.src[1]);
  if (o * r * i == 0) return;
  const std::string outer = o_bound_.empty() ? cat(o) : o_bound_;
  const BufferDecl& dd = p_.buffers[in.dst];
  if (r == 1 && o_bound_.empty() && same_offsets(in.dst, in.src[1]) &&
      same_offsets(in.dst, in.src[0])) {
    binary_call(op, d, a, b, cnt(in.dst), pc);  // the same elements, the same layout
    return;
  }
  if (i == 1) {  // rows of r elements, each with the scalar b[o]
    // A row of r over several padded local rows (a depthwise conv's positions): the calls run
    // over the whole padded rows, as elementwise calls do (n_of), when both lay them out alike.
    const BufferDecl& da = p_.buffers[in.src[0]];
    const bool padded_run =
        dd.pitch > 0 && r > dd.row && r % dd.row == 0 && da.pitch == dd.pitch && da.row == dd.row;
    const int64_t run = padded_run ? r / dd.row * dd.pitch : r;
    const int64_t sdst = lstride(in.dst, padded_run ? r : lrun(in.dst, r, pc), pc),
                  sa = lstride(in.src[0], r, pc);
    const DType dt = dd.dtype;
    const std::string t = ty(in.dst);
    const bool fl = dtype_is_float(dt);
    const char* fast = op == BinaryOp::kAdd         ? "Adds"
                       : op == BinaryOp::kSub && fl ? "Adds"
                       : op == BinaryOp::kMul       ? "Muls"
                       : op == BinaryOp::kMax       ? "Maxs"
                       : op == BinaryOp::kMin       ? "Mins"
                                                    : nullptr;
    line(cat("for (int64_t o = 0; o < ", outer, "; ++o) {"));
    indent_ += 2;
    line(cat("const ", t, " s = ", b, ".GetValue(", lidx(in.src[1], "o"), ");"));
    if (fast) {
      unit(pc, fast, dt);
      line(cat("AscendC::", fast, "(", d, "[o * ", sdst, "], ", a, "[o * ", sa, "], ",
               op == BinaryOp::kSub ? cat("static_cast<", t, ">(-s)") : std::string("s"), ", ", run,
               ");"));
    } else if (!chunked_) {  // the scalar spread over one chunk of scratch, for each chunk
      const int64_t es = static_cast<int64_t>(dtype_size(dt)),
                    k = std::min(run, chunk_for(run, es));
      need_scratch(k * es);
      const std::string row = cat("scratch.ReinterpretCast<", t, ">()");
      duplicate(row, dt, "s", cat(k), pc);
      open_chunks(run, k);
      binary_call(op, cat(d, "[o * ", sdst, " + c]"), cat(a, "[o * ", sa, " + c]"), row, "len", pc);
      indent_ -= 2;
      line("}");
    } else {  // the scalar spread over a row of scratch
      need_scratch(run * static_cast<int64_t>(dtype_size(dt)));
      const std::string row = cat("scratch.ReinterpretCast<", t, ">()");
      duplicate(row, dt, "s", cat(run), pc);
      binary_call(op, cat(d, "[o * ", sdst, "]"), cat(a, "[o * ", sa, "]"), row, cat(run), pc);
    }
    indent_ -= 2;
    line("}");
    return;
  }
  const int64_t sdst = lstride(in.dst, i, pc), sa = lstride(in.src[0], i, pc),
                sb = lstride(in.src[1], i, pc);
  if (sdst != sa || sdst != sb) fail(pc, "operand rows laid out differently");
  line(cat("for (int64_t o = 0; o < ", outer, "; ++o) {"));
  line(cat("  for (int64_t r = 0; r < ", r, "; ++r)"));
  indent_ += 4;
  binary_call(op, cat(d, "[(o * ", r, " + r) * ", sdst, "]"),
              cat(a, "[(o * ", r, " + r) * ", sa, "]"), cat(b, "[o * ", sb, "]"), cat(sdst), pc);
  indent_ -= 4;
  line("}");
}

// dst[o, i] = reduce_r src[o, r, i]: per row of r with the Reduce APIs when i = 1, else a
// row-wise accumulation of rows of i.
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
  const std::string outer = o_bound_.empty() ? cat(o) : o_bound_;
  if (o * i == 0) return;
  if (r == 0) {
    const double id = op == ReduceOp::kProd  ? 1.0
                      : op == ReduceOp::kMax ? -std::numeric_limits<double>::infinity()
                      : op == ReduceOp::kMin ? std::numeric_limits<double>::infinity()
                                             : 0.0;
    duplicate(final_d, dt, literal(dt, id), cat(n_of(in.dst)), pc);
    return;
  }
  // Over one element: a copy, when both hold their elements at the same local offsets.
  if (r == 1 && o_bound_.empty() && !chunked_ && same_offsets(in.dst, in.src[0])) {
    copy_ub(final_d, s, dt, cat(n_of(in.dst)));
    return;
  }
  // The A2's Reduce APIs take half and float; a product or a reduction over rows of i > 1 runs
  // through Mul / Add / Max / Min.
  unit(pc, i > 1 || op == ReduceOp::kProd ? "Mul" : "ReduceSum", dt);
  // In place is safe when dst starts where src does: row o of dst lies within rows <= o of
  // src, which are read before it is written. Other overlaps reduce into scratch, then copy.
  const bool redirect = aliases(in.dst, in.src[0]) && r != 1 &&
                        (queued_[in.dst] || region_off_[in.dst] != region_off_[in.src[0]]);
  const int64_t dst_room = redirect ? align_up(p_.buffers[in.dst].bytes(), 32) : 0;
  const std::string d = redirect ? cat("scratch.ReinterpretCast<", t, ">()") : final_d;
  need_scratch(dst_room);
  const auto copy_back = [&] {
    if (redirect) copy_ub(final_d, d, dt, cat(n_of(in.dst)));
  };
  const BufferDecl &dd = p_.buffers[in.dst], &sdd = p_.buffers[in.src[0]];
  if (r == 1 && o_bound_.empty() && dd.pitch == sdd.pitch && dd.row == sdd.row) {
    if (op == ReduceOp::kSumSquares)  // the same elements, the same layout
      line(cat("AscendC::Mul(", d, ", ", s, ", ", s, ", ", n_of(in.dst), ");"));
    else
      copy_ub(d, s, dt, cat(n_of(in.dst)));
    copy_back();
    return;
  }
  // ReduceMax/ReduceMin's work tensor: a (value, index) pair per 256-byte repeat, 32-byte aligned.
  const int64_t work = align_up(2 * std::max<int64_t>(1, (r * es + 255) / 256) * es, 32);
  if (i == 1 && op == ReduceOp::kProd) {
    // No product reduction on the A2: per row, the row in scratch padded with ones to a power of
    // two P, halved by Mul down to one 32-byte block, whose elements the scalar unit multiplies.
    // A row longer than the UB left holds folds into P first (Mul of each further P elements).
    const int64_t ss = lstride(in.src[0], lrun(in.src[0], r, pc), pc), blk = 32 / es;
    int64_t pw = blk, cap = blk;
    while (pw < r) pw *= 2;
    while (cap * 2 * es <= ub_free_ - stage_bytes_ - dst_room - 64) cap *= 2;
    pw = std::min(pw, cap);
    need_scratch(dst_room + pw * es);
    const std::string t = cat("scratch[", dst_room, "].ReinterpretCast<", ty(in.dst), ">()");
    line(cat("for (int64_t o = 0; o < ", outer, "; ++o) {"));
    indent_ += 2;
    duplicate(t, dt, literal(dt, 1), cat(pw), pc);
    copy_ub(t, cat(s, "[o * ", ss, "]"), dt, cat(std::min(r, pw)));
    if (r > pw)
      line(cat("for (int64_t j = ", pw, "; j < ", r, "; j += ", pw, ") AscendC::Mul(", t, ", ", t,
               ", ", s, "[o * ", ss, " + j], static_cast<int32_t>(", r, " - j < ", pw, " ? ", r,
               " - j : ", pw, "));"));
    line(cat("for (int32_t h = ", pw / 2, "; h >= ", blk, "; h /= 2) AscendC::Mul(", t, ", ", t,
             ", ", t, "[h], h);"));
    line(cat(ty(in.dst), " acc = ", t, ".GetValue(0);"));
    line(cat("for (int32_t j = 1; j < ", blk, "; ++j) acc = acc * ", t, ".GetValue(j);"));
    line(cat(d, ".SetValue(", lidx(in.dst, "o"), ", acc);"));
    indent_ -= 2;
    line("}");
    copy_back();
    return;
  }
  if (i == 1 && op != ReduceOp::kProd) {
    const int64_t ss = lstride(in.src[0], lrun(in.src[0], r, pc), pc);
    const std::string at = lidx(in.dst, "o");
    if (op == ReduceOp::kSumSquares) {
      // Squares in chunks that fit the UB left: per chunk Mul, ReduceSum, Add to the row's sum.
      const int64_t room = ub_free_ - stage_bytes_ - dst_room - work - 64;
      const int64_t chunk = std::clamp<int64_t>(room / es / 8 * 8, 8, align_up(r, 8));
      const int64_t tmp = dst_room + work, part = tmp + align_up(chunk * es, 32);
      need_scratch(part + 32);
      const std::string tt = cat("scratch[", tmp, "].ReinterpretCast<", t, ">()");
      const std::string pt = cat("scratch[", part, "].ReinterpretCast<", t, ">()");
      line(cat("for (int64_t o = 0; o < ", outer, "; ++o) {"));
      line(cat("  ", t, " acc = ", literal(dt, 0), ";"));
      line(cat("  for (int64_t c = 0; c < ", r, "; c += ", chunk, ") {"));
      line(cat("    const int32_t len = static_cast<int32_t>(", r, " - c < ", chunk, " ? ", r,
               " - c : ", chunk, ");"));
      line(cat("    AscendC::Mul(", tt, ", ", s, "[o * ", ss, " + c], ", s, "[o * ", ss,
               " + c], len);"));
      line(cat("    AscendC::ReduceSum(", pt, ", ", tt, ", scratch[", dst_room,
               "].ReinterpretCast<", t, ">(), len);"));
      line(cat("    acc = acc + ", pt, ".GetValue(0);"));
      line("  }");
      line(cat("  ", d, ".SetValue(", at, ", acc);"));
      line("}");
      copy_back();
      return;
    }
    need_scratch(dst_room + work);
    const char* f = op == ReduceOp::kMax   ? "ReduceMax"
                    : op == ReduceOp::kMin ? "ReduceMin"
                                           : "ReduceSum";
    line(cat("for (int64_t o = 0; o < ", outer, "; ++o)"));
    line(cat("  AscendC::", f, "(", d, "[", at, "], ", s, "[o * ", ss, "], scratch[", dst_room,
             "].ReinterpretCast<", t, ">(), ", r, ");"));
    copy_back();
    return;
  }
  // Rows of i (all of a row's padding too) accumulated over r.
  const int64_t si = lstride(in.src[0], i, pc), di = lstride(in.dst, i, pc);
  if (si != di) fail(pc, "operand rows laid out differently");
  line(cat("for (int64_t o = 0; o < ", outer, "; ++o) {"));
  indent_ += 2;
  const std::string row0 = cat(s, "[o * ", r * si, "]"), dr = cat(d, "[o * ", di, "]");
  if (op == ReduceOp::kSumSquares)
    line(cat("AscendC::Mul(", dr, ", ", row0, ", ", row0, ", ", si, ");"));
  else
    line(cat("AscendC::Muls(", dr, ", ", row0, ", ", literal(dt, 1), ", ", si, ");"));
  line(cat("for (int64_t r = 1; r < ", r, "; ++r) {"));
  const std::string row = cat(s, "[(o * ", r, " + r) * ", si, "]");
  switch (op) {
    case ReduceOp::kSum:
      line(cat("  AscendC::Add(", dr, ", ", dr, ", ", row, ", ", si, ");"));
      break;
    case ReduceOp::kMax:
      line(cat("  AscendC::Max(", dr, ", ", dr, ", ", row, ", ", si, ");"));
      break;
    case ReduceOp::kMin:
      line(cat("  AscendC::Min(", dr, ", ", dr, ", ", row, ", ", si, ");"));
      break;
    case ReduceOp::kProd:
      line(cat("  AscendC::Mul(", dr, ", ", dr, ", ", row, ", ", si, ");"));
      break;
    case ReduceOp::kSumSquares:
      line(cat("  AscendC::MulAddDst(", dr, ", ", row, ", ", row, ", ", si, ");"));
      break;
  }
  line("}");
  indent_ -= 2;
  line("}");
  copy_back();
}

// A vector instruction reading an L0C buffer reads its UB copy: in a mixed kernel the AIC has
// Fixpiped it to this AI Core's GM workspace (emit_instr), and the AIV copies it in here.
void Emitter::ws_copy(int src, const std::string& dst, const std::string& off,
                      const std::string& count) {
  if (side_ != Side::kAiv || ws_off_[src] < 0)
    throw Error(cat(p_.op, ": Ascend C emission: an L0C operand outside a mixed kernel"));
  sync("V_MTE2");  // the previous reader of the stage is done
  // Whole 32-byte blocks: a short last block reads on into the slot (slots are 1 KiB aligned)
  // and lands in the stage's rounding.
  line(cat("AscendC::DataCopy(", dst, ", gw[", ws_off_[src], " + ", off,
           "], static_cast<uint32_t>((", count, " + 7) / 8 * 8));"));
  sync("MTE2_V");
}

void Emitter::stage_l0c(int pc) {
  const Instr& in = p_.instrs[pc];
  const bool vector = in.kind != InstrKind::kCopyIn && in.kind != InstrKind::kCopyOut &&
                      in.kind != InstrKind::kLoadL0 && in.kind != InstrKind::kLoadIm2col &&
                      in.kind != InstrKind::kMmad && in.kind != InstrKind::kLoopBegin &&
                      in.kind != InstrKind::kLoopEnd;
  if (!vector) return;  // a load keeps its operand's L1 stage (ub_to_l1)
  staged_.clear();
  if (in.dst >= 0 && p_.buffers[in.dst].pos == Pos::kL0C) fail(pc, "vector result in L0C");
  int64_t off = 0;
  for (int src : in.src) {
    if (src < 0 || p_.buffers[src].pos != Pos::kL0C) continue;
    bool seen = false;
    for (const auto& st : staged_) seen = seen || st.first == src;
    if (seen) continue;
    const std::string name = cat("stage[", off, "].ReinterpretCast<", ty(src), ">()");
    if (chunked_) {  // the chunk [c, c + len) of each L0C operand
      ws_copy(src, name, "c", "len");
      off += align_up(chunk_elems_ * 4, 32);
    } else {
      ws_copy(src, name, "0", cat(n_of(src)));  // in the class's rows (pad_rows)
      off += align_up(n_of(src) * 4, 32);
    }
    staged_.emplace_back(src, name);
  }
  stage_bytes_ = std::max(stage_bytes_, off);
}

}  // namespace asc::ascend::detail

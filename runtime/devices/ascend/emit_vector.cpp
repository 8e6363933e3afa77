// Vector instructions and the UB copies of L0C operands (docs/ASCENDC.md, InstrKind table).
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend::detail {

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
  // The advanced APIs refuse a result in their source's place: into scratch, then copied back.
  const auto advanced = [&](const char* f, const std::string& extra = "") {
    if (!aliases(in.dst, in.src[0])) {
      line(cat("AscendC::", f, "(", d, ", ", s, extra, ", ", n, ");"));
      return;
    }
    need_scratch(p_.buffers[in.dst].bytes());
    const std::string t = cat("scratch.ReinterpretCast<", ty(in.dst), ">()");
    line(cat("AscendC::", f, "(", t, ", ", s, extra, ", ", n, ");"));
    line(cat("AscendC::Muls(", d, ", ", t, ", ", literal(dt, 1), ", ", n, ");"));
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
      return advanced("Floor");
    case UnaryOp::kCeil:
      return advanced("Ceil");
    case UnaryOp::kRound:
      return call("Round");
    case UnaryOp::kSign:
      return advanced("Sign");
    case UnaryOp::kSilu:
      return advanced("Silu");
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
      advanced("Power", cat(", ", literal(dt, in.alpha)));
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
  // ReduceMax/ReduceMin's work tensor: a (value, index) pair per 256-byte repeat, 32-byte aligned.
  const int64_t work = align_up(2 * std::max<int64_t>(1, (r * es + 255) / 256) * es, 32);
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
  // A widening float cast is exact and the A2 takes only CAST_NONE for it; a narrowing one
  // rounds to nearest even, float -> int truncates, int -> int does not round.
  const bool widening = (from == DType::kF16 || from == DType::kBF16) && to == DType::kF32;
  const char* mode = widening               ? "CAST_NONE"
                     : dtype_is_float(to)   ? "CAST_RINT"
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

}  // namespace asc::ascend::detail

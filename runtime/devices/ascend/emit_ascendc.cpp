#include <algorithm>
#include <cctype>

#include "runtime/devices/ascend/emit_ascendc.h"
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend {
namespace detail {
namespace {

// The integer cube (docs/DSL.md): the 910B's cube multiplies s8 x s8 -> s32, so u8 operands and
// zero points need correction terms (sum(ab) - zb rowsum(a) - za colsum(b) + K za zb) and
// Load3D's pad value; not emitted yet.
constexpr const char* kIntegerCube =
    "the integer cube (i8/u8 mmad with zero points: s8 x s8 -> s32 plus zero-point correction "
    "terms on the 910B) is not emitted yet";

bool integer_cube(const TileProgram& p, const Instr& in) {
  const DType d = p.buffers[static_cast<size_t>(in.src[0])].dtype;
  return d == DType::kI8 || d == DType::kU8;
}

// Elements from an argument's first to its last (a strided view, e.g. a KV cache's present
// rows, spans its gaps too).
int64_t span_elems(const TensorDesc& d) {
  const int64_t n = numel(d.shape);
  if (d.strides.empty() || n == 0) return n;
  int64_t last = 0;
  for (size_t j = 0; j < d.shape.size(); ++j) last += (d.shape[j] - 1) * d.strides[j];
  return last + 1;
}

}  // namespace

// Buffers with 2 slots get a TQue each; the others share one TBuf per position at their placed
// offsets with the queued ranges removed (slotted buffers are live for the whole program, so no
// other buffer overlaps them).
void Emitter::layout() {
  const int nb = static_cast<int>(p_.buffers.size());
  queued_.assign(nb, false);
  b_side_.assign(nb, false);
  im2col_src_.assign(nb, false);
  trans_l1_.assign(nb, false);
  region_off_.assign(nb, 0);
  for (int b = 0; b < nb; ++b) {
    const BufferDecl& d = p_.buffers[b];
    queued_[b] = d.copy_in && d.slots == 2 && (d.pos == Pos::kUB || d.pos == Pos::kL1);
  }
  // A TPipe holds at most 64 buffers (a TQue's two, a TBuf's one): past kMaxQueues, the last UB
  // copy-ins lose their queue and take one slot of their placed space, the copy ordered after
  // the slot's earlier readers by V_MTE2 and MTE3_MTE2 (copy_in).
  unqueued_.assign(nb, false);
  int queues = static_cast<int>(std::count(queued_.begin(), queued_.end(), true));
  for (int b = nb - 1; b >= 0 && queues > kMaxQueues; --b)
    if (queued_[b] && p_.buffers[b].pos == Pos::kUB) {
      queued_[b] = false;
      unqueued_[b] = true;
      --queues;
    }
  for (const Instr& in : p_.instrs) {
    if ((in.kind == InstrKind::kLoadL0 || in.kind == InstrKind::kLoadIm2col) &&
        p_.buffers[in.dst].pos == Pos::kL0B)
      b_side_[in.src[0]] = true;
    if (in.kind == InstrKind::kLoadIm2col) im2col_src_[in.src[0]] = true;
  }
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

void Emitter::emit_instr_body(int pc) {
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
    open_chunks(n, chunk_elems_);
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
    for (int b : {in.dst, in.src[0], in.src[1]})
      if (b >= 0 && p_.buffers[b].pitch > 0) fail(pc, "an L0C operand beside padded rows");
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
        ws_copy(src, name, cat("c * ", per_row), cat("rows * ", per_row));
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
        duplicate(buf(in.dst), p_.buffers[in.dst].dtype,
                  literal(p_.buffers[in.dst].dtype, in.scalar), cat(n_of(in.dst)), pc);
      break;
    case InstrKind::kGather:
      gather(pc);
      break;
    case InstrKind::kLoadL0:
      load_l0(pc);
      break;
    case InstrKind::kLoadIm2col:
      if (integer_cube(p_, in)) fail(pc, kIntegerCube);
      load_im2col(pc);
      break;
    case InstrKind::kMmad: {
      if (integer_cube(p_, in)) fail(pc, kIntegerCube);
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
      Shape a = last2(p_.buffers[in.src[0]].dims), b = last2(p_.buffers[in.src[1]].dims);
      if (a.empty() || b.empty() || a[1] != b[0]) fail(pc, "mmad operands not [m,k] x [k,n]");
      // Whole fractals: m, k and n with their zero padding (pad_fractals).
      const BufferDecl &da = p_.buffers[in.src[0]], &db = p_.buffers[in.src[1]];
      a = {da.padded_rows(), da.padded_cols()};
      b = {db.padded_rows(), db.padded_cols()};
      if (a[1] != b[0]) fail(pc, "mmad operands padded unlike each other");
      line("{");
      line("  AscendC::MmadParams mp;");
      line(cat("  mp.m = ", a[0], ";"));
      line(cat("  mp.n = ", b[1], ";"));
      line(cat("  mp.k = ", a[1], ";"));
      line(cat("  mp.cmatrixInitVal = ",
               in.in_place  ? "false"
               : in.var < 0 ? "true"
                            : cat("v[", in.var, "] == 0"),
               ";"));
      // Accumulating into L0C: the A2 orders an Mmad after the previous ones by itself only
      // from 10 result fractals on.
      if (in.in_place || in.var >= 0) line("  AscendC::PipeBarrier<PIPE_M>();");
      line(cat("  AscendC::Mmad(", buf(in.dst), ", ", buf(in.src[0]), ", ", buf(in.src[1]),
               ", mp);"));
      line("}");
      sync("M_MTE1");  // L0A/L0B are read before the next LoadData refills them
      break;
    }
  }
  staged_.clear();
  for (int b : frees_[static_cast<size_t>(pc)])  // a mixed kernel's cores free their own
    if (side_ == Side::kOne || (p_.buffers[b].pos == Pos::kUB) == (side_ == Side::kAiv))
      line(cat("q", b, ".FreeTensor(", buf(b), ");"));
}

// L1 (Nz, copy_in_l1) -> L0A as Zz: one LoadData per 16-row block, each a row of k / C0
// fractals; -> L0B as Zn: for 16-bit types one LoadData per 16 k rows with each fractal
// transposed, for float one LoadDataWithTranspose per 16 k rows (square pairs of 16 x 8
// fractals).
void Emitter::load_l0(int pc) {
  const Instr& in = p_.instrs[pc];
  const BufferDecl& dd = p_.buffers[in.dst];
  const BufferDecl& sd = p_.buffers[in.src[0]];
  if (integer_cube(p_, in)) fail(pc, kIntegerCube);
  if (dd.dtype != sd.dtype || dd.dims != sd.dims) fail(pc, "load_l0 changing the shape");
  if (in.axis > 0) fail(pc, "load_l0_panels (weights pre-packed for the cpu device)");
  bool staged = false;  // a UB result the AIC copied into its L1 stage (ub_to_l1)
  for (const auto& st : staged_) staged = staged || st.first == in.src[0];
  if (sd.pos != Pos::kL1 && !staged)
    fail(pc, "load_l0 from UB (the A2 loads L0A/L0B from L1 only)");
  const Shape& d = dd.dims;
  int64_t lead = 1;
  for (size_t j = 0; j + 2 < d.size(); ++j) lead *= d[j];
  // Whole fractals: the matrix with its padding (pad_fractals), zeros from the L1 copy.
  const int64_t rows = dd.padded_rows(), cols = dd.padded_cols();
  if (lead != 1 || rows % 16 != 0 || cols % 16 != 0)
    fail(pc, cat("load_l0 of ", to_string(d), " (not one matrix of whole 16 x 16 fractals)"));
  const int64_t c0 = 32 / static_cast<int64_t>(dtype_size(dd.dtype));
  const std::string dst = buf(in.dst), src = buf(in.src[0]);
  if (dd.pos == Pos::kL0A && trans_l1_[in.src[0]] && dd.dtype == DType::kF32) {
    // A float A^T as Nz per 16 k rows: square (kb, i) (16 k x 16 m, fractals 2i and 2i + 1 of
    // k block kb) transposed is L0A's fractals (i, 2kb) and (i, 2kb + 1), side by side.
    const int64_t m1 = rows / 16, kb = cols / 16;
    if (kb > 255) fail(pc, "an L0A row of more than 255 square fractal pairs");
    line(cat("for (int64_t i = 0; i < ", m1, "; ++i)"));
    line(cat("  AscendC::LoadDataWithTranspose(", dst, "[i * ", cols * 16, "], ", src, "[i * 256",
             "], AscendC::LoadData2dTransposeParams{0, ", kb, ", ", m1, ", 1, 0});"));
  } else if (dd.pos == Pos::kL0A && trans_l1_[in.src[0]]) {  // A^T's Nz: fractal (i, j) of A is
    // A^T's fractal (j, i), transposed; A^T's fractal column i holds the k rows of A's row block i
    const int64_t m1 = rows / 16, k1 = cols / 16;
    if (k1 > 255) fail(pc, "an L0A row of more than 255 fractals");
    line(cat("for (int64_t i = 0; i < ", m1, "; ++i)"));
    line(cat("  AscendC::LoadData(", dst, "[i * ", k1 * 256, "], ", src, "[i * ", cols * 16,
             "], AscendC::LoadData2DParams{0, ", k1, ", 1, 0, 0, true, 0});"));
  } else if (dd.pos == Pos::kL0A) {
    const int64_t m1 = rows / 16, k1 = cols / c0;
    if (k1 > 255) fail(pc, "an L0A row of more than 255 fractals");
    line(cat("for (int64_t i = 0; i < ", m1, "; ++i)"));
    line(cat("  AscendC::LoadData(", dst, "[i * ", k1 * 16 * c0, "], ", src, "[i * ", 16 * c0,
             "], AscendC::LoadData2DParams{0, ", k1, ", ", m1, ", 0, 0, false, 0});"));
  } else if (trans_l1_[in.src[0]]) {  // B^T's Nz fractals are L0B's: copied in order
    const int64_t fractals = rows / c0 * (cols / 16);
    line(cat("for (int64_t f = 0; f < ", fractals, "; f += 255)"));
    line(cat("  AscendC::LoadData(", dst, "[f * ", 16 * c0, "], ", src, "[f * ", 16 * c0,
             "], AscendC::LoadData2DParams{0, static_cast<uint8_t>(", fractals, " - f < 255 ? ",
             fractals, " - f : 255), 1, 0, 0, false, 0});"));
  } else {
    const int64_t k1 = rows / 16, n1 = cols / 16;
    if (n1 > 255) fail(pc, "an L0B row of more than 255 fractals");
    line(cat("for (int64_t i = 0; i < ", k1, "; ++i)"));
    if (dd.dtype == DType::kF32)
      line(cat("  AscendC::LoadDataWithTranspose(", dst, "[i * ", n1 * 256, "], ", src, "[i * ",
               n1 * 256, "], AscendC::LoadData2dTransposeParams{0, ", n1, ", 1, 0, ", n1 - 1,
               "});"));
    else
      line(cat("  AscendC::LoadData(", dst, "[i * ", n1 * 256, "], ", src,
               "[i * 256], "
               "AscendC::LoadData2DParams{0, ",
               n1, ", ", k1, ", 0, 0, true, 0});"));
  }
  sync("MTE1_M");
}

std::string Emitter::run() {
  const char* type = ascend::kernel_type(p_);
  layout();
  plan_frees();
  const int nb = static_cast<int>(p_.buffers.size());
  const int ni = static_cast<int>(p_.instrs.size());
  const bool mixed = std::string(type) == "KERNEL_TYPE_MIX_AIC_1_2";
  // The workspace slots: one per L0C buffer a vector instruction reads, per AI Core.
  const int64_t ws_elems = mixed ? workspace_slots(p_, &ws_off_) : 0;
  if (!mixed) ws_off_.assign(nb, -1);
  ub_operands_ = 0;
  for (int b = 0; b < nb; ++b) ub_operands_ += ws_off_[b] >= 0 && p_.buffers[b].pos == Pos::kUB;
  // The tile bodies first: they decide the scratch size.
  indent_ = 6;
  std::string aic_body, aiv_body;
  if (mixed) {
    side_ = Side::kAic;
    for (int pc = 0; pc < ni; ++pc) emit_instr(pc);
    aic_body = body_;
    body_.clear();
    side_ = Side::kAiv;
  }
  for (int pc = 0; pc < ni; ++pc) emit_instr(pc);
  const std::string tile_body = body_;
  body_.clear();
  side_ = Side::kOne;

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
  s += "__aicore__ inline int64_t AscClamp(int64_t v, int64_t hi) {\n  return v < 0 ? 0 : v > hi ? "
       "hi : v;\n}\n\n";
  s += "class Kernel {\n public:\n  __aicore__ inline void Init(";
  for (size_t a = 0; a < p_.args.size(); ++a) s += cat("GM_ADDR a", a, ", ");
  if (mixed) s += "GM_ADDR ws, ";
  s += cat("const ", name_, "TilingData& t) {\n    tiling_ = t;\n");
  for (size_t a = 0; a < p_.args.size(); ++a)
    s += cat("    g", a, ".SetGlobalBuffer(reinterpret_cast<__gm__ ", ctype(p_.args[a].dtype),
             "*>(a", a, "), ", span_elems(p_.args[a]), ");\n");
  // A mixed kernel's AI Core: an AIV's block index over the AIVs per AI Core. ASCEND_IS_AIV is
  // `constexpr(...)` in CANN's headers: only `if ASCEND_IS_AIV { ... }` takes it.
  const std::string core_idx = "core";
  const std::string core_decl =
      "    int64_t core = AscendC::GetBlockIdx();\n    if ASCEND_IS_AIV {\n      core = "
      "AscendC::GetBlockIdx() / AscendC::GetTaskRation();\n    }\n";
  if (mixed) s += core_decl;
  if (mixed) {
    s += cat("    gw.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(ws) + ", core_idx, " * ",
             ws_elems, ", ", ws_elems, ");\n");
    for (int b = 0; b < nb; ++b)  // the UB results the cube loads, in their own type
      if (ws_off_[b] >= 0 && p_.buffers[b].pos == Pos::kUB)
        s += cat("    gp", b, ".SetGlobalBuffer(reinterpret_cast<__gm__ ", ty(b),
                 "*>(reinterpret_cast<__gm__ float*>(ws) + ", core_idx, " * ", ws_elems, " + ",
                 ws_off_[b], "), ", p_.buffers[b].local_elems(), ");\n");
  }
  static const char* kRegion[6] = {"", "ub", "l1", "l0a", "l0b", "l0c"};
  // Each core type sets up its own memories.
  for (int side = 0; side < (mixed ? 2 : 1); ++side) {
    const bool vec_side = side == 1;
    const auto mine = [&](Pos pos) { return !mixed || (pos == Pos::kUB) == vec_side; };
    std::string t;
    for (int b = 0; b < nb; ++b)
      if (queued_[b] && mine(p_.buffers[b].pos))
        t += cat("    pipe_.InitBuffer(q", b, ", 2, ", align_up(p_.buffers[b].bytes(), 32), ");\n");
    for (int pos = 1; pos < 6; ++pos)
      if (region_bytes_[pos] > 0 && mine(static_cast<Pos>(pos)))
        t += cat("    pipe_.InitBuffer(", kRegion[pos], "_, ", region_bytes_[pos], ");\n");
    if (mine(Pos::kL1) && l1_stage_bytes_ > 0)
      t += cat("    pipe_.InitBuffer(l1stage_, ", l1_stage_bytes_, ");\n");
    if (mine(Pos::kUB)) {
      if (scratch_bytes_ > 0) t += cat("    pipe_.InitBuffer(scratch_, ", scratch_bytes_, ");\n");
      if (stage_bytes_ > 0) t += cat("    pipe_.InitBuffer(stage_, ", stage_bytes_, ");\n");
      if (move_bytes_ > 0) t += cat("    pipe_.InitBuffer(move_, ", move_bytes_, ");\n");
    }
    for (int pos = 1; pos < 6; ++pos)
      if (region_bytes_[pos] > 0 && mine(static_cast<Pos>(pos)))
        t += cat("    AscendC::LocalTensor<uint8_t> ", kRegion[pos], " = ", kRegion[pos],
                 "_.Get<uint8_t>();\n");
    for (int b = 0; b < nb; ++b)
      if (!queued_[b] && mine(p_.buffers[b].pos))
        t += cat("    ", buf(b), " = ", kRegion[static_cast<int>(p_.buffers[b].pos)], "[",
                 region_off_[b], "].ReinterpretCast<", ty(b), ">();\n");
    if (!mixed) {
      s += t;
    } else if (!t.empty()) {
      s += cat(vec_side ? "    if ASCEND_IS_AIV {\n" : "    if ASCEND_IS_AIC {\n");
      std::string indented;
      for (size_t i = 0, j; i < t.size(); i = j + 1) {
        j = t.find('\n', i);
        indented += "  " + t.substr(i, j - i + 1);
      }
      s += indented + "    }\n";
    }
  }
  s += "  }\n\n  __aicore__ inline void Process() {\n";
  const std::string core = mixed ? "core" : "AscendC::GetBlockIdx()";
  s += "    const int64_t tiles = tiling_.numTiles;\n";
  s += "    const int64_t cores = tiling_.blockDim < tiles ? tiling_.blockDim : tiles;\n";
  if (mixed) s += core_decl;
  s += cat("    if (tiles <= 0 || ", core, " >= cores) return;\n");
  s += "    const int64_t per = (tiles + cores - 1) / cores;\n";
  s += cat("    const int64_t begin = ", core, " * per;\n");
  s += "    const int64_t end = begin + per < tiles ? begin + per : tiles;\n";
  s += cat("    int64_t v[", std::max(1, p_.num_vars()), "] = {};\n");
  std::string decode = "      int64_t rem = tile;\n";
  for (int g = p_.grid_rank() - 1; g >= 0; --g)
    decode += cat("      v[", g, "] = rem % tiling_.grid[", g, "];\n      rem /= tiling_.grid[", g,
                  "];\n");
  decode += "      (void)rem;\n      (void)v;\n";
  std::string locals;
  if (scratch_bytes_ > 0)
    locals += "    AscendC::LocalTensor<uint8_t> scratch = scratch_.Get<uint8_t>();\n";
  if (stage_bytes_ > 0)
    locals += "    AscendC::LocalTensor<uint8_t> stage = stage_.Get<uint8_t>();\n";
  if (move_bytes_ > 0) locals += "    AscendC::LocalTensor<uint8_t> mv = move_.Get<uint8_t>();\n";
  if (!mixed) {
    s += locals;
    s += "    for (int64_t tile = begin; tile < end; ++tile) {\n" + decode + tile_body + "    }\n";
  } else {
    s += "    if ASCEND_IS_AIC {\n      int64_t ho = 0;  // hand-offs so far\n";
    if (l1_stage_bytes_ > 0)
      s += "      AscendC::LocalTensor<uint8_t> l1stage = l1stage_.Get<uint8_t>();\n";
    s += "      for (int64_t tile = begin; tile < end; ++tile) {\n" + decode + aic_body +
         "      }\n";
    s += "      if (ho > 0) AscendC::CrossCoreWaitFlag(1);\n      return;\n    }\n";
    s += locals;
    if (ub_operands_ > 0) s += "    int64_t hu = 0;  // operands handed to the cube so far\n";
    s += "    for (int64_t tile = begin; tile < end; ++tile) {\n" + decode;
    s += "      const bool mine = (tile - begin) % 2 == AscendC::GetSubBlockIdx();\n";
    s += "      (void)mine;\n" + tile_body + "    }\n";
    if (ub_operands_ > 0)  // the AIC's copies of the last operands, one flag each
      s += cat("    for (int64_t i = hu < ", ub_operands_, " ? hu : ", ub_operands_,
               "; i > 0; --i) AscendC::CrossCoreWaitFlag(3);\n");
  }
  s += "  }\n\n private:\n  AscendC::TPipe pipe_;\n";
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
  if (move_bytes_ > 0) s += "  AscendC::TBuf<AscendC::TPosition::VECOUT> move_;\n";
  for (size_t a = 0; a < p_.args.size(); ++a)
    s += cat("  AscendC::GlobalTensor<", ctype(p_.args[a].dtype), "> g", a, ";\n");
  if (mixed) s += "  AscendC::GlobalTensor<float> gw;  // this AI Core's workspace slots\n";
  for (int b = 0; b < nb; ++b)
    if (mixed && ws_off_[b] >= 0 && p_.buffers[b].pos == Pos::kUB)
      s += cat("  AscendC::GlobalTensor<", ty(b), "> gp", b, ";  // ", p_.buffers[b].name,
               " for the cube, in the workspace\n");
  if (l1_stage_bytes_ > 0) s += cat("  AscendC::TBuf<", tpos(Pos::kL1, false), "> l1stage_;\n");
  for (int b = 0; b < nb; ++b) {
    const BufferDecl& d = p_.buffers[b];
    s += cat("  AscendC::LocalTensor<", ty(b), "> ", buf(b), ";  // ", d.name, " ", pos_name(d.pos),
             " ", dtype_name(d.dtype), to_string(d.dims), queued_[b] ? " (TQue, 2 buffers)" : "",
             "\n");
  }
  s += cat("  ", name_, "TilingData tiling_;\n};\n\n}  // namespace ", name_, "_impl\n\n");
  s += cat("extern \"C\" __global__ __aicore__ void ", name_, "(");
  for (size_t a = 0; a < p_.args.size(); ++a) s += cat("GM_ADDR a", a, ", ");
  if (mixed) s += "GM_ADDR ws, ";
  s += "GM_ADDR tiling) {\n";
  s += cat("  KERNEL_TASK_TYPE_DEFAULT(", type, ");\n");
  s += cat("  ", name_, "TilingData t;\n");
  s += cat(
      "  const __gm__ uint8_t* src = tiling;\n  uint8_t* dst = reinterpret_cast<uint8_t*>(&t);\n");
  s += "  for (size_t i = 0; i < sizeof(t); ++i) dst[i] = src[i];\n";
  s += cat("  ", name_, "_impl::Kernel op;\n  op.Init(");
  for (size_t a = 0; a < p_.args.size(); ++a) s += cat("a", a, ", ");
  if (mixed) s += "ws, ";
  s += "t);\n  op.Process();\n}\n";
  return s;
}

}  // namespace detail

std::string kernel_ident(const std::string& op) {
  std::string s;
  for (char c : op)
    s += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return s;
}

std::string emit_kernel(const TileProgram& p, const std::string& name) {
  return detail::Emitter(p, name).run();
}

std::string emission_refusal(const TileProgram& p) {
  try {
    emit_kernel(p, "asc_probe");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

std::string a2_unsupported(const TileProgram& p) {
  try {
    emit_kernel(p, "asc_probe");
  } catch (const Unsupported& e) {
    return e.what();
  } catch (const Error&) {
    return {};  // an emitter gap, not a unit the A2 lacks
  }
  return {};
}

}  // namespace asc::ascend

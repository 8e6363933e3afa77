// The GM data movement of an emitted kernel (docs/ASCENDC.md): each box's extents and offsets,
// the copy-ins (DataCopy / DataCopyPad GM -> local) and the copy-outs (UB -> GM by DataCopyPad,
// L0C -> GM by Fixpipe with the dtype conversion).
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend::detail {

// Declares n<j> (valid extent per dim), base (GM element offset of the first valid element) and
// lbase (its offset in the dense local buffer: a box starting before its tensor — padding —
// skips its first l<j> elements per dim); full_/empty_ say whether the box is full / empty for
// every tile (1), for none (0) or depends on the tile (-1, then `full` and `empty` are declared).
void Emitter::box_prologue(const GmBox& box) {
  lfirst_ = "0LL";
  lfirst_max_ = 0;
  lpad_max_.assign(box.dims.size(), 0);
  bool fixed = true;
  for (const BoxDim& d : box.dims) fixed = fixed && d.start.var < 0 && d.phase.var < 0;
  std::vector<int64_t> inner(box.dims.size());
  int64_t acc = 1;
  for (size_t j = box.dims.size(); j-- > 0;) {
    inner[j] = acc;
    acc *= box.dims[j].size;
  }
  if (fixed) {
    int64_t base = box.offset, lbase = 0;
    bool full = true, empty = false;
    for (size_t j = 0; j < box.dims.size(); ++j) {
      const BoxDim& d = box.dims[j];
      const int64_t ph = d.phase.offset, lo = d.lo(d.start.offset, ph);
      const int64_t n = d.hi(d.start.offset, ph) - lo;
      line(cat("[[maybe_unused]] const int64_t n", j, " = ", n, ";"));
      base += (d.start.offset + lo) * d.stride + d.phase_offset(ph);
      lbase += lo * inner[j];
      lpad_max_[j] = lo;
      if (j + 1 == box.dims.size()) {
        lfirst_ = cat(lo, "LL");
        lfirst_max_ = lo;
      }
      full = full && n == d.size;
      empty = empty || n == 0;
    }
    line(cat("[[maybe_unused]] const int64_t base = ", base, ";"));
    line(cat("[[maybe_unused]] const int64_t lbase = ", lbase, ";"));
    full_ = full ? 1 : 0;
    empty_ = empty ? 1 : 0;
    return;
  }
  std::string base = cat(box.offset, "LL"), lbase = "0", full = "true", empty = "false";
  for (size_t j = 0; j < box.dims.size(); ++j) {
    const BoxDim& d = box.dims[j];
    if (d.strided_view()) {  // a strided view: the valid range depends on the phase too
      const auto ceil_step = [&](const std::string& a) {
        return cat("((", a, ") >= 0 ? ((", a, ") + ", d.step - 1, "LL) / ", d.step, "LL : -(-(", a,
                   ") / ", d.step, "LL))");
      };
      line(cat("const int64_t s", j, " = ", coord(d.start), ";"));
      line(cat("const int64_t ph", j, " = ", coord(d.phase), ";"));
      line(cat("const int64_t l", j, " = AscClamp(", ceil_step(cat("-ph", j)), " - s", j, ", ",
               d.size, "LL);"));
      line(cat("[[maybe_unused]] const int64_t n", j, " = AscClamp(AscClamp(",
               ceil_step(cat(d.extent, "LL - ph", j)), " - s", j, ", ", d.size, "LL) - l", j, ", ",
               d.size, "LL);"));
      base += cat(" + (s", j, " + l", j, ") * ", d.stride, "LL + ph", j, " * ", d.stride / d.step,
                  "LL");
      lbase += cat(" + l", j, " * ", inner[j], "LL");
      lpad_max_[j] = d.size;
      if (j + 1 == box.dims.size()) {
        lfirst_ = cat("l", j);
        lfirst_max_ = d.size;
      }
      full += cat(" && n", j, " == ", d.size, "LL");
      empty += cat(" || n", j, " == 0");
      continue;
    }
    if (d.start.var < 0) {
      const int64_t lo = d.lo(d.start.offset), n = d.hi(d.start.offset) - lo;
      line(cat("[[maybe_unused]] const int64_t n", j, " = ", n, ";"));
      base += cat(" + ", (d.start.offset + lo) * d.stride, "LL");
      lbase += cat(" + ", lo * inner[j], "LL");
      lpad_max_[j] = lo;
      if (j + 1 == box.dims.size()) {
        lfirst_ = cat(lo, "LL");
        lfirst_max_ = lo;
      }
      if (n != d.size) full = "false";
      if (n == 0) empty = "true";
      continue;
    }
    line(cat("[[maybe_unused]] const int64_t s", j, " = ", coord(d.start), ";"));
    if (d.start.offset < 0 || d.start.scale < 0) {  // may start before the tensor: padding
      line(cat("const int64_t l", j, " = s", j, " < 0 ? AscClamp(-s", j, ", ", d.size, "LL) : 0;"));
      line(cat("[[maybe_unused]] const int64_t n", j, " = AscClamp(AscClamp(", d.extent, "LL - s",
               j, ", ", d.size, "LL) - l", j, ", ", d.size, "LL);"));
      base += cat(" + (s", j, " + l", j, ") * ", d.stride, "LL");
      lbase += cat(" + l", j, " * ", inner[j], "LL");
      lpad_max_[j] = d.start.scale >= 0 ? std::min(d.size, -d.start.offset) : d.size;
      if (j + 1 == box.dims.size()) {
        lfirst_ = cat("l", j);
        lfirst_max_ = lpad_max_[j];
      }
    } else {
      line(cat("[[maybe_unused]] const int64_t n", j, " = AscClamp(", d.extent, "LL - s", j, ", ",
               d.size, "LL);"));
      base += cat(" + s", j, " * ", d.stride, "LL");
    }
    full += cat(" && n", j, " == ", d.size, "LL");
    empty += cat(" || n", j, " == 0");
  }
  line(cat("[[maybe_unused]] const int64_t base = ", base, ";"));
  line(cat("[[maybe_unused]] const int64_t lbase = ", lbase, ";"));
  line(cat("[[maybe_unused]] const bool full = ", full, ";"));
  line(cat("[[maybe_unused]] const bool empty = ", empty, ";"));
  full_ = empty_ = -1;
}

// dst[0, n) = v on the vector unit; 1-byte types (which Duplicate lacks on the A2) as 16-bit
// pairs of v over (n + 1) / 2 elements (the odd last byte lands in the row's 32-byte rounding).
void Emitter::duplicate(const std::string& dst, DType t, const std::string& v, const std::string& n,
                        int pc) {
  if (dtype_size(t) == 8 && (v == literal(t, 0) || (!dtype_is_float(t) && v == literal(t, -1)))) {
    // Both 32-bit halves alike: the value as twice as many int32_t.
    line(cat("AscendC::Duplicate(", dst, ".ReinterpretCast<int32_t>(), static_cast<int32_t>(",
             v == literal(t, 0) ? 0 : -1, "), static_cast<int32_t>((", n, ") * 2));"));
    return;
  }
  if (dtype_size(t) == 8) {  // no 64-bit Duplicate on the A2: the scalar unit writes them
    line("{");
    line(cat("  const ", ctype(t), " dv = static_cast<", ctype(t), ">(", v, ");"));
    line(cat("  for (int64_t e = 0; e < static_cast<int64_t>(", n, "); ++e) ", dst,
             ".SetValue(e, dv);"));
    line("}");
    return;
  }
  unit(pc, "Duplicate", dtype_size(t) == 1 ? DType::kI16 : t);
  if (dtype_size(t) != 1) {
    line(cat("AscendC::Duplicate(", dst, ", static_cast<", ctype(t), ">(", v, "), ", n, ");"));
    return;
  }
  line(cat("AscendC::Duplicate(", dst, ".ReinterpretCast<int16_t>(), static_cast<int16_t>(",
           "static_cast<uint16_t>(static_cast<uint8_t>(", v, ")) * 257), static_cast<int32_t>((", n,
           " + 1) / 2));"));
}

// GM -> L1 in the cube's layout, by DataCopy with Nd2NzParams (MTE2): an operand of L0A as Nz
// over its rows (16-row fractal columns of C0 = 32 / sizeof(T) elements), one of L0B as Nz over
// its k rows for 16-bit types, and for float one Nz matrix per 16 k rows (Zz: two 16 x 8
// fractals side by side are the square LoadDataWithTranspose turns). A partial tile zeroes the
// buffer first (InitConstValue, in 32-byte blocks in L1), so the padding of m, n and k multiplies
// as zeros.
void Emitter::copy_in_l1(int pc) {
  const Instr& in = p_.instrs[pc];
  const int b = in.dst;
  const BufferDecl& d = p_.buffers[b];
  const std::string t = ty(b), g = cat("g", in.arg);
  const int r = static_cast<int>(in.box.dims.size());
  const int64_t es = static_cast<int64_t>(dtype_size(d.dtype));
  // B stored transposed (B^T [n, k] row-major: a box of unit stride along k): L1 holds B^T as Nz
  // over its n rows, whose fractals are already L0B's (load_l0 copies them as they are).
  // A stored transposed (A^T [k, m] row-major) of a 16-bit type likewise: L1 holds A^T as Nz over
  // its k rows, and load_l0 transposes each fractal into L0A (LoadData's ifTranspose). A float
  // A^T goes as one Nz matrix per 16 k rows, whose 16 x 8 fractals side by side are the squares
  // LoadDataWithTranspose turns into L0A's.
  const bool trans = r >= 2 && (b_side_[b] || es == 2 || d.dtype == DType::kF32) &&
                     in.box.dims.back().stride != 1 &&
                     in.box.dims[static_cast<size_t>(r - 2)].stride == 1;
  trans_l1_[b] = trans;
  if (r < 2 || (in.box.dims.back().stride != 1 && !trans))
    fail(pc, "an L1 operand box that is not row-major [.., rows, cols] in GM");
  for (int j = 0; j + 2 < r; ++j)
    if (in.box.dims[static_cast<size_t>(j)].size != 1)
      fail(pc, "an L1 operand box of several matrices");
  const int64_t box_rows = in.box.dims[static_cast<size_t>(r - 2)].size,
                box_cols = in.box.dims.back().size;
  if (numel(d.dims) != box_rows * box_cols) fail(pc, "an L1 operand shaped unlike its box");
  // The buffer's whole fractals (pad_fractals): the padding beyond the box stays zero.
  const int64_t rows = d.padded_rows(), cols = d.padded_cols();
  if (rows % 16 != 0 || cols % 16 != 0)
    fail(pc, cat("an L1 operand of ", rows, " x ", cols, " (not whole 16 x 16 fractals)"));
  const bool padded = rows != box_rows || cols != box_cols;
  if (d.dtype != DType::kF32 && es != 2) fail(pc, cat("an L1 operand of ", dtype_name(d.dtype)));
  const int64_t src_d = in.box.dims[static_cast<size_t>(trans ? r - 1 : r - 2)].stride;
  if (src_d < 0 || rows > 65535 || cols > 65535)
    fail(pc, "an L1 operand past Nd2Nz's 16-bit extents");
  // GM rows further apart than Nd2Nz's 16-bit srcDValue (an lm_head's [hidden, vocab] B): one
  // Nd2Nz per row.
  const bool by_row = src_d > 65535;
  const int64_t c0 = 32 / es;
  if (queued_[b]) line(cat(buf(b), " = q", b, ".AllocTensor<", t, ">();"));
  line("{");
  indent_ += 2;
  box_prologue(in.box);
  if (lfirst_max_ > 0 || in.box.dims[static_cast<size_t>(r - 2)].start.offset < 0)
    fail(pc, "an L1 operand box starting before its tensor");
  if (full_ != 1 || padded) {
    line(cat(full_ == 0 || padded ? "" : "if (!full) ", "AscendC::InitConstValue(", buf(b),
             ", AscendC::InitConstValueParams<", t, ">{1, ", d.bytes() / 32, ", 0, ",
             literal(d.dtype, 0), "});"));
    line("AscendC::PipeBarrier<PIPE_MTE2>();  // the fill lands before the copy over it");
  }
  if (empty_ != 1) {
    if (empty_ == -1) line("if (!empty) {");
    indent_ += empty_ == -1 ? 2 : 0;
    const std::string nr = cat("n", r - 2), nc = cat("n", r - 1);
    if (by_row) {  // row q of the Nz source lands at its row of the fractal column
      const std::string nv = trans ? nc : nr, dv = trans ? nr : nc;
      // Nz per 16 k rows: a float B, a float A^T
      const bool blocks = d.dtype == DType::kF32 && b_side_[b] != trans;
      const std::string dst = blocks
                                  ? cat("q / 16 * ", 16 * (trans ? rows : cols), " + q % 16 * ", c0)
                                  : cat("q * ", c0);
      line(cat("for (int64_t q = 0; q < ", nv, "; ++q)"));
      line(cat("  AscendC::DataCopy(", buf(b), "[", dst, "], ", g, "[base + q * ", src_d,
               "LL], AscendC::Nd2NzParams{1, 1, static_cast<uint16_t>(", dv, "), 0, 1, ",
               blocks  ? 16
               : trans ? cols
                       : rows,
               ", 1, 0});"));
    } else if (trans && !b_side_[b] && d.dtype == DType::kF32) {
      line(cat("for (int64_t k = 0; k < ", nc, "; k += 16)"));
      line(cat("  AscendC::DataCopy(", buf(b), "[k * ", rows, "], ", g, "[base + k * ", src_d,
               "LL], AscendC::Nd2NzParams{1, static_cast<uint16_t>(", nc, " - k < 16 ? ", nc,
               " - k : 16), static_cast<uint16_t>(", nr, "), 0, ", src_d, ", 16, 1, 0});"));
    } else if (trans) {
      line(cat("AscendC::DataCopy(", buf(b), ", ", g,
               "[base], AscendC::Nd2NzParams{1, static_cast<uint16_t>(", nc,
               "), static_cast<uint16_t>(", nr, "), 0, ", src_d, ", ", cols, ", 1, 0});"));
    } else if (b_side_[b] && d.dtype == DType::kF32) {
      line(cat("for (int64_t k = 0; k < ", nr, "; k += 16)"));
      line(cat("  AscendC::DataCopy(", buf(b), "[k * ", cols, "], ", g, "[base + k * ", src_d,
               "LL], AscendC::Nd2NzParams{1, static_cast<uint16_t>(", nr, " - k < 16 ? ", nr,
               " - k : 16), static_cast<uint16_t>(", nc, "), 0, ", src_d, ", 16, 1, 0});"));
    } else {
      line(cat("AscendC::DataCopy(", buf(b), ", ", g,
               "[base], AscendC::Nd2NzParams{1, static_cast<uint16_t>(", nr,
               "), static_cast<uint16_t>(", nc, "), 0, ", src_d, ", ", rows, ", 1, 0});"));
    }
    indent_ -= empty_ == -1 ? 2 : 0;
    if (empty_ == -1) line("}");
  }
  indent_ -= 2;
  line("}");
  (void)es;
  if (queued_[b]) {
    line(cat("q", b, ".EnQue(", buf(b), ");"));
    line(cat(buf(b), " = q", b, ".DeQue<", t, ">();"));
  } else {
    sync("MTE2_MTE1");
  }
}

void Emitter::copy_in(int pc) {
  const Instr& in = p_.instrs[pc];
  const int b = in.dst;
  const BufferDecl& d = p_.buffers[b];
  if (d.pos == Pos::kL1 && !im2col_src_[b]) {
    copy_in_l1(pc);
    return;
  }
  const std::string t = ty(b), g = cat("g", in.arg);
  const int64_t es = static_cast<int64_t>(dtype_size(d.dtype));
  if (queued_[b]) line(cat(buf(b), " = q", b, ".AllocTensor<", t, ">();"));
  if (unqueued_[b]) {  // a copy-in past the TPipe's queues: after the slot's earlier readers
    sync("V_MTE2");
    sync("MTE3_MTE2");
  }
  line("{");
  indent_ += 2;
  box_prologue(in.box);
  const bool fast = in.box.contiguous() && d.pitch == 0 && n_of(b) * es % 32 == 0;
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
      if (full_ == -1) line("if (!full)");
      if (full_ == -1) indent_ += 2;
      duplicate(buf(b), d.dtype, literal(d.dtype, in.box.fill), cat(n_of(b)), pc);
      if (full_ == -1) indent_ -= 2;
      if (d.pos == Pos::kUB) sync("V_MTE2");
    }
    if (empty_ != 1) {
      if (empty_ == -1) {
        line("if (!empty) {");
        indent_ += 2;
        ++open;
      }
      box_rows(in.box, d, buf(b), g, t, es, false,
               full_ == 1 || d.pos != Pos::kUB ? "" : literal(d.dtype, in.box.fill), pc);
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
    std::string loff = "lbase", goff = "base";
    int64_t inner = 1;
    for (size_t j = 0; j < in.box.dims.size(); ++j) inner *= in.box.dims[j].size;
    const int64_t cols = in.box.dims.back().size;
    line(empty_ == -1 ? "if (!empty) {" : empty_ == 1 ? "if (false) {" : "{");
    indent_ += 2;
    // The box's rows: its last dim of more than one element before the columns (dims of one
    // element, e.g. a pointwise conv's depth and height, take no part).
    int rd = -1;
    for (int j = 0; j + 1 < r; ++j)
      if (in.box.dims[static_cast<size_t>(j)].size != 1) rd = j;
    int64_t acc = inner;
    int loops = 0;
    for (int j = 0; j < rd; ++j) {
      acc /= in.box.dims[static_cast<size_t>(j)].size;
      if (in.box.dims[static_cast<size_t>(j)].size == 1) continue;
      line(cat("for (int64_t i", j, " = 0; i", j, " < n", j, "; ++i", j, ") {"));
      indent_ += 2;
      ++loops;
      loff += cat(" + i", j, " * ", acc, "LL");
      goff += cat(" + i", j, " * ", in.box.dims[static_cast<size_t>(j)].stride, "LL");
    }
    const std::string rows = rd >= 0 ? cat("n", rd) : "1";
    const int64_t dst_stride = rd >= 0 ? in.box.dims[static_cast<size_t>(rd)].stride : cols;
    line(cat("AscendC::FixpipeParamsV220 fp;"));
    line(cat("fp.nSize = static_cast<uint16_t>(n", r - 1, ");"));
    line(cat("fp.mSize = static_cast<uint16_t>(", rows, ");"));
    // L0C holds [m, n] as 16 x 16 fractals in columns of m rows: srcStride is m in C0 units.
    // The valid box of the padded matrix (pad_fractals): fractal columns of m_rows rows.
    const int64_t m_rows = d.padded_rows();
    bool one_matrix = rd >= 0 && in.box.dims[static_cast<size_t>(rd)].size == d.mat_rows();
    for (int j = 0; j < rd; ++j) one_matrix = one_matrix && in.box.dims[j].size == 1;
    if (cols != d.mat_cols() || m_rows % 16 != 0 || d.padded_cols() % 16 != 0 ||
        (d.frac_rows > 0 && !one_matrix))
      fail(pc, "Fixpipe of an L0C box unlike its [m, n] fractals");
    line(cat("fp.srcStride = ", m_rows, ";"));
    line(cat("fp.dstStride = ", dst_stride, ";"));
    line(cat("fp.quantPre = QuantMode_t::", quant, ";"));
    line(cat("AscendC::Fixpipe(", g, "[", goff, "], ", buf(b), "[", loff, "], fp);"));
    for (; loops > 0; --loops) {
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
    if (to == DType::kBool) fail(pc, "a copy-out converting to bool");
    cast_into(pc, src, to, buf(b), d.dtype, n_of(b), align_up(n_of(b) * es, 32));
  }
  sync("V_MTE3");
  line("{");
  indent_ += 2;
  box_prologue(in.box);
  const bool fast = in.box.contiguous() && d.pitch == 0 && n_of(b) * es % 32 == 0;
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
    box_rows(in.box, d, src, g, ctype(to), es, true, "", pc);
  }
  for (; open > 0; --open) {
    indent_ -= 2;
    line("}");
  }
  indent_ -= 2;
  line("}");
  sync("MTE3_V");
}

// Load3D (v2) of the NC1HWC0 feature-map box [C1, D, H, W, C0] in L1 (or in the L1 stage, laid
// out by the AIVs) into the column matrix: channelSize counts the box's C1 x C0 channels and K
// comes out over (c1, kh, kw, c0), as Im2col orders it. A 3-D window (one output depth per
// tile, undilated in depth) reads the box's D = kD depth slices as D times the channels: K over
// (c1, kd, kh, kw, c0), the same order, in one call. The box already holds the padding as zeros
// (the copy-in's), so padList stays 0 and the box extents are l1H and l1W.
void Emitter::load_im2col(int pc) {
  const Instr& in = p_.instrs[pc];
  const Im2col& g = in.im2col;
  const Shape& sd = p_.buffers[in.src[0]].dims;
  if (g.c0 <= 1)
    fail(pc, "Load3D of an NCDHW map (the A2's Load3D reads NC1HWC0 maps: C0 channels innermost)");
  if (g.c0 * static_cast<int64_t>(dtype_size(p_.buffers[in.src[0]].dtype)) != 32)
    fail(pc, cat("an NC1HWC0 map of C0 = ", g.c0, " (Load3D's C0 is 32 bytes)"));
  const size_t r = sd.size() - 1;
  const int64_t c = sd[r - 4] * g.c0, d = sd[r - 3], h = sd[r - 2], w = sd[r - 1];
  const int64_t hw = g.k[1] * g.k[2], np = g.positions();
  if (g.out[0] != 1) fail(pc, "an im2col over more than one output depth");
  if (d != g.k[0]) fail(pc, cat("a depth window of ", g.k[0], " over ", d, " slices (dilated)"));
  if (h > 65535 || w > 65535 || c * d * hw > 65535 || np > 65535)
    fail(pc, "an im2col past Load3D's 16-bit extents");
  for (int j = 1; j < 3; ++j)
    if (g.k[j] > 255 || g.s[j] > 63 || g.d[j] > 255)
      fail(pc, "a window past Load3D's filter, stride or dilation range");
  line("{");
  indent_ += 2;
  line(cat("AscendC::LoadData3DParamsV2<", ty(in.src[0]), "> lp;"));
  line(cat("lp.l1H = ", h, ";"));
  line(cat("lp.l1W = ", w, ";"));
  line(cat("lp.channelSize = ", c * d, ";"));
  line(cat("lp.kExtension = ", c * d * hw, ";"));
  line(cat("lp.mExtension = ", np, ";"));
  line(cat("lp.strideH = ", g.s[1], ";"));
  line(cat("lp.strideW = ", g.s[2], ";"));
  line(cat("lp.filterH = ", g.k[1], ";"));
  line(cat("lp.filterW = ", g.k[2], ";"));
  line(cat("lp.dilationFilterH = ", g.d[1], ";"));
  line(cat("lp.dilationFilterW = ", g.d[2], ";"));
  line(cat("AscendC::LoadData(", buf(in.dst), ", ", buf(in.src[0]), ", lp);"));
  indent_ -= 2;
  line("}");
  sync("MTE1_M");
}

}  // namespace asc::ascend::detail

// The rows of a GM box moved between GM and a local buffer (docs/ASCENDC.md "Rows"): multi-row
// DataCopyPad where the local rows are whole 32-byte blocks, one DataCopyPad per row where each
// row starts on a block, and the scalar unit for what starts inside a block (the DMA and vector
// units take only 32-byte aligned local addresses) and for transposed rows.
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend::detail {

namespace {

constexpr int64_t kMoveChunk = 64;  // elements per DataCopyPad of a transposed copy-out

}  // namespace

// The rows of a box between local tensor `local` (laid out as `ld`: dense or padded rows) and GM
// tensor `g`; dims of one element take no loop. When every row starts on a 32-byte block
// locally (each outer dim steps whole blocks or whole padded rows, no leading pad but the one
// DataCopyPad's leftPadding writes): one DataCopyPad per run of box rows where the local rows
// are whole blocks, else one per row; a broadcast innermost dim (GM stride 0) is one scalar read
// and a Duplicate per row. A row that may start inside a block moves its elements up to the
// next block on the scalar unit (GM -> UB: GetValue/SetValue; UB -> GM: through the aligned
// `mv` buffer and a DataCopyPad of them) and the rest as above. A transposed innermost dim (GM
// stride > 1) and a row across padded local rows go element by element: GM -> UB on the scalar
// unit, UB -> GM gathered into `mv` a 32-byte block per element and written by one DataCopyPad
// of one-element blocks at the GM stride. GM -> UB, `fill` (a tile that may be partial): the
// value a short row's 32-byte rounding and a row starting inside the box (padding before the
// tensor, lfirst_ elements: DataCopyPad's leftPadding when it fits) take, as the Duplicate
// before the copy left them; empty when every row is whole.
void Emitter::box_rows(const GmBox& box, const BufferDecl& ld, const std::string& local,
                       const std::string& g, const std::string& t, int64_t es, bool to_gm,
                       const std::string& fill, int pc) {
  const int r = static_cast<int>(box.dims.size());
  const bool ub = ld.pos == Pos::kUB;
  const int64_t epb = std::max<int64_t>(1, 32 / es);  // elements per 32-byte block
  // Dims of one element take no loop; the innermost of the others is the row.
  std::vector<int> act;
  for (int j = 0; j < r; ++j)
    if (box.dims[static_cast<size_t>(j)].size != 1) act.push_back(j);
  if (act.empty() && r > 0) act.push_back(r - 1);
  const int l = act.empty() ? -1 : act.back();
  std::vector<int64_t> inner_of_dim(static_cast<size_t>(r));
  for (int64_t j = r - 1, inner = 1; j >= 0; --j) {
    inner_of_dim[static_cast<size_t>(j)] = inner;
    inner *= box.dims[static_cast<size_t>(j)].size;
  }
  const auto whole_blocks = [&](int64_t dense) {
    return ld.pitch == 0 ? dense % epb == 0 : dense % ld.row == 0;
  };
  bool outer_aligned = true;
  for (size_t k = 0; k + 1 < act.size(); ++k)
    outer_aligned = outer_aligned && whole_blocks(inner_of_dim[static_cast<size_t>(act[k])]);
  // The innermost dim's leading pad as DataCopyPad's leftPadding (at most 32 bytes).
  const bool lead = !to_gm && !fill.empty() && l == r - 1 && lfirst_max_ > 0 &&
                    lfirst_max_ * es <= 32 && box.dims.back().stride == 1 &&
                    (ld.pitch == 0 || ld.row % box.dims.back().size == 0) && outer_aligned;
  const bool aligned =
      !ub || (outer_aligned && (l < 0 || lpad_max_[static_cast<size_t>(l)] == 0 || lead));
  const std::string lp = lead ? lfirst_ : std::string("0LL");
  // Bytes of a block's data with its leading pad, and DataCopyPad's padding parameters.
  const auto padded = [&](const std::string& n) { return cat("(", lp, " * ", es, " + ", n, ")"); };
  const auto pad_of = [&](const std::string& n, const std::string& left) {
    if (fill.empty()) return cat("AscendC::DataCopyPadExtParams<", t, ">{}");
    const std::string bytes = cat("(", left, " * ", es, " + ", n, ")");
    return cat("AscendC::DataCopyPadExtParams<", t, ">{true, static_cast<uint8_t>(", left,
               "), static_cast<uint8_t>(((", bytes, " + 31) / 32 * 32 - ", bytes, ") / ", es, "), ",
               fill, "}");
  };
  const auto pad = [&](const std::string& n) { return pad_of(n, lp); };
  const auto copy = [&](const std::string& li, const std::string& gm, const std::string& bytes) {
    if (to_gm)
      line(cat("AscendC::DataCopyPad(", g, "[", gm, "], ", local, "[", li,
               "], AscendC::DataCopyExtParams{1, ", bytes, ", 0, 0, 0});"));
    else
      line(cat("AscendC::DataCopyPad(", local, "[", li, "], ", g, "[", gm,
               "], AscendC::DataCopyExtParams{1, ", bytes, ", 0, 0, 0}, ", pad(bytes), ");"));
  };
  if (r == 0) {
    copy("0", "base", cat(es));
    return;
  }
  const BoxDim& last = box.dims[static_cast<size_t>(l)];
  const int64_t ls = last.size == 1 ? 1 : last.stride;  // one element: contiguous
  // The innermost two dims as one multi-block copy: box rows of whole local rows, 32-byte
  // aligned, GM rows apart by at least a row.
  int64_t lrow = -1;  // local elements between box rows
  if (aligned && act.size() >= 2 && ls == 1) {
    const BoxDim& rows = box.dims[static_cast<size_t>(act[act.size() - 2])];
    if (ld.pitch == 0)
      lrow = last.size;
    else if (last.size == ld.row)
      lrow = ld.pitch;
    if (lrow * es % 32 != 0 || rows.stride < last.size || rows.size > 4095) lrow = -1;
  }
  const size_t outer = act.size() - (lrow > 0 ? 2 : 1);
  std::string loff = "lbase", goff = "base";
  for (size_t k = 0; k < outer; ++k) {
    const int j = act[k];
    line(cat("for (int64_t i", j, " = 0; i", j, " < n", j, "; ++i", j, ") {"));
    indent_ += 2;
    loff += cat(" + i", j, " * ", inner_of_dim[static_cast<size_t>(j)], "LL");
    goff += cat(" + i", j, " * ", box.dims[static_cast<size_t>(j)].stride, "LL");
  }
  if (lead) loff += cat(" - ", lp);  // the block starts where the row does
  const std::string n = cat("n", l);
  // lo: the row's local offset; h: its elements before the next 32-byte block (at most n).
  const auto row_head = [&] {
    line(cat("const int64_t lo = ", lidx(ld, loff), ";"));
    line(cat("const int64_t h = (", epb, " - lo % ", epb, ") % ", epb, " < ", n, " ? (", epb,
             " - lo % ", epb, ") % ", epb, " : ", n, ";"));
  };
  // A row inside one local row: its local elements are contiguous.
  const bool in_row = ld.pitch == 0 || ld.row % last.size == 0;
  if (lrow > 0) {
    const int rd = act[act.size() - 2];
    const std::string nb = cat(n, " * ", es);
    const std::string ub_gap =
        cat("static_cast<uint32_t>((", lrow * es, " - (", padded(nb), " + 31) / 32 * 32) / 32)");
    const std::string gm_gap =
        cat("static_cast<uint32_t>((", box.dims[static_cast<size_t>(rd)].stride, " - ", n, ") * ",
            es, ")");
    const std::string params =
        cat("AscendC::DataCopyExtParams{static_cast<uint16_t>(n", rd, "), static_cast<uint32_t>(",
            nb, "), ", to_gm ? ub_gap : gm_gap, ", ", to_gm ? gm_gap : ub_gap, ", 0}");
    if (to_gm)
      line(cat("AscendC::DataCopyPad(", g, "[", goff, "], ", local, "[", lidx(ld, loff), "], ",
               params, ");"));
    else
      line(cat("AscendC::DataCopyPad(", local, "[", lidx(ld, loff), "], ", g, "[", goff, "], ",
               params, ", ", pad(nb), ");"));
  } else if (ls == 1 && aligned) {
    if (in_row) {
      copy(lidx(ld, loff), goff, cat("static_cast<uint32_t>(", n, " * ", es, ")"));
    } else if (last.size % ld.row == 0) {  // a box row over several local rows: one copy each
      line(cat("for (int64_t k = 0; k < ", n, "; k += ", ld.row, ")"));
      indent_ += 2;
      copy(lidx(ld, loff + " + k"), goff + " + k",
           cat("static_cast<uint32_t>((", n, " - k < ", ld.row, " ? ", n, " - k : ", ld.row, ") * ",
               es, ")"));
      indent_ -= 2;
    } else {
      throw Error(cat(p_.op, ": Ascend C emission: box rows of ", last.size,
                      " elements across the padded rows of ", ld.name));
    }
  } else if (ls == 0 && !to_gm && aligned) {  // one GM value spread over the row
    duplicate(cat(local, "[", lidx(ld, loff), "]"), ld.dtype, cat(g, ".GetValue(", goff, ")"), n,
              pc);
  } else if (!ub) {  // L1 (Load3D's map): an element per copy
    line(cat("for (int64_t e = 0; e < ", n, "; ++e) {"));
    indent_ += 2;
    copy(lidx(ld, loff + " + e"), cat(goff, " + e * ", ls, "LL"), cat(es));
    indent_ -= 2;
    line("}");
  } else if (ls == 1 && in_row) {  // a row from inside a block: its head by the scalar
    line("{");
    indent_ += 2;
    row_head();
    if (to_gm) {
      need_move(32);
      line(cat("if (h > 0) {"));
      line(cat("  AscendC::LocalTensor<", t, "> mt = mv.ReinterpretCast<", t, ">();"));
      line(cat("  for (int64_t e = 0; e < h; ++e) mt.SetValue(e, ", local, ".GetValue(lo + e));"));
      line(cat("  AscendC::DataCopyPad(", g, "[", goff, "], mt, AscendC::DataCopyExtParams{1, ",
               "static_cast<uint32_t>(h * ", es, "), 0, 0, 0});"));
      line("}");
      line(cat("if (h < ", n, ")"));
      line(cat("  AscendC::DataCopyPad(", g, "[", goff, " + h], ", local,
               "[lo + h], AscendC::DataCopyExtParams{1, static_cast<uint32_t>((", n, " - h) * ", es,
               "), 0, 0, 0});"));
    } else {
      line(cat("for (int64_t e = 0; e < h; ++e) ", local, ".SetValue(lo + e, ", g, ".GetValue(",
               goff, " + e));"));
      const std::string rest = cat("static_cast<uint32_t>((", n, " - h) * ", es, ")");
      line(cat("if (h < ", n, ")"));
      line(cat("  AscendC::DataCopyPad(", local, "[lo + h], ", g, "[", goff,
               " + h], AscendC::DataCopyExtParams{1, ", rest, ", 0, 0, 0}, ", pad_of(rest, "0"),
               ");"));
    }
    indent_ -= 2;
    line("}");
  } else if (ls == 0 && !to_gm && in_row) {  // a broadcast row from inside a block
    line("{");
    indent_ += 2;
    row_head();
    line(cat("const ", t, " dv = ", g, ".GetValue(", goff, ");"));
    line(cat("for (int64_t e = 0; e < h; ++e) ", local, ".SetValue(lo + e, dv);"));
    // 1-byte types fill 16-bit pairs: an odd last element by the scalar unit, so no byte past
    // the row changes.
    const std::string m = es == 1 ? "(n_ - h) / 2 * 2" : "n_ - h";
    line(cat("const int64_t n_ = ", n, ";"));
    line(cat("if (", m, " > 0) {"));
    indent_ += 2;
    duplicate(cat(local, "[lo + h]"), ld.dtype, "dv", m, pc);
    indent_ -= 2;
    line("}");
    if (es == 1) line(cat("if ((n_ - h) % 2 != 0) ", local, ".SetValue(lo + n_ - 1, dv);"));
    indent_ -= 2;
    line("}");
  } else if (!to_gm) {  // transposed, or across padded rows: an element at a time
    line(cat("for (int64_t e = 0; e < ", n, "; ++e)"));
    line(cat("  ", local, ".SetValue(", lidx(ld, loff + " + e"), ", ", g, ".GetValue(", goff,
             " + e * ", ls, "LL));"));
  } else if (ls == 0) {  // every element to one GM element (an empty tensor's box): the last
    need_move(32);
    line(cat("if (", n, " > 0) {"));
    line(cat("  AscendC::LocalTensor<", t, "> mt = mv.ReinterpretCast<", t, ">();"));
    line(cat("  mt.SetValue(0, ", local, ".GetValue(", lidx(ld, loff + " + " + n + " - 1"), "));"));
    line(cat("  AscendC::DataCopyPad(", g, "[", goff, "], mt, AscendC::DataCopyExtParams{1, ", es,
             ", 0, 0, 0});"));
    line("}");
  } else {  // to GM an element per 32-byte block of mv, one DataCopyPad per chunk of them
    if (ls < 0) fail(pc, cat("a copy-out at GM stride ", ls));
    need_move(kMoveChunk * 32);
    line(cat("for (int64_t c = 0; c < ", n, "; c += ", kMoveChunk, ") {"));
    indent_ += 2;
    line(cat("const int64_t m = ", n, " - c < ", kMoveChunk, " ? ", n, " - c : ", kMoveChunk, ";"));
    line(cat("AscendC::LocalTensor<", t, "> mt = mv.ReinterpretCast<", t, ">();"));
    line(cat("for (int64_t e = 0; e < m; ++e) mt.SetValue(e * ", epb, ", ", local, ".GetValue(",
             lidx(ld, loff + " + c + e"), "));"));
    line(cat("AscendC::DataCopyPad(", g, "[", goff, " + c * ", ls,
             "LL], mt, AscendC::DataCopyExtParams{static_cast<uint16_t>(m), ", es, ", 0, ",
             (ls - 1) * es, ", 0});"));
    indent_ -= 2;
    line("}");
  }
  for (size_t k = 0; k < outer; ++k) {
    indent_ -= 2;
    line("}");
  }
}

}  // namespace asc::ascend::detail

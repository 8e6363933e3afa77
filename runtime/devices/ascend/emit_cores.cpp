// Which core runs what (docs/ASCENDC.md): the kernel type of a program, and a mixed kernel's
// split of its instructions between the AIC and its two AIVs with the GM workspace between them.
#include <algorithm>

#include "runtime/devices/ascend/a2_cores.h"
#include "runtime/devices/ascend/emit_ascendc.h"
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend {
namespace detail {

int64_t workspace_slots(const TileProgram& p, std::vector<int64_t>* off) {
  off->assign(p.buffers.size(), -1);
  int64_t elems = 0;
  for (const Instr& in : p.instrs) {
    if (in.kind == InstrKind::kLoopBegin || in.kind == InstrKind::kLoopEnd) continue;
    // L0C results the vector instructions read (as float), and UB results the cube loads (in
    // float units).
    const Pos from = a2::cube_side(p, in) ? Pos::kUB : Pos::kL0C;
    for (int src : in.src)
      if (src >= 0 && p.buffers[src].pos == from && (*off)[src] < 0) {
        (*off)[src] = elems;
        // In the vector side's layout (padded rows included).
        const BufferDecl& d = p.buffers[src];
        const int64_t bytes = d.local_elems() * static_cast<int64_t>(dtype_size(d.dtype));
        elems += align_up(from == Pos::kL0C ? d.local_elems() : (bytes + 3) / 4, 256);
      }
  }
  return elems;
}

// A mixed kernel emits the program twice: the AIC takes the cube's instructions and hands each
// L0C result a vector instruction reads to the AIVs (Fixpipe to its GM workspace slot, a
// cross-core flag); an AIV waits for it, copies it into UB and runs the vector instructions of
// its tiles (`mine`: the two AIVs of an AI Core take alternate tiles, and both take part in every
// hand-off). Flag 0: the workspace holds the tile (AIC -> AIVs); flag 1: both AIVs have copied
// it (AIVs -> AIC), which the AIC waits for before it writes the slot again.
void Emitter::emit_instr(int pc) {
  const Instr& in = p_.instrs[pc];
  if (side_ == Side::kOne || in.kind == InstrKind::kLoopBegin || in.kind == InstrKind::kLoopEnd) {
    emit_instr_body(pc);
    return;
  }
  std::vector<int> l0c;
  if (!cube_instr(in))
    for (int src : in.src)
      if (src >= 0 && p_.buffers[src].pos == Pos::kL0C &&
          std::find(l0c.begin(), l0c.end(), src) == l0c.end())
        l0c.push_back(src);
  // A vector result the cube loads (attention's probabilities, a conv's relaid map and weight
  // block): the AIV that owns the tile writes it to its workspace slot and both AIVs set flag 2;
  // the AIC waits for it and copies it into L1 in the cube's layout, where the load reads it.
  const bool from_ub = (in.kind == InstrKind::kLoadL0 || in.kind == InstrKind::kLoadIm2col) &&
                       p_.buffers[in.src[0]].pos == Pos::kUB;
  if (side_ == Side::kAic) {
    if (cube_instr(in)) {
      if (from_ub) ub_to_l1(pc);
      emit_instr_body(pc);
      staged_.clear();
      return;
    }
    if (l0c.empty()) return;
    line("if (ho++ > 0) AscendC::CrossCoreWaitFlag(1);  // the AIVs have the previous hand-off");
    sync("M_FIX");
    for (int x : l0c) {
      const BufferDecl& d = p_.buffers[x];  // its valid [m, n], rows at the AIVs' pitch in GM
      const int64_t m = d.mat_rows(), n = d.mat_cols();
      line("{");
      line("  AscendC::FixpipeParamsV220 fp;");
      line(cat("  fp.nSize = ", n, ";"));
      line(cat("  fp.mSize = ", m, ";"));
      line(cat("  fp.srcStride = ", d.padded_rows(), ";"));
      line(cat("  fp.dstStride = ", d.pitch > 0 ? d.pitch : n, ";  // the AIVs' row layout"));
      line("  fp.quantPre = QuantMode_t::NoQuant;");
      line(cat("  AscendC::Fixpipe(gw[", ws_off_[x], "], ", buf(x), ", fp);"));
      line("}");
    }
    line("AscendC::CrossCoreSetFlag<2, PIPE_FIX>(0);");
    sync("FIX_M");
    return;
  }
  if (cube_instr(in)) {
    if (!from_ub) return;
    const int src = in.src[0];
    const BufferDecl& d = p_.buffers[src];
    const int64_t n = d.local_elems(), bytes = n * static_cast<int64_t>(dtype_size(d.dtype));
    // Each operand has its slot: the one handed over ub_operands_ hand-offs ago used this slot,
    // and the AIC has copied it out once it says so (flag 3).
    line(cat("if (hu++ >= ", ub_operands_,
             ") AscendC::CrossCoreWaitFlag(3);  // the AIC has copied the slot's last operand"));
    line("if (mine) {");
    line(
        "  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0); "
        "AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);");
    if (bytes % 32 == 0)
      line(cat("  AscendC::DataCopy(gp", src, ", ", buf(src), ", ", n, ");"));
    else  // a partial last block: exactly its bytes
      line(cat("  AscendC::DataCopyPad(gp", src, ", ", buf(src), ", AscendC::DataCopyExtParams{1, ",
               bytes, ", 0, 0, 0});"));
    line(
        "  AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0); "
        "AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0);");
    for (int b : frees_[static_cast<size_t>(pc)])
      if (p_.buffers[b].pos == Pos::kUB) line(cat("  q", b, ".FreeTensor(", buf(b), ");"));
    line("}");
    line("AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(2);  // the cube's operand is in the workspace");
    return;
  }
  if (!l0c.empty()) line("AscendC::CrossCoreWaitFlag(0);  // the AIC has handed the tile over");
  line("if (mine) {");
  indent_ += 2;
  emit_instr_body(pc);
  indent_ -= 2;
  line("}");
  if (!l0c.empty())
    line("AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(1);  // copied out of the workspace");
}

bool Emitter::cube_instr(const Instr& in) const {
  return a2::cube_side(p_, in);
}

// The AIC's side of a vector result the cube loads: wait for the AIVs (flag 2), then the
// workspace slot into the L1 stage, where the load reads it: as Nz (DataCopy with Nd2NzParams; a
// float B as one Nz matrix per 16 k rows, as copy_in_l1 lays it), or a Load3D map (laid out
// NC1HWC0 by the AIVs) as it is. Flag 3 tells the AIVs the slot is free again.
void Emitter::ub_to_l1(int pc) {
  const int src = p_.instrs[pc].src[0];
  if (p_.instrs[pc].kind == InstrKind::kLoadIm2col) {
    const BufferDecl& m = p_.buffers[src];
    l1_stage_bytes_ = std::max(l1_stage_bytes_, align_up(m.bytes(), 32));
    if (m.bytes() % 32 != 0) fail(pc, "a Load3D map of a partial 32-byte block");
    line("AscendC::CrossCoreWaitFlag(2);  // the AIV has written the map");
    sync("MTE1_MTE2");  // the stage's previous load has read it
    const std::string stage = cat("l1stage.ReinterpretCast<", ty(src), ">()");
    line(cat("AscendC::DataCopy(", stage, ", gp", src, ", ", m.local_elems(), ");"));
    line("AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(3);  // the slot is free again");
    sync("MTE2_MTE1");
    staged_.emplace_back(src, stage);
    return;
  }
  // The stage holds the loaded buffer's whole fractals (pad_fractals), its padding zeros.
  const BufferDecl& d = p_.buffers[p_.instrs[pc].dst];
  const int64_t rows = d.mat_rows(), cols = d.mat_cols();
  l1_stage_bytes_ = std::max(l1_stage_bytes_, align_up(d.bytes(), 32));
  line("AscendC::CrossCoreWaitFlag(2);  // the AIV has written the cube's operand");
  sync("MTE1_MTE2");  // the stage's previous load has read it
  const std::string stage = cat("l1stage.ReinterpretCast<", ty(src), ">()");
  if (rows != d.padded_rows() || cols != d.padded_cols()) {
    line(cat("AscendC::InitConstValue(", stage, ", AscendC::InitConstValueParams<", ty(src),
             ">{1, ", d.bytes() / 32, ", 0, ", literal(d.dtype, 0), "});"));
    line("AscendC::PipeBarrier<PIPE_MTE2>();  // the fill lands before the copy over it");
  }
  const int64_t pitch = p_.buffers[src].pitch > 0 ? p_.buffers[src].pitch : cols;  // its UB rows
  if (d.pos == Pos::kL0B && d.dtype == DType::kF32) {  // float B: one Nz matrix per 16 k rows
    line(cat("for (int64_t k = 0; k < ", rows, "; k += 16)"));
    line(cat("  AscendC::DataCopy(", stage, "[k * ", d.padded_cols(), "], gp", src, "[k * ", pitch,
             "], AscendC::Nd2NzParams{1, static_cast<uint16_t>(", rows, " - k < 16 ? ", rows,
             " - k : 16), ", cols, ", 0, ", pitch, ", 16, 1, 0});"));
  } else {  // Nz over the rows (A; a 16-bit B over its k rows)
    line(cat("AscendC::DataCopy(", stage, ", gp", src, ", AscendC::Nd2NzParams{1, ", rows, ", ",
             cols, ", 0, ", pitch, ", ", d.padded_rows(), ", 1, 0});"));
  }
  line("AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(3);  // the slot is free again");
  sync("MTE2_MTE1");
  staged_.emplace_back(src, stage);
}

}  // namespace detail

// The Atlas A2 cores a program runs on: the cube core (AIC) when its buffers are all in L1/L0,
// the vector core (AIV) when they are all in UB, and an AI Core's AIC with its two AIVs for a
// program on both units (L0C results handed to the AIVs and vector results the cube loads handed
// to the AIC, both through a GM workspace).
const char* kernel_type(const TileProgram& p) {
  bool cube = false, vec = false;
  for (const BufferDecl& d : p.buffers) (d.pos == Pos::kUB ? vec : cube) = true;
  if (!(cube && vec)) return cube ? "KERNEL_TYPE_AIC_ONLY" : "KERNEL_TYPE_AIV_ONLY";
  for (const Instr& in : p.instrs) {
    if (!a2::cube_side(p, in)) continue;
    for (size_t k = 0; k < std::size(in.src); ++k)
      if (in.src[k] >= 0 && p.buffers[in.src[k]].pos == Pos::kUB &&
          ((in.kind != InstrKind::kLoadL0 && in.kind != InstrKind::kLoadIm2col) || k > 0))
        throw Error(cat(p.op,
                        ": Ascend C emission: a vector result feeds the cube other than as a "
                        "loaded operand (",
                        instr_name(in.kind), "), not emitted yet"));
  }
  return "KERNEL_TYPE_MIX_AIC_1_2";
}

// GM bytes a mixed kernel's workspace takes (0 for the others): per AI Core, a slot for every
// L0C buffer a vector instruction reads and every UB buffer the cube loads (workspace_slots).
int64_t workspace_bytes(const TileProgram& p) {
  if (std::string(kernel_type(p)) != "KERNEL_TYPE_MIX_AIC_1_2") return 0;
  std::vector<int64_t> off;
  return detail::workspace_slots(p, &off) * 4 * std::max<int64_t>(1, p.block_dim);
}

}  // namespace asc::ascend

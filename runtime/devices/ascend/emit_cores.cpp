// Which core runs what (docs/ASCENDC.md): the kernel type of a program, and a mixed kernel's
// split of its instructions between the AIC and its two AIVs with the GM workspace between them.
#include <algorithm>

#include "runtime/devices/ascend/emit_ascendc.h"
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend {
namespace detail {

bool cube_side(const TileProgram& p, const Instr& in) {
  switch (in.kind) {
    case InstrKind::kLoadL0:
    case InstrKind::kLoadIm2col:
    case InstrKind::kMmad:
      return true;
    case InstrKind::kCopyIn:
      return p.buffers[in.dst].pos != Pos::kUB;
    case InstrKind::kCopyOut:
      return p.buffers[in.src[0]].pos != Pos::kUB;
    default:
      return false;
  }
}

int64_t workspace_slots(const TileProgram& p, std::vector<int64_t>* off) {
  off->assign(p.buffers.size(), -1);
  int64_t elems = 0;
  for (const Instr& in : p.instrs) {
    if (cube_side(p, in) || in.kind == InstrKind::kLoopBegin || in.kind == InstrKind::kLoopEnd)
      continue;
    for (int src : in.src)
      if (src >= 0 && p.buffers[src].pos == Pos::kL0C && (*off)[src] < 0) {
        (*off)[src] = elems;
        elems += align_up(numel(p.buffers[src].dims), 256);
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
  if (side_ == Side::kAic) {
    if (cube_instr(in)) {
      emit_instr_body(pc);
      return;
    }
    if (l0c.empty()) return;
    line("if (ho++ > 0) AscendC::CrossCoreWaitFlag(1);  // the AIVs have the previous hand-off");
    sync("M_FIX");
    for (int x : l0c) {
      const Shape& d = p_.buffers[x].dims;
      const int64_t m = d.size() >= 2 ? d[d.size() - 2] : 1, n = d.empty() ? 1 : d.back();
      line("{");
      line("  AscendC::FixpipeParamsV220 fp;");
      line(cat("  fp.nSize = ", n, ";"));
      line(cat("  fp.mSize = ", m, ";"));
      line(cat("  fp.srcStride = ", m, ";"));
      line(cat("  fp.dstStride = ", n, ";"));
      line("  fp.quantPre = QuantMode_t::NoQuant;");
      line(cat("  AscendC::Fixpipe(gw[", ws_off_[x], "], ", buf(x), ", fp);"));
      line("}");
    }
    line("AscendC::CrossCoreSetFlag<2, PIPE_FIX>(0);");
    sync("FIX_M");
    return;
  }
  if (cube_instr(in)) return;
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
  return cube_side(p_, in);
}

}  // namespace detail

// The Atlas A2 cores a program runs on: the cube core (AIC) when its buffers are all in L1/L0,
// the vector core (AIV) when they are all in UB, and an AI Core's AIC with its two AIVs for a
// program on both units whose results flow from the cube to the vector unit only (L0C handed over
// through a GM workspace); vector results feeding the cube are not emitted yet.
const char* kernel_type(const TileProgram& p) {
  bool cube = false, vec = false;
  for (const BufferDecl& d : p.buffers) (d.pos == Pos::kUB ? vec : cube) = true;
  if (!(cube && vec)) return cube ? "KERNEL_TYPE_AIC_ONLY" : "KERNEL_TYPE_AIV_ONLY";
  for (const Instr& in : p.instrs) {
    if (!detail::cube_side(p, in)) continue;
    for (int src : in.src)
      if (src >= 0 && p.buffers[src].pos == Pos::kUB)
        throw Error(cat(p.op,
                        ": Ascend C emission: a vector result feeds the cube (UB -> GM "
                        "workspace -> L1 in a mixed kernel), not emitted yet"));
  }
  return "KERNEL_TYPE_MIX_AIC_1_2";
}

// GM bytes a mixed kernel's workspace takes (0 for the others): per AI Core, one float slot of
// every L0C buffer a vector instruction reads.
int64_t workspace_bytes(const TileProgram& p) {
  if (std::string(kernel_type(p)) != "KERNEL_TYPE_MIX_AIC_1_2") return 0;
  std::vector<int64_t> off;
  return detail::workspace_slots(p, &off) * 4 * std::max<int64_t>(1, p.block_dim);
}

}  // namespace asc::ascend

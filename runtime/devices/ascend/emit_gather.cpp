// TileBuilder::gather on the vector unit (docs/ASCENDC.md): a Gather by byte offsets the kernel
// builds in scratch, one block of them by the scalar unit and the rest by doubling Adds.
#include "runtime/devices/ascend/emitter.h"

namespace asc::ascend::detail {

// One offset per local element of the result, in its order: (offset + sum_j i_j * stride_j) *
// es for view element (i_j), and for the padding of a result in padded rows any element's (0;
// the padding is never read as data). The scalar unit writes the first block: one padded row
// (its view dims: those whose extents make up the row), or the innermost view dim of a dense
// result; then per outer view dim j (B offsets built so far, s_j copies wanted) Adds copies what
// is built with stride_j * es added, doubling each time. The Adds' operands start on 32-byte
// blocks: B a multiple of 8 offsets; otherwise the scalar unit writes every offset.
void Emitter::gather(int pc) {
  const Instr& in = p_.instrs[pc];
  const BufferDecl& sd = p_.buffers[in.src[0]];
  const BufferDecl& dd = p_.buffers[in.dst];
  const int64_t n = numel(in.box.sizes());
  const int64_t es = static_cast<int64_t>(dtype_size(sd.dtype));
  if (n == 0) return;
  if (es != 2 && es != 4) lack(pc, cat("Gather of ", dtype_name(sd.dtype)));
  if (sd.pitch > 0) fail(pc, "a gather from padded rows");
  if (numel(sd.dims) * es > 0x7fffffffLL) fail(pc, "a gather past 31-bit byte offsets");
  std::vector<std::pair<int64_t, int64_t>> dims;  // (size, stride), outermost first
  for (const BoxDim& d : in.box.dims)
    if (d.size > 1) dims.emplace_back(d.size, d.stride);
  if (dims.empty()) dims.emplace_back(1, 0);
  // The first block: the view dims [inner, end) of `span` elements, laid out over `slots`.
  size_t inner = dims.size() - 1;
  int64_t span = dims.back().first, slots = span;
  if (dd.pitch > 0) {
    while (span < dd.row && inner > 0) span *= dims[--inner].first;
    if (span != dd.row) fail(pc, "a gather into padded rows that cut across its view's dims");
    slots = dd.pitch;
  }
  const bool doubling = slots % 8 == 0;
  if (!doubling) inner = 0, span = slots = n;  // every offset by the scalar unit
  const int64_t total = n / span * slots;      // the result's local elements
  // View element e of the block, as an offset expression.
  std::string at = cat(in.box.offset);
  for (size_t j = dims.size(), q = 1; j-- > inner;) {
    at += cat(" + e / ", q, " % ", dims[j].first, " * ", dims[j].second);
    q *= static_cast<size_t>(dims[j].first);
  }
  // Gather's element types: 16-bit data moves as half, 32-bit as float.
  const std::string gt = es == 2 ? "half" : "float";
  need_scratch(total * 4);
  line("{");
  indent_ += 2;
  line("AscendC::LocalTensor<int32_t> off = scratch.ReinterpretCast<int32_t>();");
  sync("V_S");  // the scratch's earlier vector readers are done
  line(cat("for (int64_t e = 0; e < ", slots, "; ++e)"));
  line(cat("  off.SetValue(e, ", slots > span ? cat("e >= ", span, " ? 0 : ") : "",
           "static_cast<int32_t>((", at, ") * ", es, "));"));
  sync("S_V");
  for (int64_t built = slots, j = static_cast<int64_t>(inner) - 1; j >= 0; --j) {
    const auto [s, st] = dims[static_cast<size_t>(j)];
    for (int64_t len = built; len < built * s; len *= 2)
      line(cat("AscendC::Adds(off[", len, "], off, static_cast<int32_t>(", len / built * st * es,
               "), ", std::min(len, built * s - len), ");"));
    built *= s;
  }
  line(cat("AscendC::Gather(", buf(in.dst), ".ReinterpretCast<", gt, ">(), ", buf(in.src[0]),
           ".ReinterpretCast<", gt, ">(), off.ReinterpretCast<uint32_t>(), 0, ", total, ");"));
  indent_ -= 2;
  line("}");
}

}  // namespace asc::ascend::detail

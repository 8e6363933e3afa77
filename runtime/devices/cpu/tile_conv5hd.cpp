#include "runtime/devices/cpu/tile_conv5hd.h"

#include <algorithm>
#include <vector>

#include "runtime/devices/cpu/box_io.h"
#include "runtime/devices/cpu/conv_5hd.h"

namespace asc::cpu {
namespace {

constexpr int64_t kC0 = 16;

bool f32(const TileProgram& p, int b) {
  return b >= 0 && p.buffers[b].dtype == DType::kF32;
}

}  // namespace

Conv5hdLowering lower_conv5hd(const TileProgram& p) {
  Conv5hdLowering l;
  const int ni = static_cast<int>(p.instrs.size());
  int mmad = -1, loads = 0, ends = 0;
  for (int i = 0; i < ni; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind == InstrKind::kMmad) {
      if (mmad >= 0) return {};
      mmad = i;
    }
    if (in.kind == InstrKind::kLoadIm2col) {
      ++loads;
      l.im2col = i;
    }
    if (in.kind == InstrKind::kLoopEnd) ends = i;
  }
  if (mmad < 0 || loads != 1) return {};
  const Instr& mm = p.instrs[mmad];
  const Instr& ld = p.instrs[l.im2col];
  if (ld.dst != mm.src[0] || ld.im2col.c0 != kC0 || p.buffers[ld.dst].pos != Pos::kL0A ||
      ld.im2col.k[0] != 1 || ld.im2col.out[0] != 1 || !f32(p, ld.src[0]) || !f32(p, mm.dst))
    return {};
  // The K step's operands: the map and the weight panels, copied in right there.
  int panels = -1;
  for (int i = 0; i < mmad; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind == InstrKind::kCopyIn && in.dst == ld.src[0] && in.arg == 0) l.x_in = i;
    if (in.kind == InstrKind::kLoadL0 && in.dst == mm.src[1] && in.axis == kConv5hdPanel &&
        in.op == 1)
      panels = i;
  }
  if (l.x_in < 0 || panels < 0 || p.instrs[l.x_in].box.dims.size() != 6) return {};
  for (int i = 0; i < mmad; ++i) {
    const Instr& in = p.instrs[i];
    if (in.kind == InstrKind::kCopyIn && in.dst == p.instrs[panels].src[0] && in.arg == 1)
      l.w_in = i;
  }
  if (l.w_in < 0 || p.instrs[l.w_in].box.dims.size() != 2) return {};
  // The epilogue: y = act(c + bias + z), each optional, into one copy-out.
  int cur = mm.dst, bias = -1, z = -1;
  for (int i = std::max(mmad, ends) + 1; i < ni; ++i) {
    const Instr& in = p.instrs[i];
    switch (in.kind) {
      case InstrKind::kCopyIn:
        if (in.arg == 2 && l.bias_in < 0 && f32(p, in.dst)) {
          l.bias_in = i, bias = in.dst;
        } else if (in.arg == 3 && l.z_in < 0 && f32(p, in.dst) && in.box.dims.size() == 5) {
          l.z_in = i, z = in.dst;
        } else {
          return {};
        }
        break;
      case InstrKind::kBcastMid:
        if (in.src[0] != cur || in.src[1] != bias || bias < 0 || in.axis != 0 ||
            static_cast<BinaryOp>(in.op) != BinaryOp::kAdd)
          return {};
        cur = in.dst;
        break;
      case InstrKind::kBinary:
        if (static_cast<BinaryOp>(in.op) != BinaryOp::kAdd || z < 0 ||
            !((in.src[0] == cur && in.src[1] == z) || (in.src[0] == z && in.src[1] == cur)))
          return {};
        cur = in.dst;
        break;
      case InstrKind::kUnary: {
        const auto op = static_cast<UnaryOp>(in.op);
        if (in.src[0] != cur || l.act != 0 || (op != UnaryOp::kRelu && op != UnaryOp::kClip))
          return {};
        l.act = op == UnaryOp::kRelu ? Epilogue5hd::kRelu : Epilogue5hd::kClip;
        l.lo = in.alpha, l.hi = in.beta;
        cur = in.dst;
        break;
      }
      case InstrKind::kCopyOut:
        if (in.src[0] != cur || l.out >= 0 || in.box.dims.size() != 5 ||
            p.args[in.arg].dtype != DType::kF32)
          return {};
        l.out = i;
        break;
      default:
        return {};
    }
  }
  l.on = l.out >= 0;
  return l;
}

bool run_conv5hd_tile(const TileProgram& p, const Conv5hdLowering& l, int64_t* vars,
                      std::span<void* const> args) {
  for (int v = p.grid_rank(); v < p.num_vars(); ++v) vars[v] = 0;
  const auto gm = [&](int arg) { return static_cast<float*>(args[arg]); };
  const Instr& xi = p.instrs[l.x_in];
  const Instr& wi = p.instrs[l.w_in];
  const Instr& oi = p.instrs[l.out];
  const BoxEval ex = eval_box(xi.box, vars), ew = eval_box(wi.box, vars),
                eo = eval_box(oi.box, vars);
  if (eo.empty || ew.empty) return true;  // nothing of Y in this tile
  // The map from channel block 0 (the first K step's box) over all of them.
  Im2colSource src = map_view(static_cast<const std::byte*>(args[xi.arg]), xi.box, ex, kC0);
  if (xi.box.dims[1].start.offset != 0 || ex.lo[1] != 0) return false;
  src.hi[0] = xi.box.dims[1].extent;
  Im2col g = p.instrs[l.im2col].im2col;
  // Y's tile [1, rows, OW, M1 blocks, 16]: its valid rows and channel blocks.
  if (eo.lo[1] != 0 || eo.lo[2] != 0 || eo.lo[3] != 0 || eo.valid(4) != kC0 ||
      eo.valid(2) != g.out[2])
    return false;
  g.out[1] = eo.valid(1);
  const int64_t m = eo.valid(3) * kC0;
  float* y = gm(oi.arg) + eo.first;
  const float* w = gm(wi.arg) + ew.first;
  Epilogue5hd ep;
  ep.act = static_cast<Epilogue5hd::Act>(l.act);
  ep.lo = l.lo, ep.hi = l.hi;
  static thread_local std::vector<float> bias;
  if (l.bias_in >= 0) {
    const Instr& bi = p.instrs[l.bias_in];
    const BoxEval eb = eval_box(bi.box, vars);
    bias.assign(static_cast<size_t>(m), 0.f);
    if (!eb.empty) std::copy_n(gm(bi.arg) + eb.first, std::min(eb.valid(1), m), bias.begin());
    ep.bias = bias.data();
  }
  if (l.z_in >= 0) {
    const Instr& zi = p.instrs[l.z_in];
    const BoxEval ez = eval_box(zi.box, vars);
    ep.z = gm(zi.arg) + ez.first;
    ep.z_m1 = zi.box.dims[3].stride;
    ep.z_row = zi.box.dims[1].stride;
  }
  // Every lane of the map (those past the model's channels are zeros, their weight rows too).
  return conv5hd_f32(src, g, w, wi.box.dims[0].stride, src.hi[0] * kC0, m, 0, src.hi[0], y,
                     oi.box.dims[3].stride, oi.box.dims[1].stride, false, &ep);
}

}  // namespace asc::cpu

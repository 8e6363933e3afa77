// To5HD and From5HD (ai.asc 1): a feature map between NCHW and NC1HWC0 ("5HD", Ascend's own
// convolution layout, C0 = 16; FusedConv5HD computes on it). The load-time pass
// (runtime/layout_5hd.cpp) puts them where a chain of 5HD nodes starts and ends.
//   To5HD:   X [N, C, H, W] -> Y [N, C1 = ceil(C / 16), H, W, 16], Y[n, c1, h, w, l] =
//            X[n, c1 * 16 + l, h, w], zero for channels past C
//   From5HD: X [N, C1, H, W, 16] -> Y [N, C, H, W] (attribute `channels` = C, C1 = ceil(C / 16))
// One tile is image n, channel block c1 and TH rows, moved in one DMA each way: the NCHW side's
// box walks (h, w, lane) with the lane as its innermost dim (stride H * W), so the channels land
// in the lanes (the lanes past C are the copy-in's zeros, or clamped off by the copy-out).
#include <algorithm>

#include "ops/fused.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc::fused {
namespace {

constexpr int64_t kC0 = 16;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct Map {
  int64_t n, c, h, w;
  int64_t c1() const { return ceil_div(c, kC0); }
};

// The NCHW side's dims: To5HD's input, From5HD's output.
Map map_of(const LaunchContext& ctx, bool to) {
  const Shape& s = to ? ctx.inputs.at(0).shape : ctx.outputs.at(0).shape;
  if (s.size() != 4)
    throw ShapeError(cat(ctx.op->type, ": ", to_string(s), " is not [N, C, H, W]"));
  return {s[0], s[1], s[2], s[3]};
}

// [1, 1, TH rows, W, 16] of the 5HD side at the tile.
GmBox blocked_box(TileBuilder& t, const Map& m, int64_t th) {
  GmBox b;
  b.dims = {BoxDim{m.n, m.c1() * m.h * m.w * kC0, t.grid(0), 1},
            BoxDim{m.c1(), m.h * m.w * kC0, t.grid(1), 1},
            BoxDim{m.h, m.w * kC0, t.grid(2, th), th}, BoxDim{m.w, kC0, Coord{}, m.w},
            BoxDim{kC0, 1, Coord{}, kC0}};
  return b;
}

// The same elements on the NCHW side: [1, TH, W, 16 channels] (the channels innermost).
GmBox plain_box(TileBuilder& t, const Map& m, int64_t th) {
  GmBox b;
  b.dims = {BoxDim{m.n, m.c * m.h * m.w, t.grid(0), 1}, BoxDim{m.h, m.w, t.grid(2, th), th},
            BoxDim{m.w, 1, Coord{}, m.w}, BoxDim{m.c, m.h * m.w, t.grid(1, kC0), kC0}};
  return b;
}

void to_5hd_kernel(TileBuilder& t) {
  const Map m = map_of(t.ctx(), true);
  const int64_t th = t.param("TH");
  t.copy_out(0, t.copy_in(0, plain_box(t, m, th), Pos::kUB, "x"), blocked_box(t, m, th));
}

void from_5hd_kernel(TileBuilder& t) {
  const Map m = map_of(t.ctx(), false);
  const int64_t th = t.param("TH");
  t.copy_out(0, t.copy_in(0, blocked_box(t, m, th), Pos::kUB, "x"), plain_box(t, m, th));
}

// Rows per tile: as many as half of UB holds (double-buffered), fewer while the tiles would not
// fill the cores.
TilingData layout_tiling(const LaunchContext& ctx, bool to) {
  const Map m = map_of(ctx, to);
  const int64_t cores = cores_for(ctx);
  const int64_t row = std::max<int64_t>(m.w, 1) * kC0 * 4;
  int64_t th = std::clamp<int64_t>(ctx.spec->ub_bytes / 2 / row, 1, std::max<int64_t>(m.h, 1));
  while (th > 1 && m.n * m.c1() * ceil_div(m.h, th) < cores) th = (th + 1) / 2;
  TilingData t;
  t.grid = {m.n, m.c1(), ceil_div(std::max<int64_t>(m.h, 1), th)};
  t.params = {{"TH", th}};
  t.block_dim = std::clamp<int64_t>(numel(t.grid), 1, cores);
  return t;
}

std::vector<TensorType> infer_to_5hd(const InferContext& c) {
  const TensorType& x = c.inputs.at(0);
  if (!x.shape) return {TensorType{x.dtype, std::nullopt}};
  const SymShape& s = *x.shape;
  if (s.size() != 4 || !s[1].known())
    throw ShapeError(cat("To5HD: X ", x.str(), " is not [N, C, H, W] of known C"));
  return {
      TensorType{x.dtype, SymShape{s[0], Dim(ceil_div(s[1].value(), kC0)), s[2], s[3], Dim(kC0)}}};
}

std::vector<TensorType> infer_from_5hd(const InferContext& c) {
  const TensorType& x = c.inputs.at(0);
  const int64_t ch = c.attrs.i("channels");
  if (ch < 1) throw ShapeError(cat("From5HD: channels ", ch, " must be >= 1"));
  if (!x.shape) return {TensorType{x.dtype, std::nullopt}};
  const SymShape& s = *x.shape;
  if (s.size() != 5 || !(s[4] == Dim(kC0)) || !(s[1] == Dim(ceil_div(ch, kC0))))
    throw ShapeError(cat("From5HD: X ", x.str(), " is not [N, ", ceil_div(ch, kC0),
                         ", H, W, 16] of ", ch, " channels"));
  return {TensorType{x.dtype, SymShape{s[0], Dim(ch), s[2], s[3]}}};
}

void ref_to_5hd(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape& s = in[0].shape();
  const Map m{s[0], s[1], s[2], s[3]};
  for (int64_t i = 0; i < out[0].numel(); ++i) {
    const int64_t l = i % kC0, w = i / kC0 % m.w, h = i / kC0 / m.w % m.h;
    const int64_t c1 = i / kC0 / m.w / m.h % m.c1(), n = i / kC0 / m.w / m.h / m.c1();
    const int64_t c = c1 * kC0 + l;
    out[0].set(i, c < m.c ? in[0].at(((n * m.c + c) * m.h + h) * m.w + w) : 0.0);
  }
}

void ref_from_5hd(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape& s = out[0].shape();
  const Map m{s[0], s[1], s[2], s[3]};
  for (int64_t i = 0; i < out[0].numel(); ++i) {
    const int64_t w = i % m.w, h = i / m.w % m.h, c = i / m.w / m.h % m.c, n = i / m.w / m.h / m.c;
    out[0].set(i, in[0].at((((n * m.c1() + c / kC0) * m.h + h) * m.w + w) * kC0 + c % kC0));
  }
}

}  // namespace

void add_layout_5hd(Registry& r) {
  r.add(def_op("To5HD", 1, INT_MAX, kDomain)
            .input("X", "T")
            .output("Y", "T")
            .type_constraint("T", {DType::kF32})
            .describe("NCHW [N, C, H, W] -> NC1HWC0 [N, ceil(C / 16), H, W, 16], zero past C")
            .infer(infer_to_5hd)
            .tiling([](const LaunchContext& ctx) { return layout_tiling(ctx, true); })
            .kernel(to_5hd_kernel)
            .reference(ref_to_5hd));
  r.add(def_op("From5HD", 1, INT_MAX, kDomain)
            .input("X", "T")
            .output("Y", "T")
            .attr("channels", AttrKind::kInt)
            .type_constraint("T", {DType::kF32})
            .describe("NC1HWC0 [N, C1, H, W, 16] -> NCHW [N, channels, H, W]")
            .infer(infer_from_5hd)
            .tiling([](const LaunchContext& ctx) { return layout_tiling(ctx, false); })
            .kernel(from_5hd_kernel)
            .reference(ref_from_5hd));
}

}  // namespace asc::fused

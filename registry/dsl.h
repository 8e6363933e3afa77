// The kernel DSL: an op's tile kernel is a C++ function over a TileBuilder. Calling it once
// records a TileProgram (tile_program.h); the framework then places buffers, double-buffers
// copy-ins and runs the program for every tile on a device.
//
//   void add_kernel(TileBuilder& t) {      // one tile of C = A + B
//     ew_store(t, 0, ew_load(t, 0) + ew_load(t, 1));
//   }
//
// Values are buffer handles in SSA style: every operation yields a new local buffer and the
// placement pass reuses memory once a buffer is dead.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "registry/launch.h"
#include "registry/tile_program.h"

namespace asc {

class TileBuilder;

// A local buffer handle; arithmetic on handles records vector instructions.
struct Buf {
  int id = -1;
  TileBuilder* b = nullptr;
  bool valid() const { return b != nullptr; }
};

class TileBuilder {
 public:
  TileBuilder(const LaunchContext& ctx, const TilingData& tiling);

  // The launch context of the kernel being traced (inside splice(): the spliced op's).
  const LaunchContext& ctx() const { return *ctx_; }
  bool spliced() const { return !splices_.empty(); }  // inside splice(): copy-ins are bound
  const TilingData& tiling() const { return tiling_; }
  int64_t param(const std::string& key) const { return tiling_.get(key); }
  const BufferDecl& decl(Buf b) const { return prog_.buffers[b.id]; }
  const Shape& dims(Buf b) const { return decl(b).dims; }
  DType dtype(Buf b) const { return decl(b).dtype; }

  // Grid coordinate `axis` of the current tile, times `scale`.
  Coord grid(int axis, int64_t scale = 1) const { return Coord{axis, scale, 0}; }

  // for k in [0, count): body(k) — k is a Coord with scale 1.
  template <typename F>
  void loop(int64_t count, F&& body) {
    const int var = loop_begin(count);
    body(Coord{var, 1, 0});
    loop_end();
  }

  // DMA. The local buffer holds the box's elements densely, row-major over its sizes; `as`
  // (when given) shapes it otherwise with the same element count and order: adjacent box dims
  // merged, as an NC1HWC0 box [P, M1, C0] read as the [P, M1 * C0] of a product's columns. A
  // copy-out's box likewise takes any buffer of its element count.
  Buf copy_in(int input, const GmBox& box, Pos pos = Pos::kUB, std::string name = "",
              Shape as = {});
  void copy_out(int output, Buf src, const GmBox& box);

  // Vector unit (UB). Results are new UB buffers shaped like the first operand.
  Buf unary(UnaryOp op, Buf x, float alpha = 0.f, float beta = 0.f);
  Buf binary(BinaryOp op, Buf a, Buf b);
  Buf scalar(BinaryOp op, Buf a, double s, bool scalar_left = false);
  Buf bcast_mid(BinaryOp op, Buf a, Buf b, int axis);  // b = a's shape with dims[axis] = 1
  Buf compare(CmpOp op, Buf a, Buf b);
  Buf select(Buf cond, Buf a, Buf b);
  Buf cast(Buf x, DType to);
  Buf reduce(ReduceOp op, Buf x, int axis);  // keeps the axis, size 1
  // A strided view of x's elements (UB, or a product in L0C) gathered densely into UB (the
  // vector unit's Gather): result element (i_0, .., i_k) of `dims` is x's dense element
  // offset + sum_j i_j * strides[j], which must lie inside x (strides may be 0 or negative).
  // The result is shaped `as` when given (the same element count and order).
  Buf gather(Buf x, Shape dims, Shape strides, int64_t offset = 0, Shape as = {});
  // x with dim `axis` moved innermost ([.., a, rest..] -> [.., rest.., a]: a batch of 2-D
  // transposes, an NCHW box [C1, C0, H, W] into NC1HWC0's [C1, H, W, C0]), by gather().
  Buf transpose(Buf x, int axis, Shape as = {});
  Buf duplicate(DType dtype, Shape dims, double value);
  // A one-element float value known while tracing (a constant operand), spread over `dims`: a
  // duplicate that binary() folds into a scalar instruction (add, sub, mul, div, max, min) and
  // cast() carries to a wider float dtype; finish() drops the duplicate when nothing else reads
  // it. Only for operands of elementwise kernels (ew_load): a copy-in would zero-pad tail tiles.
  Buf known_scalar(DType dtype, Shape dims, double value);
  // acc = acc op x in place: the loop-carried form (split reductions, running max/sum).
  void accumulate(BinaryOp op, Buf acc, Buf x);

  // Cube unit. c is an L0C f32 [m, n] buffer; a is L0A [m, k], b is L0B [k, n]; each may carry
  // leading size-1 dims (a batched GM box gives [1, .., m, k]). Integer form: a and b of i8/u8
  // and c an L0C i32 buffer, c += (a - za) x (b - zb) exactly, za/zb the operands' zero points
  // (docs/DSL.md "Integer cube").
  Buf alloc(Pos pos, DType dtype, Shape dims, std::string name);
  // L1 -> L0A / L0B in fractal layout. `zero` (i8/u8 operands only): a UB buffer of the
  // operand's zero point, one value or one per row of an L0A operand / per column of an L0B one;
  // the operand the cube sees is l1 - zero.
  Buf load_l0(Buf l1, Pos pos, Buf zero = {});
  // L1 -> L0B for a B stored pre-packed in GM (weights in the cube's layout ahead of time, as
  // Ascend's ND -> NZ conversion at model conversion): l1 is [panels, k * panel] — rows of whole
  // panels of `panel` columns, each k units of k_pack k-rows interleaved — and the result the
  // [k, panels * panel] operand of mmad, with no layout change; n is the weight's true column
  // count (the last panel's padding is never part of the product).
  // pos = L0A: an A stored pre-packed (a convolution's weights [M, K] in panels of `panel` rows,
  // gemm.h's A layout); the result is the [panels * panel, k] operand, n the rows there are.
  Buf load_l0_panels(Buf l1, int64_t panel, int k_pack, int64_t n, Pos pos = Pos::kL0B);
  // L1 -> L0B (or L0A) as an image-to-column matrix, Ascend's Load3D: l1 holds a box
  // [1.., C, D, H, W] of an NCDHW feature map, zero where the box lies outside the map (a copy-in
  // starting before it: the padding); the result is the column matrix [C * window, P] in L0B, or
  // its transpose [P, C * window] in L0A (tile_program.h: Im2col). The box must cover every window.
  // l1 may be a UB result (a map the vector unit laid out as NC1HWC0), as load_l0's may.
  // `zero`: as load_l0's, one value (the padding is zero after it is subtracted).
  Buf load_l0_im2col(Buf l1, Pos pos, const Im2col& g, Buf zero = {});
  // c = (k == 0 ? 0 : c) + a x b; diag > 0: a is block diagonal (Instr::diag).
  void mmad(Buf c, Buf a, Buf b, Coord k, int64_t diag = 0);

  // Splicing (fusion: DESIGN.md "compatible tile programs are spliced"). Runs another op's tile
  // kernel inside this program: while it runs, ctx() is `ctx` (that op's own inputs, outputs and
  // attributes), its copy_in(i, ...) yields inputs[i] — a buffer of this program already holding
  // the tile, no DMA — and its copy_out(o, v, ...) records v as result o instead of writing GM.
  // Returns the results, one per output of `ctx` (invalid where the kernel wrote none). The
  // kernel's boxes are ignored, so it must treat the tile elementwise (ops with trait
  // kElementwise); every input buffer has this program's tile shape.
  std::vector<Buf> splice(const LaunchContext& ctx, std::span<const Buf> inputs,
                          const std::function<void(TileBuilder&)>& kernel);

  // The recorded program (grid, block_dim and args filled in from the tiling and context).
  TileProgram finish() &&;

 private:
  int loop_begin(int64_t count);
  void loop_end();
  Buf new_buffer(Pos pos, DType dtype, Shape dims, std::string name, bool copy_in = false);
  Buf emit(Instr in, Pos pos, DType dtype, Shape dims, const char* name);
  void check(Buf b, const char* what) const;
  void check_zero(Buf l1, Buf zero, int64_t per, const char* what) const;

  struct SpliceFrame {
    std::vector<Buf> inputs, outputs;
  };

  const LaunchContext* ctx_;
  const TilingData& tiling_;
  TileProgram prog_;
  int open_loops_ = 0;
  std::vector<SpliceFrame> splices_;  // innermost last
  std::map<int, double> known_;       // known_scalar buffers and their value
};

Buf operator+(Buf a, Buf b);
Buf operator-(Buf a, Buf b);
Buf operator*(Buf a, Buf b);
Buf operator/(Buf a, Buf b);
Buf operator+(Buf a, double s);
Buf operator-(Buf a, double s);
Buf operator*(Buf a, double s);
Buf operator/(Buf a, double s);
Buf operator-(Buf a);
Buf exp(Buf x);
Buf log(Buf x);
Buf sqrt(Buf x);
Buf max(Buf a, Buf b);
Buf min(Buf a, Buf b);

// Traces `kernel` for one launch; throws ShapeError naming the op and shapes on misuse.
template <typename Kernel>
TileProgram trace(const LaunchContext& ctx, const TilingData& tiling, Kernel&& kernel) {
  TileBuilder b(ctx, tiling);
  kernel(b);
  return std::move(b).finish();
}

}  // namespace asc

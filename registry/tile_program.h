// TileProgram: the IR a tile kernel is traced into. One program describes one tile; the device
// runs it for every tile of the grid, split over block_dim cores.
//
// Coordinates: variables [0, grid.size()) are the tile's grid coordinates, variables
// [grid.size(), grid.size() + loops) are loop counters. A GM box dimension starts at
// start.var * start.scale + start.offset and covers `size` elements, clamped to the tensor's
// `extent` (tail tiles); local buffers store the box row-major over the sizes (densely, or with
// padded rows: BufferDecl::pitch) and tail tiles are zero-padded, so vector instructions always
// run on whole buffers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "registry/shape.h"
#include "registry/tile_ops.h"

namespace asc {

// An affine function of one coordinate variable (or a constant when var < 0).
struct Coord {
  int var = -1;
  int64_t scale = 0;
  int64_t offset = 0;

  int64_t eval(const int64_t* vars) const { return (var < 0 ? 0 : vars[var] * scale) + offset; }
  std::string str(int grid_rank) const;
};

struct BoxDim {
  int64_t extent = 1;  // tensor extent along this dim (tail clamp)
  int64_t stride = 0;  // GM stride in elements; 0 broadcasts
  Coord start;         // first element of the box along this dim; may be negative (padding)
  int64_t size = 1;    // box (local buffer) extent
  // A strided view of the axis (ConvTranspose's output phases): box element i is axis element
  // x = (start + i) * step + phase of an axis of `extent` elements, at GM offset
  // (start + i) * stride + phase * (stride / step): stride is the GM stride per box element
  // (step times the axis's). step 1 and no phase: element start + i, as above.
  int64_t step = 1;
  Coord phase{};

  bool strided_view() const { return step != 1 || phase.var >= 0 || phase.offset != 0; }
  // The box elements [lo, hi) inside the tensor when the box starts at element s (and the
  // phase is ph): those before the tensor (a negative start: padding) and past its end (a tail
  // tile) are zero locally.
  int64_t lo(int64_t s, int64_t ph = 0) const {
    return std::clamp<int64_t>(ceil_step(-ph) - s, 0, size);
  }
  int64_t hi(int64_t s, int64_t ph = 0) const {
    return std::max(lo(s, ph), std::min(ceil_step(extent - ph) - s, size));
  }
  // GM offset of the phase.
  int64_t phase_offset(int64_t ph) const { return ph * (stride / step); }
  // ceil(a / step) for step > 0 and any a.
  int64_t ceil_step(int64_t a) const { return a >= 0 ? (a + step - 1) / step : -(-a / step); }
};

// A box of a GM tensor: element (i_0..i_r) of the box is at
// offset + sum_j (start_j + i_j) * stride_j.
struct GmBox {
  int64_t offset = 0;
  std::vector<BoxDim> dims;
  double fill = 0;  // what a copy-in reads outside the tensor (a max pool's pads: -inf)

  Shape sizes() const;
  bool unit_inner() const { return dims.empty() || dims.back().stride == 1; }
  // True when the whole box is one contiguous GM range (for every tile).
  bool contiguous() const;
  std::string str(int grid_rank) const;
};

struct BufferDecl {
  int id = -1;
  std::string name;
  Pos pos = Pos::kUB;
  DType dtype = DType::kF32;
  Shape dims;            // local extents; bytes(): the local layout's (below)
  bool copy_in = false;  // filled by DMA from GM: a double-buffering candidate
  int slots = 1;         // ping-pong slots after the double-buffer pass
  // Padded local layout (pad_rows pass, devices whose vector operands start on block
  // boundaries): the elements, in dims' order, form rows of `row` elements (a divisor of the
  // innermost dim whose extent is not 1) that take `pitch` elements each locally, so every row
  // starts on a block; pitch 0: dense. Only the local layout changes: boxes, shapes and element
  // order stay as dims say.
  int64_t pitch = 0;
  int64_t row = 0;
  // The allocation rounded up to a multiple of this many elements (0: not rounded): a unit that
  // reads whole repeats (Ascend's Compare) reads past the last element.
  int64_t round = 0;
  // A cube buffer in whole fractals (pad_fractals, devices with DeviceSpec::fractal_layout): its
  // matrix (the last two dims; rows 1 for one dim) is allocated as frac_rows x frac_cols, the
  // padding zeros for the cube; 0: as dims.
  int64_t frac_rows = 0;
  int64_t frac_cols = 0;

  // Extent of the innermost dim that is not 1 (1 when every dim is 1).
  int64_t row_len() const {
    for (size_t j = dims.size(); j-- > 0;)
      if (dims[j] != 1) return dims[j];
    return 1;
  }
  // Elements the buffer's layout spans (numel(dims) when dense), and its allocation.
  int64_t local_elems() const {
    const int64_t n = numel(dims);
    return pitch > 0 ? (n + row - 1) / row * pitch : n;
  }
  // The matrix a cube unit sees: the last two dims (rows 1 for one dim), and their padding.
  int64_t mat_rows() const { return dims.size() >= 2 ? dims[dims.size() - 2] : 1; }
  int64_t mat_cols() const { return dims.empty() ? 1 : dims.back(); }
  int64_t padded_rows() const { return frac_rows > 0 ? frac_rows : mat_rows(); }
  int64_t padded_cols() const { return frac_cols > 0 ? frac_cols : mat_cols(); }
  int64_t alloc_elems() const {
    if (frac_rows > 0) {
      const int64_t m = mat_rows() * mat_cols();
      return m == 0 ? 0 : numel(dims) / m * frac_rows * frac_cols;
    }
    const int64_t e = local_elems();
    return round > 0 ? (e + round - 1) / round * round : e;
  }
  // Local offset of dense element e (the element order dims give).
  int64_t local_index(int64_t e) const { return pitch > 0 ? e / row * pitch + e % row : e; }
  int64_t bytes() const { return alloc_elems() * static_cast<int64_t>(dtype_size(dtype)); }
};

enum class InstrKind : uint8_t {
  kCopyIn,     // dst <- GM[arg] box            (MTE2)
  kCopyOut,    // GM[arg] box <- src0           (MTE3 / Fixpipe: casts to the GM dtype)
  kUnary,      // dst = op(src0; alpha, beta)
  kBinary,     // dst = src0 op src1
  kScalar,     // dst = src0 op scalar (scalar op src0 when scalar_left)
  kBcastMid,   // dst[o,r,i] = src0[o,r,i] op src1[o,i]; r is dims[axis] of src0
  kCompare,    // dst(bool) = src0 cmp src1
  kSelect,     // dst = src0(bool) ? src1 : src2
  kCast,       // dst = cast(src0)
  kReduce,     // dst[o,i] = reduce_r src0[o,r,i]; r is dims[axis]
  kDuplicate,  // dst[:] = scalar
  kGather,     // dst = src0's elements at box (a strided view of its dense elements: offset + sum
               // i_j * stride_j over the box's sizes, no clamping), densely in the box's order
  kLoadL0,     // dst (L0A/L0B) = fractal layout of src0 (L1); axis > 0: src0 already holds
            // panels of `axis` columns (op = k_pack) of a weight of `count` columns, dst is their
            // [k, n] (MTE1). src1 (8-bit operands, also kLoadIm2col): the zero point subtracted
  kLoadIm2col,  // dst (L0B [K, P] / L0A [P, K]) = image to column of src0 (L1), `im2col` (MTE1)
  kMmad,        // dst (L0C, f32; i32 for i8/u8) = (var == 0 ? 0 : dst) + src0 x src1 (Cube)
  kLoopBegin,   // for var in [0, count)
  kLoopEnd,
};
std::string_view instr_name(InstrKind k);

// Load3D's image-to-column geometry. The source (L1) holds a box [.., C, D, H, W] of an NCDHW
// feature map, zero where the box lies outside the map (padding); the window of output position
// (od, oh, ow) of the tile's out[0] x out[1] x out[2] reads source element
// [c, od * s[0] + a * d[0], oh * s[1] + b * d[1], ow * s[2] + e * d[2]] for kernel offset (a, b,
// e). The column matrix is [K, P]: K = C * k[0] * k[1] * k[2] over (c, a, b, e), row-major, as a
// Conv weight [M, C, kD, kH, kW] orders its K; P = out[0] * out[1] * out[2], row-major.
// c0 > 1: the source is an NC1HWC0 ("5HD", Ascend's own convolution layout) box [.., C1, D, H, W,
// C0] with C0 = c0 channels innermost, and K = C1 * window * c0 runs over (c1, a, b, e, c0): the
// c0 channels of one window offset are adjacent (Load3D's order on a 5HD map).
struct Im2col {
  int64_t k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1};
  int64_t d[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t c0 = 1;

  int64_t window() const { return k[0] * k[1] * k[2]; }
  int64_t positions() const { return out[0] * out[1] * out[2]; }
  // Rank of the source's trailing dims: [C, D, H, W] or [C1, D, H, W, C0].
  int source_rank() const { return c0 > 1 ? 5 : 4; }
  // Source extent along spatial dim j that a tile's windows read.
  int64_t span(int j) const { return (out[j] - 1) * s[j] + (k[j] - 1) * d[j] + 1; }
};

struct Instr {
  InstrKind kind = InstrKind::kUnary;
  int dst = -1;
  int src[3] = {-1, -1, -1};
  int arg = -1;  // GM argument: inputs first, then outputs
  GmBox box;
  uint8_t op = 0;  // UnaryOp / BinaryOp / CmpOp / ReduceOp by kind
  float alpha = 0.f, beta = 0.f;
  double scalar = 0.0;
  bool scalar_left = false;
  int axis = 0;
  int64_t count = 0;           // loop trip count
  int var = -1;                // loop variable (kLoopBegin), k variable (kMmad)
  bool prefetch_next = false;  // copy-in in a loop: fetch the next iteration's box ahead (pass)
  bool in_place = false;  // kBinary with dst == src0 (TileBuilder::accumulate); kMmad: c += a x b
                          // always (its k coordinate a nonzero constant)
  // kMmad: A is block diagonal, row r zero outside k in [r * diag, (r + 1) * diag) (0: dense).
  // The cube multiplies it whole; a device may skip the zeros (the cpu does).
  int64_t diag = 0;
  Im2col im2col;  // kLoadIm2col

  bool reads(int buf) const;
  // Instructions that read each element before writing the same element (legal in place).
  bool elementwise() const;
};

// Where the placement pass put each buffer, per position.
struct Placement {
  std::vector<int64_t> offset;           // per buffer: byte offset of slot 0 in its position
  std::vector<int64_t> slot_stride;      // per buffer: bytes between ping-pong slots
  int64_t used[6] = {0, 0, 0, 0, 0, 0};  // bytes per Pos with liveness reuse
  int64_t used_no_reuse[6] = {0, 0, 0, 0, 0, 0};  // bytes per Pos if every buffer had its own
  int64_t total_used() const;
  int64_t total_no_reuse() const;
};

// A program's identity, by which a device keeps what it makes of the program (the cpu device's
// lowering, a compiled kernel) in its own cache: unique per program object, and a copy is a new
// program (programs never change once launched; a copy may be changed before it is).
class ProgramId {
 public:
  ProgramId() : v_(next()) {}
  ProgramId(const ProgramId&) : v_(next()) {}
  ProgramId& operator=(const ProgramId&) {
    v_ = next();
    return *this;
  }
  uint64_t value() const { return v_; }

 private:
  static uint64_t next();
  uint64_t v_;
};

struct TileProgram {
  std::string op;                // op type, e.g. "Add"
  std::vector<TensorDesc> args;  // GM arguments: inputs then outputs
  int num_inputs = 0;
  Shape grid;             // tile grid; tiles run in row-major order (last axis fastest)
  int64_t block_dim = 1;  // cores; core c runs a contiguous range of tiles
  int num_loop_vars = 0;
  std::vector<BufferDecl> buffers;
  std::vector<Instr> instrs;
  bool optimized = false;  // passes ran with optimisation (double buffering, prefetch)
  Placement placement;
  ProgramId id;  // the key of what devices make of the above (their caches)

  int64_t num_tiles() const { return numel(grid); }
  int grid_rank() const { return static_cast<int>(grid.size()); }
  int num_vars() const { return grid_rank() + num_loop_vars; }
  // Loop nest with buffers, offsets and the reuse report.
  std::string dump() const;
};

}  // namespace asc

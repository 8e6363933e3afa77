// Row views: the tiling helper of reductions and normalisations (ReduceSum, Softmax, ...).
//
// A RowView describes a contiguous input with some axes reduced. Size-1 dims are dropped and
// adjacent dims of the same kind (reduced or kept) merged, so the view alternates kept and
// reduced dims, e.g. axes [0,2] of [A,B,C] give [A:r, B:k, C:r] and axis 1 of [A,B,C] gives
// [A:k, B:r, C:k]. Every output element reduces `count` input elements.
//
// Tiling (row_tiling): one grid axis per kept view dim, in order; the box of a tile covers B_j
// elements of view dim j (params "B0", "B1", ...). Reduced dims are filled from the innermost
// outward: whole dims while they fit, then one dim in chunks, then single elements — so at most
// one reduced dim is chunked and every dim outside it has B_j = 1. Reduced dims with
// B_j < extent are walked by loops (row_chunks) whose tails are exact boxes, never padded: a
// reduction never sees padding. Kept dims are tiled like elementwise ones: tail tiles are padded
// and clamped on copy-out.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "registry/dsl.h"
#include "registry/launch.h"

namespace asc {

struct RowView {
  Shape dims;                 // view extents; at least one dim
  std::vector<bool> reduced;  // per view dim
  Shape in_strides;           // input element strides per view dim
  Shape out_strides;          // reduced output (kept dims only, contiguous); 0 for reduced dims
  int64_t count = 1;          // input elements per output element (product of reduced extents)

  int64_t kept_numel() const;  // output elements
  bool has_reduced() const;
};

// View of a contiguous input `in` reducing `axes` (normalised to [0, rank), distinct).
RowView row_view(const Shape& in, std::span<const int64_t> axes);

// Tiling of a row program over `v` (see above): the largest element budget per tile whose traced
// program fits ctx.spec, then split so that there are at least as many tiles as cores where the
// kept extent allows it.
TilingData row_tiling(const LaunchContext& ctx, const RowView& v);

// A tile's position in the view: per view dim, the first element and the box size.
struct RowCursor {
  std::vector<Coord> start;
  Shape size;
};

// The tile's cursor with reduced dims at their first chunk.
RowCursor row_tile(const RowView& v, const TilingData& tiling);
// The tile's sizes with its reduced dims 1 (a per-row result's shape); `looped`: some reduced dim
// takes more than one chunk.
Shape row_kept(const RowView& v, const RowCursor& tile, bool& looped);
// GM box of the input (or an output shaped like it) at the cursor: every view dim.
GmBox row_in_box(const RowView& v, const RowCursor& c);
// GM box of the reduced output at the cursor: kept dims only.
GmBox row_out_box(const RowView& v, const RowCursor& c);

// Calls chunk(cursor) once per reduced chunk of the tile: inside one loop per reduced dim with
// B_j < extent, plus an exact tail chunk where B_j does not divide the extent. No chunk when
// count == 0.
void row_chunks(TileBuilder& t, const RowView& v,
                const std::function<void(const RowCursor&)>& chunk);

// Reduces every reduced dim (size > 1) of x, a buffer shaped like a cursor's box sizes.
Buf row_reduce_box(TileBuilder& t, ReduceOp op, Buf x, const RowView& v);

// The tile's reduction of input `input` (cast to compute_dtype) with op kSum or kMax: one buffer
// of the kept box (reduced dims 1). Identity (0 / lowest) when count == 0; loop-carried
// accumulation when the reduced extent does not fit one chunk.
Buf row_reduce_input(TileBuilder& t, int input, ReduceOp op, const RowView& v);

// The lowest value of a compute dtype: -inf for floats, the minimum for integers.
double lowest_value(DType t);

}  // namespace asc

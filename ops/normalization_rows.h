// The moments tile kernel shared by the row normalisations (normalization_rows.cpp) and its
// helpers: [N, C, S] views, broadcasting a reduced buffer back, parameter boxes.
#pragma once

#include <functional>
#include <vector>

#include "ops/normalization.h"
#include "registry/dsl.h"
#include "registry/rows.h"

namespace asc {

// What a moments kernel does besides y = (x - mean) * rstd (input 0 -> output 0).
struct MomentsSpec {
  RowView view;
  double eps = 1e-5;
  bool eps_on_std = false;  // rstd = 1 / (sqrt(var) + eps) instead of 1 / sqrt(var + eps)
  // x for the chunk at the cursor (compute dtype); null: input 0. `last` marks the pass that
  // writes Y (a load may write a by-product there: SkipLayerNormalization's input + skip).
  std::function<Buf(TileBuilder&, const RowCursor&, bool last)> load;
  // y -> y * scale + bias for the chunk at the cursor (compute dtype); null: none.
  std::function<Buf(TileBuilder&, Buf y, const RowCursor&)> affine;
  // Writes statistics outputs; mean, var and rstd have the tile's kept box (reduced dims 1).
  std::function<void(TileBuilder&, Buf mean, Buf var, Buf rstd, const RowCursor& tile)> stats;
};

// X [N, C, d...] as the unmerged view [N, C, S] (S = prod d, 1 for rank 2); every dim keeps its
// own view dim (size 1 included) so C has its own grid axis.
RowView ncs_view(const Shape& x, bool reduce_batch, bool reduce_spatial);

// x op s where s is x's shape with some dims 1 (broadcast along them).
Buf bcast_to(TileBuilder& t, BinaryOp op, Buf x, Buf s);

// Box of a parameter tensor at the cursor: per view dim its element stride, 0 broadcasts (box
// size 1 there).
GmBox param_box(const RowView& v, const RowCursor& c, const Shape& strides);

TilingData moments_tiling(const LaunchContext& ctx, const RowView& v, bool stats_out);
void moments_kernel(TileBuilder& t, const MomentsSpec& s);

// Reference moments in double: per kept index (row-major over the kept dims of x) mean and
// population variance over the reduced dims; kept_of maps each element of x to its kept index.
struct RefMoments {
  std::vector<double> mean, var;
  std::vector<int64_t> kept_of;
};
RefMoments ref_moments(const Tensor& x, const std::vector<bool>& reduced);

}  // namespace asc

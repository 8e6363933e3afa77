// Tiling helpers: auto_tiling (search tile sizes that fit the device) and the standard views
// elementwise and row-wise ops tile over.
#pragma once

#include <functional>
#include <vector>

#include "registry/dsl.h"
#include "registry/launch.h"
#include "registry/op_def.h"

namespace asc {

// Traces ctx.op's tile kernel under `tiling` and runs the passes (placement, capacity check).
TileProgram trace_program(const LaunchContext& ctx, const TilingData& tiling);

// Returns the first candidate whose traced program fits ctx.spec; CapacityError (from the last
// candidate) when none does. Candidates come in order of preference.
TilingData auto_tiling(const LaunchContext& ctx, const std::vector<TilingData>& candidates);

// Largest multiple s of align in [align, hi] whose make(s) fits (fit must shrink with s):
// doubling, then bisection.
TilingData auto_tiling(const LaunchContext& ctx, int64_t align, int64_t hi,
                       const std::function<TilingData(int64_t)>& make);

// Cores a kernel may use: vector cores for vector kernels, cube cores for contraction kernels.
int64_t cores_for(const LaunchContext& ctx);

// ---- Elementwise ops over broadcast operands -------------------------------------------------
// The output shape with size-1 dims dropped and adjacent dims merged where every operand agrees
// on broadcasting; strides per argument (inputs, then outputs), 0 where an operand broadcasts.
struct EwView {
  Shape dims;
  std::vector<Shape> strides;
};
EwView ew_view(const LaunchContext& ctx);

// Tiles the view's last dim by TI elements and its second-last by TR rows; grid over the rest.
TilingData elementwise_tiling(const LaunchContext& ctx);
GmBox ew_box(const LaunchContext& ctx, const TilingData& tiling, int arg);

// Compute dtype of a storage dtype: f16/bf16 compute in f32, like Ascend kernels do.
DType compute_dtype(DType t);
// Input `input`'s elementwise box as a buffer: a copy-in, or for a one-element float constant
// (known while tracing) a known_scalar, which binary() folds into scalar instructions. Inside a
// splice: the buffer bound to the input.
Buf ew_copy_in(TileBuilder& t, int input);
// Copy-in of input `i`'s tile (broadcast expanded), cast to its compute dtype.
Buf ew_load(TileBuilder& t, int input);
// Cast to output `o`'s dtype and copy out.
void ew_store(TileBuilder& t, int output, Buf value);

}  // namespace asc

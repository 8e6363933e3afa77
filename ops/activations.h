// The activations family, split over activations.cpp (pointwise activations with scalar
// attributes), activations_prelu.cpp (PRelu, Shrink, ThresholdedRelu: compare/select kernels) and
// activations_clip.cpp (Clip, Dropout). CastLike lives with Cast in cast_where.cpp.
#pragma once

#include <initializer_list>

#include "registry/dsl.h"
#include "registry/registry.h"
#include "registry/tensor.h"

namespace asc {

void register_activations_prelu(Registry& r);
void register_activations_clip(Registry& r);

// ---- Elementwise tiles with scalar operands --------------------------------------------------
// ew_view (registry/tiling.h) aligns every input to the output's rank. Inputs that are not
// elementwise operands (Clip's min/max, CastLike's target_type, Dropout's ratio) may have any
// rank; act_view replaces them by rank-0 descs so the view sees only the data operands, and a
// box of such an input reads its element 0 everywhere (stride 0).
LaunchContext act_view(const LaunchContext& ctx, std::initializer_list<int> scalar_inputs);
// Copy-in of input `input`'s tile under `view`, cast to its compute dtype.
Buf act_load(TileBuilder& t, const LaunchContext& view, int input);
// Cast to output `output`'s dtype and copy out under `view`.
void act_store(TileBuilder& t, const LaunchContext& view, int output, Buf value);

}  // namespace asc

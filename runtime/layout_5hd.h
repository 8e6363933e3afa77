// The NC1HWC0 ("5HD") layout pass: convolutions that feed one another compute on 5HD maps
// (ops/fused_conv_5hd.cpp), the layout Ascend convolves in and that keeps a position's 16
// channels in one vector on the cpu; To5HD / From5HD (ops/layout_5hd.cpp) convert where such a
// chain meets the rest of the graph. Runs at load after fusion (its FusedConv nodes) and before
// pack_conv_weights (ModelOptions::conv_layout).
#pragma once

#include <vector>

#include "runtime/graph.h"

namespace asc {

// Rewrites the FusedConv nodes that take part (2-D, one group, f32, a constant unpacked weight,
// no post_scale/shift, explicit pads, at least 16 input channels) and form groups connected
// through their X or Z inputs of at least four convolutions per value converted into or out of
// the group (a value in `keep` only does not count), into FusedConv5HD with the weight packed in
// `panel` columns and `k_pack` interleaved k rows (the cpu cube kernels',
// runtime/devices/cpu/gemm.h). Values a rewritten conv produces keep their NCHW name through a
// From5HD wherever anything else reads them (other nodes, the graph's outputs, `keep`). Returns the
// convs rewritten.
int convert_to_5hd(Graph& g, const std::vector<int>& keep, int64_t panel, int64_t k_pack);

}  // namespace asc

// Einsum's pieces shared by the host kernel (einsum.cpp) and the tile path (einsum_tile.cpp,
// einsum_ops.cpp): the parsed equation, the size and strides of every label.
//
// Labels: letters are ids 0..51, the E ellipsis dims (E = the largest ellipsis rank) 52..52+E-1;
// a term's ellipsis of e dims covers the last e of them.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "registry/launch.h"
#include "registry/op_def.h"
#include "registry/registry.h"
#include "registry/tensor.h"

namespace asc {

constexpr int kEinsumLetters = 52;

struct EinsumEquation {
  std::vector<std::vector<int>> terms;  // per input: label per dim
  std::vector<int> out;                 // output labels
  int labels = kEinsumLetters;          // letters + ellipsis dims
};

// The equation for inputs of these ranks; ShapeError naming the equation on a bad one.
EinsumEquation einsum_parse(const std::string& raw, const std::vector<size_t>& ranks);
// Size per label (-1: unused); ShapeError when inputs disagree.
std::vector<int64_t> einsum_label_sizes(const EinsumEquation& e, std::span<const Shape> shapes,
                                        const std::string& raw);
// Per input and label: the element stride (the sum over the input's dims with that label: a
// diagonal; 0 where an ellipsis dim of size 1 broadcasts, or the input lacks the label).
std::vector<std::vector<int64_t>> einsum_label_strides(const EinsumEquation& e,
                                                       std::span<const Shape> shapes,
                                                       const std::vector<int64_t>& size);

// The tile path (einsum_tile.cpp): EinsumPrep (diagonals, sums of labels one input alone has,
// permutes) and EinsumMatMul (batched, strided products) programs, ai.asc (einsum_ops.cpp).
// einsum_tile_covers: f32 / f16 / bf16 data, no empty input, launch_program set.
// einsum_tile_run: false (nothing run) when a view needs more than 8 box dims.
bool einsum_tile_covers(const LaunchContext& ctx, std::span<const Tensor> in);
bool einsum_tile_run(const LaunchContext& ctx, std::span<const Tensor> in, Tensor& out);
std::vector<ProgramLaunches> einsum_launches(const LaunchContext& ctx);
void register_einsum_programs(Registry& r);

}  // namespace asc

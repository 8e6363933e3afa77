// Resize / Upsample pieces shared by the host kernel (resize.cpp) and the tile path
// (resize_tile.cpp): the resolved spec of a launch and the 1-D taps of every output coordinate.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "registry/launch.h"
#include "registry/op_def.h"
#include "registry/tensor.h"

namespace asc {

struct ResizeVersion {
  const char* type;
  int since, until;
};

// Everything a resize needs besides the data: per-dim scale and output size, roi, modes.
struct ResizeSpec {
  Shape in, out;
  std::vector<double> scale, roi;
  std::vector<double> len;  // resized length in coordinate maps: in * scale, or sizes
  std::string mode = "nearest", coord = "asymmetric", nearest = "simple";
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false, antialias = false;
};

// The (index, weight) taps of one output coordinate (1 nearest, 2 linear, 4 cubic, wider with
// antialias); `outside`: extrapolate instead.
struct Taps {
  std::vector<int64_t> idx;
  std::vector<double> w;
  bool outside = false;
  int n() const { return static_cast<int>(idx.size()); }
};

// The spec of a launch: `value(k)` gives input k's value or nullptr when absent; ShapeError for
// inconsistent scales / sizes / roi.
ResizeSpec resize_spec(const ResizeVersion& v, const Attrs& a, const Shape& x,
                       const std::function<const Tensor*(size_t)>& value);
// Taps of output coordinate j along dim d.
Taps resize_taps(const ResizeSpec& s, size_t d, int64_t j);
// Whether dim d is resized (an identity dim is skipped).
bool resize_axis_active(const ResizeSpec& s, size_t d);

// The tile path (resize_tile.cpp): one banded-matmul program (ResizeAxis, ai.asc) per resized
// dim. resize_tile_covers: float data with launch_program set.
bool resize_tile_covers(const LaunchContext& ctx, std::span<const Tensor> in);
void resize_tile_run(const ResizeVersion& v, const LaunchContext& ctx, std::span<const Tensor> in,
                     std::span<Tensor> out);
std::vector<ProgramLaunches> resize_launches(const ResizeVersion& v, const LaunchContext& ctx);
void register_resize_axis(Registry& r);

}  // namespace asc

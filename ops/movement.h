// The movement family: ops that move bytes without arithmetic. One registration function per
// file, plus the byte-moving helpers every file shares (ops/movement.cpp).
//
// Expand, Tile, Concat, Split, DepthToSpace and SpaceToDepth are tile kernels (copy-in / copy-out
// of strided GM boxes, split over the cores). The rest are host kernels that never touch elements
// through Tensor::at: they move contiguous runs with memcpy and strided elements by element size
// (1, 2, 4 or 8 bytes), so every dtype is exact.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "registry/dsl.h"
#include "registry/infer.h"
#include "registry/registry.h"

namespace asc {

void register_movement_shape(Registry& r);  // Reshape, Shape, Size, Flatten, Squeeze, Unsqueeze,
                                            // Identity (movement_shape.cpp)
void register_movement_join(Registry& r);   // Concat, Split: tile kernels (movement_join.cpp)
void register_movement_slice(Registry& r);  // Slice (movement_slice.cpp)
void register_movement_broadcast(Registry& r);  // Expand, Tile: tile kernels
                                                // (movement_broadcast.cpp)
void register_movement_pad(Registry& r);        // Pad, CenterCropPad (movement_pad.cpp)
void register_movement_fill(Registry& r);       // ConstantOfShape, Range, EyeLike, Trilu
                                                // (movement_fill.cpp)
void register_movement_space(Registry& r);      // DepthToSpace, SpaceToDepth: tile kernels
                                                // (movement_space.cpp)

// dst[sum_k i_k * dst_strides[k]] = src[sum_k i_k * src_strides[k]] for every index i over
// `dims`; strides in elements of `elem_size` bytes, any sign, 0 allowed in src (broadcast).
// Dims that are contiguous in both are merged; a unit-stride innermost run is one memcpy.
void copy_strided(std::byte* dst, const Shape& dst_strides, const std::byte* src,
                  const Shape& src_strides, const Shape& dims, size_t elem_size);
// The whole of src into dst (same byte count: Reshape, Squeeze, Identity, ...).
void copy_all(Tensor& dst, const Tensor& src);
// n copies of the element at `value` into dst (doubling memcpy).
void fill_elements(std::byte* dst, int64_t n, const std::byte* value, size_t elem_size);

// A strided-view copy as a tile kernel: the output (contiguous) over `dims` reads the input at
// in_offset + sum_k i_k * in_strides[k] (strides >= 0; 0 broadcasts). copy_view drops size-1 dims
// and merges a dim into the next inner one when the input steps over both evenly (R >= 1).
struct CopyView {
  Shape dims;
  Shape in_strides;
  int64_t in_offset = 0;
};
CopyView copy_view(const Shape& dims, const Shape& in_strides, int64_t in_offset);
// Tile sizes T<k> filled from the innermost dim within an element budget that auto_tiling grows
// to the local memory; grid over every dim; enough tiles for every core.
TilingData copy_tiling(const LaunchContext& ctx, const CopyView& v);
// One tile: copy-in of the input box, copy-out of the same box of the output.
void copy_kernel(TileBuilder& t, const CopyView& v);

inline std::byte* bytes_of(Tensor& t) {
  return static_cast<std::byte*>(t.data());
}
inline const std::byte* bytes_of(const Tensor& t) {
  return static_cast<const std::byte*>(t.data());
}

// Every dtype movement ops accept: numeric and bool.
inline const std::vector<DType>& movement_types() {
  return numeric_bool_types();
}

// "[1,2,3]" for int lists in messages.
inline std::string ints_str(const std::vector<int64_t>& v) {
  return to_string(Shape(v));
}

// The value of a shape-like input as int64s: need_value (ValueUnknownError while unknown), and a
// ShapeError naming the op when it is not 0-D or 1-D.
std::vector<int64_t> need_ints(const InferContext& c, size_t k, const char* what);
// Whether optional input k is present.
inline bool has_input(const InferContext& c, size_t k) {
  return k < c.inputs.size() && c.inputs[k].dtype != DType::kUndefined;
}
inline bool has_input(std::span<const Tensor> in, size_t k) {
  return k < in.size() && in[k].defined();
}

}  // namespace asc

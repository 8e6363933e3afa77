// Cases of the nn family: Conv, ConvTranspose, pools, MaxUnpool, Resize, Upsample, GridSample,
// RoiAlign. Resize / GridSample / RoiAlign cases are in cases_nn_resize.cpp.
#include "ops/op_cases.h"

namespace asc::test {
namespace {

using V = std::vector<int64_t>;
constexpr DType f32 = DType::kF32, f16 = DType::kF16, f64 = DType::kF64;

std::string S(const char* s) {
  return s;
}

void add_conv(std::vector<OpCase>& c) {
  c.push_back({"Conv",
               11,
               {in(f32, {1, 3, 7, 7}), in(f32, {4, 3, 3, 3}), in(f32, {4})},
               {{"pads", V{1, 1, 1, 1}}},
               "pad1"});
  c.push_back({"Conv",
               11,
               {in(f32, {2, 4, 9, 8}), in(f32, {6, 2, 3, 2}), in(f32, {6})},
               {{"group", int64_t{2}},
                {"pads", V{1, 0, 2, 1}},
                {"strides", V{2, 1}},
                {"dilations", V{1, 2}}},
               "group_stride_dil"});
  c.push_back({"Conv",
               11,
               {in(f32, {2, 3, 11}), in(f32, {5, 3, 3})},
               {{"auto_pad", S("SAME_UPPER")}, {"strides", V{2}}},
               "1d_same_upper"});
  c.push_back({"Conv",
               11,
               {in(f32, {1, 2, 5, 6, 4}), in(f32, {3, 2, 2, 3, 2}), in(f32, {3})},
               {{"auto_pad", S("SAME_LOWER")}, {"strides", V{1, 2, 1}}},
               "3d_same_lower"});
  c.push_back({"Conv",
               11,
               {in(f32, {1, 2, 6, 5}), in(f32, {3, 2, 3, 3})},
               {{"auto_pad", S("VALID")}, {"strides", V{2, 2}}, {"kernel_shape", V{3, 3}}},
               "valid"});
  c.push_back(
      {"Conv", 11, {in(f32, {2, 5, 3, 4}), in(f32, {7, 5, 1, 1}), in(f32, {7})}, {}, "pointwise"});
  c.push_back({"Conv",
               11,
               {in(f32, {1, 4, 6, 6}), in(f32, {4, 1, 3, 3})},
               {{"group", int64_t{4}}, {"pads", V{1, 1, 1, 1}}},
               "depthwise"});
  c.push_back({"Conv", 11, {in(f32, {0, 3, 5, 5}), in(f32, {2, 3, 3, 3})}, {}, "empty_batch"});
  c.push_back({"Conv",
               11,
               {in(f16, {1, 3, 5, 5}), in(f16, {2, 3, 3, 3}), in(f16, {2})},
               {{"pads", V{1, 1, 1, 1}}}});
  c.push_back({"Conv", 11, {in(f64, {1, 2, 5, 4}), in(f64, {3, 2, 2, 2})}, {{"strides", V{2, 1}}}});
  c.push_back({"Conv",
               1,
               {in(f32, {1, 2, 5, 5}), in(f32, {3, 2, 3, 3}), in(f32, {3})},
               {{"pads", V{0, 1, 2, 0}}}});
  // K = 1200 spans several col chunks (of whole output rows) and GEMM k blocks; M = 5 covers
  // the micro-kernel and its row remainder.
  c.push_back({"Conv",
               11,
               {in(f32, {1, 48, 16, 16}), in(f32, {5, 48, 5, 5}), in(f32, {5})},
               {{"pads", V{2, 2, 2, 2}}},
               "col_chunks"});
  c.back().atol = c.back().rtol = 1e-4;  // 1200-term float sums
  // P = 576 > one GEMM column block.
  c.push_back({"Conv", 11, {in(f32, {1, 3, 24, 24}), in(f32, {6, 3, 1, 1})}, {}, "wide_pointwise"});
  c.back().atol = 1e-4;
  // The tile kernel's edges: output channels not a multiple of the cube granule, channel blocks
  // with a tail (C = 37), a stride-2 window whose pads only the first rows and columns touch,
  // several position tiles per image (OH 20) and images in a batch.
  c.push_back({"Conv",
               11,
               {in(f32, {2, 37, 20, 19}), in(f32, {13, 37, 3, 3}), in(f32, {13})},
               {{"pads", V{1, 2, 0, 1}}, {"strides", V{2, 2}}},
               "tail_tiles"});
  c.back().atol = c.back().rtol = 1e-4;
  // A long 1-D signal (an audio front end): positions tiled along one row.
  c.push_back({"Conv",
               11,
               {in(f32, {1, 4, 1500}), in(f32, {8, 4, 5}), in(f32, {8})},
               {{"pads", V{2, 2}}, {"dilations", V{2}}},
               "1d_long"});
  // 3-D with a kernel depth (one output depth per tile, every depth offset of the window).
  c.push_back({"Conv",
               11,
               {in(f32, {1, 3, 6, 7, 5}), in(f32, {4, 3, 3, 3, 2})},
               {{"pads", V{1, 1, 0, 1, 1, 1}}, {"strides", V{2, 1, 2}}},
               "3d_kd3"});
  // A dilated kernel depth: Load3D's depth is undilated, so the 910B's map box steps over it.
  c.push_back({"Conv",
               11,
               {in(f32, {1, 3, 7, 5, 4}), in(f32, {2, 3, 2, 3, 2})},
               {{"pads", V{1, 1, 0, 0, 1, 1}}, {"dilations", V{2, 1, 1}}},
               "3d_dilated_depth"});
  // Groups of several channels (ResNeXt / RegNet blocks) and a window larger than the input.
  c.push_back({"Conv",
               11,
               {in(f32, {1, 8, 5, 5}), in(f32, {12, 2, 3, 3}), in(f32, {12})},
               {{"group", int64_t{4}}, {"pads", V{1, 1, 1, 1}}},
               "grouped"});
  c.push_back({"Conv",
               11,
               {in(f32, {1, 2, 3, 3}), in(f32, {3, 2, 5, 5})},
               {{"pads", V{2, 2, 2, 2}}},
               "window_past_input"});
  // Depthwise (the vector unit's form): strided and dilated windows whose taps start inside the
  // pads, channel blocks over several tiles, 1-D and 3-D.
  c.push_back({"Conv",
               11,
               {in(f32, {2, 21, 13, 12}), in(f32, {21, 1, 3, 3}), in(f32, {21})},
               {{"group", int64_t{21}}, {"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}},
               "depthwise_s2"});
  c.push_back({"Conv",
               11,
               {in(f32, {1, 40, 17, 9}), in(f32, {40, 1, 5, 5})},
               {{"group", int64_t{40}}, {"pads", V{4, 3, 4, 5}}, {"dilations", V{2, 2}}},
               "depthwise_5x5_dil"});
  c.push_back({"Conv",
               11,
               {in(f32, {1, 6, 50}), in(f32, {6, 1, 7}), in(f32, {6})},
               {{"group", int64_t{6}}, {"pads", V{3, 3}}, {"strides", V{3}}},
               "depthwise_1d"});
  c.push_back({"Conv",
               11,
               {in(f32, {1, 3, 5, 6, 7}), in(f32, {3, 1, 3, 3, 3})},
               {{"group", int64_t{3}}, {"pads", V{1, 1, 1, 1, 1, 1}}, {"strides", V{2, 1, 2}}},
               "depthwise_3d"});
  c.push_back({"Conv",
               11,
               {in(f16, {1, 8, 9, 9}), in(f16, {8, 1, 3, 3}), in(f16, {8})},
               {{"group", int64_t{8}}, {"pads", V{1, 1, 1, 1}}},
               "depthwise_f16"});
}

InputSpec fixed_int(DType dt, const std::vector<double>& v, Shape shape) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return fixed_tensor(std::move(t));
}

void add_conv_integer(std::vector<OpCase>& c) {
  constexpr DType u8 = DType::kU8, i8 = DType::kI8;
  c.push_back({"ConvInteger",
               10,
               {in_int(u8, {1, 2, 5, 5}, 0, 255), in_int(u8, {3, 2, 3, 3}, 0, 255),
                fixed_int(u8, {12}, {}), fixed_int(u8, {200}, {})},
               {{"pads", V{1, 1, 1, 1}}},
               "zero_points"});
  c.push_back(
      {"ConvInteger",
       10,
       {in_int(i8, {2, 4, 6, 5}, -128, 127), in_int(i8, {4, 2, 2, 3}, -128, 127), absent(),
        fixed_int(i8, {-3, 0, 5, 7}, {4})},
       {{"group", int64_t{2}}, {"strides", V{2, 1}}, {"auto_pad", std::string("SAME_UPPER")}},
       "per_channel"});
  c.push_back({"ConvInteger",
               10,
               {in_int(u8, {1, 3, 7}, 0, 255), in_int(i8, {2, 3, 3}, -128, 127)},
               {},
               "1d"});
  const DType f = DType::kF32;
  c.push_back(
      {"QLinearConv",
       10,
       {in_int(u8, {1, 2, 5, 6}, 0, 255), fixed_int(f, {0.02}, {}), fixed_int(u8, {100}, {}),
        in_int(i8, {3, 2, 3, 3}, -60, 60), fixed_int(f, {0.01, 0.005, 0.02}, {3}),
        fixed_int(i8, {0, 0, 0}, {3}), fixed_int(f, {0.05}, {}), fixed_int(u8, {120}, {}),
        fixed_int(DType::kI32, {-500, 0, 900}, {3})},
       {{"pads", V{1, 1, 1, 1}}},
       "per_channel_bias"});
  c.push_back(
      {"QLinearConv",
       10,
       {in_int(i8, {2, 4, 4, 4}, -128, 127), fixed_int(f, {0.1}, {}), fixed_int(i8, {-5}, {}),
        in_int(u8, {2, 2, 2, 2}, 0, 255), fixed_int(f, {0.003}, {}), fixed_int(u8, {128}, {}),
        fixed_int(f, {0.7}, {}), fixed_int(i8, {3}, {})},
       {{"group", int64_t{2}}, {"strides", V{2, 2}}},
       "i8_out"});
}

void add_conv_transpose(std::vector<OpCase>& c) {
  c.push_back({"ConvTranspose",
               11,
               {in(f32, {1, 2, 4, 5}), in(f32, {2, 3, 3, 3}), in(f32, {3})},
               {{"strides", V{2, 2}}, {"output_padding", V{1, 0}}, {"pads", V{1, 0, 0, 1}}},
               "stride_outpad"});
  c.push_back({"ConvTranspose",
               11,
               {in(f32, {2, 4, 3, 4}), in(f32, {4, 2, 2, 3})},
               {{"group", int64_t{2}}, {"dilations", V{2, 1}}, {"strides", V{1, 2}}},
               "group_dil"});
  c.push_back({"ConvTranspose",
               11,
               {in(f32, {1, 1, 3, 3}), in(f32, {1, 2, 3, 3})},
               {{"strides", V{3, 2}}, {"output_shape", V{10, 8}}},
               "output_shape"});
  c.push_back({"ConvTranspose",
               11,
               {in(f32, {1, 2, 5}), in(f32, {2, 3, 3})},
               {{"strides", V{2}}, {"auto_pad", S("SAME_UPPER")}},
               "1d_same_upper"});
  c.push_back({"ConvTranspose",
               11,
               {in(f32, {1, 2, 3, 4}), in(f32, {2, 2, 3, 3})},
               {{"strides", V{2, 2}}, {"auto_pad", S("SAME_LOWER")}},
               "same_lower"});
  c.push_back({"ConvTranspose",
               11,
               {in(f32, {1, 2, 2, 3, 2}), in(f32, {2, 2, 2, 2, 3})},
               {{"strides", V{2, 1, 2}}},
               "3d"});
  c.push_back({"ConvTranspose",
               11,
               {in(f32, {1, 2, 3, 3, 2}), in(f32, {2, 2, 3, 2, 2})},
               {{"dilations", V{2, 1, 1}}, {"strides", V{1, 2, 1}}},
               "3d_dilated_depth"});
  c.push_back({"ConvTranspose", 11, {in(f16, {1, 2, 3, 3}), in(f16, {2, 2, 3, 3})}, {}});
  c.push_back({"ConvTranspose",
               1,
               {in(f32, {2, 3, 3, 3}), in(f32, {3, 2, 2, 2}), in(f32, {2})},
               {{"strides", V{2, 2}}}});
}

void add_pools(std::vector<OpCase>& c) {
  const Attrs k3 = {{"kernel_shape", V{3, 3}}};
  c.push_back({"MaxPool",
               7,
               {in(f32, {1, 2, 7, 6})},
               {{"kernel_shape", V{3, 2}}, {"pads", V{1, 0, 1, 1}}}});
  c.push_back({"MaxPool",
               8,
               {in(f32, {2, 2, 6, 7})},
               {{"kernel_shape", V{2, 3}}, {"strides", V{2, 2}}, {"pads", V{0, 1, 1, 1}}},
               "indices"});
  c.push_back({"MaxPool",
               8,
               {in(f32, {1, 2, 5, 4})},
               {{"kernel_shape", V{2, 2}}, {"storage_order", int64_t{1}}},
               "col_major"});
  c.push_back({"MaxPool",
               10,
               {in(f32, {1, 3, 8, 9})},
               {{"kernel_shape", V{3, 3}},
                {"strides", V{2, 2}},
                {"ceil_mode", int64_t{1}},
                {"dilations", V{1, 2}}},
               "ceil_dil"});
  c.push_back({"MaxPool",
               12,
               {in(f32, {2, 2, 9})},
               {{"kernel_shape", V{3}}, {"auto_pad", S("SAME_UPPER")}, {"strides", V{2}}},
               "1d_same"});
  c.push_back({"MaxPool", 12, {in_int(DType::kI8, {1, 2, 5, 5}, -100, 100)}, k3});
  c.push_back({"MaxPool",
               12,
               {in_int(DType::kU8, {1, 2, 5, 5}, 0, 250)},
               {{"kernel_shape", V{2, 2}}, {"strides", V{2, 2}}, {"ceil_mode", int64_t{1}}}});
  c.push_back({"MaxPool", 12, {in(f16, {1, 1, 4, 5, 6})}, {{"kernel_shape", V{2, 2, 3}}}, "3d"});
  c.push_back({"MaxPool",
               12,
               {in(f64, {1, 2, 4, 4})},
               {{"kernel_shape", V{3, 3}}, {"auto_pad", S("SAME_LOWER")}}});
  // MaxPool without Indices (the node's one output): the vector unit's tile kernel.
  const auto y_only = [&](OpCase k) {
    k.num_outputs = 1;
    c.push_back(std::move(k));
  };
  y_only({"MaxPool",
          8,
          {in(f32, {2, 5, 13, 12})},
          {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}},
          "stem_y_only"});
  y_only({"MaxPool",
          10,
          {in(f32, {1, 3, 8, 9})},
          {{"kernel_shape", V{3, 3}},
           {"strides", V{2, 2}},
           {"ceil_mode", int64_t{1}},
           {"dilations", V{1, 2}}},
          "ceil_dil_y_only"});
  y_only({"MaxPool",
          12,
          {in_int(DType::kI8, {1, 20, 9, 9}, -100, 100)},
          {{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}},
          "i8_y_only"});
  y_only({"MaxPool", 12, {in(f16, {1, 2, 5, 6, 7})}, {{"kernel_shape", V{2, 2, 3}}}, "3d_y_only"});
  // The cpu device's separable windows (box_taps.cpp): long rows with vector tails, padding at
  // either end of both dims, stride 1 and 2, dilations, and rows of a 3-D window.
  y_only({"MaxPool",
          12,
          {in(f32, {1, 3, 11, 150})},
          {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}},
          "wide_s2_y_only"});
  y_only({"MaxPool",
          12,
          {in(f32, {1, 4, 27, 27})},
          {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"ceil_mode", int64_t{1}}},
          "ceil_end_y_only"});
  y_only({"MaxPool",
          12,
          {in(f32, {1, 2, 19, 40})},
          {{"kernel_shape", V{5, 5}}, {"pads", V{2, 2, 2, 2}}},
          "s1_k5_y_only"});
  y_only({"MaxPool",
          12,
          {in(f32, {2, 3, 10, 37})},
          {{"kernel_shape", V{2, 3}}, {"dilations", V{2, 3}}, {"pads", V{1, 2, 0, 1}}},
          "dil_y_only"});
  y_only({"MaxPool",
          12,
          {in(f32, {1, 2, 5, 6, 33})},
          {{"kernel_shape", V{3, 2, 3}}, {"strides", V{2, 1, 2}}, {"pads", V{1, 0, 1, 1, 1, 0}}},
          "3d_f32_y_only"});
  c.push_back({"AveragePool", 1, {in(f32, {1, 3, 8, 8})}, {{"kernel_shape", V{2, 2}}}, "no_pads"});
  c.push_back({"AveragePool",
               6,
               {in(f32, {1, 2, 6, 6})},
               {{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}}});
  c.push_back(
      {"AveragePool",
       7,
       {in(f32, {1, 2, 6, 5})},
       {{"kernel_shape", V{3, 3}}, {"pads", V{1, 2, 1, 0}}, {"count_include_pad", int64_t{1}}},
       "include_pad"});
  c.push_back({"AveragePool",
               10,
               {in(f32, {1, 2, 7, 7})},
               {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"ceil_mode", int64_t{1}}},
               "ceil"});
  c.push_back({"AveragePool",
               11,
               {in(f32, {2, 1, 5, 6})},
               {{"kernel_shape", V{2, 3}}, {"auto_pad", S("SAME_LOWER")}},
               "same_lower"});
  c.push_back(
      {"AveragePool", 11, {in(f16, {1, 2, 9})}, {{"kernel_shape", V{4}}, {"strides", V{2}}}});
  c.push_back({"AveragePool",
               11,
               {in(f32, {1, 1, 3, 4, 5})},
               {{"kernel_shape", V{2, 2, 2}},
                {"pads", V{1, 0, 1, 0, 1, 1}},
                {"count_include_pad", int64_t{1}}},
               "3d_include_pad"});
  c.push_back({"AveragePool",
               19,
               {in(f32, {1, 2, 9, 8})},
               {{"kernel_shape", V{3, 2}},
                {"dilations", V{2, 3}},
                {"strides", V{2, 1}},
                {"ceil_mode", int64_t{1}},
                {"pads", V{1, 1, 1, 1}},
                {"count_include_pad", int64_t{1}}},
               "dilations"});
  c.push_back({"LpPool",
               18,
               {in(f32, {1, 2, 7, 8})},
               {{"kernel_shape", V{2, 2}},
                {"dilations", V{2, 2}},
                {"strides", V{2, 2}},
                {"ceil_mode", int64_t{1}}},
               "ceil_dilations"});
  c.push_back({"LpPool", 1, {in(f32, {1, 2, 5, 5})}, {{"kernel_shape", V{2, 2}}, {"p", 3.0f}}});
  c.push_back({"LpPool", 10, {in(f32, {1, 2, 5, 5})}, {{"kernel_shape", V{3, 3}}}});
  c.push_back({"LpPool",
               11,
               {in(f32, {1, 2, 6, 5})},
               {{"kernel_shape", V{2, 2}}, {"p", int64_t{1}}, {"pads", V{1, 1, 0, 0}}}});
  c.push_back({"GlobalAveragePool", 1, {in(f32, {2, 3, 5, 4})}});
  c.push_back({"GlobalAveragePool", 1, {in(f16, {1, 3, 7})}});
  c.push_back({"GlobalAveragePool", 1, {in(f32, {2, 5, 37, 41})}, {}, "chunked"});
  c.push_back({"GlobalMaxPool", 1, {in(f16, {3, 4, 45, 33})}, {}, "chunked"});
  c.push_back({"GlobalAveragePool", 1, {in(f32, {0, 3, 4})}, {}, "empty"});
  c.push_back({"GlobalMaxPool", 1, {in(f32, {2, 3, 2, 3, 4})}});
  c.push_back({"GlobalMaxPool", 1, {in(f64, {1, 4, 6, 6})}});
  c.push_back({"GlobalLpPool", 1, {in(f32, {1, 2, 4, 4})}, {{"p", 3.0f}}});
  c.push_back({"GlobalLpPool", 2, {in(f32, {2, 2, 3, 5})}});
  // MaxUnpool: indices as MaxPool 2x2 stride 2 of a 4x4 / 5x5 plane gives them.
  c.push_back({"MaxUnpool",
               9,
               {in(f32, {1, 1, 2, 2}), fixed_i64({0, 3, 9, 14}, Shape{1, 1, 2, 2})},
               {{"kernel_shape", V{2, 2}}, {"strides", V{2, 2}}}});
  c.push_back({"MaxUnpool",
               11,
               {in(f32, {1, 2, 2, 2}), fixed_i64({5, 2, 11, 15, 17, 22, 25, 30}, Shape{1, 2, 2, 2}),
                fixed_i64({1, 2, 5, 5})},
               {{"kernel_shape", V{2, 2}}, {"strides", V{2, 2}}},
               "output_shape"});
  c.push_back({"MaxUnpool",
               11,
               {in(f16, {1, 1, 3}), fixed_i64({1, 2, 5}, Shape{1, 1, 3})},
               {{"kernel_shape", V{2}}, {"strides", V{2}}}});
}

}  // namespace

std::vector<OpCase> cases_nn_resize();
std::vector<OpCase> cases_nn_lppool();

std::vector<OpCase> cases_nn() {
  std::vector<OpCase> c;
  add_conv(c);
  add_conv_integer(c);
  add_conv_transpose(c);
  add_pools(c);
  for (auto& r : cases_nn_resize()) c.push_back(std::move(r));
  for (auto& r : cases_nn_lppool()) c.push_back(std::move(r));
  return c;
}

}  // namespace asc::test

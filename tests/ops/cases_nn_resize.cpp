// Cases of the nn family's sampling ops: Resize, Upsample, GridSample, RoiAlign, MaxRoiPool; and
// Col2Im and AffineGrid.
#include <random>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

using V = std::vector<int64_t>;
constexpr DType f32 = DType::kF32, f16 = DType::kF16;

InputSpec fixed_f32(const std::vector<float>& values, std::optional<Shape> shape = std::nullopt) {
  Tensor t(f32, shape ? *shape : Shape{static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.data_as<float>()[i] = values[i];
  return fixed_tensor(std::move(t));
}

// Resize-13 case: X, roi (absent unless given), scales or sizes.
OpCase resize(Shape x, std::vector<float> scales, V sizes, Attrs a, std::string label,
              DType dt = f32, std::vector<float> roi = {}) {
  std::vector<InputSpec> ins = {in(dt, std::move(x))};
  ins.push_back(roi.empty() ? absent() : fixed_f32(roi));
  ins.push_back(scales.empty() ? absent() : fixed_f32(scales));
  if (!sizes.empty()) ins.push_back(fixed_i64(sizes));
  return OpCase("Resize", 13, std::move(ins), std::move(a), std::move(label));
}

std::string S(const char* s) {
  return s;
}

void add_resize(std::vector<OpCase>& c) {
  c.push_back(resize({1, 2, 4, 5}, {1, 1, 1.5f, 0.6f}, {}, {}, "nearest_half_pixel"));
  c.push_back(
      resize({1, 2, 4, 5}, {}, {1, 2, 7, 3},
             {{"mode", S("linear")}, {"coordinate_transformation_mode", S("align_corners")}},
             "linear_align_corners"));
  c.push_back(resize({1, 1, 4, 4}, {1, 1, 2, 1.5f}, {},
                     {{"mode", S("cubic")},
                      {"coordinate_transformation_mode", S("asymmetric")},
                      {"exclude_outside", int64_t{1}},
                      {"cubic_coeff_a", -0.5f}},
                     "cubic_asym_exclude"));
  c.push_back(
      resize({2, 3, 5}, {}, {2, 1, 3},
             {{"mode", S("linear")}, {"coordinate_transformation_mode", S("pytorch_half_pixel")}},
             "linear_pytorch_half_pixel"));
  c.push_back(resize({1, 1, 3, 5}, {}, {1, 1, 5, 8}, {{"mode", S("cubic")}}, "cubic_sizes"));
  c.push_back(
      resize({1, 1, 6, 5}, {}, {1, 1, 1, 3},
             {{"mode", S("cubic")}, {"coordinate_transformation_mode", S("pytorch_half_pixel")}},
             "cubic_pytorch_half_pixel_to_1"));
  for (const char* nm : {"floor", "ceil", "round_prefer_ceil"})
    c.push_back(resize(
        {1, 1, 3, 4}, {1, 1, 2.5f, 0.75f}, {},
        {{"nearest_mode", S(nm)}, {"coordinate_transformation_mode", S("tf_half_pixel_for_nn")}},
        nm));
  c.push_back(resize({1, 1, 5, 6}, {}, {1, 1, 3, 4},
                     {{"mode", S("linear")},
                      {"coordinate_transformation_mode", S("tf_crop_and_resize")},
                      {"extrapolation_value", 10.0f}},
                     "tf_crop_and_resize", f32, {0, 0, 0.4f, -0.2f, 1, 1, 1.3f, 0.8f}));
  c.push_back(resize({1, 2, 3, 3}, {1, 1, 2, 2}, {}, {{"mode", S("linear")}}, "f16", f16));
  c.push_back(resize({2, 5}, {1, 1.6f}, {}, {}, "u8", DType::kU8));
  c.back().inputs[0] = in_int(DType::kU8, {2, 5}, 0, 255);
  c.push_back(resize({3, 4}, {}, {5, 7}, {}, "i64", DType::kI64));
  c.back().inputs[0] = in_int(DType::kI64, {3, 4}, -1000, 1000);
  c.push_back(resize({0, 2, 3}, {1, 1, 2}, {}, {}, "empty"));
  // Large enough that both passes split their rows over the workers (odd sizes, a tail chunk).
  c.push_back(resize({1, 3, 61, 83}, {1, 1, 2, 2}, {}, {{"mode", S("linear")}}, "linear_split"));
  c.push_back(resize({2, 3, 37, 41}, {}, {2, 3, 80, 97},
                     {{"mode", S("cubic")}, {"coordinate_transformation_mode", S("asymmetric")}},
                     "cubic_split"));
  // Resize-18: axes, keep_aspect_ratio_policy, antialias; 19: half_pixel_symmetric.
  for (const char* policy : {"not_larger", "not_smaller"}) {
    c.push_back(
        {"Resize",
         18,
         {in(f32, {1, 2, 6, 4}), absent(), absent(), fixed_i64({4, 5})},
         {{"axes", V{2, -1}}, {"keep_aspect_ratio_policy", S(policy)}, {"mode", S("linear")}},
         policy});
    c.push_back(
        {"Resize",
         18,
         {in(f32, {1, 2, 6, 4}), absent(), absent(), fixed_i64({4, 5})},
         {{"axes", V{2, 3}}, {"keep_aspect_ratio_policy", S(policy)}, {"mode", S("nearest")}},
         cat(policy, "/axes23")});
  }
  c.push_back({"Resize",
               18,
               {in(f32, {2, 7, 3}), absent(), fixed_f32({0.4f})},
               {{"axes", V{1}}, {"antialias", int64_t{1}}, {"mode", S("linear")}},
               "antialias_linear"});
  c.push_back({"Resize",
               18,
               {in(f32, {1, 1, 9, 8}), absent(), fixed_f32({1, 1, 0.5f, 0.7f})},
               {{"antialias", int64_t{1}}, {"mode", S("cubic")}, {"exclude_outside", int64_t{1}}},
               "antialias_cubic"});
  c.push_back(
      {"Resize",
       19,
       {in(f32, {1, 1, 4, 5}), absent(), fixed_f32({1, 1, 1.7f, 0.6f})},
       {{"coordinate_transformation_mode", S("half_pixel_symmetric")}, {"mode", S("linear")}},
       "half_pixel_symmetric"});
  // Resize-11: roi and scales are required (scales empty when sizes are given).
  c.push_back({"Resize",
               11,
               {in(f32, {1, 1, 3, 4}), fixed_f32({}), fixed_f32({}), fixed_i64({1, 1, 5, 2})},
               {{"mode", S("linear")}},
               "sizes"});
  c.push_back({"Resize",
               10,
               {in(f32, {1, 1, 4, 6}), fixed_f32({1, 1, 0.5f, 1.5f})},
               {{"mode", S("linear")}},
               "linear"});
  c.push_back({"Resize", 10, {in(f32, {1, 2, 4, 6}), fixed_f32({1, 1, 2, 0.5f})}, {}, "nearest"});
  c.push_back({"Upsample",
               7,
               {in(f32, {1, 2, 2, 3})},
               {{"scales", std::vector<float>{1, 1, 2, 3}}},
               "nearest"});
  c.push_back({"Upsample",
               9,
               {in(f32, {1, 1, 3, 3}), fixed_f32({1, 1, 2, 2.5f})},
               {{"mode", S("linear")}},
               "linear"});
}

// Seeded random shapes over every mode x coordinate_transformation_mode (Resize-19), scales or
// sizes, nearest_mode, cubic_coeff_a, exclude_outside, antialias and tf_crop_and_resize's roi and
// extrapolation_value; then shapes where the banded product has many tiles (the U-Net 2x
// upsample, FPN nearest, a strong downsample, a crop) and f16 data.
void add_resize_random(std::vector<OpCase>& c) {
  std::mt19937 rng(21);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  // Scales exact in f32 (ONNX Runtime computes coordinates in f32, asc in double: with 0.6 or 0.8
  // a nearest coordinate can be a tie in one and not the other).
  const float kScales[] = {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 2.0f, 3.0f};
  const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  for (const char* mode : {"nearest", "linear", "cubic"})
    for (const char* coord : {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                              "align_corners", "asymmetric", "tf_crop_and_resize"})
      for (int rep = 0; rep < 2; ++rep) {
        const Shape x = {pick(1, 2), pick(1, 3), pick(1, 23), pick(1, 37)};
        Attrs a{{"mode", S(mode)}, {"coordinate_transformation_mode", S(coord)}};
        std::string label = cat(mode, "/", coord);
        if (S(mode) == "nearest") {
          a.set("nearest_mode", S(kNearest[pick(0, 3)]));
          label += cat("/", a.s("nearest_mode"));
        } else {
          if (pick(0, 1)) a.set("antialias", int64_t{1}), label += "/antialias";
          if (S(mode) == "cubic") {
            a.set("cubic_coeff_a", pick(0, 1) ? -0.5f : -0.75f);
            if (pick(0, 1)) a.set("exclude_outside", int64_t{1}), label += "/exclude";
          }
        }
        std::vector<InputSpec> ins = {in(f32, x)};
        if (S(coord) == "tf_crop_and_resize") {
          std::vector<float> roi = {0, 0, 0.f, 0.f, 1, 1, 1.f, 1.f};
          for (int d = 2; d < 4; ++d) {
            roi[d] = static_cast<float>(pick(-30, 60)) / 100.f;
            roi[d + 4] = roi[d] + static_cast<float>(pick(20, 90)) / 100.f;
          }
          ins.push_back(fixed_f32(roi));
          a.set("extrapolation_value", static_cast<float>(pick(-20, 20)) / 4.f);
        } else {
          ins.push_back(absent());
        }
        // The maps that take the resized length use sizes: with scales asc takes it as in * scale
        // (the spec's reference), ONNX Runtime as the output dim.
        const bool length_map = S(coord) == "align_corners" || S(coord) == "pytorch_half_pixel" ||
                                S(coord) == "tf_crop_and_resize";
        if (rep == 0 && !length_map) {  // scales
          ins.push_back(fixed_f32({1, 1, kScales[pick(0, 7)], kScales[pick(0, 7)]}));
        } else {  // sizes
          ins.push_back(absent());
          ins.push_back(fixed_i64({x[0], x[1], pick(1, 41), pick(1, 41)}));
        }
        c.push_back(OpCase("Resize", 19, std::move(ins), std::move(a), label));
      }
  auto big = [&](Shape x, std::vector<float> scales, Attrs a, std::string label, DType dt = f32,
                 std::vector<float> roi = {}) {
    c.push_back(resize(std::move(x), std::move(scales), {}, std::move(a), std::move(label), dt,
                       std::move(roi)));
  };
  const Attrs linear{{"mode", S("linear")}};
  big({1, 4, 70, 130}, {1, 1, 2, 2}, linear, "unet_2x");
  big({1, 2, 9, 11}, {1, 1, 32, 32}, linear, "side_32x");
  big({2, 8, 40, 41}, {1, 1, 2, 2},
      {{"nearest_mode", S("floor")}, {"coordinate_transformation_mode", S("asymmetric")}},
      "fpn_nearest_2x");
  big({1, 3, 150, 190}, {1, 1, 0.3f, 0.21f}, {{"mode", S("cubic")}}, "downsample_cubic");
  big({1, 2, 150, 190}, {1, 1, 0.3f, 0.21f}, {{"mode", S("linear")}, {"antialias", int64_t{1}}},
      "downsample_antialias");
  c.back().opset = 18;
  big({1, 2, 90, 100}, {1, 1, 1.3f, 1.7f},
      {{"mode", S("linear")},
       {"coordinate_transformation_mode", S("tf_crop_and_resize")},
       {"extrapolation_value", -3.0f}},
      "crop", f32, {0, 0, -0.2f, 0.3f, 1, 1, 0.7f, 1.4f});
  big({3, 50, 70}, {1, 2.5f, 0.5f}, {{"mode", S("cubic")}}, "3d_inner_dims");
  big({260, 3}, {0.5f, 2}, linear, "2d_rows");
  big({1, 3, 33, 47}, {1, 1, 2, 2}, linear, "f16_2x", f16);
  big({1, 3, 33, 47}, {1, 1, 1.7f, 0.6f}, {{"mode", S("cubic")}}, "f16_cubic", f16);
}

// ResizeAxis (ai.asc), Resize's per-dim launch: the last dim (X [O, Nin, 1] x R [Nin, Nout]) and
// an inner one (R [Nout, Nin] x X[o] [Nin, I]), + E; lo / hi the rows R has nonzeros in for each
// output (a band of width 3 here, or every row).
void add_resize_axis(std::vector<OpCase>& c) {
  auto banded = [](int64_t n_in, int64_t n_out, bool last, std::vector<int64_t>& lo,
                   std::vector<int64_t>& hi) {
    Tensor r(f32, last ? Shape{n_in, n_out} : Shape{n_out, n_in});
    std::mt19937 rng(static_cast<unsigned>(n_in * 131 + n_out));
    std::uniform_real_distribution<float> u(-1, 1);
    for (int64_t j = 0; j < n_out; ++j) {
      const int64_t mid = j * n_in / n_out;
      lo.push_back(std::max<int64_t>(0, mid - 1));
      hi.push_back(std::min<int64_t>(n_in - 1, mid + 1));
      for (int64_t k = 0; k < n_in; ++k)
        r.data_as<float>()[last ? k * n_out + j : j * n_in + k] =
            k >= lo.back() && k <= hi.back() ? u(rng) : 0.f;
    }
    return fixed_tensor(std::move(r));
  };
  for (bool last : {true, false})
    for (auto [n_in, n_out] : {std::pair<int64_t, int64_t>{7, 19}, {150, 61}, {40, 300}}) {
      std::vector<int64_t> lo, hi;
      InputSpec r = banded(n_in, n_out, last, lo, hi);
      const Shape x = last ? Shape{37, n_in, 1} : Shape{3, n_in, 29};
      c.push_back(
          {"ResizeAxis", 1, {in(f32, x), r}, {{"lo", lo}, {"hi", hi}}, last ? "last" : "inner"});
      c.back().domain = "ai.asc";
    }
  const std::vector<int64_t> lo(5, 0), hi(5, 8);
  c.push_back({"ResizeAxis",
               1,
               {in(f32, {3, 9, 10}), in(f32, {5, 9}), in(f32, {5})},
               {{"lo", lo}, {"hi", hi}},
               "inner_dense_e"});
  c.back().domain = "ai.asc";
  c.push_back({"ResizeAxis",
               1,
               {in(f32, {6, 9, 1}), in(f32, {9, 5}), in(f32, {5})},
               {{"lo", lo}, {"hi", hi}},
               "last_dense_e"});
  c.back().domain = "ai.asc";
  c.push_back({"ResizeAxis",
               1,
               {in(f16, {4, 9, 1}), in(f16, {9, 5})},
               {{"lo", lo}, {"hi", hi}, {"y_f32", int64_t{1}}},
               "f16_to_f32"});
  c.back().domain = "ai.asc";
}

void add_grid_sample(std::vector<OpCase>& c) {
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"})
      for (int64_t align : {0, 1})
        c.push_back({"GridSample",
                     16,
                     {in(f32, {1, 2, 4, 5}), in(f32, {1, 3, 4, 2}, -1.3, 1.3)},
                     {{"mode", S(mode)}, {"padding_mode", S(pad)}, {"align_corners", align}},
                     std::string(mode) + "_" + pad + (align ? "_align" : "")});
  c.push_back({"GridSample", 16, {in(f16, {2, 1, 3, 3}), in(f16, {2, 2, 2, 2}, -1, 1)}, {}});
  for (const char* mode : {"linear", "cubic"})
    c.push_back({"GridSample",
                 20,
                 {in(f32, {1, 2, 3, 4}), in(f32, {1, 2, 3, 2}, -1.2, 1.2)},
                 {{"mode", S(mode)}, {"padding_mode", S("border")}},
                 mode});
  // GridSample-22: bf16 too.
  for (DType dt : {f32, DType::kBF16})
    c.push_back({"GridSample",
                 22,
                 {in(dt, {2, 3, 4, 5}), in(dt, {2, 3, 2, 2}, -1.1, 1.1)},
                 {{"mode", S("linear")}, {"align_corners", int64_t{1}}}});
}

void add_roi_align(std::vector<OpCase>& c) {
  auto rois = [] {
    return fixed_f32({0, 0, 5, 5, 1.5f, 2, 7.2f, 6.1f, -1, 0.5f, 3, 9, 2, 2, 2.2f, 2.4f},
                     Shape{4, 4});
  };
  for (int opset : {10, 16})
    for (const char* mode : {"avg", "max"})
      c.push_back({"RoiAlign",
                   opset,
                   {in(f32, {2, 2, 8, 8}), rois(), fixed_i64({0, 1, 1, 0})},
                   {{"mode", S(mode)},
                    {"output_height", int64_t{3}},
                    {"output_width", int64_t{2}},
                    {"spatial_scale", 0.8f}},
                   mode});
  c.push_back({"RoiAlign",
               16,
               {in(f32, {1, 3, 6, 7}), rois(), fixed_i64({0, 0, 0, 0})},
               {{"sampling_ratio", int64_t{2}},
                {"output_height", int64_t{2}},
                {"output_width", int64_t{3}},
                {"coordinate_transformation_mode", S("output_half_pixel")}},
               "sampling_ratio"});
  for (DType dt : {f32, DType::kBF16}) {  // RoiAlign-22: bf16 too
    InputSpec r = rois();
    if (dt != f32) r = in(dt, {3, 4}, 0, 6);
    c.push_back(
        {"RoiAlign",
         22,
         {in(dt, {2, 2, 8, 8}), r,
          fixed_i64(dt == f32 ? std::vector<int64_t>{0, 1, 1, 0} : std::vector<int64_t>{1, 0, 1})},
         {{"output_height", int64_t{2}}, {"output_width", int64_t{2}}}});
  }
}

void add_max_roi_pool(std::vector<OpCase>& c) {
  auto rois =
      fixed_f32({0, 1, 1, 6, 5, 1, 0, 0, 8, 7, 1, 4.4f, 2.6f, 3, 2, 0, -3, -2, 2, 20}, Shape{4, 5});
  c.push_back({"MaxRoiPool",
               1,
               {in(f32, {2, 3, 8, 9}), rois},
               {{"pooled_shape", V{2, 3}}, {"spatial_scale", 0.8f}}});
  // rois all 0: batch 0, a 1x1 box at the origin.
  c.push_back({"MaxRoiPool",
               1,
               {in(f16, {1, 2, 5, 5}), in(f16, {1, 5}, 0, 0)},
               {{"pooled_shape", V{3, 2}}}});
  for (DType dt : {f32, DType::kBF16}) {  // MaxRoiPool-22: bf16 too
    Tensor r(dt, rois.fixed->shape());
    for (int64_t i = 0; i < r.numel(); ++i) r.set(i, rois.fixed->at(i));
    c.push_back({"MaxRoiPool",
                 22,
                 {in(dt, {2, 3, 8, 9}), fixed_tensor(std::move(r))},
                 {{"pooled_shape", V{2, 2}}}});
  }
}

// Col2Im-18: overlapping blocks (sums), strides, dilations, pads, 1-D and 3-D images, integers.
void add_col2im(std::vector<OpCase>& c) {
  // [N, C * prod(block), L]: L from the block grid of each image.
  c.push_back({"Col2Im",
               18,
               {in(f32, {1, 2 * 4, 9}), fixed_i64({4, 4}), fixed_i64({2, 2})},
               {},
               "overlap"});
  c.push_back({"Col2Im",
               18,
               {in(f32, {2, 3 * 6, 3}), fixed_i64({5, 5}), fixed_i64({2, 3})},
               {{"strides", V{2, 1}}, {"pads", V{1, 0, 0, 0}}, {"dilations", V{1, 2}}},
               "strided"});
  c.push_back({"Col2Im",
               18,
               {in(f32, {1, 5, 6}), fixed_i64({10}), fixed_i64({5})},
               {{"strides", V{2}}, {"pads", V{3, 3}}},
               "1d"});
  c.push_back({"Col2Im",
               18,
               {in(DType::kF64, {1, 8, 8}), fixed_i64({3, 3, 3}), fixed_i64({2, 2, 2})},
               {},
               "3d"});
  c.push_back({"Col2Im",
               18,
               {in_int(DType::kI32, {2, 4, 6}, -9, 9), fixed_i64({3, 4}), fixed_i64({2, 2})},
               {},
               "i32"});
  c.push_back(
      {"Col2Im", 18, {in(f16, {0, 4, 4}), fixed_i64({3, 3}), fixed_i64({2, 2})}, {}, "empty"});
}

// AffineGrid-20: 2-D and 3-D, both align_corners, extents of 1, f64 and f16.
void add_affine_grid(std::vector<OpCase>& c) {
  for (int64_t align : {0, 1}) {
    c.push_back({"AffineGrid",
                 20,
                 {in(f32, {2, 2, 3}), fixed_i64({2, 3, 4, 5})},
                 {{"align_corners", align}},
                 cat("2d/align", align)});
    c.push_back({"AffineGrid",
                 20,
                 {in(f32, {2, 3, 4}), fixed_i64({2, 1, 3, 4, 2})},
                 {{"align_corners", align}},
                 cat("3d/align", align)});
  }
  c.push_back(
      {"AffineGrid", 20, {in(DType::kF64, {1, 2, 3}), fixed_i64({1, 1, 1, 6})}, {}, "height1"});
  c.push_back({"AffineGrid", 20, {in(f16, {3, 2, 3}), fixed_i64({3, 2, 4, 4})}, {}, "f16"});
}

}  // namespace

std::vector<OpCase> cases_nn_resize() {
  std::vector<OpCase> c;
  add_resize(c);
  add_resize_random(c);
  add_resize_axis(c);
  add_grid_sample(c);
  add_col2im(c);
  add_affine_grid(c);
  add_roi_align(c);
  add_max_roi_pool(c);
  return c;
}

}  // namespace asc::test

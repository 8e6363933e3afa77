// Cases of the oldest versions of ops asc also has in later versions: Cast-1 (`to` as a
// DataType name), Dropout-1/-6 (is_test, ratio; consumed_inputs in 1), Max/Min/Sum/Mean-1 (equal
// shapes, consumed_inputs), Pad-1 (`paddings`), Split-1 (split attribute or input), Tile-1 (tiles
// and axis inputs), Upsample-1 (height_scale / width_scale) and Upsample-10 (scales input), and
// LpNormalization-1. Beside hand-picked edge shapes (odd, empty, size 1) each op gets shapes drawn
// from a fixed-seed generator.
#include <random>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kF64 = DType::kF64, kI32 = DType::kI32,
            kI64 = DType::kI64, kU8 = DType::kU8, kBool = DType::kBool;
using I = std::vector<int64_t>;
using S = std::string;

// Shapes of rank [min_rank, 4] with dims in [0, 9]: a dim is 0 about one time in ten, so some
// shapes are empty; the rest are mostly odd sizes. Fixed seed: the same shapes on every run.
std::vector<Shape> random_shapes(uint64_t seed, int count, size_t min_rank = 1) {
  std::mt19937_64 rng(seed);
  std::vector<Shape> out;
  for (int i = 0; i < count; ++i) {
    const size_t rank = min_rank + rng() % (5 - min_rank);
    Shape s;
    for (size_t d = 0; d < rank; ++d) s.push_back(rng() % 10 == 0 ? 0 : 1 + 2 * (rng() % 5));
    out.push_back(s);
  }
  return out;
}

InputSpec fixed_values(DType dt, const std::vector<double>& v, Shape shape) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return fixed_tensor(std::move(t));
}

void add_variadic1(std::vector<OpCase>& v) {
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) {
    v.push_back({op, 1, {in(kF32, {3, 5}), in(kF32, {3, 5}), in(kF32, {3, 5})}});
    v.push_back({op, 5, {in(kF64, {7})}, {{"consumed_inputs", I{0}}}, "consumed"});
    v.push_back({op, 1, {in(kF16, {0, 3}), in(kF16, {0, 3})}});
    v.push_back({op, 1, {in(kF32, {}), in(kF32, {})}});
    for (const Shape& s : random_shapes(11, 3))
      v.push_back({op, 1, {in(kF32, s), in(kF32, s)}, {}, "random"});
  }
}

void add_cast1(std::vector<OpCase>& v) {
  struct C {
    DType from;
    const char* to;
  };
  for (const C& c : {C{kF32, "FLOAT16"}, C{kF32, "INT32"}, C{kF64, "FLOAT"}, C{kI64, "DOUBLE"},
                     C{kF32, "BOOL"}, C{kU8, "INT64"}, C{kI32, "UINT8"}, C{kF32, "double"},
                     C{kBool, "FLOAT"}, C{kF16, "BFLOAT16"}})
    for (const Shape& s : {Shape{}, Shape{0}, Shape{5, 67}}) {
      // Values the target holds: out-of-range casts are not defined alike everywhere.
      const bool unsigned_range = c.from == kU8 || S(c.to).rfind("UINT", 0) == 0;
      OpCase o{"Cast", 1, {in(c.from, s, unsigned_range ? 0 : -100, unsigned_range ? 255 : 100)}};
      if (c.from == kBool) o.inputs[0] = in_int(kBool, s, 0, 1);
      o.attrs.set("to", S(c.to));
      o.label = cat("to_", c.to);
      v.push_back(o);
    }
  for (const Shape& s : random_shapes(12, 3))
    v.push_back({"Cast", 5, {in(kF32, s, -50, 50)}, {{"to", S("INT16")}}, "random"});
}

void add_dropout_legacy(std::vector<OpCase>& v) {
  for (int opset : {1, 6}) {
    for (const Shape& s : {Shape{4, 33}, Shape{0, 3}, Shape{}, Shape{1}}) {
      v.push_back({"Dropout", opset, {in(kF32, s)}, {{"is_test", int64_t{1}}}, "test"});
      v.push_back({"Dropout", opset, {in(kF32, s)}, {{"ratio", 0.3f}}, "train"});
    }
    v.push_back({"Dropout", opset, {in(kF16, {5, 7})}, {{"ratio", 0.0f}}, "ratio0"});
    v.push_back({"Dropout", opset, {in(kF64, {300})}, {{"ratio", 0.75f}}, "ratio75"});
    for (const Shape& s : random_shapes(13, 2))
      v.push_back({"Dropout", opset, {in(kF32, s)}, {{"ratio", 0.5f}}, "random"});
  }
  v.push_back(
      {"Dropout", 1, {in(kF32, {3, 3})}, {{"consumed_inputs", I{0}}, {"is_test", int64_t{1}}}});
}

void add_pad1(std::vector<OpCase>& v) {
  for (const char* mode : {"constant", "edge", "reflect"}) {
    v.push_back({"Pad",
                 1,
                 {in(kF32, {3, 4})},
                 {{"paddings", I{1, 2, 2, 1}}, {"mode", S(mode)}, {"value", 1.5f}},
                 mode});
    v.push_back({"Pad", 1, {in(kF64, {2, 3, 5})}, {{"paddings", I{0, 1, 2, 1, 0, 3}}}, mode});
    v.push_back({"Pad", 1, {in(kF16, {1, 5})}, {{"paddings", I{0, 4, 0, 4}}, {"mode", S(mode)}}});
  }
  v.push_back({"Pad", 1, {in(kF32, {0, 3})}, {{"paddings", I{1, 0, 2, 1}}, {"value", -2.f}}});
  v.push_back({"Pad", 1, {in(kF32, {})}, {{"paddings", I{}}}, "scalar"});
  // Random shapes with seeded pads in [0, 3] (reflect needs pads below the extent).
  std::mt19937_64 rng(14);
  for (const Shape& s : random_shapes(14, 4)) {
    I pads;
    for (size_t k = 0; k < 2 * s.size(); ++k) pads.push_back(static_cast<int64_t>(rng() % 4));
    v.push_back({"Pad", 1, {in(kF32, s)}, {{"paddings", pads}, {"value", 0.5f}}, "random"});
  }
}

void add_split1(std::vector<OpCase>& v) {
  v.push_back({"Split", 1, {in(kF32, {6, 3})}, {{"split", I{1, 2, 3}}}, "attr"});
  v.push_back({"Split",
               1,
               {in(kF32, {2, 7}), fixed_values(kF32, {3, 4}, {2})},
               {{"axis", 1}},
               "input_f32"});
  v.push_back({"Split", 1, {in(kF16, {4, 5}), fixed_i64({0, 4, 1})}, {{"axis", -1}}, "input_i64"});
  v.push_back({"Split", 1, {in(kF64, {0, 4})}, {{"axis", 1}, {"split", I{2, 2}}}, "empty"});
  v.push_back({"Split", 1, {in(kF32, {5})}, {{"split", I{5}}}, "one"});
  std::mt19937_64 rng(15);
  for (const Shape& s : random_shapes(15, 4)) {
    const int64_t axis = static_cast<int64_t>(rng() % s.size());
    const int64_t n = s[static_cast<size_t>(axis)];
    const int64_t first = n == 0 ? 0 : static_cast<int64_t>(rng() % static_cast<uint64_t>(n + 1));
    v.push_back(
        {"Split", 1, {in(kF32, s)}, {{"axis", axis}, {"split", I{first, n - first}}}, "random"});
  }
}

void add_tile1(std::vector<OpCase>& v) {
  struct T {
    Shape shape;
    double tiles, axis;
  };
  for (const T& t : {T{{2, 3}, 3, 0}, T{{2, 3}, 2, 1}, T{{2, 3}, 4, -1}, T{{5}, 1, 0},
                     T{{2, 0, 3}, 2, 1}, T{{2, 3}, 0, 0}, T{{1, 1, 1}, 5, 2}, T{{3, 17}, 3, 1}}) {
    v.push_back(
        {"Tile",
         1,
         {in(kF32, t.shape), fixed_values(kF32, {t.tiles}, {}), fixed_values(kF32, {t.axis}, {})},
         {},
         "f32_inputs"});
    v.push_back({"Tile",
                 5,
                 {in_int(kI32, t.shape, -9, 9), fixed_values(kI64, {t.tiles}, {1}),
                  fixed_values(kI64, {t.axis}, {1})},
                 {},
                 "i64_inputs"});
  }
  std::mt19937_64 rng(16);
  for (const Shape& s : random_shapes(16, 3)) {
    const double axis = static_cast<double>(rng() % s.size()), tiles = 1 + rng() % 3;
    v.push_back({"Tile",
                 1,
                 {in(kF16, s), fixed_values(kF16, {tiles}, {}), fixed_values(kF16, {axis}, {})},
                 {},
                 "random"});
  }
}

void add_upsample_legacy(std::vector<OpCase>& v) {
  for (const char* mode : {"nearest", "bilinear"}) {
    v.push_back({"Upsample",
                 1,
                 {in(kF32, {1, 2, 2, 3})},
                 {{"height_scale", 2.f}, {"width_scale", 3.f}, {"mode", S(mode)}},
                 mode});
    v.push_back({"Upsample",
                 6,
                 {in(kF64, {2, 1, 3, 1})},
                 {{"height_scale", 1.5f}, {"width_scale", 2.f}, {"mode", S(mode)}},
                 mode});
    v.push_back({"Upsample",
                 1,
                 {in(kF32, {0, 2, 3, 3})},
                 {{"height_scale", 2.f}, {"width_scale", 2.f}, {"mode", S(mode)}},
                 cat(mode, "/empty")});
  }
  v.push_back({"Upsample",
               1,
               {in_int(kI32, {1, 1, 2, 2}, -9, 9)},
               {{"height_scale", 2.f}, {"width_scale", 2.f}},
               "i32"});
  for (const char* mode : {"nearest", "linear"}) {
    v.push_back({"Upsample",
                 10,
                 {in(kF32, {1, 1, 3, 3}), fixed_values(kF32, {1, 1, 2, 2.5}, {4})},
                 {{"mode", S(mode)}},
                 mode});
    v.push_back({"Upsample",
                 10,
                 {in(kF32, {3, 5}), fixed_values(kF32, {2, 1}, {2})},
                 {{"mode", S(mode)}},
                 cat(mode, "/2d")});
  }
}

void add_lpnorm(std::vector<OpCase>& v) {
  for (int64_t p : {1, 2}) {
    const Attrs last = {{"p", p}};
    v.push_back({"LpNormalization", 1, {in(kF32, {3, 5})}, last, cat("p", p)});
    v.push_back({"LpNormalization", 1, {in(kF32, {4, 6, 5})}, {{"p", p}, {"axis", 1}}, "mid"});
    v.push_back({"LpNormalization", 1, {in(kF32, {4, 6, 5})}, {{"p", p}, {"axis", 0}}, "first"});
    v.push_back({"LpNormalization", 1, {in(kF64, {7})}, last, cat("p", p)});
    v.push_back({"LpNormalization", 1, {in(kF16, {2, 33})}, last, cat("p", p)});
    // Scalar-ish: rows of one element (x / |x|), single rows, and empty tensors.
    v.push_back({"LpNormalization", 1, {in(kF32, {5, 1})}, last, "len1"});
    v.push_back({"LpNormalization", 1, {in(kF32, {1})}, last, "one"});
    v.push_back({"LpNormalization", 1, {in(kF32, {1, 1, 1})}, {{"p", p}, {"axis", -2}}, "ones"});
    v.push_back({"LpNormalization", 1, {in(kF32, {0, 4})}, last, "empty"});
    v.push_back({"LpNormalization", 1, {in(kF32, {3, 0})}, last, "empty_rows"});
    // All-zero rows divide by 1 and stay zero.
    v.push_back({"LpNormalization", 1, {in(kF32, {3, 4}, 0, 0)}, last, "zeros"});
    // Long rows: chunked accumulation (whole rows do not fit one tile under small memories).
    v.push_back({"LpNormalization", 1, {in(kF32, {3, 70001})}, last, "long"});
    v.push_back({"LpNormalization", 1, {in(kF32, {20011, 3})}, {{"p", p}, {"axis", 0}}, "tall"});
    std::mt19937_64 rng(17 + static_cast<uint64_t>(p));
    for (const Shape& s : random_shapes(17 + static_cast<uint64_t>(p), 4)) {
      const int64_t axis = static_cast<int64_t>(rng() % s.size()) - static_cast<int64_t>(s.size());
      v.push_back({"LpNormalization", 1, {in(kF32, s)}, {{"p", p}, {"axis", axis}}, "random"});
    }
  }
}

// ONNX Runtime's leniency (registry/lenient.h, docs/ONNX.md): negative axes and indices in the
// opset < 11 forms, which the spec's letter forbids. Labelled "ort_lenient/...": the ORT comparison
// (tests/tools/opset_ort_test.cpp) runs them against ONNX Runtime as well.
void add_lenient(std::vector<OpCase>& v) {
  auto lenient = [&](OpCase c, const std::string& what) {
    c.label = "ort_lenient/" + what;
    v.push_back(std::move(c));
  };
  // PaddleOCR's recognizer: ReduceMean axes = [-1] at opset 9.
  lenient({"ReduceMean", 9, {in(kF32, {2, 3, 5})}, {{"axes", I{-1}}}}, "axes-1");
  lenient({"ReduceSum", 10, {in(kF32, {4, 3, 2})}, {{"axes", I{-2, 0}}, {"keepdims", int64_t{0}}}},
          "axes-2_0");
  lenient({"ReduceMax", 1, {in(kF32, {3, 7})}, {{"axes", I{-1}}}}, "axes-1");
  lenient({"ReduceL2", 10, {in(kF32, {2, 6})}, {{"axes", I{-1}}}}, "axes-1");
  lenient({"ArgMax", 10, {in(kF32, {3, 4, 5})}, {{"axis", int64_t{-1}}}}, "axis-1");
  lenient({"ArgMin", 1, {in(kF32, {3, 4})}, {{"axis", int64_t{-2}}, {"keepdims", int64_t{0}}}},
          "axis-2");
  lenient({"Squeeze", 1, {in(kF32, {3, 1, 4, 1})}, {{"axes", I{-1, 1}}}}, "axes-1");
  lenient({"Unsqueeze", 1, {in(kF32, {3, 4})}, {{"axes", I{-1}}}}, "axes-1");
  lenient({"Compress",
           9,
           {in(kF32, {3, 4}), fixed_values(kBool, {1, 0, 1, 1}, {4})},
           {{"axis", int64_t{-1}}}},
          "axis-1");
  lenient({"Gather", 10, {in(kF32, {5, 3}), fixed_values(kI64, {-1, 0, -5, 2}, {2, 2})}},
          "indices-1");
  lenient(
      {"OneHot",
       9,
       {in_int(kI64, {2, 3}, 0, 4), fixed_values(kF32, {5}, {1}), fixed_values(kF32, {0, 1}, {2})},
       {{"axis", int64_t{-2}}}},
      "axis-2");
}

}  // namespace

std::vector<OpCase> cases_legacy() {
  std::vector<OpCase> v;
  add_variadic1(v);
  add_cast1(v);
  add_dropout_legacy(v);
  add_pad1(v);
  add_split1(v);
  add_tile1(v);
  add_upsample_legacy(v);
  add_lpnorm(v);
  add_lenient(v);
  return v;
}

}  // namespace asc::test

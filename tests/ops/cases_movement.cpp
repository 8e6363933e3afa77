// Cases of the movement family: every registered version; odd, empty (0-sized), scalar and
// size-1 shapes; every attribute mode; f32, f16, integer and bool data (movement ops move bytes,
// so any dtype is exact).
#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kF64 = DType::kF64,
            kI8 = DType::kI8, kU8 = DType::kU8, kI16 = DType::kI16, kI32 = DType::kI32,
            kI64 = DType::kI64, kBool = DType::kBool;
using I = std::vector<int64_t>;

// Data of every dtype family movement ops accept.
InputSpec data(DType dt, Shape s) {
  return dtype_is_float(dt) ? in(dt, std::move(s)) : in_int(dt, std::move(s), -100, 100);
}

InputSpec scalar_of(DType dt, double v) {
  Tensor t(dt, {});
  t.set(0, v);
  return fixed_tensor(std::move(t));
}

InputSpec ints_of(DType dt, const I& v) {
  Tensor t(dt, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), static_cast<double>(v[i]));
  return fixed_tensor(std::move(t));
}

void add_shape_ops(std::vector<OpCase>& v) {
  // Reshape: 0 copies a dim, -1 infers; allowzero makes 0 a zero dim.
  v.push_back({"Reshape", 1, {data(kF32, {2, 3, 4})}, {{"shape", I{4, 0, -1}}}, "attr"});
  struct R {
    Shape from;
    I to;
  };
  for (const R& r : {R{{2, 3, 4}, {4, -1}}, R{{2, 3, 4}, {0, -1}}, R{{2, 3, 4}, {0, 0, 4}},
                     R{{}, {1}}, R{{1}, {}}, R{{0, 3}, {-1, 3}}, R{{7}, {7, 1, 1}}})
    for (int opset : {13, 14})
      v.push_back({"Reshape", opset, {data(kF32, r.from), fixed_i64(r.to)}});
  for (DType dt : {kF16, kI64, kBool, kI8, kBF16})
    v.push_back({"Reshape", 14, {data(dt, {3, 5}), fixed_i64({5, 3})}});
  v.push_back({"Reshape", 14, {data(kF32, {0, 3}), fixed_i64({3, 0})}, {{"allowzero", 1}}, "az"});
  v.push_back({"Reshape", 14, {data(kF32, {2, 3}), fixed_i64({3, 2})}, {{"allowzero", 1}}, "az"});
  // Shape / Size.
  for (const Shape& s : {Shape{}, Shape{3}, Shape{2, 0, 4}, Shape{1, 2, 3, 4}}) {
    v.push_back({"Shape", 13, {data(kF32, s)}});
    v.push_back({"Size", 13, {data(kF32, s)}});
  }
  v.push_back({"Shape", 13, {data(kBool, {2, 2})}});
  struct SE {
    int64_t start, end;
  };
  for (SE se : {SE{0, INT64_MAX}, SE{1, INT64_MAX}, SE{-1, INT64_MAX}, SE{1, 2}, SE{0, -1},
                SE{-10, 10}, SE{2, 1}, SE{3, 3}})
    v.push_back({"Shape",
                 15,
                 {data(kI32, {2, 3, 4})},
                 {{"start", se.start}, {"end", se.end}},
                 cat("s", se.start, "e", se.end)});
  v.push_back({"Size", 1, {data(kI64, {5, 0})}});
  // Flatten.
  v.push_back({"Flatten", 1, {data(kF32, {2, 3, 4})}});
  v.push_back({"Flatten", 9, {data(kI32, {2, 3, 4})}, {{"axis", 0}}, "axis0"});
  for (int64_t axis : {0, 1, 2, 3, -1, -3})
    v.push_back({"Flatten", 13, {data(kF16, {2, 3, 4})}, {{"axis", axis}}, cat("axis", axis)});
  v.push_back({"Flatten", 13, {data(kF32, {})}, {{"axis", 0}}, "scalar"});
  v.push_back({"Flatten", 13, {data(kU8, {2, 0, 3})}, {{"axis", 2}}});
  // Squeeze / Unsqueeze: attribute axes before 13, an input from 13.
  v.push_back({"Squeeze", 1, {data(kF32, {1, 3, 1, 5})}, {{"axes", I{0, 2}}}});
  v.push_back({"Squeeze", 1, {data(kF32, {1, 3, 1, 5})}, {}, "all"});
  v.push_back({"Squeeze", 11, {data(kI64, {1, 3, 1, 5})}, {{"axes", I{-2}}}});
  v.push_back({"Squeeze", 13, {data(kF32, {1, 3, 1, 5}), fixed_i64({0, -2})}});
  v.push_back({"Squeeze", 13, {data(kBool, {1, 1, 4, 1}), absent()}, {}, "all"});
  v.push_back({"Squeeze", 13, {data(kF32, {1}), fixed_i64({0})}});
  v.push_back({"Squeeze", 13, {data(kF32, {0, 1}), fixed_i64({1})}});
  v.push_back({"Unsqueeze", 1, {data(kF32, {3, 5})}, {{"axes", I{0, 3}}}});
  v.push_back({"Unsqueeze", 11, {data(kI8, {3, 5})}, {{"axes", I{-1, 1}}}});
  v.push_back({"Unsqueeze", 13, {data(kF32, {3, 5}), fixed_i64({2, 0})}});
  v.push_back({"Unsqueeze", 13, {data(kF16, {}), fixed_i64({0})}});
  v.push_back({"Unsqueeze", 13, {data(kF32, {0, 2}), fixed_i64({-1, 1, 0})}});
  // Identity.
  for (DType dt : {kF32, kF16, kI64, kBool, kF64})
    v.push_back({"Identity", 16, {data(dt, {3, 7})}});
  v.push_back({"Identity", 16, {data(kF32, {})}});
  v.push_back({"Identity", 16, {data(kF32, {4, 0})}});
}

void add_join(std::vector<OpCase>& v) {
  v.push_back({"Concat", 1, {data(kF32, {2, 3}), data(kF32, {2, 1})}, {}, "default_axis"});
  v.push_back({"Concat", 4, {data(kF32, {2, 3}), data(kF32, {4, 3})}, {{"axis", 0}}});
  struct C {
    std::vector<Shape> shapes;
    int64_t axis;
  };
  const std::vector<C> table = {
      {{{5}}, 0},
      {{{2, 3}, {2, 5}, {2, 1}}, 1},
      {{{2, 3}, {2, 5}, {2, 1}}, -1},
      {{{1, 3, 4}, {2, 3, 4}}, 0},
      {{{2, 3, 4}, {2, 1, 4}, {2, 0, 4}, {2, 2, 4}}, 1},
      {{{2, 3, 4}, {2, 3, 3}}, 2},
      {{{2, 3, 4}, {2, 3, 4}}, -3},
      {{{0, 3}, {0, 3}}, 1},
      {{{33, 17}, {33, 65}}, 1},
  };
  for (const C& c : table)
    for (DType dt : {kF32, kI64, kBool}) {
      std::vector<InputSpec> ins;
      for (const Shape& s : c.shapes) ins.push_back(data(dt, s));
      v.push_back({"Concat", 13, ins, {{"axis", c.axis}}, cat("axis", c.axis)});
    }
  v.push_back({"Concat", 11, {data(kF16, {3, 2}), data(kF16, {3, 3})}, {{"axis", -1}}});
  // Many tiles: wide rows cut into column pieces, many narrow rows, parts of unequal width.
  v.push_back({"Concat", 13, {data(kF32, {1, 5000}), data(kF32, {1, 3001})}, {{"axis", 1}}});
  v.push_back({"Concat", 13, {data(kI64, {300, 7}), data(kI64, {300, 1})}, {{"axis", -1}}});
  v.push_back({"Concat",
               13,
               {data(kF16, {3, 2, 600}), data(kF16, {3, 9, 600}), data(kF16, {3, 1, 600})},
               {{"axis", 1}}});
  v.push_back({"Split", 13, {data(kF32, {257, 130}), fixed_i64({1, 129})}, {{"axis", 1}}});
  v.push_back({"Split", 13, {data(kU8, {10007}), fixed_i64({3000, 0, 7007})}});
  v.push_back({"Split", 13, {data(kF32, {40, 3, 100}), fixed_i64({10, 30})}});
  // Split.
  v.push_back({"Split", 2, {data(kF32, {6, 3})}, {{"split", I{1, 2, 3}}}, "s123"});
  v.push_back({"Split", 2, {data(kF32, {2, 6})}, {{"axis", 1}, {"split", I{4, 2}}}, "ax1"});
  v.push_back({"Split", 11, {data(kI32, {2, 3, 5})}, {{"axis", -1}, {"split", I{2, 0, 3}}}});
  v.push_back({"Split", 13, {data(kF32, {2, 7}), fixed_i64({3, 4})}, {{"axis", 1}}});
  v.push_back({"Split", 13, {data(kBool, {5, 2}), fixed_i64({5})}});
  v.push_back({"Split", 13, {data(kF16, {4, 0}), fixed_i64({1, 3})}});
  v.push_back({"Split", 18, {data(kF32, {7, 2}), absent()}, {{"num_outputs", 3}}, "n3"});
  v.push_back({"Split", 18, {data(kF32, {2, 8}), absent()}, {{"axis", 1}, {"num_outputs", 4}}});
  v.push_back({"Split", 18, {data(kI64, {2, 5}), fixed_i64({2, 3})}, {{"axis", -1}}});
}

void add_slice(std::vector<OpCase>& v) {
  v.push_back({"Slice", 1, {data(kF32, {5, 6})}, {{"starts", I{1, 0}}, {"ends", I{3, 10}}}});
  v.push_back({"Slice",
               9,
               {data(kI32, {5, 6, 2})},
               {{"starts", I{-2}}, {"ends", I{INT64_MAX}}, {"axes", I{1}}},
               "axes"});
  struct S {
    Shape shape;
    I starts, ends, axes, steps;
    const char* label;
  };
  const std::vector<S> table = {
      {{10}, {2}, {7}, {}, {}, "basic"},
      {{20, 10, 5}, {0, 0}, {3, 10}, {0, 1}, {1, 1}, "rows"},
      {{20, 10, 5}, {0, 0, 3}, {20, 10, 4}, {0, 1, 2}, {1, 1, 1}, "inner"},
      {{20, 10, 5}, {1}, {1000}, {1}, {2}, "step2"},
      {{20, 10, 5}, {-1}, {-1000}, {1}, {-1}, "neg_step"},
      {{20, 10, 5}, {20, 10, 4}, {0, 0, 1}, {0, 1, 2}, {-1, -3, -1}, "neg_steps"},
      {{20, 10, 5}, {0, 0, 3}, {-1, 1000, 1000}, {}, {}, "end_oob"},
      {{20, 10, 5}, {1000}, {1000}, {1}, {1}, "start_oob"},
      {{20, 10, 5}, {0, 0}, {3, 10}, {-3, -2}, {}, "neg_axes"},
      {{6, 7}, {5}, {0}, {1}, {1}, "empty"},
      {{0, 4}, {0}, {2}, {1}, {1}, "zero_dim"},
      {{3, 8}, {-100}, {100}, {-1}, {3}, "step3"},
      {{4, 5}, {3, -1}, {0, -6}, {0, 1}, {-2, -2}, "both_neg"},
      {{10}, {2}, {INT64_MAX}, {}, {INT64_MAX}, "huge_step"},
      {{10}, {-1}, {INT64_MIN}, {}, {INT64_MIN}, "huge_neg_step"},
      {{10}, {INT64_MIN}, {INT64_MAX}, {0}, {1}, "int64_bounds"},
  };
  for (const S& s : table) {
    std::vector<InputSpec> ins = {data(kF32, s.shape), fixed_i64(s.starts), fixed_i64(s.ends)};
    ins.push_back(s.axes.empty() ? absent() : fixed_i64(s.axes));
    if (!s.steps.empty()) ins.push_back(fixed_i64(s.steps));
    v.push_back({"Slice", 13, ins, {}, s.label});
  }
  for (DType dt : {kF16, kI64, kBool, kU8})
    v.push_back({"Slice",
                 13,
                 {data(dt, {4, 9}), ints_of(kI32, {1, 8}), ints_of(kI32, {3, 0}),
                  ints_of(kI32, {0, 1}), ints_of(kI32, {1, -2})},
                 {},
                 "i32_indices"});
  // Expand.
  struct E {
    Shape from;
    I to;
  };
  for (const E& e :
       {E{{3, 1}, {2, 1, 6}}, E{{3, 1}, {3, 4}}, E{{1}, {5}}, E{{}, {2, 3}}, E{{2, 3}, {1, 1}},
        E{{4, 1, 5}, {4, 3, 5}}, E{{1, 5}, {0, 5}}, E{{3}, {2, 1, 1}}, E{{1, 1, 17}, {5, 9, 17}}})
    for (DType dt : {kF32, kI32, kBool})
      v.push_back({"Expand", 13, {data(dt, e.from), fixed_i64(e.to)}});
  // Many tiles: long broadcast rows and columns, odd sizes (tails), several cores.
  v.push_back({"Expand", 13, {data(kF32, {1, 2053}), fixed_i64({13, 2053})}});
  v.push_back({"Expand", 13, {data(kI64, {257, 1}), fixed_i64({2, 257, 131})}});
  v.push_back({"Expand", 13, {data(kF16, {3, 1, 500}), fixed_i64({3, 33, 500})}});
  // Tile.
  struct T {
    Shape shape;
    I reps;
  };
  for (const T& t : {T{{2, 3}, {2, 2}}, T{{2, 3}, {1, 3}}, T{{2, 3}, {3, 1}}, T{{4}, {5}},
                     T{{2, 1, 3}, {1, 4, 2}}, T{{2, 3}, {0, 2}}, T{{0, 3}, {2, 2}}, T{{}, {}},
                     T{{3, 17}, {2, 3}}})
    for (DType dt : {kF32, kF16, kI64})
      v.push_back({"Tile", 13, {data(dt, t.shape), fixed_i64(t.reps)}});
  v.push_back({"Tile", 13, {data(kF32, {33, 517}), fixed_i64({3, 2})}});
  v.push_back({"Tile", 13, {data(kBool, {500, 3}), fixed_i64({2, 21})}});
}

void add_pad(std::vector<OpCase>& v) {
  for (const char* mode : {"constant", "edge", "reflect"}) {
    v.push_back({"Pad",
                 2,
                 {data(kF32, {3, 4})},
                 {{"pads", I{1, 2, 2, 1}}, {"mode", std::string(mode)}, {"value", 1.5f}},
                 mode});
    struct P {
      Shape shape;
      I pads;
    };
    for (const P& p :
         {P{{3, 4}, {0, 2, 0, 3}}, P{{3, 4}, {2, 0, 1, 0}}, P{{2, 3, 5}, {1, 1, 2, 0, 2, 4}},
          P{{4, 5}, {-1, 1, 0, -2}}, P{{1, 5}, {0, 2, 0, 2}}, P{{5}, {7, 9}},
          P{{3, 4}, {0, 0, 0, 0}}, P{{}, {}}, P{{16, 33}, {1, 3, 2, 4}}})
      for (DType dt : {kF32, kI64, kF16})
        v.push_back({"Pad",
                     13,
                     {data(dt, p.shape), fixed_i64(p.pads)},
                     {{"mode", std::string(mode)}},
                     mode});
    v.push_back({"Pad",
                 13,
                 {data(kI32, {3, 4}), fixed_i64({1, 1, 1, 1}), scalar_of(kI32, -7)},
                 {{"mode", std::string(mode)}},
                 cat(mode, "/value")});
    v.push_back({"Pad",
                 18,
                 {data(kF32, {3, 4, 2}), fixed_i64({1, 2, 2, 1}), absent(), fixed_i64({-1, 0})},
                 {{"mode", std::string(mode)}},
                 cat(mode, "/axes")});
  }
  v.push_back(
      {"Pad", 13, {data(kF32, {0, 3}), fixed_i64({1, 1, 2, 0}), scalar_of(kF32, 2)}, {}, "empty"});
  v.push_back(
      {"Pad", 13, {data(kBool, {2, 3}), fixed_i64({1, 0, 0, 1}), scalar_of(kBool, 1)}, {}, "bool"});
  v.push_back({"Pad",
               19,
               {data(kF32, {3, 4}), fixed_i64({2, 5, 4, 6})},
               {{"mode", std::string("wrap")}},
               "wrap"});
  v.push_back({"Pad",
               19,
               {data(kF32, {3, 4, 5}), fixed_i64({1, 0, 3, 2, 2, 1})},
               {{"mode", std::string("wrap")}},
               "wrap_small"});
  v.push_back({"Pad",
               19,
               {data(kF32, {3, 4}), fixed_i64({1, 0, 0, 0})},
               {{"mode", std::string("reflect")}},
               "reflect"});
}

// CenterCropPad-18: crops and pads (odd differences), a subset of axes (negative), i32 shapes,
// empty and unchanged dims.
void add_center_crop_pad(std::vector<OpCase>& v) {
  v.push_back({"CenterCropPad", 18, {data(kF32, {5, 6}), fixed_i64({3, 9})}, {}, "crop_pad"});
  v.push_back({"CenterCropPad",
               18,
               {data(kF32, {4, 7, 3}), fixed_i64({2, 4})},
               {{"axes", I{0, -2}}},
               "axes"});
  v.push_back({"CenterCropPad", 18, {data(kI64, {6, 2}), fixed_i64({1})}, {{"axes", I{0}}}});
  Tensor shape(DType::kI32, {3});
  for (int64_t i = 0; i < 3; ++i) shape.set(i, static_cast<double>(4 - i));
  v.push_back({"CenterCropPad",
               18,
               {data(kF16, {3, 3, 3}), fixed_tensor(std::move(shape))},
               {},
               "i32_shape"});
  v.push_back({"CenterCropPad", 18, {data(kF32, {0, 5}), fixed_i64({2, 5})}, {}, "empty_in"});
  v.push_back({"CenterCropPad", 18, {data(kBool, {7, 8}), fixed_i64({0, 8})}, {}, "empty_out"});
}

void add_fill(std::vector<OpCase>& v) {
  v.push_back({"ConstantOfShape", 9, {fixed_i64({2, 3})}, {}, "default"});
  v.push_back({"ConstantOfShape", 9, {fixed_i64({})}, {}, "scalar"});
  v.push_back({"ConstantOfShape", 9, {fixed_i64({4, 0})}, {}, "empty"});
  for (DType dt : {kF32, kI32, kI64, kBool, kF16}) {
    Tensor value(dt, {1});
    value.set(0, 1.0);
    v.push_back({"ConstantOfShape",
                 20,
                 {fixed_i64({3, 5, 2})},
                 {{"value", value}},
                 cat("value_", dtype_name(dt))});
  }
  struct Rg {
    DType dt;
    double start, limit, delta;
  };
  for (const Rg& r : {Rg{kF32, 1, 5, 0.5}, Rg{kF32, 10, 1, -3}, Rg{kF32, 0, 0, 1},
                      Rg{kF64, -2, 2, 0.3}, Rg{kI32, 10, 6, -3}, Rg{kI32, 1, 100, 7},
                      Rg{kI64, 0, -5, 1}, Rg{kI16, -5, 5, 2}, Rg{kI64, 3, 4, 10}})
    v.push_back({"Range",
                 11,
                 {scalar_of(r.dt, r.start), scalar_of(r.dt, r.limit), scalar_of(r.dt, r.delta)},
                 {},
                 cat(r.start, "_", r.limit, "_", r.delta)});
  struct Ey {
    Shape shape;
    int64_t k, dtype;
  };
  for (const Ey& e : {Ey{{4, 4}, 0, -1}, Ey{{3, 5}, 2, -1}, Ey{{5, 3}, -1, -1}, Ey{{4, 6}, 7, -1},
                      Ey{{3, 3}, 0, 7}, Ey{{3, 4}, 1, 9}, Ey{{0, 3}, 0, -1}})
    v.push_back({"EyeLike",
                 9,
                 {data(kF32, e.shape)},
                 {{"k", e.k}, {"dtype", e.dtype}},
                 cat("k", e.k, "_dt", e.dtype)});
  v.push_back({"EyeLike", 9, {data(kI32, {2, 2})}, {}, "int"});
  for (int64_t upper : {0, 1}) {
    for (int64_t k : {0, 1, -1, 3, -4, 10}) {
      v.push_back({"Trilu",
                   14,
                   {data(kF32, {4, 5}), scalar_of(kI64, k)},
                   {{"upper", upper}},
                   cat("up", upper, "_k", k)});
      v.push_back({"Trilu",
                   14,
                   {data(kI32, {2, 3, 5, 3}), scalar_of(kI64, k)},
                   {{"upper", upper}},
                   cat("up", upper, "_k", k)});
    }
    v.push_back(
        {"Trilu", 14, {data(kF16, {3, 3}), absent()}, {{"upper", upper}}, cat("up", upper)});
    v.push_back({"Trilu", 14, {data(kBool, {0, 3})}, {{"upper", upper}}, cat("up", upper)});
    v.push_back({"Trilu", 14, {data(kF32, {1, 6})}, {{"upper", upper}}, cat("up", upper)});
  }
}

void add_space(std::vector<OpCase>& v) {
  v.push_back({"DepthToSpace", 1, {data(kF32, {1, 8, 2, 3})}, {{"blocksize", 2}}});
  for (const char* mode : {"DCR", "CRD"})
    for (DType dt : {kF32, kI64, kF16}) {
      v.push_back({"DepthToSpace",
                   13,
                   {data(dt, {2, 8, 3, 2})},
                   {{"blocksize", 2}, {"mode", std::string(mode)}},
                   mode});
      v.push_back({"DepthToSpace",
                   13,
                   {data(dt, {1, 18, 2, 2})},
                   {{"blocksize", 3}, {"mode", std::string(mode)}},
                   mode});
    }
  v.push_back({"DepthToSpace", 13, {data(kF32, {0, 4, 2, 2})}, {{"blocksize", 2}}});
  v.push_back({"DepthToSpace", 13, {data(kF32, {2, 16, 33, 17})}, {{"blocksize", 2}}, "DCR"});
  v.push_back({"DepthToSpace",
               13,
               {data(kF16, {1, 36, 20, 31})},
               {{"blocksize", 3}, {"mode", std::string("CRD")}},
               "CRD"});
  v.push_back({"SpaceToDepth", 13, {data(kF32, {1, 3, 64, 66})}, {{"blocksize", 2}}});
  v.push_back({"DepthToSpace", 13, {data(kF32, {1, 5, 2, 3})}, {{"blocksize", 1}}});
  for (DType dt : {kF32, kBool, kI32}) {
    v.push_back({"SpaceToDepth", 13, {data(dt, {2, 3, 4, 6})}, {{"blocksize", 2}}});
    v.push_back({"SpaceToDepth", 13, {data(dt, {1, 2, 6, 3})}, {{"blocksize", 3}}});
  }
  v.push_back({"SpaceToDepth", 1, {data(kF32, {1, 1, 4, 4})}, {{"blocksize", 4}}});
}

}  // namespace

std::vector<OpCase> cases_movement() {
  std::vector<OpCase> v;
  add_shape_ops(v);
  add_join(v);
  add_slice(v);
  add_pad(v);
  add_center_crop_pad(v);
  add_fill(v);
  add_space(v);
  return v;
}

}  // namespace asc::test

// Cases of the indexing family: every op version; i32 and i64 indices (negative ones where the
// opset allows them); f32, f16, bf16, integer and bool data; scalar, empty, size-1 and odd
// shapes; every axis, reduction and output mode; duplicate indices and tied values.
#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kF64 = DType::kF64;
const DType kI8 = DType::kI8, kI32 = DType::kI32, kI64 = DType::kI64, kU8 = DType::kU8;
const DType kBool = DType::kBool, kU16 = DType::kU16;

template <typename V>
InputSpec fixed_as(DType dt, const std::vector<V>& values, Shape shape) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.set(static_cast<int64_t>(i), static_cast<double>(values[i]));
  return fixed_tensor(std::move(t));
}

// Random indices in [lo, hi] of the given dtype.
InputSpec idx(DType dt, Shape shape, int64_t lo, int64_t hi) {
  return in_int(dt, std::move(shape), static_cast<double>(lo), static_cast<double>(hi));
}

OpCase with(OpCase c, Attrs a, std::string label) {
  for (const auto& [k, v] : a.all()) c.attrs.set(k, v);
  c.label = std::move(label);
  return c;
}

void add_gather(std::vector<OpCase>& v) {
  // Gather-1 (non-negative) and Gather-13 (negative indices).
  v.push_back({"Gather", 10, {in(kF32, {5, 4}), idx(kI64, {3}, 0, 4)}});
  v.push_back(with({"Gather", 10, {in(kF16, {3, 7, 2}), idx(kI32, {2, 2}, 0, 6)}},
                   {{"axis", int64_t{1}}}, "axis1"));
  v.push_back({"Gather", 13, {in(kF32, {6, 5}), idx(kI64, {4}, -6, 5)}});
  v.push_back(with({"Gather", 13, {in(kBF16, {2, 3, 9}), idx(kI32, {3, 1}, -9, 8)}},
                   {{"axis", int64_t{-1}}}, "axis-1"));
  v.push_back({"Gather", 13, {in(kI64, {7}, -100, 100), idx(kI64, {}, -7, 6)}});  // scalar index
  v.push_back({"Gather", 13, {in(kBool, {4, 3}), idx(kI64, {0}, 0, 3)}});         // empty
  v.push_back(with({"Gather", 13, {in(kU8, {3, 0, 2}), idx(kI64, {2}, 0, 1)}},
                   {{"axis", int64_t{2}}}, "axis2_empty"));
  v.push_back({"Gather", 13, {in(kF64, {1, 1}), idx(kI64, {5}, 0, 0)}});

  v.push_back({"GatherElements", 13, {in(kF32, {4, 3}), idx(kI64, {2, 3}, -4, 3)}});
  v.push_back(with({"GatherElements", 13, {in(kF16, {3, 5, 2}), idx(kI32, {2, 4, 2}, -5, 4)}},
                   {{"axis", int64_t{1}}}, "axis1_smaller"));
  v.push_back(with({"GatherElements", 13, {in(kI8, {2, 6}, -9, 9), idx(kI64, {2, 7}, 0, 5)}},
                   {{"axis", int64_t{-1}}}, "axis-1_longer"));
  v.push_back({"GatherElements", 13, {in(kBool, {5}), idx(kI64, {0}, 0, 4)}});
  v.push_back(with({"GatherElements", 13, {in(kF32, {1, 1, 1}), idx(kI64, {1, 1, 3}, 0, 0)}},
                   {{"axis", int64_t{2}}}, "axis2_repeat"));

  // GatherND-11 (no batch dims), GatherND-13 with batch_dims 0/1/2.
  v.push_back({"GatherND", 11, {in(kF32, {3, 4}), idx(kI64, {5, 2}, -3, 2)}});
  v.push_back({"GatherND", 11, {in(kI32, {3, 4, 2}, -9, 9), idx(kI64, {2, 2, 1}, 0, 2)}});
  v.push_back({"GatherND", 13, {in(kF16, {2, 3, 4}), idx(kI32, {3, 3}, 0, 1)}});
  v.push_back(with({"GatherND", 13, {in(kF32, {2, 3, 4}), idx(kI64, {2, 5, 1}, -3, 2)}},
                   {{"batch_dims", int64_t{1}}}, "batch1"));
  v.push_back(with({"GatherND", 13, {in(kBF16, {2, 3, 4, 5}), idx(kI64, {2, 3, 2, 2}, 0, 3)}},
                   {{"batch_dims", int64_t{2}}}, "batch2"));
  v.push_back({"GatherND", 13, {in(kBool, {2, 2}), idx(kI64, {0, 2}, 0, 1)}});
}

void add_scatter(std::vector<OpCase>& v) {
  v.push_back({"Scatter", 9, {in(kF32, {4, 3}), idx(kI64, {2, 3}, 0, 3), in(kF32, {2, 3})}});
  v.push_back(with({"Scatter", 11, {in(kF16, {3, 5}), idx(kI32, {3, 2}, -5, 4), in(kF16, {3, 2})}},
                   {{"axis", int64_t{1}}}, "axis1"));

  struct Red {
    int opset;
    const char* name;
  };
  const Red reds[] = {{13, ""},    {16, "none"}, {16, "add"}, {16, "mul"},
                      {18, "max"}, {18, "min"},  {18, "add"}};
  for (const Red& r : reds) {
    Attrs a;
    if (*r.name) a.set("reduction", std::string(r.name));
    const std::string l = *r.name ? r.name : "plain";
    v.push_back(with({"ScatterElements",
                      r.opset,
                      {in(kF32, {5, 3}), idx(kI64, {4, 3}, -5, 4), in(kF32, {4, 3})}},
                     a, l));
    Attrs a1 = a;
    a1.set("axis", int64_t{-1});
    v.push_back(with({"ScatterElements",
                      r.opset,
                      {in_int(kI32, {2, 3, 4}, -5, 5), idx(kI32, {2, 2, 6}, 0, 3),
                       in_int(kI32, {2, 2, 6}, -5, 5)}},
                     a1, l + "_axis-1_dups"));
    v.push_back(
        with({"ScatterND", r.opset, {in(kF32, {4, 3}), idx(kI64, {5, 1}, -4, 3), in(kF32, {5, 3})}},
             a, l));
    v.push_back(with(
        {"ScatterND", r.opset, {in(kF16, {3, 4, 2}), idx(kI64, {2, 2}, 0, 2), in(kF16, {2, 2})}}, a,
        l + "_elements"));
  }
  v.push_back({"ScatterElements", 18, {in(kBool, {3}), idx(kI64, {0}, 0, 2), in(kBool, {0})}});
  v.push_back(with({"ScatterElements", 18, {in(kBool, {4}), idx(kI64, {3}, 0, 3), in(kBool, {3})}},
                   {{"reduction", std::string("mul")}}, "bool_mul"));
  v.push_back({"ScatterND", 13, {in(kBF16, {2, 3}), idx(kI64, {2, 2}, 0, 1), in(kBF16, {2})}});
  v.push_back({"ScatterND",
               13,
               {in(kI64, {3, 2}, -9, 9), idx(kI32, {0, 1}, 0, 2), in(kI64, {0, 2}, -9, 9)}});
  v.push_back({"ScatterND", 13, {in(kU8, {4}, 0, 9), idx(kI64, {1, 1}, 0, 3), in(kU8, {1}, 0, 9)}});
}

void add_select(std::vector<OpCase>& v) {
  const InputSpec onoff = fixed_as<double>(kF32, {-1.5, 3.0}, {2});
  for (int opset : {9, 11}) {
    const int64_t lo = opset == 9 ? -1 : -6;  // 9-10: negatives are out of range
    v.push_back({"OneHot", opset, {idx(kI64, {3, 4}, lo, 5), fixed_i64({5}, Shape{}), onoff}});
    v.push_back(with({"OneHot",
                      opset,
                      {idx(kI32, {2, 3}, lo, 4), fixed_as<int>(kI32, {4}, {1}),
                       fixed_as<int>(kI64, {0, 7}, {2})}},
                     {{"axis", int64_t{1}}}, "axis1"));
    v.push_back(with({"OneHot",
                      opset,
                      {in_int(kF32, {4}, -4, 4), fixed_as<double>(kF32, {3.0}, {1}),
                       fixed_as<int>(kBool, {0, 1}, {2})}},
                     {{"axis", int64_t{0}}}, "float_indices"));
    v.push_back({"OneHot", opset, {idx(kI64, {}, 0, 2), fixed_i64({3}, Shape{}), onoff}});
    v.push_back({"OneHot", opset, {idx(kI64, {0, 2}, 0, 2), fixed_i64({3}, Shape{}), onoff}});
  }
  v.push_back(with({"OneHot",
                    11,
                    {idx(kI64, {2, 3}, -4, 3), fixed_i64({4}, Shape{}),
                     fixed_as<double>(kF16, {0.5, 2.0}, {2})}},
                   {{"axis", int64_t{-2}}}, "axis-2"));

  for (int opset : {9, 11}) {
    const int64_t ax = opset == 9 ? 1 : -1;
    v.push_back(
        with({"Compress", opset, {in(kF32, {3, 4}), in(kBool, {4})}}, {{"axis", ax}}, "axis_last"));
    v.push_back(with({"Compress", opset, {in(kF16, {5, 2}), fixed_as<int>(kBool, {1, 0, 1}, {3})}},
                     {{"axis", int64_t{0}}}, "short_condition"));
    v.push_back({"Compress", opset, {in(kI64, {2, 3}, -9, 9), in(kBool, {6})}});  // flattened
    v.push_back(with({"Compress", opset, {in(kBool, {2, 0, 3}), in(kBool, {2})}},
                     {{"axis", int64_t{0}}}, "empty"));
  }
  v.push_back(with({"Compress", 11, {in(kBF16, {2, 3, 4}), fixed_as<int>(kBool, {0, 0, 0}, {3})}},
                   {{"axis", int64_t{-2}}}, "none_kept"));

  v.push_back({"NonZero", 13, {in_int(kF32, {3, 5}, -1, 1)}});
  v.push_back({"NonZero", 13, {in(kBool, {2, 3, 2})}});
  v.push_back({"NonZero", 13, {in_int(kI32, {7}, 0, 2)}});
  v.push_back({"NonZero", 13, {in_int(kF16, {}, 1, 1)}});  // scalar
  v.push_back({"NonZero", 13, {in(kU16, {2, 0})}});
  v.push_back({"NonZero", 9, {fixed_as<int>(kI64, {0, 0, 0}, {3})}});

  v.push_back({"ReverseSequence", 10, {in(kF32, {4, 3}), fixed_as<int>(kI64, {4, 1, 0}, {3})}});
  v.push_back(
      with({"ReverseSequence", 10, {in(kF16, {3, 5, 2}), fixed_as<int>(kI64, {5, 2, 3}, {3})}},
           {{"time_axis", int64_t{1}}, {"batch_axis", int64_t{0}}}, "batch_major"));
  v.push_back({"ReverseSequence", 10, {in(kBool, {3, 2, 2, 3}), fixed_as<int>(kI64, {3, 2}, {2})}});
  v.push_back({"ReverseSequence", 10, {in(kI8, {0, 2}, -9, 9), fixed_as<int>(kI64, {0, 0}, {2})}});
}

void add_sort(std::vector<OpCase>& v) {
  v.push_back(with({"TopK", 1, {in(kF32, {3, 6})}}, {{"k", int64_t{2}}}, "k2"));
  v.push_back(with({"TopK", 1, {in_int(kF32, {4, 5, 2}, -2, 2)}},
                   {{"k", int64_t{3}}, {"axis", int64_t{1}}}, "ties_axis1"));
  v.push_back({"TopK", 10, {in(kF16, {2, 7}), fixed_i64({4})}});
  v.push_back({"TopK", 11, {in_int(kI32, {3, 9}, -3, 3), fixed_i64({5})}, {}, "ties"});
  v.push_back(with({"TopK", 11, {in_int(kF32, {5, 3}, -2, 2), fixed_i64({3})}},
                   {{"largest", int64_t{0}}, {"axis", int64_t{0}}}, "smallest_axis0"));
  v.push_back(with({"TopK", 11, {in(kBF16, {2, 3, 4}), fixed_i64({4})}},
                   {{"sorted", int64_t{0}}, {"axis", int64_t{-1}}}, "unsorted"));
  v.push_back({"TopK", 11, {in(kF64, {3, 4}), fixed_i64({0})}, {}, "k0"});
  v.push_back({"TopK", 11, {in(kU8, {0, 4}, 0, 9), fixed_i64({2})}, {}, "empty"});
  v.push_back({"TopK", 11, {in(kI64, {8}, -50, 50), fixed_i64({8})}, {}, "all"});

  for (int64_t sorted : {1, 0}) {
    const std::string s = sorted ? "sorted" : "unsorted";
    Attrs a{{"sorted", sorted}};
    v.push_back(with({"Unique", 11, {in_int(kF32, {3, 5}, -2, 2)}}, a, s));
    v.push_back(with({"Unique", 11, {in_int(kI64, {9}, 0, 4)}}, a, s));
    Attrs a0 = a;
    a0.set("axis", int64_t{0});
    v.push_back(with({"Unique", 11, {in_int(kI32, {6, 2}, 0, 1)}}, a0, s + "_axis0"));
    Attrs a1 = a;
    a1.set("axis", int64_t{-1});
    v.push_back(with({"Unique", 11, {in_int(kF16, {2, 3, 5}, 0, 1)}}, a1, s + "_axis-1"));
  }
  v.push_back({"Unique", 11, {in(kBool, {7})}});
  v.push_back({"Unique", 11, {in(kF32, {0, 3})}});
  v.push_back({"Unique", 11, {in_int(kBF16, {}, 1, 1)}});
  v.push_back(
      with({"Unique", 11, {in_int(kI8, {3, 0}, 0, 1)}}, {{"axis", int64_t{1}}}, "empty_axis"));

  const InputSpec ax0 = fixed_i64({0}, Shape{}), ax1 = fixed_i64({1}, Shape{});
  for (int64_t ex : {0, 1})
    for (int64_t rev : {0, 1}) {
      Attrs a{{"exclusive", ex}, {"reverse", rev}};
      const std::string l = cat("ex", ex, "_rev", rev);
      v.push_back(with({"CumSum", 11, {in(kF32, {7}), ax0}}, a, l));
      v.push_back(with({"CumSum", 14, {in(kF32, {3, 4, 5}), ax1}}, a, l));
      v.push_back(
          with({"CumSum", 14, {in_int(kI32, {4, 3}, -5, 5), fixed_as<int>(kI32, {-1}, {1})}}, a,
               l + "_neg_axis"));
    }
  v.push_back({"CumSum", 14, {in(kF16, {2, 9}), ax1}});
  v.push_back({"CumSum", 14, {in(kBF16, {5, 2}), ax0}});
  v.push_back({"CumSum", 14, {in_int(kI64, {3, 0}, -5, 5), ax0}});
  v.push_back({"CumSum", 14, {in(kF64, {1}), ax0}});
}

}  // namespace

std::vector<OpCase> cases_indexing() {
  std::vector<OpCase> v;
  add_gather(v);
  add_scatter(v);
  add_select(v);
  add_sort(v);
  return v;
}

}  // namespace asc::test

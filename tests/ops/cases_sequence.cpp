// Sequences and optionals (ops/sequence.cpp): lists of seeded tensors of mixed shapes, empty
// lists, scalars and strings; positions from the front and the back; every split form.
#include <cmath>
#include <random>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

Tensor seeded(DType dt, const Shape& shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  Tensor t(dt, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = u(rng);
    if (dt == DType::kString) {
      t.strings()[i] = cat("s", static_cast<int>(v * 100));
    } else {
      t.set(i, dtype_is_float(dt) ? v : std::floor(v));
    }
  }
  return t;
}

Tensor seq(DType dt, const std::vector<Shape>& shapes, uint64_t seed = 1) {
  std::vector<Tensor> items;
  for (const Shape& s : shapes) items.push_back(seeded(dt, s, seed++));
  return Tensor::sequence(dt, std::move(items));
}

InputSpec pos(int64_t p, DType dt = DType::kI64) {
  Tensor t(dt, {});
  t.set(0, static_cast<double>(p));
  return fixed_tensor(std::move(t));
}

InputSpec list(Tensor t) {
  return fixed_tensor(std::move(t));
}

Attrs axis_attrs(int64_t axis, const char* extra = nullptr, int64_t value = 0) {
  Attrs a;
  a.set("axis", axis);
  if (extra) a.set(extra, value);
  return a;
}

}  // namespace

std::vector<OpCase> cases_sequence() {
  const DType f32 = DType::kF32, i64 = DType::kI64;
  const std::vector<Shape> mixed = {{2, 3}, {5}, {}, {1, 4}};
  std::vector<OpCase> v;

  for (int64_t dt : {1, 7, 8}) {  // f32, i64, string
    Attrs a;
    a.set("dtype", dt);
    v.push_back(OpCase("SequenceEmpty", 11, {}, a, cat("dtype", dt)));
  }

  v.push_back(OpCase("SequenceConstruct", 11, {in(f32, {2, 3}), in(f32, {5}), in(f32, {})}));
  v.push_back(OpCase("SequenceConstruct", 11, {in_int(i64, {4}, -9, 9)}, {}, "one"));
  v.push_back(OpCase("SequenceConstruct", 11,
                     {fixed_tensor(seeded(DType::kString, {3}, 4)),
                      fixed_tensor(seeded(DType::kString, {2, 2}, 5))},
                     {}, "strings"));

  const Tensor three = seq(f32, mixed);
  v.push_back(OpCase("SequenceInsert", 11, {list(three), in(f32, {2, 2})}, {}, "append"));
  v.push_back(OpCase("SequenceInsert", 11, {list(three), in(f32, {3}), pos(1)}, {}, "at1"));
  v.push_back(
      OpCase("SequenceInsert", 11, {list(three), in(f32, {}), pos(-1, DType::kI32)}, {}, "back"));
  v.push_back(OpCase("SequenceInsert", 11, {list(three), in(f32, {1}), pos(4)}, {}, "end"));
  v.push_back(OpCase("SequenceInsert", 11, {list(three), in(f32, {1}), pos(-4)}, {}, "front"));
  v.push_back(
      OpCase("SequenceInsert", 11, {list(seq(i64, {})), in_int(i64, {2}, -5, 5)}, {}, "empty"));

  v.push_back(OpCase("SequenceErase", 11, {list(three)}, {}, "last"));
  v.push_back(OpCase("SequenceErase", 11, {list(three), pos(0)}, {}, "first"));
  v.push_back(OpCase("SequenceErase", 11, {list(three), pos(-3, DType::kI32)}, {}, "neg"));
  v.push_back(OpCase("SequenceErase", 11, {list(seq(f32, {{3}}))}, {}, "only"));

  v.push_back(OpCase("SequenceAt", 11, {list(three), pos(0)}, {}, "first"));
  v.push_back(OpCase("SequenceAt", 11, {list(three), pos(2)}, {}, "scalar"));
  v.push_back(OpCase("SequenceAt", 11, {list(three), pos(-1, DType::kI32)}, {}, "last"));
  v.push_back(
      OpCase("SequenceAt", 11, {list(seq(DType::kString, {{2}, {3}})), pos(1)}, {}, "strings"));

  v.push_back(OpCase("SequenceLength", 11, {list(three)}));
  v.push_back(OpCase("SequenceLength", 11, {list(seq(f32, {}))}, {}, "empty"));

  v.push_back(OpCase("SplitToSequence", 11, {in(f32, {5, 4})}, axis_attrs(0), "ones"));
  v.push_back(
      OpCase("SplitToSequence", 11, {in(f32, {5, 4})}, axis_attrs(1, "keepdims", 0), "squeezed"));
  v.push_back(OpCase("SplitToSequence", 11, {in(f32, {3, 7}), pos(3)}, axis_attrs(-1), "scalar"));
  v.push_back(OpCase("SplitToSequence", 11, {in_int(i64, {6, 2}, -9, 9), fixed_i64({1, 0, 5})},
                     axis_attrs(0), "sizes"));
  v.push_back(OpCase("SplitToSequence", 11, {in(f32, {2, 0, 3})}, axis_attrs(1), "empty"));
  v.push_back(OpCase("SplitToSequence", 11, {fixed_tensor(seeded(DType::kString, {4}, 9))},
                     axis_attrs(0, "keepdims", 0), "strings"));

  v.push_back(OpCase("ConcatFromSequence", 11, {list(seq(f32, {{2, 3}, {1, 3}, {4, 3}}))},
                     axis_attrs(0), "rows"));
  v.push_back(OpCase("ConcatFromSequence", 11, {list(seq(i64, {{3, 2}, {3, 1}, {3, 0}}))},
                     axis_attrs(-1), "cols"));
  v.push_back(OpCase("ConcatFromSequence", 11, {list(seq(f32, {{2, 3}, {2, 3}, {2, 3}}))},
                     axis_attrs(0, "new_axis", 1), "stack0"));
  v.push_back(OpCase("ConcatFromSequence", 11, {list(seq(f32, {{2, 3}, {2, 3}}))},
                     axis_attrs(2, "new_axis", 1), "stack_last"));
  v.push_back(OpCase("ConcatFromSequence", 11, {list(seq(f32, {{}, {}, {}}))},
                     axis_attrs(-1, "new_axis", 1), "scalars"));

  Attrs tensor_type;
  tensor_type.set("type", std::string("tensor(f32)"));
  Attrs seq_type;
  seq_type.set("type", std::string("seq(tensor(i64))"));
  v.push_back(OpCase("Optional", 15, {in(f32, {2, 3})}, {}, "tensor"));
  v.push_back(OpCase("Optional", 15, {list(three)}, {}, "sequence"));
  v.push_back(OpCase("Optional", 15, {absent()}, tensor_type, "empty"));
  v.push_back(OpCase("Optional", 15, {}, seq_type, "empty_seq"));

  const Tensor full = Tensor::optional(f32, seeded(f32, {3, 2}, 7));
  const Tensor none = Tensor::optional(f32, std::nullopt);
  v.push_back(OpCase("OptionalHasElement", 15, {list(full)}, {}, "full"));
  v.push_back(OpCase("OptionalHasElement", 15, {list(none)}, {}, "none"));
  v.push_back(OpCase("OptionalHasElement", 18, {list(full)}, {}, "full"));
  v.push_back(OpCase("OptionalHasElement", 18, {in(f32, {4})}, {}, "plain"));
  v.push_back(OpCase("OptionalHasElement", 18, {absent()}, {}, "absent"));
  v.push_back(OpCase("OptionalGetElement", 15, {list(full)}, {}, "tensor"));
  v.push_back(OpCase("OptionalGetElement", 15, {list(Tensor::optional(DType::kSequence, three))},
                     {}, "sequence"));
  v.push_back(OpCase("OptionalGetElement", 18, {list(full)}, {}, "tensor"));
  v.push_back(OpCase("OptionalGetElement", 18, {in_int(i64, {}, -4, 4)}, {}, "plain"));
  v.push_back(OpCase("OptionalGetElement", 18, {list(three)}, {}, "plain_sequence"));
  return v;
}

}  // namespace asc::test

// Sequence and optional ops on bad input: positions out of range or not one element, empty
// sequences where an element is needed, elements of another dtype or shape, bad split sizes and
// a typeless empty Optional — each a ShapeError naming the op and what is wrong. Also: the
// kernels share elements instead of copying them, and leave their inputs untouched.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

Tensor f32(Shape shape, double start = 0) {
  Tensor t(DType::kF32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, start + static_cast<double>(i));
  return t;
}

Tensor i64s(const std::vector<int64_t>& v, bool scalar = true) {
  Tensor t(DType::kI64, scalar && v.size() == 1 ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), static_cast<double>(v[i]));
  return t;
}

std::vector<Tensor> run(const char* op, int opset, const Attrs& attrs,
                        const std::vector<Tensor>& in) {
  return run_op(global_registry().lookup("", op, opset), attrs, in, device());
}

std::string error_of(const char* op, int opset, const Attrs& attrs, const std::vector<Tensor>& in) {
  try {
    run(op, opset, attrs, in);
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

const Tensor three = Tensor::sequence(DType::kF32, {f32({2}), f32({3}, 5), f32({})});
const Tensor none = Tensor::sequence(DType::kF32, {});

TEST(SequenceErrors, PositionsOutOfRange) {
  EXPECT_HAS(error_of("SequenceAt", 11, {}, {three, i64s({3})}),
             "SequenceAt: position 3 is out of range [-3, 2] for 3 elements");
  EXPECT_HAS(error_of("SequenceAt", 11, {}, {three, i64s({-4})}), "position -4 is out of range");
  EXPECT_HAS(error_of("SequenceAt", 11, {}, {none, i64s({0})}),
             "position 0 is out of range [0, -1] for 0 elements");
  EXPECT_HAS(error_of("SequenceInsert", 11, {}, {three, f32({1}), i64s({4})}),
             "SequenceInsert: position 4 is out of range [-3, 3]");
  EXPECT_HAS(error_of("SequenceErase", 11, {}, {three, i64s({-4})}),
             "SequenceErase: position -4 is out of range");
  EXPECT_HAS(error_of("SequenceAt", 11, {}, {three, i64s({0, 1}, false)}),
             "SequenceAt: position must be one element, got i64[2]");
}

TEST(SequenceErrors, EmptySequencesAndMixedElements) {
  EXPECT_HAS(error_of("SequenceErase", 11, {}, {none}), "SequenceErase: the sequence is empty");
  Attrs axis0;
  axis0.set("axis", int64_t{0});
  EXPECT_HAS(error_of("ConcatFromSequence", 11, axis0, {none}),
             "ConcatFromSequence: the sequence is empty");
  EXPECT_HAS(error_of("ConcatFromSequence", 11, axis0,
                      {Tensor::sequence(DType::kF32, {f32({2, 3}), f32({2, 4})})}),
             "ConcatFromSequence: f32[2,4] does not join f32[2,3] along axis 0");
  EXPECT_HAS(error_of("ConcatFromSequence", 11, axis0, {Tensor::sequence(DType::kF32, {f32({})})}),
             "cannot concatenate scalars");
  EXPECT_HAS(error_of("SequenceInsert", 11, {}, {three, i64s({1})}),
             "SequenceInsert: cannot add a tensor of i64 to a sequence of f32");
  EXPECT_HAS(error_of("OptionalGetElement", 15, {}, {Tensor::optional(DType::kF32, std::nullopt)}),
             "OptionalGetElement: the optional is empty");
  EXPECT_HAS(error_of("Optional", 15, {}, {Tensor()}),
             "Optional: an empty optional needs the type attribute");
  Attrs bad_type;
  bad_type.set("type", std::string("tensor(q7)"));
  EXPECT_HAS(error_of("Optional", 15, bad_type, {Tensor()}), "cannot read the type 'tensor(q7)'");
}

TEST(SequenceErrors, BadSplits) {
  Attrs a;
  a.set("axis", int64_t{1});
  EXPECT_HAS(error_of("SplitToSequence", 11, a, {f32({2, 5}), i64s({2, 2}, false)}),
             "SplitToSequence: split sizes sum to 4, the axis has 5");
  EXPECT_HAS(error_of("SplitToSequence", 11, a, {f32({2, 5}), i64s({0})}),
             "SplitToSequence: split 0 must be > 0");
  EXPECT_HAS(error_of("SplitToSequence", 11, a, {f32({2, 5}), i64s({6, -1}, false)}),
             "split has a negative size -1");
  EXPECT_HAS(error_of("SplitToSequence", 11, a, {f32({5})}), "axis 1 is out of range for rank 1");
  EXPECT_HAS(error_of("SplitToSequence", 11, {}, {f32({})}), "the input must have rank >= 1");
}

// Insert and erase share the elements they keep; the input sequence is left as it was.
TEST(SequenceOps, ShareElementsAndLeaveInputsAlone) {
  const Tensor x = f32({4}, 9);
  const auto out = run("SequenceInsert", 11, {}, {three, x, i64s({0})});
  const TensorList& l = *out[0].list();
  ASSERT_EQ(l.items.size(), 4u);
  EXPECT_EQ(l.items[0].data(), x.data());
  EXPECT_EQ(l.items[1].data(), three.list()->items[0].data());
  EXPECT_EQ(three.list()->items.size(), 3u);
  const auto erased = run("SequenceErase", 11, {}, {out[0], i64s({0})});
  EXPECT_EQ(erased[0].list()->items.size(), 3u);
  EXPECT_EQ(out[0].list()->items.size(), 4u);
  // SequenceAt gives a tensor of its own.
  const auto at = run("SequenceAt", 11, {}, {three, i64s({1})});
  EXPECT_NE(at[0].data(), three.list()->items[1].data());
  EXPECT_EQ(at[0].at(2), 7.0);
}

}  // namespace
}  // namespace asc::test

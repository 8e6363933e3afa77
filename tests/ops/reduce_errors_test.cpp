// Bad input to the reduce family is a ShapeError naming the op and the offending shapes or
// values: ReduceX axes (out of range, repeated, 2-D axes input), ArgMax
// axes and empty axes, RNN / GRU / LSTM shapes, attributes and sequence_lens, Einsum equations.
// Also: ReduceLogSumExp of long rows is one online max/sum loop, and ReduceX versions split at
// opsets 11 and 18.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(1);
  return dev;
}

Tensor i64s(const std::vector<int64_t>& v, Shape shape) {
  Tensor t(DType::kI64, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

// The ShapeError message of running `op` (opset) on `ins`, or "" when it succeeds.
std::string error_of(const char* op, int opset, const Attrs& attrs,
                     const std::vector<Tensor>& ins) {
  const OpDef& def = global_registry().lookup("", op, opset);
  try {
    run_op(def, attrs, ins, device());
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

// Every fragment occurs in the message.
void expect_mentions(const std::string& msg, std::initializer_list<const char*> fragments) {
  EXPECT_FALSE(msg.empty()) << "expected a ShapeError";
  for (const char* f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << f << " in: " << msg;
}

TEST(ReduceErrors, AxesAttribute) {
  const std::vector<Tensor> x{Tensor(DType::kF32, {3, 5})};
  Attrs neg;
  neg.set("axes", std::vector<int64_t>{-1});
  // Negative axes from opset 11 by the spec, before it as ONNX Runtime accepts them.
  EXPECT_EQ(error_of("ReduceMin", 10, neg, x), "");
  EXPECT_EQ(error_of("ReduceMin", 11, neg, x), "");
  Attrs below;
  below.set("axes", std::vector<int64_t>{-3});
  expect_mentions(error_of("ReduceMin", 10, below, x),
                  {"ReduceMin-1", "axis -3", "[-2, 2)", "[3,5]"});
  Attrs far;
  far.set("axes", std::vector<int64_t>{2});
  expect_mentions(error_of("ReduceL2", 17, far, x), {"ReduceL2-11", "axis 2", "[-2, 2)", "[3,5]"});
  Attrs twice;
  twice.set("axes", std::vector<int64_t>{0, -2});
  expect_mentions(error_of("ReduceProd", 13, twice, x), {"ReduceProd", "repeated axis", "[3,5]"});
}

TEST(ReduceErrors, AxesInput) {
  const std::vector<Tensor> ins{Tensor(DType::kF32, {3, 5}), i64s({0, 1}, {1, 2})};
  expect_mentions(error_of("ReduceLogSumExp", 18, {}, ins), {"ReduceLogSumExp", "1-D", "[1,2]"});
  const std::vector<Tensor> far{Tensor(DType::kF32, {3, 5}), i64s({-3}, {1})};
  expect_mentions(error_of("ReduceSumSquare", 18, {}, far), {"ReduceSumSquare-18", "axis -3"});
}

TEST(ReduceErrors, VersionsSplitAtOpsets11And18) {
  for (const char* op : {"ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare", "ReduceMean", "ReduceMax"}) {
    EXPECT_EQ(global_registry().lookup("", op, 10).versions(), "1-10") << op;
    EXPECT_EQ(global_registry().lookup("", op, 13).versions(), "11-17") << op;
    const bool bool_at_20 = std::string(op) == "ReduceMin" || std::string(op) == "ReduceMax";
    EXPECT_EQ(global_registry().lookup("", op, 18).versions(), bool_at_20 ? "18-19" : "18+") << op;
  }
  EXPECT_EQ(global_registry().lookup("", "ReduceSum", 12).versions(), "11-12");
}

TEST(ArgErrors, AxisAndEmptyAxis) {
  const std::vector<Tensor> x{Tensor(DType::kF32, {3, 5})};
  Attrs neg;
  neg.set("axis", int64_t{-1});
  EXPECT_EQ(error_of("ArgMax", 10, neg, x), "");  // as ONNX Runtime accepts it
  EXPECT_EQ(error_of("ArgMax", 11, neg, x), "");
  Attrs below;
  below.set("axis", int64_t{-3});
  expect_mentions(error_of("ArgMax", 10, below, x), {"ArgMax-1", "axis -3", "[-2, 2)", "[3,5]"});
  Attrs far;
  far.set("axis", int64_t{2});
  expect_mentions(error_of("ArgMin", 13, far, x), {"ArgMin-12", "axis 2", "[3,5]"});
  const std::vector<Tensor> empty{Tensor(DType::kF32, {3, 0})};
  expect_mentions(error_of("ArgMin", 13, neg, empty), {"ArgMin", "empty axis 1", "[3,0]"});
  const std::vector<Tensor> scalar{Tensor(DType::kF32, {})};
  expect_mentions(error_of("ArgMax", 13, {}, scalar), {"ArgMax", "axis 0", "[]"});
}

TEST(ArgMax, SelectLastIndexPicksTheLastTie) {
  Tensor x(DType::kF32, {2, 4});
  const float v[] = {1, 3, 3, 0, 2, 2, 2, 2};
  std::copy(v, v + 8, x.data_as<float>());
  Attrs a;
  a.set("axis", int64_t{1});
  a.set("keepdims", int64_t{0});
  const OpDef& def = global_registry().lookup("", "ArgMax", 13);
  auto first = run_op(def, a, std::vector<Tensor>{x}, device());
  a.set("select_last_index", int64_t{1});
  auto last = run_op(def, a, std::vector<Tensor>{x}, device());
  ASSERT_EQ(first[0].shape(), (Shape{2}));
  EXPECT_EQ(first[0].data_as<int64_t>()[0], 1);
  EXPECT_EQ(first[0].data_as<int64_t>()[1], 0);
  EXPECT_EQ(last[0].data_as<int64_t>()[0], 2);
  EXPECT_EQ(last[0].data_as<int64_t>()[1], 3);
}

// X [seq 2, batch 3, input 4], hidden 5, one direction.
std::vector<Tensor> rnn_inputs(int64_t gates, Shape w_shape = {}) {
  if (w_shape.empty()) w_shape = {1, gates * 5, 4};
  return {Tensor(DType::kF32, {2, 3, 4}), Tensor(DType::kF32, w_shape),
          Tensor(DType::kF32, {1, gates * 5, 5})};
}

TEST(RnnErrors, ShapesAndAttributes) {
  expect_mentions(error_of("LSTM", 14, {}, rnn_inputs(4, {1, 20, 3})),
                  {"LSTM", "W must be [1,20,4]", "got [1,20,3]"});
  expect_mentions(error_of("GRU", 7, {}, rnn_inputs(4)), {"GRU", "W must be [1,15,4]"});
  Attrs dir;
  dir.set("direction", std::string("sideways"));
  expect_mentions(error_of("RNN", 7, dir, rnn_inputs(1)), {"RNN", "direction", "sideways"});
  Attrs act;
  act.set("activations", std::vector<std::string>{"Swish"});
  expect_mentions(error_of("RNN", 7, act, rnn_inputs(1)),
                  {"RNN", "unsupported activation", "Swish"});
  Attrs count;
  count.set("activations", std::vector<std::string>{"Sigmoid"});
  expect_mentions(error_of("GRU", 7, count, rnn_inputs(3)),
                  {"GRU", "expected 2 activations, got 1"});
}

TEST(RnnErrors, SequenceLensOutOfRange) {
  auto ins = rnn_inputs(1);
  ins.emplace_back();  // no B
  Tensor lens(DType::kI32, {3});
  const int32_t v[] = {1, 3, 2};
  std::copy(v, v + 3, lens.data_as<int32_t>());
  ins.push_back(lens);
  expect_mentions(error_of("RNN", 7, {}, ins), {"RNN", "sequence_lens[1] = 3", "[0, 2]"});
  Tensor short_lens(DType::kI32, {2});
  ins.back() = short_lens;
  expect_mentions(error_of("RNN", 7, {}, ins), {"RNN", "sequence_lens must be [3]", "got [2]"});
}

TEST(EinsumErrors, Equations) {
  const std::vector<Tensor> two{Tensor(DType::kF32, {2, 3}), Tensor(DType::kF32, {4, 5})};
  Attrs a;
  a.set("equation", std::string("ij,jk->ik"));
  expect_mentions(error_of("Einsum", 12, a, two), {"Einsum", "ij,jk->ik", "is 4", "elsewhere 3"});
  a.set("equation", std::string("ijk,jk->ik"));
  expect_mentions(error_of("Einsum", 12, a, two), {"Einsum", "'ijk'", "rank 2"});
  a.set("equation", std::string("ij->iz"));
  expect_mentions(error_of("Einsum", 12, a, {two[0]}), {"Einsum", "ij->iz", "not in any input"});
  a.set("equation", std::string("ij,kl,mn"));
  expect_mentions(error_of("Einsum", 12, a, two), {"Einsum", "3 terms for 2 inputs"});
  a.set("equation", std::string("i$,kl"));
  expect_mentions(error_of("Einsum", 12, a, two), {"Einsum", "bad term 'i$'"});
}

}  // namespace
}  // namespace asc

// Sequence and optional values through the importer and the runtime: graph inputs and outputs of
// sequence and optional type, SequenceMap running its body per element, a Loop carrying a
// sequence, and clear errors naming node, op and shapes for bad positions and bad feeds.
#include <gtest/gtest.h>

#include "registry/error.h"
#include "runtime/model.h"
#include "tests/importers/onnx_builder.h"

namespace asc::test {
namespace {

void seq_type(onnx::ValueInfoProto& vi, const std::string& name, DType elem) {
  vi.set_name(name);
  vi.mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(static_cast<int32_t>(elem));
}

void optional_type(onnx::ValueInfoProto& vi, const std::string& name, DType elem) {
  vi.set_name(name);
  vi.mutable_type()
      ->mutable_optional_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(static_cast<int32_t>(elem));
}

Tensor f32(std::vector<float> v) {
  Tensor t(DType::kF32, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

Tensor i64(int64_t v) {
  Tensor t(DType::kI64, {});
  t.set(0, static_cast<double>(v));
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}

const Tensor& output(const std::vector<NamedTensor>& out, const std::string& name) {
  for (const auto& o : out)
    if (o.name == name) return o.tensor;
  throw std::runtime_error("no output " + name);
}

// s = SequenceInsert(xs, y, p); sq = SequenceMap(s, body: b = a * a + k) with k from the outer
// graph; cat = ConcatFromSequence(sq, axis 0); n = SequenceLength(sq); last = SequenceAt(sq, -1).
ModelBuilder map_model() {
  ModelBuilder b;
  seq_type(*b.g().add_input(), "xs", DType::kF32);
  b.input("y", DType::kF32, {"?"});
  b.input("p", DType::kI64, {});
  b.initializer_f32("k", {}, {0.5f});
  b.node("SequenceInsert", {"xs", "y", "p"}, {"s"}, "insert");
  onnx::GraphProto body;
  body.set_name("square");
  auto* a = body.add_input();
  a->set_name("a");
  ModelBuilder::set_type(*a, DType::kF32, {"?"});
  auto* mul = body.add_node();
  mul->set_op_type("Mul");
  for (const char* s : {"a", "a"}) mul->add_input(s);
  mul->add_output("aa");
  auto* add = body.add_node();
  add->set_op_type("Add");
  for (const char* s : {"aa", "k"}) add->add_input(s);
  add->add_output("b");
  body.add_output()->set_name("b");
  auto& map = b.node("SequenceMap", {"s"}, {"sq"}, "map");
  auto& g = attr(map, "body");
  g.set_type(onnx::AttributeProto::GRAPH);
  *g.mutable_g() = body;
  attr_i(b.node("ConcatFromSequence", {"sq"}, {"cat"}, "concat"), "axis", 0);
  b.initializer("minus1", DType::kI64, {}, bytes_of(std::vector<int64_t>{-1}));
  b.node("SequenceLength", {"sq"}, {"n"}, "length");
  b.node("SequenceAt", {"sq", "minus1"}, {"last"}, "at");
  seq_type(*b.g().add_output(), "sq", DType::kF32);
  b.output("cat", DType::kF32, {"?"});
  b.output("n", DType::kI64, {});
  b.output("last", DType::kF32, {"?"});
  return b;
}

TEST(Sequences, SequenceMapRunsItsBodyPerElement) {
  const Model m(map_model().import(), ModelOptions{2, "cpu", true});
  const Tensor xs = Tensor::sequence(DType::kF32, {f32({1, 2}), f32({3}), f32({})});
  const auto out = m.run({{"xs", xs}, {"y", f32({-1, 4, 0})}, {"p", i64(1)}});
  // s = [[1, 2], [-1, 4, 0], [3], []]; each element squared plus 0.5.
  const Tensor& sq = output(out, "sq");
  ASSERT_EQ(sq.dtype(), DType::kSequence);
  ASSERT_EQ(sq.list()->items.size(), 4u);
  EXPECT_EQ(values(sq.list()->items[0]), (std::vector<double>{1.5, 4.5}));
  EXPECT_EQ(values(sq.list()->items[1]), (std::vector<double>{1.5, 16.5, 0.5}));
  EXPECT_EQ(values(sq.list()->items[3]), std::vector<double>{});
  EXPECT_EQ(values(output(out, "cat")), (std::vector<double>{1.5, 4.5, 1.5, 16.5, 0.5, 9.5}));
  EXPECT_EQ(output(out, "n").at(0), 4.0);
  EXPECT_EQ(output(out, "last").shape(), Shape{0});
  // The input sequence is unchanged and the output does not alias the caller's tensors.
  EXPECT_EQ(xs.list()->items.size(), 3u);
  EXPECT_NE(sq.list()->items[0].data(), xs.list()->items[0].data());

  // A position past the end names the node, the op and the input shapes.
  const std::string e = error_of<Error>([&] {
    m.run({{"xs", Tensor::sequence(DType::kF32, {})}, {"y", f32({1})}, {"p", i64(5)}});
  });
  EXPECT_NE(e.find("insert (SequenceInsert)"), std::string::npos) << e;
  EXPECT_NE(e.find("position 5 is out of range [0, 0]"), std::string::npos) << e;
  EXPECT_NE(e.find("f32[1]"), std::string::npos) << e;
}

TEST(Sequences, BadFeedsAndElementsAreErrors) {
  const Model m(map_model().import(), ModelOptions{2, "cpu", true});
  std::string e = error_of<Error>([&] {
    m.run({{"xs", f32({1})}, {"y", f32({1})}, {"p", i64(0)}});
  });
  EXPECT_NE(e.find("xs"), std::string::npos) << e;
  EXPECT_NE(e.find("seq"), std::string::npos) << e;
  const Tensor ints = Tensor::sequence(DType::kI64, {i64(3)});
  e = error_of<Error>([&] { m.run({{"xs", ints}, {"y", f32({1})}, {"p", i64(0)}}); });
  EXPECT_NE(e.find("insert (SequenceInsert)"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot add a tensor of f32 to a sequence of i64"), std::string::npos) << e;
}

// A Loop carrying a sequence: starting from SequenceEmpty, each iteration appends [i, i * i].
TEST(Sequences, LoopCarriesASequence) {
  ModelBuilder b;
  b.input("M", DType::kI64, {});
  b.node("SequenceEmpty", {}, {"empty"}, "empty");
  onnx::GraphProto body;
  body.set_name("body");
  auto* i = body.add_input();
  i->set_name("i");
  ModelBuilder::set_type(*i, DType::kI64, {});
  auto* c = body.add_input();
  c->set_name("cond");
  ModelBuilder::set_type(*c, DType::kBool, {});
  seq_type(*body.add_input(), "acc", DType::kF32);
  auto node = [&](const std::string& op, std::vector<std::string> ins, const std::string& out) {
    auto* n = body.add_node();
    n->set_op_type(op);
    for (auto& s : ins) n->add_input(s);
    n->add_output(out);
    return n;
  };
  attr_i(*node("Cast", {"i"}, "fi"), "to", 1);
  node("Mul", {"fi", "fi"}, "sq");
  node("Unsqueeze", {"fi", "zero"}, "fi_1");
  node("Unsqueeze", {"sq", "zero"}, "sq_1");
  attr_i(*node("Concat", {"fi_1", "sq_1"}, "pair"), "axis", 0);
  node("SequenceInsert", {"acc", "pair"}, "acc_out");
  node("Identity", {"cond"}, "cond_out");
  body.add_output()->set_name("cond_out");
  body.add_output()->set_name("acc_out");
  b.initializer("zero", DType::kI64, {1}, bytes_of(std::vector<int64_t>{0}));
  auto& loop = b.node("Loop", {"M", "", "empty"}, {"pairs"}, "loop");
  auto& g = attr(loop, "body");
  g.set_type(onnx::AttributeProto::GRAPH);
  *g.mutable_g() = body;
  seq_type(*b.g().add_output(), "pairs", DType::kF32);
  const Model m(b.import(), ModelOptions{2, "cpu", true});
  for (int64_t n : {0, 1, 4}) {
    const auto out = m.run({{"M", i64(n)}});
    const TensorList* l = out[0].tensor.list();
    ASSERT_NE(l, nullptr);
    ASSERT_EQ(l->items.size(), static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k)
      EXPECT_EQ(values(l->items[k]), (std::vector<double>{double(k), double(k * k)})) << k;
  }
}

// An optional graph input: has = OptionalHasElement(o); v = OptionalGetElement(o) only when full.
TEST(Sequences, OptionalInputs) {
  ModelBuilder b;
  optional_type(*b.g().add_input(), "o", DType::kF32);
  b.node("OptionalHasElement", {"o"}, {"has"}, "has");
  b.node("OptionalGetElement", {"o"}, {"v"}, "get");
  b.output("has", DType::kBool, {});
  b.output("v", DType::kF32, {"?"});
  const Model m(b.import(), ModelOptions{2, "cpu", true});
  const auto out = m.run({{"o", Tensor::optional(DType::kF32, f32({2, 3}))}});
  EXPECT_EQ(out[0].tensor.at(0), 1.0);
  EXPECT_EQ(values(out[1].tensor), (std::vector<double>{2, 3}));
  const std::string e = error_of<Error>([&] {
    m.run({{"o", Tensor::optional(DType::kF32, std::nullopt)}});
  });
  EXPECT_NE(e.find("get (OptionalGetElement)"), std::string::npos) << e;
  EXPECT_NE(e.find("the optional is empty"), std::string::npos) << e;
}

}  // namespace
}  // namespace asc::test

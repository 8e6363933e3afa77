// Importer: graph structure, attributes, initializers of every dtype, Constant nodes, and the
// malformed models of issue 3 section 6 (messages pinned).
#include <gtest/gtest.h>

#include <random>

#include "registry/error.h"
#include "tests/importers/onnx_builder.h"

namespace asc {
namespace {

using test::error_of;
using test::ModelBuilder;

TEST(OnnxImport, AddReluGraph) {
  ModelBuilder b(17);
  b.input("X", DType::kF32, {"batch", "3"});
  b.initializer_f32("B", {3}, {1.f, 2.f, 3.f});
  b.node("Add", {"X", "B"}, {"T"}, "add");
  b.node("Relu", {"T"}, {"Y"});
  b.output("Y", DType::kF32, {"batch", "?"});
  const Graph g = b.import();

  EXPECT_EQ(g.name, "test_graph");
  EXPECT_EQ(g.opsets.at(""), 17);
  ASSERT_EQ(g.inputs.size(), 1u);
  const Value& x = g.values[g.inputs[0]];
  EXPECT_EQ(x.name, "X");
  EXPECT_EQ(x.type.str(), TensorType({DType::kF32, SymShape{Dim("batch"), 3}}).str());
  const int bid = g.find("B");
  ASSERT_GE(bid, 0);
  ASSERT_TRUE(g.values[bid].constant);
  EXPECT_EQ(g.values[bid].constant->shape(), Shape({3}));
  EXPECT_EQ(g.values[bid].constant->at(2), 3.0);

  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "add");
  EXPECT_EQ(g.nodes[1].name, "Relu#1");  // unnamed nodes get "<op_type>#<index>"
  for (const Node& n : g.nodes) {
    ASSERT_NE(n.def, nullptr) << n.label();
    EXPECT_EQ(n.def->type, n.op_type);
    EXPECT_EQ(n.opset, 17);
    EXPECT_LE(n.def->since, 17);
  }
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{g.find("X"), bid}));
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.values[g.outputs[0]].name, "Y");
  EXPECT_EQ(g.values[g.outputs[0]].producer, 1);
  ASSERT_TRUE(g.values[g.outputs[0]].type.shape);
  EXPECT_FALSE((*g.values[g.outputs[0]].type.shape)[1].known());
  EXPECT_FALSE((*g.values[g.outputs[0]].type.shape)[1].symbolic());
  EXPECT_EQ(g.topo_order(), (std::vector<int>{0, 1}));
}

TEST(OnnxImport, AiOnnxDomainIsTheDefault) {
  ModelBuilder b(13);
  b.m.mutable_opset_import(0)->set_domain("ai.onnx");
  b.input("X", DType::kF32, {"2"});
  b.node("Relu", {"X"}, {"Y"}).set_domain("ai.onnx");
  b.output("Y", DType::kF32, {"2"});
  const Graph g = b.import();
  EXPECT_EQ(g.opsets.at(""), 13);
  EXPECT_EQ(g.nodes[0].domain, "");
  EXPECT_NE(g.nodes[0].def, nullptr);
}

TEST(OnnxImport, AttributesOfEveryKind) {
  ModelBuilder b;
  b.input("X", DType::kF32, {"2"});
  auto& n = b.node("Relu", {"X"}, {"Y"}, "r");
  test::attr_i(n, "i", -7);
  test::attr_f(n, "f", 0.5f);
  auto& s = test::attr(n, "s");
  s.set_type(onnx::AttributeProto::STRING);
  s.set_s("hello");
  auto& is = test::attr(n, "is");
  is.set_type(onnx::AttributeProto::INTS);
  for (int64_t v : {1, -2, 3}) is.add_ints(v);
  auto& fs = test::attr(n, "fs");
  fs.set_type(onnx::AttributeProto::FLOATS);
  fs.add_floats(1.5f);
  auto& ss = test::attr(n, "ss");
  ss.set_type(onnx::AttributeProto::STRINGS);
  ss.add_strings("a");
  ss.add_strings("b");
  auto& t = test::attr(n, "t");
  t.set_type(onnx::AttributeProto::TENSOR);
  t.mutable_t()->set_data_type(onnx::TensorProto::INT64);
  t.mutable_t()->add_dims(2);
  t.mutable_t()->add_int64_data(4);
  t.mutable_t()->add_int64_data(5);
  auto& untyped = test::attr(n, "untyped");  // old exporters leave `type` unset
  untyped.set_i(9);
  b.output("Y", DType::kF32, {"2"});

  const Graph g = b.import();
  const Attrs& a = g.nodes[0].attrs;
  EXPECT_EQ(a.i("i"), -7);
  EXPECT_EQ(a.f("f"), 0.5f);
  EXPECT_EQ(a.s("s"), "hello");
  EXPECT_EQ(a.ints("is"), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(a.floats("fs"), (std::vector<float>{1.5f}));
  EXPECT_EQ(std::get<std::vector<std::string>>(a.all().at("ss")),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.tensor("t").dtype(), DType::kI64);
  EXPECT_EQ(a.tensor("t").at(1), 5.0);
  EXPECT_EQ(a.i("untyped"), 9);
}

// Graph attributes are imported as subgraphs (tests/importers/control_flow_test.cpp); an op that
// holds one but is not implemented is still refused by name.
TEST(OnnxImport, GraphAttributeOfAnUnimplementedOpNamesTheNode) {
  ModelBuilder b;
  b.input("C", DType::kBool, {});
  auto& n = b.node("MapGraphs", {"C"}, {"Y"}, "map");
  auto& g = test::attr(n, "body");
  g.set_type(onnx::AttributeProto::GRAPH);
  g.mutable_g()->set_name("body");
  b.output("Y", DType::kF32, {});
  const std::string msg = error_of<UnsupportedError>([&] { b.import(); });
  EXPECT_NE(msg.find("node 'map' (MapGraphs, ai.onnx opset 17): not implemented"),
            std::string::npos)
      << msg;
}

TEST(OnnxImport, EmptyOptionalInputsAndOutputsAreMinusOne) {
  ModelBuilder b;
  b.input("X", DType::kF32, {"2"});
  b.node("Add", {"X", ""}, {"Y", ""});
  b.output("Y", DType::kF32, {"2"});
  const Graph g = b.import();
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{g.find("X"), -1}));
  EXPECT_EQ(g.nodes[0].outputs, (std::vector<int>{g.find("Y"), -1}));
}

TEST(OnnxImport, InitializerListedAsInputIsAConstant) {
  for (int ir : {3, 8}) {
    ModelBuilder b(9, ir);
    b.input("X", DType::kF32, {"3"});
    b.input("W", DType::kF32, {"3"});  // IR < 4 style: every initializer is also an input
    b.initializer_f32("W", {3}, {1, 2, 3});
    b.node("Add", {"X", "W"}, {"Y"});
    b.output("Y", DType::kF32, {"3"});
    const Graph g = b.import();
    ASSERT_EQ(g.inputs.size(), 1u) << "ir " << ir;
    EXPECT_EQ(g.values[g.inputs[0]].name, "X");
    EXPECT_TRUE(g.values[g.find("W")].constant);
  }
}

TEST(OnnxImport, ConstantNodesBecomeConstants) {
  ModelBuilder b;
  auto& c1 = b.node("Constant", {}, {"c1"});
  auto& v = test::attr(c1, "value");
  v.set_type(onnx::AttributeProto::TENSOR);
  v.mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  v.mutable_t()->add_dims(2);
  v.mutable_t()->add_float_data(1.5f);
  v.mutable_t()->add_float_data(-2.f);
  test::attr_f(b.node("Constant", {}, {"c2"}), "value_float", 4.f);
  test::attr_i(b.node("Constant", {}, {"c3"}), "value_int", 7);
  auto& c4 = test::attr(b.node("Constant", {}, {"c4"}), "value_ints");
  c4.set_type(onnx::AttributeProto::INTS);
  c4.add_ints(3);
  c4.add_ints(4);
  auto& c5 = test::attr(b.node("Constant", {}, {"c5"}), "value_floats");
  c5.set_type(onnx::AttributeProto::FLOATS);
  c5.add_floats(0.25f);
  b.node("Add", {"c1", "c2"}, {"Y"});
  b.output("Y", DType::kF32, {"2"});
  b.output("c4", DType::kI64, {"2"});
  const Graph g = b.import();
  ASSERT_EQ(g.nodes.size(), 1u);
  auto constant = [&](const char* name) -> const Tensor& {
    return *g.values[g.find(name)].constant;
  };
  EXPECT_EQ(constant("c1").desc().str(), "f32[2]");
  EXPECT_EQ(constant("c1").at(1), -2.0);
  EXPECT_EQ(constant("c2").desc().str(), "f32[]");
  EXPECT_EQ(constant("c2").at(0), 4.0);
  EXPECT_EQ(constant("c3").desc().str(), "i64[]");
  EXPECT_EQ(constant("c4").desc().str(), "i64[2]");
  EXPECT_EQ(constant("c4").at(1), 4.0);
  EXPECT_EQ(constant("c5").at(0), 0.25);
  EXPECT_EQ(g.values[g.outputs[1]].name, "c4");
}

TEST(OnnxImport, NodesOutOfOrderResolve) {
  ModelBuilder b;
  b.input("X", DType::kF32, {"2"});
  b.node("Relu", {"T"}, {"Y"}, "second");
  b.node("Relu", {"X"}, {"T"}, "first");
  b.output("Y", DType::kF32, {"2"});
  const Graph g = b.import();
  EXPECT_EQ(g.topo_order(), (std::vector<int>{1, 0}));
}

TEST(OnnxImportErrors, UnknownOpsAreAllListed) {
  ModelBuilder b(6);
  b.input("X", DType::kF32, {"2"});
  b.node("FooBar", {"X"}, {"A"}, "n1");
  b.node("Erf", {"A"}, {"B"}, "n2");  // Erf starts at opset 9
  b.node("Relu", {"B"}, {"C"}, "n3");
  b.node("BazQux", {"C"}, {"Y"}, "n4");
  b.output("Y", DType::kF32, {"2"});
  const std::string msg = error_of<UnsupportedError>([&] { b.import(); });
  EXPECT_EQ(msg.find("<bytes>: 3 unsupported:\n"), 0u) << msg;
  EXPECT_NE(msg.find("\n  node 'n1' (FooBar, ai.onnx opset 6): not implemented"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("\n  node 'n2' (Erf, ai.onnx opset 6): no version for opset 6 (asc has 9"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("\n  node 'n4' (BazQux, ai.onnx opset 6): not implemented"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("n3"), std::string::npos) << msg;
}

TEST(OnnxImportErrors, FutureOpset) {
  ModelBuilder b(99);
  EXPECT_EQ(error_of<UnsupportedError>([&] { b.import(); }),
            "<bytes>: ai.onnx opset 99 is newer than asc reads (newest: 23)");
}

TEST(OnnxImportErrors, NoOpsetImport) {
  ModelBuilder b;
  b.m.clear_opset_import();
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }), "<bytes>: the model has no opset_import");
}

// ONNX's own training-op test models import only ai.onnx.preview.training, so a missing
// default-domain import is an error only once a node needs it.
TEST(OnnxImportErrors, NodeInADomainTheModelDoesNotImport) {
  ModelBuilder b;
  b.m.mutable_opset_import(0)->set_domain("com.example");
  b.input("X", DType::kF32, {"2"});
  b.node("Relu", {"X"}, {"Y"}, "r");
  b.output("Y", DType::kF32, {"2"});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: node 'r' (Relu) uses domain ai.onnx, which the model's opset_import does "
            "not list");
}

TEST(OnnxImportErrors, EmptyRandomAndTruncatedBytes) {
  EXPECT_EQ(error_of<ModelError>([] { import_onnx_bytes("", 0, ""); }),
            "<bytes>: not a valid ONNX model (empty file)");
  std::mt19937 rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    std::string junk(1 + rng() % 4096, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    EXPECT_THROW(import_onnx_bytes(junk.data(), junk.size(), ""), ModelError) << trial;
  }
  ModelBuilder b;
  b.input("X", DType::kF32, {"4"});
  b.initializer_f32("W", {4}, {1, 2, 3, 4});
  b.node("Add", {"X", "W"}, {"Y"});
  b.output("Y", DType::kF32, {"4"});
  const std::string full = b.bytes();
  EXPECT_NO_THROW(import_onnx_bytes(full.data(), full.size(), ""));
  for (size_t n = 0; n < full.size(); ++n)  // every proper prefix is refused, none crashes
    EXPECT_THROW(import_onnx_bytes(full.data(), n, ""), Error) << "prefix " << n;
  EXPECT_EQ(error_of<ModelError>([&] { import_onnx_bytes(full.data(), full.size() / 2, ""); }),
            "<bytes>: not a valid ONNX model (protobuf parse failed)");
}

TEST(OnnxImportErrors, MissingAndEmptyFile) {
  EXPECT_EQ(error_of<ModelError>([] { import_onnx_file("/nonexistent/dir/model.onnx"); }),
            "cannot read the model: cannot open '/nonexistent/dir/model.onnx': No such file or "
            "directory");
  test::TempDir dir;
  test::write_file(dir / "empty.onnx", "");
  EXPECT_EQ(error_of<ModelError>([&] { import_onnx_file(dir / "empty.onnx"); }),
            dir / "empty.onnx: not a valid ONNX model (empty file)");
  EXPECT_THROW(import_onnx_file(dir.path().string()), ModelError);  // a directory
}

TEST(OnnxImportErrors, DanglingInputAndCycle) {
  ModelBuilder b;
  b.input("X", DType::kF32, {"2"});
  b.node("Add", {"X", "nowhere"}, {"Y"}, "add");
  b.output("Y", DType::kF32, {"2"});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: node add (Add): input 'nowhere' is not a graph input, an initializer or any "
            "node's output");
  ModelBuilder c;
  c.node("Relu", {"B"}, {"A"}, "ra");
  c.node("Relu", {"A"}, {"B"}, "rb");
  c.output("A", DType::kF32, {"2"});
  EXPECT_NE(error_of<ModelError>([&] { c.import(); }).find("cycle"), std::string::npos);
}

TEST(OnnxImportErrors, OutputNothingProduces) {
  ModelBuilder b;
  b.output("Y", DType::kF32, {"2"});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: graph output 'Y' is not produced by any node, graph input or initializer");
}

TEST(OnnxImportErrors, NodeOverwritesAGraphInput) {
  ModelBuilder b;
  b.input("X", DType::kF32, {"2"});
  b.node("Relu", {"X"}, {"X"}, "r");
  b.output("X", DType::kF32, {"2"});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: node 'r': output 'X' is already a graph input");
}

}  // namespace
}  // namespace asc

namespace asc {
namespace {

// Protobuf's default total-bytes limit is 64 MB; the importer raises it to 2 GB.
TEST(OnnxImport, ModelLargerThan64MB) {
  test::ModelBuilder b;
  const int64_t n = (int64_t{70} << 20) / 4;
  auto& w = b.initializer("W", DType::kF32, {n}, std::string(static_cast<size_t>(n) * 4, '\0'));
  reinterpret_cast<float*>(w.mutable_raw_data()->data())[n - 1] = 5.f;
  b.output("W", DType::kF32, {});
  const Graph g = b.import();
  EXPECT_EQ(g.values[g.find("W")].constant->at(n - 1), 5.0);
}

// Sequences and optionals import (tests/importers/sequence_model_test.cpp); maps do not.
TEST(OnnxImportErrors, MapInputIsUnsupported) {
  test::ModelBuilder b;
  auto* in = b.g().add_input();
  in->set_name("M");
  auto* map = in->mutable_type()->mutable_map_type();
  map->set_key_type(onnx::TensorProto::INT64);
  map->mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  b.output("M", DType::kUndefined, {});
  const std::string msg = error_of<UnsupportedError>([&] { b.import(); });
  EXPECT_NE(msg.find("graph input 'M' is not a tensor, sequence or optional"), std::string::npos)
      << msg;
}

}  // namespace
}  // namespace asc

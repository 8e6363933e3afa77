// Opsets 18..23 (importers/onnx/onnx_schemas.h): the importer reads them, no registered op version
// spans a schema version that changed semantics, versions that only added types run on the older
// definition, and a changed version asc lacks is refused naming the op and the version.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "importers/onnx/onnx_schemas.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/model.h"
#include "tests/importers/onnx_builder.h"

namespace asc {
namespace {

using test::error_of;
using test::ModelBuilder;

TEST(OnnxSchemas, TableIsOrderedAndUnique) {
  std::set<std::pair<std::string_view, int>> seen;
  int opset = 18;
  for (const SchemaVersion& s : onnx_schemas_after_1_12()) {
    EXPECT_EQ(s.domain, "ai.onnx");
    EXPECT_GE(s.since, opset) << s.op << " is out of opset order";
    EXPECT_LE(s.since, 23) << s.op;
    opset = s.since;
    EXPECT_TRUE(seen.insert({s.op, s.since}).second) << s.op << "-" << s.since << " twice";
  }
  EXPECT_EQ(seen.size(), 144u);  // the changelog's count of versions in opsets 18..23
  // A new op has no earlier version in the table.
  for (const SchemaVersion& s : onnx_schemas_after_1_12()) {
    if (s.change != SchemaChange::kNew) continue;
    EXPECT_EQ(newest_schema_after("", s.op, 0, s.since - 1), 0) << s.op;
  }
}

// The invariant of priority 1: a registered version never silently serves a schema version whose
// semantics differ from its own.
TEST(OnnxSchemas, NoDefinitionSpansAChangedVersion) {
  const Registry& reg = global_registry();
  for (const SchemaVersion& s : onnx_schemas_after_1_12()) {
    if (s.change == SchemaChange::kTypes) continue;
    for (const OpDef* d : reg.versions("", s.op))
      EXPECT_FALSE(d->since < s.since && s.since <= d->until)
          << s.op << " " << d->versions() << " spans " << s.op << "-" << s.since
          << ", which changed the op: register that version or end the range before it";
  }
}

// A version that only added types runs on the definition before it, wherever asc has the op.
TEST(OnnxSchemas, TypeOnlyVersionsRunOnTheOlderDefinition) {
  const Registry& reg = global_registry();
  for (const SchemaVersion& s : onnx_schemas_after_1_12()) {
    if (s.change != SchemaChange::kTypes || s.op == "Constant") continue;  // imported as constant
    if (reg.versions("", s.op).empty()) continue;                          // not implemented at all
    EXPECT_NE(reg.find("", s.op, s.since), nullptr) << s.op << "-" << s.since;
  }
}

TEST(OnnxSchemas, NewestOpsets) {
  EXPECT_EQ(newest_onnx_opset(""), 23);
  EXPECT_EQ(newest_onnx_opset("ai.onnx"), 23);
  EXPECT_EQ(newest_onnx_opset("ai.onnx.ml"), 5);
  EXPECT_EQ(newest_onnx_opset("com.microsoft"), 0);
  EXPECT_EQ(newest_schema_after("", "ReduceMax", 17, 23), 20);
  EXPECT_EQ(newest_schema_after("", "ReduceMax", 17, 19), 18);
  EXPECT_EQ(newest_schema_after("", "Add", 17, 23), 0);
}

// ReduceMean-18 as torch 2.x writes it: axes as an i64 input.
ModelBuilder reduce_mean_model(int opset) {
  ModelBuilder b(opset);
  b.input("X", DType::kF32, {"2", "3", "4"});
  b.initializer("axes", DType::kI64, {1}, test::bytes_of(std::vector<int64_t>{-1}));
  b.node("ReduceMean", {"X", "axes"}, {"Y"}, "mean");
  b.output("Y", DType::kF32, {"2", "3", "1"});
  return b;
}

TEST(OnnxOpsets, EveryOpsetUpTo23Loads) {
  for (int opset = 18; opset <= 23; ++opset) {
    SCOPED_TRACE(opset);
    const Graph g = reduce_mean_model(opset).import();
    ASSERT_EQ(g.nodes.size(), 1u);
    ASSERT_NE(g.nodes[0].def, nullptr);
    EXPECT_EQ(g.nodes[0].def->since, 18);
    const Model m(g, ModelOptions{1, "cpu", true});
    Tensor x(DType::kF32, {2, 3, 4});
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<double>(i % 7) - 3.0);
    const auto out = m.run({{"X", x}});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].tensor.shape(), Shape({2, 3, 1}));
    for (int64_t r = 0; r < 6; ++r) {
      double sum = 0;
      for (int64_t k = 0; k < 4; ++k) sum += x.at(r * 4 + k);
      EXPECT_NEAR(out[0].tensor.at(r), sum / 4, 1e-6) << r;
    }
  }
  EXPECT_EQ(error_of<UnsupportedError>([&] { reduce_mean_model(24).import(); }),
            "<bytes>: ai.onnx opset 24 is newer than asc reads (newest: 23)");
}

// The opset 17 form (axes as an attribute) in an opset 18 model: the attribute names an input of
// ReduceMean-18, so it is refused rather than ignored (which would reduce over every axis).
TEST(OnnxOpsets, AnAttributeThatBecameAnInputIsRefused) {
  ModelBuilder b(18);
  b.input("X", DType::kF32, {"2", "3"});
  auto& n = b.node("ReduceMean", {"X"}, {"Y"}, "mean");
  auto* a = n.add_attribute();
  a->set_name("axes");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(1);
  b.output("Y", DType::kF32, {"2", "1"});
  const std::string msg = error_of<ShapeError>([&] {
    const Model m(b.import(), ModelOptions{1, "cpu", true});
    m.run({{"X", Tensor(DType::kF32, {2, 3})}});
  });
  EXPECT_NE(msg.find("ReduceMean"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'axes' is an input"), std::string::npos) << msg;
}

// The element types opsets 19, 21 and 23 added are named when refused.
TEST(OnnxOpsets, LaterElementTypesAreRefusedByName) {
  ModelBuilder b(21);
  b.input("X", static_cast<DType>(17), {"4"});
  b.initializer("W", static_cast<DType>(23), {4}, std::string(2, '\0'));
  b.node("Identity", {"X"}, {"Y"});
  b.node("Identity", {"W"}, {"Z"});
  b.output("Y", static_cast<DType>(17), {"4"});
  b.output("Z", static_cast<DType>(23), {"4"});
  const std::string msg = error_of<UnsupportedError>([&] { b.import(); });
  EXPECT_NE(msg.find("float8e4m3fn tensors are not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float4e2m1 tensors are not supported"), std::string::npos) << msg;
}

// int4 / uint4 initializers: two elements per byte, low nibble first, unpacked to one per byte.
TEST(OnnxOpsets, FourBitInitializersUnpack) {
  ModelBuilder b(21);
  // i4 [-8, 7, -1, 0, 5]: nibbles 8 7 | f 0 | 5 (odd count: the last high nibble is padding).
  b.initializer("I", DType::kInt4, {5}, std::string("\x78\x0f\x05", 3));
  b.initializer("U", DType::kUInt4, {3}, std::string("\xa3\x0f", 2));
  b.input("X", DType::kF32, {"1"});
  b.node("Identity", {"X"}, {"Y"});
  b.output("Y", DType::kF32, {"1"});
  const Graph g = b.import();
  const Tensor& i4 = *g.values[g.find("I")].constant;
  ASSERT_EQ(i4.dtype(), DType::kInt4);
  ASSERT_EQ(i4.shape(), Shape({5}));
  const double want_i[] = {-8, 7, -1, 0, 5};
  for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(i4.at(k), want_i[k]) << k;
  const Tensor& u4 = *g.values[g.find("U")].constant;
  const double want_u[] = {3, 10, 15};
  for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(u4.at(k), want_u[k]) << k;

  ModelBuilder bad(21);
  bad.initializer("I", DType::kInt4, {5}, std::string(2, '\0'));
  EXPECT_NE(error_of<ModelError>([&] { bad.import(); }).find("packs into 3"), std::string::npos);
}

// PaddleOCR's recognizer: ReduceMean-1 (opset 9) with axes = [-1], which the spec's letter forbids
// and ONNX Runtime accepts; asc runs it (registry/lenient.h).
TEST(OnnxOpsets, NegativeAxesBeforeOpset11RunAsOnnxRuntimeRunsThem) {
  ModelBuilder b(9);
  b.input("X", DType::kF32, {"2", "4"});
  auto& n = b.node("ReduceMean", {"X"}, {"Y"}, "mean");
  auto* a = n.add_attribute();
  a->set_name("axes");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(-1);
  b.output("Y", DType::kF32, {"2", "1"});
  const Model m(b.import(), ModelOptions{1, "cpu", true});
  Tensor x(DType::kF32, {2, 4});
  for (int64_t i = 0; i < 8; ++i) x.set(i, static_cast<double>(i * i));
  const auto out = m.run({{"X", x}});
  ASSERT_EQ(out[0].tensor.shape(), Shape({2, 1}));
  EXPECT_NEAR(out[0].tensor.at(0), (0 + 1 + 4 + 9) / 4.0, 1e-6);
  EXPECT_NEAR(out[0].tensor.at(1), (16 + 25 + 36 + 49) / 4.0, 1e-5);
}

// Every changed version asc does not implement is refused at import, naming op and version.
TEST(OnnxOpsets, AChangedVersionAscLacksIsRefusedByName) {
  const Registry& reg = global_registry();
  int refused = 0;
  for (const SchemaVersion& s : onnx_schemas_after_1_12()) {
    if (s.change != SchemaChange::kSemantics) continue;
    const OpDef* d = reg.find("", s.op, s.since);
    if (d && d->since == s.since) continue;
    ASSERT_EQ(d, nullptr) << s.op << "-" << s.since;
    ModelBuilder b(s.since);
    b.input("X", DType::kF32, {"2"});
    b.node(std::string(s.op), {"X"}, {"Y"}, "n");
    b.output("Y", DType::kF32, {"2"});
    const std::string msg = error_of<UnsupportedError>([&] { b.import(); });
    EXPECT_NE(msg.find(cat("node 'n' (", s.op, ", ai.onnx opset ", s.since, "): ", s.op, "-",
                           s.since, " is not implemented (asc has ")),
              std::string::npos)
        << msg;
    ++refused;
  }
  RecordProperty("refused", refused);
}

}  // namespace
}  // namespace asc

// Registry lookup by opset, version listing errors, schema defaults and type checks.
#include <gtest/gtest.h>

#include "registry/error.h"
#include "registry/infer.h"
#include "registry/registry.h"

namespace asc {
namespace {

OpDef version(int since, int until) {
  return def_op("Foo", since, until)
      .input("X", "T")
      .output("Y", "T")
      .type_constraint("T", {DType::kF32, DType::kI64})
      .attr("axis", AttrKind::kInt, int64_t{1})
      .attr("mode", AttrKind::kString)
      .infer(infer_unary);
}

TEST(Registry, LookupPicksNewestVersionAtOrBelowOpset) {
  Registry r;
  r.add(version(1, 10));
  r.add(version(11, 12));
  r.add(version(13, INT_MAX));
  EXPECT_EQ(r.lookup("", "Foo", 9).since, 1);
  EXPECT_EQ(r.lookup("", "Foo", 12).since, 11);
  EXPECT_EQ(r.lookup("ai.onnx", "Foo", 17).since, 13);
  EXPECT_EQ(r.versions("", "Foo").size(), 3u);
}

TEST(Registry, MissingVersionListsWhatExists) {
  Registry r;
  r.add(version(7, 12));
  r.add(version(14, INT_MAX));
  try {
    r.lookup("", "Foo", 13);
    FAIL();
  } catch (const UnsupportedError& e) {
    EXPECT_STREQ(e.what(), "op Foo has no version for opset 13 (asc has 7-12, 14+)");
  }
  EXPECT_THROW(r.lookup("", "Bar", 13), UnsupportedError);
}

TEST(Registry, OverlappingVersionsAreRefused) {
  Registry r;
  r.add(version(7, 12));
  EXPECT_THROW(r.add(version(10, 14)), Error);
}

TEST(OpDef, ResolveFillsDefaultsAndChecksKinds) {
  const OpDef d = version(1, 1);
  Attrs given;
  given.set("mode", std::string("fast"));
  const Attrs a = d.resolve(given);
  EXPECT_EQ(a.i("axis"), 1);
  EXPECT_EQ(a.s("mode"), "fast");
  EXPECT_THROW(d.resolve(Attrs{}), ShapeError);  // mode is required
  Attrs wrong;
  wrong.set("mode", std::string("x"));
  wrong.set("axis", 1.5f);
  EXPECT_THROW(d.resolve(wrong), ShapeError);
}

TEST(OpDef, TypeConstraintsBindConsistently) {
  OpDef d = def_op("Bin", 1).input("A", "T").input("B", "T").output("C", "T");
  d.type_constraint("T", {DType::kF32, DType::kI64});
  EXPECT_NO_THROW(d.check_types({DType::kF32, DType::kF32}));
  EXPECT_THROW(d.check_types({DType::kF32, DType::kI64}), ShapeError);
  EXPECT_THROW(d.check_types({DType::kF16, DType::kF16}), ShapeError);
}

TEST(OpDef, RequiredInputsMustBeGiven) {
  OpDef d = def_op("Norm", 1)
                .input("X", "T")
                .input("Scale", "T")
                .input("Bias", "T", Arity::kOptional)
                .output("Y", "T");
  d.type_constraint("T", {DType::kF32});
  EXPECT_NO_THROW(d.check_types({DType::kF32, DType::kF32}));
  EXPECT_NO_THROW(d.check_types({DType::kF32, DType::kF32, DType::kUndefined}));
  try {
    d.check_types({DType::kF32});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "Norm: required input 'Scale' (input 1) is missing; the node has 1 inputs");
  }
  EXPECT_THROW(d.check_types({DType::kF32, DType::kUndefined}), ShapeError);  // "" for Scale
  OpDef v = def_op("Sum", 1).input("data", "T", Arity::kVariadic).output("sum", "T");
  v.type_constraint("T", {DType::kF32});
  EXPECT_NO_THROW(v.check_types({DType::kF32, DType::kF32, DType::kF32}));
  EXPECT_THROW(v.check_types({}), ShapeError);
}

TEST(Shapes, SymbolicBroadcastKeepsWhatItKnows) {
  const SymShape a = {Dim(std::string("batch")), Dim(1), Dim(64)};
  const SymShape b = {Dim(7), Dim(64)};
  EXPECT_EQ(to_string(broadcast_shapes(a, b)), "[batch,7,64]");
  EXPECT_THROW(broadcast_shapes(Shape{3}, Shape{4}), ShapeError);
}

}  // namespace
}  // namespace asc

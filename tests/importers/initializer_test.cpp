// Initializers: every dtype from raw_data and from the typed fields; size and shape checks.
#include <gtest/gtest.h>

#include "registry/error.h"
#include "runtime/model.h"
#include "tests/importers/onnx_builder.h"

namespace asc {
namespace {

using test::error_of;
using test::ModelBuilder;

// The model: one initializer W, output directly.
Tensor import_initializer(onnx::TensorProto tp) {
  ModelBuilder b;
  tp.set_name("W");
  *b.g().add_initializer() = std::move(tp);
  b.output("W", DType::kUndefined, {});
  const Graph g = b.import();
  return *g.values[g.find("W")].constant;
}

// Values 0, 1, 2, 3 (and -1 for signed types) stored in the dtype's typed field.
onnx::TensorProto typed(DType dt) {
  onnx::TensorProto tp;
  tp.set_data_type(static_cast<int32_t>(dt));
  tp.add_dims(2);
  tp.add_dims(2);
  const double v[4] = {0, 1, 2, dtype_is_signed(dt) ? -1.0 : 3.0};
  for (double x : v) {
    switch (dt) {
      case DType::kF32:
        tp.add_float_data(static_cast<float>(x));
        break;
      case DType::kF64:
        tp.add_double_data(x);
        break;
      case DType::kI64:
        tp.add_int64_data(static_cast<int64_t>(x));
        break;
      case DType::kU32:
      case DType::kU64:
        tp.add_uint64_data(static_cast<uint64_t>(x));
        break;
      case DType::kF16:
        tp.add_int32_data(f32_to_f16(static_cast<float>(x)).bits);
        break;
      case DType::kBF16:
        tp.add_int32_data(f32_to_bf16(static_cast<float>(x)).bits);
        break;
      case DType::kBool:
        tp.add_int32_data(x != 0);
        break;
      default:
        tp.add_int32_data(static_cast<int32_t>(x));
    }
  }
  return tp;
}

class InitializerDType : public ::testing::TestWithParam<DType> {};

TEST_P(InitializerDType, TypedFieldAndRawDataAgree) {
  const DType dt = GetParam();
  const Tensor a = import_initializer(typed(dt));
  ASSERT_EQ(a.desc().str(), TensorDesc({dt, {2, 2}}).str());
  const double want[4] = {0, 1, dt == DType::kBool ? 1.0 : 2.0,
                          dt == DType::kBool ? 1.0 : (dtype_is_signed(dt) ? -1.0 : 3.0)};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.at(i), want[i]) << dtype_name(dt) << " element " << i;

  onnx::TensorProto raw;
  raw.set_data_type(static_cast<int32_t>(dt));
  raw.add_dims(2);
  raw.add_dims(2);
  raw.set_raw_data(a.data(), a.nbytes());
  const Tensor b = import_initializer(raw);
  ASSERT_EQ(b.desc().str(), a.desc().str());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.nbytes()), 0) << dtype_name(dt);
}

INSTANTIATE_TEST_SUITE_P(All, InitializerDType,
                         ::testing::Values(DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                           DType::kI8, DType::kI16, DType::kI32, DType::kI64,
                                           DType::kU8, DType::kU16, DType::kU32, DType::kU64,
                                           DType::kBool),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(OnnxInitializer, ScalarAndEmpty) {
  onnx::TensorProto s;
  s.set_data_type(onnx::TensorProto::INT64);
  s.add_int64_data(42);
  const Tensor a = import_initializer(s);
  EXPECT_EQ(a.desc().str(), "i64[]");
  EXPECT_EQ(a.at(0), 42.0);
  onnx::TensorProto e;
  e.set_data_type(onnx::TensorProto::FLOAT);
  e.add_dims(0);
  e.add_dims(3);
  EXPECT_EQ(import_initializer(e).desc().str(), "f32[0,3]");
}

TEST(OnnxInitializerErrors, RawDataShorterOrLongerThanDims) {
  ModelBuilder b;
  b.initializer("W", DType::kF32, {2, 3}, std::string(8, '\0'));
  b.output("W", DType::kF32, {"2", "3"});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: tensor 'W': raw_data has 8 bytes, but f32[2,3] needs 24");
  b.g().mutable_initializer(0)->set_raw_data(std::string(28, '\0'));
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: tensor 'W': raw_data has 28 bytes, but f32[2,3] needs 24");
}

TEST(OnnxInitializerErrors, TypedFieldCountMismatch) {
  onnx::TensorProto tp = typed(DType::kF32);
  tp.add_dims(2);  // [2,2,2] needs 8 values, float_data holds 4
  EXPECT_EQ(error_of<ModelError>([&] { import_initializer(tp); }),
            "<bytes>: tensor 'W': f32[2,2,2] needs 8 values, but float_data holds 4");
}

TEST(OnnxInitializerErrors, AbsurdShapeRefusedBeforeAllocating) {
  ModelBuilder b;
  b.initializer("W", DType::kF32, {1000000, 1000000000}, "");  // 10^15 elements
  b.output("W", DType::kF32, {});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: tensor 'W': dims [1000000,1000000000] hold more than 2^40 elements");
  ModelBuilder o;  // the product overflows int64
  o.initializer("W", DType::kF32, {1 << 30, 1 << 30, 1 << 30, 1 << 30}, "");
  o.output("W", DType::kF32, {});
  EXPECT_THROW(o.import(), ModelError);
}

TEST(OnnxInitializerErrors, NegativeDim) {
  ModelBuilder b;
  b.initializer("W", DType::kF32, {2, -1}, "");
  b.output("W", DType::kF32, {});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(); }),
            "<bytes>: tensor 'W': negative dim -1 in dims [2,-1]");
}

TEST(OnnxInitializerErrors, UnknownDType) {
  onnx::TensorProto bad;
  bad.set_data_type(77);
  EXPECT_EQ(error_of<ModelError>([&] { import_initializer(bad); }),
            "<bytes>: tensor 'W': unknown or undefined data_type 77");
}

TEST(OnnxInitializer, StringsFromStringData) {
  onnx::TensorProto str;
  str.set_data_type(onnx::TensorProto::STRING);
  str.add_dims(3);
  for (const char* s : {"abc", "", "ünï\0code"}) str.add_string_data(s);
  const Tensor t = import_initializer(str);
  ASSERT_EQ(t.desc().str(), "string[3]");
  EXPECT_EQ(t.strings()[0], "abc");
  EXPECT_EQ(t.strings()[1], "");
  EXPECT_EQ(t.strings()[2], "ünï\0code");
  // A deep copy owns its strings.
  Tensor c = t.clone();
  c.strings()[0] = "changed";
  EXPECT_EQ(t.strings()[0], "abc");

  str.add_string_data("extra");
  EXPECT_EQ(error_of<ModelError>([&] { import_initializer(str); }),
            "<bytes>: tensor 'W': string[3] needs 3 values, but string_data holds 4");
  onnx::TensorProto raw;
  raw.set_data_type(onnx::TensorProto::STRING);
  raw.add_dims(1);
  raw.set_raw_data("abcd");
  EXPECT_NE(error_of<ModelError>([&] { import_initializer(raw); }).find("string_data"),
            std::string::npos);
}

// A string initializer that is a graph output comes back from a run as its own copy.
TEST(OnnxInitializer, StringOutputRunsThroughTheModel) {
  ModelBuilder b;
  onnx::TensorProto* t = b.g().add_initializer();
  t->set_name("S");
  t->set_data_type(onnx::TensorProto::STRING);
  t->add_dims(2);
  t->add_string_data("left");
  t->add_string_data("right");
  b.output("S", DType::kString, {"2"});
  const Model m(b.import(), {1, "cpu", true});
  const auto out = m.run({});
  ASSERT_EQ(out[0].tensor.desc().str(), "string[2]");
  EXPECT_EQ(out[0].tensor.strings()[1], "right");
}

TEST(OnnxInitializerErrors, ExternalDataWithoutAFolder) {
  ModelBuilder b;
  b.external("W", DType::kF32, {2}, "w.bin", 0);
  b.output("W", DType::kF32, {});
  EXPECT_EQ(error_of<ModelError>([&] { b.import(""); }),
            "<bytes>: tensor 'W': external data 'w.bin' needs the model's folder, and none was "
            "given");
}

}  // namespace
}  // namespace asc

// TensorProto files: round trip through write/read, the ONNX test data, and bad files.
#include "importers/onnx/tensor_proto.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "registry/error.h"
#include "registry/strings.h"
#include "tests/importers/onnx_builder.h"

namespace asc {
namespace {

TEST(OnnxTensorProto, RoundTripEveryDType) {
  test::TempDir dir;
  for (DType dt :
       {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI8, DType::kI16, DType::kI32,
        DType::kI64, DType::kU8, DType::kU16, DType::kU32, DType::kU64, DType::kBool}) {
    Tensor t(dt, {2, 3});
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<double>(i % 2 ? i : 0));
    const std::string path = dir / "t.pb";
    write_tensor_proto_file(path, "x_" + std::string(dtype_name(dt)), t);
    std::string name;
    const Tensor r = read_tensor_proto_file(path, &name);
    EXPECT_EQ(name, "x_" + std::string(dtype_name(dt)));
    ASSERT_EQ(r.desc().str(), t.desc().str());
    EXPECT_EQ(std::memcmp(r.data(), t.data(), t.nbytes()), 0) << dtype_name(dt);
  }
  Tensor strs(DType::kString, {2, 1});
  strs.strings()[0] = "hello";
  strs.strings()[1] = std::string("with\0nul", 8);
  write_tensor_proto_file(dir / "str.pb", "strs", strs);
  const Tensor rs = read_tensor_proto_file(dir / "str.pb");
  ASSERT_EQ(rs.desc().str(), "string[2,1]");
  EXPECT_EQ(rs.strings()[0], "hello");
  EXPECT_EQ(rs.strings()[1], std::string("with\0nul", 8));
  write_tensor_proto_file(dir / "s.pb", "s", Tensor(DType::kF32, {}));
  EXPECT_EQ(read_tensor_proto_file(dir / "s.pb").desc().str(), "f32[]");
}

TEST(OnnxTensorProto, ReadsOnnxTestData) {
  const std::string dir = "/usr/include/onnx/backend/test/data/node/test_add/test_data_set_0/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "libonnx-testdata not installed";
  std::string name;
  const Tensor x = read_tensor_proto_file(dir + "input_0.pb", &name);
  EXPECT_EQ(name, "x");
  EXPECT_EQ(x.desc().str(), "f32[3,4,5]");
}

TEST(OnnxTensorProto, BadFiles) {
  test::TempDir dir;
  EXPECT_THROW(read_tensor_proto_file(dir / "missing.pb"), ModelError);
  test::write_file(dir / "junk.pb", std::string("\xff\xff\xff\xff\xff", 5));
  EXPECT_EQ(
      [&] {
        try {
          read_tensor_proto_file(dir / "junk.pb");
        } catch (const ModelError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      dir / "junk.pb: not a valid TensorProto (protobuf parse failed)");
  test::write_file(dir / "empty.pb", "");
  EXPECT_THROW(read_tensor_proto_file(dir / "empty.pb"), ModelError);  // data_type undefined
}

// Sequences (of tensors, strings, sequences, optionals) and optionals (full, empty) survive a
// write and a read; a sequence is refused as a TensorProto; a junk file is a named error.
TEST(OnnxValueProto, RoundTripSequencesAndOptionals) {
  test::TempDir dir;
  Tensor a(DType::kF32, {2, 3}), b(DType::kF32, {}), s(DType::kString, {2});
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, 0.5 * static_cast<double>(i) - 1);
  b.set(0, 7);
  s.strings()[0] = "x";
  s.strings()[1] = "yz";
  const Tensor floats = Tensor::sequence(DType::kF32, {a, b});
  const std::vector<Tensor> values = {
      floats,
      Tensor::sequence(DType::kString, {s}),
      Tensor::sequence(DType::kF32, {}),
      Tensor::sequence(DType::kSequence, {floats, Tensor::sequence(DType::kF32, {b})}),
      Tensor::sequence(DType::kOptional, {Tensor::optional(DType::kF32, a)}),
      Tensor::optional(DType::kF32, b),
      Tensor::optional(DType::kF32, std::nullopt),
      Tensor::optional(DType::kSequence, floats),
  };
  auto same = [](const Tensor& x, const Tensor& y, auto&& self) -> void {
    ASSERT_EQ(x.desc().str(), y.desc().str());
    if (x.list()) {
      ASSERT_EQ(x.list()->items.size(), y.list()->items.size());
      for (size_t k = 0; k < x.list()->items.size(); ++k)
        self(x.list()->items[k], y.list()->items[k], self);
    } else if (x.dtype() == DType::kString) {
      for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(x.strings()[i], y.strings()[i]);
    } else {
      for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(x.at(i), y.at(i));
    }
  };
  for (size_t k = 0; k < values.size(); ++k) {
    SCOPED_TRACE(k);
    const std::string path = dir / cat("v", k, ".pb");
    write_value_proto_file(path, "v", values[k]);
    std::string name;
    const Tensor back = read_value_proto_file(path, values[k].dtype(), &name);
    EXPECT_EQ(name, "v");
    same(back, values[k], same);
  }
  EXPECT_THROW(write_tensor_proto_file(dir / "t.pb", "t", floats), UnsupportedError);
  test::write_file(dir / "junk.pb", std::string("\xff\xff\xff", 3));
  EXPECT_THROW(read_value_proto_file(dir / "junk.pb", DType::kSequence), ModelError);
}

}  // namespace
}  // namespace asc

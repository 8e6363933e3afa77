// TensorProto files: round trip through write/read, the ONNX test data, and bad files.
#include "importers/onnx/tensor_proto.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "registry/error.h"
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

}  // namespace
}  // namespace asc

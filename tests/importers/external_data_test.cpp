// External data: zero-copy views into one read-only mapping per file, and every refusal
// (absolute path, `..` and symlinks escaping the folder, missing file, past the end of file).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "registry/error.h"
#include "runtime/model.h"
#include "tests/importers/onnx_builder.h"

namespace asc {
namespace {

using test::error_of;
using test::ModelBuilder;
using test::TempDir;

// The file mapped at address p according to /proc/self/maps, or "" when p is not in a mapping.
std::string mapping_of(const void* p) {
  std::ifstream maps("/proc/self/maps");
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (std::string line; std::getline(maps, line);) {
    std::istringstream in(line);
    std::string range, perms, off, dev, inode, path;
    in >> range >> perms >> off >> dev >> inode >> path;
    const auto dash = range.find('-');
    const uintptr_t lo = std::stoull(range.substr(0, dash), nullptr, 16);
    const uintptr_t hi = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (lo <= a && a < hi) return path;
  }
  return "";
}

// weights.bin: 8192 bytes of floats 0, 1, 2, ... (float i at byte 4*i).
class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<float> v(2048);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
    test::write_file(dir / "weights.bin", test::bytes_of(v));
  }
  // A model whose only output is initializer W.
  std::string import_error(const std::string& location, int64_t offset, int64_t length = -1,
                           std::vector<int64_t> dims = {4}) {
    ModelBuilder b;
    b.external("W", DType::kF32, dims, location, offset, length);
    b.output("W", DType::kF32, {});
    b.save(dir / "model.onnx");
    return error_of<ModelError>([&] { import_onnx_file(dir / "model.onnx"); });
  }
  TempDir dir;
};

TEST_F(ExternalData, ZeroCopyViewsShareOneMapping) {
  ModelBuilder b;
  b.input("X", DType::kF32, {"4"});
  b.external("A", DType::kF32, {4}, "weights.bin", 0, 16);
  b.external("B", DType::kF32, {2, 2}, "weights.bin", 4096);  // no length: from the dims
  b.node("Add", {"A", "B"}, {"T"});
  b.node("Add", {"X", "T"}, {"Y"});
  b.output("Y", DType::kF32, {"4"});
  b.save(dir / "model.onnx");
  const Graph g = import_onnx_file(dir / "model.onnx");
  const Tensor& a = *g.values[g.find("A")].constant;
  const Tensor& bt = *g.values[g.find("B")].constant;
  EXPECT_EQ(a.at(3), 3.0);
  EXPECT_EQ(bt.at(0), 1024.0);
  EXPECT_EQ(bt.at(3), 1027.0);
  // Zero-copy: both tensors point into the one mapping of weights.bin.
  EXPECT_EQ(static_cast<const char*>(bt.data()) - static_cast<const char*>(a.data()), 4096);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 4096, 0u);  // page-aligned mapping start
  const std::string mapped = mapping_of(a.data());
  EXPECT_EQ(mapped, std::filesystem::canonical(dir / "weights.bin").string());
}

TEST_F(ExternalData, MappingOutlivesTheGraphCopyAndUnmapsAfterwards) {
  ModelBuilder b;
  b.external("W", DType::kF32, {4}, "weights.bin", 8);
  b.output("W", DType::kF32, {});
  b.save(dir / "model.onnx");
  Tensor w;
  {
    const Graph g = import_onnx_file(dir / "model.onnx");
    w = *g.values[g.find("W")].constant;
  }
  EXPECT_EQ(w.at(0), 2.0);  // the tensor keeps the mapping alive
  const void* p = w.data();
  w = Tensor();
  EXPECT_EQ(mapping_of(p), "");  // the last owner unmapped it
}

// Resident set size of this process in bytes (/proc/self/statm).
int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// A 3 GiB embedding table (a sparse file: no disk blocks) loads as a view into the mapping and a
// Gather of two rows reads only their pages: the resident set does not grow by the table.
TEST_F(ExternalData, ThreeGiBWeightsAreMappedNotRead) {
  constexpr int64_t kRows = 786432, kCols = 1024;  // f32: 3 GiB
  constexpr int64_t kBytes = kRows * kCols * 4;
  const std::filesystem::path table = dir / "table.bin";
  test::write_file(table, "");
  std::filesystem::resize_file(table, kBytes);
  {
    std::fstream f(table, std::ios::in | std::ios::out | std::ios::binary);
    const float last_row_first = 7.5f;
    f.seekp((kRows - 1) * kCols * 4);
    f.write(reinterpret_cast<const char*>(&last_row_first), sizeof last_row_first);
  }
  ModelBuilder b(13);
  b.input("ids", DType::kI64, {"2"});
  b.external("E", DType::kF32, {kRows, kCols}, "table.bin", 0);
  b.node("Gather", {"E", "ids"}, {"Y"});
  b.output("Y", DType::kF32, {"2", std::to_string(kCols)});
  b.save(dir / "model.onnx");

  const int64_t before = resident_bytes();
  const Model model(import_onnx_file(dir / "model.onnx"), {1, "cpu", true});
  const std::vector<int64_t> ids = {kRows - 1, 3};
  const auto out =
      model.run({{"ids", Tensor::wrap(DType::kI64, {2}, const_cast<int64_t*>(ids.data()))}});
  const int64_t grown = resident_bytes() - before;
  ASSERT_EQ(out.size(), 1u);
  const Tensor& y = out[0].tensor;
  ASSERT_EQ(y.shape(), (Shape{2, kCols}));
  EXPECT_EQ(y.at(0), 7.5);
  EXPECT_EQ(y.at(1), 0.0);
  EXPECT_EQ(y.at(kCols), 0.0);
  EXPECT_LT(grown, int64_t{256} << 20) << "resident set grew by " << grown << " bytes";
}

TEST_F(ExternalData, MisalignedOffsetIsCopied) {
  ModelBuilder b;
  b.external("W", DType::kF32, {2}, "weights.bin", 6);
  b.output("W", DType::kF32, {});
  b.save(dir / "model.onnx");
  const Graph g = import_onnx_file(dir / "model.onnx");
  const Tensor& w = *g.values[g.find("W")].constant;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.data()) % 4, 0u);
  EXPECT_NE(mapping_of(w.data()), std::filesystem::canonical(dir / "weights.bin").string());
  const float file[4] = {0, 1, 2, 3};  // the start of weights.bin
  float expect[2];
  std::memcpy(expect, reinterpret_cast<const char*>(file) + 6, sizeof expect);
  EXPECT_EQ(std::memcmp(w.data(), expect, sizeof expect), 0);
}

TEST_F(ExternalData, SubfolderAndDotDotInsideAreAccepted) {
  std::filesystem::create_directory(dir.path() / "sub");
  std::filesystem::copy_file(dir / "weights.bin", dir / "sub/w.bin");
  ModelBuilder b;
  b.external("A", DType::kF32, {4}, "sub/w.bin", 0);
  b.external("B", DType::kF32, {4}, "sub/../weights.bin", 16);
  b.node("Add", {"A", "B"}, {"Y"});
  b.output("Y", DType::kF32, {"4"});
  b.save(dir / "model.onnx");
  const Graph g = import_onnx_file(dir / "model.onnx");
  EXPECT_EQ(g.values[g.find("B")].constant->at(0), 4.0);
}

TEST_F(ExternalData, AbsolutePathRefused) {
  EXPECT_EQ(import_error("/etc/passwd", 0),
            dir /
                "model.onnx: tensor 'W': external data location '/etc/passwd' is an absolute "
                "path; it must be relative to the model's folder");
}

TEST_F(ExternalData, DotDotEscapeRefused) {
  const std::string msg = import_error("../x.bin", 0);
  EXPECT_EQ(msg.find(dir / "model.onnx: tensor 'W': external data location '../x.bin' resolves to"),
            0u)
      << msg;
  EXPECT_NE(msg.find("outside the model's folder"), std::string::npos) << msg;
}

TEST_F(ExternalData, SymlinkPointingOutRefused) {
  TempDir other;
  test::write_file(other / "secret.bin", std::string(64, 'x'));
  std::filesystem::create_symlink(other / "secret.bin", dir / "link.bin");
  const std::string msg = import_error("link.bin", 0);
  EXPECT_NE(msg.find("external data location 'link.bin' resolves to '" +
                     std::filesystem::canonical(other / "secret.bin").string() +
                     "', outside the model's folder"),
            std::string::npos)
      << msg;
  // A symlink that stays inside the folder is fine.
  std::filesystem::create_symlink(dir / "weights.bin", dir / "inside.bin");
  ModelBuilder b;
  b.external("W", DType::kF32, {4}, "inside.bin", 0);
  b.output("W", DType::kF32, {});
  b.save(dir / "model.onnx");
  EXPECT_NO_THROW(import_onnx_file(dir / "model.onnx"));
}

TEST_F(ExternalData, MissingFileRefused) {
  const std::string msg = import_error("nope.bin", 0);
  EXPECT_NE(msg.find("tensor 'W': external data: cannot open '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nope.bin': No such file or directory"), std::string::npos) << msg;
}

TEST_F(ExternalData, PastTheEndOfFileRefused) {
  const std::string file = std::filesystem::canonical(dir / "weights.bin").string();
  EXPECT_EQ(import_error("weights.bin", 8190),
            dir / "model.onnx: tensor 'W': external data [offset 8190, 16 bytes) runs past the "
                  "end of '" +
                file + "' (8192 bytes)");
  EXPECT_NE(import_error("weights.bin", 1ll << 62).find("runs past the end"), std::string::npos);
}

TEST_F(ExternalData, LengthNotMatchingDimsRefused) {
  EXPECT_EQ(import_error("weights.bin", 0, 12),
            dir / "model.onnx: tensor 'W': external data length 12 bytes, but f32[4] needs 16");
}

TEST_F(ExternalData, AbsurdShapeRefusedBeforeMapping) {
  const std::string msg = import_error("weights.bin", 0, -1, {1000000, 1000000000});
  EXPECT_NE(msg.find("hold more than 2^40 elements"), std::string::npos) << msg;
}

TEST_F(ExternalData, BadOffsetText) {
  ModelBuilder b;
  auto& t = b.external("W", DType::kF32, {4}, "weights.bin", 0);
  t.mutable_external_data(1)->set_value("-5");
  b.output("W", DType::kF32, {});
  b.save(dir / "model.onnx");
  EXPECT_EQ(error_of<ModelError>([&] { import_onnx_file(dir / "model.onnx"); }),
            dir /
                "model.onnx: tensor 'W': external data offset '-5' is not a non-negative "
                "integer");
}

}  // namespace
}  // namespace asc

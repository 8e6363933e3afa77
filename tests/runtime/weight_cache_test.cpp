// The converted-weight cache: a bf16/f16 load writes the converted constants once, later loads map
// them; a stale, damaged or unwritable file never changes what the model computes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/model.h"
#include "runtime/weight_cache.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

namespace fs = std::filesystem;

using test::random;

// y = x @ w + b with x f32[n, 24], w f32[24, 40], b f32[40].
Graph affine(const Tensor& w, const Tensor& b) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(std::string("n")), Dim(24)}});
  const int wv = g.add_constant("w", w), bv = g.add_constant("b", b);
  const int m = g.add_value("m", {DType::kF32, {}});
  const int y = g.add_value("y", {DType::kF32, SymShape{Dim(std::string("n")), Dim(40)}});
  g.inputs = {x};
  g.outputs = {y};
  for (auto [op, in, out] : {std::tuple{"MatMul", std::vector<int>{x, wv}, m},
                             std::tuple{"Add", std::vector<int>{m, bv}, y}}) {
    Node n;
    n.op_type = op;
    n.opset = 17;
    n.def = global_registry().find("", op, 17);
    n.inputs = in;
    n.outputs = {out};
    g.add_node(std::move(n));
  }
  return g;
}

class WeightCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           cat("asc_weight_cache_", ::testing::UnitTest::GetInstance()->current_test_info()->name(),
               "_", std::random_device{}());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ModelOptions options(const std::string& file, const std::string& identity = "model v1") const {
    ModelOptions o{2, "cpu", true};
    o.precision = DType::kBF16;
    o.weight_cache = {file.empty() ? "" : (dir_ / file).string(), identity};
    return o;
  }
  // The low-precision constant named `name` of m, as raw 16-bit values.
  static std::vector<uint16_t> constant(const Model& m, const std::string& name) {
    const Value& v = m.graph().values[m.graph().find(name)];
    EXPECT_EQ(v.constant->dtype(), DType::kBF16);
    const auto* p = static_cast<const uint16_t*>(v.constant->data());
    return std::vector<uint16_t>(p, p + v.constant->numel());
  }
  static std::vector<float> run(const Model& m, const Tensor& x) {
    const Tensor y = m.run({{"x", x}})[0].tensor;
    std::vector<float> r(static_cast<size_t>(y.numel()));
    for (int64_t i = 0; i < y.numel(); ++i) r[static_cast<size_t>(i)] = y.at(i);
    return r;
  }

  fs::path dir_;
  const Tensor w_ = random({24, 40}, 1), b_ = random({40}, 2), x_ = random({3, 24}, 3);
};

TEST_F(WeightCache, SecondLoadMapsTheFileTheFirstWrote) {
  const Model plain(affine(w_, b_), options(""));
  const Model first(affine(w_, b_), options("c.ascw"));
  ASSERT_TRUE(fs::exists(dir_ / "c.ascw"));
  EXPECT_EQ(constant(first, "w"), constant(plain, "w"));
  EXPECT_EQ(run(first, x_), run(plain, x_));
  const auto written = fs::last_write_time(dir_ / "c.ascw");

  const Model second(affine(w_, b_), options("c.ascw"));
  EXPECT_EQ(fs::last_write_time(dir_ / "c.ascw"), written);  // read, not rewritten
  EXPECT_EQ(constant(second, "w"), constant(plain, "w"));
  EXPECT_EQ(constant(second, "b"), constant(plain, "b"));
  EXPECT_EQ(run(second, x_), run(plain, x_));

  // The weights really come from the file: change one converted value in it (past the header) and
  // a third load sees the change.
  const std::vector<uint16_t> w = constant(plain, "w");
  std::vector<char> bytes(fs::file_size(dir_ / "c.ascw"));
  std::ifstream(dir_ / "c.ascw", std::ios::binary).read(bytes.data(), std::ssize(bytes));
  const auto at = std::search(bytes.begin(), bytes.end(), reinterpret_cast<const char*>(w.data()),
                              reinterpret_cast<const char*>(w.data() + w.size()));
  ASSERT_NE(at, bytes.end());
  const uint16_t changed = static_cast<uint16_t>(w[0] ^ 0x0001);
  std::memcpy(&*at, &changed, 2);
  std::ofstream(dir_ / "c.ascw", std::ios::binary).write(bytes.data(), std::ssize(bytes));
  const Model third(affine(w_, b_), options("c.ascw"));
  EXPECT_EQ(constant(third, "w")[0], changed);
}

TEST_F(WeightCache, ADifferentModelOrWeightIsConvertedAfresh) {
  { const Model first(affine(w_, b_), options("c.ascw")); }
  // Another identity (the model file changed): converted from the weights, the file rewritten.
  Tensor w2 = random({24, 40}, 7);
  const Model plain2(affine(w2, b_), options(""));
  const Model other(affine(w2, b_), options("c.ascw", "model v2"));
  EXPECT_EQ(constant(other, "w"), constant(plain2, "w"));
  EXPECT_EQ(run(other, x_), run(plain2, x_));
  const Model again(affine(w2, b_), options("c.ascw", "model v2"));
  EXPECT_EQ(constant(again, "w"), constant(plain2, "w"));
  // Same identity, a weight whose first bytes differ: not taken from the file.
  Tensor w3 = random({24, 40}, 7);
  w3.set(0, 0.5f);
  const Model plain3(affine(w3, b_), options(""));
  const Model changed(affine(w3, b_), options("c.ascw", "model v2"));
  EXPECT_EQ(constant(changed, "w"), constant(plain3, "w"));
}

// A weight mapped from a file (external data): that file's size and modification time are part
// of the key, so a rewritten data file is not served from a cache made before.
TEST_F(WeightCache, AWeightsSourceFileIsPartOfTheKey) {
  fs::create_directories(dir_);
  const fs::path data = dir_ / "w.bin";
  std::ofstream(data, std::ios::binary)
      .write(static_cast<const char*>(w_.data()), static_cast<std::streamsize>(w_.nbytes()));
  const auto mapped = [&] {
    const int fd = ::open(data.c_str(), O_RDONLY);
    void* p = ::mmap(nullptr, w_.nbytes(), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    EXPECT_NE(p, MAP_FAILED);
    const size_t n = w_.nbytes();
    return Tensor::view(DType::kF32, w_.shape(), p,
                        std::shared_ptr<void>(p, [n](void* q) { ::munmap(q, n); }));
  };
  const Model plain(affine(w_, b_), options(""));
  { const Model first(affine(mapped(), b_), options("c.ascw")); }
  const auto written = fs::last_write_time(dir_ / "c.ascw");
  { const Model second(affine(mapped(), b_), options("c.ascw")); }
  EXPECT_EQ(fs::last_write_time(dir_ / "c.ascw"), written);  // the same source: mapped
  fs::last_write_time(data, fs::last_write_time(data) + std::chrono::seconds(5));
  const Model touched(affine(mapped(), b_), options("c.ascw"));
  EXPECT_NE(fs::last_write_time(dir_ / "c.ascw"), written);  // converted and written again
  EXPECT_EQ(constant(touched, "w"), constant(plain, "w"));
}

TEST_F(WeightCache, ADamagedFileIsIgnoredAndReplaced) {
  const Model plain(affine(w_, b_), options(""));
  { const Model first(affine(w_, b_), options("c.ascw")); }
  const auto full = fs::file_size(dir_ / "c.ascw");
  for (const uintmax_t keep : {uintmax_t{0}, uintmax_t{16}, full / 2, full - 1}) {
    SCOPED_TRACE(keep);
    fs::resize_file(dir_ / "c.ascw", keep);
    const Model m(affine(w_, b_), options("c.ascw"));
    EXPECT_EQ(constant(m, "w"), constant(plain, "w"));
    EXPECT_EQ(run(m, x_), run(plain, x_));
    EXPECT_EQ(fs::file_size(dir_ / "c.ascw"), full);  // written again
  }
  std::ofstream(dir_ / "c.ascw", std::ios::binary | std::ios::trunc) << std::string(full, 'x');
  const Model garbage(affine(w_, b_), options("c.ascw"));
  EXPECT_EQ(constant(garbage, "w"), constant(plain, "w"));
}

TEST_F(WeightCache, AnUnwritablePlaceOnlyCostsTheCache) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "not a directory";
  const Model plain(affine(w_, b_), options(""));
  const Model m(affine(w_, b_), options("file/c.ascw"));
  EXPECT_EQ(constant(m, "w"), constant(plain, "w"));
  EXPECT_EQ(run(m, x_), run(plain, x_));
  EXPECT_FALSE(fs::exists(dir_ / "file" / "c.ascw"));
}

// Each entry names the dtype it is stored in (format 3): the same constant stored in another
// dtype is not taken from the file, and stored tensors that disagree with their entries are not
// written.
TEST_F(WeightCache, EachEntrysDtypesArePartOfTheKey) {
  fs::create_directories(dir_);
  const WeightCacheOptions o{(dir_ / "direct.ascw").string(), "model v1"};
  const Tensor src = random({4, 6}, 7);
  Tensor low(DType::kBF16, {4, 6}), wide(DType::kF32, {4, 6});
  std::fill_n(low.data_as<uint16_t>(), low.numel(), uint16_t{0x3F80});  // 1.0
  const std::vector<CacheEntry> entries{{"w", &src, DType::kBF16, {}, {}}};
  EXPECT_FALSE(weight_cache_store(o, DType::kBF16, entries, {wide}));  // f32 for a bf16 entry
  EXPECT_FALSE(fs::exists(o.file));
  ASSERT_TRUE(weight_cache_store(o, DType::kBF16, entries, {low}));
  const std::vector<Tensor> back = weight_cache_load(o, DType::kBF16, entries);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].dtype(), DType::kBF16);
  EXPECT_EQ(back[0].shape(), (Shape{4, 6}));
  EXPECT_EQ(back[0].data_as<uint16_t>()[5], 0x3F80);
  // The same constant stored as f32 instead (a layout-only entry of an f32 source).
  EXPECT_TRUE(weight_cache_load(o, DType::kBF16, {{"w", &src, DType::kF32, {}, {}}}).empty());
}

TEST_F(WeightCache, OptionsForAModelFileNameItsPathDtypeAndVersion) {
  fs::create_directories(dir_);
  const fs::path model = dir_ / "m.onnx";
  std::ofstream(model) << "weights";
  const WeightCacheOptions bf =
      weight_cache_for((dir_ / "cache").string(), model.string(), DType::kBF16);
  const WeightCacheOptions f16 =
      weight_cache_for((dir_ / "cache").string(), model.string(), DType::kF16);
  EXPECT_EQ(fs::path(bf.file).parent_path(), dir_ / "cache");
  EXPECT_NE(bf.file, f16.file);
  EXPECT_NE(bf.identity.find("m.onnx"), std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::ofstream(model) << "other weights";
  const WeightCacheOptions later =
      weight_cache_for((dir_ / "cache").string(), model.string(), DType::kBF16);
  EXPECT_EQ(later.file, bf.file);
  EXPECT_NE(later.identity, bf.identity);
  EXPECT_THROW(weight_cache_for(dir_.string(), (dir_ / "missing.onnx").string(), DType::kBF16),
               Error);
}

}  // namespace
}  // namespace asc

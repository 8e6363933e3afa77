// Weight packing at load (runtime/weight_pack.h): which weights are packed, the packed layout,
// the nodes rewritten into PackedMatMul, results equal to the unpacked model's, and the packed
// weights through the converted-weight cache.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "ops/ops.h"
#include "registry/strings.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/model.h"
#include "runtime/precision.h"
#include "runtime/weight_pack.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::random;

bool bf16_packs() {
  return cpu::gemm_kernel(DType::kBF16).packed == DType::kBF16;
}

using test::node;

// y = relu(x @ w1 + b) @ w2 + x @ w3 and z = w3 @ x^T: w3 is also a MatMul's A, so never packed;
// x [n, 77], all in the weights' dtype.
// Odd K and N, N over a few panels, the decode row and the prefill rows through the same model.
Graph net(const Tensor& w1, const Tensor& b, const Tensor& w2, const Tensor& w3) {
  const DType dt = w1.dtype();
  Graph g;
  g.opsets[""] = 17;
  const Dim n(std::string("n"));
  const int x = g.add_value("x", {dt, SymShape{n, Dim(77)}});
  const int c1 = g.add_constant("w1", w1), cb = g.add_constant("b", b);
  const int c2 = g.add_constant("w2", w2), c3 = g.add_constant("w3", w3);
  auto val = [&](const char* name, int64_t cols) {
    return g.add_value(name, {dt, SymShape{n, Dim(cols)}});
  };
  const int m1 = val("m1", 150), a1 = val("a1", 150), r1 = val("r1", 150);
  const int m2 = val("m2", 77), m3 = val("m3", 77), y = val("y", 77);
  const int xt = g.add_value("xt", {dt, SymShape{Dim(77), n}});
  const int z = g.add_value("z", {dt, SymShape{Dim(77), n}});
  g.inputs = {x};
  g.outputs = {y, z};
  g.add_node(node("MatMul", {x, c1}, {m1}));
  g.add_node(node("Add", {m1, cb}, {a1}));
  g.add_node(node("Relu", {a1}, {r1}));
  g.add_node(node("MatMul", {r1, c2}, {m2}));
  g.add_node(node("MatMul", {x, c3}, {m3}));
  g.add_node(node("Add", {m2, m3}, {y}));
  g.add_node(node("Transpose", {x}, {xt}));
  g.add_node(node("MatMul", {c3, xt}, {z}));  // w3 [77, 77] read as A too
  return g;
}

struct Weights {
  Tensor w1 = random({77, 150}, 1), b = random({150}, 2), w2 = random({150, 77}, 3),
         w3 = random({77, 77}, 4);
};

Tensor to_bf16(const Tensor& t) {
  Tensor r(DType::kBF16, t.shape());
  convert_values(t.data_as<float>(), r.data_as<uint16_t>(), t.numel(), DType::kBF16);
  return r;
}

// The same net as a bf16 model: weights, input and outputs in bf16.
Weights bf16_weights() {
  Weights w;
  for (Tensor* t : {&w.w1, &w.b, &w.w2, &w.w3}) *t = to_bf16(*t);
  return w;
}

// copy_limit 0: weights that need no conversion are packed only into a weight cache.
std::unique_ptr<Model> load(const Weights& w, bool pack, const WeightCacheOptions& cache = {},
                            DType precision = DType::kBF16, int64_t copy_limit = 0) {
  ModelOptions o{2, "cpu", true};
  o.precision = precision;
  o.pack_weights = pack;
  o.pack_copy_limit = copy_limit;
  o.weight_cache = cache;
  return std::make_unique<Model>(net(w.w1, w.b, w.w2, w.w3), o);
}

int count(const Graph& g, const std::string& op) {
  int c = 0;
  for (const Node& n : g.nodes) c += n.op_type == op;
  return c;
}

TEST(WeightPack, PlansOnlyWeightsReadAsMatMulB) {
  const Weights w;
  const Graph g = net(w.w1, w.b, w.w2, w.w3);
  const WeightPacking p = plan_weight_packing(g, DType::kBF16, false);
  EXPECT_TRUE(plan_weight_packing(g, DType::kF32, true).packs(g.find("w1")));  // f32 panels
  EXPECT_TRUE(plan_weight_packing(g, DType::kF32, false).empty());  // no copy of mapped weights
  // ... unless they take at most the copy limit in all (w1 and w2: 2 x 77 x 150 f32)
  EXPECT_TRUE(plan_weight_packing(g, DType::kF32, false, 2 * 77 * 150 * 4).packs(g.find("w1")));
  EXPECT_TRUE(plan_weight_packing(g, DType::kF32, false, 2 * 77 * 150 * 4 - 1).empty());
  EXPECT_TRUE(plan_weight_packing(g, DType::kF16, true).empty());  // f16 would pack widened
  if (!bf16_packs()) {
    EXPECT_TRUE(p.empty());
    return;
  }
  EXPECT_TRUE(p.packs(g.find("w1")));
  EXPECT_TRUE(p.packs(g.find("w2")));
  EXPECT_FALSE(p.packs(g.find("w3")));  // also a MatMul's A
  EXPECT_FALSE(p.packs(g.find("b")));
  EXPECT_EQ(p.packed_shape({77, 150}), (Shape{(150 + p.panel - 1) / p.panel, 78 * p.panel}));
}

// The packed tensor holds B[kk, j] where gemm.h's layout says, zero in the padding.
TEST(WeightPack, PackedLayoutHoldsEveryElement) {
  if (!bf16_packs()) GTEST_SKIP() << "no bf16 panels on this CPU (bf16 is widened to f32)";
  const Weights w;
  const Graph g = net(w.w1, w.b, w.w2, w.w3);
  const WeightPacking p = plan_weight_packing(g, DType::kBF16, false);
  const Tensor packed = p.pack_converted(w.w1);
  ASSERT_EQ(packed.shape(), p.packed_shape({77, 150}));
  const int64_t row = packed.shape()[1];
  for (int64_t kk = 0; kk < 78; ++kk)
    for (int64_t j = 0; j < packed.shape()[0] * p.panel; ++j) {
      const int64_t q = j / p.panel, jj = j % p.panel;
      const double got =
          packed.at(q * row + (kk / p.k_pack) * p.panel * p.k_pack + jj * p.k_pack + kk % p.k_pack);
      const double want = kk < 77 && j < 150 ? w.w1.at(kk * 150 + j) : 0.0;
      ASSERT_NEAR(got, want, std::fabs(want) / 128.0) << kk << "," << j;
    }
}

TEST(WeightPack, PackedModelComputesWhatTheRowMajorOneDoes) {
  const Weights w;
  const auto packed = load(w, true), plain = load(w, false);
  EXPECT_EQ(count(plain->graph(), "PackedMatMul"), 0);
  if (bf16_packs()) {
    EXPECT_EQ(count(packed->graph(), "PackedMatMul"), 2);  // w1 (with its bias), w2
    EXPECT_EQ(count(packed->graph(), "MatMul"), 2);        // x @ w3, w3 @ x^T
  }
  for (int64_t rows : {1, 3, 40}) {
    const Tensor x = random({rows, 77}, 10 + static_cast<uint32_t>(rows));
    const auto a = packed->run({{"x", x}}), b = plain->run({{"x", x}});
    for (size_t o = 0; o < 2; ++o)
      for (int64_t i = 0; i < b[o].tensor.numel(); ++i) {
        const double want = b[o].tensor.at(i);
        // Both round to bf16 once; the sums differ only in their order.
        EXPECT_NEAR(a[o].tensor.at(i), want, 0.02 + 0.01 * std::fabs(want))
            << "rows " << rows << " output " << o << " at " << i;
      }
  }
}

TEST(WeightPack, CacheStoresThePackedWeights) {
  if (!bf16_packs()) GTEST_SKIP() << "no bf16 panels on this CPU (bf16 is widened to f32)";
  const Weights w;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("asc_weight_pack_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  WeightCacheOptions cache{(dir / "net.bf16.ascw").string(), "net identity"};
  const Tensor x = random({1, 77}, 20);
  const auto first = load(w, true, cache);  // converts, packs, writes
  ASSERT_TRUE(std::filesystem::exists(cache.file));
  const auto second = load(w, true, cache);  // maps
  const auto a = first->run({{"x", x}}), b = second->run({{"x", x}});
  for (int64_t i = 0; i < a[0].tensor.numel(); ++i)
    EXPECT_EQ(a[0].tensor.at(i), b[0].tensor.at(i)) << i;
  EXPECT_EQ(count(second->graph(), "PackedMatMul"), 2);
  // A row-major load with the same file does not take the packed weights: a different key.
  const auto plain = load(w, false, cache);
  EXPECT_EQ(count(plain->graph(), "PackedMatMul"), 0);
  const auto c = plain->run({{"x", x}});
  for (int64_t i = 0; i < c[0].tensor.numel(); ++i)
    EXPECT_NEAR(c[0].tensor.at(i), a[0].tensor.at(i), 0.02 + 0.01 * std::fabs(a[0].tensor.at(i)));
  std::filesystem::remove_all(dir);
}

// fp32 packs only into a weight cache (else its weights stay mapped from the model file); the
// packed f32 panels give the row-major results up to the order of the sums.
TEST(WeightPack, Fp32PacksIntoAWeightCacheOnly) {
  const Weights w;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("asc_weight_pack32_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  WeightCacheOptions cache{(dir / "net.f32.ascw").string(), "net identity"};
  const auto plain = load(w, true, {}, DType::kF32);
  EXPECT_EQ(count(plain->graph(), "PackedMatMul"), 0);
  const auto first = load(w, true, cache, DType::kF32);
  const auto second = load(w, true, cache, DType::kF32);
  EXPECT_EQ(count(first->graph(), "PackedMatMul"), 2);
  EXPECT_EQ(count(second->graph(), "PackedMatMul"), 2);
  ASSERT_TRUE(std::filesystem::exists(cache.file));
  for (int64_t rows : {1, 17}) {
    const Tensor x = random({rows, 77}, 30 + static_cast<uint32_t>(rows));
    const auto a = plain->run({{"x", x}}), b = first->run({{"x", x}}), c = second->run({{"x", x}});
    for (size_t o = 0; o < 2; ++o)
      for (int64_t i = 0; i < a[o].tensor.numel(); ++i) {
        EXPECT_NEAR(b[o].tensor.at(i), a[o].tensor.at(i), 1e-4) << rows << " " << o << " " << i;
        EXPECT_EQ(c[o].tensor.at(i), b[o].tensor.at(i)) << rows << " " << o << " " << i;
      }
  }
  std::filesystem::remove_all(dir);
}

// Under the copy limit fp32 weights are packed at load without a cache, as ViT's are.
TEST(WeightPack, Fp32PacksAtLoadUnderTheCopyLimit) {
  const Weights w;
  const auto plain = load(w, false, {}, DType::kF32);
  const auto packed = load(w, true, {}, DType::kF32, int64_t{1} << 20);
  EXPECT_EQ(count(packed->graph(), "PackedMatMul"), 2);
  const Tensor x = random({9, 77}, 50);
  const auto a = plain->run({{"x", x}}), b = packed->run({{"x", x}});
  for (size_t o = 0; o < 2; ++o)
    for (int64_t i = 0; i < a[o].tensor.numel(); ++i)
      EXPECT_NEAR(b[o].tensor.at(i), a[o].tensor.at(i), 1e-4) << o << " " << i;
}

// A bf16 model's weights need no conversion: they are packed (bf16 panels) only into a weight
// cache, under fp32 (the model's own dtypes) as under bf16, and compute what the row-major
// weights do.
TEST(WeightPack, Bf16ModelPacksIntoAWeightCacheOnly) {
  if (!bf16_packs()) GTEST_SKIP() << "no bf16 panels on this CPU (bf16 is widened to f32)";
  const Weights w = bf16_weights();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("asc_weight_pack16_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (DType precision : {DType::kF32, DType::kBF16}) {
    WeightCacheOptions cache{(dir / cat("net.", dtype_name(precision), ".ascw")).string(), "id"};
    const auto plain = load(w, true, {}, precision);
    EXPECT_EQ(count(plain->graph(), "PackedMatMul"), 0);
    const auto first = load(w, true, cache, precision);
    ASSERT_TRUE(std::filesystem::exists(cache.file));
    const auto second = load(w, true, cache, precision);
    EXPECT_EQ(count(first->graph(), "PackedMatMul"), 2);
    EXPECT_EQ(count(second->graph(), "PackedMatMul"), 2);
    for (int64_t rows : {1, 17}) {
      const Tensor x = to_bf16(random({rows, 77}, 40 + static_cast<uint32_t>(rows)));
      const auto a = plain->run({{"x", x}}), b = first->run({{"x", x}}),
                 c = second->run({{"x", x}});
      ASSERT_EQ(b[0].tensor.dtype(), DType::kBF16);
      for (size_t o = 0; o < 2; ++o)
        for (int64_t i = 0; i < a[o].tensor.numel(); ++i) {
          const double want = a[o].tensor.at(i);
          // One bf16 rounding of sums that differ only in their order.
          EXPECT_NEAR(b[o].tensor.at(i), want, 0.02 + 0.01 * std::fabs(want))
              << dtype_name(precision) << " rows " << rows << " output " << o << " at " << i;
          EXPECT_EQ(c[o].tensor.at(i), b[o].tensor.at(i)) << rows << " " << o << " " << i;
        }
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace asc

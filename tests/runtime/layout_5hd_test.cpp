// The NC1HWC0 layout pass (runtime/layout_5hd.cpp): chains of convolutions become FusedConv5HD
// between one To5HD and the From5HDs where NCHW readers remain, and compute what the model does;
// what may not convert (a lone conv, few channels, groups, a packed or non-constant weight)
// stays as it is.
#include <gtest/gtest.h>

#include "registry/error.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/fusion.h"
#include "runtime/layout_5hd.h"
#include "runtime/model.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::Builder;
using test::count_op;
using test::random;
using V = std::vector<int64_t>;

// x [n, c, h, w] -> 3x3 conv (c -> 40) + ReLU -> `blocks` bottlenecks: 1x1 (40 -> 24) + ReLU,
// 3x3/2 (24 -> 24) + ReLU, 1x1 (24 -> 40) + a downsampled residual (1x1/2 40 -> 40) + ReLU; the
// first conv's output is also a graph output (an NCHW reader), the last feeds a
// GlobalAveragePool.
Graph bottleneck(int64_t n, int64_t c, int64_t h, int64_t w, int blocks = 3) {
  Builder b;
  const int x = b.input("x", {n, c, h, w});
  uint32_t seed = 10;
  auto conv = [&](int in, int64_t ci, int64_t co, int64_t k, int64_t s, bool relu,
                  const std::string& name) {
    Attrs a{{"pads", V{k / 2, k / 2, k / 2, k / 2}}, {"strides", V{s, s}}};
    int y = b.op("Conv", name,
                 {in, b.constant(name + "_w", random({co, ci, k, k}, seed++, -0.3f, 0.3f)),
                  b.constant(name + "_b", random({co}, seed++))},
                 a);
    return relu ? b.op("Relu", name + "_relu", {y}) : y;
  };
  const int stem = conv(x, c, 40, 3, 1, true, "stem");
  int y = stem;
  for (int i = 0; i < blocks; ++i) {
    const std::string s = std::to_string(i);
    const int r1 = conv(y, 40, 24, 1, 1, true, "reduce" + s);
    const int r2 = conv(r1, 24, 24, 3, 2, true, "mid" + s);
    const int e = conv(r2, 24, 40, 1, 1, false, "expand" + s);
    const int ds = conv(y, 40, 40, 1, 2, false, "down" + s);
    y = b.op("Relu", "out_relu" + s, {b.op("Add", "sum" + s, {e, ds})});
  }
  b.g.outputs = {b.op("GlobalAveragePool", "pool", {y}), stem};
  return b.g;
}

std::vector<NamedTensor> run(const Graph& g, const std::vector<NamedTensor>& in,
                             const std::string& layout, int threads = 2,
                             std::vector<std::string> expose = {}) {
  ModelOptions o;
  o.threads = threads;
  o.conv_layout = layout;
  o.expose = std::move(expose);
  return Model(g, o).run(in);
}

void expect_close(const std::vector<NamedTensor>& a, const std::vector<NamedTensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].tensor.shape(), b[k].tensor.shape()) << a[k].name;
    double peak = 0;
    for (int64_t i = 0; i < b[k].tensor.numel(); ++i)
      peak = std::max(peak, std::abs(b[k].tensor.at(i)));
    for (int64_t i = 0; i < b[k].tensor.numel(); ++i)
      ASSERT_NEAR(a[k].tensor.at(i), b[k].tensor.at(i), 1e-5 * (1 + peak)) << a[k].name << " " << i;
  }
}

TEST(Layout5hd, BottleneckConvertsAndMatches) {
  // Odd maps, channels past a multiple of 16 (the image's 20), batch 2.
  for (auto [n, c, h, w] : {std::array<int64_t, 4>{1, 16, 19, 21}, {2, 20, 17, 16}}) {
    Graph g = bottleneck(n, c, h, w);
    const std::vector<NamedTensor> in = {{"x", random({n, c, h, w}, 1)}};
    expect_close(run(g, in, "5hd"), run(g, in, "nchw"));
    expect_close(run(g, in, "5hd", 1), run(g, in, "nchw", 1));
    fuse(g);
    const cpu::GemmKernel& k = cpu::gemm_kernel(DType::kF32);
    EXPECT_EQ(convert_to_5hd(g, {}, k.nr, k.k_pack), 13);
    EXPECT_EQ(count_op(g, "FusedConv"), 0);
    EXPECT_EQ(count_op(g, "FusedConv5HD"), 13);
    EXPECT_EQ(count_op(g, "To5HD"), 1);    // the image
    EXPECT_EQ(count_op(g, "From5HD"), 2);  // the stem's output (a graph output), the pool's input
  }
}

// ResNet-18's basic blocks: 3x3 convs over 128 channels with the block's input as residual, whose
// weight rows (128 x 9 x 64 panel columns) pass the kernel's 256 KiB K chunk, so Y holds partial
// sums before the residual is added: Y must not take Z's memory.
TEST(Layout5hd, ResidualsAcrossKChunksMatch) {
  Builder b;
  int y = b.input("x", {1, 128, 12, 12});
  uint32_t seed = 40;
  auto conv = [&](int in, const std::string& name) {
    return b.op("Conv", name,
                {in, b.constant(name + "_w", random({128, 128, 3, 3}, seed++, -0.05f, 0.05f)),
                 b.constant(name + "_b", random({128}, seed++))},
                {{"pads", V{1, 1, 1, 1}}});
  };
  for (int i = 0; i < 4; ++i) {
    const std::string s = std::to_string(i);
    const int h = b.op("Relu", "r" + s, {conv(y, "a" + s)});
    y = b.op("Relu", "out" + s, {b.op("Add", "sum" + s, {conv(h, "b" + s), y})});
  }
  b.g.outputs = {y};
  const std::vector<NamedTensor> in = {{"x", random({1, 128, 12, 12}, 1)}};
  expect_close(run(b.g, in, "5hd"), run(b.g, in, "nchw"));
  Graph g = b.g;
  fuse(g);
  EXPECT_EQ(convert_to_5hd(g, {}, 64, 1), 8);
}

// Every convolution's output exposed (what asc-check reads): each gets its From5HD, the group
// still converts, and the exposed values are the NCHW ones.
TEST(Layout5hd, ExposedValuesKeepTheGroup) {
  const Graph g = bottleneck(1, 16, 19, 21);
  std::vector<std::string> expose = {"stem_relu"};
  for (int i = 0; i < 3; ++i) {
    const std::string s = std::to_string(i);
    for (const std::string& v : {"reduce" + s + "_relu", "mid" + s + "_relu", "out_relu" + s})
      expose.push_back(v);
  }
  const std::vector<NamedTensor> in = {{"x", random({1, 16, 19, 21}, 1)}};
  const auto a = run(g, in, "5hd", 2, expose), b = run(g, in, "nchw", 2, expose);
  EXPECT_EQ(a.size(), 2 + expose.size() - 1);  // (stem_relu is an output already)
  expect_close(a, b);
  Graph f = g;
  fuse(f);
  std::vector<int> keep;
  for (const auto& name : expose) keep.push_back(f.find(name));
  EXPECT_EQ(convert_to_5hd(f, keep, 64, 1), 13);
}

// One bottleneck: five convolutions for three layout changes (the image in, the stem's output
// and the block's out) are not worth converting.
TEST(Layout5hd, AGroupOfFewConvolutionsStays) {
  Graph g = bottleneck(1, 16, 9, 9, 1);
  fuse(g);
  EXPECT_EQ(convert_to_5hd(g, {}, 32, 1), 0);
  EXPECT_EQ(count_op(g, "FusedConv"), 5);
}

TEST(Layout5hd, WhatMayNotConvertStays) {
  Builder b;
  const int x = b.input("x", {1, 8, 6, 6});
  // Few channels (8 < 16) into a lone conv, then a grouped conv.
  const int y = b.op("Conv", "few", {x, b.constant("w1", random({32, 8, 3, 3}, 2))},
                     {{"pads", V{1, 1, 1, 1}}});
  const int z = b.op("Conv", "grouped", {y, b.constant("w2", random({32, 16, 1, 1}, 3))},
                     {{"group", int64_t{2}}});
  b.g.outputs = {z};
  Graph g = b.g;
  fuse(g);
  EXPECT_EQ(convert_to_5hd(g, {}, 32, 1), 0);
  EXPECT_EQ(count_op(g, "FusedConv5HD"), 0);
  const std::vector<NamedTensor> in = {{"x", random({1, 8, 6, 6}, 1)}};
  expect_close(run(b.g, in, "5hd"), run(b.g, in, "nchw"));
}

TEST(Layout5hd, UnknownLayoutIsRefused) {
  ModelOptions o;
  o.conv_layout = "nhwc";
  EXPECT_THROW(Model(bottleneck(1, 16, 5, 5), o), Error);
}

}  // namespace
}  // namespace asc

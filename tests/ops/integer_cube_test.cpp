// The integer cube's ops against their naive references: ConvInteger and QLinearConv over seeded
// random geometries (1-D/2-D/3-D, groups, depthwise, strides, dilations, pads, auto_pad, empty
// batch), MatMulInteger and QLinearMatMul over random batched / broadcast shapes; u8/i8
// operands, zero points at the extremes, and sums past 2^24 (exact in i32).
#include <gtest/gtest.h>

#include <random>

#include "ops/op_cases.h"
#include "ops/ops.h"
#include "registry/strings.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

using V = std::vector<int64_t>;

Tensor random_int(std::mt19937& rng, DType dt, const Shape& s) {
  Tensor t(dt, s);
  const int lo = dt == DType::kU8 ? 0 : -128, hi = dt == DType::kU8 ? 255 : 127;
  std::uniform_int_distribution<int> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, d(rng));
  return t;
}

// A zero point: the type's extremes half of the time.
Tensor zero_point(std::mt19937& rng, DType dt, const Shape& s) {
  Tensor t = random_int(rng, dt, s);
  const double lo = dt == DType::kU8 ? 0 : -128, hi = dt == DType::kU8 ? 255 : 127;
  for (int64_t i = 0; i < t.numel(); ++i)
    if (rng() % 2) t.set(i, rng() % 2 ? lo : hi);
  return t;
}

struct Case {
  std::string name;
  std::vector<Tensor> in;
  Attrs attrs;
};

// A random convolution: X [N, C, spatial..], W [M, C/G, k..] and the attributes.
Case random_conv(std::mt19937& rng, int index, bool qlinear) {
  auto pick = [&](int lo, int hi) { return static_cast<int64_t>(lo + rng() % (hi - lo + 1)); };
  const int dims = static_cast<int>(pick(1, 3));
  const int64_t group = pick(0, 3) == 0 ? 1 : pick(1, 3);
  const bool depthwise = pick(0, 4) == 0;
  const int64_t cg = depthwise ? 1 : pick(1, 6), mg = depthwise ? 1 : pick(1, 7);
  const int64_t g = depthwise ? pick(2, 9) : group;
  Shape xs{index % 9 == 0 ? 0 : pick(1, 2), cg * g}, ws{mg * g, cg};
  V k, s, d, pads(2 * dims, 0);
  for (int j = 0; j < dims; ++j) {
    const int64_t size = dims == 3 ? pick(1, 6) : pick(1, 11);
    k.push_back(std::min<int64_t>(pick(1, 3), size));
    s.push_back(pick(1, 2));
    d.push_back(k.back() > 1 && pick(0, 3) == 0 ? 2 : 1);
    xs.push_back(std::max(size, (k.back() - 1) * d.back() + 1));
    ws.push_back(k.back());
    pads[j] = pick(0, k.back() - 1);
    pads[j + dims] = pick(0, k.back() - 1);
  }
  Attrs a;
  a.set("group", g);
  a.set("strides", s);
  a.set("dilations", d);
  const int64_t pad_mode = pick(0, 3);
  if (pad_mode == 0) a.set("auto_pad", std::string(pick(0, 1) ? "SAME_UPPER" : "SAME_LOWER"));
  if (pad_mode == 1) a.set("pads", pads);
  const DType xt = pick(0, 1) ? DType::kU8 : DType::kI8, wt = pick(0, 1) ? DType::kU8 : DType::kI8;
  const int64_t m = ws[0];
  Case c;
  c.attrs = a;
  c.name = cat(qlinear ? "QLinearConv" : "ConvInteger", index, "/", dtype_name(xt), "x",
               dtype_name(wt), "/", to_string(xs), "x", to_string(ws), "/g", g);
  Tensor x = random_int(rng, xt, xs), w = random_int(rng, wt, ws);
  Tensor xz = zero_point(rng, xt, {}), wz = zero_point(rng, wt, pick(0, 1) ? Shape{m} : Shape{});
  if (!qlinear) {
    c.in = {x, w};
    if (pick(0, 3) > 0) c.in.push_back(xz);
    if (c.in.size() == 3 && pick(0, 3) > 0) c.in.push_back(wz);
    return c;
  }
  const DType yt = pick(0, 1) ? DType::kU8 : DType::kI8;
  Tensor xsc(DType::kF32, {}), wsc(DType::kF32, wz.shape()), ysc(DType::kF32, {});
  std::uniform_real_distribution<float> u(0.001f, 0.05f);
  xsc.set(0, u(rng));
  for (int64_t i = 0; i < wsc.numel(); ++i) wsc.set(i, u(rng));
  ysc.set(0, u(rng) * 20);
  c.in = {x, xsc, xz, w, wsc, wz, ysc, zero_point(rng, yt, {})};
  if (pick(0, 1)) {
    Tensor b(DType::kI32, {m});
    for (int64_t i = 0; i < m; ++i) b.set(i, static_cast<double>(pick(0, 20000)) - 10000);
    c.in.push_back(b);
  }
  return c;
}

void expect_exact(const std::string& op, const Case& c) {
  const OpDef& def = global_registry().lookup("", op, 10);
  const auto want = run_reference(def, c.attrs, c.in);
  const auto got = run_op(def, c.attrs, c.in, device());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(compare(got[0], want[0], 0, 0), "") << c.name;
}

TEST(ConvInteger, RandomGeometriesAreExact) {
  std::mt19937 rng(21);
  for (int i = 0; i < 60; ++i) expect_exact("ConvInteger", random_conv(rng, i, false));
}

TEST(QLinearConv, RandomGeometriesRequantiseAsTheReference) {
  std::mt19937 rng(2121);
  for (int i = 0; i < 40; ++i) expect_exact("QLinearConv", random_conv(rng, i, true));
}

// Sums of up to 576 products of +-255 x +-255 (|sum| up to 3.7e7 > 2^24): exact, on every ISA.
TEST(ConvInteger, ExtremeZeroPointsPast2To24AreExact) {
  for (const char* isa : {"", "avx2", "generic"}) {
    cpu::gemm_force_isa(isa);
    for (DType dt : {DType::kU8, DType::kI8}) {
      const double lo = dt == DType::kU8 ? 0 : -128, hi = dt == DType::kU8 ? 255 : 127;
      Tensor x(dt, {1, 64, 6, 7}), w(dt, {5, 64, 3, 3}), xz(dt, {}), wz(dt, {5});
      for (int64_t i = 0; i < x.numel(); ++i) x.set(i, i % 7 == 0 ? lo : hi);
      for (int64_t i = 0; i < w.numel(); ++i) w.set(i, i % 5 == 0 ? hi : lo);
      xz.set(0, lo);
      for (int64_t i = 0; i < 5; ++i) wz.set(i, i % 2 ? lo : hi);
      Attrs a;
      a.set("pads", V{1, 1, 1, 1});
      expect_exact("ConvInteger", {cat("extremes/", dtype_name(dt), "/", isa), {x, w, xz, wz}, a});
    }
  }
  cpu::gemm_force_isa("");
}

// A random matmul: A [batch.., M, K] (or [K]), B [batch.., K, N] (or [K]) with broadcast batches,
// zero points one value or per row of A / per column of B.
Case random_matmul(std::mt19937& rng, int index, bool qlinear) {
  auto pick = [&](int lo, int hi) { return static_cast<int64_t>(lo + rng() % (hi - lo + 1)); };
  const int64_t m = pick(1, 40), k = index % 5 == 0 ? pick(257, 700) : pick(0, 70), n = pick(1, 40);
  Shape as{m, k}, bs{k, n};
  if (pick(0, 2) == 0) as.insert(as.begin(), pick(1, 3));
  if (pick(0, 2) == 0) bs.insert(bs.begin(), as.size() == 3 && pick(0, 1) ? as[0] : 1);
  if (index % 7 == 3) as = {k};
  if (index % 11 == 4) bs = {k};
  const bool vec_a = as.size() == 1, vec_b = bs.size() == 1;
  const DType at = pick(0, 1) ? DType::kU8 : DType::kI8, bt = pick(0, 1) ? DType::kU8 : DType::kI8;
  Case c;
  c.name = cat(qlinear ? "QLinearMatMul" : "MatMulInteger", index, "/", dtype_name(at), "x",
               dtype_name(bt), "/", to_string(as), "x", to_string(bs));
  Tensor a = random_int(rng, at, as), b = random_int(rng, bt, bs);
  Tensor az = zero_point(rng, at, pick(0, 1) && !vec_a ? Shape{m} : Shape{});
  Tensor bz = zero_point(rng, bt, pick(0, 1) && !vec_b ? Shape{n} : Shape{});
  if (!qlinear) {
    c.in = {a, b};
    if (pick(0, 3) > 0) c.in.push_back(az);
    if (c.in.size() == 3 && pick(0, 3) > 0) c.in.push_back(bz);
    return c;
  }
  std::uniform_real_distribution<float> u(0.001f, 0.05f);
  Tensor asc(DType::kF32, az.shape()), bsc(DType::kF32, bz.shape()), ysc(DType::kF32, {});
  for (int64_t i = 0; i < asc.numel(); ++i) asc.set(i, u(rng));
  for (int64_t i = 0; i < bsc.numel(); ++i) bsc.set(i, u(rng));
  ysc.set(0, u(rng) * 20);
  const DType yt = pick(0, 1) ? DType::kU8 : DType::kI8;
  c.in = {a, asc, az, b, bsc, bz, ysc, zero_point(rng, yt, {})};
  return c;
}

TEST(MatMulInteger, RandomShapesAreExact) {
  std::mt19937 rng(10);
  for (int i = 0; i < 60; ++i) expect_exact("MatMulInteger", random_matmul(rng, i, false));
}

// The tile requantises in f32 as ONNX Runtime does; the reference in double: one step apart at
// most where a product lies within f32 rounding of a half.
TEST(QLinearMatMul, RandomShapesRequantiseWithinOneStep) {
  std::mt19937 rng(1010);
  const OpDef& def = global_registry().lookup("", "QLinearMatMul", 10);
  for (int i = 0; i < 40; ++i) {
    const Case c = random_matmul(rng, i, true);
    const auto want = run_reference(def, c.attrs, c.in);
    const auto got = run_op(def, c.attrs, c.in, device());
    EXPECT_EQ(compare(got[0], want[0], 1, 0), "") << c.name;
  }
}

// The integer cube's program: i8/u8 operands, an i32 accumulator, the zero points read by the
// loads.
TEST(ConvInteger, RunsAsAnIntegerCubeProgram) {
  const OpDef& op = global_registry().lookup("", "ConvInteger", 10);
  std::mt19937 rng(5);
  const std::vector<Tensor> in = {
      random_int(rng, DType::kU8, {1, 8, 9, 9}), random_int(rng, DType::kU8, {4, 8, 3, 3}),
      zero_point(rng, DType::kU8, {}), zero_point(rng, DType::kU8, {4})};
  OpRunOptions opts;
  bool seen = false;
  opts.on_program = [&](const TileProgram& p) {
    for (const Instr& i : p.instrs)
      if (i.kind == InstrKind::kMmad) {
        seen = true;
        EXPECT_EQ(p.buffers[static_cast<size_t>(i.dst)].dtype, DType::kI32);
        EXPECT_EQ(p.buffers[static_cast<size_t>(i.src[0])].dtype, DType::kU8);
      }
  };
  run_op(op, {}, in, device(), opts);
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace asc::test

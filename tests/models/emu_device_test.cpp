// The ascend-emu device: whole models through emitted Ascend C. Every tile-kernel step the Atlas
// A2 runs is emitted, compiled against the emulator and run there with concurrent pipes and the
// race checker; a step the A2 lacks a unit for runs on the cpu device. Results equal the cpu's,
// and sim:910b predicts its launches as it predicts the cpu's under the 910B tilings.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <map>
#include <random>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/ascend/emit_ascendc.h"
#include "runtime/devices/ascend/emu_device.h"
#include "runtime/generator.h"
#include "tests/models/qwen_run.h"
#include "tests/runtime/test_util.h"

namespace asc::test {
namespace {

// The kernel cache of this process: a fresh folder, so the test compiles what it runs.
const TempDir& kernel_cache() {
  static const TempDir dir;
  static const bool set = ::setenv("ASC_ASCEND_CACHE", (dir / "cache").c_str(), 1) == 0;
  EXPECT_TRUE(set);
  return dir;
}

const ascend::EmuDevice& emu_of(const Model& m) {
  const auto* d = dynamic_cast<const ascend::EmuDevice*>(&m.kernel_device());
  if (!d) throw Error("not an ascend-emu model");
  return *d;
}

// y = softmax(relu(x + b) @ w) and z = i + j in int64 (the A2 has no 64-bit integer Add).
Graph mixed_graph(int64_t n, int64_t k, int64_t m) {
  Graph g;
  g.opsets[""] = 17;
  const Tensor b = random({k}, 5), w = random({k, m}, 6);
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(n), Dim(k)}});
  const int i = g.add_value("i", {DType::kI64, SymShape{Dim(n), Dim(m)}});
  const int j = g.add_value("j", {DType::kI64, SymShape{Dim(n), Dim(m)}});
  const int bv = g.add_constant("b", b), wv = g.add_constant("w", w);
  const int s = g.add_value("s", {DType::kF32, std::nullopt});
  const int r = g.add_value("r", {DType::kF32, std::nullopt});
  const int mm = g.add_value("m", {DType::kF32, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  const int z = g.add_value("z", {DType::kI64, std::nullopt});
  g.inputs = {x, i, j};
  g.outputs = {y, z};
  g.add_node(node("Add", {x, bv}, {s}));
  g.add_node(node("Relu", {s}, {r}));
  g.add_node(node("MatMul", {r, wv}, {mm}));
  g.add_node(node("Softmax", {mm}, {y}, Attrs{{"axis", int64_t{-1}}}));
  g.add_node(node("Add", {i, j}, {z}));
  return g;
}

TEST(EmuDevice, RunsEmittedKernelsAndLeavesTheRestToTheCpu) {
  kernel_cache();
  const int64_t n = 37, k = 70, m = 45;  // odd sizes: partial tiles and padded rows
  ModelOptions co, eo;
  co.threads = eo.threads = 2;
  eo.device = "ascend-emu";
  const Model cpu(mixed_graph(n, k, m), co), emu(mixed_graph(n, k, m), eo);
  EXPECT_EQ(emu.spec().name, "ascend910b");
  EXPECT_EQ(emu.kernel_device().name(), "ascend-emu");
  EXPECT_EQ(cpu.kernel_device().name(), "cpu");

  const Tensor x = random({n, k}, 11, -2.f, 2.f);
  Tensor i(DType::kI64, {n, m}), j(DType::kI64, {n, m});
  std::mt19937 rng(11);
  for (int64_t e = 0; e < n * m; ++e) {
    i.data_as<int64_t>()[e] = static_cast<int64_t>(rng()) << 20;
    j.data_as<int64_t>()[e] = static_cast<int64_t>(rng() % 1000) - 500;
  }
  const std::vector<NamedTensor> in = {{"x", x}, {"i", i}, {"j", j}};
  auto want = cpu.run(in), got = emu.run(in);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(got[0].tensor.shape(), want[0].tensor.shape());
  for (int64_t e = 0; e < n * m; ++e)
    EXPECT_NEAR(got[0].tensor.data_as<float>()[e], want[0].tensor.data_as<float>()[e], 1e-5) << e;
  for (int64_t e = 0; e < n * m; ++e)
    ASSERT_EQ(got[1].tensor.data_as<int64_t>()[e], want[1].tensor.data_as<int64_t>()[e]) << e;

  const ascend::EmuDevice& dev = emu_of(emu);
  EXPECT_GE(dev.launches(), 2);    // the f32 chain ran as emitted kernels
  EXPECT_GE(dev.host_steps(), 1);  // the int64 Add did not

  // The int64 Add's program is unsupported, naming the unit the A2 lacks.
  const auto plan = emu.plan_for({x.desc(), i.desc(), j.desc()}, {nullptr, nullptr, nullptr}, {});
  std::vector<std::string> reasons;
  for (const PlanStep& st : plan->steps)
    if (st.program && st.program->args[0].dtype == DType::kI64)
      reasons.push_back(dev.unsupported(*st.program));
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("the Atlas A2 has no Add on int64_t"), std::string::npos) << reasons[0];
}

// sim:910b predicts the emulator's launches (ModelOptions::predict): the plan is the one the
// sim:910b device (the cpu under the predictor) makes, so every step's prediction is the same,
// and the results are the emulator's.
TEST(EmuDevice, PredictedBySim910b) {
  kernel_cache();
  const int64_t n = 19, k = 40, m = 24;
  ModelOptions so, eo;
  so.threads = eo.threads = 2;
  so.device = "sim:910b";
  eo.device = "ascend-emu";
  eo.predict = "sim:910b";
  const Model sim(mixed_graph(n, k, m), so), emu(mixed_graph(n, k, m), eo);
  ASSERT_NE(emu.predictor(), nullptr);
  EXPECT_EQ(emu.predictor()->name(), "sim:910b");
  EXPECT_EQ(emu.kernel_device().name(), "ascend-emu");
  const Tensor x = random({n, k}, 12, -2.f, 2.f);
  Tensor i(DType::kI64, {n, m}), j(DType::kI64, {n, m});
  for (int64_t e = 0; e < n * m; ++e) i.data_as<int64_t>()[e] = e, j.data_as<int64_t>()[e] = -2 * e;
  const std::vector<NamedTensor> in = {{"x", x}, {"i", i}, {"j", j}};
  RunStats ss, es;
  const auto want = sim.run(in, {}, &ss), got = emu.run(in, {}, &es);
  for (int64_t e = 0; e < n * m; ++e)
    EXPECT_NEAR(got[0].tensor.data_as<float>()[e], want[0].tensor.data_as<float>()[e], 1e-5) << e;
  ASSERT_EQ(es.steps.size(), ss.steps.size());
  std::map<int, double> by_node;
  for (const StepTiming& t : ss.steps) by_node[t.node] = t.cost.total_cycles();
  for (const StepTiming& t : es.steps) {
    EXPECT_TRUE(t.cost.valid) << t.node;
    EXPECT_EQ(t.cost.total_cycles(), by_node[t.node]) << t.node;
  }
  EXPECT_GE(emu_of(emu).launches(), 2);
}

// A predictor needs the device's own spec: ascend-emu's is sim:910b's, so only a mismatch of
// names (a device under a predictor of its own) is refused here.
TEST(EmuDevice, PredictorNamesAreChecked) {
  ModelOptions o;
  o.device = "sim:910b";
  o.predict = "sim:310p";
  try {
    Model mo(mixed_graph(2, 3, 4), o);
    FAIL() << "loaded under two predictors";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("predicted by itself"), std::string::npos) << e.what();
  }
  o.device = "cpu";
  try {
    Model mo(mixed_graph(2, 3, 4), o);
    FAIL() << "loaded under an unknown predictor";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("predictor 'sim:310p' is not available"),
              std::string::npos)
        << e.what();
  }
}

TEST(EmuDevice, UnknownDeviceNamesTheDevices) {
  ModelOptions o;
  o.device = "ascend-emulator";
  try {
    Model m(mixed_graph(2, 3, 4), o);
    FAIL() << "loaded on an unknown device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'ascend-emulator' is not available"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("ascend-emu"), std::string::npos) << e.what();
  }
}

// The tiny Qwen, prefill and greedy decoding, every A2-runnable kernel on the emulator.
TEST(EmuDevice, QwenTinyGreedyTokensEqualTheCpus) {
  kernel_cache();
  ModelOptions co, eo;
  co.threads = eo.threads = 2;
  eo.device = "ascend-emu";
  const Model cpu(import_onnx_file(tiny_model_path()), co);
  const Model emu(import_onnx_file(tiny_model_path()), eo);
  const std::vector<int64_t> prompt = {3, 17, 101, 42, 250, 7, 7, 64, 199};
  Generator gc(cpu, {32, {}}), ge(emu, {32, {}});
  const std::vector<int64_t> a = gc.generate(prompt, 4), b = ge.generate(prompt, 4);
  EXPECT_EQ(a, b);
  const std::vector<float> la = gc.last_logits(), lb = ge.last_logits();
  ASSERT_EQ(la.size(), lb.size());
  double top = 0, diff = 0;
  for (size_t e = 0; e < la.size(); ++e) {
    top = std::max(top, std::abs(static_cast<double>(la[e])));
    diff = std::max(diff, std::abs(static_cast<double>(la[e]) - lb[e]));
  }
  EXPECT_LE(diff, 1e-3 * top);
  const ascend::EmuDevice& dev = emu_of(emu);
  EXPECT_GT(dev.launches(), 0);
  std::printf("ascend-emu: %lld kernel launches, %lld steps on the cpu\n",
              static_cast<long long>(dev.launches()), static_cast<long long>(dev.host_steps()));
}

}  // namespace
}  // namespace asc::test

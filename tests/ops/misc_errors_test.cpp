// The misc family's error messages (op, shapes, attribute) and behaviours the case table cannot
// express: exact rounding and saturation values, string values and case mapping, seeded
// determinism and ranges of the random ops.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

template <typename V>
Tensor make(DType dt, Shape shape, const std::vector<V>& values) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.set(static_cast<int64_t>(i), static_cast<double>(values[i]));
  return t;
}
Tensor strings(Shape shape, const std::vector<std::string>& values) {
  Tensor t(DType::kString, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.strings()[i] = values[i];
  return t;
}

std::vector<Tensor> run(const char* op, int opset, const Attrs& attrs,
                        const std::vector<Tensor>& in, const char* domain = "") {
  return run_op(global_registry().lookup(domain, op, opset), attrs, in, device());
}

// The ShapeError message of running the op, or "" when it does not throw.
std::string error_of(const char* op, int opset, const Attrs& attrs, const std::vector<Tensor>& in,
                     const char* domain = "") {
  try {
    run(op, opset, attrs, in, domain);
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}
std::vector<std::string> string_values(const Tensor& t) {
  return {t.strings(), t.strings() + t.numel()};
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

Tensor scalar_f32(double v) {
  return make<double>(DType::kF32, {}, {v});
}

// ---- quantization ------------------------------------------------------------------------------

TEST(MiscQuant, QuantizeRoundsHalfToEvenAndSaturates) {
  const Tensor x = make<double>(DType::kF32, {8}, {0.5, 1.5, 2.5, -0.5, -1.5, 300, -300, 126.5});
  const auto y = run("QuantizeLinear", 13, {}, {x, scalar_f32(1), make<int>(DType::kI8, {}, {0})});
  EXPECT_EQ(values(y[0]), (std::vector<double>{0, 2, 2, 0, -2, 127, -128, 126}));
  const auto u = run("QuantizeLinear", 10, {}, {x, scalar_f32(1)});
  EXPECT_EQ(u[0].dtype(), DType::kU8);
  EXPECT_EQ(values(u[0]), (std::vector<double>{0, 2, 2, 0, 0, 255, 0, 126}));
}

TEST(MiscQuant, DynamicQuantizeMatchesTheOnnxExample) {
  const Tensor x = make<double>(DType::kF32, {6}, {0, 2, -3, -2.5, 1.34, 0.5});
  const auto y = run("DynamicQuantizeLinear", 11, {}, {x});
  EXPECT_EQ(values(y[0]), (std::vector<double>{153, 255, 0, 26, 221, 179}));
  EXPECT_NEAR(y[1].at(0), 0.0196078438, 1e-9);
  EXPECT_EQ(y[2].at(0), 153);
}

TEST(MiscQuant, PerAxisScaleBeforeOpset13IsRefused) {
  const Tensor x(DType::kF32, {2, 3});
  const Tensor s = make<double>(DType::kF32, {3}, {1, 2, 3});
  const std::string e = error_of("QuantizeLinear", 10, {}, {x, s});
  EXPECT_HAS(e, "QuantizeLinear");
  EXPECT_HAS(e, "scale must be a scalar before opset 13, got [3]");
}

TEST(MiscQuant, PerAxisScaleOfTheWrongSizeNamesShapes) {
  const Tensor x(DType::kF32, {2, 3, 4});
  const Tensor s = make<double>(DType::kF32, {4}, {1, 2, 3, 4});
  const std::string e = error_of("DequantizeLinear", 13, {}, {Tensor(DType::kU8, {2, 3, 4}), s});
  EXPECT_HAS(e, "DequantizeLinear");
  EXPECT_HAS(e, "scale [4] must be a scalar or 1-D of size 3 (input [2,3,4] axis 1)");
  const std::string z =
      error_of("QuantizeLinear", 13, {},
               {x, make<double>(DType::kF32, {3}, {1, 2, 3}), make<int>(DType::kU8, {2}, {0, 0})});
  EXPECT_HAS(z, "zero point [2] must have the shape of scale [3]");
}

TEST(MiscQuant, WrongDtypeNamesTheInput) {
  const std::string e =
      error_of("QuantizeLinear", 13, {}, {Tensor(DType::kF64, {2}), scalar_f32(1)});
  EXPECT_HAS(e, "QuantizeLinear");
  EXPECT_HAS(e, "input 'x' has dtype f64");
}

TEST(MiscQuant, MatMulIntegerShapesAndZeroPoints) {
  const std::string e =
      error_of("MatMulInteger", 10, {}, {Tensor(DType::kU8, {2, 3}), Tensor(DType::kU8, {4, 5})});
  EXPECT_HAS(e, "MatMulInteger");
  EXPECT_HAS(e, "A [2,3] and B [4,5] have different inner dims (3 vs 4)");
  const std::string z =
      error_of("MatMulInteger", 10, {},
               {Tensor(DType::kU8, {2, 3}), Tensor(DType::kU8, {3, 5}), Tensor(DType::kU8, {3})});
  EXPECT_HAS(z, "a_zero_point [3] must be a scalar or 1-D of size 2 (rows of A)");
  const std::string b = error_of("MatMulInteger", 10, {},
                                 {Tensor(DType::kU8, {2, 2, 3}), Tensor(DType::kU8, {3, 3, 5})});
  EXPECT_HAS(b, "do not broadcast");
}

TEST(MiscQuant, QLinearMatMulOutputTypeFollowsTheZeroPoint) {
  const Tensor a = make<int>(DType::kU8, {1, 2}, {10, 20});
  const Tensor b = make<int>(DType::kU8, {2, 1}, {3, 4});
  const auto y =
      run("QLinearMatMul", 10, {},
          {a, scalar_f32(1), make<int>(DType::kU8, {}, {0}), b, scalar_f32(1),
           make<int>(DType::kU8, {}, {0}), scalar_f32(2), make<int>(DType::kI8, {}, {-100})});
  EXPECT_EQ(y[0].dtype(), DType::kI8);
  EXPECT_EQ(values(y[0]), (std::vector<double>{-45}));  // (30 + 80) / 2 - 100
}

// ---- signal ------------------------------------------------------------------------------------

TEST(MiscSignal, DftOfAnImpulseIsFlat) {
  const Tensor x = make<double>(DType::kF32, {1, 5, 1}, {1, 0, 0, 0, 0});
  const auto y = run("DFT", 17, {}, {x});
  EXPECT_EQ(values(y[0]), (std::vector<double>{1, 0, 1, 0, 1, 0, 1, 0, 1, 0}));
}

TEST(MiscSignal, DftBadShapesAndAxis) {
  EXPECT_HAS(error_of("DFT", 17, {}, {Tensor(DType::kF32, {2, 4, 3})}),
             "DFT: input [2,4,3] must have rank >= 2 and a last dim of 1 (real) or 2 (complex)");
  EXPECT_HAS(error_of("DFT", 17, {{"axis", int64_t{2}}}, {Tensor(DType::kF32, {2, 4, 2})}),
             "DFT: axis 2 is out of range for input [2,4,2]");
  EXPECT_HAS(
      error_of("DFT", 17, {}, {Tensor(DType::kF32, {2, 4, 2}), make<int>(DType::kI64, {}, {0})}),
      "dft_length 0 must be >= 1");
}

TEST(MiscSignal, StftFrameLongerThanTheSignal) {
  const std::string e = error_of(
      "STFT", 17, {},
      {Tensor(DType::kF32, {1, 8, 1}), make<int>(DType::kI64, {}, {2}), Tensor(DType::kF32, {16})});
  EXPECT_HAS(e, "STFT: frame length 16 must be in [1, 8] (signal [1,8,1])");
}

TEST(MiscSignal, WindowOutputDatatypeIsChecked) {
  const std::string e = error_of("HannWindow", 17, {{"output_datatype", int64_t{8}}},
                                 {make<int>(DType::kI32, {}, {4})});
  EXPECT_HAS(e, "HannWindow: attribute 'output_datatype' is data type 8");
}

TEST(MiscSignal, MelUpperEdgePastNyquistIsRefused) {
  const std::string e =
      error_of("MelWeightMatrix", 17, {},
               {make<int>(DType::kI32, {}, {8}), make<int>(DType::kI32, {}, {16}),
                make<int>(DType::kI32, {}, {8000}), scalar_f32(0), scalar_f32(16000)});
  EXPECT_HAS(e,
             "MelWeightMatrix: upper_edge_hertz 16000 maps to spectrogram bin 12, past the 9 bins "
             "of dft_length 16 at sample_rate 8000");
}

// ---- detection / linear algebra ----------------------------------------------------------------

TEST(MiscDetect, NmsBadShapesNameBoth) {
  const std::string e = error_of("NonMaxSuppression", 11, {},
                                 {Tensor(DType::kF32, {1, 5, 3}), Tensor(DType::kF32, {1, 1, 5})});
  EXPECT_HAS(e, "NonMaxSuppression: boxes [1,5,3] and scores [1,1,5] must be");
}

TEST(MiscDetect, NmsSuppressesOverlapsAndKeepsScoreOrder) {
  const Tensor boxes =
      make<double>(DType::kF32, {1, 3, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3});
  const Tensor scores = make<double>(DType::kF32, {1, 1, 3}, {0.8, 0.9, 0.7});
  const auto y =
      run("NonMaxSuppression", 11, {},
          {boxes, scores, make<int>(DType::kI64, {1}, {3}), make<double>(DType::kF32, {1}, {0.5})});
  EXPECT_EQ(values(y[0]), (std::vector<double>{0, 0, 1, 0, 0, 2}));
}

TEST(MiscDetect, DetNeedsSquareMatrices) {
  EXPECT_HAS(error_of("Det", 11, {}, {Tensor(DType::kF32, {2, 3, 4})}),
             "Det: input f32[2,3,4] must be [*, M, M]");
  EXPECT_HAS(error_of("Det", 11, {}, {Tensor(DType::kF32, {3})}), "must be [*, M, M]");
}

// ---- training ----------------------------------------------------------------------------------

TEST(MiscTraining, InputsMustSplitIntoGroups) {
  const Tensor r = scalar_f32(0.1), t = make<int>(DType::kI64, {}, {1}), x(DType::kF32, {2});
  const std::string e = error_of("Adam", 1, {}, {r, t, x, x, x}, "ai.onnx.preview.training");
  EXPECT_HAS(e, "Adam: expected R, T and 4 blocks of n tensors, got 5 inputs");
  const std::string s = error_of("Adagrad", 1, {}, {r, t, x, Tensor(DType::kF32, {3}), x},
                                 "ai.onnx.preview.training");
  EXPECT_HAS(s, "Adagrad: input 3 [3] must have the shape of X0 [2]");
  const std::string m = error_of(
      "Momentum", 1,
      {{"alpha", 0.9f}, {"beta", 0.1f}, {"mode", std::string("heavy")}, {"norm_coefficient", 0.f}},
      {r, t, x, x, x}, "ai.onnx.preview.training");
  EXPECT_HAS(m, "Momentum: mode 'heavy' must be 'standard' or 'nesterov'");
}

// ---- random ------------------------------------------------------------------------------------

TEST(MiscRandom, SeededIsDeterministicAndSeedsDiffer) {
  const Attrs a = {{"shape", std::vector<int64_t>{16}}, {"seed", 3.f}};
  Attrs b = a;
  b.set("seed", 4.f);
  const auto y1 = run("RandomUniform", 1, a, {}), y2 = run("RandomUniform", 1, a, {});
  const auto y3 = run("RandomUniform", 1, b, {});
  EXPECT_EQ(values(y1[0]), values(y2[0]));
  EXPECT_NE(values(y1[0]), values(y3[0]));
}

TEST(MiscRandom, UnseededShapesAndRanges) {
  const auto u = run("RandomUniform", 1,
                     {{"shape", std::vector<int64_t>{4, 50}}, {"low", -1.f}, {"high", 3.f}}, {});
  ASSERT_EQ(u[0].shape(), (Shape{4, 50}));
  for (double v : values(u[0])) {
    EXPECT_GE(v, -1);
    EXPECT_LT(v, 3);
  }
  const auto m = run("Multinomial", 7, {{"sample_size", int64_t{30}}},
                     {make<double>(DType::kF32, {2, 3}, {0, -100, 0, -100, -100, 0})});
  ASSERT_EQ(m[0].shape(), (Shape{2, 30}));
  EXPECT_EQ(m[0].dtype(), DType::kI32);
  for (int64_t i = 0; i < 30; ++i) {
    EXPECT_TRUE(m[0].at(i) == 0 || m[0].at(i) == 2);
    EXPECT_EQ(m[0].at(30 + i), 2);
  }
  const auto b =
      run("Bernoulli", 15, {{"dtype", int64_t{9}}}, {make<double>(DType::kF64, {4}, {0, 1, 1, 0})});
  EXPECT_EQ(b[0].dtype(), DType::kBool);
  EXPECT_EQ(values(b[0]), (std::vector<double>{0, 1, 1, 0}));
}

TEST(MiscRandom, LikeOpsNeedAFloatDtype) {
  const std::string e = error_of("RandomNormalLike", 1, {}, {Tensor(DType::kI32, {3})});
  EXPECT_HAS(e, "RandomNormalLike: attribute 'dtype (input's)' is data type 6");
}

// ---- text --------------------------------------------------------------------------------------

TEST(MiscText, StringNormalizerValues) {
  const Tensor x = strings({1, 5}, {"Monday", "Straße", "école", "Привет", "MONDAY"});
  const auto up = run("StringNormalizer", 10,
                      {{"case_change_action", std::string("UPPER")},
                       {"stopwords", std::vector<std::string>{"monday"}}},
                      {x});
  ASSERT_EQ(up[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(string_values(up[0]), (std::vector<std::string>{"STRAßE", "ÉCOLE", "ПРИВЕТ"}));
  const auto low = run("StringNormalizer", 10,
                       {{"case_change_action", std::string("LOWER")},
                        {"is_case_sensitive", int64_t{1}},
                        {"stopwords", std::vector<std::string>{"monday"}}},
                       {x});
  EXPECT_EQ(string_values(low[0]),
            (std::vector<std::string>{"monday", "straße", "école", "привет", "monday"}));
  const auto empty =
      run("StringNormalizer", 10,
          {{"stopwords", std::vector<std::string>{"MONDAY", "straße", "ÉCOLE", "привет"}}}, {x});
  EXPECT_EQ(empty[0].shape(), (Shape{1, 1}));
  EXPECT_EQ(string_values(empty[0]), (std::vector<std::string>{""}));
}

TEST(MiscText, StringNormalizerBadShapeAndAction) {
  EXPECT_HAS(error_of("StringNormalizer", 10, {}, {strings({2, 2}, {"a", "b", "c", "d"})}),
             "StringNormalizer: input string[2,2] must be [C] or [1, C]");
  EXPECT_HAS(error_of("StringNormalizer", 10, {{"case_change_action", std::string("TITLE")}},
                      {strings({1}, {"a"})}),
             "case_change_action 'TITLE' must be LOWER, UPPER or NONE");
}

TEST(MiscText, TfIdfPoolAndInputMustAgree) {
  const Attrs a = {{"min_gram_length", int64_t{1}},
                   {"max_gram_length", int64_t{1}},
                   {"max_skip_count", int64_t{0}},
                   {"mode", std::string("TF")},
                   {"ngram_counts", std::vector<int64_t>{0}},
                   {"ngram_indexes", std::vector<int64_t>{0, 1}},
                   {"pool_int64s", std::vector<int64_t>{1, 2}}};
  EXPECT_HAS(error_of("TfIdfVectorizer", 9, a, {strings({2}, {"a", "b"})}),
             "TfIdfVectorizer: input string[2] needs pool_int64s");
  Attrs bad = a;
  bad.set("ngram_counts", std::vector<int64_t>{0, 1});
  EXPECT_HAS(error_of("TfIdfVectorizer", 9, bad, {Tensor(DType::kI64, {3})}),
             "ngram_counts[1] = 1 does not split a pool of 2 into 2-grams");
}

}  // namespace
}  // namespace asc::test

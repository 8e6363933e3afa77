// Cases of the misc family: every op version; per-tensor and per-axis quantization with u8/i8
// and values that saturate; integer matmuls with broadcast batches, 1-D operands, per-row and
// per-column zero points; power-of-two, odd and prime DFT lengths; empty, scalar and odd shapes.
#include <random>
#include <tuple>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kF64 = DType::kF64, kI32 = DType::kI32;
const DType kI64 = DType::kI64, kU8 = DType::kU8, kI8 = DType::kI8;

template <typename V>
InputSpec fixed_as(DType dt, const std::vector<V>& values, Shape shape) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.set(static_cast<int64_t>(i), static_cast<double>(values[i]));
  return fixed_tensor(std::move(t));
}
InputSpec scalar_as(DType dt, double v) {
  return fixed_as<double>(dt, {v}, {});
}

OpCase with(OpCase c, Attrs a, std::string label) {
  for (const auto& [k, v] : a.all()) c.attrs.set(k, v);
  c.label = std::move(label);
  return c;
}

// Opsets 19 (f16/bf16 data and scales), 21 (blocked; 16- and 4-bit) and 23 (the scale's own
// dtype, precision, output_dtype).
void add_quant_later(std::vector<OpCase>& v) {
  const DType kBF16 = DType::kBF16, kI4 = DType::kInt4, kU4 = DType::kUInt4;
  const DType kI16 = DType::kI16, kU16 = DType::kU16;
  for (DType dt : {kF16, DType::kBF16})
    v.push_back(with({"QuantizeLinear",
                      19,
                      {in(dt, {2, 3, 4}, -2, 2), fixed_as<double>(dt, {0.01, 0.02, 0.05}, {3}),
                       fixed_as<int>(kI8, {0, 10, -3}, {3})}},
                     {{"saturate", int64_t{1}}}, "axis"));
  v.push_back({"QuantizeLinear", 19, {in(kF32, {5, 7}, -9, 9), scalar_as(kF32, 0.03)}});
  // Blocked: scale [.., ceil(n / block), ..] along axis (an uneven last block too).
  for (const auto& [zt, lo, hi] :
       {std::tuple{kI4, -8, 7}, std::tuple{kU4, 0, 15}, std::tuple{kI16, -900, 900},
        std::tuple{kU16, 0, 60000}, std::tuple{kI8, -100, 100}}) {
    v.push_back(
        with({"QuantizeLinear",
              21,
              {in(kF32, {4, 5}, -3, 3), in(kF32, {4, 3}, 0.05, 0.4), in_int(zt, {4, 3}, lo, hi)}},
             {{"axis", int64_t{1}}, {"block_size", int64_t{2}}}, cat("blocked_", dtype_name(zt))));
    v.push_back(with({"DequantizeLinear",
                      21,
                      {in_int(zt, {6, 2, 3}, lo, hi), in(kF32, {2, 2, 3}, 0.01, 2),
                       in_int(zt, {2, 2, 3}, lo, hi)}},
                     {{"axis", int64_t{0}}, {"block_size", int64_t{3}}},
                     cat("blocked_", dtype_name(zt))));
  }
  v.push_back(with({"QuantizeLinear", 21, {in(kF32, {3, 4}, -1, 1), scalar_as(kF32, 0.1)}},
                   {{"output_dtype", int64_t{22}}}, "output_i4"));
  v.push_back(with(
      {"QuantizeLinear", 21, {in(kBF16, {2, 8}, -1, 1), in(kBF16, {2, 2}, 0.01, 0.1)}, Attrs{}},
      {{"axis", int64_t{-1}}, {"block_size", int64_t{4}}}, "bf16_blocked"));
  v.push_back(with({"DequantizeLinear",
                    21,
                    {in_int(kU4, {4, 6}, 0, 15), fixed_as<double>(kF16, {0.5, 0.25, 2, 1}, {4}),
                     fixed_as<int>(kU4, {8, 0, 15, 3}, {4})}},
                   {{"axis", int64_t{0}}}, "u4_axis"));
  v.push_back({"DequantizeLinear", 21, {in_int(kI16, {7}, -30000, 30000), scalar_as(kF32, 0.5)}});
  // DequantizeLinear-19: the scale's dtype is the output's.
  for (DType dt : {kF32, kF16, DType::kBF16})
    v.push_back({"DequantizeLinear",
                 19,
                 {in_int(kI8, {3, 4}, -128, 127), fixed_as<double>(dt, {0.1, 0.5, 3}, {3}),
                  fixed_as<int>(kI8, {1, -2, 0}, {3})},
                 Attrs{{"axis", int64_t{0}}},
                 cat("scale_", dtype_name(dt))});
  // Opset 23: Q's scale of its own dtype, precision; DQ's output_dtype.
  v.push_back({"QuantizeLinear",
               23,
               {in(kF32, {4, 6}, -2, 2), in(kF16, {4, 2}, 0.01, 0.05), in_int(kI4, {4, 2}, -2, 2)},
               Attrs{{"axis", int64_t{1}}, {"block_size", int64_t{3}}},
               "f16_scale"});
  v.push_back({"QuantizeLinear",
               23,
               {in(kF16, {9}, -2, 2), scalar_as(kF16, 0.013), scalar_as(kU8, 100)},
               Attrs{{"precision", int64_t{1}}},
               "precision_f32"});
  v.push_back(
      {"DequantizeLinear",
       23,
       {in_int(kI4, {2, 8}, -8, 7), in(kF32, {2, 2}, 0.1, 1)},
       Attrs{{"axis", int64_t{1}}, {"block_size", int64_t{4}}, {"output_dtype", int64_t{10}}},
       "output_f16"});
  v.push_back(
      {"DequantizeLinear", 23, {in_int(kU8, {0, 2}, 0, 9), scalar_as(kF32, 1)}, {}, "empty"});
  v.push_back({"QuantizeLinear",
               23,
               {in(kF32, {3, 8}, -2, 2), in(kF32, {3, 2}, 0.1, 0.5), in_int(kU4, {3, 2}, 0, 15)},
               Attrs{{"axis", int64_t{-1}}, {"block_size", int64_t{4}}},
               "blocked_u4"});
  v.push_back({"DequantizeLinear",
               23,
               {in_int(kI4, {3, 8}, -8, 7), in(kF32, {3, 2}, 0.1, 0.5), in_int(kI4, {3, 2}, -8, 7)},
               Attrs{{"axis", int64_t{1}}, {"block_size", int64_t{4}}},
               "blocked_i4"});
}

void add_quant(std::vector<OpCase>& v) {
  // QuantizeLinear-10: per tensor, zero point absent (u8) or given (u8 / i8); values saturate.
  v.push_back({"QuantizeLinear", 10, {in(kF32, {3, 5}, -3, 3), scalar_as(kF32, 0.02)}});
  v.push_back(
      {"QuantizeLinear", 10, {in(kF32, {7}, -1, 1), scalar_as(kF32, 0.01), scalar_as(kU8, 128)}});
  v.push_back({"QuantizeLinear",
               10,
               {in(kI32, {2, 3}, -500, 500), fixed_as<double>(kF32, {2.0}, {1}),
                fixed_as<int>(kI8, {3}, {1})}});
  v.push_back({"QuantizeLinear", 10, {in(kF32, {0, 4}), scalar_as(kF32, 0.5)}});  // empty
  v.push_back({"QuantizeLinear", 10, {in(kF32, {}), scalar_as(kF32, 0.25)}});     // scalar
  // QuantizeLinear-13: per axis (default axis 1, axis 0, negative axis) and per tensor.
  v.push_back({"QuantizeLinear",
               13,
               {in(kF32, {2, 3, 4}, -2, 2), fixed_as<double>(kF32, {0.01, 0.02, 0.05}, {3}),
                fixed_as<int>(kU8, {0, 100, 255}, {3})}});
  v.push_back(with({"QuantizeLinear",
                    13,
                    {in(kF32, {2, 5}, -2, 2), fixed_as<double>(kF32, {0.01, 0.03}, {2}),
                     fixed_as<int>(kI8, {-5, 7}, {2})}},
                   {{"axis", int64_t{0}}}, "axis0"));
  v.push_back(with({"QuantizeLinear",
                    13,
                    {in(kF32, {3, 1, 2}, -1, 1), fixed_as<double>(kF32, {0.01, 0.004}, {2}),
                     fixed_as<int>(kI8, {0, 1}, {2})}},
                   {{"axis", int64_t{-1}}}, "axis-1"));
  v.push_back(
      {"QuantizeLinear", 13, {in(kF32, {9}, -300, 300), scalar_as(kF32, 1.0), scalar_as(kI8, -1)}});

  // DequantizeLinear-10 / -13.
  v.push_back({"DequantizeLinear",
               10,
               {in(kU8, {4, 3}, 0, 255), scalar_as(kF32, 0.1), scalar_as(kU8, 12)}});
  v.push_back({"DequantizeLinear", 10, {in(kI8, {5}, -128, 127), scalar_as(kF32, 0.5)}});
  v.push_back({"DequantizeLinear", 10, {in(kI32, {3}, -1000, 1000), scalar_as(kF32, 0.001)}});
  v.push_back({"DequantizeLinear",
               13,
               {in(kU8, {2, 3, 2}, 0, 255), fixed_as<double>(kF32, {0.1, 0.2, 0.3}, {3}),
                fixed_as<int>(kU8, {0, 128, 255}, {3})}});
  v.push_back(with({"DequantizeLinear",
                    13,
                    {in(kI8, {4, 3}, -128, 127), fixed_as<double>(kF32, {1, 2, 3, 4}, {4}),
                     fixed_as<int>(kI8, {0, -1, 2, 127}, {4})}},
                   {{"axis", int64_t{0}}}, "axis0"));
  v.push_back({"DequantizeLinear", 13, {in(kU8, {0, 3}, 0, 255), scalar_as(kF32, 2)}});

  add_quant_later(v);

  // DynamicQuantizeLinear: mixed signs, all positive (min 0), all negative (max 0), all zero.
  v.push_back({"DynamicQuantizeLinear", 11, {in(kF32, {3, 4}, -3, 5)}});
  v.push_back({"DynamicQuantizeLinear", 11, {in(kF32, {17}, 0.5, 7)}});
  v.push_back({"DynamicQuantizeLinear", 11, {in(kF32, {2, 2, 3}, -9, -1)}});
  v.push_back({"DynamicQuantizeLinear", 11, {in(kF32, {4}, 0, 0)}});
  v.push_back({"DynamicQuantizeLinear", 11, {in(kF32, {0})}});
  // Vector loops with tails, and blocks of 2^16 shared by the workers (the last one partial).
  v.push_back({"DynamicQuantizeLinear", 11, {in(kF32, {7, 333}, -2, 6)}});
  v.push_back({"DynamicQuantizeLinear", 11, {in(kF32, {3, 65536 + 47}, -40, 1)}});

  // MatMulInteger: u8/i8 mixes, zero points scalar / per row / per column, broadcast batches,
  // 1-D operands, K = 0 and shapes larger than one GEMM block.
  v.push_back({"MatMulInteger", 10, {in(kU8, {4, 3}, 0, 255), in(kU8, {3, 5}, 0, 255)}});
  v.push_back({"MatMulInteger",
               10,
               {in(kU8, {3, 4}, 0, 255), in(kI8, {4, 2}, -128, 127), scalar_as(kU8, 12),
                scalar_as(kI8, -3)}});
  v.push_back(
      {"MatMulInteger",
       10,
       {in(kI8, {2, 1, 3, 5}, -128, 127), in(kU8, {4, 5, 6}, 0, 255),
        fixed_as<int>(kI8, {1, -2, 3}, {3}), fixed_as<int>(kU8, {0, 9, 250, 1, 2, 3}, {6})}});
  v.push_back({"MatMulInteger", 10, {in(kU8, {7}, 0, 255), in(kU8, {7, 3}, 0, 255)}});
  v.push_back({"MatMulInteger", 10, {in(kU8, {2, 7}, 0, 255), in(kI8, {7}, -128, 127)}});
  v.push_back({"MatMulInteger", 10, {in(kU8, {3, 0}, 0, 255), in(kU8, {0, 2}, 0, 255)}});
  v.push_back({"MatMulInteger",
               10,
               {in(kU8, {37, 300}, 0, 255), in(kI8, {300, 530}, -128, 127), scalar_as(kU8, 128),
                scalar_as(kI8, 1)}});

  // QLinearMatMul: per tensor and per row / per column scales, u8 and i8 outputs that saturate.
  v.push_back({"QLinearMatMul",
               10,
               {in(kU8, {2, 4}, 0, 255), scalar_as(kF32, 0.0066), scalar_as(kU8, 113),
                in(kU8, {4, 3}, 0, 255), scalar_as(kF32, 0.00705), scalar_as(kU8, 114),
                scalar_as(kF32, 0.0107), scalar_as(kU8, 118)}});
  v.push_back(
      {"QLinearMatMul",
       10,
       {in(kI8, {3, 2, 5}, -128, 127), fixed_as<double>(kF32, {0.01, 0.02}, {2}),
        fixed_as<int>(kI8, {1, -1}, {2}), in(kI8, {5, 4}, -128, 127),
        fixed_as<double>(kF32, {0.01, 0.02, 0.03, 0.04}, {4}),
        fixed_as<int>(kI8, {0, 0, 1, -2}, {4}), scalar_as(kF32, 0.05), scalar_as(kI8, -3)}});
  v.push_back({"QLinearMatMul",
               10,
               {in(kU8, {4, 9}, 0, 255), scalar_as(kF32, 0.5), scalar_as(kU8, 0),
                in(kU8, {2, 9, 3}, 0, 255), scalar_as(kF32, 0.5), scalar_as(kU8, 0),
                scalar_as(kF32, 1.0), scalar_as(kU8, 0)},
               {},
               "saturate"});
}

void add_signal(std::vector<OpCase>& v) {
  // DFT: real and complex input, power-of-two / short odd / long prime (Bluestein) lengths,
  // onesided, inverse, other axes, padding and truncation through dft_length.
  v.push_back({"DFT", 17, {in(kF32, {2, 8, 1})}});
  v.push_back({"DFT", 17, {in(kF32, {3, 10, 2})}});
  v.push_back({"DFT", 17, {in(kF64, {1, 37, 2})}});
  v.push_back(with({"DFT", 17, {in(kF32, {2, 64, 1})}}, {{"onesided", int64_t{1}}}, "onesided"));
  v.push_back(with({"DFT", 17, {in(kF32, {2, 12, 2})}}, {{"inverse", int64_t{1}}}, "inverse"));
  v.push_back(with({"DFT", 17, {in(kF32, {2, 3, 5, 2})}}, {{"axis", int64_t{2}}}, "axis2"));
  v.push_back(with({"DFT", 17, {in(kF32, {4, 3, 1})}}, {{"axis", int64_t{-3}}}, "axis-3"));
  v.push_back({"DFT", 17, {in(kF32, {2, 10, 1}), scalar_as(kI64, 16)}, {}, "pad16"});
  v.push_back({"DFT", 17, {in(kF32, {2, 50, 2}), scalar_as(kI32, 41)}, {}, "trunc41"});
  // IRFFT (onesided inverse): a one-sided complex spectrum in, a real signal of L out (L even,
  // odd, the default 2 (n - 1), and longer than the spectrum covers: zeros).
  const Attrs irfft{{"onesided", int64_t{1}}, {"inverse", int64_t{1}}};
  v.push_back(with({"DFT", 17, {in(kF16, {1, 5, 2}), scalar_as(kI64, 9)}}, irfft, "irfft9"));
  v.push_back(with({"DFT", 17, {in(kF32, {2, 7, 2})}}, irfft, "irfft"));
  v.push_back(with({"DFT", 17, {in(kF32, {2, 4, 2}), scalar_as(kI64, 12)}}, irfft, "irfft12"));
  // DFT-20: the axis as an optional input, default -2.
  v.push_back({"DFT", 20, {in(kF32, {2, 3, 8, 2})}, {}, "axis_default"});
  v.push_back({"DFT", 20, {in(kF32, {2, 6, 5, 1}), absent(), scalar_as(kI64, 1)}, {}, "axis1"});
  v.push_back(
      {"DFT", 20, {in(kF64, {4, 3, 2}), scalar_as(kI64, 6), scalar_as(kI64, -3)}, {}, "axis-3"});
  v.push_back(with({"DFT", 20, {in(kF32, {3, 10, 1}), absent(), scalar_as(kI64, 1)}},
                   {{"onesided", int64_t{1}}}, "onesided"));
  v.push_back(with({"DFT", 20, {in(kF32, {3, 6, 2})}}, {{"inverse", int64_t{1}}}, "inverse"));
  v.push_back(with({"DFT", 20, {in(kF32, {2, 5, 2}), scalar_as(kI64, 8)}}, irfft, "irfft8"));
  v.push_back({"DFT", 17, {in(kF32, {0, 6, 2})}});  // empty batch
  v.push_back({"DFT", 17, {in(kF32, {3, 1, 1})}});  // length 1

  // STFT: window given, frame_length given, both; real onesided and complex two-sided.
  v.push_back({"STFT", 17, {in(kF32, {1, 64, 1}), scalar_as(kI64, 8), in(kF32, {16}, 0, 1)}});
  v.push_back(
      {"STFT", 17, {in(kF32, {2, 45, 1}), scalar_as(kI32, 7), absent(), scalar_as(kI32, 12)}});
  v.push_back(
      with({"STFT",
            17,
            {in(kF64, {1, 30, 2}), scalar_as(kI64, 5), in(kF64, {9}, 0, 1), scalar_as(kI64, 9)}},
           {{"onesided", int64_t{0}}}, "complex"));

  // Windows: periodic / symmetric, output types, sizes 0 and 1.
  for (const char* w : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    v.push_back({w, 17, {scalar_as(kI32, 10)}});
    v.push_back(with({w, 17, {scalar_as(kI64, 7)}},
                     {{"periodic", int64_t{0}}, {"output_datatype", int64_t{11}}},
                     "symmetric_f64"));
    v.push_back(with({w, 17, {scalar_as(kI64, 1)}}, {{"periodic", int64_t{0}}}, "one"));
    v.push_back({w, 17, {scalar_as(kI64, 0)}});
  }

  // MelWeightMatrix: the conformance parameters, a wider band, f64 and i32 outputs.
  v.push_back({"MelWeightMatrix",
               17,
               {scalar_as(kI32, 8), scalar_as(kI32, 16), scalar_as(kI32, 8192), scalar_as(kF32, 0),
                scalar_as(kF32, 4096)}});
  v.push_back(with({"MelWeightMatrix",
                    17,
                    {scalar_as(kI64, 20), scalar_as(kI64, 512), scalar_as(kI64, 16000),
                     scalar_as(kF32, 125), scalar_as(kF32, 7600)}},
                   {{"output_datatype", int64_t{11}}}, "f64"));
  v.push_back(with({"MelWeightMatrix",
                    17,
                    {scalar_as(kI64, 4), scalar_as(kI64, 31), scalar_as(kI64, 100),
                     scalar_as(kF64, 1), scalar_as(kF64, 45)}},
                   {{"output_datatype", int64_t{6}}}, "i32"));
}

// Boxes scattered like a batched NMS's (classes offset apart along the diagonal): many small
// boxes in clusters that overlap, every 50th box huge, in corner form.
InputSpec scattered_boxes(int64_t n) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    const double off = 300.0 * static_cast<double>(i % 9),
                 side = i % 50 == 0 ? 900 : 5 + 20 * u(gen);
    const double y = off + 100 * u(gen), x = off + 100 * u(gen);
    v.insert(v.end(), {y, x, y + side * u(gen), x + side});
  }
  return fixed_as<double>(kF32, v, {1, n, 4});
}

void add_detect(std::vector<OpCase>& v) {
  const auto f32s = [](double x) { return fixed_as<double>(kF32, {x}, {1}); };
  // NonMaxSuppression: random overlapping boxes; every optional input absent or given; corner
  // and center box formats; max 0 and score thresholds that drop everything.
  for (const int opset : {10, 11}) {
    v.push_back({"NonMaxSuppression",
                 opset,
                 {in(kF32, {1, 6, 4}, 0, 1), in(kF32, {1, 1, 6}, 0, 1), fixed_i64({3}), f32s(0.3),
                  f32s(0.2)}});
    v.push_back({"NonMaxSuppression",
                 opset,
                 {in(kF32, {2, 9, 4}, 0, 2), in(kF32, {2, 3, 9}, 0, 1), fixed_i64({4}, Shape{}),
                  f32s(0.1)}});
  }
  v.push_back(with({"NonMaxSuppression",
                    11,
                    {in(kF32, {1, 12, 4}, 0.2, 1.5), in(kF32, {1, 2, 12}, 0, 1), fixed_i64({12}),
                     fixed_as<double>(kF32, {0.25}, {}), absent()}},
                   {{"center_point_box", int64_t{1}}}, "center"));
  v.push_back({"NonMaxSuppression", 11, {in(kF32, {1, 5, 4}), in(kF32, {1, 1, 5})}});  // max 0
  v.push_back(
      {"NonMaxSuppression",
       11,
       {in(kF32, {1, 5, 4}), in(kF32, {1, 2, 5}, 0, 1), fixed_i64({5}), absent(), f32s(2.0)}});
  v.push_back({"NonMaxSuppression",
               11,
               {in(kF32, {3, 0, 4}), in(kF32, {3, 2, 0}), fixed_i64({5})}});  // no boxes
  // Enough candidates for the grid of kept boxes, one class and three.
  v.push_back(
      {"NonMaxSuppression",
       11,
       {scattered_boxes(1200), in(kF32, {1, 1, 1200}, 0, 1), fixed_i64({1200}), f32s(0.3)}});
  v.push_back({"NonMaxSuppression",
               11,
               {scattered_boxes(700), in(kF32, {1, 3, 700}, 0, 1), fixed_i64({500}), f32s(0.1),
                f32s(0.2)}});

  // Det: small and batched matrices, f64, f16, a 1x1, an empty batch and 0x0 matrices.
  v.push_back({"Det", 11, {in(kF32, {3, 3})}});
  v.push_back({"Det", 11, {in(kF32, {2, 3, 4, 4})}});
  v.push_back({"Det", 11, {in(kF64, {6, 6})}});
  v.push_back({"Det", 11, {in(kF16, {2, 2, 2})}});
  v.push_back({"Det", 11, {in(kF32, {5, 1, 1})}});
  v.push_back({"Det", 11, {in(kF32, {0, 3, 3})}});
  v.push_back({"Det", 11, {in(kF32, {2, 0, 0})}});
  v.push_back({"Det", 11, {fixed_as<double>(kF32, {1, 2, 2, 4}, {2, 2})}, {}, "singular"});
}

OpCase training(OpCase c) {
  c.domain = "ai.onnx.preview.training";
  return c;
}

void add_training(std::vector<OpCase>& v) {
  // One tensor and several of different shapes (scalar, empty, odd); T = 0 (no bias correction,
  // momentum beta 1) and T > 0; f32 and f64.
  v.push_back(
      training({"Adagrad",
                1,
                {scalar_as(kF32, 0.1), scalar_as(kI64, 3), in(kF32, {3, 2}), in(kF32, {3, 2}),
                 in(kF32, {3, 2}, 0, 1)},
                {{"decay_factor", 0.1f}, {"epsilon", 1e-5f}, {"norm_coefficient", 0.01f}}}));
  v.push_back(training({"Adagrad",
                        1,
                        {scalar_as(kF64, 0.5), scalar_as(kI64, 0), in(kF64, {4}), in(kF64, {}),
                         in(kF64, {4}), in(kF64, {}), in(kF64, {4}, 0, 1), in(kF64, {}, 0, 1)}}));
  v.push_back(training({"Adam",
                        1,
                        {scalar_as(kF32, 0.1), scalar_as(kI64, 2), in(kF32, {5}), in(kF32, {5}),
                         in(kF32, {5}), in(kF32, {5}, 0, 1)},
                        {{"alpha", 0.95f}, {"beta", 0.1f}, {"norm_coefficient_post", 0.01f}}}));
  v.push_back(training({"Adam",
                        1,
                        {scalar_as(kF32, 0.3), scalar_as(kI64, 0), in(kF32, {2, 3}), in(kF32, {0}),
                         in(kF32, {2, 3}), in(kF32, {0}), in(kF32, {2, 3}), in(kF32, {0}),
                         in(kF32, {2, 3}, 0, 1), in(kF32, {0}, 0, 1)}}));
  v.push_back(training(
      {"Momentum",
       1,
       {scalar_as(kF32, 0.1), scalar_as(kI64, 1), in(kF32, {7}), in(kF32, {7}), in(kF32, {7})},
       {{"alpha", 0.9f},
        {"beta", 0.5f},
        {"mode", std::string("standard")},
        {"norm_coefficient", 0.001f}}}));
  v.push_back(training({"Momentum",
                        1,
                        {scalar_as(kF64, 0.2), scalar_as(kI64, 0), in(kF64, {2}), in(kF64, {1, 3}),
                         in(kF64, {2}), in(kF64, {1, 3}), in(kF64, {2}), in(kF64, {1, 3})},
                        {{"alpha", 0.8f},
                         {"beta", 0.7f},
                         {"mode", std::string("nesterov")},
                         {"norm_coefficient", 0.0f}},
                        "nesterov"}));
}

void add_random(std::vector<OpCase>& v) {
  // Seeded (deterministic): the kernel and the reference draw the same stream.
  const auto seeded = [](Attrs a, float seed) {
    a.set("seed", seed);
    return a;
  };
  v.push_back({"RandomUniform", 1, {}, seeded({{"shape", std::vector<int64_t>{3, 4}}}, 1.5f)});
  v.push_back({"RandomUniform",
               1,
               {},
               seeded({{"shape", std::vector<int64_t>{5}},
                       {"dtype", int64_t{11}},
                       {"low", -3.0f},
                       {"high", 2.0f}},
                      7.f),
               "f64"});
  v.push_back({"RandomUniform", 1, {}, seeded({{"shape", std::vector<int64_t>{}}}, 0.f), "scalar"});
  v.push_back({"RandomNormal",
               1,
               {},
               seeded({{"shape", std::vector<int64_t>{2, 0, 3}}, {"dtype", int64_t{10}}}, 2.f),
               "empty_f16"});
  v.push_back(
      {"RandomNormal",
       1,
       {},
       seeded({{"shape", std::vector<int64_t>{7, 3}}, {"mean", 1.0f}, {"scale", 0.5f}}, 3.f)});
  v.push_back({"RandomUniformLike", 1, {in(kF32, {4, 2})}, seeded({}, 4.f)});
  v.push_back({"RandomUniformLike",
               1,
               {in(kI32, {3}, 0, 9)},
               seeded({{"dtype", int64_t{11}}}, 5.f),
               "f64"});
  v.push_back({"RandomNormalLike", 1, {in(kF64, {2, 3})}, seeded({}, 6.f)});
  v.push_back({"RandomNormalLike",
               1,
               {in(kU8, {5}, 0, 9)},
               seeded({{"dtype", int64_t{1}}}, 1.f),
               "u8_to_f32"});
  // Bernoulli: p in {0, 1} (deterministic without a seed) and random p with a seed.
  v.push_back({"Bernoulli", 15, {fixed_as<double>(kF32, {0, 1, 1, 0, 0, 1}, {2, 3})}});
  v.push_back(
      {"Bernoulli", 15, {fixed_as<double>(kF64, {1, 0, 1}, {3})}, {{"dtype", int64_t{9}}}, "bool"});
  v.push_back({"Bernoulli", 15, {in(kF32, {4, 5}, 0, 1)}, seeded({}, 0.f)});
  v.push_back({"Bernoulli", 15, {in(kF16, {0})}});
  // Multinomial: several rows and samples, i64 output, one class.
  v.push_back({"Multinomial", 7, {in(kF32, {3, 5})}, seeded({{"sample_size", int64_t{4}}}, 9.f)});
  v.push_back({"Multinomial",
               7,
               {in(kF64, {2, 3})},
               seeded({{"dtype", int64_t{7}}, {"sample_size", int64_t{10}}}, 1.f),
               "i64"});
  v.push_back({"Multinomial", 7, {in(kF32, {4, 1})}});
}

InputSpec fixed_strings(const std::vector<std::string>& values, Shape shape) {
  Tensor t(DType::kString, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.strings()[i] = values[i];
  return fixed_tensor(std::move(t));
}

void add_text(std::vector<OpCase>& v) {
  // TfIdfVectorizer: small-alphabet integer rows so n-grams repeat; unigram+bigram pools with
  // skips; the three modes with weights; a string pool; an empty level of the pool.
  const Attrs uni_bi = {{"min_gram_length", int64_t{1}},
                        {"max_gram_length", int64_t{2}},
                        {"max_skip_count", int64_t{2}},
                        {"mode", std::string("TF")},
                        {"ngram_counts", std::vector<int64_t>{0, 4}},
                        {"ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}},
                        {"pool_int64s", std::vector<int64_t>{2, 3, 5, 4, 5, 6, 7, 8, 6, 7}}};
  v.push_back({"TfIdfVectorizer", 9, {in_int(kI32, {12}, 2, 8)}, uni_bi});
  v.push_back({"TfIdfVectorizer", 9, {in_int(kI64, {3, 9}, 2, 8)}, uni_bi, "batch"});
  Attrs bi_only = uni_bi;
  bi_only.set("min_gram_length", int64_t{2});
  bi_only.set("max_skip_count", int64_t{0});
  v.push_back({"TfIdfVectorizer", 9, {in_int(kI32, {2, 6}, 4, 8)}, bi_only, "bigrams"});
  Attrs idf = uni_bi;
  idf.set("mode", std::string("IDF"));
  idf.set("weights", std::vector<float>{0.5f, 1, 2, 3, 4, 5, 6});
  v.push_back({"TfIdfVectorizer", 9, {in_int(kI32, {2, 7}, 2, 8)}, idf, "idf"});
  Attrs tfidf = idf;
  tfidf.set("mode", std::string("TFIDF"));
  tfidf.set("ngram_indexes", std::vector<int64_t>{6, 0, 5, 1, 4, 2, 9});
  v.push_back({"TfIdfVectorizer", 9, {in_int(kI64, {2, 7}, 2, 8)}, tfidf, "tfidf_columns"});
  v.push_back({"TfIdfVectorizer", 9, {in_int(kI32, {0}, 2, 8)}, uni_bi, "empty"});
  v.push_back({"TfIdfVectorizer",
               9,
               {fixed_strings({"a", "b", "c", "a", "b", "x", "c"}, {7})},
               {{"min_gram_length", int64_t{1}},
                {"max_gram_length", int64_t{2}},
                {"max_skip_count", int64_t{1}},
                {"mode", std::string("TF")},
                {"ngram_counts", std::vector<int64_t>{0, 2}},
                {"ngram_indexes", std::vector<int64_t>{0, 1, 2, 3}},
                {"pool_strings", std::vector<std::string>{"a", "c", "a", "b", "b", "c"}}},
               "strings"});

  // StringNormalizer (values are checked in misc_text_test; the table checks shapes).
  const auto days = fixed_strings({"monday", "tuesday", "wednesday", "thursday"}, {4});
  v.push_back({"StringNormalizer",
               10,
               {days},
               {{"case_change_action", std::string("UPPER")},
                {"stopwords", std::vector<std::string>{"monday"}}}});
  v.push_back({"StringNormalizer",
               10,
               {fixed_strings({"Monday", "x", "MONDAY"}, {1, 3})},
               {{"stopwords", std::vector<std::string>{"monday"}}},
               "insensitive"});
  v.push_back({"StringNormalizer",
               10,
               {fixed_strings({"monday", "monday"}, {2})},
               {{"stopwords", std::vector<std::string>{"monday"}}},
               "empty_output"});
}

}  // namespace

InputSpec strings(Shape shape, const std::vector<std::string>& words) {
  Tensor t(DType::kString, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.strings()[i] = words[static_cast<size_t>(i)];
  return fixed_tensor(std::move(t));
}

// StringConcat, StringSplit, RegexFullMatch (opset 20).
void add_strings(std::vector<OpCase>& v) {
  v.push_back({"StringConcat",
               20,
               {strings({2, 2}, {"a", "", "xy", "é"}), strings({2}, {"1", "-2"})},
               {},
               "bcast"});
  v.push_back(
      {"StringConcat", 20, {strings({}, {"pre"}), strings({3}, {"", "a", "bc"})}, {}, "scalar"});
  const std::vector<std::string> text = {"a,b,,c", "", ",x,", "no", "  two  words ", "a  b c  "};
  v.push_back(
      {"StringSplit", 20, {strings({2, 3}, text)}, {{"delimiter", std::string(",")}}, "comma"});
  v.push_back({"StringSplit", 20, {strings({6}, text)}, {}, "whitespace"});
  v.push_back({"StringSplit",
               20,
               {strings({6}, text)},
               {{"delimiter", std::string(",")}, {"maxsplit", int64_t{1}}},
               "comma_max1"});
  v.push_back(
      {"StringSplit", 20, {strings({6}, text)}, {{"maxsplit", int64_t{1}}}, "whitespace_max1"});
  v.push_back({"StringSplit",
               20,
               {strings({2}, {"a--b----c", "--"})},
               {{"delimiter", std::string("--")}},
               "multichar"});
  v.push_back({"StringSplit", 20, {strings({2}, {"", "   "})}, {}, "no_substrings"});
  const std::vector<std::string> words = {"abc123", "ABC", "abc", "", "a1b2", "www.x.org"};
  v.push_back({"RegexFullMatch",
               20,
               {strings({2, 3}, words)},
               {{"pattern", std::string("[a-z]+\\d*")}},
               "class"});
  v.push_back({"RegexFullMatch",
               20,
               {strings({6}, words)},
               {{"pattern", std::string("(www\\.)?[a-z]+\\.(org|com)|a.*")}},
               "alternation"});
}

std::vector<OpCase> cases_misc() {
  std::vector<OpCase> v;
  add_quant(v);
  add_signal(v);
  add_detect(v);
  add_training(v);
  add_random(v);
  add_text(v);
  add_strings(v);
  return v;
}

}  // namespace asc::test

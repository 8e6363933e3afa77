// The misc family (quantization, signal processing, detection, linear algebra, random, training
// and text ops): per-file registration and the helpers its host kernels and references share.
//
// Every op here is a host kernel (the AI CPU side of Ascend), except that the integer GEMM of
// MatMulInteger / QLinearMatMul is blocked for the host caches. References compute in double.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "registry/error.h"
#include "registry/infer.h"
#include "registry/registry.h"
#include "registry/strings.h"

namespace asc {

void register_misc_quant(Registry& r);  // Dynamic..., MatMuls; calls register_misc_quant_linear
void register_misc_quant_linear(Registry& r);  // QuantizeLinear, DequantizeLinear
void register_misc_signal(Registry& r);        // DFT, STFT, windows, MelWeightMatrix
void register_misc_detect(Registry& r);        // NonMaxSuppression, Det
void register_misc_random(Registry& r);        // Random*, Bernoulli, Multinomial
void register_misc_training(Registry& r);      // ai.onnx.preview.training Adagrad, Adam, Momentum
void register_misc_text(Registry& r);          // TfIdfVectorizer, StringNormalizer
void register_misc_strings(Registry& r);       // StringConcat, StringSplit, RegexFullMatch

namespace misc {

inline constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

// Input k is given (present and not an absent optional input).
inline bool has_input(const InferContext& c, size_t k) {
  return k < c.inputs.size() && c.inputs[k].dtype != DType::kUndefined;
}
inline bool has_input(std::span<const Tensor> in, size_t k) {
  return k < in.size() && in[k].defined();
}

// The concrete shape of an inferred input, or nullopt when its rank or a dim is unknown.
inline std::optional<Shape> concrete(const TensorType& t) {
  return t.shape ? to_concrete(*t.shape) : std::nullopt;
}

// The single element of a scalar-like input (shape [] or [1]) as double; ShapeError naming the op
// and the input otherwise.
inline double scalar_of(const Tensor& t, std::string_view op, std::string_view what) {
  if (t.numel() != 1 || t.shape().size() > 1)
    throw ShapeError(
        cat(op, ": ", what, " must be a scalar or a 1-element 1-D tensor, got ", t.desc().str()));
  return t.at(0);
}
inline int64_t int_scalar_of(const Tensor& t, std::string_view op, std::string_view what) {
  scalar_of(t, op, what);
  return to_int64s(t)[0];
}

// Round half to even, as ONNX's quantization ops (numpy.rint) do.
inline double round_half_even(double v) {
  const double r = std::round(v);
  if (std::fabs(v - std::trunc(v)) == 0.5) return 2.0 * std::round(v / 2.0);
  return r;
}

// The value range of an 8-bit quantized dtype.
inline double qmin(DType t) {
  return t == DType::kI8 ? -128.0 : 0.0;
}
inline double qmax(DType t) {
  return t == DType::kI8 ? 127.0 : 255.0;
}
inline double saturate(double v, DType t) {
  return v < qmin(t) ? qmin(t) : (v > qmax(t) ? qmax(t) : v);
}

// An axis attribute resolved against rank (ShapeError naming the op when out of range).
inline int64_t resolve_axis(int64_t axis, int64_t rank, std::string_view op) {
  if (axis < -rank || axis >= rank)
    throw ShapeError(cat(op, ": axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

// Product of dims [from, to).
inline int64_t dims_product(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to && d < s.size(); ++d) n *= s[d];
  return n;
}

// A number for messages: "0.5", "16000" (not std::to_string's "16000.000000").
std::string num(double v);

// A dtype from an ONNX TensorProto.DataType attribute value, checked against `allowed`.
DType dtype_attr(int64_t v, const std::vector<DType>& allowed, std::string_view op,
                 std::string_view attr);

}  // namespace misc
}  // namespace asc

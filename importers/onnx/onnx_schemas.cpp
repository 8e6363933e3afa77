#include "importers/onnx/onnx_schemas.h"

#include <algorithm>

namespace asc {
namespace {

constexpr std::string_view kOnnx = "ai.onnx";

// Read from the ONNX operator changelog. kTypes marks versions whose text differs from the
// previous version's only in the type constraints or in wording that asc already follows
// (Transpose-21: perm has the input's rank; MaxPool-22 / AveragePool-22: a ceil_mode window that
// would start in the end padding is dropped, which ops/nn.cpp's resolve_window does; Squeeze-23 /
// Unsqueeze-23: axes is 1-D). kSemantics: what each such version changed is in docs/ONNX.md.
// clang-format off
constexpr SchemaVersion kSchemas[] = {
    // Opset 18.
    {kOnnx, "BitwiseAnd", 18, SchemaChange::kNew},
    {kOnnx, "BitwiseNot", 18, SchemaChange::kNew},
    {kOnnx, "BitwiseOr", 18, SchemaChange::kNew},
    {kOnnx, "BitwiseXor", 18, SchemaChange::kNew},
    {kOnnx, "CenterCropPad", 18, SchemaChange::kNew},
    {kOnnx, "Col2Im", 18, SchemaChange::kNew},
    {kOnnx, "GroupNormalization", 18, SchemaChange::kNew},
    {kOnnx, "LpPool", 18, SchemaChange::kSemantics},
    {kOnnx, "Mish", 18, SchemaChange::kNew},
    {kOnnx, "OptionalGetElement", 18, SchemaChange::kSemantics},
    {kOnnx, "OptionalHasElement", 18, SchemaChange::kSemantics},
    {kOnnx, "Pad", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceL1", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceL2", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceLogSum", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceLogSumExp", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceMax", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceMean", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceMin", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceProd", 18, SchemaChange::kSemantics},
    {kOnnx, "ReduceSumSquare", 18, SchemaChange::kSemantics},
    {kOnnx, "Resize", 18, SchemaChange::kSemantics},
    {kOnnx, "ScatterElements", 18, SchemaChange::kSemantics},
    {kOnnx, "ScatterND", 18, SchemaChange::kSemantics},
    {kOnnx, "Split", 18, SchemaChange::kSemantics},
    // Opset 19.
    {kOnnx, "AveragePool", 19, SchemaChange::kSemantics},
    {kOnnx, "Cast", 19, SchemaChange::kSemantics},
    {kOnnx, "CastLike", 19, SchemaChange::kSemantics},
    {kOnnx, "Constant", 19, SchemaChange::kTypes},
    {kOnnx, "DeformConv", 19, SchemaChange::kNew},
    {kOnnx, "DequantizeLinear", 19, SchemaChange::kTypes},
    {kOnnx, "Equal", 19, SchemaChange::kTypes},
    {kOnnx, "Identity", 19, SchemaChange::kTypes},
    {kOnnx, "If", 19, SchemaChange::kTypes},
    {kOnnx, "Loop", 19, SchemaChange::kTypes},
    {kOnnx, "Pad", 19, SchemaChange::kSemantics},
    {kOnnx, "QuantizeLinear", 19, SchemaChange::kSemantics},
    {kOnnx, "Reshape", 19, SchemaChange::kTypes},
    {kOnnx, "Resize", 19, SchemaChange::kSemantics},
    {kOnnx, "Scan", 19, SchemaChange::kTypes},
    {kOnnx, "Shape", 19, SchemaChange::kTypes},
    {kOnnx, "Size", 19, SchemaChange::kTypes},
    // Opset 20.
    {kOnnx, "AffineGrid", 20, SchemaChange::kNew},
    {kOnnx, "ConstantOfShape", 20, SchemaChange::kTypes},
    {kOnnx, "DFT", 20, SchemaChange::kSemantics},
    {kOnnx, "Gelu", 20, SchemaChange::kNew},
    {kOnnx, "GridSample", 20, SchemaChange::kSemantics},
    {kOnnx, "ImageDecoder", 20, SchemaChange::kNew},
    {kOnnx, "IsInf", 20, SchemaChange::kTypes},
    {kOnnx, "IsNaN", 20, SchemaChange::kTypes},
    {kOnnx, "ReduceMax", 20, SchemaChange::kTypes},
    {kOnnx, "ReduceMin", 20, SchemaChange::kTypes},
    {kOnnx, "RegexFullMatch", 20, SchemaChange::kNew},
    {kOnnx, "StringConcat", 20, SchemaChange::kNew},
    {kOnnx, "StringSplit", 20, SchemaChange::kNew},
    // Opset 21.
    {kOnnx, "Cast", 21, SchemaChange::kTypes},
    {kOnnx, "CastLike", 21, SchemaChange::kTypes},
    {kOnnx, "Constant", 21, SchemaChange::kTypes},
    {kOnnx, "ConstantOfShape", 21, SchemaChange::kTypes},
    {kOnnx, "DequantizeLinear", 21, SchemaChange::kSemantics},
    {kOnnx, "Flatten", 21, SchemaChange::kTypes},
    {kOnnx, "GroupNormalization", 21, SchemaChange::kSemantics},
    {kOnnx, "Identity", 21, SchemaChange::kTypes},
    {kOnnx, "If", 21, SchemaChange::kTypes},
    {kOnnx, "Loop", 21, SchemaChange::kTypes},
    {kOnnx, "Pad", 21, SchemaChange::kTypes},
    {kOnnx, "QLinearMatMul", 21, SchemaChange::kTypes},
    {kOnnx, "QuantizeLinear", 21, SchemaChange::kSemantics},
    {kOnnx, "Reshape", 21, SchemaChange::kTypes},
    {kOnnx, "Scan", 21, SchemaChange::kTypes},
    {kOnnx, "Shape", 21, SchemaChange::kTypes},
    {kOnnx, "Size", 21, SchemaChange::kTypes},
    {kOnnx, "Squeeze", 21, SchemaChange::kTypes},
    {kOnnx, "Transpose", 21, SchemaChange::kTypes},
    {kOnnx, "Unsqueeze", 21, SchemaChange::kTypes},
    // Opset 22.
    {kOnnx, "Acos", 22, SchemaChange::kTypes},
    {kOnnx, "Acosh", 22, SchemaChange::kTypes},
    {kOnnx, "Asin", 22, SchemaChange::kTypes},
    {kOnnx, "Asinh", 22, SchemaChange::kTypes},
    {kOnnx, "Atan", 22, SchemaChange::kTypes},
    {kOnnx, "Atanh", 22, SchemaChange::kTypes},
    {kOnnx, "AveragePool", 22, SchemaChange::kTypes},
    {kOnnx, "Bernoulli", 22, SchemaChange::kTypes},
    {kOnnx, "Conv", 22, SchemaChange::kTypes},
    {kOnnx, "ConvTranspose", 22, SchemaChange::kTypes},
    {kOnnx, "Cos", 22, SchemaChange::kTypes},
    {kOnnx, "Cosh", 22, SchemaChange::kTypes},
    {kOnnx, "DeformConv", 22, SchemaChange::kTypes},
    {kOnnx, "Det", 22, SchemaChange::kTypes},
    {kOnnx, "Dropout", 22, SchemaChange::kTypes},
    {kOnnx, "Elu", 22, SchemaChange::kTypes},
    {kOnnx, "EyeLike", 22, SchemaChange::kTypes},
    {kOnnx, "GRU", 22, SchemaChange::kTypes},
    {kOnnx, "GlobalAveragePool", 22, SchemaChange::kTypes},
    {kOnnx, "GlobalLpPool", 22, SchemaChange::kTypes},
    {kOnnx, "GlobalMaxPool", 22, SchemaChange::kTypes},
    {kOnnx, "GridSample", 22, SchemaChange::kTypes},
    {kOnnx, "HardSigmoid", 22, SchemaChange::kTypes},
    {kOnnx, "HardSwish", 22, SchemaChange::kTypes},
    {kOnnx, "InstanceNormalization", 22, SchemaChange::kTypes},
    {kOnnx, "LSTM", 22, SchemaChange::kTypes},
    {kOnnx, "LpNormalization", 22, SchemaChange::kTypes},
    {kOnnx, "LpPool", 22, SchemaChange::kTypes},
    {kOnnx, "MaxPool", 22, SchemaChange::kTypes},
    {kOnnx, "MaxRoiPool", 22, SchemaChange::kTypes},
    {kOnnx, "MaxUnpool", 22, SchemaChange::kTypes},
    {kOnnx, "Mish", 22, SchemaChange::kTypes},
    {kOnnx, "Multinomial", 22, SchemaChange::kTypes},
    {kOnnx, "NegativeLogLikelihoodLoss", 22, SchemaChange::kTypes},
    {kOnnx, "RNN", 22, SchemaChange::kTypes},
    {kOnnx, "RandomNormal", 22, SchemaChange::kTypes},
    {kOnnx, "RandomNormalLike", 22, SchemaChange::kTypes},
    {kOnnx, "RandomUniform", 22, SchemaChange::kTypes},
    {kOnnx, "RandomUniformLike", 22, SchemaChange::kTypes},
    {kOnnx, "RoiAlign", 22, SchemaChange::kTypes},
    {kOnnx, "Round", 22, SchemaChange::kTypes},
    {kOnnx, "Selu", 22, SchemaChange::kTypes},
    {kOnnx, "Sin", 22, SchemaChange::kTypes},
    {kOnnx, "Sinh", 22, SchemaChange::kTypes},
    {kOnnx, "Softplus", 22, SchemaChange::kTypes},
    {kOnnx, "Softsign", 22, SchemaChange::kTypes},
    {kOnnx, "Tan", 22, SchemaChange::kTypes},
    {kOnnx, "ThresholdedRelu", 22, SchemaChange::kTypes},
    // Opset 23.
    {kOnnx, "Attention", 23, SchemaChange::kNew},
    {kOnnx, "Cast", 23, SchemaChange::kTypes},
    {kOnnx, "CastLike", 23, SchemaChange::kTypes},
    {kOnnx, "Constant", 23, SchemaChange::kTypes},
    {kOnnx, "ConstantOfShape", 23, SchemaChange::kTypes},
    {kOnnx, "DequantizeLinear", 23, SchemaChange::kSemantics},
    {kOnnx, "Flatten", 23, SchemaChange::kTypes},
    {kOnnx, "Identity", 23, SchemaChange::kTypes},
    {kOnnx, "If", 23, SchemaChange::kTypes},
    {kOnnx, "Loop", 23, SchemaChange::kTypes},
    {kOnnx, "Pad", 23, SchemaChange::kTypes},
    {kOnnx, "QuantizeLinear", 23, SchemaChange::kSemantics},
    {kOnnx, "RMSNormalization", 23, SchemaChange::kNew},
    {kOnnx, "Reshape", 23, SchemaChange::kTypes},
    {kOnnx, "RotaryEmbedding", 23, SchemaChange::kNew},
    {kOnnx, "Scan", 23, SchemaChange::kTypes},
    {kOnnx, "Shape", 23, SchemaChange::kTypes},
    {kOnnx, "Size", 23, SchemaChange::kTypes},
    {kOnnx, "Squeeze", 23, SchemaChange::kTypes},
    {kOnnx, "Transpose", 23, SchemaChange::kTypes},
    {kOnnx, "Unsqueeze", 23, SchemaChange::kTypes},
};
// clang-format on

bool is_onnx(std::string_view domain) {
  return domain.empty() || domain == kOnnx;
}

}  // namespace

std::span<const SchemaVersion> onnx_schemas_after_1_12() {
  return kSchemas;
}

int newest_onnx_opset(std::string_view domain) {
  if (is_onnx(domain)) return 23;
  if (domain == "ai.onnx.ml") return 5;
  if (domain == "ai.onnx.training" || domain == "ai.onnx.preview.training") return 1;
  return 0;
}

int newest_schema_after(std::string_view domain, std::string_view op, int after, int opset) {
  if (!is_onnx(domain)) return 0;
  int newest = 0;
  for (const SchemaVersion& s : kSchemas)
    if (s.op == op && s.since > after && s.since <= opset) newest = std::max(newest, s.since);
  return newest;
}

}  // namespace asc

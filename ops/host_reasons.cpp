// Why an op runs as a host kernel (a C++ function over whole tensors) instead of a tile kernel:
// one reason per op type, grouped by cause. asc-ops --host prints them; tests/ops keep the table
// complete (every host-kernel op has its reason) and current (every name is a registered op).
#include "ops/host_reasons.h"

#include <array>
#include <initializer_list>

namespace asc {
namespace {

struct Group {
  std::string_view reason;
  std::initializer_list<std::string_view> ops;
};

const std::array kGroups = {
    Group{"shape only: the output is the input's bytes under another shape (no copy where the "
          "planner gives it the input's memory)",
          {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}},
    Group{"metadata or constants: computed from shapes or scalar inputs, off the data path",
          {"Shape", "Size", "ConstantOfShape", "Range", "EyeLike"}},
    Group{"output shape known only after the kernel runs (it depends on input values); a tile "
          "program is planned for known shapes",
          {"NonZero", "Unique", "Compress", "NonMaxSuppression"}},
    Group{"addresses taken from the values of an index tensor: a tile's GM boxes are affine in "
          "its coordinates and cannot follow them",
          {"Gather", "GatherElements", "GatherND", "Scatter", "ScatterElements", "ScatterND",
           "OneHot", "MaxUnpool", "ReverseSequence", "Col2Im"}},
    Group{"data movement only (strided memcpy runs, no arithmetic); not yet a DataCopy tile "
          "kernel",
          {"Slice", "Pad", "CenterCropPad", "Trilu"}},
    Group{"positions or ranks as results (arg-reductions, sorting, selection): the DSL's vector "
          "reductions return values, not indices",
          {"ArgMax", "ArgMin", "TopK", "Hardmax"}},
    Group{"control flow: runs subgraphs, planned once as plan steps whose body nodes launch their "
          "own kernels",
          {"If", "Loop", "Scan", "SequenceMap"}},
    Group{"sequence and optional values: lists of tensors, not tensors",
          {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert",
           "SequenceLength", "ConcatFromSequence", "SplitToSequence", "Optional",
           "OptionalGetElement", "OptionalHasElement"}},
    Group{"random numbers from one host generator, so seeded runs repeat exactly (Dropout is the "
          "identity at inference)",
          {"Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform",
           "RandomUniformLike", "Dropout"}},
    Group{"strings: variable-length host objects",
          {"StringConcat", "StringNormalizer", "StringSplit", "RegexFullMatch", "TfIdfVectorizer"}},
    Group{"training: optimizer updates and label-indexed losses",
          {"Adagrad", "Adam", "Momentum", "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}},
    Group{"signal processing: FFTs (no FFT in the DSL) and window / filter-bank generators",
          {"DFT", "STFT", "BlackmanWindow", "HammingWindow", "HannWindow", "MelWeightMatrix"}},
    Group{"integer (quantized) arithmetic not yet on the integer cube or the vector unit",
          {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"}},
    Group{"recurrences: a host loop over time steps that launches tile programs (weights' "
          "Transposes, the projection Gemm, one RnnStep per step; ops/rnn_tile.cpp); f64 computes "
          "on the host",
          {"RNN", "GRU", "LSTM"}},
    Group{"interpolation as tile programs: the host makes each resized dim's interpolation matrix "
          "from the shapes, attributes and scales / sizes / roi values and launches one banded "
          "ResizeAxis matmul per dim (ops/resize_tile.cpp); integer and f64 data interpolate on "
          "the host",
          {"Resize", "Upsample"}},
    Group{"contraction as tile programs: the host plans EinsumPrep (diagonals, sums of labels one "
          "input alone has, permutes), Transpose and batched EinsumMatMul launches over strided "
          "views of the inputs (ops/einsum_tile.cpp); f64 and integer data, an empty input, views "
          "that keep more than 8 dims apart (a GM box's most) and a context without "
          "launch_program compute on the host",
          {"Einsum"}},
    Group{"not yet a tile kernel (a host loop): data-dependent sampling and pooling",
          {"GridSample", "AffineGrid", "RoiAlign", "MaxRoiPool"}},
    Group{"bitwise integer logic: the DSL's vector instructions have no bitwise ops yet",
          {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"}},
    Group{"not yet a tile kernel (a host loop)",
          {"CumSum", "Det", "Attention", "GroupQueryAttention", "RotaryEmbedding"}},
};

}  // namespace

std::string_view host_kernel_reason(std::string_view op_type) {
  for (const Group& g : kGroups)
    for (std::string_view op : g.ops)
      if (op == op_type) return g.reason;
  return {};
}

std::vector<std::string_view> host_reason_ops() {
  std::vector<std::string_view> all;
  for (const Group& g : kGroups) all.insert(all.end(), g.ops.begin(), g.ops.end());
  return all;
}

}  // namespace asc

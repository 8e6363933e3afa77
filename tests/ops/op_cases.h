// One case table drives the op tests (vs the naive reference), the tiling-invariance tests and
// the registry self-check (every op has a case). Each family contributes its own cases.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "registry/attr.h"
#include "registry/tensor.h"

namespace asc::test {

// How to fill one input.
struct InputSpec {
  DType dtype = DType::kF32;
  Shape shape;
  double lo = -2.0, hi = 2.0;     // uniform range
  bool integral = false;          // round values to integers
  const Tensor* fixed = nullptr;  // use these values instead (not owned)
};

struct OpCase {
  OpCase(std::string op_, int opset_, std::vector<InputSpec> inputs_, Attrs attrs_ = {},
         std::string label_ = "")
      : op(std::move(op_)),
        opset(opset_),
        inputs(std::move(inputs_)),
        attrs(std::move(attrs_)),
        label(std::move(label_)) {}

  std::string op;
  std::string domain;  // "" is ai.onnx; e.g. "ai.onnx.preview.training"
  int opset = 17;
  std::vector<InputSpec> inputs;
  Attrs attrs;
  double atol = -1, rtol = -1;  // < 0: defaults for the output dtype
  size_t num_outputs = 0;       // outputs the node has (0: all the op declares)
  std::string label;            // extra name part, e.g. "transB"

  // "Add/f32/[3,1,5]x[4,5]" (+ "/label")
  std::string name() const;
};

inline void PrintTo(const OpCase& c, std::ostream* os) {
  *os << c.name();
}

// Shorthands.
InputSpec in(DType dt, Shape shape, double lo = -2.0, double hi = 2.0);
InputSpec in_int(DType dt, Shape shape, double lo, double hi);
// An input with fixed values (shape-like inputs: axes, shapes, pads, indices); the tensor lives as
// long as the case table. `shape` defaults to [values.size()].
InputSpec fixed_i64(const std::vector<int64_t>& values, std::optional<Shape> shape = std::nullopt);
InputSpec fixed_tensor(Tensor t);
// An absent optional input.
InputSpec absent();

std::vector<OpCase> cases_elementwise();
std::vector<OpCase> cases_matmul();
std::vector<OpCase> cases_softmax();
std::vector<OpCase> cases_reduce();
std::vector<OpCase> cases_transpose();
std::vector<OpCase> cases_movement();
std::vector<OpCase> cases_indexing();
std::vector<OpCase> cases_normalization();
std::vector<OpCase> cases_nn();
std::vector<OpCase> cases_activations();
std::vector<OpCase> cases_logical();
std::vector<OpCase> cases_reduce_more();
std::vector<OpCase> cases_misc();
std::vector<OpCase> cases_contrib();
std::vector<OpCase> cases_attention();
std::vector<OpCase> cases_fused();
std::vector<OpCase> cases_sequence();  // sequences and optionals (cases_sequence.cpp)
std::vector<OpCase> cases_legacy();    // the oldest versions of ops (cases_legacy.cpp)

const std::vector<OpCase>& all_op_cases();

// Seeded inputs for a case (seed derived from the case name).
std::vector<Tensor> make_inputs(const OpCase& c);

// Compares dtype, shape, then values; returns "" when equal within tolerance, else a message
// naming the first bad element.
std::string compare(const Tensor& got, const Tensor& want, double atol, double rtol);
void default_tolerance(DType dt, double& atol, double& rtol);

// A parameterised test's name for case `info.param`: its index and name, other characters as '_'.
inline std::string case_name(const ::testing::TestParamInfo<OpCase>& info) {
  std::string n = std::to_string(info.index) + "_" + info.param.name();
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

}  // namespace asc::test

// The ONNX backend-test comparison rule, shared by asc-conformance and its tests.
//
// A result matches its expected tensor when the dtypes and shapes are equal and every element
// matches: floats (f16, bf16, f32, f64) when |got - want| <= atol + rtol * |want|, NaN matches
// only NaN, and an infinity only the same infinity; integers and bool bit-exactly. Sequences and
// optionals match when they hold as many elements and each element matches.
#pragma once

#include <cstdint>
#include <string>

#include "registry/tensor.h"

namespace asc::conformance {

// The official tolerances of the ONNX backend tests.
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct Comparison {
  bool ok = true;
  std::string reason;      // one line when !ok: what differs, the worst element and the errors
  int64_t mismatches = 0;  // elements outside the tolerance
  int64_t worst = -1;      // flat index of the element with the largest excess over tolerance
  double max_abs_err = 0;  // largest |got - want| over elements where both are finite
  double max_rel_err = 0;  // largest |got - want| / |want| over finite, non-zero want
};

// Compares `got` with `want` by the rule above.
Comparison compare_tensors(const Tensor& got, const Tensor& want, Tolerance tol = {});

}  // namespace asc::conformance

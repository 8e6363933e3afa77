// asc-run --emit-ascendc DIR: the Ascend C source of every kernel of a model's plan (planned for
// the 910B spec), a host stub per kernel, a CMake project for CANN and a README (docs/ASCENDC.md).
#pragma once

#include <string>
#include <vector>

#include "runtime/model.h"

namespace asc {

// Plans `model` for `inputs` under ascend910b() and writes DIR; returns the README text.
std::string emit_ascendc_dir(const Model& model, const std::vector<NamedTensor>& inputs,
                             const std::string& dir);

}  // namespace asc

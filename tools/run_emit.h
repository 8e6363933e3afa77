// asc-run --emit-ascendc DIR: the Ascend C source of every kernel one run of a model launches
// (planned for the 910B spec), a host stub per kernel, a CMake project for CANN and a README
// (docs/ASCENDC.md).
#pragma once

#include <string>
#include <vector>

#include "runtime/model.h"

namespace asc {

// Runs `model` (planned for ascend910b(): device sim:910b or ascend) once on `inputs` and writes
// DIR with every distinct program launched — the plan's, a dynamic plan's and those of
// control-flow bodies; returns the README text. A model planned for another spec: Error.
std::string emit_ascendc_dir(const Model& model, const std::vector<NamedTensor>& inputs,
                             const std::string& dir);

}  // namespace asc

// Small parsers shared by the command-line tools.
#pragma once

#include <string>

#include "registry/attr.h"
#include "registry/shape.h"

namespace asc::cli {

// "f32[2,3]", "bf16[128,896]", "[4]", "2x3" (f32), "f32[]" (scalar).
TensorDesc parse_tensor_desc(const std::string& s);
// "axis=1", "perm=0,2,1", "alpha=0.5", "mode=constant".
void parse_attr(const std::string& s, Attrs& attrs);

}  // namespace asc::cli

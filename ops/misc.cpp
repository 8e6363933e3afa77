// Quantization, signal processing, detection, random, training-domain and text ops; each group
// lives in its own ops/misc_*.cpp file and is registered from here.
#include "ops/misc.h"

#include <cstdio>

#include "ops/ops.h"

namespace asc {

namespace misc {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

DType dtype_attr(int64_t v, const std::vector<DType>& allowed, std::string_view op,
                 std::string_view attr) {
  for (DType t : allowed)
    if (static_cast<int64_t>(t) == v) return t;
  std::string names;
  for (DType t : allowed) names += cat(names.empty() ? "" : ", ", dtype_name(t));
  throw ShapeError(
      cat(op, ": attribute '", attr, "' is data type ", v, ", expected one of {", names, "}"));
}

}  // namespace misc

void register_misc(Registry& r) {
  register_misc_quant(r);
  register_misc_signal(r);
  register_misc_detect(r);
  register_misc_random(r);
  register_misc_training(r);
  register_misc_text(r);
  register_misc_strings(r);
}

}  // namespace asc

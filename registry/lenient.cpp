#include "registry/lenient.h"

#include <spdlog/spdlog.h>

namespace asc {

void log_lenient(std::string_view op, int since, std::string_view what) {
  spdlog::debug("{}-{}: {} (the spec forbids it; accepted as ONNX Runtime does)", op, since, what);
}

}  // namespace asc

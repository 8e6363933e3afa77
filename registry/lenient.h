// ONNX Runtime's leniency: inputs the ONNX spec's letter forbids that ONNX Runtime accepts and
// real exporters write (negative axes in the opset < 11 forms of the Reduce ops, ArgMax, ...).
// asc accepts them too and says so on a debug-level log line; docs/ONNX.md lists every case.
#pragma once

#include <string_view>

namespace asc {

// Logs "<op>-<since>: <what> (the spec forbids it; accepted as ONNX Runtime does)" at debug level.
void log_lenient(std::string_view op, int since, std::string_view what);

}  // namespace asc

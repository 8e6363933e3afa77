// Why an op type runs as a host kernel rather than a tile kernel (ops/host_reasons.cpp).
#pragma once

#include <string_view>
#include <vector>

namespace asc {

// The reason for `op_type` (an ONNX or contrib op type), or "" when it has none listed.
std::string_view host_kernel_reason(std::string_view op_type);

// Every op type the table lists.
std::vector<std::string_view> host_reason_ops();

}  // namespace asc

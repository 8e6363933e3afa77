// TensorProto files (.pb), the layout of ONNX test data (test_data_set_N/input_K.pb): read one
// into a Tensor, write a Tensor as one.
#pragma once

#include <string>

#include "registry/tensor.h"

namespace asc {

// Reads a serialized TensorProto. Stores the proto's name in `*name` when given. External data,
// if any, resolves relative to the file's folder. Throws ModelError naming the path.
Tensor read_tensor_proto_file(const std::string& path, std::string* name = nullptr);

// Writes `t` as a TensorProto with raw_data (little-endian). Throws Error naming the path.
void write_tensor_proto_file(const std::string& path, const std::string& name, const Tensor& t);

}  // namespace asc

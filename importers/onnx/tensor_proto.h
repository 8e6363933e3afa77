// TensorProto files (.pb), the layout of ONNX test data (test_data_set_N/input_K.pb): read one
// into a Tensor, write a Tensor as one; SequenceProto and OptionalProto files read likewise.
#pragma once

#include <string>

#include "registry/tensor.h"

namespace asc {

// Reads a serialized TensorProto. Stores the proto's name in `*name` when given. External data,
// if any, resolves relative to the file's folder. Throws ModelError naming the path.
Tensor read_tensor_proto_file(const std::string& path, std::string* name = nullptr);

// Reads a value of kind `kind`: a SequenceProto for DType::kSequence, an OptionalProto for
// DType::kOptional (the test data of sequence and optional graph values), else a TensorProto.
// Errors as read_tensor_proto_file.
Tensor read_value_proto_file(const std::string& path, DType kind, std::string* name = nullptr);

// Writes `t` as a TensorProto with raw_data (little-endian). Throws Error naming the path;
// UnsupportedError for a sequence or optional.
void write_tensor_proto_file(const std::string& path, const std::string& name, const Tensor& t);

// Writes a tensor as a TensorProto, a sequence as a SequenceProto, an optional as an
// OptionalProto. Throws as write_tensor_proto_file.
void write_value_proto_file(const std::string& path, const std::string& name, const Tensor& t);

}  // namespace asc

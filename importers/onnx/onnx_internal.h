// Internals shared by the importer's files; the only header that includes the ONNX protobuf
// classes. Not part of the public API.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "registry/attr.h"
#include "registry/shape.h"
#include "registry/tensor.h"

namespace asc::onnx_import {

// Largest element count a tensor may claim (2^40); larger is refused before any allocation.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// A whole file mapped read-only (MAP_PRIVATE, PROT_READ); unmapped when the last owner goes.
// An empty file has data() == nullptr and size() == 0.
class MappedFile {
 public:
  // Throws ModelError "cannot open '<path>': <reason>" (also for a directory or device).
  static std::shared_ptr<MappedFile> open(const std::string& path);
  // `size` zero bytes, read-only, backed by no file (pages cost nothing until read).
  static std::shared_ptr<MappedFile> zeros(size_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile() = default;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Resolves TensorProto external data against one model folder. Each file is mapped once and
// shared by all tensors stored in it; a tensor views its bytes inside the mapping.
class ExternalData {
 public:
  // An empty base_dir refuses every external tensor. `shape_only`: ImportOptions'
  // shape_only_weights (no file is opened; tensors view zero pages).
  explicit ExternalData(std::string base_dir, bool shape_only = false);
  Tensor load(const onnx::TensorProto& tp, DType dtype, const Shape& shape);

 private:
  std::filesystem::path resolve(const std::string& tensor, const std::string& location) const;

  std::string base_dir_;
  bool shape_only_ = false;
  std::filesystem::path base_canon_;  // canonical base_dir (symlinks resolved)
  std::map<std::string, std::shared_ptr<MappedFile>> files_;  // canonical path -> mapping
};

// ONNX TensorProto.DataType -> DType. ModelError for an unknown code; UnsupportedError for
// string and complex tensors. `what` names the tensor or value for the message.
DType dtype_from_onnx(int32_t code, const std::string& what);

// Checked dims: no negative dim, element count <= kMaxElements without overflow.
Shape dims_from_proto(const onnx::TensorProto& tp);

// TensorProto -> Tensor. raw_data is moved out of `tp` and viewed in place when aligned.
// `ext` == nullptr refuses external data.
Tensor tensor_from_proto(onnx::TensorProto& tp, ExternalData* ext);

// AttributeProto -> AttrValue; nullopt with `*unsupported` set for kinds asc cannot hold yet
// (graphs, sparse tensors, type protos).
std::optional<AttrValue> attr_from_proto(onnx::AttributeProto& a, ExternalData* ext,
                                         std::string* unsupported);

// TypeProto -> TensorType; nullopt with `*unsupported` set for non-tensor types.
std::optional<TensorType> type_from_proto(const onnx::TypeProto& t, const std::string& what,
                                          std::string* unsupported);

// Parses a serialized message with protobuf's 2 GB total-bytes limit (not the 64 MB default).
bool parse_message(google::protobuf::MessageLite& m, const void* data, size_t size);

// Tensor -> TensorProto (dtype, dims, raw_data or string_data; the name is left to the caller).
void tensor_to_proto(const Tensor& t, onnx::TensorProto& tp);
// Writes a message to `path`; throws Error "cannot write '<path>'".
void write_message(const std::string& path, const google::protobuf::MessageLite& m);

}  // namespace asc::onnx_import

// SequenceProto and OptionalProto files: the test data of sequence and optional values, read and
// written.
#include <onnx/onnx-data_pb.h>

#include <filesystem>

#include "importers/onnx/onnx_internal.h"
#include "importers/onnx/tensor_proto.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

using onnx_import::ExternalData;

Tensor optional_from_proto(onnx::OptionalProto& op, ExternalData* ext);

Tensor sequence_from_proto(onnx::SequenceProto& sp, ExternalData* ext) {
  std::vector<Tensor> items;
  DType elem = DType::kUndefined;
  switch (sp.elem_type()) {
    case onnx::SequenceProto::TENSOR:
      for (auto& tp : *sp.mutable_tensor_values())
        items.push_back(onnx_import::tensor_from_proto(tp, ext));
      if (!items.empty()) elem = items[0].dtype();
      break;
    case onnx::SequenceProto::SEQUENCE:
      for (auto& s : *sp.mutable_sequence_values()) items.push_back(sequence_from_proto(s, ext));
      elem = DType::kSequence;
      break;
    case onnx::SequenceProto::OPTIONAL:
      for (auto& o : *sp.mutable_optional_values()) items.push_back(optional_from_proto(o, ext));
      elem = DType::kOptional;
      break;
    default:
      throw UnsupportedError(cat("sequence '", sp.name(), "' of elem_type ", sp.elem_type(),
                                 ": only tensors, sequences and optionals are supported"));
  }
  for (const Tensor& t : items)
    if (t.dtype() != elem)
      throw ModelError(cat("sequence '", sp.name(), "' mixes ", dtype_name(elem), " and ",
                           dtype_name(t.dtype()), " elements"));
  return Tensor::sequence(elem, std::move(items));
}

Tensor optional_from_proto(onnx::OptionalProto& op, ExternalData* ext) {
  switch (op.elem_type()) {
    case onnx::OptionalProto::TENSOR:
      if (!op.has_tensor_value()) return Tensor::optional(DType::kUndefined, std::nullopt);
      {
        Tensor t = onnx_import::tensor_from_proto(*op.mutable_tensor_value(), ext);
        const DType dt = t.dtype();
        return Tensor::optional(dt, std::move(t));
      }
    case onnx::OptionalProto::SEQUENCE:
      if (!op.has_sequence_value()) return Tensor::optional(DType::kSequence, std::nullopt);
      return Tensor::optional(DType::kSequence,
                              sequence_from_proto(*op.mutable_sequence_value(), ext));
    case onnx::OptionalProto::UNDEFINED:
      return Tensor::optional(DType::kUndefined, std::nullopt);
    default:
      throw UnsupportedError(cat("optional '", op.name(), "' of elem_type ", op.elem_type(),
                                 ": only tensors and sequences are supported"));
  }
}

void sequence_to_proto(const Tensor& t, onnx::SequenceProto& sp);

void optional_to_proto(const Tensor& t, onnx::OptionalProto& op) {
  const TensorList& l = *t.list();
  if (l.elem == DType::kSequence) {
    op.set_elem_type(onnx::OptionalProto::SEQUENCE);
    if (!l.items.empty()) sequence_to_proto(l.items[0], *op.mutable_sequence_value());
    return;
  }
  if (l.elem == DType::kOptional)
    throw UnsupportedError("an optional of an optional has no OptionalProto form");
  op.set_elem_type(onnx::OptionalProto::TENSOR);
  if (!l.items.empty()) onnx_import::tensor_to_proto(l.items[0], *op.mutable_tensor_value());
}

void sequence_to_proto(const Tensor& t, onnx::SequenceProto& sp) {
  const TensorList& l = *t.list();
  if (l.elem == DType::kSequence) {
    sp.set_elem_type(onnx::SequenceProto::SEQUENCE);
    for (const Tensor& item : l.items) sequence_to_proto(item, *sp.add_sequence_values());
  } else if (l.elem == DType::kOptional) {
    sp.set_elem_type(onnx::SequenceProto::OPTIONAL);
    for (const Tensor& item : l.items) optional_to_proto(item, *sp.add_optional_values());
  } else {
    sp.set_elem_type(onnx::SequenceProto::TENSOR);
    for (const Tensor& item : l.items) onnx_import::tensor_to_proto(item, *sp.add_tensor_values());
  }
}

}  // namespace

void write_value_proto_file(const std::string& path, const std::string& name, const Tensor& t) {
  if (t.dtype() == DType::kSequence) {
    onnx::SequenceProto sp;
    sp.set_name(name);
    sequence_to_proto(t, sp);
    return onnx_import::write_message(path, sp);
  }
  if (t.dtype() == DType::kOptional) {
    onnx::OptionalProto op;
    op.set_name(name);
    try {
      optional_to_proto(t, op);
    } catch (const UnsupportedError& e) {
      throw UnsupportedError(cat(path, ": ", e.what()));
    }
    return onnx_import::write_message(path, op);
  }
  write_tensor_proto_file(path, name, t);
}

Tensor read_value_proto_file(const std::string& path, DType kind, std::string* name) {
  if (kind != DType::kSequence && kind != DType::kOptional)
    return read_tensor_proto_file(path, name);
  try {
    const auto file = onnx_import::MappedFile::open(path);
    const auto dir = std::filesystem::path(path).parent_path();
    ExternalData ext(dir.empty() ? std::string(".") : dir.string());
    if (kind == DType::kSequence) {
      onnx::SequenceProto sp;
      if (!onnx_import::parse_message(sp, file->data(), file->size()))
        throw ModelError("not a valid SequenceProto (protobuf parse failed)");
      if (name) *name = sp.name();
      return sequence_from_proto(sp, &ext);
    }
    onnx::OptionalProto op;
    if (!onnx_import::parse_message(op, file->data(), file->size()))
      throw ModelError("not a valid OptionalProto (protobuf parse failed)");
    if (name) *name = op.name();
    return optional_from_proto(op, &ext);
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(cat(path, ": ", e.what()));
  } catch (const Error& e) {
    throw ModelError(cat(path, ": ", e.what()));
  }
}

}  // namespace asc

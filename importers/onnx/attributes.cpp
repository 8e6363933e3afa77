// AttributeProto -> AttrValue and TypeProto -> TensorType.
#include "importers/onnx/onnx_internal.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc::onnx_import {
namespace {

using AP = onnx::AttributeProto;

// Old exporters leave `type` UNDEFINED; the one populated field then tells the kind.
AP::AttributeType kind_of(const AP& a) {
  if (a.type() != AP::UNDEFINED) return a.type();
  if (a.has_f()) return AP::FLOAT;
  if (a.has_i()) return AP::INT;
  if (a.has_s()) return AP::STRING;
  if (a.has_t()) return AP::TENSOR;
  if (a.has_g()) return AP::GRAPH;
  if (a.floats_size()) return AP::FLOATS;
  if (a.ints_size()) return AP::INTS;
  if (a.strings_size()) return AP::STRINGS;
  if (a.tensors_size()) return AP::TENSORS;
  if (a.graphs_size()) return AP::GRAPHS;
  return AP::UNDEFINED;
}

// A TypeProto attribute as a string: "tensor(f32)", "seq(tensor(i64))", "optional(...)"; empty
// (and *why set) for the kinds asc does not hold.
std::string type_string(const onnx::TypeProto& t, std::string* why) {
  switch (t.value_case()) {
    case onnx::TypeProto::kTensorType:
      try {
        return cat("tensor(", dtype_name(dtype_from_onnx(t.tensor_type().elem_type(), "type")),
                   ")");
      } catch (const Error& e) {
        *why = e.what();
        return "";
      }
    case onnx::TypeProto::kSequenceType: {
      const std::string e = type_string(t.sequence_type().elem_type(), why);
      return e.empty() ? e : cat("seq(", e, ")");
    }
    case onnx::TypeProto::kOptionalType: {
      const std::string e = type_string(t.optional_type().elem_type(), why);
      return e.empty() ? e : cat("optional(", e, ")");
    }
    default:
      *why = "only tensor, sequence and optional types are supported";
      return "";
  }
}

}  // namespace

std::optional<AttrValue> attr_from_proto(AP& a, ExternalData* ext, std::string* unsupported) {
  switch (kind_of(a)) {
    case AP::FLOAT:
      return AttrValue(a.f());
    case AP::INT:
      return AttrValue(static_cast<int64_t>(a.i()));
    case AP::STRING:
      return AttrValue(a.s());
    case AP::FLOATS:
      return AttrValue(std::vector<float>(a.floats().begin(), a.floats().end()));
    case AP::INTS:
      return AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case AP::STRINGS:
      return AttrValue(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case AP::TENSOR: {
      onnx::TensorProto& tp = *a.mutable_t();
      if (tp.name().empty()) tp.set_name(cat("attribute ", a.name()));
      try {
        return AttrValue(tensor_from_proto(tp, ext));
      } catch (const UnsupportedError& e) {
        *unsupported = e.what();
        return std::nullopt;
      }
    }
    case AP::TYPE_PROTO: {
      std::string why;
      std::string type = type_string(a.tp(), &why);
      if (type.empty()) {
        *unsupported = cat("attribute '", a.name(), "': ", why);
        return std::nullopt;
      }
      return AttrValue(std::move(type));
    }
    case AP::GRAPH:
    case AP::GRAPHS:
      *unsupported =
          cat("attribute '", a.name(), "' holds a graph (control flow is not supported yet)");
      return std::nullopt;
    case AP::UNDEFINED:
      throw ModelError(cat("attribute '", a.name(), "' has no value"));
    default:
      *unsupported = cat("attribute '", a.name(), "' is of kind ",
                         AP::AttributeType_Name(kind_of(a)), ", which asc does not hold yet");
      return std::nullopt;
  }
}

std::optional<TensorType> type_from_proto(const onnx::TypeProto& t, const std::string& what,
                                          std::string* unsupported) {
  if (t.value_case() == onnx::TypeProto::VALUE_NOT_SET) return TensorType{};
  // Sequences and optionals are host objects of rank 0; their elements' types are checked by the
  // ops that read them.
  if (t.value_case() == onnx::TypeProto::kSequenceType)
    return TensorType{DType::kSequence, SymShape{}};
  if (t.value_case() == onnx::TypeProto::kOptionalType)
    return TensorType{DType::kOptional, SymShape{}};
  if (t.value_case() != onnx::TypeProto::kTensorType) {
    *unsupported = cat(what,
                       " is not a tensor, sequence or optional (map and sparse values are "
                       "not supported yet)");
    return std::nullopt;
  }
  const auto& tt = t.tensor_type();
  TensorType r;
  switch (tt.elem_type()) {
    case onnx::TensorProto::UNDEFINED:
      break;
    case onnx::TensorProto::STRING:
      r.dtype = DType::kString;
      break;
    default:
      try {
        r.dtype = dtype_from_onnx(tt.elem_type(), what);
      } catch (const UnsupportedError& e) {
        *unsupported = e.what();
        return std::nullopt;
      }
  }
  if (tt.has_shape()) {
    SymShape s;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() >= 0)
        s.emplace_back(static_cast<int64_t>(d.dim_value()));
      else if (d.has_dim_param() && !d.dim_param().empty())
        s.emplace_back(d.dim_param());
      else
        s.emplace_back();  // unknown: no value, no name (exporters also write -1 here)
    }
    r.shape = std::move(s);
  }
  return r;
}

}  // namespace asc::onnx_import

// TensorProto <-> Tensor: dtype and dims checks, inline data (raw_data or the typed fields),
// external data through ExternalData, and the .pb file helpers of tensor_proto.h.
#include "importers/onnx/tensor_proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <bit>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "importers/onnx/onnx_internal.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc::onnx_import {

static_assert(std::endian::native == std::endian::little,
              "raw_data is little-endian and is viewed in place");

namespace {

std::string label(const onnx::TensorProto& tp) {
  return tp.name().empty() ? std::string("<unnamed>") : tp.name();
}

// Copies a typed repeated field into `t`, converting each value to the storage type `Dst`.
// int32_data holds f16/bf16 as their 16-bit patterns, hence the plain integer narrowing.
template <typename Dst, typename Field>
void fill_typed(Tensor& t, const Field& f) {
  Dst* out = t.data_as<Dst>();
  for (int i = 0; i < f.size(); ++i) {
    if constexpr (std::is_same_v<Dst, bool>)
      out[i] = f.Get(i) != 0;
    else
      out[i] = static_cast<Dst>(f.Get(i));
  }
}

// The typed field a dtype is stored in when raw_data is absent, and its value count.
std::pair<const char*, int> typed_field(const onnx::TensorProto& tp, DType dt) {
  switch (dt) {
    case DType::kF32:
      return {"float_data", tp.float_data_size()};
    case DType::kF64:
      return {"double_data", tp.double_data_size()};
    case DType::kI64:
      return {"int64_data", tp.int64_data_size()};
    case DType::kU32:
    case DType::kU64:
      return {"uint64_data", tp.uint64_data_size()};
    default:
      return {"int32_data", tp.int32_data_size()};
  }
}

void fill_from_typed(Tensor& t, const onnx::TensorProto& tp) {
  switch (t.dtype()) {
    case DType::kF32:
      return fill_typed<float>(t, tp.float_data());
    case DType::kF64:
      return fill_typed<double>(t, tp.double_data());
    case DType::kI64:
      return fill_typed<int64_t>(t, tp.int64_data());
    case DType::kU32:
      return fill_typed<uint32_t>(t, tp.uint64_data());
    case DType::kU64:
      return fill_typed<uint64_t>(t, tp.uint64_data());
    case DType::kI32:
      return fill_typed<int32_t>(t, tp.int32_data());
    case DType::kI16:
      return fill_typed<int16_t>(t, tp.int32_data());
    case DType::kI8:
      return fill_typed<int8_t>(t, tp.int32_data());
    case DType::kU16:
    case DType::kF16:
    case DType::kBF16:
      return fill_typed<uint16_t>(t, tp.int32_data());
    case DType::kU8:
      return fill_typed<uint8_t>(t, tp.int32_data());
    case DType::kBool:
      return fill_typed<bool>(t, tp.int32_data());
    default:
      throw ModelError(cat("tensor '", label(tp), "': no typed field for ", dtype_name(t.dtype())));
  }
}

}  // namespace

DType dtype_from_onnx(int32_t code, const std::string& what) {
  switch (code) {
    case onnx::TensorProto::STRING:
      return DType::kString;
    case onnx::TensorProto::COMPLEX64:
    case onnx::TensorProto::COMPLEX128:
      throw UnsupportedError(cat(what, ": complex tensors are not supported"));
    default:
      break;
  }
  // TensorProto.DataType values newer than ONNX 1.12's protobuf (opsets 19, 21 and 23).
  // (21 and 22, uint4 and int4, are asc dtypes.)
  static const char* const kLater[] = {"float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
                                       "float8e5m2fnuz", "float4e2m1"};
  if (code >= 17 && code <= 20)
    throw UnsupportedError(cat(what, ": ", kLater[code - 17], " tensors are not supported"));
  if (code == 23) throw UnsupportedError(cat(what, ": ", kLater[4], " tensors are not supported"));
  const auto dt = static_cast<DType>(code);
  if (code <= 0 || code > 255 || dtype_size(dt) == 0)
    throw ModelError(cat(what, ": unknown or undefined data_type ", code));
  return dt;
}

Shape dims_from_proto(const onnx::TensorProto& tp) {
  Shape s(tp.dims().begin(), tp.dims().end());
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0)
      throw ModelError(
          cat("tensor '", label(tp), "': negative dim ", d, " in dims ", to_string(s)));
    if (d > kMaxElements || (d != 0 && n > kMaxElements / d))
      throw ModelError(
          cat("tensor '", label(tp), "': dims ", to_string(s), " hold more than 2^40 elements"));
    n *= d;
  }
  return s;
}

namespace {

bool is_4bit(DType t) {
  return t == DType::kInt4 || t == DType::kUInt4;
}

// Two 4-bit elements per byte, element 2k in the low nibble: one element per byte in the result
// (i4 sign-extended).
Tensor unpack_4bit(DType dt, const Shape& shape, const uint8_t* packed) {
  Tensor t(dt, shape);
  auto* out = static_cast<uint8_t*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint8_t v = (packed[i / 2] >> (4 * (i % 2))) & 0xf;
    if (dt == DType::kInt4 && (v & 0x8)) v |= 0xf0;
    out[i] = v;
  }
  return t;
}

// A TensorProto with a 4-bit data_type: raw_data or external data of ceil(n / 2) bytes.
Tensor tensor_4bit_from_proto(onnx::TensorProto& tp, ExternalData* ext, DType dt,
                              const Shape& shape) {
  const int64_t bytes = (numel(shape) + 1) / 2;
  if (tp.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!ext) throw ModelError(cat("tensor '", label(tp), "': external data is not allowed here"));
    const Tensor packed = ext->load(tp, DType::kU8, {bytes});
    return unpack_4bit(dt, shape, static_cast<const uint8_t*>(packed.data()));
  }
  if (!tp.has_raw_data())
    throw UnsupportedError(cat("tensor '", label(tp), "': ", dtype_name(dt),
                               " values are read from raw_data or external data only"));
  if (tp.raw_data().size() != static_cast<size_t>(bytes))
    throw ModelError(cat("tensor '", label(tp), "': raw_data has ", tp.raw_data().size(),
                         " bytes, but ", dtype_name(dt), to_string(shape), " packs into ", bytes));
  return unpack_4bit(dt, shape, reinterpret_cast<const uint8_t*>(tp.raw_data().data()));
}

}  // namespace

Tensor tensor_from_proto(onnx::TensorProto& tp, ExternalData* ext) {
  const DType dt = dtype_from_onnx(tp.data_type(), cat("tensor '", label(tp), "'"));
  const Shape shape = dims_from_proto(tp);
  if (is_4bit(dt)) return tensor_4bit_from_proto(tp, ext, dt, shape);
  const size_t need = static_cast<size_t>(numel(shape)) * dtype_size(dt);

  if (dt == DType::kString) {  // only string_data can hold strings
    if (tp.data_location() == onnx::TensorProto::EXTERNAL || tp.has_raw_data())
      throw ModelError(cat("tensor '", label(tp),
                           "': string tensors keep their values in "
                           "string_data, not raw or external data"));
    if (tp.string_data_size() != numel(shape))
      throw ModelError(cat("tensor '", label(tp), "': string", to_string(shape), " needs ",
                           numel(shape), " values, but string_data holds ", tp.string_data_size()));
    Tensor t(dt, shape);
    for (int i = 0; i < tp.string_data_size(); ++i) t.strings()[i] = tp.string_data(i);
    return t;
  }
  if (tp.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!ext) throw ModelError(cat("tensor '", label(tp), "': external data is not allowed here"));
    return ext->load(tp, dt, shape);
  }

  if (tp.has_raw_data()) {
    if (tp.raw_data().size() != need)
      throw ModelError(cat("tensor '", label(tp), "': raw_data has ", tp.raw_data().size(),
                           " bytes, but ", dtype_name(dt), to_string(shape), " needs ", need));
    if (need == 0) return Tensor(dt, shape);
    // Take the bytes out of the proto: the tensor views them (no second copy) when aligned.
    std::shared_ptr<std::string> bytes(tp.release_raw_data());
    if (reinterpret_cast<uintptr_t>(bytes->data()) % dtype_size(dt) == 0)
      return Tensor::view(dt, shape, bytes->data(), bytes);
    Tensor t(dt, shape);
    std::memcpy(t.data(), bytes->data(), need);
    return t;
  }

  const auto [field, count] = typed_field(tp, dt);
  if (count != numel(shape))
    throw ModelError(cat("tensor '", label(tp), "': ", dtype_name(dt), to_string(shape), " needs ",
                         numel(shape), " values, but ", field, " holds ", count));
  Tensor t(dt, shape);
  if (count > 0) fill_from_typed(t, tp);
  return t;
}

bool parse_message(google::protobuf::MessageLite& m, const void* data, size_t size) {
  if (size > static_cast<size_t>(INT_MAX)) return false;
  google::protobuf::io::ArrayInputStream in(data, static_cast<int>(size));
  google::protobuf::io::CodedInputStream cis(&in);
  cis.SetTotalBytesLimit(INT_MAX);
  return m.ParseFromCodedStream(&cis) && cis.ConsumedEntireMessage();
}

}  // namespace asc::onnx_import

namespace asc {

Tensor read_tensor_proto_file(const std::string& path, std::string* name) {
  using namespace onnx_import;
  try {
    const auto file = MappedFile::open(path);
    onnx::TensorProto tp;
    if (!parse_message(tp, file->data(), file->size()))
      throw ModelError("not a valid TensorProto (protobuf parse failed)");
    const auto dir = std::filesystem::path(path).parent_path();
    ExternalData ext(dir.empty() ? std::string(".") : dir.string());
    if (name) *name = tp.name();
    return tensor_from_proto(tp, &ext);
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(cat(path, ": ", e.what()));
  } catch (const Error& e) {
    throw ModelError(cat(path, ": ", e.what()));
  }
}

void onnx_import::tensor_to_proto(const Tensor& t, onnx::TensorProto& tp) {
  const Tensor dense = t.is_contiguous() ? t : t.clone();
  tp.set_data_type(static_cast<int32_t>(dense.dtype()));
  for (int64_t d : dense.shape()) tp.add_dims(d);
  if (is_4bit(dense.dtype())) {  // two per byte, element 2k in the low nibble
    std::string packed(static_cast<size_t>((dense.numel() + 1) / 2), '\0');
    const auto* in = static_cast<const uint8_t*>(dense.data());
    for (int64_t i = 0; i < dense.numel(); ++i)
      packed[i / 2] = static_cast<char>(packed[i / 2] | ((in[i] & 0xf) << (4 * (i % 2))));
    tp.set_raw_data(std::move(packed));
  } else if (dense.dtype() == DType::kString) {
    for (int64_t i = 0; i < dense.numel(); ++i) tp.add_string_data(dense.strings()[i]);
  } else {
    tp.set_raw_data(dense.data(), dense.nbytes());
  }
}

void onnx_import::write_message(const std::string& path, const google::protobuf::MessageLite& m) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !m.SerializeToOstream(&out) || !out.flush())
    throw Error(cat("cannot write '", path, "'"));
}

void write_tensor_proto_file(const std::string& path, const std::string& name, const Tensor& t) {
  if (!t.defined()) throw UnsupportedError(cat(path, ": cannot write an undefined tensor"));
  if (t.list())
    throw UnsupportedError(cat(path, ": a ", dtype_name(t.dtype()),
                               " is not a TensorProto (write_value_proto_file writes it)"));
  onnx::TensorProto tp;
  tp.set_name(name);
  onnx_import::tensor_to_proto(t, tp);
  onnx_import::write_message(path, tp);
}

}  // namespace asc

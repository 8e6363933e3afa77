// Element types. Numeric values equal ONNX TensorProto.DataType so importers map 1:1.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace asc {

enum class DType : uint8_t {
  kUndefined = 0,
  kF32 = 1,
  kU8 = 2,
  kI8 = 3,
  kU16 = 4,
  kI16 = 5,
  kI32 = 6,
  kI64 = 7,
  kString = 8,
  kBool = 9,
  kF16 = 10,
  kF64 = 11,
  kU32 = 12,
  kU64 = 13,
  kBF16 = 16,
  // 4-bit integers (opset 21: QuantizeLinear / DequantizeLinear): one element per byte in memory,
  // sign-extended for i4 (TensorProto packs two per byte, low nibble first; the importer unpacks).
  kUInt4 = 21,
  kInt4 = 22,
  // Containers (ONNX sequence and optional values): host objects holding a TensorList, outside
  // TensorProto.DataType's range.
  kSequence = 100,
  kOptional = 101,
};

// Bytes per element; 0 for kUndefined and the host objects (strings, sequences, optionals).
size_t dtype_size(DType t);
// Short lower-case name: "f32", "bf16", "i64", "bool", ...
std::string_view dtype_name(DType t);
// Inverse of dtype_name; returns kUndefined for an unknown name.
DType dtype_from_name(std::string_view name);
bool dtype_is_float(DType t);    // f16, bf16, f32, f64
bool dtype_is_integer(DType t);  // signed and unsigned integers, 4-bit too (not bool)
bool dtype_is_signed(DType t);
// Strings, sequences and optionals live on the host as objects: no byte-wise path touches them,
// and nodes reading or writing them run node by node.
inline bool dtype_is_host_object(DType t) {
  return t == DType::kString || t == DType::kSequence || t == DType::kOptional;
}

// Storage types for the 16-bit floats. Conversions round to nearest even.
struct f16 {
  uint16_t bits = 0;
};
struct bf16 {
  uint16_t bits = 0;
};

float f16_to_f32(f16 h);
f16 f32_to_f16(float f);
inline float bf16_to_f32(bf16 h) {
  uint32_t u = static_cast<uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline bf16 f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{static_cast<uint16_t>((u >> 16) | 0x40)};  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return bf16{static_cast<uint16_t>(u >> 16)};
}

// Element i of a typed buffer read as / written from double (for references and host kernels).
double load_as_double(DType t, const void* base, int64_t i);
void store_from_double(DType t, void* base, int64_t i, double v);

// Named groups used in type constraints.
const std::vector<DType>& float_types();         // f32, f16, bf16, f64
const std::vector<DType>& numeric_types();       // floats and all integers of 8 bits or more
const std::vector<DType>& numeric_bool_types();  // numeric_types() and bool
const std::vector<DType>& all_types();  // every tensor dtype (not kUndefined, not containers)
const std::vector<DType>& any_types();  // all_types(), kSequence and kOptional

}  // namespace asc

// The elementwise family's shared pieces: sub-family registration, dtype groups of the ONNX
// schemas, the legacy (opset < 7) `broadcast`/`axis` convention, and helpers for tile kernels and
// references. Only ops/elementwise_*.cpp, ops/logical*.cpp and ops/misc_strings.cpp (numpy
// broadcasting of strings) include this.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "registry/dsl.h"
#include "registry/infer.h"
#include "registry/registry.h"

namespace asc {

// Sub-families, called from register_elementwise_unary / _binary.
void register_elementwise_math(Registry& r);      // Tan, Asin, ..., Sinh, ..., Atanh (composed)
void register_elementwise_variadic(Registry& r);  // Max, Min, Sum, Mean
void register_logical_bitwise(Registry& r);       // BitwiseAnd, ..., BitwiseNot (host kernels)

// ---- dtype groups -----------------------------------------------------------------------------
std::vector<DType> ew_f16_f32_f64();       // the classic float trio
std::vector<DType> ew_floats(bool bf16);   // trio, plus bf16 when asked
std::vector<DType> ew_ints();              // i8..i64, u8..u64
std::vector<DType> ew_numeric(bool bf16);  // ints and floats
std::vector<DType> ew_plus(std::vector<DType> a, const std::vector<DType>& b);

// ---- legacy broadcast (opset < 7) ---------------------------------------------------------------
// With broadcast = 1, B (rank <= rank A) is matched against A's dims [axis, axis + rank B); an
// axis < 0 (the schema default, "unset") aligns B with A's trailing dims. Each B dim equals A's or
// is 1. With broadcast = 0 the shapes are equal. The output has A's shape.
// Returns B's shape padded with 1s to A's rank, so numpy broadcasting then gives the legacy
// result; throws ShapeError naming `op` and both shapes.
Shape legacy_b_shape(const std::string& op, const Shape& a, const Shape& b, const Attrs& attrs);
// Inference for the legacy form: A's shape, dtype `out` (kUndefined: A's dtype).
std::vector<TensorType> infer_legacy(const InferContext& ctx, DType out);
// The launch context with input 1's shape replaced by legacy_b_shape: the standard elementwise
// tiling and boxes then apply unchanged. Idempotent.
LaunchContext legacy_ctx(const LaunchContext& ctx);
// ref_elementwise over A and B placed by legacy_b_shape.
void ref_legacy(const Attrs& attrs, std::span<const Tensor> in, Tensor& out,
                const std::function<double(const double*)>& f);

// A binary tile kernel body: y = f(a, b) on compute-dtype tiles.
using EwBinaryFn = std::function<Buf(TileBuilder&, Buf, Buf)>;
// A reference body: y = f(a, b) in double; t is A's dtype.
using EwRefFn = std::function<double(double, double, DType)>;
// Registers a legacy (since..until) binary op: inputs A, B of constraint T (types), output C of
// dtype `out` (kUndefined: T), attributes broadcast/axis (and consumed_inputs when `consumed`).
void add_legacy_binary(Registry& r, const char* type, int since, int until,
                       std::vector<DType> types, DType out, bool consumed, const char* doc,
                       EwBinaryFn kernel, EwRefFn ref);

// ---- kernels ------------------------------------------------------------------------------------
// A UB buffer shaped and typed like `like`, filled with v.
Buf ew_const(TileBuilder& t, Buf like, double v);
// Compare against a constant: (x cmp v) as bool.
Buf ew_cmp_const(TileBuilder& t, CmpOp op, Buf x, double v);

// ---- references ---------------------------------------------------------------------------------
// For every element of `out` (row-major), the flat index of the element of `in` it reads under
// numpy broadcasting. For references that must stay exact beyond double (64-bit integers).
std::vector<int64_t> bcast_offsets(const Shape& in, const Shape& out);

}  // namespace asc

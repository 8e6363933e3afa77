// The indexing family (Gather*, Scatter*, OneHot, Compress, NonZero, Unique, ReverseSequence,
// TopK, CumSum): per-file registration and the helpers its host kernels and references share.
//
// Host kernels switch on the dtype once (visit_elem, visit_size) and then run typed loops or move
// bytes with memcpy; references use Tensor::at/set and per-element byte copies.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "registry/error.h"
#include "registry/infer.h"
#include "registry/registry.h"
#include "registry/strings.h"

namespace asc {

void register_indexing_gather(Registry& r);   // Gather, GatherElements, GatherND
void register_indexing_scatter(Registry& r);  // Scatter, ScatterElements, ScatterND
void register_indexing_select(Registry& r);   // OneHot, Compress, NonZero, ReverseSequence
void register_indexing_sort(Registry& r);     // TopK, Unique, CumSum

namespace indexing {

// Bool elements are one byte holding 0 or 1; a distinct tag so visit_elem tells it from u8.
struct BoolByte {
  uint8_t v = 0;
};

// Storage type S and the type arithmetic runs in (C): float for f16/bf16, bool for bool.
template <typename S>
struct Elem {
  using C = S;
  static C load(S v) { return v; }
  static S store(C v) { return v; }
};
template <>
struct Elem<f16> {
  using C = float;
  static C load(f16 v) { return f16_to_f32(v); }
  static f16 store(C v) { return f32_to_f16(v); }
};
template <>
struct Elem<bf16> {
  using C = float;
  static C load(bf16 v) { return bf16_to_f32(v); }
  static bf16 store(C v) { return f32_to_bf16(v); }
};
template <>
struct Elem<BoolByte> {
  using C = bool;
  static C load(BoolByte v) { return v.v != 0; }
  static BoolByte store(C v) { return BoolByte{static_cast<uint8_t>(v ? 1 : 0)}; }
};

// Calls f(S{}) with the storage type of a numeric or bool dtype; ShapeError otherwise.
template <typename F>
void visit_elem(DType t, std::string_view op, F&& f) {
  switch (t) {
    case DType::kF32:
      return f(float{});
    case DType::kF64:
      return f(double{});
    case DType::kF16:
      return f(f16{});
    case DType::kBF16:
      return f(bf16{});
    case DType::kI8:
      return f(int8_t{});
    case DType::kI16:
      return f(int16_t{});
    case DType::kI32:
      return f(int32_t{});
    case DType::kI64:
      return f(int64_t{});
    case DType::kU8:
      return f(uint8_t{});
    case DType::kU16:
      return f(uint16_t{});
    case DType::kU32:
      return f(uint32_t{});
    case DType::kU64:
      return f(uint64_t{});
    case DType::kBool:
      return f(BoolByte{});
    default:
      throw ShapeError(cat(op, ": dtype ", dtype_name(t), " is not supported"));
  }
}

// Calls f(U{}) with an unsigned integer type of the dtype's element size (typed moves).
template <typename F>
void visit_size(DType t, std::string_view op, F&& f) {
  switch (dtype_size(t)) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      throw ShapeError(cat(op, ": dtype ", dtype_name(t), " is not supported"));
  }
}

// Total order on compute values for sorting: NaN above every number, NaNs equal.
template <typename C>
bool value_less(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// An integer tensor's elements as int64 (i32/i64 indices; other integers and floats truncate).
inline std::vector<int64_t> index_values(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::kI64) {
    if (!v.empty()) std::memcpy(v.data(), t.data(), v.size() * 8);
  } else if (t.dtype() == DType::kI32) {
    const int32_t* p = t.data_as<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  } else {
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<int64_t>(t.at(static_cast<int64_t>(i)));
  }
  return v;
}

// An index into a dim of `size`: negative values count from the end when `negative` (opsets
// that allow them). Throws ShapeError naming the op, the index and the bound.
inline int64_t resolve_index(int64_t i, int64_t size, bool negative, std::string_view op,
                             std::string_view what = "axis") {
  const int64_t lo = negative ? -size : 0;
  if (i < lo || i >= size)
    throw ShapeError(cat(op, ": index ", i, " is out of range [", lo, ", ", size - 1, "] for ",
                         what, " of size ", size));
  return i < 0 ? i + size : i;
}

// An axis attribute resolved against rank (ShapeError naming the op when out of range).
inline int64_t resolve_axis(int64_t axis, int64_t rank, std::string_view op) {
  if (axis < -rank || axis >= rank)
    throw ShapeError(cat(op, ": axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

// Product of dims [from, to).
inline int64_t dims_product(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to && d < s.size(); ++d) n *= s[d];
  return n;
}

// Copies element `src` of `from` to element `dst` of `to` (same dtype): references move values
// as bytes so every dtype is exact.
inline void copy_element(const Tensor& from, int64_t src, Tensor& to, int64_t dst) {
  const size_t es = dtype_size(from.dtype());
  std::memcpy(static_cast<std::byte*>(to.data()) + dst * static_cast<int64_t>(es),
              static_cast<const std::byte*>(from.data()) + src * static_cast<int64_t>(es), es);
}

// The concrete shape of an inferred input, or nullopt when its rank or a dim is unknown.
inline std::optional<Shape> concrete(const TensorType& t) {
  return t.shape ? to_concrete(*t.shape) : std::nullopt;
}

}  // namespace indexing
}  // namespace asc

// Concrete and symbolic shapes. A symbolic dim is a known integer or a named symbol ("batch").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "registry/dtype.h"

namespace asc {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& s);
std::string to_string(const Shape& s);  // "[2,3,4]"; "[]" for a scalar

class Dim {
 public:
  Dim() : v_(int64_t{-1}) {}  // unknown, unnamed
  Dim(int64_t n) : v_(n) {}   // NOLINT: implicit, dims read like numbers
  explicit Dim(std::string sym) : v_(std::move(sym)) {}

  bool known() const { return std::holds_alternative<int64_t>(v_) && std::get<int64_t>(v_) >= 0; }
  bool symbolic() const { return std::holds_alternative<std::string>(v_); }
  int64_t value() const { return known() ? std::get<int64_t>(v_) : -1; }
  const std::string& symbol() const { return std::get<std::string>(v_); }
  std::string str() const;
  bool operator==(const Dim& o) const { return v_ == o.v_; }

 private:
  std::variant<int64_t, std::string> v_;
};

using SymShape = std::vector<Dim>;

std::string to_string(const SymShape& s);
SymShape to_sym(const Shape& s);
// The concrete shape if every dim is known.
std::optional<Shape> to_concrete(const SymShape& s);
// Every dim, with -1 where it is unknown.
Shape known_dims(const SymShape& s);

// What inference knows about a value: always its dtype; its rank and dims when known.
struct TensorType {
  DType dtype = DType::kUndefined;
  std::optional<SymShape> shape;  // nullopt: rank unknown

  std::string str() const;  // "f32[batch,128]" or "f32[?]"
};

// Concrete dtype + shape of a value at launch time. `strides` (elements per dim) describe a
// strided view (Tensor::strided); empty means dense row-major. Only parameters an op declares
// strided (ParamDef::strided) are ever given a non-empty one.
struct TensorDesc {
  DType dtype = DType::kUndefined;
  Shape shape;
  Shape strides = {};

  std::string str() const;  // "f32[2,3]"; a strided view "f32[1,2,5,4]:s[64,32,4,1]"
};

// Row-major strides (elements) of a shape.
Shape contiguous_strides(const Shape& s);

// Numpy-style multidirectional broadcast; throws ShapeError naming both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b);
SymShape broadcast_shapes(const SymShape& a, const SymShape& b);

// Normalises a possibly negative axis against rank; throws ShapeError when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank);

}  // namespace asc

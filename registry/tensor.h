// A host tensor: dtype, shape and a pointer to dense row-major data, owned or borrowed.
#pragma once

#include <memory>
#include <span>

#include "registry/shape.h"

namespace asc {

// The largest tensor asc allocates (1 TiB): larger shapes are refused before allocating.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;

class Tensor {
 public:
  Tensor() = default;
  // Owns fresh storage (zero-filled, 64-byte aligned); throws ShapeError for negative dims, sizes
  // over kMaxTensorBytes and failed allocations.
  Tensor(DType dtype, Shape shape);
  // Borrows caller memory; the caller keeps it alive.
  static Tensor wrap(DType dtype, Shape shape, void* data);
  // Views memory kept alive by `owner` (e.g. a memory-mapped file).
  static Tensor view(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return asc::numel(shape_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  TensorDesc desc() const { return {dtype_, shape_}; }
  bool defined() const { return dtype_ != DType::kUndefined; }

  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* data_as() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data_);
  }

  double at(int64_t i) const { return load_as_double(dtype_, data_, i); }
  void set(int64_t i, double v) { store_from_double(dtype_, data_, i, v); }

 private:
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
};

}  // namespace asc

#include "registry/tensor.h"

#include <cstdlib>
#include <cstring>

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  // Refuse before allocating: negative dims, element counts whose byte size overflows, and sizes
  // no allocation can satisfy get a message naming the shape instead of std::bad_alloc.
  int64_t n = 1;
  const int64_t elem = static_cast<int64_t>(dtype_size(dtype_));
  for (int64_t d : shape_) {
    if (d < 0)
      throw ShapeError(cat("tensor ", dtype_name(dtype_), to_string(shape_), ": negative dim"));
    if (d != 0 && n > kMaxTensorBytes / std::max<int64_t>(elem, 1) / d)
      throw ShapeError(cat("tensor ", dtype_name(dtype_), to_string(shape_), " needs more than ",
                           kMaxTensorBytes, " bytes: refused"));
    n *= d;
  }
  const size_t bytes = (nbytes() + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (!p)
    throw ShapeError(cat("tensor ", dtype_name(dtype_), to_string(shape_), " (", nbytes(),
                         " bytes): out of memory"));
  std::memset(p, 0, bytes == 0 ? 64 : bytes);
  owner_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  data_ = p;
}

Tensor Tensor::wrap(DType dtype, Shape shape, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = data;
  return t;
}

Tensor Tensor::view(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner) {
  Tensor t = wrap(dtype, std::move(shape), data);
  t.owner_ = std::move(owner);
  return t;
}

}  // namespace asc

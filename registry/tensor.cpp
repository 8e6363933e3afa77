#include "registry/tensor.h"

#include <cstdlib>
#include <cstring>

namespace asc {

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  const size_t bytes = (nbytes() + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (!p) throw std::bad_alloc();
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

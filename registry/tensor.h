// A host tensor: dtype, shape and a pointer to data, owned or borrowed. Data is dense row-major,
// except for strided views (Tensor::strided: per-dim element strides, e.g. the first rows of each
// head of a KV-cache buffer), which only at(), set(), clone() and assign() and the parameters an
// op declares strided (ParamDef::strided) read through their strides.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "registry/shape.h"

namespace asc {

// The largest tensor asc allocates (1 TiB): larger shapes are refused before allocating.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;

struct TensorList;

class Tensor {
 public:
  Tensor() = default;
  // Owns fresh storage (zero-filled, 64-byte aligned; kString: empty strings; kSequence and
  // kOptional, rank 0 only: an empty TensorList); throws ShapeError for negative dims, sizes over
  // kMaxTensorBytes and failed allocations.
  Tensor(DType dtype, Shape shape);
  // The same storage left uninitialised (strings and lists as above): for a buffer its producer
  // writes in full, e.g. a graph output a run allocates (zeroing 3 MiB cost a pointwise conv's
  // model run a quarter of its time).
  static Tensor uninitialized(DType dtype, Shape shape);
  // A sequence of `items`, each of dtype `elem` (kUndefined: not known, e.g. an empty sequence
  // read from a file), or an optional holding `item` or nothing.
  static Tensor sequence(DType elem, std::vector<Tensor> items);
  static Tensor optional(DType elem, std::optional<Tensor> item);
  // Borrows caller memory; the caller keeps it alive.
  static Tensor wrap(DType dtype, Shape shape, void* data);
  // Views memory kept alive by `owner` (e.g. a memory-mapped file).
  static Tensor view(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner);
  // A strided view of caller memory: element (i_0, .., i_r) is at data + sum_k i_k strides[k]
  // elements. Strides that equal the dense ones (size-1 dims ignored) give a contiguous tensor.
  // Throws ShapeError when the rank differs or a stride is negative.
  static Tensor strided(DType dtype, Shape shape, Shape strides, void* data,
                        std::shared_ptr<void> owner = nullptr);
  // Points this tensor at `data` (same dtype, shape and strides) as a borrowed view, dropping any
  // ownership: a binding kept across runs is re-aimed without allocating.
  void set_data(void* data) {
    owner_.reset();
    data_ = data;
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return asc::numel(shape_); }
  // Bytes of the elements (a strided view spans more memory).
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  TensorDesc desc() const { return {dtype_, shape_, strides_}; }
  bool defined() const { return dtype_ != DType::kUndefined; }
  bool is_contiguous() const { return strides_.empty(); }
  // Element strides per dim (the dense ones for a contiguous tensor).
  Shape strides() const { return strides_.empty() ? contiguous_strides(shape_) : strides_; }

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

  // kString tensors hold std::string elements on the host. dtype_size(kString) is 0, so byte-wise
  // paths (nbytes, memcpy) never touch them; use strings() and clone().
  std::string* strings() {
    return dtype_ == DType::kString ? static_cast<std::string*>(data_) : nullptr;
  }
  const std::string* strings() const {
    return dtype_ == DType::kString ? static_cast<const std::string*>(data_) : nullptr;
  }
  // kSequence and kOptional values (rank 0) hold their elements on the host; nullptr otherwise.
  TensorList* list() { return is_list() ? static_cast<TensorList*>(data_) : nullptr; }
  const TensorList* list() const {
    return is_list() ? static_cast<const TensorList*>(data_) : nullptr;
  }
  // A deep copy with its own dense storage (strings and list elements included).
  Tensor clone() const;
  // Copies src's elements into this tensor's memory (same dtype and shape; either may be
  // strided); ShapeError otherwise.
  void assign(const Tensor& src);

  // Element i in row-major order (through the strides of a strided view).
  double at(int64_t i) const { return load_as_double(dtype_, data_, offset(i)); }
  void set(int64_t i, double v) { store_from_double(dtype_, data_, offset(i), v); }

 private:
  Tensor(DType dtype, Shape shape, bool zero);
  bool is_list() const { return dtype_ == DType::kSequence || dtype_ == DType::kOptional; }
  // Memory offset in elements of row-major element i.
  int64_t offset(int64_t i) const { return strides_.empty() ? i : strided_offset(i); }
  int64_t strided_offset(int64_t i) const;

  DType dtype_ = DType::kUndefined;
  Shape shape_;
  Shape strides_;  // empty: contiguous
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
};

// The contents of a sequence or an optional: the elements' dtype (a tensor dtype, or kSequence for
// an optional sequence) and the elements, which share their storage with whoever built the list
// (values are immutable once produced). An optional holds at most one element.
struct TensorList {
  DType elem = DType::kUndefined;
  std::vector<Tensor> items;
};

}  // namespace asc

#include "registry/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include <sys/mman.h>

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// Storage of 64-byte aligned bytes. A block of 2 MiB or more (a run's large outputs, made afresh
// every run: above glibc's mmap threshold, each is new memory whose first touch faults) starts on
// a 2 MiB boundary and is advised to huge pages, so it faults in 2 MiB at a time instead of 4 KiB
// (isnet's 67 MB output of one Add took 13x ORT's time, nearly all of it page faults). Its size
// is not rounded up: the last partial 2 MiB keeps small pages. Where THP is off the advice is
// ignored.
void* large_alloc(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  if (bytes < kHuge) return std::aligned_alloc(64, bytes);
  void* p = nullptr;
  if (posix_memalign(&p, kHuge, bytes) != 0) return nullptr;
  madvise(p, bytes / kHuge * kHuge, MADV_HUGEPAGE);
  return p;
}

// Freed blocks of kCached to kMaxBlock bytes wait here for the next tensor that fits, so a run
// that makes the outputs of the run before it (the caller dropped those) reuses their pages
// instead of faulting in new ones: a 1x1 conv's 3.2 MB output cost 4x the conv in faults. A block
// serves requests down to half its size; at most kBlocks blocks and kBytes bytes stay, the oldest
// freed going first (larger blocks, a load's conversion buffers, go back to the system).
class BlockCache {
 public:
  static constexpr size_t kCached = size_t{128} << 10;
  static constexpr size_t kMaxBlock = size_t{64} << 20;
  static constexpr size_t kBlocks = 16;
  static constexpr size_t kBytes = size_t{256} << 20;

  // The smallest block of at least `bytes` (its size in *got; of equal ones the last freed, its
  // pages likeliest still cached), or nullptr.
  void* take(size_t bytes, size_t* got) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i)
      if (free_[i].bytes >= bytes && free_[i].bytes / 2 <= bytes &&
          (best == free_.size() || free_[i].bytes <= free_[best].bytes))
        best = i;
    if (best == free_.size()) return nullptr;
    Block b = free_[best];
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    held_ -= b.bytes;
    *got = b.bytes;
    return b.p;
  }

  void give(void* p, size_t bytes) {
    if (bytes > kMaxBlock) {
      std::free(p);
      return;
    }
    std::vector<Block> drop;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back({p, bytes});
      held_ += bytes;
      while (free_.size() > kBlocks || held_ > kBytes) {
        drop.push_back(free_.front());
        held_ -= free_.front().bytes;
        free_.erase(free_.begin());
      }
    }
    for (const Block& b : drop) std::free(b.p);
  }

 private:
  struct Block {
    void* p;
    size_t bytes;
  };
  std::mutex mutex_;
  std::vector<Block> free_;
  size_t held_ = 0;
};

// Never destroyed: tensors in static storage may be freed after it would be.
BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache;
  return *cache;
}

// A tensor's storage: from the cache when it is large, freed back to it.
std::shared_ptr<void> storage(size_t bytes) {
  if (bytes < BlockCache::kCached) {
    void* p = std::aligned_alloc(64, bytes);
    return p ? std::shared_ptr<void>(p, [](void* q) { std::free(q); }) : nullptr;
  }
  size_t got = bytes;
  void* p = block_cache().take(bytes, &got);
  if (!p) p = large_alloc(bytes);
  if (!p) return nullptr;
  return std::shared_ptr<void>(p, [got](void* q) { block_cache().give(q, got); });
}

}  // namespace

Tensor::Tensor(DType dtype, Shape shape) : Tensor(dtype, std::move(shape), true) {}

Tensor Tensor::uninitialized(DType dtype, Shape shape) {
  return Tensor(dtype, std::move(shape), false);
}

Tensor::Tensor(DType dtype, Shape shape, bool zero) : dtype_(dtype), shape_(std::move(shape)) {
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
  if (is_list()) {
    if (!shape_.empty())
      throw ShapeError(cat(dtype_name(dtype_), " values have rank 0, not ", to_string(shape_)));
    auto* list = new TensorList;
    owner_ = std::shared_ptr<void>(list, [](void* q) { delete static_cast<TensorList*>(q); });
    data_ = list;
    return;
  }
  if (dtype_ == DType::kString) {
    auto* strs = new std::string[static_cast<size_t>(std::max<int64_t>(n, 1))];
    owner_ = std::shared_ptr<void>(strs, [](void* q) { delete[] static_cast<std::string*>(q); });
    data_ = strs;
    return;
  }
  const size_t bytes = (nbytes() + 63) / 64 * 64;
  owner_ = storage(bytes == 0 ? 64 : bytes);
  if (!owner_)
    throw ShapeError(cat("tensor ", dtype_name(dtype_), to_string(shape_), " (", nbytes(),
                         " bytes): out of memory"));
  if (zero) std::memset(owner_.get(), 0, bytes == 0 ? 64 : bytes);
  data_ = owner_.get();
}

Tensor Tensor::sequence(DType elem, std::vector<Tensor> items) {
  Tensor t(DType::kSequence, {});
  t.list()->elem = elem;
  t.list()->items = std::move(items);
  return t;
}

Tensor Tensor::optional(DType elem, std::optional<Tensor> item) {
  Tensor t(DType::kOptional, {});
  t.list()->elem = elem;
  if (item) t.list()->items.push_back(std::move(*item));
  return t;
}

Tensor Tensor::clone() const {
  if (!defined()) return {};
  Tensor c(dtype_, shape_);
  if (is_list()) {
    c.list()->elem = list()->elem;
    for (const Tensor& t : list()->items) c.list()->items.push_back(t.clone());
  } else if (dtype_ == DType::kString) {
    for (int64_t i = 0; i < numel(); ++i) c.strings()[i] = strings()[i];
  } else if (!strides_.empty()) {
    c.assign(*this);
  } else if (nbytes()) {
    std::memcpy(c.data(), data_, nbytes());
  }
  return c;
}

namespace {

// dst[..] = src[..] over dims [d, rank) of `shape`; the innermost dim is one memcpy when both
// sides are unit-strided there.
void copy_strided(const std::byte* src, const int64_t* ss, std::byte* dst, const int64_t* ds,
                  const Shape& shape, size_t d, size_t es) {
  const int64_t n = shape[d];
  if (d + 1 == shape.size()) {
    if (ss[d] == 1 && ds[d] == 1) {
      std::memcpy(dst, src, static_cast<size_t>(n) * es);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(dst + static_cast<size_t>(i * ds[d]) * es,
                  src + static_cast<size_t>(i * ss[d]) * es, es);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    copy_strided(src + static_cast<size_t>(i * ss[d]) * es, ss,
                 dst + static_cast<size_t>(i * ds[d]) * es, ds, shape, d + 1, es);
}

}  // namespace

void Tensor::assign(const Tensor& src) {
  if (src.dtype_ != dtype_ || src.shape_ != shape_)
    throw ShapeError(cat("assign: ", src.desc().str(), " into ", desc().str()));
  if (is_list()) {
    *list() = *src.clone().list();
    return;
  }
  if (dtype_ == DType::kString) {
    for (int64_t i = 0; i < numel(); ++i) strings()[offset(i)] = src.strings()[src.offset(i)];
    return;
  }
  if (numel() == 0) return;
  if (strides_.empty() && src.strides_.empty()) {
    std::memmove(data_, src.data_, nbytes());
    return;
  }
  if (shape_.empty()) {
    std::memmove(data_, src.data_, dtype_size(dtype_));
    return;
  }
  const Shape ss = src.strides(), ds = strides();
  copy_strided(static_cast<const std::byte*>(src.data_), ss.data(), static_cast<std::byte*>(data_),
               ds.data(), shape_, 0, dtype_size(dtype_));
}

int64_t Tensor::strided_offset(int64_t i) const {
  int64_t off = 0;
  for (size_t d = shape_.size(); d-- > 0;) {
    off += (i % shape_[d]) * strides_[d];
    i /= shape_[d];
  }
  return off;
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

Tensor Tensor::strided(DType dtype, Shape shape, Shape strides, void* data,
                       std::shared_ptr<void> owner) {
  if (strides.size() != shape.size())
    throw ShapeError(cat("strided view ", dtype_name(dtype), to_string(shape), ": ", strides.size(),
                         " strides for rank ", shape.size()));
  for (int64_t s : strides)
    if (s < 0)
      throw ShapeError(cat("strided view ", dtype_name(dtype), to_string(shape), ": stride ", s,
                           " is negative"));
  Tensor t = view(dtype, std::move(shape), data, std::move(owner));
  // Contiguous when every dim of size > 1 has its dense stride (or when there are no elements).
  const Shape dense = contiguous_strides(t.shape_);
  bool contiguous = true;
  for (size_t d = 0; d < strides.size(); ++d)
    contiguous = contiguous && (t.shape_[d] == 1 || strides[d] == dense[d]);
  if (!contiguous && t.numel() > 1) t.strides_ = std::move(strides);
  return t;
}

}  // namespace asc

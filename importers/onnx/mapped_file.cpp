#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "importers/onnx/onnx_internal.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc::onnx_import {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ModelError(cat("cannot open '", path, "': ", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    ::close(fd);
    throw ModelError(cat("cannot open '", path,
                         "': ", S_ISREG(st.st_mode) ? std::strerror(err) : "not a regular file"));
  }
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->size_ = static_cast<size_t>(st.st_size);
  if (f->size_ > 0) {
    void* p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw ModelError(cat("cannot map '", path, "': ", std::strerror(err)));
    }
    f->data_ = static_cast<uint8_t*>(p);
    // Weights are streamed through this mapping at every decoding step: pages read in from the
    // file under this advice come as 2 MiB folios mapped by single TLB entries. With the 4 KiB
    // folios of a plain read the fp32 0.5B decode ran 9-15 tok/s on the Zen 5 guest of
    // docs/PERFORMANCE.md, with 2 MiB ones 19-23. (Pages already cached keep their folios.)
    ::madvise(p, f->size_, MADV_HUGEPAGE);
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  return f;
}

std::shared_ptr<MappedFile> MappedFile::zeros(size_t size) {
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->size_ = size;
  if (size > 0) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw ModelError(cat("cannot map ", size, " bytes of zeros: ", std::strerror(errno)));
    f->data_ = static_cast<uint8_t*>(p);
  }
  return f;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace asc::onnx_import

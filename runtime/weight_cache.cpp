#include "runtime/weight_cache.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/file_maps.h"

namespace asc {
namespace {

constexpr char kMagic[8] = {'A', 'S', 'C', 'W', 'C', 'A', 'C', 'H'};
constexpr uint32_t kVersion = 3;   // 2: layouts (packed weights); 3: a dtype per entry
constexpr uint64_t kAlign = 4096;  // each tensor starts on a page

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t dtype;
  uint64_t key;
  uint64_t count;
  uint64_t file_bytes;
};
struct Slot {
  uint64_t offset, bytes;
};

// FNV-1a, 64 bits: a file name and a staleness check, not a security boundary.
struct Hash {
  uint64_t h = 1469598103934665603ull;
  void add(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void add(const std::string& s) { add(s.data(), s.size() + 1); }
  void add(uint64_t v) { add(&v, sizeof v); }
};

// The files whose mappings hold the entries' data (from /proc/self/maps), sorted: a model's
// external-data files, which the model file's identity does not cover.
std::vector<std::string> source_files(const std::vector<CacheEntry>& entries) {
  const std::vector<FileMap> maps = file_maps();
  std::vector<std::string> files;
  for (const CacheEntry& e : entries) {
    const auto p = reinterpret_cast<uintptr_t>(e.source->data());
    for (const FileMap& m : maps)
      if (m.begin <= p && p < m.end && !m.path.empty()) files.push_back(m.path);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// The key of a conversion: format, dtype, model identity, and per constant its name, shape and
// four samples of its bytes (the first and last 64, 16 at a third and two thirds): four pages per
// constant are touched, not the weights (each is a page fault: 16 samples cost a 0.5B load ~50
// ms on the guest of docs/PERFORMANCE.md).
uint64_t key_of(const std::string& identity, DType to, const std::vector<CacheEntry>& entries) {
  Hash h;
  h.add(kVersion);
  h.add(static_cast<uint64_t>(to));
  h.add(identity);
  for (const std::string& file : source_files(entries)) {  // external data files
    struct stat st {};
    h.add(file);
    if (::stat(file.c_str(), &st) == 0) {
      h.add(static_cast<uint64_t>(st.st_size));
      h.add(static_cast<uint64_t>(st.st_mtim.tv_sec));
      h.add(static_cast<uint64_t>(st.st_mtim.tv_nsec));
    }
  }
  for (const CacheEntry& e : entries) {
    h.add(e.name);
    h.add(static_cast<uint64_t>(e.source->dtype()));
    h.add(static_cast<uint64_t>(e.dtype));
    for (int64_t d : e.source->shape()) h.add(static_cast<uint64_t>(d));
    h.add(e.layout);
    for (int64_t d : e.stored_shape()) h.add(static_cast<uint64_t>(d));
    const auto* p = static_cast<const unsigned char*>(e.source->data());
    const size_t n = e.source->nbytes();
    if (!p || n == 0) continue;
    const size_t w = std::min<size_t>(n, 64);
    h.add(p, w);
    h.add(p + n - w, w);
    for (size_t i = 1; i < 3; ++i) {
      const size_t at = n / 3 * i;
      h.add(p + at, std::min<size_t>(16, n - at));
    }
  }
  return h.h;
}

uint64_t aligned(uint64_t v) {
  return (v + kAlign - 1) / kAlign * kAlign;
}

bool read_at(int fd, void* dst, size_t n, uint64_t at) {
  return pread(fd, dst, n, static_cast<off_t>(at)) == static_cast<ssize_t>(n);
}

bool write_all(int fd, const void* src, size_t n) {
  const auto* p = static_cast<const char*>(src);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t{1} << 30));
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

WeightCacheOptions weight_cache_for(const std::string& dir, const std::string& model_path,
                                    DType to) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(fs::absolute(model_path), ec);
  struct stat st {};
  if (ec || ::stat(abs.c_str(), &st) != 0)
    throw Error(cat("weight cache: cannot stat the model file '", model_path, "'"));
  Hash h;
  h.add(abs.string());
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(h.h));
  WeightCacheOptions o;
  o.file =
      (fs::path(dir) / cat(abs.stem().string(), "-", name, ".", dtype_name(to), ".ascw")).string();
  o.identity = cat(abs.string(), " size ", st.st_size, " mtime ", st.st_mtim.tv_sec, ".",
                   st.st_mtim.tv_nsec);
  return o;
}

std::vector<Tensor> weight_cache_load(const WeightCacheOptions& o, DType to,
                                      const std::vector<CacheEntry>& entries) {
  if (o.file.empty()) return {};
  Fd f{::open(o.file.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return {};
  struct stat st {};
  Header hd{};
  if (::fstat(f.fd, &st) != 0 || !read_at(f.fd, &hd, sizeof hd, 0) ||
      std::memcmp(hd.magic, kMagic, sizeof kMagic) != 0 || hd.version != kVersion ||
      hd.dtype != static_cast<uint32_t>(to) || hd.count != entries.size() ||
      hd.file_bytes != static_cast<uint64_t>(st.st_size) ||
      hd.key != key_of(o.identity, to, entries))
    return {};
  std::vector<Slot> slots(entries.size());
  if (!slots.empty() && !read_at(f.fd, slots.data(), slots.size() * sizeof(Slot), sizeof hd))
    return {};
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint64_t want =
        static_cast<uint64_t>(numel(entries[i].stored_shape())) * dtype_size(entries[i].dtype);
    if (slots[i].bytes != want || slots[i].offset > hd.file_bytes ||
        hd.file_bytes - slots[i].offset < want)
      return {};
  }
  void* base = nullptr;
  if (hd.file_bytes > 0) {
    base = ::mmap(nullptr, hd.file_bytes, PROT_READ, MAP_PRIVATE, f.fd, 0);
    if (base == MAP_FAILED) return {};
    ::madvise(base, hd.file_bytes, MADV_HUGEPAGE);  // 2 MiB folios, as the model's own mapping
  }
  const size_t len = hd.file_bytes;
  std::shared_ptr<void> owner(base, [len](void* p) {
    if (p) ::munmap(p, len);
  });
  std::vector<Tensor> out;
  out.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i)
    out.push_back(Tensor::view(entries[i].dtype, entries[i].stored_shape(),
                               static_cast<char*>(base) + slots[i].offset, owner));
  return out;
}

bool weight_cache_store(const WeightCacheOptions& o, DType to,
                        const std::vector<CacheEntry>& entries, const std::vector<Tensor>& stored) {
  namespace fs = std::filesystem;
  if (o.file.empty() || stored.size() != entries.size()) return false;
  auto fail = [&](const std::string& why) {
    spdlog::warn("weight cache: cannot write '{}': {}", o.file, why);
    return false;
  };
  for (size_t i = 0; i < stored.size(); ++i)
    if (stored[i].dtype() != entries[i].dtype || stored[i].shape() != entries[i].stored_shape())
      return fail(cat("constant '", entries[i].name, "' is ", dtype_name(stored[i].dtype()), " ",
                      to_string(stored[i].shape()), ", its entry says ",
                      dtype_name(entries[i].dtype), " ", to_string(entries[i].stored_shape())));
  std::error_code ec;
  const fs::path path(o.file);
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) return fail(ec.message());
  Header hd{};
  std::memcpy(hd.magic, kMagic, sizeof kMagic);
  hd.version = kVersion;
  hd.dtype = static_cast<uint32_t>(to);
  hd.key = key_of(o.identity, to, entries);
  hd.count = entries.size();
  std::vector<Slot> slots(entries.size());
  uint64_t at = aligned(sizeof hd + slots.size() * sizeof(Slot));
  for (size_t i = 0; i < stored.size(); ++i) {
    slots[i] = {at, stored[i].nbytes()};
    at = aligned(at + slots[i].bytes);
  }
  hd.file_bytes = at;
  const std::string tmp = cat(o.file, ".tmp.", ::getpid());
  bool ok = false;
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (f.fd < 0) return fail(std::strerror(errno));
    ok = write_all(f.fd, &hd, sizeof hd) &&
         (slots.empty() || write_all(f.fd, slots.data(), slots.size() * sizeof(Slot)));
    const std::vector<char> zeros(kAlign, 0);
    uint64_t pos = sizeof hd + slots.size() * sizeof(Slot);
    for (size_t i = 0; ok && i < stored.size(); ++i) {
      ok = write_all(f.fd, zeros.data(), slots[i].offset - pos) &&
           write_all(f.fd, stored[i].data(), slots[i].bytes);
      pos = slots[i].offset + slots[i].bytes;
    }
    ok = ok && write_all(f.fd, zeros.data(), hd.file_bytes - pos);
    // Out of the page cache's small write folios, so later loads read it back in 2 MiB ones
    // (as models/onnx_writer.cpp does for a model's data file).
    if (ok && ::fdatasync(f.fd) == 0) ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
  }
  if (!ok || ::rename(tmp.c_str(), o.file.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail(why);
  }
  spdlog::info("weight cache: wrote {} constants ({} MiB) to '{}'", entries.size(),
               hd.file_bytes >> 20, o.file);
  return true;
}

}  // namespace asc

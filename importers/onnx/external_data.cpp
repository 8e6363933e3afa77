// External data: TensorProto.external_data {location, offset, length} resolved against the
// model's folder, memory-mapped once per file, viewed zero-copy.
#include <cstring>
#include <system_error>

#include "importers/onnx/onnx_internal.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc::onnx_import {
namespace fs = std::filesystem;

namespace {

// A non-negative decimal integer stored as a string ("offset", "length").
uint64_t parse_size(const std::string& tensor, const std::string& key, const std::string& v) {
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
    throw ModelError(cat("tensor '", tensor, "': external data ", key, " '", v,
                         "' is not a non-negative integer"));
  return std::stoull(v);
}

}  // namespace

ExternalData::ExternalData(std::string base_dir, bool shape_only)
    : base_dir_(std::move(base_dir)), shape_only_(shape_only) {
  if (base_dir_.empty()) return;
  std::error_code ec;
  base_canon_ = fs::weakly_canonical(fs::absolute(base_dir_, ec), ec);
  if (ec)
    throw ModelError(cat("cannot resolve the model's folder '", base_dir_, "': ", ec.message()));
}

// Invariant: the returned path is canonical (no symlinks, no "..") and lies strictly inside
// base_canon_. Opening the canonical path (not the given one) keeps that true at open time.
fs::path ExternalData::resolve(const std::string& tensor, const std::string& location) const {
  if (base_dir_.empty())
    throw ModelError(cat("tensor '", tensor, "': external data '", location,
                         "' needs the model's folder, and none was given"));
  if (location.empty() || location.find('\0') != std::string::npos)
    throw ModelError(cat("tensor '", tensor, "': external data location is empty or invalid"));
  const fs::path loc(location);
  if (loc.is_absolute())
    throw ModelError(cat("tensor '", tensor, "': external data location '", location,
                         "' is an absolute path; it must be relative to the model's folder"));
  std::error_code ec;
  const fs::path full = fs::weakly_canonical(base_canon_ / loc, ec);
  if (ec)
    throw ModelError(cat("tensor '", tensor, "': cannot resolve external data location '", location,
                         "': ", ec.message()));
  const fs::path rel = full.lexically_relative(base_canon_);
  if (rel.empty() || rel == "." || *rel.begin() == "..")
    throw ModelError(cat("tensor '", tensor, "': external data location '", location,
                         "' resolves to '", full.string(), "', outside the model's folder '",
                         base_canon_.string(), "'"));
  return full;
}

Tensor ExternalData::load(const onnx::TensorProto& tp, DType dtype, const Shape& shape) {
  const std::string& name = tp.name();
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto& kv : tp.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offset = parse_size(name, "offset", kv.value());
    else if (kv.key() == "length")
      length = parse_size(name, "length", kv.value());
    // "checksum" (SHA1 of the file) is optional and not verified.
  }
  if (location.empty())
    throw ModelError(cat("tensor '", name, "': external data has no 'location'"));
  const fs::path path = resolve(name, location);
  if (shape_only_) {
    const uint64_t need = static_cast<uint64_t>(numel(shape)) * dtype_size(dtype);
    if (length && *length != need)
      throw ModelError(cat("tensor '", name, "': external data length ", *length, " bytes, but ",
                           dtype_name(dtype), to_string(shape), " needs ", need));
    if (need == 0) return Tensor(dtype, shape);
    auto zeros = MappedFile::zeros(static_cast<size_t>(need));
    return Tensor::view(dtype, shape, const_cast<uint8_t*>(zeros->data()), zeros);
  }

  auto& file = files_[path.string()];
  if (!file) {
    try {
      file = MappedFile::open(path.string());
    } catch (const ModelError& e) {
      files_.erase(path.string());
      throw ModelError(cat("tensor '", name, "': external data: ", e.what()));
    }
  }

  // dims_from_proto bounded numel by 2^40, so the product below cannot overflow.
  const uint64_t need = static_cast<uint64_t>(numel(shape)) * dtype_size(dtype);
  if (length && *length != need)
    throw ModelError(cat("tensor '", name, "': external data length ", *length, " bytes, but ",
                         dtype_name(dtype), to_string(shape), " needs ", need));
  if (offset > file->size() || need > file->size() - offset)
    throw ModelError(cat("tensor '", name, "': external data [offset ", offset, ", ", need,
                         " bytes) runs past the end of '", path.string(), "' (", file->size(),
                         " bytes)"));
  if (need == 0) return Tensor(dtype, shape);

  const uint8_t* p = file->data() + offset;
  if (offset % dtype_size(dtype) != 0) {
    // A misaligned view would break typed loads; this rare tensor is copied instead.
    Tensor t(dtype, shape);
    std::memcpy(t.data(), p, need);
    return t;
  }
  // The mapping is PROT_READ: constant tensors are never written (see onnx_importer.h).
  return Tensor::view(dtype, shape, const_cast<uint8_t*>(p), file);
}

}  // namespace asc::onnx_import

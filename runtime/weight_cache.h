// The converted-weight cache (ModelOptions::weight_cache): a precision conversion at load
// (runtime/precision.h) writes the converted constants to one file, and later loads of the same
// model at the same precision map that file instead of converting again. Converting the 0.5B
// model's 2 GB of f32 weights to bf16 takes 1-3 s on the guests of docs/PERFORMANCE.md, most of it
// the kernel zeroing the new pages; mapping the converted file takes milliseconds, and its pages
// stay in the page cache between processes (the way the f32 model's own pages do).
//
// A file is used only when its header matches: the format version, the target dtype, the model's
// identity (WeightCacheOptions::identity: path, size and modification time of the model file),
// the path, size and modification time of every file the constants are mapped from (external
// data), and, per constant, its name, dtypes, shapes and a sample of its bytes. Anything else
// (missing, stale, truncated, unreadable) means: convert as without a cache, then rewrite the file
// through a temporary and a rename, so that a reader never maps half a file. A file that cannot be
// written costs a warning, never the load.
#pragma once

#include <string>
#include <vector>

#include "registry/tensor.h"

namespace asc {

struct WeightCacheOptions {
  std::string file;      // the cache file; empty: no cache
  std::string identity;  // what the weights come from (weight_cache_for's: the model file)
};

// The options for `model_path` at precision `to` with cache files under `dir` (created when
// missing): the file is named by a hash of the model's absolute path and the dtype; the identity
// holds that path, the file's size and its modification time. Throws Error when the model file
// cannot be read (stat).
WeightCacheOptions weight_cache_for(const std::string& dir, const std::string& model_path,
                                    DType to);

// One constant to store: its value name, the constant as the model holds it (f32 to convert, or
// already in `dtype` when only its layout changes), the dtype it is stored in, and when the
// layout changes (weights packed for the cube, runtime/weight_pack.h) the layout's name and the
// stored shape; all of them are part of the key.
struct CacheEntry {
  std::string name;
  const Tensor* source = nullptr;
  DType dtype = DType::kUndefined;  // stored
  std::string layout;               // empty: the source's own layout and shape
  Shape shape;                      // the stored shape when `layout` is set

  const Shape& stored_shape() const { return layout.empty() ? source->shape() : shape; }
};

// The stored tensors (one per entry, in its dtype, views of the mapped file) when `o.file`
// matches o.identity, the precision `to` and the entries; empty otherwise.
std::vector<Tensor> weight_cache_load(const WeightCacheOptions& o, DType to,
                                      const std::vector<CacheEntry>& entries);

// Writes `stored` (one per entry) as o.file. Returns false (and logs a warning naming the
// file and the reason) when it cannot.
bool weight_cache_store(const WeightCacheOptions& o, DType to,
                        const std::vector<CacheEntry>& entries, const std::vector<Tensor>& stored);

}  // namespace asc

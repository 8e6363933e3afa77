#include "runtime/precision.h"

#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/cpu/vec.h"
#include "runtime/file_maps.h"

namespace asc {
namespace {

// True when node input k is declared with a fixed dtype (e.g. "f32") rather than a constraint.
bool fixed_dtype_param(const Node& n, size_t k) {
  if (!n.def || n.def->inputs.empty()) return false;
  const ParamDef& p = n.def->inputs[std::min(k, n.def->inputs.size() - 1)];
  return dtype_from_name(p.type) != DType::kUndefined;
}

// Drops this process's page-table entries for the whole pages of [p, p + n) when they lie in a
// read-only file mapping (a memory-mapped weight file): the f32 original of a converted weight
// then stops counting toward the resident set (the page cache keeps the file). Heap memory and
// writable mappings are never touched.
void release_pages(const void* p, size_t n, const std::vector<FileMap>& maps) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + n) / page * page;
  if (e <= b) return;
  for (const FileMap& m : maps)
    if (m.read_only && m.begin <= b && e <= m.end) {
      madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
      return;
    }
}

// A constant in the low dtype (convert_values, in parallel chunks).
Tensor converted(const Tensor& t, DType to) {
  Tensor c = weight_storage(to, t.shape());
  const int64_t n = t.numel();
  const float* x = t.data_as<float>();
  uint16_t* y = c.data_as<uint16_t>();
  constexpr int64_t kChunk = 1 << 18;
  tbb::parallel_for(int64_t{0}, (n + kChunk - 1) / kChunk, [&](int64_t ci) {
    const int64_t b = ci * kChunk, e = std::min(n, b + kChunk);
    convert_values(x + b, y + b, e - b, to);
  });
  return c;
}

int add_cast(Graph& g, int from, int to_value, DType to) {
  Node n;
  n.name = cat(g.values[to_value].name, "/precision_cast");
  n.op_type = "Cast";
  // Cast-6 on: `to` is an int (Cast-1 names the type with a string).
  n.opset = std::max(g.opsets.count("") ? g.opsets.at("") : 17, 6);
  n.def = global_registry().find("", "Cast", n.opset);
  if (!n.def) throw UnsupportedError("precision conversion needs Cast, which is not registered");
  n.attrs.set("to", static_cast<int64_t>(to));
  n.inputs = {from};
  n.outputs = {to_value};
  return g.add_node(std::move(n));
}

}  // namespace

// Storage for a converted constant. Weights of 2 MiB and more go into 2 MiB-aligned memory
// advised for transparent huge pages: a decoding step streams every weight once, and with
// 4 KiB pages that stream takes a TLB miss every 4 KiB (a plain read of 2 GB ran 5-10 % faster
// from huge pages on the AMD EPYC guest of docs/PERFORMANCE.md). Where THP is off, the advice is
// ignored and the memory is ordinary.
Tensor weight_storage(DType to, const Shape& shape) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t bytes = static_cast<size_t>(numel(shape)) * dtype_size(to);
  if (bytes < kHuge) return Tensor(to, shape);
  // Aligned start, no rounding of the size: the last partial 2 MiB keeps small pages, so the
  // resident set does not grow.
  void* p = nullptr;
  if (posix_memalign(&p, kHuge, bytes) != 0) throw std::bad_alloc();
  madvise(p, bytes / kHuge * kHuge, MADV_HUGEPAGE);
  return Tensor::view(to, shape, p, std::shared_ptr<void>(p, &std::free));
}

void convert_values(const float* x, uint16_t* y, int64_t n, DType to) {
  const uint16_t max_bits = to == DType::kF16 ? 0x7BFF : 0x7F7F;  // largest finite, no sign
  const uint16_t inf_bits = to == DType::kF16 ? 0x7C00 : 0x7F80;
  cpu::vec_cast(DType::kF32, to, x, y, n);
  // A max-reduction first (it vectorises, where the fix-up loop below took 5-7 % of a bf16 load
  // in `perf`): a span without infinities or NaNs (magnitude bits below inf_bits) is done.
  uint16_t top = 0;
  for (int64_t i = 0; i < n; ++i) top = std::max<uint16_t>(top, y[i] & 0x7FFF);
  if (top < inf_bits) return;
  for (int64_t i = 0; i < n; ++i)
    if ((y[i] & 0x7FFF) == inf_bits && std::isfinite(x[i]))
      y[i] = static_cast<uint16_t>((y[i] & 0x8000) | max_bits);
}

DType parse_precision(const std::string& name) {
  if (name == "fp32") return DType::kF32;
  if (name == "fp16") return DType::kF16;
  if (name == "bf16") return DType::kBF16;
  throw Error(cat("precision '", name, "' is not one of fp32, fp16, bf16"));
}

int convert_precision(Graph& g, DType to,
                      const std::function<bool(const std::string& name)>& low_io,
                      const WeightCacheOptions& cache, const WeightPacking* packing) {
  // Under fp32 only the packed weights change (f32 panels, or a bf16 model's bf16 panels).
  const bool packs = packing && !packing->empty();
  if (to == DType::kUndefined || (to == DType::kF32 && !packs)) return 0;
  if (to != DType::kF32 && to != DType::kF16 && to != DType::kBF16)
    throw Error(cat("precision ", dtype_name(to), " is not one of f32, f16, bf16"));
  const bool convert = to != DType::kF32;
  const size_t nv = g.values.size();
  std::vector<bool> fixed(nv, false), is_output(nv, false);
  for (const Node& n : g.nodes)
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0 && fixed_dtype_param(n, k)) fixed[n.inputs[k]] = true;
  for (int v : g.outputs) is_output[v] = true;

  std::vector<int> todo;
  std::vector<CacheEntry> entries;
  for (size_t v = 0; v < nv; ++v) {
    const Value& val = g.values[v];
    if (!val.constant) continue;
    const bool pack = packs && packing->packs(static_cast<int>(v));
    if (!pack && !(convert && val.constant->dtype() == DType::kF32 && !fixed[v])) continue;
    todo.push_back(static_cast<int>(v));
    entries.push_back({val.name, &*val.constant, pack ? packing->dtype : to, {}, {}});
    if (pack) {
      entries.back().layout = packing->layout();
      entries.back().shape = packing->packed_shape(val.constant->shape());
    }
  }
  std::vector<Tensor> stored = weight_cache_load(cache, to, entries);
  const bool mapped = !stored.empty() || todo.empty();
  const std::vector<FileMap> maps = file_maps();
  for (const CacheEntry& e : entries) {  // one at a time: the resident set holds one original
    if (!mapped)
      stored.push_back(e.layout.empty() ? converted(*e.source, to)
                                        : packing->pack_converted(*e.source));
    if (e.source->data()) release_pages(e.source->data(), e.source->nbytes(), maps);
  }
  if (!mapped && !cache.file.empty()) weight_cache_store(cache, to, entries, stored);
  if (mapped && !cache.file.empty())
    spdlog::info("weight cache: mapped {} constants from '{}'", todo.size(), cache.file);
  for (size_t i = 0; i < todo.size(); ++i) {
    Value& val = g.values[todo[i]];
    val.constant = std::move(stored[i]);
    val.type.dtype = val.constant->dtype();
    if (!entries[i].layout.empty()) val.type.shape = to_sym(val.constant->shape());
  }
  const int converted_count = static_cast<int>(todo.size());
  if (!convert) return converted_count;
  for (Node& n : g.nodes) {
    bool keep_f32 = false;
    for (int o : n.outputs) keep_f32 = keep_f32 || (o >= 0 && fixed[o]);
    if (keep_f32) continue;
    for (const char* a : {"to", "dtype"}) {
      if (!n.attrs.has(a)) continue;
      const AttrKind kind = attr_kind(n.attrs.all().at(a));
      if (kind == AttrKind::kInt && n.attrs.i(a) == static_cast<int64_t>(DType::kF32))
        n.attrs.set(a, static_cast<int64_t>(to));
      else if (kind == AttrKind::kString && n.attrs.s(a) == "FLOAT")  // Cast-1's type names
        n.attrs.set(a, std::string(to == DType::kBF16 ? "BFLOAT16" : "FLOAT16"));
    }
  }
  // Inputs: one Cast each, read by every former consumer.
  for (int in : std::vector<int>(g.inputs)) {
    if (g.values[in].type.dtype != DType::kF32 || is_output[in]) continue;
    if (low_io && low_io(g.values[in].name)) {
      g.values[in].type.dtype = to;
      continue;
    }
    const int low =
        g.add_value(cat(g.values[in].name, "/precision"), {to, g.values[in].type.shape});
    for (Node& n : g.nodes)
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] == in && !fixed_dtype_param(n, k)) n.inputs[k] = low;
    add_cast(g, in, low, to);
  }
  // Outputs declared f32 and produced by a node: the node writes a low-precision value that a
  // Cast widens into the output.
  for (int out : g.outputs) {
    Value& val = g.values[out];
    if (val.type.dtype != DType::kF32 || val.producer < 0 || fixed[out]) continue;
    if (low_io && low_io(val.name)) {
      val.type.dtype = to;
      continue;
    }
    const int prod = val.producer;
    const int low = g.add_value(cat(val.name, "/precision"), {to, g.values[out].type.shape});
    for (int& o : g.nodes[prod].outputs)
      if (o == out) o = low;
    g.values[low].producer = prod;
    g.values[out].producer = -1;
    for (Node& n : g.nodes)
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] == out) n.inputs[k] = low;
    add_cast(g, low, out, DType::kF32);
  }
  return converted_count;
}

}  // namespace asc

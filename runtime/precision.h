// Precision conversion at load, like the precision modes of Ascend's model converter: float32
// weights and activations are stored in f16 or bf16; kernels still compute (and accumulate) in
// f32. Inputs and outputs keep their f32 interface through Cast nodes at the graph's edges.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "runtime/graph.h"
#include "runtime/weight_cache.h"
#include "runtime/weight_pack.h"

namespace asc {

// "fp32" | "fp16" | "bf16" -> kF32 | kF16 | kBF16; throws Error naming the accepted values.
DType parse_precision(const std::string& name);

// Converts the f32 data flow of `g` to `to` (kF16 or kBF16; kF32 changes nothing):
// - f32 constants become `to`, except those read as fixed-f32 parameters (Resize scales, ...);
// - int attributes `to`/`dtype` naming FLOAT (Cast, EyeLike, ...) name `to` instead, unless that
//   output feeds a fixed-f32 parameter;
// - f32 graph inputs are cast to `to` once, and declared-f32 graph outputs cast back; those for
//   which `low_io` says true instead change their own dtype to `to` (no Cast: the caller feeds
//   and reads `to`, as a generator's KV cache stored at the model's precision).
// With `cache.file` set, the converted constants come from that file when it matches, and are
// written to it when not (runtime/weight_cache.h).
// Returns the number of constants converted or packed.
// With `packing` (runtime/weight_pack.h), the weights it names are also packed as they are
// converted (and cached packed), or packed alone when already in its dtype (then even under
// kF32); the caller then rewrites their nodes (use_packed_weights).
int convert_precision(Graph& g, DType to,
                      const std::function<bool(const std::string& name)>& low_io = {},
                      const WeightCacheOptions& cache = {}, const WeightPacking* packing = nullptr);

// x[0, n) in `to` (f16 or bf16), rounded to nearest even; finite values beyond its range clamp to
// its largest finite value (as model converters do) instead of becoming infinities: a mask of
// -FLT_MAX stays a huge negative number, so masked rows do not turn into NaN.
void convert_values(const float* x, uint16_t* y, int64_t n, DType to);

// Storage for a weight written at load (converted or packed): from 2 MiB up, 2 MiB-aligned and
// advised for transparent huge pages.
Tensor weight_storage(DType dtype, const Shape& shape);

}  // namespace asc

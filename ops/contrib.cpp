// The contrib family's registration and shared host helpers (ops/contrib.h).
#include "ops/contrib.h"

#include <cstring>
#include <vector>

#include "ops/ops.h"

namespace asc {

void register_contrib(Registry& r) {
  contrib::add_norm(r);
  contrib::add_skip_layer_norm(r);
  contrib::add_rotary(r);
  contrib::add_gqa(r);
}

namespace contrib {

bool dims_differ(const Dim& a, const Dim& b) {
  return a.known() && b.known() && a.value() != b.value();
}

void check_skip_shapes(const char* op, const InferContext& c,
                       std::initializer_list<std::pair<size_t, const char*>> params) {
  const TensorType &x = c.inputs[0], &skip = c.inputs[1];
  const SymShape& xs = *x.shape;
  if (skip.shape) {
    bool same = skip.shape->size() == xs.size();
    for (size_t i = 0; same && i < xs.size(); ++i) same = !dims_differ((*skip.shape)[i], xs[i]);
    if (!same)
      throw ShapeError(cat(op, ": skip ", skip.str(), " must have the input's shape ", x.str()));
  }
  for (const auto& [k, name] : params) {
    if (k >= c.inputs.size() || c.inputs[k].dtype == DType::kUndefined) continue;
    const TensorType& p = c.inputs[k];
    if (p.shape && (p.shape->size() != 1 || dims_differ((*p.shape)[0], xs.back())))
      throw ShapeError(cat(op, ": ", name, " ", p.str(), " must be [hidden] for input ", x.str()));
  }
}

void load_f32(DType dt, const void* base, int64_t i, int64_t n, float* out) {
  switch (dt) {
    case DType::kF32:
      std::memcpy(out, static_cast<const float*>(base) + i, static_cast<size_t>(n) * 4);
      return;
    case DType::kF16: {
      const f16* p = static_cast<const f16*>(base) + i;
      for (int64_t k = 0; k < n; ++k) out[k] = f16_to_f32(p[k]);
      return;
    }
    case DType::kBF16: {
      const bf16* p = static_cast<const bf16*>(base) + i;
      for (int64_t k = 0; k < n; ++k) out[k] = bf16_to_f32(p[k]);
      return;
    }
    default:
      for (int64_t k = 0; k < n; ++k) out[k] = static_cast<float>(load_as_double(dt, base, i + k));
  }
}

void store_f32(DType dt, void* base, int64_t i, int64_t n, const float* in) {
  switch (dt) {
    case DType::kF32:
      std::memcpy(static_cast<float*>(base) + i, in, static_cast<size_t>(n) * 4);
      return;
    case DType::kF16: {
      f16* p = static_cast<f16*>(base) + i;
      for (int64_t k = 0; k < n; ++k) p[k] = f32_to_f16(in[k]);
      return;
    }
    case DType::kBF16: {
      bf16* p = static_cast<bf16*>(base) + i;
      for (int64_t k = 0; k < n; ++k) p[k] = f32_to_bf16(in[k]);
      return;
    }
    default:
      for (int64_t k = 0; k < n; ++k) store_from_double(dt, base, i + k, in[k]);
  }
}

namespace {

ASC_HOST_CLONES_V3
void rotate_impl(const float* x, const float* cos, const float* sin, int64_t rot, int64_t head,
                 bool interleaved, float* y) {
  const int64_t half = rot / 2;
  if (interleaved) {
    for (int64_t k = 0; k < half; ++k) {
      const float a = x[2 * k], b = x[2 * k + 1];
      y[2 * k] = a * cos[k] - b * sin[k];
      y[2 * k + 1] = b * cos[k] + a * sin[k];
    }
  } else {
    for (int64_t k = 0; k < half; ++k) {  // vectorisable: a, b and y are disjoint ranges
      const float a = x[k], b = x[k + half];
      y[k] = a * cos[k] - b * sin[k];
      y[k + half] = b * cos[k] + a * sin[k];
    }
  }
  if (y != x)
    for (int64_t k = rot; k < head; ++k) y[k] = x[k];
}

}  // namespace

void rotate(const float* x, const float* cos, const float* sin, int64_t rot, int64_t head,
            bool interleaved, float* y) {
  rotate_impl(x, cos, sin, rot, head, interleaved, y);
}

// Element-wise form, independent of rotate's pair loops: y[i] = x[i] cos[c] + sign x[j] sin[c]
// with partner j, angle c and sign per element.
void rotate_ref(const double* x, const double* cos, const double* sin, int64_t rot, int64_t head,
                bool interleaved, double* y) {
  const int64_t half = rot / 2;
  for (int64_t i = 0; i < head; ++i) {
    if (i >= rot) {
      y[i] = x[i];
      continue;
    }
    const int64_t c = interleaved ? i / 2 : i % half;
    const int64_t j = interleaved ? (i % 2 == 0 ? i + 1 : i - 1) : (i + half) % rot;
    const double sign = (interleaved ? i % 2 == 0 : i < half) ? -1.0 : 1.0;
    y[i] = x[i] * cos[c] + sign * x[j] * sin[c];
  }
}

}  // namespace contrib
}  // namespace asc

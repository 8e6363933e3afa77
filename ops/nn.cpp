// Spatial neural-net ops: Conv, ConvTranspose (conv.cpp), pools and MaxUnpool (pool.cpp), Resize
// and Upsample (resize.cpp), GridSample and RoiAlign (nn_sample.cpp), MaxRoiPool (nn_roi_pool.cpp);
// ConvInteger / QLinearConv (conv_integer.cpp). This file holds the shared
// window geometry and the compute-type buffers declared in nn.h.
#include "ops/nn.h"

#include <algorithm>

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += cat(i ? "," : "", v[i]);
  return s + "]";
}

// attribute `name` with one entry per spatial dim, or `dflt` for each when empty.
std::vector<int64_t> per_dim(std::string_view op, const Attrs& a, const char* name, size_t n,
                             int64_t dflt) {
  if (!a.has(name) || a.ints(name).empty()) return std::vector<int64_t>(n, dflt);
  const auto& v = a.ints(name);
  if (v.size() != n)
    throw ShapeError(cat(op, ": ", name, " ", ints_str(v), " has ", v.size(), " entries, want ", n,
                         " (one per spatial dim)"));
  return v;
}

template <class C>
void convert_in(const Tensor& t, C* dst) {
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::kF32:
      std::copy_n(t.data_as<float>(), n, dst);
      break;
    case DType::kF64:
      std::copy_n(t.data_as<double>(), n, dst);
      break;
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(f16_to_f32(t.data_as<f16>()[i]));
      break;
    case DType::kI8:
      std::copy_n(t.data_as<int8_t>(), n, dst);
      break;
    case DType::kU8:
      std::copy_n(t.data_as<uint8_t>(), n, dst);
      break;
    default:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(t.at(i));
  }
}

template <class C>
void convert_out(Tensor& t, const C* src) {
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::kF32:
      std::copy_n(src, n, t.data_as<float>());
      break;
    case DType::kF64:
      std::copy_n(src, n, t.data_as<double>());
      break;
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) t.data_as<f16>()[i] = f32_to_f16(static_cast<float>(src[i]));
      break;
    default:  // integers: values are exact copies of input elements (max pools)
      for (int64_t i = 0; i < n; ++i) t.set(i, static_cast<double>(src[i]));
  }
}

}  // namespace

const std::vector<DType>& nn_float_types() {
  static const std::vector<DType> t = {DType::kF32, DType::kF16, DType::kF64};
  return t;
}

const std::vector<DType>& nn_float_types_22() {
  static const std::vector<DType> t = {DType::kF32, DType::kF16, DType::kF64, DType::kBF16};
  return t;
}

SymShape sym_dims(const std::vector<int64_t>& dims) {
  SymShape s;
  for (int64_t d : dims) s.emplace_back(d >= 0 ? d : int64_t{-1});  // Dim(-1) is unknown
  return s;
}

void check_spatial_rank(std::string_view op, const SymShape& x, size_t min_spatial) {
  if (x.size() < 2 + min_spatial || x.size() > 5)
    throw ShapeError(cat(op, ": input ", to_string(x), " is not [N, C, spatial...] with ",
                         min_spatial, " to 3 spatial dims"));
}

Window resolve_window(std::string_view op, const Attrs& a, const std::vector<int64_t>& in,
                      const std::vector<int64_t>& kernel, bool ceil_mode) {
  const size_t n = in.size();
  Window w;
  w.in = in;
  w.k = kernel;
  if (w.k.size() != n)
    throw ShapeError(
        cat(op, ": kernel_shape ", ints_str(w.k), " does not have ", n, " spatial dims"));
  w.s = per_dim(op, a, "strides", n, 1);
  w.d = per_dim(op, a, "dilations", n, 1);
  std::vector<int64_t> pads(2 * n, 0);
  if (a.has("pads") && !a.ints("pads").empty()) {
    pads = a.ints("pads");
    if (pads.size() != 2 * n)
      throw ShapeError(
          cat(op, ": pads ", ints_str(pads), " has ", pads.size(), " entries, want ", 2 * n));
  }
  const std::string pad_mode = a.has("auto_pad") ? a.s("auto_pad") : "NOTSET";
  if (pad_mode != "NOTSET" && pad_mode != "SAME_UPPER" && pad_mode != "SAME_LOWER" &&
      pad_mode != "VALID")
    throw ShapeError(cat(op, ": unknown auto_pad '", pad_mode, "'"));
  w.pb.assign(n, 0);
  w.pe.assign(n, 0);
  w.out.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (w.k[i] < 1 || w.s[i] < 1 || w.d[i] < 1)
      throw ShapeError(cat(op, ": kernel_shape ", ints_str(w.k), ", strides ", ints_str(w.s),
                           " and dilations ", ints_str(w.d), " must be positive"));
    if (pad_mode == "NOTSET") {
      w.pb[i] = pads[i];
      w.pe[i] = pads[n + i];
      if (w.pb[i] < 0 || w.pe[i] < 0) throw ShapeError(cat(op, ": negative pads ", ints_str(pads)));
    }
    if (in[i] < 0) continue;
    if (pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER") {
      w.out[i] = (in[i] + w.s[i] - 1) / w.s[i];
      const int64_t total = std::max<int64_t>(0, (w.out[i] - 1) * w.s[i] + w.ek(i) - in[i]);
      w.pb[i] = pad_mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pe[i] = total - w.pb[i];
      continue;
    }
    const int64_t span = in[i] + w.pb[i] + w.pe[i] - w.ek(i);
    if (span < 0)
      throw ShapeError(cat(op, ": window ", ints_str(w.k), " (dilations ", ints_str(w.d),
                           ") is larger than the padded input ", ints_str(in)));
    int64_t o = (ceil_mode ? (span + w.s[i] - 1) / w.s[i] : span / w.s[i]) + 1;
    if (ceil_mode && (o - 1) * w.s[i] >= in[i] + w.pb[i]) --o;
    w.out[i] = o;
  }
  return w;
}

const float* read_as(const Tensor& t, std::vector<float>& scratch, float) {
  if (t.dtype() == DType::kF32) return t.data_as<float>();
  scratch.resize(static_cast<size_t>(t.numel()));
  convert_in(t, scratch.data());
  return scratch.data();
}

const double* read_as(const Tensor& t, std::vector<double>& scratch, double) {
  if (t.dtype() == DType::kF64) return t.data_as<double>();
  scratch.resize(static_cast<size_t>(t.numel()));
  convert_in(t, scratch.data());
  return scratch.data();
}

void write_as(Tensor& t, const float* src) {
  convert_out(t, src);
}
void write_as(Tensor& t, const double* src) {
  convert_out(t, src);
}

void register_nn(Registry& r) {
  register_nn_conv(r);
  register_nn_pool(r);
  register_nn_resize(r);
  register_nn_sample(r);
  register_nn_roi_pool(r);
  register_nn_col2im(r);
  register_nn_affine_grid(r);
}

}  // namespace asc

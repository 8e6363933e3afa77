// Shared pieces of the nn family (ops/nn*.cpp, conv*.cpp, pool*.cpp, resize*.cpp): the sliding
// window geometry of Conv/ConvTranspose/pools and the compute-type buffers of its host kernels.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ops/ops.h"
#include "registry/infer.h"

namespace asc {

void register_nn_conv(Registry& r);  // Conv; calls register_conv_transpose
void register_conv_transpose(Registry& r);
void register_conv_integer(Registry& r);
void register_nn_pool(Registry& r);
void register_nn_resize(Registry& r);
void register_nn_sample(Registry& r);
void register_nn_roi_pool(Registry& r);
void register_nn_col2im(Registry& r);       // Col2Im (nn_col2im.cpp)
void register_nn_affine_grid(Registry& r);  // AffineGrid (nn_affine_grid.cpp)

// Conv and pool dtypes (ONNX's T for these ops).
const std::vector<DType>& nn_float_types();
// nn_float_types() and bf16: what the opset 22 versions of the family take (ONNX's bf16 sweep).
const std::vector<DType>& nn_float_types_22();

// A sliding window over the spatial dims of an [N, C, spatial...] tensor, resolved from the
// kernel_shape / strides / dilations / pads / auto_pad / ceil_mode attributes. Every vector has
// one entry per spatial dim; `in` and `out` are -1 where the input dim is unknown (inference).
// Output dim: floor_or_ceil((in + pb + pe - ek) / s) + 1 with ek = (k - 1) * d + 1; SAME_* pads
// so that out = ceil(in / s) (the odd pad goes to the end for SAME_UPPER, the start for
// SAME_LOWER); VALID has no pads. With ceil_mode a last window starting in the end pad is dropped.
struct Window {
  std::vector<int64_t> in, k, s, d, pb, pe, out;
  int64_t ek(size_t i) const { return (k[i] - 1) * d[i] + 1; }
};

// `kernel` is the kernel_shape attribute or the weight's spatial dims; throws ShapeError naming
// `op` on inconsistent attributes or an empty output.
Window resolve_window(std::string_view op, const Attrs& a, const std::vector<int64_t>& in,
                      const std::vector<int64_t>& kernel, bool ceil_mode);

// The window padded to three spatial dims.
struct Geom3 {
  int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

inline Geom3 geom3(const Window& w) {
  Geom3 g;
  const size_t n = w.k.size(), lead = 3 - n;
  for (size_t i = 0; i < 3; ++i) {
    const bool real = i >= lead;
    const size_t j = real ? i - lead : 0;
    g.in[i] = real ? w.in[j] : 1;
    g.out[i] = real ? w.out[j] : 1;
    g.k[i] = real ? w.k[j] : 1;
    g.s[i] = real ? w.s[j] : 1;
    g.d[i] = real ? w.d[j] : 1;
    g.pb[i] = real ? w.pb[j] : 0;
    g.pe[i] = real ? w.pe[j] : 0;
  }
  return g;
}

// Conv geometry and compute, shared with ConvInteger (conv_integer.cpp). conv_window resolves
// the window from X's and W's dims (kernel_shape defaults to W's spatial dims); infer_conv checks
// X [N, C, ...], W [M, C / group, k...] (and B [M] when has_bias); conv_compute writes
// Y = conv(X, W) + B (bias may be null) for C = float or double (layouts in conv.cpp).
Window conv_window(const char* op, const Attrs& a, const std::vector<int64_t>& x,
                   const std::vector<int64_t>& w);
std::vector<TensorType> infer_conv(const InferContext& ctx, const char* op, DType out_dtype,
                                   bool has_bias);
template <class C>
void conv_compute(const Window& w, int64_t group, const Shape& xs, const C* x, const Shape& ws,
                  const C* wt, const C* bias, C* y);

SymShape sym_dims(const std::vector<int64_t>& dims);  // -1 becomes an unknown dim
// Checks X is [N, C, spatial...] with 1..3 spatial dims (the kernels' limit).
void check_spatial_rank(std::string_view op, const SymShape& x, size_t min_spatial = 1);

// Host kernels compute in float (f16, f32, 8/16-bit ints) or double (f64, 32/64-bit ints).
template <class F>
decltype(auto) with_compute(DType dt, F&& f) {
  if (dt == DType::kF64 || (dtype_is_integer(dt) && dtype_size(dt) >= 4)) return f(double{});
  return f(float{});
}

// A tensor's elements as C: a view when the dtype is C's, else converted into `scratch`.
const float* read_as(const Tensor& t, std::vector<float>& scratch, float tag);
const double* read_as(const Tensor& t, std::vector<double>& scratch, double tag);
// Stores t.numel() elements of src into t, converting to its dtype.
void write_as(Tensor& t, const float* src);
void write_as(Tensor& t, const double* src);

// An output written as C: t's own storage when its dtype is C's, else a buffer that commit()
// converts into t.
template <class C>
class OutBuf {
 public:
  explicit OutBuf(Tensor& t) : t_(t) {
    if (same()) {
      p_ = t.data_as<C>();
    } else {
      own_.resize(static_cast<size_t>(t.numel()));
      p_ = own_.data();
    }
  }
  C* data() { return p_; }
  void commit() {
    if (!same()) write_as(t_, p_);
  }

 private:
  bool same() const { return t_.dtype() == (sizeof(C) == 8 ? DType::kF64 : DType::kF32); }
  Tensor& t_;
  std::vector<C> own_;
  C* p_ = nullptr;
};

}  // namespace asc

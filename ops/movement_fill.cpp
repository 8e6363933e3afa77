// Ops that generate or mask values: ConstantOfShape, Range, EyeLike, Trilu.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "ops/movement.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

bool is_movement_type(DType t) {
  for (DType x : movement_types())
    if (x == t) return true;
  return false;
}

// One element of dtype t holding v, as bytes.
std::vector<std::byte> element_bytes(DType t, double v) {
  Tensor e(t, {});
  e.set(0, v);
  return {bytes_of(e), bytes_of(e) + dtype_size(t)};
}

// ---- ConstantOfShape -------------------------------------------------------------------------
const Tensor& constant_value(const Attrs& a) {
  const Tensor& v = a.tensor("value");
  if (v.numel() != 1 || !is_movement_type(v.dtype()))
    throw ShapeError(
        cat("ConstantOfShape: value must be one numeric or bool element, got ", v.desc().str()));
  return v;
}

std::vector<TensorType> infer_constant_of_shape(const InferContext& c) {
  const Tensor& v = constant_value(c.attrs);
  const Shape shape = need_ints(c, 0, "input");
  for (int64_t d : shape)
    if (d < 0) throw ShapeError(cat("ConstantOfShape: negative dim in ", to_string(shape)));
  return {{v.dtype(), to_sym(shape)}};
}

// ---- Range -----------------------------------------------------------------------------------
// Element count max(ceil((limit - start) / delta), 0): exact for integers, in double for floats.
int64_t range_count(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  for (const Tensor* t : {&start, &limit, &delta})
    if (t->numel() != 1)
      throw ShapeError(cat("Range: start, limit and delta must be scalars, got ", t->desc().str()));
  if (dtype_is_integer(start.dtype())) {
    const int64_t s = to_int64s(start)[0], l = to_int64s(limit)[0], d = to_int64s(delta)[0];
    if (d == 0) throw ShapeError("Range: delta is 0");
    const int64_t span = l - s;
    int64_t n = span / d;
    if (n * d != span && ((span > 0) == (d > 0))) ++n;
    if (n > (int64_t{1} << 40)) throw ShapeError(cat("Range: ", n, " elements is too many"));
    return std::max<int64_t>(n, 0);
  }
  const double s = start.at(0), l = limit.at(0), d = delta.at(0);
  if (d == 0 || !std::isfinite(s) || std::isnan(l) || !std::isfinite(d))
    throw ShapeError(cat("Range: start ", s, ", limit ", l, ", delta ", d, " give no range"));
  const double n = std::max(std::ceil((l - s) / d), 0.0);
  if (!(n <= 1e12)) throw ShapeError(cat("Range: ", n, " elements is too many"));
  return static_cast<int64_t>(n);
}

template <typename T>
void range_fill(Tensor& y, const Tensor& start, const Tensor& delta) {
  const T s = *start.data_as<T>(), d = *delta.data_as<T>();
  T* out = y.data_as<T>();
  for (int64_t i = 0; i < y.numel(); ++i) out[i] = static_cast<T>(s + static_cast<T>(i) * d);
}

void range_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  switch (in[0].dtype()) {
    case DType::kF32:
      return range_fill<float>(out[0], in[0], in[2]);
    case DType::kF64:
      return range_fill<double>(out[0], in[0], in[2]);
    case DType::kI16:
      return range_fill<int16_t>(out[0], in[0], in[2]);
    case DType::kI32:
      return range_fill<int32_t>(out[0], in[0], in[2]);
    case DType::kI64:
      return range_fill<int64_t>(out[0], in[0], in[2]);
    default:
      throw ShapeError(cat("Range: dtype ", dtype_name(in[0].dtype()), " is not supported"));
  }
}

// ---- EyeLike ---------------------------------------------------------------------------------
DType eye_dtype(const Attrs& a, DType input) {
  const int64_t dt = a.i("dtype");
  if (dt < 0) return input;
  const DType t = static_cast<DType>(dt);
  if (dt > 255 || !is_movement_type(t))
    throw ShapeError(cat("EyeLike: dtype ", dt, " is not a numeric or bool dtype"));
  return t;
}

void eye_kernel(const LaunchContext& ctx, std::span<const Tensor>, std::span<Tensor> out) {
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  std::memset(y.data(), 0, y.nbytes());
  const auto one = element_bytes(y.dtype(), 1.0);
  const int64_t rows = y.shape()[0], cols = y.shape()[1];
  const int64_t k = std::clamp<int64_t>(ctx.attr().i("k"), -rows, cols);  // no overflow below
  const size_t es = one.size();
  for (int64_t i = std::max<int64_t>(0, -k); i < rows && i + k < cols; ++i)
    std::memcpy(bytes_of(y) + (i * cols + i + k) * static_cast<int64_t>(es), one.data(), es);
}

// ---- Trilu -----------------------------------------------------------------------------------
// Keeps element (i, j) of every trailing [rows, cols] matrix where j - i >= k (upper) or
// j - i <= k (lower); the rest is zero. Per row the kept columns are one range: one memcpy.
int64_t trilu_k(std::span<const Tensor> in) {
  if (!has_input(in, 1)) return 0;
  if (in[1].numel() != 1)
    throw ShapeError(cat("Trilu: k must be a scalar, got ", in[1].desc().str()));
  // Beyond +-2^40 every element is on one side; clamping keeps i + k from overflowing.
  return std::clamp<int64_t>(to_int64s(in[1])[0], -(int64_t{1} << 40), int64_t{1} << 40);
}

void trilu_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  const bool upper = ctx.attr().i("upper") != 0;
  const int64_t k = trilu_k(in);
  const size_t r = x.shape().size();
  const int64_t rows = x.shape()[r - 2], cols = x.shape()[r - 1];
  const int64_t es = static_cast<int64_t>(dtype_size(x.dtype()));
  const int64_t mats = x.numel() / (rows * cols);
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t base = (m * rows + i) * cols * es;
      // Kept columns [lo, hi).
      const int64_t lo = upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
      const int64_t hi = upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
      std::byte* dst = bytes_of(y) + base;
      const std::byte* src = bytes_of(x) + base;
      std::memset(dst, 0, static_cast<size_t>(cols * es));
      if (hi > lo) std::memcpy(dst + lo * es, src + lo * es, static_cast<size_t>((hi - lo) * es));
    }
}

}  // namespace

void register_movement_fill(Registry& r) {
  r.add(def_op("ConstantOfShape", 9)
            .input("input", "i64", Arity::kSingle, true)
            .output("output", "T2")
            .attr("value", AttrKind::kTensor, Tensor(DType::kF32, {1}))
            .type_constraint("T2", movement_types())
            .describe("output = a tensor of dims `input` filled with value (default f32 0)")
            .infer(infer_constant_of_shape)
            .host_kernel([](const LaunchContext& ctx, std::span<const Tensor>,
                            std::span<Tensor> out) {
              const Tensor& v = constant_value(ctx.attr());
              fill_elements(bytes_of(out[0]), out[0].numel(), bytes_of(v), dtype_size(v.dtype()));
            })
            .reference([](const Attrs& a, std::span<const Tensor>, std::span<Tensor> out) {
              const double v = a.tensor("value").at(0);
              for (int64_t i = 0; i < out[0].numel(); ++i) out[0].set(i, v);
            }));
  r.add(def_op("Range", 11)
            .input("start", "T", Arity::kSingle, true)
            .input("limit", "T", Arity::kSingle, true)
            .input("delta", "T", Arity::kSingle, true)
            .output("output", "T")
            .type_constraint("T", {DType::kF32, DType::kF64, DType::kI16, DType::kI32, DType::kI64})
            .describe("output = start, start + delta, ... while before limit (1-D)")
            .infer([](const InferContext& c) {
              // Dtype and rank while a bound is not known yet (the plan then waits for values).
              for (size_t k = 0; k < 3; ++k)
                if (k >= c.values.size() || !c.values[k])
                  return std::vector<TensorType>{{c.inputs.at(0).dtype, SymShape(1, Dim())}};
              const int64_t n = range_count(need_value(c, 0), need_value(c, 1), need_value(c, 2));
              return std::vector<TensorType>{{c.inputs[0].dtype, SymShape(1, Dim(n))}};
            })
            .host_kernel(range_kernel)
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              for (int64_t i = 0; i < out[0].numel(); ++i)
                out[0].set(i, in[0].at(0) + static_cast<double>(i) * in[2].at(0));
            }));
  r.add(def_op("EyeLike", 9)
            .input("input", "T1")
            .output("output", "T2")
            .attr("dtype", AttrKind::kInt, int64_t{-1})
            .attr("k", AttrKind::kInt, int64_t{0})
            .type_constraint("T1", movement_types())
            .type_constraint("T2", movement_types())
            .describe("output = input-shaped 2-D zeros with ones on diagonal k (dtype: attr or "
                      "input's)")
            .infer([](const InferContext& c) {
              const TensorType& x = c.inputs[0];
              const DType dt = eye_dtype(c.attrs, x.dtype);
              if (x.shape && x.shape->size() != 2)
                throw ShapeError(cat("EyeLike: input must be 2-D, got ", to_string(*x.shape)));
              return std::vector<TensorType>{{dt, x.shape ? x.shape : SymShape(2, Dim())}};
            })
            .host_kernel(eye_kernel)
            .reference([](const Attrs& a, std::span<const Tensor>, std::span<Tensor> out) {
              const int64_t k = a.i("k"), cols = out[0].shape()[1];
              for (int64_t i = 0; i < out[0].numel(); ++i)
                out[0].set(i, i % cols - i / cols == k ? 1.0 : 0.0);
            }));
  r.add(def_op("Trilu", 14)
            .input("input", "T")
            .input("k", "i64", Arity::kOptional)
            .output("output", "T")
            .attr("upper", AttrKind::kInt, int64_t{1})
            .type_constraint("T", movement_types())
            .describe("output = input's upper (j - i >= k) or lower (j - i <= k) triangle of "
                      "every trailing matrix, zeros elsewhere")
            .infer([](const InferContext& c) {
              const TensorType& x = c.inputs[0];
              if (x.shape && x.shape->size() < 2)
                throw ShapeError(
                    cat("Trilu: input must have rank >= 2, got ", to_string(*x.shape)));
              return std::vector<TensorType>{x};
            })
            .host_kernel(trilu_kernel)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              const bool upper = a.i("upper") != 0;
              const int64_t k = trilu_k(in);
              const Shape& s = in[0].shape();
              const int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
              const size_t es = dtype_size(in[0].dtype());
              for (int64_t e = 0; e < out[0].numel(); ++e) {
                const int64_t i = e / cols % rows, j = e % cols;
                const bool keep = upper ? j - i >= k : j - i <= k;
                if (keep)
                  std::memcpy(bytes_of(out[0]) + e * es, bytes_of(in[0]) + e * es, es);
                else
                  std::memset(bytes_of(out[0]) + e * es, 0, es);
              }
            }));
}

}  // namespace asc

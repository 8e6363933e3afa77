// DynamicQuantizeLinear (11+), MatMulInteger (10+), QLinearMatMul (10+); QuantizeLinear and
// DequantizeLinear, every version, are in misc_quant_linear.cpp.
//
// Integer matmul layout: A [batch.., M, K], B [batch.., K, N] with numpy matmul broadcasting
// (1-D A is [1, K], 1-D B is [K, 1], the promoted dim dropped from the output).
// a_zero_point: one value or one per row of A (M); b_zero_point: one value or one per column of
// B (N). The GEMM subtracts the zero points while packing to int16 and accumulates in int32.
#include <algorithm>
#include <cstring>

#include "ops/misc.h"

namespace asc {
namespace {

using misc::has_input;
using misc::round_half_even;
using misc::saturate;

const std::vector<DType> kQuantTypes = {DType::kU8, DType::kI8};

std::vector<float> floats_of(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = static_cast<float>(t.at(i));
  return v;
}

// ---- DynamicQuantizeLinear ---------------------------------------------------------------------

std::vector<TensorType> dynamic_quantize_infer(const InferContext& c) {
  return {{DType::kU8, c.inputs[0].shape}, {DType::kF32, SymShape{}}, {DType::kU8, SymShape{}}};
}

// scale = (max(0, max x) - min(0, min x)) / 255, zero point = saturate(round(-min / scale)),
// computed in float as the ONNX definition does; an all-zero input gives scale 0, zero point 0.
void dynamic_quantize_kernel(const LaunchContext&, std::span<const Tensor> in,
                             std::span<Tensor> out) {
  const float* x = in[0].data_as<float>();
  const int64_t n = in[0].numel();
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const float scale = (hi - lo) / 255.f;
  const float zp = scale == 0.f ? 0.f : std::clamp(std::nearbyint(0.f - lo / scale), 0.f, 255.f);
  uint8_t* y = out[0].data_as<uint8_t>();
  for (int64_t i = 0; i < n; ++i)
    y[i] = scale == 0.f
               ? static_cast<uint8_t>(zp)
               : static_cast<uint8_t>(std::clamp(std::nearbyint(x[i] / scale) + zp, 0.f, 255.f));
  out[1].data_as<float>()[0] = scale;
  out[2].data_as<uint8_t>()[0] = static_cast<uint8_t>(zp);
}

void dynamic_quantize_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  double lo = 0, hi = 0;
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    lo = std::min(lo, in[0].at(i));
    hi = std::max(hi, in[0].at(i));
  }
  const double scale = static_cast<float>((hi - lo) / 255.0);
  const double zp = scale == 0 ? 0 : saturate(round_half_even(-lo / scale), DType::kU8);
  for (int64_t i = 0; i < in[0].numel(); ++i)
    out[0].set(i,
               scale == 0 ? zp : saturate(round_half_even(in[0].at(i) / scale) + zp, DType::kU8));
  out[1].set(0, scale);
  out[2].set(0, zp);
}

// ---- integer matmul ----------------------------------------------------------------------------

struct MatMulDims {
  int64_t m = 1, k = 1, n = 1;
  Shape batch;       // broadcast batch dims
  Shape a_bstrides;  // per batch dim: A's batch stride (0 where broadcast)
  Shape b_bstrides;
  Shape out;
};

MatMulDims matmul_dims(std::string_view op, const Shape& as, const Shape& bs) {
  if (as.empty() || bs.empty())
    throw ShapeError(
        cat(op, ": inputs must have rank >= 1, got A ", to_string(as), " and B ", to_string(bs)));
  Shape a = as, b = bs;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  MatMulDims d;
  d.m = a[a.size() - 2];
  d.k = a.back();
  d.n = b.back();
  if (b[b.size() - 2] != d.k)
    throw ShapeError(cat(op, ": A ", to_string(as), " and B ", to_string(bs),
                         " have different inner dims (", d.k, " vs ", b[b.size() - 2], ")"));
  const Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  try {
    d.batch = broadcast_shapes(ab, bb);
  } catch (const ShapeError&) {
    throw ShapeError(cat(op, ": batch dims of A ", to_string(as), " and B ", to_string(bs),
                         " do not broadcast"));
  }
  const size_t r = d.batch.size();
  auto strides = [&](const Shape& s, int64_t mat) {
    Shape st(r, 0);
    int64_t acc = mat;
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t dd = s.size() - 1 - i;
      st[r - 1 - i] = s[dd] == 1 ? 0 : acc;
      acc *= s[dd];
    }
    return st;
  };
  d.a_bstrides = strides(ab, d.m * d.k);
  d.b_bstrides = strides(bb, d.k * d.n);
  d.out = d.batch;
  if (as.size() > 1) d.out.push_back(d.m);
  if (bs.size() > 1) d.out.push_back(d.n);
  return d;
}

// Batch index -> element offsets of A and B.
void batch_offsets(const MatMulDims& d, int64_t bi, int64_t& ao, int64_t& bo) {
  ao = bo = 0;
  for (size_t i = d.batch.size(); i-- > 0;) {
    const int64_t idx = bi % d.batch[i];
    bi /= d.batch[i];
    ao += idx * d.a_bstrides[i];
    bo += idx * d.b_bstrides[i];
  }
}

// Zero point of A: one value or one per row (M); of B: one value or one per column (N).
void check_zero_point(std::string_view op, std::string_view what, const Shape& zp, int64_t per,
                      std::string_view per_what) {
  if (numel(zp) == 1 && zp.size() <= 1) return;
  if (zp.size() == 1 && zp[0] == per) return;
  throw ShapeError(cat(op, ": ", what, " ", to_string(zp), " must be a scalar or 1-D of size ", per,
                       " (", per_what, ")"));
}

// int16 copy of an 8-bit matrix minus its zero point (per row when zp_per_row, else per column).
template <typename Q>
void pack_minus_zp(const Q* src, int64_t rows, int64_t cols, const std::vector<int32_t>& zp,
                   bool zp_per_row, int16_t* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const int32_t z = zp.size() == 1 ? zp[0] : zp[zp_per_row ? i : j];
      dst[i * cols + j] = static_cast<int16_t>(static_cast<int32_t>(src[i * cols + j]) - z);
    }
}

void pack8(const Tensor& t, int64_t off, int64_t rows, int64_t cols, const std::vector<int32_t>& zp,
           bool zp_per_row, int16_t* dst) {
  if (t.dtype() == DType::kI8)
    pack_minus_zp(t.data_as<int8_t>() + off, rows, cols, zp, zp_per_row, dst);
  else
    pack_minus_zp(t.data_as<uint8_t>() + off, rows, cols, zp, zp_per_row, dst);
}

// C[M,N] = A[M,K] * B[K,N] in int32, blocked over K and N so a block of B stays in cache; the
// innermost loop over N vectorises (int16 x int16 -> int32).
void gemm_i16(const int16_t* a, const int16_t* b, int32_t* c, int64_t m, int64_t k, int64_t n) {
  constexpr int64_t kKB = 128, kNB = 512;
  std::fill(c, c + m * n, 0);
  for (int64_t j0 = 0; j0 < n; j0 += kNB) {
    const int64_t j1 = std::min(n, j0 + kNB);
    for (int64_t k0 = 0; k0 < k; k0 += kKB) {
      const int64_t k1 = std::min(k, k0 + kKB);
      for (int64_t i = 0; i < m; ++i) {
        int32_t* __restrict ci = c + i * n;
        for (int64_t p = k0; p < k1; ++p) {
          const int32_t av = a[i * k + p];
          if (av == 0) continue;
          const int16_t* __restrict bp = b + p * n;
          for (int64_t j = j0; j < j1; ++j) ci[j] += av * static_cast<int32_t>(bp[j]);
        }
      }
    }
  }
}

// Runs the integer GEMM of every batch; `emit(batch, acc)` consumes the [M,N] int32 result.
template <typename Emit>
void matmul_integer_batches(const MatMulDims& d, const Tensor& a, const Tensor& b,
                            const std::vector<int32_t>& azp, const std::vector<int32_t>& bzp,
                            Emit&& emit) {
  const int64_t nb = numel(d.batch);
  std::vector<int16_t> pa(static_cast<size_t>(d.m * d.k)), pb(static_cast<size_t>(d.k * d.n));
  std::vector<int32_t> acc(static_cast<size_t>(d.m * d.n));
  int64_t last_ao = -1, last_bo = -1;
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t ao, bo;
    batch_offsets(d, bi, ao, bo);
    if (ao != last_ao) pack8(a, ao, d.m, d.k, azp, true, pa.data());
    if (bo != last_bo) pack8(b, bo, d.k, d.n, bzp, false, pb.data());
    last_ao = ao;
    last_bo = bo;
    gemm_i16(pa.data(), pb.data(), acc.data(), d.m, d.k, d.n);
    emit(bi, acc.data());
  }
}

std::vector<int32_t> ints_of(std::span<const Tensor> in, size_t k) {
  if (!has_input(in, k)) return {0};
  std::vector<int32_t> v(static_cast<size_t>(in[k].numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(in[k].at(i));
  return v;
}

// Naive: acc = sum_k (A[b,i,k] - azp) * (B[b,k,j] - bzp) in int64, then f(b, i, j, acc).
template <typename F>
void matmul_integer_naive(const MatMulDims& d, std::span<const Tensor> in, size_t b_at, size_t a_zp,
                          size_t b_zp, F&& f) {
  const Tensor &a = in[0], &b = in[b_at];
  for (int64_t bi = 0; bi < numel(d.batch); ++bi) {
    int64_t ao, bo;
    batch_offsets(d, bi, ao, bo);
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        int64_t acc = 0;
        for (int64_t p = 0; p < d.k; ++p) {
          const double za = !has_input(in, a_zp) ? 0 : in[a_zp].at(in[a_zp].numel() == 1 ? 0 : i);
          const double zb = !has_input(in, b_zp) ? 0 : in[b_zp].at(in[b_zp].numel() == 1 ? 0 : j);
          acc += static_cast<int64_t>(a.at(ao + i * d.k + p) - za) *
                 static_cast<int64_t>(b.at(bo + p * d.n + j) - zb);
        }
        f(bi, i, j, acc);
      }
  }
}

// MatMulInteger inputs: A, B, a_zero_point, b_zero_point.
std::vector<TensorType> matmul_integer_infer(const InferContext& c) {
  const auto as = misc::concrete(c.inputs[0]), bs = misc::concrete(c.inputs[1]);
  if (!as || !bs) return {{DType::kI32, std::nullopt}};
  const MatMulDims d = matmul_dims("MatMulInteger", *as, *bs);
  if (has_input(c, 2))
    if (const auto z = misc::concrete(c.inputs[2]))
      check_zero_point("MatMulInteger", "a_zero_point", *z, d.m, "rows of A");
  if (has_input(c, 3))
    if (const auto z = misc::concrete(c.inputs[3]))
      check_zero_point("MatMulInteger", "b_zero_point", *z, d.n, "columns of B");
  return {{DType::kI32, to_sym(d.out)}};
}

void matmul_integer_kernel(const LaunchContext&, std::span<const Tensor> in,
                           std::span<Tensor> out) {
  const MatMulDims d = matmul_dims("MatMulInteger", in[0].shape(), in[1].shape());
  int32_t* y = out[0].data_as<int32_t>();
  matmul_integer_batches(
      d, in[0], in[1], ints_of(in, 2), ints_of(in, 3), [&](int64_t bi, const int32_t* acc) {
        std::memcpy(y + bi * d.m * d.n, acc, static_cast<size_t>(d.m * d.n) * sizeof(int32_t));
      });
}

void matmul_integer_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const MatMulDims d = matmul_dims("MatMulInteger", in[0].shape(), in[1].shape());
  matmul_integer_naive(d, in, 1, 2, 3, [&](int64_t bi, int64_t i, int64_t j, int64_t acc) {
    out[0].set((bi * d.m + i) * d.n + j, static_cast<double>(acc));
  });
}

// QLinearMatMul inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point. y = saturate(round(acc * a_scale[i] * b_scale[j] / y_scale) + y_zero_point).
std::vector<TensorType> qlinear_matmul_infer(const InferContext& c) {
  const DType yt = c.inputs[7].dtype;
  const auto as = misc::concrete(c.inputs[0]), bs = misc::concrete(c.inputs[3]);
  if (!as || !bs) return {{yt, std::nullopt}};
  const MatMulDims d = matmul_dims("QLinearMatMul", *as, *bs);
  const char* names[] = {"a_scale", "a_zero_point", "", "b_scale", "b_zero_point",
                         "y_scale", "y_zero_point"};
  for (size_t k : {1, 2, 4, 5, 6, 7})
    if (const auto z = misc::concrete(c.inputs[k])) {
      const int64_t per = k <= 2 ? d.m : (k <= 5 ? d.n : 1);
      check_zero_point("QLinearMatMul", names[k - 1], *z, per,
                       k <= 2 ? "rows of a" : (k <= 5 ? "columns of b" : "one value"));
    }
  return {{yt, to_sym(d.out)}};
}

void qlinear_matmul_kernel(const LaunchContext&, std::span<const Tensor> in,
                           std::span<Tensor> out) {
  const MatMulDims d = matmul_dims("QLinearMatMul", in[0].shape(), in[3].shape());
  const std::vector<float> as = floats_of(in[1]), bs = floats_of(in[4]);
  const float ys = static_cast<float>(in[6].at(0));
  const float yzp = static_cast<float>(in[7].at(0));
  const DType yt = out[0].dtype();
  const float lo = static_cast<float>(misc::qmin(yt)), hi = static_cast<float>(misc::qmax(yt));
  std::vector<float> mult(static_cast<size_t>(d.m * d.n));  // per (i, j) requantization scale
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = 0; j < d.n; ++j)
      mult[i * d.n + j] = as[as.size() == 1 ? 0 : i] * bs[bs.size() == 1 ? 0 : j] / ys;
  matmul_integer_batches(
      d, in[0], in[3], ints_of(in, 2), ints_of(in, 5), [&](int64_t bi, const int32_t* acc) {
        const int64_t mn = d.m * d.n;
        auto store = [&](auto* y) {
          using Q = std::remove_pointer_t<decltype(y)>;
          for (int64_t e = 0; e < mn; ++e)
            y[bi * mn + e] = static_cast<Q>(
                std::clamp(std::nearbyint(static_cast<float>(acc[e]) * mult[e]) + yzp, lo, hi));
        };
        if (yt == DType::kI8)
          store(out[0].data_as<int8_t>());
        else
          store(out[0].data_as<uint8_t>());
      });
}

void qlinear_matmul_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const MatMulDims d = matmul_dims("QLinearMatMul", in[0].shape(), in[3].shape());
  matmul_integer_naive(d, in, 3, 2, 5, [&](int64_t bi, int64_t i, int64_t j, int64_t acc) {
    const double as = in[1].at(in[1].numel() == 1 ? 0 : i);
    const double bs = in[4].at(in[4].numel() == 1 ? 0 : j);
    const double v = round_half_even(static_cast<double>(acc) * as * bs / in[6].at(0));
    out[0].set((bi * d.m + i) * d.n + j, saturate(v + in[7].at(0), out[0].dtype()));
  });
}

}  // namespace

void register_misc_quant(Registry& r) {
  register_misc_quant_linear(r);

  r.add(def_op("DynamicQuantizeLinear", 11)
            .input("x", "f32")
            .output("y", "u8")
            .output("y_scale", "f32")
            .output("y_zero_point", "u8")
            .describe("u8 quantization of x with scale and zero point from its range (incl. 0)")
            .infer(dynamic_quantize_infer)
            .host_kernel(dynamic_quantize_kernel)
            .reference(dynamic_quantize_reference));

  r.add(def_op("MatMulInteger", 10)
            .input("A", "T1")
            .input("B", "T2")
            .input("a_zero_point", "T1", Arity::kOptional)
            .input("b_zero_point", "T2", Arity::kOptional)
            .output("Y", "i32")
            .type_constraint("T1", kQuantTypes)
            .type_constraint("T2", kQuantTypes)
            .describe("Y = (A - a_zero_point) @ (B - b_zero_point) in int32, numpy matmul "
                      "broadcasting")
            .infer(matmul_integer_infer)
            .host_kernel(matmul_integer_kernel)
            .reference(matmul_integer_reference));

  r.add(def_op("QLinearMatMul", 10)
            .input("a", "T1")
            .input("a_scale", "f32")
            .input("a_zero_point", "T1")
            .input("b", "T2")
            .input("b_scale", "f32")
            .input("b_zero_point", "T2")
            .input("y_scale", "f32")
            .input("y_zero_point", "T3")
            .output("y", "T3")
            .type_constraint("T1", kQuantTypes)
            .type_constraint("T2", kQuantTypes)
            .type_constraint("T3", kQuantTypes)
            .describe("y = quantize((a - a_zp) @ (b - b_zp) * a_scale * b_scale, y_scale, y_zp)")
            .infer(qlinear_matmul_infer)
            .host_kernel(qlinear_matmul_kernel)
            .reference(qlinear_matmul_reference));
}

}  // namespace asc

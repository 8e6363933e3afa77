// DynamicQuantizeLinear (11+), MatMulInteger (10+), QLinearMatMul (10+); QuantizeLinear and
// DequantizeLinear, every version, are in misc_quant_linear.cpp.
//
// Integer matmul layout: A [batch.., M, K], B [batch.., K, N] with numpy matmul broadcasting
// (1-D A is [1, K], 1-D B is [K, 1], the promoted dim dropped from the output).
// a_zero_point: one value or one per row of A (M); b_zero_point: one value or one per column of
// B (N). Both run on the integer cube (docs/DSL.md): MatMul's tile (ops/matmul.h) with A and B
// loaded into L0 with their zero points and an i32 accumulator; QLinearMatMul requantises in
// the epilogue.
#include <algorithm>
#include <cstring>

#include "ops/host_clones.h"
#include "ops/matmul.h"
#include "ops/misc.h"

namespace asc {
namespace {

using misc::has_input;
using misc::round_half_even;
using misc::saturate;

const std::vector<DType> kQuantTypes = {DType::kU8, DType::kI8};

// ---- DynamicQuantizeLinear ---------------------------------------------------------------------

std::vector<TensorType> dynamic_quantize_infer(const InferContext& c) {
  return {{DType::kU8, c.inputs[0].shape}, {DType::kF32, SymShape{}}, {DType::kU8, SymShape{}}};
}

// min(0, min x) and max(0, max x) over x[0, n): 16 independent lanes, so the loop vectorises.
ASC_HOST_CLONES void range_with_zero(const float* x, int64_t n, float& lo_out, float& hi_out) {
  constexpr int kLanes = 16;
  float lo[kLanes] = {}, hi[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      lo[l] = std::min(lo[l], x[i + l]);
      hi[l] = std::max(hi[l], x[i + l]);
    }
  for (; i < n; ++i) {
    lo[0] = std::min(lo[0], x[i]);
    hi[0] = std::max(hi[0], x[i]);
  }
  lo_out = *std::min_element(lo, lo + kLanes);
  hi_out = *std::max_element(hi, hi + kLanes);
}

// y = saturate(round_half_even(x / scale) + zp) for scale > 0. x / scale lies in [-255, 255]
// (NaN aside), where adding and subtracting 1.5 * 2^23 rounds half to even as nearbyint does,
// without a library call per element.
ASC_HOST_CLONES void quantize_u8(const float* x, int64_t n, float scale, float zp, uint8_t* y) {
  constexpr float kRound = 12582912.f;
  for (int64_t i = 0; i < n; ++i) {
    float q = (x[i] / scale + kRound) - kRound + zp;
    q = q < 0.f ? 0.f : q;
    q = q > 255.f ? 255.f : q;
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(q));
  }
}

// scale = (max(0, max x) - min(0, min x)) / 255, zero point = saturate(round(-min / scale)),
// computed in float as the ONNX definition does; an all-zero input gives scale 0, zero point 0.
// Both passes (the range, then the quantisation) run over blocks of kBlock elements on the
// device's workers.
void dynamic_quantize_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                             std::span<Tensor> out) {
  constexpr int64_t kBlock = 1 << 16;
  const float* x = in[0].data_as<float>();
  const int64_t n = in[0].numel(), blocks = (n + kBlock - 1) / kBlock;
  std::vector<float> los(static_cast<size_t>(blocks), 0.f), his(static_cast<size_t>(blocks), 0.f);
  ctx.parallel(blocks, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t i = b * kBlock, e = std::min(n, i + kBlock);
      range_with_zero(x + i, e - i, los[static_cast<size_t>(b)], his[static_cast<size_t>(b)]);
    }
  });
  const float lo = blocks ? *std::min_element(los.begin(), los.end()) : 0.f;
  const float hi = blocks ? *std::max_element(his.begin(), his.end()) : 0.f;
  const float scale = (hi - lo) / 255.f;
  const float zp = scale == 0.f ? 0.f : std::clamp(std::nearbyint(0.f - lo / scale), 0.f, 255.f);
  uint8_t* y = out[0].data_as<uint8_t>();
  ctx.parallel(blocks, [&](int64_t b0, int64_t b1) {
    const int64_t i0 = b0 * kBlock, i1 = std::min(n, b1 * kBlock);
    if (scale == 0.f)
      std::fill(y + i0, y + i1, static_cast<uint8_t>(zp));
    else
      quantize_u8(x + i0, i1 - i0, scale, zp, y + i0);
  });
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

// The integer cube's view of the product: A, B and their zero points at the given inputs.
MmView int_view(const LaunchContext& ctx, int a, int b, int az, int bz) {
  MmView v = matmul_view(ctx.inputs.at(static_cast<size_t>(a)).shape,
                         ctx.inputs.at(static_cast<size_t>(b)).shape, false);
  v.ints = true;
  v.a_arg = a;
  v.b_arg = b;
  auto given = [&](int i) {
    return static_cast<size_t>(i) < ctx.inputs.size() &&
           ctx.inputs[static_cast<size_t>(i)].dtype != DType::kUndefined;
  };
  v.az_arg = given(az) ? az : -1;
  v.bz_arg = given(bz) ? bz : -1;
  return v;
}

void matmul_integer_tile(TileBuilder& t) {
  const MmView v = int_view(t.ctx(), 0, 1, 2, 3);
  const MmTile tile = matmul_accumulate(t, v);
  t.copy_out(0, tile.c, matmul_out_box(v, tile));
}

// One value, or one per row (per_row) / column of the tile, as f32 [TM, 1] / [1, TN] boxes.
Buf tile_values(TileBuilder& t, const MmView& v, const MmTile& tile, int arg, bool per_row) {
  const bool one = numel(t.ctx().inputs[static_cast<size_t>(arg)].shape) == 1;
  GmBox b;
  b.dims = per_row ? std::vector<BoxDim>{BoxDim{v.m, one ? 0 : 1, tile.m0, tile.tm},
                                         BoxDim{1, 0, Coord{}, 1}}
                   : std::vector<BoxDim>{BoxDim{1, 0, Coord{}, 1},
                                         BoxDim{v.n, one ? 0 : 1, tile.n0, tile.tn}};
  return t.cast(t.copy_in(arg, b, Pos::kUB), DType::kF32);
}

// y = saturate(round_half_even(f32(acc) * (a_scale[i] * b_scale[j] / y_scale)) + y_zero_point),
// the scale rounded as f32 at each step, as the host loop did (ONNX Runtime's order).
void qlinear_matmul_tile(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const MmView v = int_view(ctx, 0, 3, 2, 5);
  const MmTile tile = matmul_accumulate(t, v);
  Buf as = tile_values(t, v, tile, 1, true), bs = tile_values(t, v, tile, 4, false);
  // scale [TM, TN] = as[i] * bs[j] / ys: bs spread over the rows, times as along them.
  Buf scale = t.bcast_mid(BinaryOp::kAdd, t.duplicate(DType::kF32, {tile.tm, tile.tn}, 0.0), bs, 0);
  scale = t.bcast_mid(BinaryOp::kMul, scale, as, 1);
  Buf ys = t.bcast_mid(BinaryOp::kAdd, t.duplicate(DType::kF32, {tile.tm, tile.tn}, 0.0),
                       tile_values(t, v, tile, 6, false), 0);
  scale = scale / ys;
  Buf y = t.unary(UnaryOp::kRound, t.cast(tile.c, DType::kF32) * scale);
  y = t.bcast_mid(BinaryOp::kAdd, y, tile_values(t, v, tile, 7, false), 0);
  const bool u8 = ctx.outputs[0].dtype == DType::kU8;
  y = t.unary(UnaryOp::kClip, y, u8 ? 0.f : -128.f, u8 ? 255.f : 127.f);
  t.copy_out(0, y, matmul_out_box(v, tile));
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
            .tiling([](const LaunchContext& ctx) {
              return matmul_tiling(ctx, int_view(ctx, 0, 1, 2, 3));
            })
            .kernel(matmul_integer_tile)
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
            .tiling([](const LaunchContext& ctx) {
              MmView v = int_view(ctx, 0, 3, 2, 5);
              v.epilogue_ub = 40;  // the f32 result, its scale and the per-row/column operands
              return matmul_tiling(ctx, v);
            })
            .kernel(qlinear_matmul_tile)
            .reference(qlinear_matmul_reference));
}

}  // namespace asc

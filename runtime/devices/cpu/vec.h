// The CPU device's vector unit: the DSL's vector instructions (tile_ops.h) over dense UB buffers,
// lowered onto Highway SIMD loops with runtime dispatch (one binary, best of
// SSE4/AVX2/AVX-512/NEON).
//
// Buffers are dense arrays of n elements of the given dtype; inputs and outputs may alias exactly
// (in place) but must not partially overlap. f16/bf16 compute in f32 and round once on store.
// Unsupported (op, dtype) pairs throw std::invalid_argument naming the op and the dtype.
#pragma once

#include <cstddef>
#include <cstdint>

#include "registry/dtype.h"
#include "registry/tile_ops.h"

namespace asc::cpu {

// y = op(x; alpha, beta). Float ops on f32, f64 (and f16/bf16 by widening to f32 internally);
// integer types support kCopy, kNeg, kAbs, kRelu, kSign, kSquare, kClip, kAffine (wrapping integer
// arithmetic; kAffine and kClip bounds go through double and saturate); bool: kCopy, kNot.
void vec_unary(UnaryOp op, DType t, const void* x, void* y, int64_t n, float alpha = 0.f,
               float beta = 0.f);

// y = a op b elementwise. All numeric dtypes; kAnd/kOr/kXor on bool. Integer Pow: integer power
// (negative exponents truncate: 0 unless |a| == 1). Integer Div truncates, Mod takes the divisor's
// sign; a zero divisor gives 0. Float Max/Min propagate NaN.
void vec_binary(BinaryOp op, DType t, const void* a, const void* b, void* y, int64_t n);

// y = a op s (or s op a when scalar_left); s is converted to t first.
void vec_binary_scalar(BinaryOp op, DType t, const void* a, double s, void* y, int64_t n,
                       bool scalar_left = false);

// y[o, r, i] = a[o, r, i] op b[o, i]: b broadcast along the middle axis.
void vec_binary_bcast_mid(BinaryOp op, DType t, const void* a, const void* b, void* y,
                          int64_t outer, int64_t mid, int64_t inner);

// y = (a cmp b) as bool bytes 0/1. All numeric dtypes. NaN compares false except kNe.
void vec_compare(CmpOp op, DType t, const void* a, const void* b, uint8_t* y, int64_t n);

// y = cond ? a : b, by element size in bytes (1, 2, 4, 8); any nonzero cond byte is true.
void vec_select(size_t elem_bytes, const uint8_t* cond, const void* a, const void* b, void* y,
                int64_t n);

// Every pair of numeric/bool dtypes. Float->int truncates toward zero (NaN -> 0, out of range
// saturates); int->int wraps; ->bool is (x != 0); ->f16/bf16 rounds to nearest even (f64->f16 goes
// through f32). i64->f32 goes through f64 (double rounding only above 2^53).
void vec_cast(DType from, DType to, const void* x, void* y, int64_t n);

// y[o, i] = reduce over r of x[o, r, i]. Floats accumulate in f32 blocks summed in f64 (f64 stays
// f64); integers in 64 bits, then narrowed (wrapping). Max/Min propagate NaN. Empty (mid == 0):
// sum 0, prod 1, max lowest (-inf), min highest (+inf).
void vec_reduce(ReduceOp op, DType t, const void* x, void* y, int64_t outer, int64_t mid,
                int64_t inner);

// y[0..n) = v converted to t (same rules as vec_cast from f64).
void vec_duplicate(DType t, double v, void* y, int64_t n);

// A chain of f32 elementwise instructions over a [rows, cols] tile, run block by block along
// each row with the intermediate results in L1 (vec_chain.cpp). A step's operand is an earlier
// step's result, a tile (element (r, j) at p[r * rs + j]), a value per row (p[r]), a vector
// over the columns (p[j]) or a scalar.
struct ChainArg {
  enum Kind : uint8_t { kStep, kTile, kRow, kCol, kScalar };
  Kind kind = kScalar;
  int step = 0;              // kStep
  const float* p = nullptr;  // kTile, kRow, kCol
  int64_t rs = 0;            // kTile
  float s = 0.f;             // kScalar
};
struct ChainStep {
  bool binary = false;
  uint8_t op = 0;  // UnaryOp, or BinaryOp when binary
  float alpha = 0.f, beta = 0.f;
  ChainArg a, b;  // b: binary only
};
constexpr int kChainMaxSteps = 64;
// y[r * ldy + j] = the last step's value at (r, j), as the steps one by one would give it. False
// (nothing written) when a step has no fused form (Add/Sub/Mul/Div/Max/Min, and the float unary
// ops but the rounding ones, Sign, Sin/Cos and PowScalar) or there are more than kChainMaxSteps.
bool vec_chain_f32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows,
                   int64_t cols);
// vec_chain_f32 for the chains of an epilogue's form only, y = act(t + bias [+ z]) (bias per row
// or column, z a tile, act none, relu, clip, leakyrelu, sigmoid, silu, tanh, hardsigmoid,
// hardswish or gelu as clip(affine(x)), x * clip(affine(x)) and x * affine(erf(x * scale))), in
// one pass with no intermediate stored;
// false (nothing written) for any other chain. vec_chain_f32 takes this path where it applies.
bool vec_epilogue_f32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows,
                      int64_t cols);

}  // namespace asc::cpu

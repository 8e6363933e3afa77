// Instruction vocabulary of the kernel DSL: local-memory positions and vector/cube operations.
// Every device lowers exactly these; an op author composes them through TileBuilder (dsl.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace asc {

// Where a buffer lives. GM is global memory (HBM); the rest are per-core local memories.
enum class Pos : uint8_t { kGM, kUB, kL1, kL0A, kL0B, kL0C };
std::string_view pos_name(Pos p);

// y = f(x; alpha, beta). Float ops compute in f32 (or f64 on f64 buffers).
enum class UnaryOp : uint8_t {
  kCopy,
  kNeg,
  kAbs,
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kErf,
  kSin,
  kCos,
  kFloor,
  kCeil,
  kRound,  // half to even
  kSign,
  kSquare,
  kSilu,       // x * sigmoid(x)
  kLeakyRelu,  // x < 0 ? alpha * x : x
  kClip,       // min(max(x, alpha), beta)
  kAffine,     // alpha * x + beta
  kPowScalar,  // x ^ alpha
  kNot,        // logical not on bool (u8) buffers
};
constexpr int kUnaryOpCount = static_cast<int>(UnaryOp::kNot) + 1;

// y = a (op) b, elementwise.
enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kMax,
  kMin,
  kMod,  // integer: result has the divisor's sign (Python); float: C fmod
  kAnd,  // logical, on bool (u8) buffers
  kOr,
  kXor,
};
constexpr int kBinaryOpCount = static_cast<int>(BinaryOp::kXor) + 1;

// y = a (cmp) b as bool (u8: 0 or 1).
enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
constexpr int kCmpOpCount = static_cast<int>(CmpOp::kGe) + 1;

// Reduction along one axis. Float sums accumulate in f32 at least.
enum class ReduceOp : uint8_t { kSum, kMax, kMin, kProd, kSumSquares };
constexpr int kReduceOpCount = static_cast<int>(ReduceOp::kSumSquares) + 1;

std::string_view op_name(UnaryOp op);
std::string_view op_name(BinaryOp op);
std::string_view op_name(CmpOp op);
std::string_view op_name(ReduceOp op);

}  // namespace asc

#include "registry/tile_ops.h"

#include <array>

namespace asc {

std::string_view pos_name(Pos p) {
  static constexpr std::array<std::string_view, 6> kNames = {"GM", "UB", "L1", "L0A", "L0B", "L0C"};
  return kNames[static_cast<size_t>(p)];
}

std::string_view op_name(UnaryOp op) {
  static constexpr std::array<std::string_view, kUnaryOpCount> kNames = {
      "copy",   "neg",   "abs",        "relu", "sigmoid", "tanh",       "exp",  "log",   "sqrt",
      "rsqrt",  "recip", "erf",        "sin",  "cos",     "floor",      "ceil", "round", "sign",
      "square", "silu",  "leaky_relu", "clip", "affine",  "pow_scalar", "not"};
  return kNames[static_cast<size_t>(op)];
}

std::string_view op_name(BinaryOp op) {
  static constexpr std::array<std::string_view, kBinaryOpCount> kNames = {
      "add", "sub", "mul", "div", "pow", "max", "min", "mod", "and", "or", "xor"};
  return kNames[static_cast<size_t>(op)];
}

std::string_view op_name(CmpOp op) {
  static constexpr std::array<std::string_view, kCmpOpCount> kNames = {"eq", "ne", "lt",
                                                                       "le", "gt", "ge"};
  return kNames[static_cast<size_t>(op)];
}

std::string_view op_name(ReduceOp op) {
  static constexpr std::array<std::string_view, kReduceOpCount> kNames = {"sum", "max", "min",
                                                                          "prod", "sumsq"};
  return kNames[static_cast<size_t>(op)];
}

}  // namespace asc

// Add, Sub, Mul, Div, Pow: numpy-broadcast binary arithmetic. One tile: C = A op B, computed in
// f32 for f16/bf16 storage.
#include <cmath>

#include "ops/ops.h"
#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc {
namespace {

double ref_div(double a, double b, DType t) {
  if (!dtype_is_integer(t)) return a / b;
  return b == 0 ? 0 : std::trunc(a / b);
}

double ref_pow(double a, double b) {
  return std::pow(a, b);
}

struct BinaryOpInfo {
  const char* type;
  int since;
  BinaryOp op;
  uint32_t traits;
  const char* doc;
};

constexpr BinaryOpInfo kBinary[] = {
    {"Add", 7, BinaryOp::kAdd, kCommutative, "C = A + B with numpy broadcasting"},
    {"Sub", 7, BinaryOp::kSub, 0, "C = A - B with numpy broadcasting"},
    {"Mul", 7, BinaryOp::kMul, kCommutative, "C = A * B with numpy broadcasting"},
    {"Div", 7, BinaryOp::kDiv, 0, "C = A / B with numpy broadcasting (integers truncate)"},
};

void binary_kernel(TileBuilder& t, BinaryOp op) {
  Buf a = ew_load(t, 0);
  Buf b = ew_load(t, 1);
  ew_store(t, 0, t.binary(op, a, b));
}

}  // namespace

void register_elementwise_binary(Registry& r) {
  for (const BinaryOpInfo& b : kBinary) {
    const BinaryOp op = b.op;
    r.add(def_op(b.type, b.since)
              .input("A", "T")
              .input("B", "T")
              .output("C", "T")
              .type_constraint("T", numeric_types())
              .trait(kElementwise | kBroadcast | b.traits)
              .describe(b.doc)
              .infer([](const InferContext& c) { return infer_broadcast(c); })
              .tiling(elementwise_tiling)
              .kernel([op](TileBuilder& t) { binary_kernel(t, op); })
              .reference([op](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
                const DType dt = out[0].dtype();
                ref_elementwise(in, out[0], [op, dt](const double* v) {
                  switch (op) {
                    case BinaryOp::kAdd:
                      return v[0] + v[1];
                    case BinaryOp::kSub:
                      return v[0] - v[1];
                    case BinaryOp::kMul:
                      return v[0] * v[1];
                    default:
                      return ref_div(v[0], v[1], dt);
                  }
                });
              }));
  }
  // Pow: the exponent may have its own type (opset 12+); it is cast to the base's compute type.
  r.add(def_op("Pow", 7)
            .input("X", "T")
            .input("Y", "T1")
            .output("Z", "T")
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI32,
                                   DType::kI64})
            .type_constraint("T1", numeric_types())
            .trait(kElementwise | kBroadcast)
            .describe("Z = X ^ Y with numpy broadcasting")
            .infer([](const InferContext& c) { return infer_broadcast(c, 0); })
            .tiling(elementwise_tiling)
            .kernel([](TileBuilder& t) {
              Buf x = ew_load(t, 0);
              Buf y = t.cast(ew_load(t, 1), t.dtype(x));
              ew_store(t, 0, t.binary(BinaryOp::kPow, x, y));
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              const bool integer = dtype_is_integer(out[0].dtype());
              ref_elementwise(in, out[0], [integer](const double* v) {
                const double p = ref_pow(v[0], integer ? std::trunc(v[1]) : v[1]);
                return integer ? std::trunc(p) : p;
              });
            }));
}

}  // namespace asc

// Add, Sub, Mul, Div, Pow (numpy broadcasting from opset 7, the legacy broadcast/axis form
// before) and Mod. One tile: C = A op B, computed in f32 for f16/bf16 storage.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
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

double ref_arith(BinaryOp op, double a, double b, DType t) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    default:
      return ref_div(a, b, t);
  }
}

// Mod, integers: fmod = 0 takes the divisor's sign (Python), fmod = 1 the dividend's (C); a zero
// divisor gives 0 (fmod = 0) or a (fmod = 1). Floats: C fmod (the schema requires fmod = 1).
double ref_mod(double a, double b, bool fmod, DType t) {
  if (!dtype_is_integer(t)) return std::fmod(a, b);
  if (b == 0) return fmod ? a : 0;
  const double r = a - std::trunc(a / b) * b;
  if (!fmod && r != 0 && (r < 0) != (b < 0)) return r + b;
  return r;
}

void mod_kernel(TileBuilder& t) {
  Buf a = ew_load(t, 0);
  Buf b = ew_load(t, 1);
  const bool dividend_sign = t.ctx().attr().i("fmod") != 0;
  if (!dividend_sign || !dtype_is_integer(t.dtype(a))) {
    ew_store(t, 0, t.binary(BinaryOp::kMod, a, b));  // ints: Python sign; floats: fmod
    return;
  }
  ew_store(t, 0, a - (a / b) * b);  // integer division truncates
}

struct BinaryOpInfo {
  const char* type;
  int since;
  BinaryOp op;
  uint32_t traits;
  const char* doc;
  const char* legacy_doc;
};

constexpr BinaryOpInfo kBinary[] = {
    {"Add", 7, BinaryOp::kAdd, kCommutative, "C = A + B with numpy broadcasting",
     "C = A + B, B broadcast onto A at `axis` when broadcast = 1"},
    {"Sub", 7, BinaryOp::kSub, 0, "C = A - B with numpy broadcasting",
     "C = A - B, B broadcast onto A at `axis` when broadcast = 1"},
    {"Mul", 7, BinaryOp::kMul, kCommutative, "C = A * B with numpy broadcasting",
     "C = A * B, B broadcast onto A at `axis` when broadcast = 1"},
    {"Div", 7, BinaryOp::kDiv, 0, "C = A / B with numpy broadcasting (integers truncate)",
     "C = A / B (integers truncate), B broadcast onto A at `axis` when broadcast = 1"},
};

// The input that is one value per row of the tile (its view broadcasts the last dim, the other's
// does not: a squeeze-and-excitation's x * s[c]), where it may be the right operand (B, or A of a
// commutative op); -1: none. A one-element constant stays a known scalar (ew_copy_in).
int row_operand(const LaunchContext& ctx, BinaryOp op) {
  const EwView v = ew_view(ctx);
  if (v.dims.size() < 2 || v.dims.back() <= 1 || !dtype_is_float(ctx.outputs[0].dtype)) return -1;
  const bool commutative = op == BinaryOp::kAdd || op == BinaryOp::kMul;
  for (int i : {1, 0}) {
    const auto k = static_cast<size_t>(i);
    const Tensor* c = k < ctx.values.size() ? ctx.values[k] : nullptr;
    if ((i == 0 && !commutative) || (c && c->numel() == 1)) continue;
    if (v.strides[k].back() == 0 && v.strides[1 - k].back() != 0) return i;
  }
  return -1;
}

void binary_kernel(TileBuilder& t, BinaryOp op) {
  const int row = t.spliced() ? -1 : row_operand(t.ctx(), op);  // (spliced: bound whole tiles)
  if (row < 0) {
    Buf a = ew_load(t, 0);
    Buf b = ew_load(t, 1);
    ew_store(t, 0, t.binary(op, a, b));
    return;
  }
  // The row operand as a [.., TR, 1] box, broadcast along the rows on the vector unit instead of
  // copied in as a whole tile.
  GmBox box = ew_box(t.ctx(), t.tiling(), row);
  box.dims.back() = BoxDim{1, 0, Coord{}, 1};
  Buf r = t.copy_in(row, box);
  r = t.cast(r, compute_dtype(t.dtype(r)));
  Buf x = ew_load(t, 1 - row);
  ew_store(t, 0, t.bcast_mid(op, x, r, static_cast<int>(t.dims(x).size()) - 1));
}

}  // namespace

void register_elementwise_binary(Registry& r) {
  register_elementwise_variadic(r);
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
                  return ref_arith(op, v[0], v[1], dt);
                });
              }));
    // Opsets 1-5 (with consumed_inputs) and 6: B broadcasts onto A by the legacy rule.
    const EwBinaryFn kernel = [op](TileBuilder& t, Buf x, Buf y) { return t.binary(op, x, y); };
    const EwRefFn ref = [op](double x, double y, DType t) { return ref_arith(op, x, y, t); };
    add_legacy_binary(r, b.type, 1, 5, ew_f16_f32_f64(), DType::kUndefined, true, b.legacy_doc,
                      kernel, ref);
    const std::vector<DType> types6 = {DType::kF16, DType::kF32, DType::kF64, DType::kI32,
                                       DType::kI64, DType::kU32, DType::kU64};
    add_legacy_binary(r, b.type, 6, 6, types6, DType::kUndefined, false, b.legacy_doc, kernel, ref);
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
  add_legacy_binary(
      r, "Pow", 1, 6, ew_f16_f32_f64(), DType::kUndefined, false,
      "Z = X ^ Y, Y broadcast onto X at `axis` when broadcast = 1",
      [](TileBuilder& t, Buf x, Buf y) { return t.binary(BinaryOp::kPow, x, y); },
      [](double x, double y, DType) { return ref_pow(x, y); });

  // Mod: 10-12, and 13+ adding bf16.
  for (const auto& [since, until] : {std::pair{10, 12}, std::pair{13, INT_MAX}}) {
    r.add(def_op("Mod", since, until)
              .input("A", "T")
              .input("B", "T")
              .output("C", "T")
              .attr("fmod", AttrKind::kInt, int64_t{0})
              .type_constraint("T", ew_numeric(since >= 13))
              .trait(kElementwise | kBroadcast)
              .describe("C = A mod B with numpy broadcasting; integers: the divisor's sign "
                        "(fmod = 0) or the dividend's (fmod = 1); floats: C fmod (fmod = 1)")
              .infer([](const InferContext& c) {
                if (c.attrs.i("fmod") == 0 && dtype_is_float(c.inputs.at(0).dtype))
                  throw ShapeError(cat(c.op.name(), ": fmod = 0 is not defined for ",
                                       dtype_name(c.inputs[0].dtype), " (set fmod = 1)"));
                return infer_broadcast(c);
              })
              .tiling(elementwise_tiling)
              .kernel(mod_kernel)
              .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
                const bool fmod = a.i("fmod") != 0;
                const DType t = out[0].dtype();
                ref_elementwise(in, out[0], [fmod, t](const double* v) {
                  return ref_mod(v[0], v[1], fmod, t);
                });
              }));
  }
}

}  // namespace asc

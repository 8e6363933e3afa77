// Logical, bitwise and comparison ops: And, Or, Xor, Not, BitShift, Equal, Greater, Less,
// GreaterOrEqual, LessOrEqual, IsNaN, IsInf (BitwiseAnd/Or/Xor/Not: logical_bitwise.cpp).
// Comparisons read both operands in their compute dtype (f16/bf16 widen to f32 exactly; bool
// compares as u8) and write bool. Opsets 1-6 of And/Or/Xor/Equal/Greater/Less use the legacy
// broadcast/axis form (ops/elementwise.h).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/elementwise.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

// ---- And, Or, Xor, Not --------------------------------------------------------------------------

struct LogicInfo {
  const char* type;
  BinaryOp op;
  const char* doc;
  const char* legacy_doc;
};

constexpr LogicInfo kLogic[] = {
    {"And", BinaryOp::kAnd, "C = A and B with numpy broadcasting",
     "C = A and B, B broadcast onto A at `axis` when broadcast = 1"},
    {"Or", BinaryOp::kOr, "C = A or B with numpy broadcasting",
     "C = A or B, B broadcast onto A at `axis` when broadcast = 1"},
    {"Xor", BinaryOp::kXor, "C = A xor B with numpy broadcasting",
     "C = A xor B, B broadcast onto A at `axis` when broadcast = 1"},
};

double ref_logic(BinaryOp op, double a, double b) {
  const bool p = a != 0, q = b != 0;
  return op == BinaryOp::kAnd ? (p && q) : op == BinaryOp::kOr ? (p || q) : (p != q);
}

void register_logic(Registry& r) {
  for (const LogicInfo& l : kLogic) {
    const BinaryOp op = l.op;
    r.add(def_op(l.type, 7)
              .input("A", "T")
              .input("B", "T")
              .output("C", "T1")
              .type_constraint("T", {DType::kBool})
              .type_constraint("T1", {DType::kBool})
              .trait(kElementwise | kBroadcast | kCommutative)
              .describe(l.doc)
              .infer([](const InferContext& c) { return infer_broadcast(c); })
              .tiling(elementwise_tiling)
              .kernel([op](TileBuilder& t) {
                ew_store(t, 0, t.binary(op, ew_load(t, 0), ew_load(t, 1)));
              })
              .reference([op](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
                ref_elementwise(in, out[0],
                                [op](const double* v) { return ref_logic(op, v[0], v[1]); });
              }));
    add_legacy_binary(
        r, l.type, 1, 6, {DType::kBool}, DType::kBool, false, l.legacy_doc,
        [op](TileBuilder& t, Buf a, Buf b) { return t.binary(op, a, b); },
        [op](double a, double b, DType) { return ref_logic(op, a, b); });
  }
  r.add(def_op("Not", 1)
            .input("X", "T")
            .output("Y", "T")
            .type_constraint("T", {DType::kBool})
            .trait(kElementwise)
            .describe("Y = not X")
            .infer(infer_unary)
            .tiling(elementwise_tiling)
            .kernel([](TileBuilder& t) { ew_store(t, 0, t.unary(UnaryOp::kNot, ew_load(t, 0))); })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              ref_elementwise(in, out[0], [](const double* v) { return v[0] == 0 ? 1.0 : 0.0; });
            }));
}

// ---- BitShift -----------------------------------------------------------------------------------

bool shift_left(const Attrs& a, const std::string& op) {
  const std::string& d = a.s("direction");
  if (d != "LEFT" && d != "RIGHT")
    throw ShapeError(cat(op, ": direction must be \"LEFT\" or \"RIGHT\", got \"", d, "\""));
  return d == "LEFT";
}

// Exact over the full unsigned range: shifts of the bit width or more give 0.
template <typename T>
void ref_shift(bool left, const Tensor& x, const Tensor& s, Tensor& y) {
  const auto ox = bcast_offsets(x.shape(), y.shape());
  const auto os = bcast_offsets(s.shape(), y.shape());
  const T* px = x.data_as<T>();
  const T* ps = s.data_as<T>();
  T* py = y.data_as<T>();
  constexpr uint64_t kBits = sizeof(T) * 8;
  for (size_t i = 0; i < ox.size(); ++i) {
    const T v = px[ox[i]];
    const uint64_t n = ps[os[i]];
    py[i] = n >= kBits ? T(0) : static_cast<T>(left ? uint64_t{v} << n : uint64_t{v} >> n);
  }
}

void register_bitshift(Registry& r) {
  r.add(def_op("BitShift", 11)
            .input("X", "T")
            .input("Y", "T")
            .output("Z", "T")
            .attr("direction", AttrKind::kString)
            .type_constraint("T", {DType::kU8, DType::kU16, DType::kU32, DType::kU64})
            .trait(kElementwise | kBroadcast)
            .describe("Z = X << Y or X >> Y (direction LEFT / RIGHT); shifts >= the width give 0")
            .infer([](const InferContext& c) {
              shift_left(c.attrs, c.op.name());
              return infer_broadcast(c);
            })
            .tiling(elementwise_tiling)
            .kernel([](TileBuilder& t) {
              // x * 2^y or x / 2^y in wrapping unsigned arithmetic: 2^y wraps to 0 once y reaches
              // the width, so the product is 0 and the quotient (x / 0 := 0) too.
              const Buf x = ew_load(t, 0);
              const Buf p = t.scalar(BinaryOp::kPow, ew_load(t, 1), 2.0, true);
              ew_store(t, 0, shift_left(t.ctx().attr(), t.ctx().op->name()) ? x * p : x / p);
            })
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              const bool left = a.s("direction") == "LEFT";
              switch (out[0].dtype()) {
                case DType::kU8:
                  return ref_shift<uint8_t>(left, in[0], in[1], out[0]);
                case DType::kU16:
                  return ref_shift<uint16_t>(left, in[0], in[1], out[0]);
                case DType::kU32:
                  return ref_shift<uint32_t>(left, in[0], in[1], out[0]);
                default:
                  return ref_shift<uint64_t>(left, in[0], in[1], out[0]);
              }
            }));
}

// ---- comparisons --------------------------------------------------------------------------------

struct CmpInfo {
  const char* type;
  CmpOp op;
  const char* doc;
};

bool ref_cmp(CmpOp op, double a, double b) {
  switch (op) {
    case CmpOp::kEq:
      return a == b;
    case CmpOp::kNe:
      return a != b;
    case CmpOp::kLt:
      return a < b;
    case CmpOp::kLe:
      return a <= b;
    case CmpOp::kGt:
      return a > b;
    case CmpOp::kGe:
      return a >= b;
  }
  return false;
}

// Both operands in their compute dtype; bool as u8 (the vector unit compares numbers).
Buf cmp_operand(TileBuilder& t, Buf x) {
  return t.dtype(x) == DType::kBool ? t.cast(x, DType::kU8) : x;
}

Buf cmp_tiles(TileBuilder& t, CmpOp op, Buf a, Buf b) {
  return t.compare(op, cmp_operand(t, a), cmp_operand(t, b));
}

// Equal-19 on strings: a host path (the tile kernel compares numbers), byte-wise equality.
void equal_strings(std::span<const Tensor> in, Tensor& out) {
  const auto oa = bcast_offsets(in[0].shape(), out.shape());
  const auto ob = bcast_offsets(in[1].shape(), out.shape());
  bool* y = out.data_as<bool>();
  for (size_t i = 0; i < oa.size(); ++i) y[i] = in[0].strings()[oa[i]] == in[1].strings()[ob[i]];
}

void add_compare(Registry& r, const CmpInfo& c, int since, int until, std::vector<DType> types) {
  const CmpOp op = c.op;
  const bool strings = std::find(types.begin(), types.end(), DType::kString) != types.end();
  OpDef d = def_op(c.type, since, until);
  if (strings)
    d.host_kernel([](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
      equal_strings(in, out[0]);
    });
  r.add(d.input("A", "T")
            .input("B", "T")
            .output("C", "T1")
            .type_constraint("T", std::move(types))
            .type_constraint("T1", {DType::kBool})
            .trait(kElementwise | kBroadcast | (op == CmpOp::kEq ? uint32_t{kCommutative} : 0u))
            .describe(c.doc)
            .infer([](const InferContext& ctx) {
              auto out = infer_broadcast(ctx);
              out[0].dtype = DType::kBool;
              return out;
            })
            .tiling(elementwise_tiling)
            .kernel([op](TileBuilder& t) {
              ew_store(t, 0, cmp_tiles(t, op, ew_load(t, 0), ew_load(t, 1)));
            })
            .reference([op](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              if (in[0].dtype() == DType::kString) return equal_strings(in, out[0]);
              ref_elementwise(in, out[0], [op](const double* v) {
                return ref_cmp(op, v[0], v[1]) ? 1.0 : 0.0;
              });
            }));
}

void register_compare(Registry& r) {
  const std::vector<DType> bool_i32_i64 = {DType::kBool, DType::kI32, DType::kI64};
  const CmpInfo eq{"Equal", CmpOp::kEq, "C = (A == B) with numpy broadcasting"};
  add_compare(r, eq, 7, 10, bool_i32_i64);
  add_compare(r, eq, 11, 12, ew_plus({DType::kBool}, ew_numeric(false)));
  add_compare(r, eq, 13, 18, ew_plus({DType::kBool}, ew_numeric(true)));
  add_compare(r, eq, 19, INT_MAX, ew_plus({DType::kBool, DType::kString}, ew_numeric(true)));

  const CmpInfo order[] = {
      {"Greater", CmpOp::kGt, "C = (A > B) with numpy broadcasting"},
      {"Less", CmpOp::kLt, "C = (A < B) with numpy broadcasting"},
  };
  for (const CmpInfo& c : order) {
    add_compare(r, c, 7, 8, ew_f16_f32_f64());
    add_compare(r, c, 9, 12, ew_numeric(false));
    add_compare(r, c, 13, INT_MAX, ew_numeric(true));
  }
  const CmpInfo order_eq[] = {
      {"GreaterOrEqual", CmpOp::kGe, "C = (A >= B) with numpy broadcasting"},
      {"LessOrEqual", CmpOp::kLe, "C = (A <= B) with numpy broadcasting"},
  };
  for (const CmpInfo& c : order_eq) {
    add_compare(r, c, 12, 15, ew_numeric(false));
    add_compare(r, c, 16, INT_MAX, ew_numeric(true));
  }

  // Opsets 1-6: legacy broadcast.
  struct Legacy {
    const char* type;
    CmpOp op;
    std::vector<DType> types;
    const char* doc;
  };
  const Legacy legacy[] = {
      {"Equal", CmpOp::kEq, bool_i32_i64,
       "C = (A == B), B broadcast onto A at `axis` when broadcast = 1"},
      {"Greater", CmpOp::kGt, ew_f16_f32_f64(),
       "C = (A > B), B broadcast onto A at `axis` when broadcast = 1"},
      {"Less", CmpOp::kLt, ew_f16_f32_f64(),
       "C = (A < B), B broadcast onto A at `axis` when broadcast = 1"},
  };
  for (const Legacy& l : legacy) {
    const CmpOp op = l.op;
    add_legacy_binary(
        r, l.type, 1, 6, l.types, DType::kBool, false, l.doc,
        [op](TileBuilder& t, Buf a, Buf b) { return cmp_tiles(t, op, a, b); },
        [op](double a, double b, DType) { return ref_cmp(op, a, b) ? 1.0 : 0.0; });
  }
}

// ---- IsNaN, IsInf -------------------------------------------------------------------------------

std::vector<TensorType> infer_bool_like(const InferContext& c) {
  return {TensorType{DType::kBool, c.inputs.at(0).shape}};
}

void register_classify(Registry& r) {
  for (const auto& [since, until] : {std::pair{9, 12}, std::pair{13, INT_MAX}}) {
    r.add(def_op("IsNaN", since, until)
              .input("X", "T1")
              .output("Y", "T2")
              .type_constraint("T1", ew_floats(since >= 13))
              .type_constraint("T2", {DType::kBool})
              .trait(kElementwise)
              .describe("Y = (X is NaN)")
              .infer(infer_bool_like)
              .tiling(elementwise_tiling)
              .kernel([](TileBuilder& t) {
                const Buf x = ew_load(t, 0);
                ew_store(t, 0, t.compare(CmpOp::kNe, x, x));  // only NaN differs from itself
              })
              .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
                ref_elementwise(in, out[0],
                                [](const double* v) { return std::isnan(v[0]) ? 1 : 0; });
              }));
  }
  // IsInf-20 adds f16 and bf16 (and the float8 types asc has not).
  for (const auto& [since, until] : {std::pair{10, 19}, std::pair{20, INT_MAX}}) {
    r.add(def_op("IsInf", since, until)
              .input("X", "T1")
              .output("Y", "T2")
              .attr("detect_negative", AttrKind::kInt, int64_t{1})
              .attr("detect_positive", AttrKind::kInt, int64_t{1})
              .type_constraint("T1", since >= 20 ? ew_floats(true)
                                                 : std::vector<DType>{DType::kF32, DType::kF64})
              .type_constraint("T2", {DType::kBool})
              .trait(kElementwise)
              .describe("Y = (X is +inf and detect_positive) or (X is -inf and detect_negative)")
              .infer(infer_bool_like)
              .tiling(elementwise_tiling)
              .kernel([](TileBuilder& t) {
                const Buf x = ew_load(t, 0);
                const bool neg = t.ctx().attr().i("detect_negative") != 0;
                const bool pos = t.ctx().attr().i("detect_positive") != 0;
                Buf y;
                if (neg && pos) {
                  y = ew_cmp_const(t, CmpOp::kEq, t.unary(UnaryOp::kAbs, x), INFINITY);
                } else if (neg || pos) {
                  y = ew_cmp_const(t, CmpOp::kEq, x, pos ? INFINITY : -INFINITY);
                } else {
                  y = t.duplicate(DType::kBool, t.dims(x), 0.0);
                }
                ew_store(t, 0, y);
              })
              .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
                const bool neg = a.i("detect_negative") != 0;
                const bool pos = a.i("detect_positive") != 0;
                ref_elementwise(in, out[0], [neg, pos](const double* v) {
                  return std::isinf(v[0]) && (v[0] > 0 ? pos : neg) ? 1.0 : 0.0;
                });
              }));
  }
}

}  // namespace

void register_logical(Registry& r) {
  register_logic(r);
  register_bitshift(r);
  register_compare(r);
  register_classify(r);
  register_logical_bitwise(r);
}

}  // namespace asc

// Cast and CastLike (any numeric/bool dtype to any other, and to and from strings) and Where
// (select with three-way broadcasting). Cast-1 names its target as a string, the name of a
// TensorProto.DataType value ("FLOAT", "INT64", ...), and does not cast strings; 6+ as the value.
// Cast-19 and CastLike-19 add `saturate`, which only float8 targets read: asc has no float8
// dtype, so they compute what Cast-6 and CastLike-15 do.
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>

#include "ops/activations.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

// Numbers print as the shortest text that reads back to the same value of their dtype (floats:
// "0.9767611", "1e-05", "nan", "inf"); f16/bf16 print as their f32 value.
std::string number_text(const Tensor& x, int64_t i) {
  char buf[64];
  std::to_chars_result r{};
  switch (x.dtype()) {
    case DType::kF64:
      r = std::to_chars(buf, buf + sizeof buf, x.data_as<double>()[i]);
      break;
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16:
      r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(x.at(i)));
      break;
    case DType::kI64:
      r = std::to_chars(buf, buf + sizeof buf, x.data_as<int64_t>()[i]);
      break;
    case DType::kU64:
      r = std::to_chars(buf, buf + sizeof buf, x.data_as<uint64_t>()[i]);
      break;
    default:
      r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(x.at(i)));
      break;
  }
  return std::string(buf, r.ptr);
}

// Parses text as a number of dtype `to` into y[i]: decimal or scientific, an optional sign,
// "inf"/"infinity"/"nan" in any case for floats; anything else is an error naming the text.
void parse_number(const std::string& text, Tensor& y, int64_t i) {
  std::string_view t = text;
  const bool neg = !t.empty() && t[0] == '-';
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  std::string lower;
  for (char c : t) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  const DType to = y.dtype();
  const bool is_float =
      to == DType::kF32 || to == DType::kF64 || to == DType::kF16 || to == DType::kBF16;
  auto fail = [&] {
    throw ShapeError(cat("Cast: '", text, "' is not a number of dtype ", dtype_name(to)));
  };
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) fail();  // one sign at most
  if (is_float && (lower == "inf" || lower == "infinity" || lower == "nan")) {
    const double v = lower == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                    : std::numeric_limits<double>::infinity();
    y.set(i, neg ? -v : v);
    return;
  }
  auto parse = [&](std::string_view v, auto& out) {
    const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) fail();
  };
  std::string_view signed_text = text;  // integers parse with their '-' (INT64_MIN)
  if (!signed_text.empty() && signed_text[0] == '+') signed_text.remove_prefix(1);
  if (to == DType::kF32 || to == DType::kF16 || to == DType::kBF16) {
    float v = 0;
    parse(t, v);
    y.set(i, neg ? -static_cast<double>(v) : v);
  } else if (to == DType::kF64) {
    double v = 0;
    parse(t, v);
    y.data_as<double>()[i] = neg ? -v : v;
  } else if (to == DType::kU64) {
    uint64_t v = 0;
    parse(signed_text, v);
    y.data_as<uint64_t>()[i] = v;
  } else {
    int64_t v = 0;
    parse(signed_text, v);
    if (to == DType::kI64)
      y.data_as<int64_t>()[i] = v;
    else
      y.set(i, static_cast<double>(v));
  }
}

// The host path of Cast/CastLike when either side is a string tensor (the tile kernel does the
// numeric casts).
void cast_strings(const Tensor& x, Tensor& y) {
  const int64_t n = x.numel();
  if (x.dtype() == DType::kString && y.dtype() == DType::kString) {
    for (int64_t i = 0; i < n; ++i) y.strings()[i] = x.strings()[i];
  } else if (y.dtype() == DType::kString) {
    for (int64_t i = 0; i < n; ++i) y.strings()[i] = number_text(x, i);
  } else if (x.dtype() == DType::kString) {
    for (int64_t i = 0; i < n; ++i) parse_number(x.strings()[i], y, i);
  } else {
    throw ShapeError("Cast: the host path converts strings only");
  }
}

std::vector<DType> cast_types() {
  std::vector<DType> t = numeric_bool_types();
  t.push_back(DType::kString);
  return t;
}

// Cast-1's `to`: a TensorProto.DataType name, in any case ("FLOAT", "float16", "Int64").
DType cast1_target(const std::string& to) {
  static const std::pair<const char*, DType> kNames[] = {
      {"FLOAT", DType::kF32},    {"UINT8", DType::kU8},   {"INT8", DType::kI8},
      {"UINT16", DType::kU16},   {"INT16", DType::kI16},  {"INT32", DType::kI32},
      {"INT64", DType::kI64},    {"BOOL", DType::kBool},  {"FLOAT16", DType::kF16},
      {"DOUBLE", DType::kF64},   {"UINT32", DType::kU32}, {"UINT64", DType::kU64},
      {"BFLOAT16", DType::kBF16}};
  std::string upper;
  for (char c : to) upper += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  for (const auto& [name, dt] : kNames)
    if (upper == name) return dt;
  throw ShapeError(cat("Cast-1: to '", to,
                       "' is not a numeric or bool TensorProto.DataType name (FLOAT, DOUBLE, "
                       "FLOAT16, BFLOAT16, INT8..INT64, UINT8..UINT64, BOOL)"));
}

// The target dtype of a Cast node: `to` is a DataType name in opset 1, its value from 6 on.
DType cast_target(const OpDef& op, const Attrs& a) {
  if (op.since == 1) return cast1_target(a.s("to"));
  const DType to = static_cast<DType>(a.i("to"));
  for (DType t : cast_types())
    if (t == to) return to;
  throw ShapeError(cat("Cast to dtype ", a.i("to"), " is not supported"));
}

bool any_string(std::span<const Tensor> in, std::span<const Tensor> out) {
  for (const auto* list : {&in, &out})
    for (const Tensor& t : *list)
      if (t.dtype() == DType::kString) return true;
  return false;
}

}  // namespace

void register_cast_where(Registry& r) {
  for (const auto& [since, until] : {std::pair{1, 5}, std::pair{6, 18}, std::pair{19, INT_MAX}}) {
    const bool strings = since >= 6;  // Cast-1 does not cast strings
    OpDef d = def_op("Cast", since, until);
    if (since >= 19) d.attr("saturate", AttrKind::kInt, int64_t{1});
    d.input("input", "T1")
        .output("output", "T2")
        .attr("to", since == 1 ? AttrKind::kString : AttrKind::kInt)
        .type_constraint("T1", strings ? cast_types() : numeric_bool_types())
        .type_constraint("T2", strings ? cast_types() : numeric_bool_types())
        .trait(kElementwise)
        .describe(since == 1
                      ? "output = input converted to the dtype named by `to` (\"FLOAT\", "
                        "\"INT64\", ...; floats truncate toward zero)"
                      : "output = input converted to dtype `to` (floats truncate toward zero)")
        .infer([](const InferContext& c) {
          return std::vector<TensorType>{{cast_target(c.op, c.attrs), c.inputs[0].shape}};
        })
        .tiling(elementwise_tiling)
        .kernel([](TileBuilder& t) {
          Buf x = t.copy_in(0, ew_box(t.ctx(), t.tiling(), 0));
          ew_store(t, 0, x);  // the store casts to the output dtype
        })
        .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
          if (any_string(in, out)) return cast_strings(in[0], out[0]);
          ref_elementwise(in, out[0], [](const double* v) { return v[0]; });
        });
    if (strings)
      d.host_kernel([](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
        cast_strings(in[0], out[0]);
      });
    r.add(std::move(d));
  }

  // CastLike: Cast to target_type's dtype; target_type's shape and values are not read (act_view
  // keeps it out of the elementwise view).
  for (const auto& [since, until] : {std::pair{15, 18}, std::pair{19, INT_MAX}}) {
    OpDef d = def_op("CastLike", since, until);
    if (since >= 19) d.attr("saturate", AttrKind::kInt, int64_t{1});
    d.input("input", "T1")
        .input("target_type", "T2")
        .output("output", "T2")
        .type_constraint("T1", cast_types())
        .type_constraint("T2", cast_types())
        .trait(kElementwise)
        .describe("output = input converted to target_type's dtype")
        .infer([](const InferContext& c) {
          return std::vector<TensorType>{{c.inputs.at(1).dtype, c.inputs.at(0).shape}};
        })
        .tiling([](const LaunchContext& c) { return elementwise_tiling(act_view(c, {1})); })
        .kernel([](TileBuilder& t) {
          const LaunchContext v = act_view(t.ctx(), {1});
          act_store(t, v, 0, t.copy_in(0, ew_box(v, t.tiling(), 0)));
        })
        .host_kernel([](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
          cast_strings(in[0], out[0]);
        })
        .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
          if (any_string(in, out)) return cast_strings(in[0], out[0]);
          ref_elementwise(in.first(1), out[0], [](const double* v) { return v[0]; });
        });
    r.add(std::move(d));
  }

  r.add(def_op("Where", 9)
            .input("condition", "bool")
            .input("X", "T")
            .input("Y", "T")
            .output("output", "T")
            .type_constraint("T", numeric_bool_types())
            .trait(kElementwise | kBroadcast)
            .describe("output = condition ? X : Y with numpy broadcasting")
            .infer([](const InferContext& c) { return infer_broadcast(c, 1); })
            .tiling(elementwise_tiling)
            .kernel([](TileBuilder& t) {
              Buf cond = t.copy_in(0, ew_box(t.ctx(), t.tiling(), 0));
              Buf x = t.copy_in(1, ew_box(t.ctx(), t.tiling(), 1));
              Buf y = t.copy_in(2, ew_box(t.ctx(), t.tiling(), 2));
              ew_store(t, 0, t.select(cond, x, y));
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              ref_elementwise(in, out[0], [](const double* v) { return v[0] != 0 ? v[1] : v[2]; });
            }));
}

}  // namespace asc

#include "runtime/precision.h"

#include <algorithm>
#include <cmath>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// True when node input k is declared with a fixed dtype (e.g. "f32") rather than a constraint.
bool fixed_dtype_param(const Node& n, size_t k) {
  if (!n.def || n.def->inputs.empty()) return false;
  const ParamDef& p = n.def->inputs[std::min(k, n.def->inputs.size() - 1)];
  return dtype_from_name(p.type) != DType::kUndefined;
}

// Largest finite value of a low-precision float dtype.
double max_finite(DType to) {
  return to == DType::kF16 ? 65504.0 : 3.3895313892515355e38;  // bf16: (2 - 2^-7) * 2^127
}

// A constant in the low dtype; finite values beyond its range clamp to its largest finite value
// (as model converters do) instead of becoming infinities: a mask of -FLT_MAX stays a huge
// negative number, so masked rows do not turn into NaN.
Tensor converted(const Tensor& t, DType to) {
  Tensor c(to, t.shape());
  const double m = max_finite(to);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.at(i);
    c.set(i, std::isfinite(v) ? std::clamp(v, -m, m) : v);
  }
  return c;
}

int add_cast(Graph& g, int from, int to_value, DType to) {
  Node n;
  n.name = cat(g.values[to_value].name, "/precision_cast");
  n.op_type = "Cast";
  n.opset = g.opsets.count("") ? g.opsets.at("") : 17;
  n.def = global_registry().find("", "Cast", n.opset);
  if (!n.def) throw UnsupportedError("precision conversion needs Cast, which is not registered");
  n.attrs.set("to", static_cast<int64_t>(to));
  n.inputs = {from};
  n.outputs = {to_value};
  return g.add_node(std::move(n));
}

}  // namespace

DType parse_precision(const std::string& name) {
  if (name == "fp32") return DType::kF32;
  if (name == "fp16") return DType::kF16;
  if (name == "bf16") return DType::kBF16;
  throw Error(cat("precision '", name, "' is not one of fp32, fp16, bf16"));
}

int convert_precision(Graph& g, DType to) {
  if (to == DType::kF32 || to == DType::kUndefined) return 0;
  if (to != DType::kF16 && to != DType::kBF16)
    throw Error(cat("precision ", dtype_name(to), " is not one of f32, f16, bf16"));
  const size_t nv = g.values.size();
  std::vector<bool> fixed(nv, false), is_output(nv, false);
  for (const Node& n : g.nodes)
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0 && fixed_dtype_param(n, k)) fixed[n.inputs[k]] = true;
  for (int v : g.outputs) is_output[v] = true;

  int converted_count = 0;
  for (size_t v = 0; v < nv; ++v) {
    Value& val = g.values[v];
    if (!val.constant || val.constant->dtype() != DType::kF32 || fixed[v]) continue;
    val.constant = converted(*val.constant, to);
    val.type.dtype = to;
    ++converted_count;
  }
  for (Node& n : g.nodes) {
    bool keep_f32 = false;
    for (int o : n.outputs) keep_f32 = keep_f32 || (o >= 0 && fixed[o]);
    if (keep_f32) continue;
    for (const char* a : {"to", "dtype"})
      if (n.attrs.has(a) && attr_kind(n.attrs.all().at(a)) == AttrKind::kInt &&
          n.attrs.i(a) == static_cast<int64_t>(DType::kF32))
        n.attrs.set(a, static_cast<int64_t>(to));
  }
  // Inputs: one Cast each, read by every former consumer.
  for (int in : std::vector<int>(g.inputs)) {
    if (g.values[in].type.dtype != DType::kF32 || is_output[in]) continue;
    const int low =
        g.add_value(cat(g.values[in].name, "/precision"), {to, g.values[in].type.shape});
    for (Node& n : g.nodes)
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] == in && !fixed_dtype_param(n, k)) n.inputs[k] = low;
    add_cast(g, in, low, to);
  }
  // Outputs declared f32 and produced by a node: the node writes a low-precision value that a
  // Cast widens into the output.
  for (int out : g.outputs) {
    Value& val = g.values[out];
    if (val.type.dtype != DType::kF32 || val.producer < 0 || fixed[out]) continue;
    const int prod = val.producer;
    const int low = g.add_value(cat(val.name, "/precision"), {to, g.values[out].type.shape});
    for (int& o : g.nodes[prod].outputs)
      if (o == out) o = low;
    g.values[low].producer = prod;
    g.values[out].producer = -1;
    for (Node& n : g.nodes)
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] == out) n.inputs[k] = low;
    add_cast(g, low, out, DType::kF32);
  }
  return converted_count;
}

}  // namespace asc

#include "registry/op_def.h"

#include <algorithm>
#include <map>

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {

std::string traits_str(uint32_t traits) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {kElementwise, "elementwise"},     {kBroadcast, "broadcast"}, {kCommutative, "commutative"},
      {kReduction, "reduction"},         {kMovement, "movement"},   {kContraction, "contraction"},
      {kNormalization, "normalization"}, {kShapeOf, "shape-of"},    {kRandom, "random"},
      {kControlFlow, "control-flow"}};
  std::string s;
  for (const auto& [bit, name] : kNames)
    if (traits & bit) s += cat(s.empty() ? "" : "|", name);
  return s.empty() ? "-" : s;
}

std::string_view kernel_kind_name(KernelKind k) {
  switch (k) {
    case KernelKind::kTile:
      return "tile";
    case KernelKind::kHost:
      return "host";
    default:
      return "none";
  }
}

OpDef def_op(std::string type, int since, int until, std::string domain) {
  OpDef d;
  d.type = std::move(type);
  d.since = since;
  d.until = until;
  d.domain = std::move(domain);
  return d;
}

OpDef& OpDef::input(std::string name, std::string t, Arity a, bool value_needed) {
  inputs.push_back({std::move(name), std::move(t), a, value_needed});
  return *this;
}
OpDef& OpDef::heterogeneous() {
  if (!inputs.empty()) inputs.back().homogeneous = false;
  return *this;
}
OpDef& OpDef::output(std::string name, std::string t, Arity a) {
  outputs.push_back({std::move(name), std::move(t), a, false});
  return *this;
}
OpDef& OpDef::strided(const std::string& name) {
  for (auto* list : {&inputs, &outputs})
    for (ParamDef& p : *list)
      if (p.name == name) {
        p.strided = true;
        return *this;
      }
  throw Error(cat(type, ": no parameter '", name, "' to mark strided"));
}
OpDef& OpDef::attr(std::string name, AttrKind kind, std::optional<AttrValue> dflt) {
  attrs.push_back({std::move(name), kind, std::move(dflt)});
  return *this;
}
OpDef& OpDef::type_constraint(std::string name, std::vector<DType> types) {
  constraints.push_back({std::move(name), std::move(types)});
  return *this;
}
OpDef& OpDef::trait(uint32_t t) {
  traits |= t;
  return *this;
}
OpDef& OpDef::describe(std::string line) {
  doc = std::move(line);
  return *this;
}
OpDef& OpDef::infer(InferFn f) {
  infer_fn = std::move(f);
  return *this;
}
OpDef& OpDef::tiling(TilingFn f) {
  tiling_fn = std::move(f);
  return *this;
}
OpDef& OpDef::kernel(TileKernelFn f) {
  tile_kernel_fn = std::move(f);
  return *this;
}
OpDef& OpDef::host_kernel(HostKernelFn f) {
  host_kernel_fn = std::move(f);
  return *this;
}
OpDef& OpDef::tile_when(TileWhenFn f) {
  tile_when_fn = std::move(f);
  return *this;
}
OpDef& OpDef::tile_types(std::vector<DType> t) {
  return tile_when([t](const Attrs&, std::span<const TensorDesc> in, std::span<const TensorDesc>) {
    return !in.empty() && std::find(t.begin(), t.end(), in[0].dtype) != t.end();
  });
}
OpDef& OpDef::reference(ReferenceFn f) {
  reference_fn = std::move(f);
  return *this;
}
OpDef& OpDef::same_bytes(SameBytesFn f) {
  same_bytes_fn = std::move(f);
  return *this;
}
OpDef& OpDef::same_bytes() {
  return same_bytes([](const Attrs&, const TensorDesc&, const TensorDesc&) { return true; });
}
OpDef& OpDef::back_to_back(BackToBackFn f) {
  back_to_back_fn = std::move(f);
  return *this;
}
OpDef& OpDef::in_place(int input) {
  in_place_input = input;
  return *this;
}
OpDef& OpDef::launches(LaunchesFn f) {
  launches_fn = std::move(f);
  return *this;
}

KernelKind OpDef::kernel_for(const Attrs& resolved, std::span<const TensorDesc> in,
                             std::span<const TensorDesc> out) const {
  if (tile_kernel_fn && host_kernel_fn && tile_when_fn && !tile_when_fn(resolved, in, out))
    return KernelKind::kHost;
  return kernel_kind();
}

KernelKind OpDef::kernel_kind() const {
  if (tile_kernel_fn) return KernelKind::kTile;
  if (host_kernel_fn) return KernelKind::kHost;
  return KernelKind::kNone;
}

std::string OpDef::name() const {
  return domain.empty() ? type : domain + "." + type;
}

std::string OpDef::versions() const {
  if (until == INT_MAX) return std::to_string(since) + "+";
  if (until == since) return std::to_string(since);
  return std::to_string(since) + "-" + std::to_string(until);
}

std::vector<DType> OpDef::allowed(const std::string& t) const {
  for (const auto& c : constraints)
    if (c.name == t) return c.types;
  const DType fixed = dtype_from_name(t);
  if (fixed != DType::kUndefined) return {fixed};
  return {};
}

Attrs OpDef::resolve(const Attrs& given) const {
  Attrs out;
  for (const auto& [name, value] : given.all()) {
    const AttrDef* def = nullptr;
    for (const auto& a : attrs)
      if (a.name == name) def = &a;
    if (!def) {
      // An attribute named like an input is an older version's form (ReduceMean-17's axes in an
      // opset 18 model): ignoring it would compute something else, so it is refused.
      for (const auto& p : inputs)
        if (p.name == name)
          throw ShapeError(cat(type, "-", since, ": '", name,
                               "' is an input of this version, not an attribute"));
      continue;  // other unknown attributes are ignored
    }
    if (attr_kind(value) != def->kind)
      throw ShapeError(type + ": attribute '" + name + "' is " +
                       std::string(attr_kind_name(attr_kind(value))) + ", expected " +
                       std::string(attr_kind_name(def->kind)));
    out.set(name, value);
  }
  for (const auto& a : attrs) {
    if (out.has(a.name)) continue;
    if (!a.dflt) throw ShapeError(type + ": required attribute '" + a.name + "' is missing");
    out.set(a.name, *a.dflt);
  }
  return out;
}

void OpDef::check_types(const std::vector<DType>& in) const {
  // Every single input must be given; a variadic one at least once.
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ParamDef& p = inputs[i];
    if (p.arity == Arity::kOptional) continue;
    if (i >= in.size() || (p.arity == Arity::kSingle && in[i] == DType::kUndefined))
      throw ShapeError(type + ": required input '" + p.name + "' (input " + std::to_string(i) +
                       ") is missing; the node has " + std::to_string(in.size()) + " inputs");
  }
  std::map<std::string, DType> bound;
  for (size_t i = 0; i < in.size() && !inputs.empty(); ++i) {
    const ParamDef& p = inputs[std::min(i, inputs.size() - 1)];
    if (i >= inputs.size() && p.arity != Arity::kVariadic)
      throw ShapeError(type + ": too many inputs (" + std::to_string(in.size()) + ")");
    if (in[i] == DType::kUndefined) continue;  // absent optional input
    const auto ok = allowed(p.type);
    bool found = false;
    for (DType t : ok) found = found || t == in[i];
    if (!found)
      throw ShapeError(type + ": input '" + p.name + "' has dtype " +
                       std::string(dtype_name(in[i])) + ", not allowed by " + p.type);
    if (!p.homogeneous) continue;
    auto [it, fresh] = bound.emplace(p.type, in[i]);
    if (!fresh && it->second != in[i] && ok.size() > 1)
      throw ShapeError(type + ": input '" + p.name + "' is " + std::string(dtype_name(in[i])) +
                       " but " + p.type + " is already " + std::string(dtype_name(it->second)));
  }
}

}  // namespace asc

#include "registry/registry.h"

#include <algorithm>

#include "registry/error.h"

namespace asc {

void Registry::add(OpDef def) {
  auto& vs = ops_[{def.domain, def.type}];
  for (const auto& v : vs)
    if (def.since <= v.until && v.since <= def.until)
      throw Error("op " + def.name() + " version " + def.versions() + " overlaps " + v.versions());
  vs.push_back(std::move(def));
  std::sort(vs.begin(), vs.end(), [](const OpDef& a, const OpDef& b) { return a.since < b.since; });
}

const OpDef* Registry::find(std::string_view domain, std::string_view type, int opset) const {
  auto it = ops_.find({std::string(domain == "ai.onnx" ? "" : domain), std::string(type)});
  if (it == ops_.end()) return nullptr;
  for (auto v = it->second.rbegin(); v != it->second.rend(); ++v)
    if (v->since <= opset && opset <= v->until) return &*v;
  return nullptr;
}

const OpDef& Registry::lookup(std::string_view domain, std::string_view type, int opset) const {
  if (const OpDef* d = find(domain, type, opset)) return *d;
  std::string name =
      domain.empty() ? std::string(type) : std::string(domain) + "." + std::string(type);
  const auto vs = versions(domain, type);
  if (vs.empty()) throw UnsupportedError("op " + name + " is not registered");
  std::string have;
  for (const OpDef* v : vs) have += (have.empty() ? "" : ", ") + v->versions();
  throw UnsupportedError("op " + name + " has no version for opset " + std::to_string(opset) +
                         " (asc has " + have + ")");
}

std::vector<const OpDef*> Registry::versions(std::string_view domain, std::string_view type) const {
  std::vector<const OpDef*> r;
  auto it = ops_.find({std::string(domain == "ai.onnx" ? "" : domain), std::string(type)});
  if (it != ops_.end())
    for (const auto& v : it->second) r.push_back(&v);
  return r;
}

std::vector<const OpDef*> Registry::all() const {
  std::vector<const OpDef*> r;
  for (const auto& [key, vs] : ops_)
    for (const auto& v : vs) r.push_back(&v);
  return r;
}

}  // namespace asc

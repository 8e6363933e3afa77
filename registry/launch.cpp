#include "registry/launch.h"

#include "registry/error.h"
#include "registry/op_def.h"

namespace asc {

std::string LaunchContext::str() const {
  std::string s = op ? op->type : std::string("?");
  s += "(";
  for (size_t i = 0; i < inputs.size(); ++i) s += (i ? ", " : "") + inputs[i].str();
  s += ") -> ";
  for (size_t i = 0; i < outputs.size(); ++i) s += (i ? ", " : "") + outputs[i].str();
  return s;
}

int64_t TilingData::get(const std::string& key) const {
  auto it = params.find(key);
  if (it == params.end()) throw Error("tiling data has no parameter '" + key + "'");
  return it->second;
}

int64_t TilingData::get(const std::string& key, int64_t dflt) const {
  auto it = params.find(key);
  return it == params.end() ? dflt : it->second;
}

std::string TilingData::str() const {
  std::string s = "grid " + to_string(grid) + " block_dim " + std::to_string(block_dim) + " {";
  bool first = true;
  for (const auto& [k, v] : params) {
    s += (first ? "" : ", ") + k + "=" + std::to_string(v);
    first = false;
  }
  return s + "}";
}

}  // namespace asc

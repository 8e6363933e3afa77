#include "tools/ops_coverage.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "importers/onnx/onnx_schemas.h"
#include "registry/strings.h"

namespace asc {
namespace {

std::string versions_str(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += cat(i ? "," : "", v[i]);
  return s.empty() ? "-" : s;
}

// Ops the ONNX importer turns into graph constants itself (importers/onnx/model.cpp) rather than
// mapping them onto the registry.
bool imported_as_constant(const std::string& domain, const std::string& op) {
  return domain == "ai.onnx" && op == "Constant";
}

}  // namespace

std::vector<OpCoverage> ops_coverage(const Registry& reg) {
  std::map<std::pair<std::string, std::string>, OpCoverage> by_op;
  for (const onnx::OpSchema& s : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    const std::string domain = s.domain().empty() ? "ai.onnx" : s.domain();
    if (domain == "ai.onnx" && s.SinceVersion() > 17) continue;  // ONNX 1.12 ends at 17
    OpCoverage& c = by_op[{domain, s.Name()}];
    c.domain = domain;
    c.op = s.Name();
    c.versions.push_back(s.SinceVersion());
    if (s.SinceVersion() >= *std::max_element(c.versions.begin(), c.versions.end()))
      c.deprecated = s.Deprecated();
  }
  // Opsets 18..23 from asc's own table of ONNX's later schema versions.
  for (const SchemaVersion& s : onnx_schemas_after_1_12()) {
    OpCoverage& c = by_op[{std::string(s.domain), std::string(s.op)}];
    c.domain = s.domain;
    c.op = s.op;
    c.versions.push_back(s.since);
    c.deprecated = false;  // none of the newest versions up to 23 is deprecated
  }
  std::vector<OpCoverage> out;
  for (auto& [key, c] : by_op) {
    std::sort(c.versions.begin(), c.versions.end());
    const std::string dom = c.domain == "ai.onnx" ? "" : c.domain;
    for (int v : c.versions)
      if (reg.find(dom, c.op, v) || imported_as_constant(c.domain, c.op))
        c.implemented.push_back(v);
    out.push_back(std::move(c));
  }
  return out;
}

std::string coverage_report(const std::vector<OpCoverage>& c, bool json) {
  int full = 0, partial = 0, none = 0, versions = 0, implemented = 0;
  for (const auto& o : c) {
    versions += static_cast<int>(o.versions.size());
    implemented += static_cast<int>(o.implemented.size());
    if (o.implemented.size() == o.versions.size())
      ++full;
    else if (o.implemented.empty())
      ++none;
    else
      ++partial;
  }
  if (json) {
    nlohmann::json j;
    j["ops"] = nlohmann::json::array();
    for (const auto& o : c)
      j["ops"].push_back({{"domain", o.domain},
                          {"op", o.op},
                          {"versions", o.versions},
                          {"implemented", o.implemented},
                          {"deprecated", o.deprecated}});
    j["total"] = {{"ops", c.size()}, {"full", full},         {"partial", partial},
                  {"none", none},    {"versions", versions}, {"versions_implemented", implemented}};
    return j.dump(2) + "\n";
  }
  std::string s = cat("domain                     op                              status   ",
                      "onnx versions / asc has\n");
  for (const auto& o : c) {
    const char* status = o.implemented.size() == o.versions.size() ? "yes"
                         : o.implemented.empty()                   ? "no"
                                                                   : "partial";
    char line[256];
    std::snprintf(line, sizeof line, "%-26s %-31s %-8s %s / %s%s\n", o.domain.c_str(), o.op.c_str(),
                  status, versions_str(o.versions).c_str(), versions_str(o.implemented).c_str(),
                  o.deprecated ? " (deprecated)" : "");
    s += line;
  }
  s += cat("\n", c.size(), " ONNX operators: ", full, " with every version, ", partial,
           " with some, ", none, " missing; ", implemented, " of ", versions,
           " schema versions implemented\n");
  return s;
}

}  // namespace asc

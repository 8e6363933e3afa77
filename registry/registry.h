// The operator registry: every op version registered explicitly by its family's
// register_<family>(Registry&), looked up by (domain, type, model opset).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "registry/op_def.h"

namespace asc {

class Registry {
 public:
  // Throws Error when the version range overlaps one already registered.
  void add(OpDef def);

  // The newest version with since <= opset <= until; UnsupportedError lists the versions held.
  const OpDef& lookup(std::string_view domain, std::string_view type, int opset) const;
  const OpDef* find(std::string_view domain, std::string_view type, int opset) const;
  // Every registered version of one op, oldest first.
  std::vector<const OpDef*> versions(std::string_view domain, std::string_view type) const;
  // Every op version, sorted by domain, type, since.
  std::vector<const OpDef*> all() const;

 private:
  std::map<std::pair<std::string, std::string>, std::vector<OpDef>> ops_;
};

}  // namespace asc

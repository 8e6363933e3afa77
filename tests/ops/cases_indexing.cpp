// Cases of the indexing family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_indexing() {
  return {};
}

}  // namespace asc::test

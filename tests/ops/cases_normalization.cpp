// Cases of the normalization family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_normalization() {
  return {};
}

}  // namespace asc::test

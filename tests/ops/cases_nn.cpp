// Cases of the nn family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_nn() {
  return {};
}

}  // namespace asc::test

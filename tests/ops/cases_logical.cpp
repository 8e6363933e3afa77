// Cases of the logical family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_logical() {
  return {};
}

}  // namespace asc::test

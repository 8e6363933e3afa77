// Cases of the movement family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_movement() {
  return {};
}

}  // namespace asc::test

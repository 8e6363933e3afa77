// Cases of the misc family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_misc() {
  return {};
}

}  // namespace asc::test

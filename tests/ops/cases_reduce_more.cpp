// Cases of the reduce_more family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_reduce_more() {
  return {};
}

}  // namespace asc::test

// Cases of the activations family.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_activations() {
  return {};
}

}  // namespace asc::test

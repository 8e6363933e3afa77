// Cases of the nn family's sampling ops: Resize, Upsample, GridSample, RoiAlign.
#include "ops/op_cases.h"

namespace asc::test {

std::vector<OpCase> cases_nn_resize() {
  return {};
}

}  // namespace asc::test

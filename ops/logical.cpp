// Logical, bitwise and comparison ops: And, Or, Xor, Not, BitShift, Equal, Greater, Less, ...,
// IsNaN, IsInf.
#include "ops/ops.h"

namespace asc {

void register_logical(Registry& r) {
  (void)r;
}

}  // namespace asc

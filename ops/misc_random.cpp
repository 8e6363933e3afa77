#include "ops/misc.h"

namespace asc {
void register_misc_random(Registry& r) {
  (void)r;
}
}  // namespace asc

#include "ops/misc.h"

namespace asc {
void register_misc_detect(Registry& r) {
  (void)r;
}
}  // namespace asc

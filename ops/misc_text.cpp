#include "ops/misc.h"

namespace asc {
void register_misc_text(Registry& r) {
  (void)r;
}
}  // namespace asc

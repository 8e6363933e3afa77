// GM for the emitted kernels' arguments: the emulator's GmAlloc blocks, so its DMA calls check
// every access against the argument's bounds (kept apart from the test's asc headers).
#include <cstddef>

#include "kernel_operator.h"

namespace asc::test {

void* emit_gm_alloc(size_t bytes) {
  return AscendC::GmAlloc(bytes);
}
void emit_gm_free(void* p) {
  AscendC::GmFree(p);
}

}  // namespace asc::test

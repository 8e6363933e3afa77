// GM for the emitted kernels' arguments: the emulator's GmAlloc blocks, so its DMA calls check
// every access against the argument's bounds (kept apart from the test's asc headers).
#include <cstddef>

#include "ascend/emit_entry.h"
#include "kernel_operator.h"

namespace asc::test {

void* emit_gm_alloc(size_t bytes) {
  return AscendC::GmAlloc(bytes);
}
void emit_gm_free(void* p) {
  AscendC::GmFree(p);
}

void emit_run(const EmitEntry& e, uint8_t* const* args, const EmitRunOptions& r,
              std::vector<std::string>* races) {
  ascemu::Options o;
  o.cce_auto_sync = r.cce_auto_sync;
  o.stop_at_first_race = false;
  o.drop_file = r.drop_file;
  o.drop_line = r.drop_line;
  o.sync_sites = r.sync_sites;
  e.run(args, o, races);
}

}  // namespace asc::test

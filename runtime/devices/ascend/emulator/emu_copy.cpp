// The emulator's DMA bursts (emu_copy.h).
#include "emu_copy.h"

namespace ascemu {

void dma_bursts(const char* call, int pipe, Mem dmem, uint64_t dbase, Mem smem, uint64_t sbase,
                uint32_t count, uint64_t len, uint64_t sstep, uint64_t dstep) {
  Core& c = current();
  auto host = [&](Mem m, uint64_t at) {
    return m == Mem::kGM ? reinterpret_cast<uint8_t*>(at) : c.base(m) + at;
  };
  uint8_t* d = host(dmem, dbase);
  const uint8_t* s = host(smem, sbase);
  std::vector<Access> acc;
  acc.reserve(2 * static_cast<size_t>(count));
  for (uint64_t b = 0; b < count; ++b) {
    acc.push_back({smem, sbase + b * sstep, sbase + b * sstep + len, false});
    acc.push_back({dmem, dbase + b * dstep, dbase + b * dstep + len, true});
  }
  c.issue(pipe, call, std::move(acc), [=] {
    for (uint64_t b = 0; b < count; ++b) std::memmove(d + b * dstep, s + b * sstep, len);
  });
}

}  // namespace ascemu

// The emulator's data caches (emu_dcache.h).
#include "emu_dcache.h"

#include <set>
#include <string>
#include <utility>

#include "emu_sched.h"

namespace ascemu {

namespace {

// The bytes of [begin, end) inside the line at `line`, one bit per byte.
uint64_t byte_mask(uint64_t line, uint64_t begin, uint64_t end) {
  const uint64_t lo = begin > line ? begin - line : 0;
  const uint64_t hi = end < line + kCacheLine ? end - line : kCacheLine;
  if (hi <= lo) return 0;
  const uint64_t n = hi - lo;
  return (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << lo;
}

// The start of the 64-byte line of addr: lines count from the start of addr's GmAlloc block (a
// device allocation starts on a line; a host one need not).
uint64_t line_of(uint64_t addr) {
  const GmBlock* b = gm_block_of(reinterpret_cast<const void*>(addr));
  const uint64_t origin = b ? b->begin % kCacheLine : 0;
  return (addr - origin) / kCacheLine * kCacheLine + origin;
}

std::string gm_where(uint64_t begin, uint64_t end) {
  const GmBlock* b = gm_block_of(reinterpret_cast<const void*>(begin));
  if (!b) return "GM bytes at " + std::to_string(begin);
  return "GM block #" + std::to_string(b->index) + " bytes [" + std::to_string(begin - b->begin) +
         ", " + std::to_string(end - b->begin) + ")";
}

}  // namespace

void DataCaches::report(Launch& l, Core& c, int pipe, const Access& a, const char* name,
                        uint32_t seq, const std::string& what) const {
  l.report_race("race in kernel " + l.options().kernel +
                " (data cache): " + gm_where(a.begin, a.end) + ": " + l.cross()->who(c.index()) +
                " " + pipe_name(pipe) + " `" + name + "` (call #" + std::to_string(seq) + ")" +
                (a.write ? " writes " : " reads ") + what);
}

void DataCaches::changed(uint64_t line, uint64_t mask, const Writer& w) {
  for (auto& copies : cores_) {
    const auto it = copies.find(line);
    if (it == copies.end()) continue;
    it->second.stale |= mask & ~it->second.dirty;  // a core's own unwritten bytes win
    it->second.staler = w;
  }
}

void DataCaches::access(Launch& l, Core& c, int pipe, const Access& a, const char* name,
                        uint32_t seq) {
  if (a.end <= a.begin) return;
  const int me = c.index();
  const Writer self{me, pipe, name, seq};
  auto who = [&](const Writer& w) {
    return l.cross()->who(w.core) + " " + pipe_name(w.pipe) + " `" + w.name + "` (call #" +
           std::to_string(w.seq) + ")";
  };
  std::set<std::pair<int, uint32_t>> told;  // one report per (core, write) for this access
  auto tell = [&](const Writer& w, const std::string& what) {
    if (told.insert({w.core, w.seq}).second) report(l, c, pipe, a, name, seq, what);
  };
  for (uint64_t line = line_of(a.begin); line < a.end; line += kCacheLine) {
    const uint64_t mask = byte_mask(line, a.begin, a.end);
    // Copies of the line that another core (or, for a DMA, this core) holds written.
    for (size_t d = 0; d < cores_.size(); ++d) {
      const auto it = cores_[d].find(line);
      if (it == cores_[d].end() || !it->second.dirty) continue;
      const Cached& k = it->second;
      if (pipe == kS && static_cast<int>(d) == me) continue;  // the scalar unit sees its own
      if (pipe == kS && a.write)
        tell(k.wrote, "a 64-byte GM line that " + who(k.wrote) +
                          " left written in its data cache: each cache writes back the whole "
                          "line, so one undoes the other (keep cores' scalar writes a line apart)");
      else if (a.write)
        tell(k.wrote, "a 64-byte GM line that " + who(k.wrote) +
                          " left written in its data cache: its write-back of the line will undo "
                          "this (DataCacheCleanAndInvalid first)");
      else if (mask & k.dirty)
        tell(k.wrote, "what " + who(k.wrote) +
                          " left in its data cache, not yet in GM (DataCacheCleanAndInvalid "
                          "writes it back)");
    }
    if (pipe != kS) {  // the DMA pipes reach GM directly
      if (a.write) changed(line, mask, self);
      continue;
    }
    Cached& k = cores_[static_cast<size_t>(me)][line];  // a miss fills the line from GM
    if (!a.write && (k.stale & mask)) {
      tell(k.staler, "a copy of the line its data cache took before " + who(k.staler) +
                         " wrote GM (DataCacheCleanAndInvalid drops it)");
      k.stale &= ~mask;
    }
    if (a.write) {
      if (k.stale & ~mask)
        tell(k.staler, "a line its data cache took before " + who(k.staler) +
                           " wrote GM: the write-back of the whole line will put the old bytes "
                           "back (DataCacheCleanAndInvalid first)");
      k.stale = 0;
      if (!k.dirty) k.wrote = self;
      k.dirty |= mask;
    }
  }
}

void DataCaches::clean(Core& c, uint64_t addr, bool entire) {
  auto& mine = cores_[static_cast<size_t>(c.index())];
  auto drop = [&](std::map<uint64_t, Cached>::iterator it) {
    const uint64_t line = it->first, dirty = it->second.dirty;
    const Writer w = it->second.wrote;
    it = mine.erase(it);
    if (dirty) changed(line, dirty, w);  // the write-back changes GM
    return it;
  };
  if (entire) {
    for (auto it = mine.begin(); it != mine.end();) it = drop(it);
    return;
  }
  const auto it = mine.find(line_of(addr));
  if (it != mine.end()) drop(it);
}

void dcci(const void* addr, bool entire, AscendC::DcciDst dst) {
  Core& c = current();
  const char* call = "DataCacheCleanAndInvalid";
  check(dst != AscendC::DcciDst::CACHELINE_ATOMIC, call,
        "DcciDst::CACHELINE_ATOMIC is not on the Atlas A2");
  if (dst == AscendC::DcciDst::CACHELINE_UB) return;  // keeps the cache coherent with UB only
  check(entire || addr != nullptr, call, "GM address is null (SetGlobalBuffer was not called)");
  c.launch().cross()->dcaches().clean(c, reinterpret_cast<uint64_t>(addr), entire);
}

}  // namespace ascemu

// The vector unit's non-template parts (emu_vec_base.h).
#include <algorithm>

#include "emu_vec_base.h"
#include "emu_vec_reduce.h"

namespace ascemu {

void set_mask_len(const char* call, uint32_t per, uint64_t len) {
  VecRegs& g = current().vec;
  check(!g.counter, call,
        "in counter mode (SetMaskCount) the continuous mask " + std::to_string(len) +
            " would set the mask register to a bit pattern, not a count; pass uint64_t mask[2] = "
            "{count, 0}");
  const uint64_t full = ~uint64_t{0};
  if (len == 64) {
    g.mask_hi = 0;
    g.mask_lo = full;
  } else if (len == per || len >= 128) {
    g.mask_hi = g.mask_lo = full;
  } else if (len > 64) {
    g.mask_hi = (uint64_t{1} << (len - 64)) - 1;
    g.mask_lo = full;
  } else {
    g.mask_hi = 0;
    g.mask_lo = (uint64_t{1} << len) - 1;
  }
}

void set_mask_bits(const char* call, uint32_t per, const uint64_t mask[]) {
  check(mask != nullptr, call, "mask[] is null");
  VecRegs& g = current().vec;
  g.mask_lo = mask[0];
  g.mask_hi = per > 64 ? mask[1] : 0;
  if (g.counter) g.mask_hi = 0;
}

void level2_begin(uint64_t count) {
  VecRegs& g = current().vec;
  g.counter = true;
  g.mask_hi = 0;
  g.mask_lo = count;
}

void level2_end() {
  VecRegs& g = current().vec;
  g.counter = false;
  g.mask_hi = g.mask_lo = ~uint64_t{0};
}

void merge_into(std::vector<std::pair<uint64_t, uint64_t>>& ranges, bool write,
                std::vector<Access>& out) {
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 0; i < ranges.size();) {
    const uint64_t lo = ranges[i].first;
    uint64_t hi = ranges[i].second;
    for (++i; i < ranges.size() && ranges[i].first <= hi; ++i) hi = std::max(hi, ranges[i].second);
    out.push_back(Access{Mem::kUB, lo, hi, write});
  }
}

// Reads first, then every write merged: one instruction reads before it writes and never races
// with itself.
std::vector<Access> vec_accesses(const char* call, const VGeom& g, const std::vector<VOp>& ops) {
  std::vector<Access> out;
  std::vector<std::pair<uint64_t, uint64_t>> writes;
  for (const VOp& op : ops) {
    const uint32_t epb = 32 / op.es;
    if (g.counter && op.blk == 1 && uint64_t{op.rep} * 32 == uint64_t{g.per} * op.es)
      check(g.count * op.es <= op.end - op.off, call,
            "count " + std::to_string(g.count) + " past an operand of " +
                std::to_string((op.end - op.off) / op.es) + " elements");
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (uint32_t r = 0; r < g.repeats; ++r)
      for (uint32_t b = 0; b * epb < g.per; ++b) {
        uint32_t first = epb, last = 0;
        for (uint32_t k = 0; k < epb && b * epb + k < g.per; ++k)
          if (g.active(r, b * epb + k)) {
            first = std::min(first, k);
            last = k;
          }
        if (first == epb) continue;
        const uint64_t lo = op.at(r, b * epb + first), hi = op.at(r, b * epb + last) + op.es;
        check(hi <= op.end, call,
              std::string(op.role) + " reaches UB byte " + std::to_string(hi) + " (repeat " +
                  std::to_string(r) + ", block " + std::to_string(b) +
                  "), past its tensor's end at " + std::to_string(op.end));
        check(hi <= current().capacity(Mem::kUB), call,
              std::string(op.role) + " reaches UB byte " + std::to_string(hi) + ", past UB");
        (op.write ? writes : ranges).emplace_back(lo, hi);
      }
    merge_into(ranges, false, out);
  }
  merge_into(writes, true, out);
  return out;
}

namespace {
uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}
uint64_t align_up(uint64_t a, uint64_t b) {
  return ceil_div(a, b) * b;
}
}  // namespace

// The documented sizes: ReduceSum's count form does not use the buffer; its level-0 form needs the
// repeat sums; ReduceMax/ReduceMin need (value, index) pairs of the first pass, and with calIndex
// every later pass's pairs too.
uint64_t reduce_tmp_elems(ReduceType k, bool level0, bool index, uint64_t first_repeats,
                          uint32_t per, uint32_t per_block) {
  if (k == ReduceType::SUM) return level0 ? align_up(first_repeats, per_block) : 0;
  const uint64_t out1 = first_repeats * 2;
  if (!index) return align_up(out1, per_block);
  const uint64_t start2 = align_up(out1, per_block);
  const uint64_t out2 = ceil_div(out1, per) * 2;
  const uint64_t end2 = align_up(out2, per_block);
  if (out2 <= 2) return start2 + end2;
  const uint64_t out3 = ceil_div(out2, per) * 2;
  return start2 + end2 + align_up(out3, per_block);
}

}  // namespace ascemu

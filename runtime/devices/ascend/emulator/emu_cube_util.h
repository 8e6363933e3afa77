// Checks and access lists shared by the cube unit's calls (emu_cube_load.cpp, emu_cube_mmad.cpp).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "emu_cube.h"

namespace ascemu {
namespace cube {

inline uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}
inline std::string num(uint64_t v) {
  return std::to_string(v);
}

// The call runs on the cube core.
void need_aic(const char* call);
// The operand lies in one of `mems` and starts `align`-byte aligned; `what` names it.
void need_local(const char* call, const char* what, const Opnd& o, std::initializer_list<Mem> mems,
                uint64_t align);
// Bytes [off, off + bytes) past the operand's start stay inside it and inside its memory.
void need_inside(const char* call, const char* what, const Opnd& o, uint64_t bytes);
// GM bytes [0, bytes) of the operand lie inside its GlobalTensor and its GmAlloc block.
void need_gm(const char* call, const Gm& g, uint64_t bytes);

// Byte ranges of one instruction. take() gives them sorted, overlapping and adjacent ranges of
// one memory and kind merged (an instruction's own accesses must not conflict with each other in
// the race checker), reads before writes.
class Ranges {
 public:
  void add(Mem m, uint64_t begin, uint64_t end, bool write) {
    if (!acc_.empty()) {
      Access& b = acc_.back();
      if (b.mem == m && b.write == write && b.end == begin) {
        b.end = end;
        return;
      }
    }
    acc_.push_back(Access{m, begin, end, write});
  }
  std::vector<Access> take() {
    std::sort(acc_.begin(), acc_.end(), [](const Access& x, const Access& y) {
      if (x.write != y.write) return !x.write;
      if (x.mem != y.mem) return x.mem < y.mem;
      return x.begin < y.begin;
    });
    std::vector<Access> out;
    for (const Access& a : acc_) {
      if (!out.empty() && out.back().mem == a.mem && out.back().write == a.write &&
          a.begin <= out.back().end) {
        out.back().end = std::max(out.back().end, a.end);
        continue;
      }
      out.push_back(a);
    }
    acc_.clear();
    return out;
  }

 private:
  std::vector<Access> acc_;
};

// A host pointer to byte `off` of a memory of the current core (GM: `off` is the address).
inline uint8_t* host(Mem m, uint64_t off) {
  return m == Mem::kGM ? reinterpret_cast<uint8_t*>(off) : current().base(m) + off;
}

}  // namespace cube
}  // namespace ascemu

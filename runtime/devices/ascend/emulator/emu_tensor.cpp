// The emulator's buffer framework: positions, TPipe's allocation, GM checks (emu_tensor.h).
#include "emu_tensor.h"

namespace ascemu {

using AscendC::TPosition;

Mem mem_of_position(TPosition p) {
  switch (p) {
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
    case TPosition::TSCM:
      return Mem::kL1;
    case TPosition::A2:
      return Mem::kL0A;
    case TPosition::B2:
      return Mem::kL0B;
    case TPosition::CO1:
      return Mem::kL0C;
    case TPosition::C2:
      return Mem::kBT;
    case TPosition::VECIN:
    case TPosition::VECOUT:
    case TPosition::VECCALC:
    case TPosition::CO2:
      return Mem::kUB;
    default:
      fail("TPosition", std::string(position_name(p)) + " is not a local memory");
  }
}

const char* position_name(TPosition p) {
  switch (p) {
    case TPosition::GM:
      return "GM";
    case TPosition::A1:
      return "A1";
    case TPosition::A2:
      return "A2";
    case TPosition::B1:
      return "B1";
    case TPosition::B2:
      return "B2";
    case TPosition::C1:
      return "C1";
    case TPosition::C2:
      return "C2";
    case TPosition::CO1:
      return "CO1";
    case TPosition::CO2:
      return "CO2";
    case TPosition::VECIN:
      return "VECIN";
    case TPosition::VECOUT:
      return "VECOUT";
    case TPosition::VECCALC:
      return "VECCALC";
    case TPosition::SPM:
      return "SPM";
    case TPosition::TSCM:
      return "TSCM";
    default:
      return "position";
  }
}

int writer_pipe(TPosition p) {
  switch (p) {
    case TPosition::VECIN:
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
      return kMTE2;
    case TPosition::A2:
    case TPosition::B2:
    case TPosition::C2:
      return kMTE1;
    case TPosition::CO1:
      return kM;
    case TPosition::VECOUT:
      return kV;
    default:
      return -1;  // VECCALC and the rest: no queue synchronisation
  }
}

int reader_pipe(TPosition p) {
  switch (p) {
    case TPosition::VECIN:
      return kV;
    case TPosition::VECOUT:
      return kMTE3;
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
      return kMTE1;
    case TPosition::A2:
    case TPosition::B2:
    case TPosition::C2:
      return kM;
    case TPosition::CO1:
      return kFIX;
    default:
      return -1;
  }
}

void check_gm(const char* call, const void* p, uint64_t bytes) {
  check(p != nullptr, call, "GM address is null (SetGlobalBuffer was not called)");
  const GmBlock* b = gm_block_of(p);
  if (!b) return;  // not from GmAlloc: unchecked
  const auto a = reinterpret_cast<uint64_t>(p);
  check(a + bytes <= b->end, call,
        "GM bytes [" + std::to_string(a - b->begin) + ", " + std::to_string(a - b->begin + bytes) +
            ") past GM block #" + std::to_string(b->index) + " of " +
            std::to_string(b->end - b->begin) + " bytes");
}

}  // namespace ascemu

namespace AscendC {

int64_t GetBlockIdx() {
  return ascemu::current().block_idx();
}
int64_t GetBlockNum() {
  return ascemu::current().block_num();
}
int64_t GetSubBlockIdx() {
  return ascemu::current().sub_block_idx();
}
int64_t GetTaskRation() {
  return ascemu::current().task_ration();
}

TPipe::TPipe() {
  ascemu::current().reset_memories();
}

void TPipe::Reset() {
  for (auto& u : used_) u = 0;
  buffers_ = 0;
  ascemu::current().reset_memories();
}

uint64_t TPipe::take(ascemu::Mem m, uint64_t bytes, int buffers, const char* pos,
                     const char* kind) {
  using ascemu::Mem;
  ascemu::Core& core = ascemu::current();
  const uint64_t align = m == Mem::kL0A || m == Mem::kL0B ? 512 : m == Mem::kL0C ? 1024 : 32;
  const int i = static_cast<int>(m);
  const uint64_t at = (used_[i] + align - 1) / align * align;
  const uint32_t cap = core.capacity(m);
  ascemu::check(cap > 0, "TPipe::InitBuffer",
                std::string(core.aic() ? "an AIC (cube core)" : "an AIV (vector core)") +
                    " has no " + ascemu::mem_name(m) + " (position " + pos + ")");
  ascemu::check(at + bytes <= cap, "TPipe::InitBuffer",
                std::string(ascemu::mem_name(m)) + " needs " + std::to_string(bytes) +
                    " bytes at offset " + std::to_string(at) + ", past its " + std::to_string(cap) +
                    " bytes");
  buffers_ += buffers;
  ascemu::check(buffers_ <= 64, "TPipe::InitBuffer",
                "more than 64 buffers in one TPipe (" + std::to_string(buffers_) + ")");
  used_[i] = at + bytes;
  if (m == Mem::kUB) core.ub_end = used_[i];
  core.name_region(m, at, at + bytes,
                   std::string(kind) + "<" + pos + "> #" + std::to_string(inits_++));
  return at;
}

}  // namespace AscendC

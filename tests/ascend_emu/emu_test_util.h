// Helpers of the emulator's tests: GM from GmAlloc, launch options that collect races,
// the message of a refused launch, and the kernel pieces the mixed tests share.
#pragma once

#include <string>
#include <vector>

#include "kernel_operator.h"

namespace emutest {

struct Gm {
  explicit Gm(size_t bytes) : p(AscendC::GmAlloc(bytes)) {}
  ~Gm() { AscendC::GmFree(p); }
  Gm(const Gm&) = delete;
  Gm& operator=(const Gm&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
  template <typename T>
  AscendC::GlobalTensor<T> tensor(uint64_t n) const {
    AscendC::GlobalTensor<T> t;
    t.SetGlobalBuffer(as<T>(), n);
    return t;
  }
  GM_ADDR addr() const { return static_cast<GM_ADDR>(p); }
  void* p;
};

inline ascemu::Options collect(const char* name) {
  ascemu::Options o;
  o.kernel = name;
  o.stop_at_first_race = false;
  return o;
}

// The message of the Error a launch throws, or "(accepted)".
template <typename F>
std::string error_of(F&& launch) {
  try {
    launch();
  } catch (const ascemu::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

inline bool has(const std::vector<std::string>& races, const std::string& what) {
  for (const std::string& m : races)
    if (m.find(what) != std::string::npos) return true;
  return false;
}

// A workspace tile the AIC of an AI Core writes, a half for each of its AIVs.
constexpr int32_t kHalf = 64, kTile = 2 * kHalf;

inline float produced(int64_t group, int32_t i) {
  return static_cast<float>(group * 1000 + i) * 0.5f;
}

// On an AIV: the half of a workspace tile that is its own, through UB, times 2 plus 1, to y.
inline __aicore__ void aiv_consume(const AscendC::GlobalTensor<float>& ws,
                                   const AscendC::GlobalTensor<float>& y) {
  using AscendC::TPosition;
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> in;
  AscendC::TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, kHalf * sizeof(float));
  pipe.InitBuffer(out, 1, kHalf * sizeof(float));
  AscendC::LocalTensor<float> a = in.AllocTensor<float>();
  AscendC::DataCopy(a, ws, kHalf);
  in.EnQue(a);
  a = in.DeQue<float>();
  AscendC::LocalTensor<float> b = out.AllocTensor<float>();
  AscendC::Muls(b, a, 2.0f, kHalf);
  AscendC::PipeBarrier<PIPE_V>();
  AscendC::Adds(b, b, 1.0f, kHalf);
  out.EnQue(b);
  in.FreeTensor(a);
  b = out.DeQue<float>();
  AscendC::DataCopy(y, b, kHalf);
  out.FreeTensor(b);
}

}  // namespace emutest

// Helpers of the vector-unit tests: GM blocks, UB <-> GM moves with their flags, refusal capture.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "kernel_operator.h"

namespace vectest {

struct Gm {
  explicit Gm(size_t bytes) : p(AscendC::GmAlloc(bytes)) {}
  ~Gm() { AscendC::GmFree(p); }
  Gm(const Gm&) = delete;
  Gm& operator=(const Gm&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
  GM_ADDR addr() const { return static_cast<GM_ADDR>(p); }
  void* p;
};

// GM -> UB (n elements, a multiple of 32 bytes), then the vector pipe may read it.
template <typename T>
void load(const AscendC::LocalTensor<T>& t, T* gm, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(gm, n);
  AscendC::DataCopy(t, g, n);
  AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
}

// Once the vector pipe is done, UB -> GM (n elements, a multiple of 32 bytes).
template <typename T>
void save(T* gm, const AscendC::LocalTensor<T>& t, uint32_t n) {
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(gm, n);
  AscendC::DataCopy(g, t, n);
  AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0);
}

inline ascemu::Options collect(const char* name) {
  ascemu::Options o;
  o.kernel = name;
  o.stop_at_first_race = false;
  return o;
}

// Runs body on one vector core; no race allowed.
inline void run1(const std::function<void()>& body, const char* name = "vec") {
  const ascemu::Result r = ascemu::run_cores(collect(name), KERNEL_TYPE_AIV_ONLY, 1, body);
  EXPECT_TRUE(r.races.empty()) << r.races.front();
}

// The message of the refusal body raises ("(accepted)" if none).
inline std::string refusal(const std::function<void()>& body) {
  try {
    ascemu::run_cores(ascemu::Options{}, KERNEL_TYPE_AIV_ONLY, 1, body);
  } catch (const ascemu::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace vectest

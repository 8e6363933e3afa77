// Helpers of the vector-unit tests: GM blocks, UB <-> GM moves with their flags, refusal capture.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "emu_test_util.h"
#include "kernel_operator.h"

namespace vectest {

using emutest::Gm;

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

constexpr uint32_t kRegion = 8192;  // bytes per operand region

// Byte offset of element j of repeat r.
inline uint64_t at(uint32_t r, uint32_t j, uint32_t es, uint32_t blk, uint32_t rep) {
  const uint32_t epb = 32 / es;
  return (uint64_t{r} * rep + uint64_t{j / epb} * blk) * 32 + uint64_t{j % epb} * es;
}

inline bool bit(const uint64_t m[2], uint32_t j) {
  return (m[j / 64] >> (j % 64)) & 1u;
}

// Three operand regions of UB (src0, src1, dst) filled from host bytes; body runs the calls;
// returns dst's bytes.
struct Regions {
  std::vector<uint8_t> src0, src1, dst;
  explicit Regions(uint32_t seed) : src0(kRegion), src1(kRegion), dst(kRegion) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-4, 4);
    for (uint32_t i = 0; i < kRegion / 4; ++i) {
      const float a = u(rng), b = u(rng);
      std::memcpy(&src0[i * 4], &a, 4);
      std::memcpy(&src1[i * 4], &b, 4);
    }
    std::memset(dst.data(), 0x5a, kRegion);
  }
  template <typename T>
  void fill_half() {
    for (uint32_t i = 0; i < kRegion / 2; ++i) {
      float a, b;
      std::memcpy(&a, &src0[(i & ~1u) * 2], 4);
      std::memcpy(&b, &src1[(i & ~1u) * 2], 4);
      const T ha(a + static_cast<float>(i % 3)), hb(b - static_cast<float>(i % 5));
      std::memcpy(&src0[i * 2], &ha, 2);
      std::memcpy(&src1[i * 2], &hb, 2);
    }
  }
  template <typename T>
  T get(const std::vector<uint8_t>& v, uint64_t off) const {
    T x;
    std::memcpy(&x, &v[off], sizeof(T));
    return x;
  }
  using Body =
      std::function<void(const AscendC::LocalTensor<uint8_t>&, const AscendC::LocalTensor<uint8_t>&,
                         const AscendC::LocalTensor<uint8_t>&)>;
  std::vector<uint8_t> run(const Body& body) const {
    Gm g0(kRegion), g1(kRegion), gd(kRegion);
    std::memcpy(g0.p, src0.data(), kRegion);
    std::memcpy(g1.p, src1.data(), kRegion);
    std::memcpy(gd.p, dst.data(), kRegion);
    vectest::run1([&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 3 * kRegion);
      AscendC::LocalTensor<uint8_t> all = buf.Get<uint8_t>();
      AscendC::LocalTensor<uint8_t> a = all, b = all[kRegion], d = all[2 * kRegion];
      a.SetSize(kRegion);
      b.SetSize(kRegion);
      d.SetSize(kRegion);
      AscendC::GlobalTensor<uint8_t> t;
      t.SetGlobalBuffer(g0.as<uint8_t>(), kRegion);
      AscendC::DataCopy(a, t, kRegion);
      t.SetGlobalBuffer(g1.as<uint8_t>(), kRegion);
      AscendC::DataCopy(b, t, kRegion);
      t.SetGlobalBuffer(gd.as<uint8_t>(), kRegion);
      AscendC::DataCopy(d, t, kRegion);
      AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
      AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
      body(a, b, d);
      vectest::save(gd.as<uint8_t>(), d, kRegion);
    });
    std::vector<uint8_t> out(kRegion);
    std::memcpy(out.data(), gd.p, kRegion);
    return out;
  }
};

}  // namespace vectest

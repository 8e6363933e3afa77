// The emulator's cube unit, call by call: refusals with their numbers, the MTE1 -> M race, bias,
// int8, GEMV, Fixpipe's casts, quantisation and NZ outputs, and L0C -> L1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "emu_test_util.h"
#include "kernel_operator.h"

namespace {

using emutest::Gm;

using AscendC::TPosition;

std::string refusal(const std::function<void()>& body, KernelMetaType type = KERNEL_TYPE_AIC_ONLY) {
  try {
    ascemu::run_cores(ascemu::Options{}, type, 1, body);
  } catch (const ascemu::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

ascemu::Result run(const std::function<void()>& body, const char* name = "cube") {
  ascemu::Options o;
  o.kernel = name;
  o.stop_at_first_race = false;
  return ascemu::run_cores(o, KERNEL_TYPE_AIC_ONLY, 1, body);
}

// Local buffers of one AIC, carved by a TPipe: L1, L0A, L0B, L0C and the bias table.
struct Bufs {
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::A1> l1;
  AscendC::TBuf<TPosition::A2> l0a;
  AscendC::TBuf<TPosition::B2> l0b;
  AscendC::TBuf<TPosition::CO1> l0c;
  AscendC::TBuf<TPosition::C2> bt;
  explicit Bufs(uint32_t l0a_bytes = 32768) {
    pipe.InitBuffer(l1, 256 * 1024);
    pipe.InitBuffer(l0a, l0a_bytes);
    pipe.InitBuffer(l0b, 32768);
    pipe.InitBuffer(l0c, 65536);
    pipe.InitBuffer(bt, 1024);
  }
};

TEST(EmulatorCubeCalls, RefusesWhatTheA2Refuses) {
  auto has = [](const std::string& msg, const std::string& what) {
    return msg.find(what) != std::string::npos;
  };
  std::string m = refusal([] {
    Bufs b;
    AscendC::LoadData2DParams p(0, 1, 1, 0, 0, false, 0);
    AscendC::LoadData(b.l0a.Get<half>()[16], b.l1.Get<half>(), p);
  });
  EXPECT_TRUE(has(m, "LoadData(LoadData2DParams): dst: L0A address 32 is not 512-byte aligned"))
      << m;
  m = refusal([] {
    Bufs b(8192);
    AscendC::MmadParams p;
    p.m = 64;
    p.n = 16;
    p.k = 128;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), p);
  });
  EXPECT_TRUE(has(m,
                  "Mmad: fm (m 64, k 128): 16384 bytes from L0A address 0 past the tensor's "
                  "8192 bytes"))
      << m;
  m = refusal([] {
    Bufs b;
    AscendC::MmadParams p;
    p.m = 16;
    p.n = 16;
    p.k = 16;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<float>(), p);
  });
  EXPECT_TRUE(has(m, "not half x float into float")) << m;
  Gm g(4096);
  m = refusal([&] {
    Bufs b;
    AscendC::FixpipeParamsV220 p(16, 16, 16, 16, false);
    AscendC::Fixpipe(g.tensor<half>(256), b.l0c.Get<float>(), p);
  });
  EXPECT_TRUE(has(m,
                  "Fixpipe: quantPre NoQuant does not turn float into half (that takes "
                  "QuantMode_t::F322F16)"))
      << m;
  m = refusal([&] {
    Bufs b;
    AscendC::FixpipeParamsV220 p(16, 16, 16, 16, false);
    p.quantPre = QuantMode_t::F322F16;
    AscendC::Fixpipe(b.l1.Get<half>(), b.l0c.Get<float>(), p);
  });
  EXPECT_TRUE(has(m, "L0C -> L1 writes NZ only")) << m;
  m = refusal([] {
    Bufs b;
    AscendC::LoadData2DParams p(0, 1, 1, 0, 0, true, 0);
    AscendC::LoadData(b.l0b.Get<float>(), b.l1.Get<float>(), p);
  });
  EXPECT_TRUE(has(m, "ifTranspose takes 16-bit types, not float")) << m;
  m = refusal([&] {
    Bufs b;
    AscendC::Nd2NzParams p(1, 16, 16, 0, 16, 0, 1, 0);
    AscendC::DataCopy(b.l1.Get<half>(), g.tensor<half>(256), p);
  });
  EXPECT_TRUE(has(m, "dstNzC0Stride 0 outside 1..16384")) << m;
  m = refusal([&] {
    Bufs b;
    AscendC::Nd2NzParams p(1, 16, 16, 0, 16, 16, 1, 0);
    AscendC::DataCopy(b.l1.Get<half>(), g.tensor<half>(200), p);
  });
  EXPECT_TRUE(has(m, "512 bytes past a GlobalTensor of 400 bytes")) << m;
  m = refusal(
      [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> ub;
        pipe.InitBuffer(ub, 1024);
        AscendC::Nd2NzParams p(1, 16, 16, 0, 16, 16, 1, 0);
        AscendC::DataCopy(ub.Get<half>(), g.tensor<half>(256), p);
      },
      KERNEL_TYPE_AIV_ONLY);
  EXPECT_TRUE(has(m, "cube calls run on an AIC (cube core), not on an AIV")) << m;
}

// LoadData into L0A, then Mmad reading it: with the MTE1 -> M flag or without.
void load_then_mmad(bool sync) {
  Bufs b;
  AscendC::LoadData2DParams p(0, 1, 1, 0, 0, false, 0);
  AscendC::LoadData(b.l0a.Get<half>(), b.l1.Get<half>(), p);
  AscendC::LoadData(b.l0b.Get<half>(), b.l1.Get<half>(), p);
  if (sync) {
    AscendC::SetFlag<AscendC::HardEvent::MTE1_M>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE1_M>(EVENT_ID0);
  }
  AscendC::MmadParams mp;
  mp.m = 16;
  mp.n = 16;
  mp.k = 16;
  AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), mp);
}

// Two Mmads accumulating into one L0C from the same L0A/L0B (as the Mmad sample's second
// scenario): PipeBarrier<PIPE_M> between them, unless (m / 16) * (n / 16) >= 10, where the hardware
// orders them itself.
ascemu::Result mmad_twice(uint16_t m, uint16_t n, bool barrier) {
  return run([=] {
    Bufs b;
    AscendC::MmadParams p;
    p.m = m;
    p.n = n;
    p.k = 16;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), p);
    if (barrier) AscendC::PipeBarrier<PIPE_M>();
    p.cmatrixInitVal = false;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), p);
  });
}

TEST(EmulatorCubeCalls, AccumulatingMmadsNeedPipeBarrierMWhenSmall) {
  const ascemu::Result bad = mmad_twice(32, 48, false);
  ASSERT_FALSE(bad.races.empty());
  EXPECT_NE(bad.races[0].find("M `Mmad` (call #2) reads what AIC 0 M `Mmad` (call #1) wrote"),
            std::string::npos)
      << bad.races[0];
  EXPECT_NE(bad.races[0].find("PipeBarrier<PIPE_M>"), std::string::npos) << bad.races[0];
  EXPECT_TRUE(mmad_twice(32, 48, true).races.empty());
  const ascemu::Result large = mmad_twice(64, 64, false);  // 4 * 4 >= 10
  EXPECT_TRUE(large.races.empty()) << large.races.front();
}

// unitFlag 3 on the Mmad and 2/3 on the Fixpipes reading its result order them without M_FIX.
TEST(EmulatorCubeCalls, UnitFlagHandsTheMmadResultToFixpipe) {
  Gm c(16 * 16 * 4);
  auto body = [&](uint8_t mmad_flag, uint8_t fix_flag) {
    return [&c, mmad_flag, fix_flag] {
      Bufs b;
      AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(),
                    AscendC::MmadParams(16, 16, 16, mmad_flag, false, true));
      AscendC::FixpipeParamsV220 p(16, 16, 16, 16, false);
      p.unitFlag = fix_flag;
      AscendC::Fixpipe(c.tensor<float>(256), b.l0c.Get<float>(), p);
      if (fix_flag == 2) {  // a second reader, the last
        p.unitFlag = 3;
        AscendC::Fixpipe(c.tensor<float>(256), b.l0c.Get<float>(), p);
      }
    };
  };
  EXPECT_TRUE(run(body(3, 3)).races.empty());
  EXPECT_TRUE(run(body(3, 2)).races.empty());  // two readers: unitFlag 2, then 3
  const ascemu::Result none = run(body(0, 0));
  ASSERT_FALSE(none.races.empty());
  EXPECT_NE(none.races[0].find("HardEvent::M_FIX"), std::string::npos) << none.races[0];
  const std::string m = refusal(body(0, 3));
  EXPECT_NE(m.find("Fixpipe(unitFlag) waiting for a Mmad(unitFlag 3)"), std::string::npos) << m;
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
}

TEST(EmulatorCubeCalls, MmadReadingL0AWithoutMte1ToMSyncIsARace) {
  const ascemu::Result bad = run([] { load_then_mmad(false); }, "mm");
  ASSERT_FALSE(bad.races.empty());
  EXPECT_NE(bad.races[0].find("L0A bytes [0, 512) of TBuf<A2>"), std::string::npos) << bad.races[0];
  EXPECT_NE(
      bad.races[0].find("M `Mmad` (call #3) reads what AIC 0 MTE1 `LoadData(LoadData2DParams)` "
                        "(call #1) wrote"),
      std::string::npos)
      << bad.races[0];
  EXPECT_NE(bad.races[0].find("HardEvent::MTE1_M"), std::string::npos) << bad.races[0];
  const ascemu::Result good = run([] { load_then_mmad(true); }, "mm");
  EXPECT_TRUE(good.races.empty()) << good.races.front();
}

// ---- whole paths, each stage fenced by PipeBarrier<PIPE_ALL> ----
void fence() {
  AscendC::PipeBarrier<PIPE_ALL>();
}

uint32_t align16(uint32_t v) {
  return (v + 15) / 16 * 16;
}

// half A [m, k] and B [k, n] from GM into L0A (Zz) and L0B (Zn) through L1 (Nz); L1 from byte
// `at` on.
void load_half(Bufs& b, half* a, half* bm, uint32_t m, uint32_t n, uint32_t k, uint32_t at = 0) {
  const uint32_t ma = align16(m), na = align16(n), ka = align16(k), k1 = ka / 16, m1 = ma / 16,
                 n1 = na / 16;
  AscendC::LocalTensor<half> a1 = b.l1.Get<half>()[at / 2], b1 = a1[ma * ka];
  AscendC::GlobalTensor<half> ag, bg;
  ag.SetGlobalBuffer(a, m * k);
  bg.SetGlobalBuffer(bm, k * n);
  AscendC::DataCopy(a1, ag, AscendC::Nd2NzParams(1, m, k, 0, k, ma, 1, 0));
  AscendC::DataCopy(b1, bg, AscendC::Nd2NzParams(1, k, n, 0, n, ka, 1, 0));
  fence();
  for (uint32_t i = 0; i < m1; ++i)
    AscendC::LoadData(b.l0a.Get<half>()[i * k1 * 256], a1[i * 256],
                      AscendC::LoadData2DParams(0, k1, m1, 0, 0, false, 0));
  for (uint32_t i = 0; i < k1; ++i)
    AscendC::LoadData(b.l0b.Get<half>()[i * n1 * 256], b1[i * 256],
                      AscendC::LoadData2DParams(0, n1, k1, 0, 0, true, 0));
  fence();
}

std::vector<double> reference(const std::vector<double>& a, const std::vector<double>& b,
                              uint32_t m, uint32_t n, uint32_t k) {
  std::vector<double> c(m * n, 0.0);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j)
      for (uint32_t kk = 0; kk < k; ++kk) c[i * n + j] += a[i * k + kk] * b[kk * n + j];
  return c;
}

// Small exact values: products and sums of them are exact in half and float.
template <typename T>
std::vector<double> fill_small(T* p, uint32_t count, int seed) {
  std::vector<double> v(count);
  for (uint32_t i = 0; i < count; ++i) {
    v[i] =
        static_cast<double>(static_cast<int>((i * 7 + static_cast<uint32_t>(seed) * 13) % 9) - 4);
    p[i] = static_cast<T>(v[i]);
  }
  return v;
}

TEST(EmulatorCubeCalls, FixpipeCastsQuantisesAndWritesNz) {
  constexpr uint32_t m = 20, n = 32, k = 24;
  Gm a(m * k * 2), bm(k * n * 2), ch(m * n * 2), cz(align16(m) * n * 4), cs(m * n * 4), c8(m * n);
  const auto av = fill_small(a.as<half>(), m * k, 1), bv = fill_small(bm.as<half>(), k * n, 2);
  const std::vector<double> ref = reference(av, bv, m, n, k);
  const ascemu::Result r = run([&] {
    Bufs b;
    load_half(b, a.as<half>(), bm.as<half>(), m, n, k);
    AscendC::MmadParams mp;
    mp.m = m;
    mp.n = n;
    mp.k = k;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), mp);
    fence();
    AscendC::FixpipeParamsV220 p(n, m, align16(m), n, false);
    p.quantPre = QuantMode_t::F322F16;
    AscendC::Fixpipe(ch.tensor<half>(m * n), b.l0c.Get<float>(), p);
    // NZ: column blocks of 16 floats, m rows each, m * 16 * 4 bytes (2m 32-byte units) apart.
    AscendC::FixpipeParamsV220 z(n, m, align16(m), 2 * m, false);
    AscendC::Fixpipe<float, float, AscendC::CFG_NZ>(cz.tensor<float>(m * n), b.l0c.Get<float>(), z);
    // Channel split: 16 x 8 blocks, m rows of 8 floats each (m 32-byte units apart).
    AscendC::FixpipeParamsV220 sp(n, m, align16(m), m, false);
    sp.isChannelSplit = true;
    AscendC::Fixpipe<float, float, AscendC::CFG_NZ>(cs.tensor<float>(m * n), b.l0c.Get<float>(),
                                                    sp);
    // float -> int8_t with one scale 0.5 (bit 46: signed), rounded to nearest even.
    AscendC::FixpipeParamsV220 q(n, m, align16(m), n, false);
    q.quantPre = QuantMode_t::QF322B8_PRE;
    q.deqScalar = ascemu::f32_bits(0.5f) | (uint64_t{1} << 46);
    AscendC::Fixpipe(c8.tensor<int8_t>(m * n), b.l0c.Get<float>(), q);
  });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      EXPECT_EQ(static_cast<float>(ch.as<half>()[i * n + j]), ref[i * n + j]) << i << "," << j;
      EXPECT_EQ(cz.as<float>()[(j / 16) * m * 16 + i * 16 + j % 16], ref[i * n + j])
          << i << "," << j;
      EXPECT_EQ(cs.as<float>()[(j / 8) * m * 8 + i * 8 + j % 8], ref[i * n + j]) << i << "," << j;
      const double q8 = std::min(127.0, std::max(-128.0, std::nearbyint(ref[i * n + j] * 0.5)));
      EXPECT_EQ(c8.as<int8_t>()[i * n + j], q8) << i << "," << j;
    }
}

TEST(EmulatorCubeCalls, FixpipeIntoL1FeedsTheNextMatmul) {
  // D = (A x B) x E: C = A x B leaves L0C as half Nz in L1, which LoadData takes as the next A.
  constexpr uint32_t m = 20, n = 32, k = 24, n2 = 16;
  Gm a(m * k * 2), bm(k * n * 2), e(n * n2 * 2), d(m * n2 * 4);
  const auto av = fill_small(a.as<half>(), m * k, 3), bv = fill_small(bm.as<half>(), k * n, 4);
  const auto ev = fill_small(e.as<half>(), n * n2, 5);
  const std::vector<double> ref = reference(reference(av, bv, m, n, k), ev, m, n2, n);
  const ascemu::Result r = run([&] {
    Bufs b;
    load_half(b, a.as<half>(), bm.as<half>(), m, n, k);
    AscendC::MmadParams mp;
    mp.m = m;
    mp.n = n;
    mp.k = k;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), mp);
    fence();
    AscendC::LocalTensor<half> c1 = b.l1.Get<half>()[64 * 1024];  // C as Nz: m rows per block
    AscendC::FixpipeParamsV220 p(n, m, align16(m), align16(m), false);
    p.quantPre = QuantMode_t::F322F16;
    AscendC::Fixpipe<half, float, AscendC::CFG_NZ>(c1, b.l0c.Get<float>(), p);
    fence();
    const uint32_t m1 = align16(m) / 16, k1 = n / 16;
    for (uint32_t i = 0; i < m1; ++i)
      AscendC::LoadData(b.l0a.Get<half>()[i * k1 * 256], c1[i * 256],
                        AscendC::LoadData2DParams(0, k1, m1, 0, 0, false, 0));
    AscendC::LocalTensor<half> e1 = b.l1.Get<half>()[96 * 1024];
    AscendC::GlobalTensor<half> eg;
    eg.SetGlobalBuffer(e.as<half>(), n * n2);
    AscendC::DataCopy(e1, eg, AscendC::Nd2NzParams(1, n, n2, 0, n2, n, 1, 0));
    fence();
    for (uint32_t i = 0; i < k1; ++i)
      AscendC::LoadData(b.l0b.Get<half>()[i * 256], e1[i * 256],
                        AscendC::LoadData2DParams(0, 1, k1, 0, 0, true, 0));
    fence();
    mp.n = n2;
    mp.k = n;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), mp);
    fence();
    AscendC::Fixpipe(d.tensor<float>(m * n2), b.l0c.Get<float>(),
                     AscendC::FixpipeParamsV220(n2, m, align16(m), n2, false));
  });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (uint32_t i = 0; i < m * n2; ++i) EXPECT_EQ(d.as<float>()[i], ref[i]) << i;
}

TEST(EmulatorCubeCalls, GemvReadsAAsAContiguousRow) {
  constexpr uint32_t k = 256, n = 32;
  Gm a(k * 2), bm(k * n * 2), c(n * 4), cz(n * 4);
  const auto av = fill_small(a.as<half>(), k, 6), bv = fill_small(bm.as<half>(), k * n, 7);
  const std::vector<double> ref = reference(av, bv, 1, n, k);
  auto body = [&](bool nd, Gm& out) {
    Bufs b;
    load_half(b, a.as<half>(), bm.as<half>(), 1, n, k);  // with m = 1 its A is a Zz block
    if (nd) {  // the row as it is, 256 halves = one 512-byte fractal
      AscendC::LocalTensor<half> a1 = b.l1.Get<half>()[64 * 1024];
      AscendC::DataCopy(a1, a.tensor<half>(k), k);
      fence();
      AscendC::LoadData(b.l0a.Get<half>(), a1, AscendC::LoadData2DParams(0, 1, 1, 0, 0, false, 0));
      fence();
    }
    AscendC::MmadParams mp;
    mp.m = 1;
    mp.n = n;
    mp.k = k;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), mp);
    fence();
    AscendC::Fixpipe(out.tensor<float>(n), b.l0c.Get<float>(),
                     AscendC::FixpipeParamsV220(n, 1, 16, n, false));
  };
  EXPECT_TRUE(run([&] { body(true, c); }).races.empty());
  EXPECT_TRUE(run([&] { body(false, cz); }).races.empty());
  double wrong = 0;
  for (uint32_t j = 0; j < n; ++j) {
    EXPECT_EQ(c.as<float>()[j], ref[j]) << j;
    wrong = std::max(wrong, std::fabs(cz.as<float>()[j] - ref[j]));
  }
  EXPECT_GT(wrong, 1.0);  // the Zz layout is not what GEMV reads
}

// int8 A [m, k] x B (given transposed in GM, [n, k]) + an int32 bias from the bias table.
TEST(EmulatorCubeCalls, Int8MatmulWithBiasAndRequant) {
  constexpr uint32_t m = 20, n = 40, k = 64, ma = 32, na = 48, k1 = 2, m1 = 2, n1 = 3;
  Gm a(m * k), bt(n * k), bias(n * 4), c(m * n * 4), c8(m * n), cs(m * n * 4);
  std::vector<double> av(m * k), bv(k * n), biasv(n);
  for (uint32_t i = 0; i < m * k; ++i)
    a.as<int8_t>()[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127),
    av[i] = a.as<int8_t>()[i];
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t kk = 0; kk < k; ++kk) {
      const auto v = static_cast<int8_t>(static_cast<int>((j * 91 + kk * 13) % 255) - 127);
      bt.as<int8_t>()[j * k + kk] = v;
      bv[kk * n + j] = v;
    }
  for (uint32_t j = 0; j < n; ++j)
    bias.as<int32_t>()[j] = static_cast<int32_t>(j * 1000) - 7000, biasv[j] = bias.as<int32_t>()[j];
  const std::vector<double> ab = reference(av, bv, m, n, k);
  auto body = [&](bool bias_tensor) {
    Bufs b;
    AscendC::LocalTensor<int8_t> a1 = b.l1.Get<int8_t>(), b1 = a1[ma * k];
    AscendC::LocalTensor<int32_t> bias1 = b.l1.Get<int32_t>()[(ma + na) * k / 4];
    AscendC::DataCopy(a1, a.tensor<int8_t>(m * k), AscendC::Nd2NzParams(1, m, k, 0, k, ma, 1, 0));
    AscendC::DataCopy(b1, bt.tensor<int8_t>(n * k), AscendC::Nd2NzParams(1, n, k, 0, k, na, 1, 0));
    AscendC::DataCopy(bias1, bias.tensor<int32_t>(n), AscendC::Nd2NzParams(1, 1, n, 0, n, 1, 1, 0));
    fence();
    for (uint32_t i = 0; i < m1; ++i)
      AscendC::LoadData(b.l0a.Get<int8_t>()[i * k1 * 512], a1[i * 512],
                        AscendC::LoadData2DParams(0, k1, m1, 0, 0, false, 0));
    // B^T as Nz [n, k] already holds the Zn fractals, in Zn's order: one copy.
    AscendC::LoadData(b.l0b.Get<int8_t>(), b1,
                      AscendC::LoadData2DParams(0, k1 * n1, 1, 0, 0, false, 0));
    AscendC::DataCopy(b.bt.Get<int32_t>(), bias1, AscendC::DataCopyParams(1, n * 4 / 64 + 1, 0, 0));
    fence();
    AscendC::MmadParams mp;
    mp.m = m;
    mp.n = n;
    mp.k = k;
    mp.cmatrixInitVal = false;
    if (bias_tensor) {
      AscendC::Mmad(b.l0c.Get<int32_t>(), b.l0a.Get<int8_t>(), b.l0b.Get<int8_t>(),
                    b.bt.Get<int32_t>(), mp);
    } else {
      mp.cmatrixSource = true;  // the bias table from address 0
      AscendC::Mmad(b.l0c.Get<int32_t>(), b.l0a.Get<int8_t>(), b.l0b.Get<int8_t>(), mp);
    }
    fence();
    AscendC::Fixpipe((bias_tensor ? c : cs).tensor<int32_t>(m * n), b.l0c.Get<int32_t>(),
                     AscendC::FixpipeParamsV220(n, m, ma, n, false));
    // REQ8: x * 2^-10 rounded to int8, ReLU on; bit 46 asks for a signed result.
    AscendC::FixpipeParamsV220 q(n, m, ma, n, true);
    q.quantPre = QuantMode_t::REQ8;
    q.deqScalar = ascemu::f32_bits(1.0f / 1024) | (uint64_t{1} << 46);
    if (bias_tensor) AscendC::Fixpipe(c8.tensor<int8_t>(m * n), b.l0c.Get<int32_t>(), q);
  };
  const ascemu::Result r = run([&] { body(true); });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  EXPECT_TRUE(run([&] { body(false); }).races.empty());
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      const double want = ab[i * n + j] + biasv[j];
      EXPECT_EQ(c.as<int32_t>()[i * n + j], want) << i << "," << j;
      EXPECT_EQ(cs.as<int32_t>()[i * n + j], want) << i << "," << j;
      const double q = std::min(127.0, std::max(0.0, std::nearbyint(std::max(want, 0.0) / 1024)));
      EXPECT_EQ(c8.as<int8_t>()[i * n + j], q) << i << "," << j;
    }
}

}  // namespace

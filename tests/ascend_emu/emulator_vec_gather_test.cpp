// Gather (count form): dst[i] = src at byte srcBaseAddr + srcOffset[i], against a host reference
// over seeded permutations with repeats; refusals of types, counts and offsets the A2 refuses.
#include <algorithm>
#include <numeric>

#include "vec_test_util.h"

namespace {

using vectest::kRegion;
using vectest::Regions;

// Seeded byte offsets of `n` elements of `es` bytes drawn from the first `span` elements.
std::vector<uint32_t> offsets(uint32_t seed, uint32_t n, uint32_t span, uint32_t es) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  std::uniform_int_distribution<uint32_t> u(0, span - 1);
  for (uint32_t& x : v) x = u(rng) * es;
  return v;
}

template <typename T>
void check_gather(uint32_t seed, uint32_t n, uint32_t base) {
  Regions r(seed);
  if constexpr (sizeof(T) == 2) r.fill_half<T>();
  const uint32_t span = (kRegion - base) / sizeof(T);
  const std::vector<uint32_t> off = offsets(seed, n, span, sizeof(T));
  std::memcpy(r.src1.data(), off.data(), off.size() * 4);
  const std::vector<uint8_t> out = r.run([&](const auto& a, const auto& b, const auto& d) {
    AscendC::Gather(d.template ReinterpretCast<T>(), a.template ReinterpretCast<T>(),
                    b.template ReinterpretCast<uint32_t>(), base, n);
  });
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(0, std::memcmp(&out[i * sizeof(T)], &r.src0[base + off[i]], sizeof(T)))
        << "element " << i << " (offset " << off[i] << ", base " << base << ")";
  // Past count, dst keeps its bytes.
  for (uint32_t i = n * sizeof(T); i < kRegion; ++i) ASSERT_EQ(out[i], r.dst[i]) << "byte " << i;
}

TEST(EmulatorGather, FloatByByteOffsets) {
  check_gather<float>(1, 1, 0);
  check_gather<float>(2, 37, 0);
  check_gather<float>(3, 256, 64);
  check_gather<float>(4, 2047, 4);  // an unaligned base is an element boundary for float
}

TEST(EmulatorGather, SixteenAndThirtyTwoBitIntegersAndHalf) {
  check_gather<half>(5, 300, 0);
  check_gather<bfloat16_t>(6, 129, 2);
  check_gather<int16_t>(7, 1000, 0);
  check_gather<uint32_t>(8, 513, 32);
}

TEST(EmulatorGather, CountZeroWritesNothing) {
  Regions r(9);
  const std::vector<uint8_t> out = r.run([&](const auto& a, const auto& b, const auto& d) {
    AscendC::Gather(d.template ReinterpretCast<float>(), a.template ReinterpretCast<float>(),
                    b.template ReinterpretCast<uint32_t>(), 0, 0);
  });
  EXPECT_EQ(out, r.dst);
}

// Refusal of a Gather over UB regions whose offsets tensor holds `off`.
template <typename T>
std::string refused(std::vector<uint32_t> off, uint32_t base, uint32_t count) {
  return vectest::refusal([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * 1024);
    AscendC::LocalTensor<uint8_t> all = buf.Get<uint8_t>();
    AscendC::LocalTensor<uint8_t> a = all, b = all[1024], d = all[2048];
    a.SetSize(1024);
    b.SetSize(1024);
    d.SetSize(1024);
    AscendC::LocalTensor<uint32_t> o = b.ReinterpretCast<uint32_t>();
    for (size_t i = 0; i < off.size(); ++i) o.SetValue(i, off[i]);
    AscendC::SetFlag<AscendC::HardEvent::S_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::S_V>(EVENT_ID0);
    AscendC::Gather(d.ReinterpretCast<T>(), a.ReinterpretCast<T>(), o, base, count);
    AscendC::PipeBarrier<PIPE_ALL>();
  });
}

TEST(EmulatorGather, Refusals) {
  EXPECT_NE(refused<int8_t>({0}, 0, 1).find("has no Gather on int8_t"), std::string::npos);
  EXPECT_NE(refused<float>({0, 6}, 0, 2).find("byte offset 6 is not on an element boundary"),
            std::string::npos);
  EXPECT_NE(refused<float>({0, 1024}, 0, 2).find("byte offset 1024 is past src's 1024 bytes"),
            std::string::npos);
  EXPECT_NE(refused<float>({1020}, 8, 1).find("past src's 1024 bytes"), std::string::npos);
  EXPECT_NE(refused<float>({}, 0, 257).find("count 257 past dst's 256 or srcOffset's 256"),
            std::string::npos);
  EXPECT_EQ(refused<float>({1020}, 0, 1), "(accepted)");
}

}  // namespace

// The vector unit's reductions, level-0 compare/select and Cast's integer conversions against naive
// references: result layouts (dstRepStride units, [value, index] orders), masked elements, the
// binary-tree sum rounding in half, the documented sharedTmpBuffer sizes, integer saturation and
// the Inf/NaN mode of float results.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "vec_test_util.h"

namespace {

using vectest::at;
using vectest::bit;
using vectest::Regions;

template <typename T>
T get(const std::vector<uint8_t>& v, uint64_t off) {
  T x;
  std::memcpy(&x, &v[off], sizeof(T));
  return x;
}
template <typename T>
void put(std::vector<uint8_t>& v, uint64_t off, T x) {
  std::memcpy(&v[off], &x, sizeof(T));
}

// Adjacent-pair tree sum, each addition rounded to half.
float half_tree(std::vector<float> v) {
  while (v.size() > 1) {
    std::vector<float> n;
    for (size_t i = 0; i + 1 < v.size(); i += 2)
      n.push_back(static_cast<float>(half(v[i] + v[i + 1])));
    if (v.size() % 2) n.push_back(v.back());
    v = n;
  }
  return v[0];
}

TEST(EmulatorVecReduce, WholeReduceLayoutsAndIndices) {
  Regions g(21);
  g.fill_half<half>();
  const uint64_t mask[2] = {0xFFFF0000FFFF00FFull, 0x00000000FFFFFFFFull};
  const std::vector<uint8_t> out = g.run([&](auto a, auto, auto d) {
    auto fa = a.template ReinterpretCast<float>();
    auto fd = d.template ReinterpretCast<float>();
    AscendC::WholeReduceMax<float>(fd, fa, 50, 3, 1, 1, 8);  // [value, index] 8 bytes apart
    AscendC::WholeReduceMin<float>(fd[8], fa, 64, 2, 2, 1, 8,
                                   AscendC::ReduceOrder::ORDER_ONLY_INDEX);  // 8 bytes apart
    auto ha = a.template ReinterpretCast<half>()[2048];
    auto hd = d.template ReinterpretCast<half>()[512];
    uint64_t m[2] = {mask[0], mask[1]};
    AscendC::WholeReduceMin<half>(hd, ha, m, 2, 1, 1, 8, AscendC::ReduceOrder::ORDER_INDEX_VALUE);
    AscendC::WholeReduceSum<half>(hd[16], ha, 128, 2, 1, 1, 8);
    AscendC::ReduceRepeat<AscendC::ReduceType::MAX, half, half>(
        hd[32], ha, 128, 1, 1, 1, 8, AscendC::ReduceOrder::ORDER_ONLY_VALUE);
  });
  std::vector<uint8_t> want = g.dst;
  auto fsrc = [&](uint32_t i) { return get<float>(g.src0, i * 4); };
  for (uint32_t r = 0; r < 3; ++r) {
    uint32_t best = 0;
    for (uint32_t j = 1; j < 50; ++j)
      if (fsrc(r * 64 + j) > fsrc(r * 64 + best)) best = j;
    put(want, r * 8, fsrc(r * 64 + best));
    put<uint32_t>(want, r * 8 + 4, best);
  }
  for (uint32_t r = 0; r < 2; ++r) {
    uint32_t best = 0;
    for (uint32_t j = 1; j < 64; ++j)
      if (fsrc(r * 64 + j) < fsrc(r * 64 + best)) best = j;
    put<uint32_t>(want, 32 + r * 8, best);
  }
  auto hsrc = [&](uint32_t i) { return static_cast<float>(get<half>(g.src0, 4096 + i * 2)); };
  for (uint32_t r = 0; r < 2; ++r) {
    int best = -1;
    std::vector<float> all;
    for (uint32_t j = 0; j < 128; ++j) {
      all.push_back(hsrc(r * 128 + j));
      if (bit(mask, j) &&
          (best < 0 || hsrc(r * 128 + j) < hsrc(r * 128 + static_cast<uint32_t>(best))))
        best = static_cast<int>(j);
    }
    put<uint16_t>(want, 1024 + r * 4, static_cast<uint16_t>(best));
    put(want, 1024 + r * 4 + 2, half(hsrc(r * 128 + static_cast<uint32_t>(best))));
    put(want, 1024 + 32 + r * 2, half(half_tree(all)));
  }
  float mx = hsrc(0);
  for (uint32_t j = 1; j < 128; ++j) mx = std::max(mx, hsrc(j));
  put(want, 1024 + 64, half(mx));
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecReduce, BlockAndPairReductions) {
  Regions g(22);
  g.fill_half<half>();
  const uint64_t mask[2] = {0x0000FFFF00FF00FFull,
                            0xFFFF0000FFFF0000ull};  // half blocks 3, 4 and 6 hold none
  const std::vector<uint8_t> out = g.run([&](auto a, auto, auto d) {
    auto fa = a.template ReinterpretCast<float>();
    auto fd = d.template ReinterpretCast<float>();
    AscendC::BlockReduceSum<float>(fd, fa, 2, 64, 1, 1, 8);     // 8 sums per repeat, 32 bytes apart
    AscendC::PairReduceSum<float>(fd[64], fa, 2, 64, 1, 1, 8);  // 32 sums per repeat, 128 bytes
    auto ha = a.template ReinterpretCast<half>()[2048];
    auto hd = d.template ReinterpretCast<half>()[512];
    uint64_t m[2] = {mask[0], mask[1]};
    AscendC::BlockReduceMax<half>(hd, ha, 1, m, 1, 1, 8);
    AscendC::ReduceDataBlock<AscendC::ReduceType::MIN, half, half>(hd[16], ha, 128, 1, 1, 1, 8);
  });
  std::vector<uint8_t> want = g.dst;
  auto fsrc = [&](uint32_t i) { return get<float>(g.src0, i * 4); };
  auto tree = [](std::vector<float> v) {
    while (v.size() > 1) {
      std::vector<float> n;
      for (size_t i = 0; i < v.size(); i += 2) n.push_back(v[i] + v[i + 1]);
      v = n;
    }
    return v[0];
  };
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t b = 0; b < 8; ++b) {
      std::vector<float> v;
      for (uint32_t k = 0; k < 8; ++k) v.push_back(fsrc(r * 64 + b * 8 + k));
      put(want, r * 32 + b * 4, tree(v));
    }
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t k = 0; k < 32; ++k)
      put(want, 256 + r * 128 + k * 4, fsrc(r * 64 + 2 * k) + fsrc(r * 64 + 2 * k + 1));
  auto hsrc = [&](uint32_t i) { return static_cast<float>(get<half>(g.src0, 4096 + i * 2)); };
  for (uint32_t b = 0; b < 8; ++b) {
    float mx = -std::numeric_limits<float>::infinity(), mn = std::numeric_limits<float>::infinity();
    bool any = false;
    for (uint32_t k = 0; k < 16; ++k) {
      if (bit(mask, b * 16 + k)) mx = std::max(mx, hsrc(b * 16 + k)), any = true;
      mn = std::min(mn, hsrc(b * 16 + k));
    }
    if (any) put(want, 1024 + b * 2, half(mx));  // a block with no element keeps dst
    put(want, 1024 + 32 + b * 2, half(mn));
  }
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecReduce, ReduceMaxMinSumWithWorkTensor) {
  Regions g(23);
  g.fill_half<half>();
  put(g.src0, 2 * 1000, half(99.0f));  // the max, twice: the first index wins
  put(g.src0, 2 * 3000, half(99.0f));
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    auto ha = a.template ReinterpretCast<half>();
    auto hd = d.template ReinterpretCast<half>();
    auto work = b.template ReinterpretCast<half>();
    AscendC::ReduceMax(hd, ha, work, 4000, true);
    AscendC::PipeBarrier<PIPE_V>();
    auto fa = a.template ReinterpretCast<float>();
    auto fd = d.template ReinterpretCast<float>();
    auto fw = b.template ReinterpretCast<float>()[1024];
    AscendC::ReduceMin(fd[8], fa, fw, 40, 5, 16, true);  // 40 of 64 per repeat, 2 repeats apart
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::ReduceSum(fd[16], fa, fw, 1000);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::ReduceSum(fd[24], fa, fw, 64, 15, 8);
  });
  std::vector<uint8_t> want = g.dst;
  put(want, 0, half(99.0f));
  put<uint16_t>(want, 2, 1000);
  auto fsrc = [&](uint32_t i) { return get<float>(g.src0, i * 4); };
  uint32_t best = 0;
  for (uint32_t r = 0; r < 5; ++r)
    for (uint32_t j = 0; j < 40; ++j)
      if (fsrc(r * 128 + j) < fsrc(best)) best = r * 128 + j;
  put(want, 32, fsrc(best));
  put<uint32_t>(want, 36, best / 128 * 64 + best % 128);  // repeat * 64 + place in the repeat
  const std::vector<uint8_t> got = out;
  double sum = 0;
  for (uint32_t i = 0; i < 1000; ++i) sum += fsrc(i);
  EXPECT_NEAR(get<float>(got, 64), sum, std::fabs(sum) * 1e-6);
  double sum15 = 0;
  for (uint32_t i = 0; i < 960; ++i) sum15 += fsrc(i);
  EXPECT_NEAR(get<float>(got, 96), sum15, std::fabs(sum15) * 1e-6);
  put(want, 64, get<float>(got, 64));
  put(want, 96, get<float>(got, 96));
  // The work tensors' bytes are scratch.
  std::vector<uint8_t> head(out.begin(), out.begin() + 128),
      whead(want.begin(), want.begin() + 128);
  EXPECT_EQ(head, whead);
}

TEST(EmulatorVecReduce, CompareBitsSelectModesAndCmpMask) {
  Regions g(24);
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    auto fa = a.template ReinterpretCast<float>();
    auto fb = b.template ReinterpretCast<float>();
    // The A2 ignores Compare's mask: all 64 elements of both repeats, 16 blocks apart.
    AscendC::Compare(d, fa, fb, AscendC::CMPMODE::LT, 5, 2, {1, 1, 1, 8, 16, 16});
    // One repeat of half into CMPMASK (mask 100), read back with GetCmpMask.
    auto ha = a.template ReinterpretCast<half>(), hb = b.template ReinterpretCast<half>();
    AscendC::Compare(ha, hb, AscendC::CMPMODE::GE, 100, AscendC::BinaryRepeatParams());
    AscendC::GetCmpMask(d[32]);
    // VSEL_CMPMASK_SPR: the first 64 bits of the selection mask, in every repeat.
    auto fd = d.template ReinterpretCast<float>();
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Select(fd[64], d, fa, fb, AscendC::SELMODE::VSEL_CMPMASK_SPR, 192);
    // The register form reads CMPMASK as set by SetCmpMask.
    AscendC::SetCmpMask(d);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Select<float, AscendC::SELMODE::VSEL_CMPMASK_SPR>(fd[256], fa, fb, 1,
                                                               AscendC::BinaryRepeatParams());
  });
  std::vector<uint8_t> want = g.dst;
  auto f = [&](const std::vector<uint8_t>& v, uint32_t i) { return get<float>(v, i * 4); };
  std::vector<uint8_t> bits(16, 0);
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t j = 0; j < 64; ++j)
      if (f(g.src0, r * 128 + j) < f(g.src1, r * 128 + j)) bits[(r * 64 + j) / 8] |= 1u << (j % 8);
  std::memcpy(&want[0], bits.data(), 16);
  std::vector<uint8_t> cmp(16, 0);
  for (uint32_t j = 0; j < 100; ++j)
    if (static_cast<float>(get<half>(g.src0, j * 2)) >=
        static_cast<float>(get<half>(g.src1, j * 2)))
      cmp[j / 8] |= 1u << (j % 8);
  std::memcpy(&want[32], cmp.data(), 16);
  for (uint32_t i = 0; i < 192; ++i) {
    const uint32_t j = i % 64;
    put(want, 256 + i * 4, (bits[j / 8] >> (j % 8)) & 1u ? f(g.src0, i) : f(g.src1, i));
  }
  for (uint32_t j = 0; j < 64; ++j)
    put(want, 1024 + j * 4, (bits[j / 8] >> (j % 8)) & 1u ? f(g.src0, j) : f(g.src1, j));
  EXPECT_EQ(out, want);
}

// Scalar-sized Cast checks: SetValue/GetValue ordered by the compiler's auto sync.
template <typename D, typename S>
std::vector<D> cast(const std::vector<S>& in, AscendC::RoundMode mode) {
  std::vector<D> out(in.size());
  ascemu::Options o = vectest::collect("cast");
  o.cce_auto_sync = true;
  const ascemu::Result r = ascemu::run_cores(o, KERNEL_TYPE_AIV_ONLY, 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> sb, db;
    pipe.InitBuffer(sb, 1024);
    pipe.InitBuffer(db, 1024);
    AscendC::LocalTensor<S> s = sb.Get<S>();
    AscendC::LocalTensor<D> d = db.Get<D>();
    for (uint32_t i = 0; i < in.size(); ++i) s.SetValue(i, in[i]);
    AscendC::Cast(d, s, mode, static_cast<uint32_t>(in.size()));
    for (uint32_t i = 0; i < in.size(); ++i) out[i] = d.GetValue(i);
  });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  return out;
}

TEST(EmulatorVecReduce, CastToIntegersRoundsAndSaturates) {
  using M = AscendC::RoundMode;
  const std::vector<float> f = {2.5f, -2.5f, 3.5f, -0.5f, 1e6f, -1e6f, 2.7f, -2.7f};
  EXPECT_EQ((cast<int32_t>(f, M::CAST_RINT)),
            (std::vector<int32_t>{2, -2, 4, 0, 1000000, -1000000, 3, -3}));
  EXPECT_EQ((cast<int32_t>(f, M::CAST_ROUND)),
            (std::vector<int32_t>{3, -3, 4, -1, 1000000, -1000000, 3, -3}));
  EXPECT_EQ((cast<int32_t>(f, M::CAST_FLOOR)),
            (std::vector<int32_t>{2, -3, 3, -1, 1000000, -1000000, 2, -3}));
  EXPECT_EQ((cast<int32_t>(f, M::CAST_CEIL)),
            (std::vector<int32_t>{3, -2, 4, 0, 1000000, -1000000, 3, -2}));
  EXPECT_EQ((cast<int16_t>(f, M::CAST_TRUNC)),
            (std::vector<int16_t>{2, -2, 3, 0, 32767, -32768, 2, -2}));
  const std::vector<half> h = {half(-3.5f), half(300.0f), half(127.5f), half(0.5f)};
  EXPECT_EQ((cast<uint8_t>(h, M::CAST_RINT)), (std::vector<uint8_t>{0, 255, 128, 0}));
  EXPECT_EQ((cast<int8_t>(h, M::CAST_TRUNC)), (std::vector<int8_t>{-3, 127, 127, 0}));
  EXPECT_EQ((cast<int16_t>(std::vector<int32_t>{70000, -70000, 12}, M::CAST_NONE)),
            (std::vector<int16_t>{32767, -32768, 12}));
  EXPECT_EQ((cast<float>(std::vector<float>{0.5f, -1.5f, 2.5f}, M::CAST_CEIL)),
            (std::vector<float>{1.0f, -1.0f, 3.0f}));
  const std::vector<float> bf = cast<float>(
      cast<bfloat16_t>(std::vector<float>{0.5f + 0x1p-9f + 0x1p-11f}, M::CAST_FLOOR), M::CAST_NONE);
  EXPECT_EQ(bf[0], 0.5f);  // the doc's example: FLOOR keeps 0.5
}

// The Atlas A2's default Inf/NaN mode (IEEE 754): a half or bfloat16_t result keeps NaN and inf,
// and a value past the range becomes inf where the mode rounds away from zero on its side, the
// largest finite value where it rounds toward zero.
TEST(EmulatorVecReduce, CastToHalfKeepsInfAndNan) {
  using M = AscendC::RoundMode;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> f = {std::nanf(""), inf, -inf, 70000.f, -70000.f, 65519.f, 65520.f, 1.f};
  const auto back = [](const auto& v) { return cast<float>(v, M::CAST_NONE); };
  const std::vector<float> rint = back(cast<half>(f, M::CAST_RINT));
  EXPECT_TRUE(std::isnan(rint[0]));
  EXPECT_EQ(std::vector<float>(rint.begin() + 1, rint.end()),
            (std::vector<float>{inf, -inf, inf, -inf, 65504.f, inf, 1.f}));
  const std::vector<float> trunc = back(cast<half>(f, M::CAST_TRUNC));
  EXPECT_EQ(std::vector<float>(trunc.begin() + 1, trunc.begin() + 5),
            (std::vector<float>{inf, -inf, 65504.f, -65504.f}));
  const std::vector<float> floor = back(cast<half>(f, M::CAST_FLOOR));
  EXPECT_EQ(std::vector<float>(floor.begin() + 3, floor.begin() + 5),
            (std::vector<float>{65504.f, -inf}));
  const std::vector<float> bf = back(cast<bfloat16_t>(f, M::CAST_RINT));
  EXPECT_TRUE(std::isnan(bf[0]));
  EXPECT_EQ(bf[1], inf);
  EXPECT_EQ(bf[2], -inf);
}

}  // namespace

// Tensor storage: 64-byte aligned, zeroed unless asked otherwise, and a block of 2 MiB or more
// on a 2 MiB boundary (huge pages where THP allows), every byte of it usable. A freed large block
// serves the next tensor that fits it (and needs at least half of it), zeroed where asked.
#include <gtest/gtest.h>

#include <cstdint>

#include "registry/tensor.h"

namespace asc {
namespace {

uintptr_t address(const Tensor& t) {
  return reinterpret_cast<uintptr_t>(t.data());
}

TEST(TensorStorage, SmallBlocksAre64ByteAlignedAndZeroed) {
  for (int64_t n : {1, 3, 64, 1000, 100000}) {
    const Tensor t(DType::kF32, {n});
    EXPECT_EQ(address(t) % 64, 0u) << n;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(t.data_as<float>()[i], 0.0f) << n;
  }
}

TEST(TensorStorage, LargeBlocksStartOnA2MiBBoundary) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  for (int64_t n : {int64_t{1} << 19, (int64_t{3} << 19) + 7, int64_t{5} << 20}) {  // floats
    Tensor t = Tensor::uninitialized(DType::kF32, {n});
    EXPECT_EQ(address(t) % kHuge, 0u) << n;
    float* p = t.data_as<float>();
    for (int64_t i = 0; i < n; i += 4099) p[i] = static_cast<float>(i);
    p[n - 1] = -1.0f;
    for (int64_t i = 0; i < n - 1; i += 4099) ASSERT_EQ(p[i], static_cast<float>(i));
    EXPECT_EQ(p[n - 1], -1.0f);
    const Tensor z(DType::kU8, {n * 4 + 1});
    EXPECT_EQ(address(z) % kHuge, 0u);
    EXPECT_EQ(z.data_as<uint8_t>()[n * 4], 0);
  }
}

TEST(TensorStorage, FreedLargeBlocksServeTheNextTensorThatFits) {
  constexpr int64_t n = int64_t{256} * 56 * 56;  // floats: 3.2 MB, a 1x1 conv's output
  uintptr_t first = 0;
  {
    Tensor t = Tensor::uninitialized(DType::kF32, {1, 256, 56, 56});
    ASSERT_EQ(t.numel(), n);
    for (int64_t i = 0; i < n; ++i) t.data_as<float>()[i] = 1.0f;
    first = address(t);
  }
  {
    const Tensor again = Tensor::uninitialized(DType::kF32, {n});
    EXPECT_EQ(address(again), first);
  }
  const Tensor zeroed(DType::kF32, {n - 5});  // the same block, cleared
  EXPECT_EQ(address(zeroed), first);
  for (int64_t i = 0; i < n - 5; ++i) ASSERT_EQ(zeroed.data_as<float>()[i], 0.0f) << i;
  // While it is held, another tensor gets its own block; a quarter of a freed block does not
  // take it.
  const Tensor other = Tensor::uninitialized(DType::kF32, {n});
  EXPECT_NE(address(other), first);
  uintptr_t big = 0;
  {
    const Tensor t = Tensor::uninitialized(DType::kF32, {4 * n});
    big = address(t);
  }
  const Tensor small = Tensor::uninitialized(DType::kF32, {n});
  EXPECT_NE(address(small), big);
}

}  // namespace
}  // namespace asc

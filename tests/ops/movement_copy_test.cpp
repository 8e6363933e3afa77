// copy_strided against a naive element loop: merged dims, unit-stride runs, broadcast (stride 0),
// reversed (negative) strides, strided destinations, every element size.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ops/movement.h"

namespace asc::test {
namespace {

struct CopyCase {
  Shape dims, dst_strides, src_strides;
  int64_t src_origin;  // element of src the index 0 reads (negative strides read backwards)
};

void check(const CopyCase& c, size_t es) {
  int64_t dst_n = 1, src_n = c.src_origin + 1;
  for (size_t k = 0; k < c.dims.size(); ++k) {
    dst_n += (c.dims[k] - 1) * c.dst_strides[k];
    src_n += std::max<int64_t>(0, (c.dims[k] - 1) * c.src_strides[k]);
  }
  std::vector<std::byte> src(static_cast<size_t>(src_n) * es), got(static_cast<size_t>(dst_n) * es),
      want(got.size());
  std::mt19937 rng(7);
  for (auto& b : src) b = static_cast<std::byte>(rng());
  copy_strided(got.data(), c.dst_strides, src.data() + c.src_origin * es, c.src_strides, c.dims,
               es);
  std::vector<int64_t> idx(c.dims.size() + 1);
  for (int64_t i = 0; i < numel(c.dims); ++i) {
    unravel(i, c.dims, idx.data());
    int64_t d = 0, s = c.src_origin;
    for (size_t k = 0; k < c.dims.size(); ++k) {
      d += idx[k] * c.dst_strides[k];
      s += idx[k] * c.src_strides[k];
    }
    std::memcpy(want.data() + d * es, src.data() + s * es, es);
  }
  EXPECT_EQ(got, want) << "dims " << to_string(c.dims) << " es " << es;
}

TEST(MovementCopy, MatchesNaiveLoop) {
  const std::vector<CopyCase> cases = {
      {{}, {}, {}, 0},                                           // one element
      {{7}, {1}, {1}, 0},                                        // one run
      {{3, 4, 5}, {20, 5, 1}, {20, 5, 1}, 0},                    // merges into one run
      {{3, 4, 5}, {20, 5, 1}, {40, 10, 1}, 0},                   // rows of a wider source
      {{3, 4}, {4, 1}, {0, 1}, 0},                               // broadcast rows
      {{3, 4}, {4, 1}, {1, 0}, 0},                               // broadcast columns
      {{2, 1, 3}, {3, 3, 1}, {0, 0, 0}, 0},                      // one element everywhere
      {{5}, {1}, {-1}, 4},                                       // reversed
      {{3, 4}, {4, 1}, {-4, -1}, 11},                            // reversed in both dims
      {{3, 4}, {1, 3}, {4, 1}, 0},                               // transposed destination
      {{2, 3, 2}, {12, 4, 2}, {6, 2, 1}, 0},                     // strided destination
      {{4, 0, 3}, {0, 3, 1}, {0, 3, 1}, 0},                      // empty
      {{2, 2, 2, 2, 3}, {24, 12, 6, 3, 1}, {0, 6, 0, 3, 1}, 0},  // tile-like
  };
  for (const auto& c : cases)
    for (size_t es : {1, 2, 4, 8, 3}) check(c, es);
}

TEST(MovementCopy, FillElements) {
  for (size_t es : {1, 2, 4, 8}) {
    for (int64_t n : {0, 1, 2, 3, 17, 1000}) {
      std::vector<std::byte> value(es), out(static_cast<size_t>(n) * es + 1, std::byte{0x5a});
      for (size_t i = 0; i < es; ++i) value[i] = static_cast<std::byte>(i + 1);
      fill_elements(out.data(), n, value.data(), es);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(std::memcmp(out.data() + i * es, value.data(), es), 0) << n << " " << i;
      EXPECT_EQ(out.back(), std::byte{0x5a}) << "wrote past the end";
    }
  }
}

}  // namespace
}  // namespace asc::test

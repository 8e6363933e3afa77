// box_accumulate_taps: k boxes of one shape at different starts accumulated into an f32 buffer in
// one pass give what k box_accumulate calls give, on an accumulator that is not op's identity
// (each row's own values must be read), rows longer than the 64 columns kept in registers, rows
// back to back (ld == n), strides 1 and 2, boxes clamped differently at the map's edges (the
// common region in one pass, each box's rim after it); boxes with no region in common are
// refused, and so is everything without AVX-512 (the avx2 run forces that).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "runtime/devices/cpu/box_io.h"
#include "runtime/devices/cpu/gemm.h"

namespace asc::cpu {
namespace {

// A [rows, cols] box of a [h, w] map: row r0 + i, column (c0 + j) * s + phase.
GmBox box_at(int64_t h, int64_t w, int64_t rows, int64_t cols, int64_t s, int64_t r0, int64_t c0,
             int64_t phase) {
  GmBox b;
  b.offset = phase;
  b.fill = 0;
  b.dims = {BoxDim{h, w, Coord{-1, 0, r0}, rows},
            BoxDim{(w - phase + s - 1) / s, s, Coord{-1, 0, c0}, cols}};
  return b;
}

// `pad` shifts the boxes up and left by one and leaves the map one row and column past the last
// box start: taps then clamp at either edge, differently from one another.
void check(BinaryOp op, int64_t rows, int64_t cols, int64_t s, int taps, bool pad = false) {
  SCOPED_TRACE("rows " + std::to_string(rows) + " cols " + std::to_string(cols) + " stride " +
               std::to_string(s) + " taps " + std::to_string(taps) + (pad ? " padded" : ""));
  const int64_t h = pad ? rows + 1 : rows + taps, w = pad ? cols * s + 1 : cols * s + taps + 1;
  const int64_t shift = pad ? 1 : 0;
  std::mt19937 gen(static_cast<unsigned>(rows * 131 + cols));
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> map(static_cast<size_t>(h * w)), acc(static_cast<size_t>(rows * cols));
  for (float& v : map) v = u(gen);
  for (float& v : acc) v = u(gen);
  std::vector<float> want = acc;
  std::vector<GmBox> boxes;
  std::vector<BoxEval> e;
  const int64_t vars[16] = {};
  for (int t = 0; t < taps; ++t) {
    boxes.push_back(box_at(h, w, rows, cols, s, t % 3 - shift, t / 3 - shift, t % s));
    e.push_back(eval_box(boxes.back(), vars));
    ASSERT_TRUE(e.back().full || pad);
    box_accumulate(reinterpret_cast<const std::byte*>(map.data()), boxes.back(), e.back(),
                   reinterpret_cast<std::byte*>(want.data()), op);
  }
  const std::vector<float> before = acc;
  const bool done = box_accumulate_taps(reinterpret_cast<const std::byte*>(map.data()), boxes[0], e,
                                        reinterpret_cast<std::byte*>(acc.data()), op);
  // Without AVX-512 the caller accumulates box by box: nothing may have been written.
  ASSERT_EQ(done, std::string(gemm_active_isa()).rfind("avx512", 0) == 0);
  EXPECT_EQ(acc, done ? want : before);
}

TEST(BoxAccumulateTaps, MatchesBoxByBox) {
  for (BinaryOp op : {BinaryOp::kMax, BinaryOp::kAdd, BinaryOp::kMin})
    for (int64_t s : {1, 2})
      for (int64_t cols : {1, 13, 16, 55, 64, 99, 150}) check(op, 5, cols, s, 9);
  check(BinaryOp::kMax, 1, 70, 2, 2);
  for (BinaryOp op : {BinaryOp::kMax, BinaryOp::kAdd})
    for (int64_t s : {1, 2})
      for (int64_t cols : {3, 13, 55, 99}) check(op, 6, cols, s, 9, /*pad=*/true);
  gemm_force_isa("avx2");
  check(BinaryOp::kMax, 3, 40, 2, 4);
  check(BinaryOp::kMax, 3, 40, 2, 4, true);
  gemm_force_isa(nullptr);
}

TEST(BoxAccumulateTaps, RefusesBoxesWithNoRegionInCommon) {
  const int64_t h = 6, w = 20;
  std::vector<float> map(static_cast<size_t>(h * w), 1.f), acc(4 * 8, 0.f);
  const int64_t vars[16] = {};
  const GmBox top = box_at(h, w, 4, 8, 2, -2, 0, 0), bottom = box_at(h, w, 4, 8, 2, 4, 0, 0);
  const std::vector<BoxEval> e{eval_box(top, vars), eval_box(bottom, vars)};
  ASSERT_FALSE(e[0].empty || e[1].empty);  // rows 0-1 of the map against rows 4-5
  EXPECT_FALSE(box_accumulate_taps(reinterpret_cast<const std::byte*>(map.data()), top, e,
                                   reinterpret_cast<std::byte*>(acc.data()), BinaryOp::kMax));
  EXPECT_EQ(acc, std::vector<float>(4 * 8, 0.f));
}

}  // namespace
}  // namespace asc::cpu

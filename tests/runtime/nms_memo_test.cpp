// NonMaxSuppression selects once per run: the output-shape inference (which needs the values)
// keeps its selection with copies of the inputs, and the kernel takes it only when its inputs
// are the same bytes. Runs alternating two score tensors of one shape match a naive NMS each time.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/model.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

constexpr int64_t kBoxes = 60, kClasses = 4, kMaxOut = 6;
constexpr double kIou = 0.4, kScoreMin = 0.1;

double iou(const Tensor& b, int64_t i, int64_t j) {
  auto lo = [&](int64_t k, int c) { return std::min(b.at(k * 4 + c), b.at(k * 4 + c + 2)); };
  auto hi = [&](int64_t k, int c) { return std::max(b.at(k * 4 + c), b.at(k * 4 + c + 2)); };
  const double iy = std::min(hi(i, 0), hi(j, 0)) - std::max(lo(i, 0), lo(j, 0));
  const double ix = std::min(hi(i, 1), hi(j, 1)) - std::max(lo(i, 1), lo(j, 1));
  if (iy <= 0 || ix <= 0) return 0;
  const double ai = (hi(i, 0) - lo(i, 0)) * (hi(i, 1) - lo(i, 1));
  const double aj = (hi(j, 0) - lo(j, 0)) * (hi(j, 1) - lo(j, 1));
  return iy * ix / (ai + aj - iy * ix);
}

// Per class: take the best remaining box above the threshold, drop the ones overlapping it.
std::vector<int64_t> naive(const Tensor& boxes, const Tensor& scores) {
  std::vector<int64_t> rows;
  for (int64_t c = 0; c < kClasses; ++c) {
    std::vector<bool> alive(kBoxes);
    for (int64_t i = 0; i < kBoxes; ++i) alive[i] = scores.at(c * kBoxes + i) > kScoreMin;
    for (int64_t taken = 0; taken < kMaxOut; ++taken) {
      int64_t best = -1;
      for (int64_t i = 0; i < kBoxes; ++i)
        if (alive[i] && (best < 0 || scores.at(c * kBoxes + i) > scores.at(c * kBoxes + best)))
          best = i;
      if (best < 0) break;
      for (int64_t i = 0; i < kBoxes; ++i)
        if (alive[i] && iou(boxes, best, i) > kIou) alive[i] = false;
      alive[best] = false;
      rows.insert(rows.end(), {0, c, best});
    }
  }
  return rows;
}

TEST(NmsMemo, AlternatingInputsSelectTheirOwnBoxes) {
  test::Builder b;
  const int boxes = b.input("boxes", {1, kBoxes, 4});
  const int scores = b.input("scores", {1, kClasses, kBoxes});
  Tensor max_out(DType::kI64, {1});
  max_out.set(0, kMaxOut);
  Tensor iou_t(DType::kF32, {1}), score_t(DType::kF32, {1});
  iou_t.set(0, kIou);
  score_t.set(0, kScoreMin);
  b.g.outputs = {b.op("NonMaxSuppression", "nms",
                      {boxes, scores, b.constant("max_out", max_out), b.constant("iou", iou_t),
                       b.constant("score_min", score_t)})};
  const Model model(b.g, ModelOptions{});
  const Tensor bx = test::random({1, kBoxes, 4}, 21, 0.f, 1.f);
  const Tensor sa = test::random({1, kClasses, kBoxes}, 22, 0.f, 1.f);
  const Tensor sb = test::random({1, kClasses, kBoxes}, 23, 0.f, 1.f);
  for (const Tensor* s : {&sa, &sb, &sa, &sb}) {
    const auto out = model.run({{"boxes", bx}, {"scores", *s}});
    const std::vector<int64_t> want = naive(bx, *s);
    ASSERT_EQ(out[0].tensor.numel(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(out[0].tensor.at(static_cast<int64_t>(i)), static_cast<double>(want[i])) << i;
  }
}

}  // namespace
}  // namespace asc

// Independent steps of one plan level: where each one spreads over every core by itself (tile
// programs of at least `threads` tiles), the level runs them one after another, so they never
// overlap; the outputs are those of a one-thread run.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/model.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc::test {
namespace {

using V = std::vector<int64_t>;

// x [1, 32, 40, 40] read by a 3x3 conv and a 1x1 conv side by side.
Graph two_convs() {
  Builder b;
  const int x = b.input("x", {1, 32, 40, 40});
  const int w3 = b.constant("w3", random({32, 32, 3, 3}, 5, -0.2f, 0.2f));
  const int w1 = b.constant("w1", random({32, 32, 1, 1}, 6, -0.2f, 0.2f));
  const int a =
      b.op("Conv", "conv3", {x, w3}, {{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}});
  const int c = b.op("Conv", "conv1", {x, w1}, {{"kernel_shape", V{1, 1}}});
  b.g.outputs = {a, c};
  return std::move(b.g);
}

TEST(LevelSchedule, StepsThatFillTheCoresRunOneAfterAnother) {
  const Graph g = two_convs();
  ModelOptions o;
  o.threads = 2;
  const Model model(g, o);
  const Tensor x = random({1, 32, 40, 40}, 1);
  ModelOptions one;
  one.threads = 1;
  const auto want = Model(g, one).run({{"x", x}});
  for (int run = 0; run < 10; ++run) {  // side by side, some of these would overlap
    RunStats st;
    const auto got = model.run({{"x", x}}, {}, &st);
    ASSERT_EQ(st.steps.size(), 2u);
    const StepTiming &p = st.steps[0], &q = st.steps[1];
    EXPECT_EQ(p.thread, q.thread) << "run " << run;  // both launched by the run's own thread
    EXPECT_TRUE(p.end <= q.start || q.end <= p.start) << "run " << run;
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k)
      for (int64_t i = 0; i < want[k].tensor.numel(); ++i)
        ASSERT_NEAR(got[k].tensor.at(i), want[k].tensor.at(i), 1e-4) << k << " " << i;
  }
}

}  // namespace
}  // namespace asc::test

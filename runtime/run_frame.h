// The bookkeeping of one run of a plan, kept with the plan (Plan::frames) and reused by its later
// runs, so that a run in the steady state allocates nothing but the outputs it returns: a tensor
// bound to every value, each step's arguments and launch context, and the scratch buffers of
// control-flow steps. Frames are made for one plan and never shared by two runs at once; a plan
// keeps as many as it has had concurrent runs.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "registry/launch.h"
#include "registry/tensor.h"

namespace asc {

struct RunFrame {
  bool ready = false;  // built for its plan (the first run through it)
  // Per value: a view of its memory, typed as planned (constants: the plan's known tensor).
  // Views are re-aimed (Tensor::set_data) at each run's inputs, arena and outputs.
  std::vector<Tensor> bound;
  std::vector<int> arena_values;     // the values in the arena (re-aimed at each run's lease)
  std::vector<size_t> first_output;  // per graph output: the first output of the same value
  struct Step {
    std::vector<Tensor> ins, outs;       // views as `bound`, in the node's parameter order
    std::vector<void*> args;             // tile kernels: GM arguments, inputs then outputs
    std::unique_ptr<LaunchContext> ctx;  // host kernels
    // Control flow: the body's inputs and output buffers, and memory the step owns (Loop's and
    // Scan's second set of carried values, iteration counters, slices).
    std::vector<const Tensor*> fed;
    std::vector<Tensor> body_outs, scratch;
  };
  std::vector<Step> steps;
  // Per level: [begin, end) in steps, and the steps that run something (views do not).
  std::vector<size_t> level_begin;
  std::vector<std::vector<size_t>> level_work;
  std::vector<int64_t> level_bytes;
};

class RunFramePool {
 public:
  std::unique_ptr<RunFrame> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return std::make_unique<RunFrame>();
    std::unique_ptr<RunFrame> f = std::move(free_.back());
    free_.pop_back();
    return f;
  }
  void give_back(std::unique_ptr<RunFrame> f) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(f));
  }
  // Frames made so far that are not in use (tests: a steady state makes no new one).
  size_t idle() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return free_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<RunFrame>> free_;
};

// A frame of `pool` for the duration of a run (a fresh one when the pool is null).
class FrameLease {
 public:
  explicit FrameLease(RunFramePool* pool)
      : pool_(pool), frame_(pool ? pool->take() : std::make_unique<RunFrame>()) {}
  ~FrameLease() {
    if (pool_) pool_->give_back(std::move(frame_));
  }
  FrameLease(const FrameLease&) = delete;
  FrameLease& operator=(const FrameLease&) = delete;
  RunFrame& operator*() const { return *frame_; }

 private:
  RunFramePool* pool_;
  std::unique_ptr<RunFrame> frame_;
};

}  // namespace asc

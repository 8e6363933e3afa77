// A control-flow step of a plan (runtime/control_flow_plan.cpp) at run time: each body run goes
// through the plan made with the step, on buffers the step's frame keeps, so an iteration neither
// plans, looks a plan up nor allocates. Loop and Scan carry their values between two sets of
// buffers, the node's outputs and one set of the frame's, in turn; scan outputs are written by
// each iteration in place, into their slot of the node's output.
#include <climits>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/control_flow_internal.h"
#include "runtime/model.h"

namespace asc {
namespace {

// A view typed like `d`, to be aimed by Tensor::set_data.
Tensor view_of(const Tensor& d) {
  return d.is_contiguous() ? Tensor::wrap(d.dtype(), d.shape(), nullptr)
                           : Tensor::strided(d.dtype(), d.shape(), d.strides(), nullptr);
}

std::byte* bytes(const Tensor& t) {
  return static_cast<std::byte*>(const_cast<void*>(t.data()));
}

// Element offset of `t` along `axis` of x, in bytes.
int64_t step_bytes(const Tensor& x, int64_t axis) {
  return x.strides()[static_cast<size_t>(axis)] * static_cast<int64_t>(dtype_size(x.dtype()));
}

}  // namespace

// The frame's scratch of a planned Loop step: [0] i, [1] cond (true), [2] the body's cond output,
// [3, 3 + carried) the second set of carried values. body_outs: views aimed per iteration.
// The frame's scratch of a planned Scan step: [0, states) the second set of states, then per scan
// input a dense slice (used when its slice is not contiguous) and per scan output a dense step
// result (used when its slot is not contiguous). body_outs and fed: views aimed per step.
void Model::run_planned_control_flow(const Node& n, const PlanStep& s, RunFrame::Step& fs,
                                     const RunStats* stats, KernelCost* cost) const {
  const BodyPlan& b0 = s.bodies[0];
  auto run_body = [&](const BodyPlan& b, const char* attr, std::span<Tensor> outs) {
    const Model& body = *subgraphs_.at(b.graph);
    try {
      const bool want = cost || (stats && stats->on_step);
      if (!want) return body.execute(*b.plan, fs.fed, outs, nullptr);
      RunStats st;
      if (stats) st.on_step = stats->on_step;
      body.execute(*b.plan, fs.fed, outs, &st);
      if (cost)
        for (const StepTiming& t : st.steps) cost->then(t.cost);
    } catch (const Error& e) {
      throw Error(cat(attr, ": ", e.what()));
    }
  };
  // Formal inputs [0, nformal), then the captured values.
  auto feed_captured = [&](const BodyPlan& b, size_t nformal) {
    fs.fed.resize(nformal + b.captured.size());
    for (size_t j = 0; j < b.captured.size(); ++j)
      fs.fed[nformal + j] = &fs.ins[static_cast<size_t>(b.captured[j])];
  };
  const size_t own = n.inputs.size() - static_cast<size_t>(n.captured);

  if (n.op_type == "If") {
    const bool c = fs.ins[0].at(0) != 0.0;
    const BodyPlan& b = s.bodies[c ? 0 : 1];
    const char* attr = c ? "then_branch" : "else_branch";
    if (!b.plan) {  // it did not fit these inputs at planning: node by node, as it may fail
      std::vector<Tensor> out = run_control_flow(n, fs.ins, stats, cost);
      for (size_t k = 0; k < fs.outs.size(); ++k) {
        if (out[k].dtype() != fs.outs[k].dtype() || out[k].shape() != fs.outs[k].shape())
          throw ShapeError(cat("If: ", attr, " gives ", out[k].desc().str(), " for output ", k,
                               ", the other branch ", fs.outs[k].desc().str()));
        fs.outs[k].assign(out[k]);
      }
      return;
    }
    feed_captured(b, 0);
    fs.body_outs.resize(fs.outs.size());
    for (size_t k = 0; k < fs.outs.size(); ++k) {
      if (!fs.body_outs[k].defined()) fs.body_outs[k] = view_of(fs.outs[k]);
      fs.body_outs[k].set_data(fs.outs[k].data());
    }
    return run_body(b, attr, fs.body_outs);
  }

  const Graph& bg = *b0.graph;
  if (n.op_type == "Loop") {
    const size_t carried = own - 2, scans = fs.outs.size() - carried;
    if (fs.scratch.empty()) {
      fs.scratch.emplace_back(DType::kI64, Shape{});
      fs.scratch.emplace_back(DType::kBool, Shape{});
      fs.scratch[1].set(0, 1.0);
      const TensorDesc& c = b0.plan->desc[bg.outputs[0]];
      fs.scratch.emplace_back(c.dtype, c.shape);
      for (size_t k = 0; k < carried; ++k)
        fs.scratch.emplace_back(fs.outs[k].dtype(), fs.outs[k].shape());
      fs.body_outs.push_back(fs.scratch[2]);
      for (size_t k = 0; k < carried; ++k) fs.body_outs.push_back(view_of(fs.outs[k]));
      for (size_t k = 0; k < scans; ++k) {
        const TensorDesc& d = b0.plan->desc[bg.outputs[1 + carried + k]];
        fs.body_outs.push_back(Tensor::wrap(d.dtype, d.shape, nullptr));
      }
    }
    feed_captured(b0, 2 + carried);
    fs.fed[0] = &fs.scratch[0];
    fs.fed[1] = &fs.scratch[1];
    const int64_t trips = fs.ins[0].defined() ? static_cast<int64_t>(fs.ins[0].at(0)) : INT64_MAX;
    bool cond = fs.ins[1].defined() ? fs.ins[1].at(0) != 0.0 : true;
    int64_t i = 0;
    for (; i < trips && cond; ++i) {
      fs.scratch[0].set(0, static_cast<double>(i));
      // Iteration i reads set (i - 1) % 2 and writes set i % 2: 0 the node's outputs, 1 the
      // frame's (the first reads the initial values).
      for (size_t k = 0; k < carried; ++k) {
        Tensor& mine = fs.scratch[3 + k];
        fs.fed[2 + k] = i == 0 ? &fs.ins[2 + k] : i % 2 ? &fs.outs[k] : &mine;
        fs.body_outs[1 + k].set_data(i % 2 ? mine.data() : fs.outs[k].data());
      }
      for (size_t k = 0; k < scans; ++k) {
        const Tensor& out = fs.outs[carried + k];
        if (i >= out.shape()[0])
          throw Error(cat("Loop: runs more iterations than the ", out.shape()[0], " planned"));
        fs.body_outs[1 + carried + k].set_data(bytes(out) + i * static_cast<int64_t>(out.nbytes()) /
                                                                out.shape()[0]);
      }
      run_body(b0, "body", fs.body_outs);
      cond = fs.scratch[2].at(0) != 0.0;
    }
    for (size_t k = 0; k < carried; ++k)
      if (i == 0)
        fs.outs[k].assign(fs.ins[2 + k]);
      else if ((i - 1) % 2)
        fs.outs[k].assign(fs.scratch[3 + k]);
    for (size_t k = 0; k < scans; ++k)
      if (i != fs.outs[carried + k].shape()[0])
        throw Error(cat("Loop: ran ", i, " iterations, its scan outputs were planned for ",
                        fs.outs[carried + k].shape()[0]));
    return;
  }

  // Scan (9+).
  const ScanAxes ax = scan_axes(n, std::span<const Tensor>(fs.ins.data(), own));
  const size_t xs = own - ax.states;
  const int64_t len = fs.ins[ax.states].shape()[static_cast<size_t>(ax.in_axis[0])];
  // fed: states, then per scan input its slice (a view of the input, or the dense copy).
  if (fs.scratch.empty()) {
    for (size_t k = 0; k < ax.states; ++k)
      fs.scratch.emplace_back(fs.outs[k].dtype(), fs.outs[k].shape());
    for (size_t k = 0; k < xs; ++k)
      fs.scratch.push_back(along(fs.ins[ax.states + k], ax.in_axis[k], 0).clone());
    for (size_t k = 0; k < ax.scans; ++k) {
      const TensorDesc& d = b0.plan->desc[bg.outputs[ax.states + k]];
      fs.scratch.emplace_back(d.dtype, d.shape);
    }
    // Slice and slot views: [0, xs) scan input slices, then [xs, xs + scans) output slots.
    for (size_t k = 0; k < xs; ++k)
      fs.body_outs.push_back(view_of(along(fs.ins[ax.states + k], ax.in_axis[k], 0)));
    for (size_t k = 0; k < ax.scans; ++k) {
      const Tensor& out = fs.outs[ax.states + k];
      const int64_t axis = scan_output_axis(ax.out_axis[k], out.shape().size());
      fs.body_outs.push_back(view_of(along(out, axis, 0)));
    }
    for (size_t k = 0; k < ax.states; ++k) fs.body_outs.push_back(view_of(fs.outs[k]));
    for (size_t k = 0; k < ax.scans; ++k) fs.body_outs.push_back(fs.scratch[ax.states + xs + k]);
  }
  // body_outs holds, in order: xs slice views, scans slot views, then the body's outputs
  // (states, scan results) — execute() takes the last states + scans.
  const std::span<Tensor> views(fs.body_outs.data(), xs + ax.scans);
  const std::span<Tensor> outs(fs.body_outs.data() + xs + ax.scans, ax.states + ax.scans);
  feed_captured(b0, ax.states + xs);
  for (int64_t t = 0; t < len; ++t) {
    for (size_t k = 0; k < ax.states; ++k) {
      Tensor& mine = fs.scratch[k];
      fs.fed[k] = t == 0 ? &fs.ins[k] : t % 2 ? &fs.outs[k] : &mine;
      outs[k].set_data(t % 2 ? mine.data() : fs.outs[k].data());
    }
    for (size_t k = 0; k < xs; ++k) {
      const Tensor& x = fs.ins[ax.states + k];
      const int64_t at = ax.in_rev[k] ? len - 1 - t : t;
      views[k].set_data(bytes(x) + at * step_bytes(x, ax.in_axis[k]));
      Tensor& dense = fs.scratch[ax.states + k];
      if (views[k].is_contiguous()) {
        fs.fed[ax.states + k] = &views[k];
      } else {
        dense.assign(views[k]);
        fs.fed[ax.states + k] = &dense;
      }
    }
    // A contiguous slot is written by the body in place; another gets the step's result after.
    for (size_t k = 0; k < ax.scans; ++k) {
      const Tensor& out = fs.outs[ax.states + k];
      const int64_t axis = scan_output_axis(ax.out_axis[k], out.shape().size());
      const int64_t at = ax.out_rev[k] ? len - 1 - t : t;
      Tensor& slot = views[xs + k];
      slot.set_data(bytes(out) + at * step_bytes(out, axis));
      Tensor& dense = fs.scratch[ax.states + xs + k];
      outs[ax.states + k].set_data(slot.is_contiguous() ? slot.data() : dense.data());
    }
    run_body(b0, "body", outs);
    for (size_t k = 0; k < ax.scans; ++k)
      if (!views[xs + k].is_contiguous()) views[xs + k].assign(fs.scratch[ax.states + xs + k]);
  }
  for (size_t k = 0; k < ax.states; ++k)
    if (len == 0)
      fs.outs[k].assign(fs.ins[k]);
    else if ((len - 1) % 2)
      fs.outs[k].assign(fs.scratch[k]);
}

}  // namespace asc

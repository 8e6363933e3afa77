// Control-flow nodes as plan steps: the planner plans a node's subgraphs (nested models) for the
// types its inputs have, and the step runs them through those plans — a body's plan is made once
// per outer plan, not looked up per iteration, and its runs reuse one frame and arena. A node whose
// outputs' types are known only once it has run leaves the plan dynamic (runtime/control_flow.cpp
// then runs it node by node): an If whose condition is unknown at planning and whose branches
// give different types, a Loop whose carried values change type or whose scan outputs' length
// depends on its body's condition, a Scan-8, a SequenceMap, host objects (strings, sequences).
#include <climits>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/control_flow_internal.h"
#include "runtime/model.h"

namespace asc {
namespace {

bool same_type(const TensorDesc& a, const TensorDesc& b) {
  return a.dtype == b.dtype && a.shape == b.shape;
}

// A known value small enough to key a nested plan by (as Model::run keys its own inputs).
const Tensor* small_value(const Tensor& t) {
  return t.data() && t.numel() <= kFoldMaxElements ? &t : nullptr;
}

const Tensor& true_tensor() {
  static const Tensor t = [] {
    Tensor b(DType::kBool, {});
    b.set(0, 1.0);
    return b;
  }();
  return t;
}

struct Descs {
  std::vector<TensorDesc> in;
  std::vector<const Tensor*> values;
};

// Per value of a body's slice along `axis` (removed).
TensorDesc without_axis(const TensorDesc& d, int64_t axis) {
  TensorDesc r{d.dtype, d.shape};
  r.shape.erase(r.shape.begin() + axis);
  return r;
}

}  // namespace

const Model& Model::subgraph(const Node& n, const std::string& attr) const {
  const auto it = n.subgraphs.find(attr);
  if (it == n.subgraphs.end()) throw ModelError(cat(n.op_type, ": the node has no ", attr));
  return *subgraphs_.at(it->second.get());
}

void Model::plan_control_flow(const Node& n, std::span<const Tensor> probes, PlanStep& s) const {
  for (const Tensor& t : probes)
    if (t.defined() && dtype_is_host_object(t.dtype()))
      throw ValueUnknownError(cat(dtype_name(t.dtype()), " values are planned while running"));
  const size_t own = probes.size() - static_cast<size_t>(n.captured);
  // Plans subgraph `attr` for its formal inputs, then the values it captures from the node.
  auto plan_body = [&](const char* attr, Descs formal) {
    const Model& m = subgraph(n, attr);
    const Graph& g = m.graph();
    BodyPlan b;
    b.graph = n.subgraphs.at(attr).get();
    const size_t nformal = g.inputs.size() - g.outer.size();
    if (formal.in.size() != nformal)
      throw ShapeError(cat(n.op_type, ": ", attr, " takes ", nformal, " inputs, the op gives ",
                           formal.in.size()));
    formal.values.resize(nformal, nullptr);
    for (const std::string& name : g.outer) {
      size_t k = own;
      while (k < probes.size() && graph_.values[n.inputs[k]].name != name) ++k;
      if (k == probes.size())
        throw ModelError(
            cat(n.op_type, ": ", attr, " reads '", name, "', which the node does not capture"));
      b.captured.push_back(static_cast<int>(k));
      formal.in.push_back({probes[k].dtype(), probes[k].shape()});
      formal.values.push_back(small_value(probes[k]));
    }
    b.plan = m.plan_for(formal.in, formal.values);
    if (!b.plan->dynamic.empty())
      throw ValueUnknownError(cat(attr, " is planned while running: ", b.plan->dynamic));
    return b;
  };
  auto outputs_of = [](const BodyPlan& b, size_t first) {
    std::vector<TensorDesc> r;
    for (size_t k = first; k < b.graph->outputs.size(); ++k) {
      const TensorDesc& d = b.plan->desc[b.graph->outputs[k]];
      r.push_back({d.dtype, d.shape});
    }
    return r;
  };

  if (n.op_type == "If") {
    const Tensor& cond = probes[0];
    if (own != 1 || cond.dtype() != DType::kBool || cond.numel() != 1)
      throw ShapeError(cat("If: cond must be one bool element, got ", cond.desc().str()));
    s.bodies.resize(2);
    if (cond.data()) {  // known at planning: only the branch it takes
      const bool c = cond.at(0) != 0.0;
      s.bodies[c ? 0 : 1] = plan_body(c ? "then_branch" : "else_branch", {});
      s.out = outputs_of(s.bodies[c ? 0 : 1], 0);
    } else {
      // Either may run: both are planned and must agree. A branch that cannot be planned for
      // these inputs (its shapes do not fit) is left unplanned: if taken, it runs node by node
      // and fails as it would have.
      std::string failed;
      for (int k = 0; k < 2; ++k) try {
          s.bodies[k] = plan_body(k == 0 ? "then_branch" : "else_branch", {});
        } catch (const ValueUnknownError&) {
          throw;
        } catch (const Error& e) {
          failed = e.what();
        }
      if (!s.bodies[0].plan && !s.bodies[1].plan)
        throw ValueUnknownError(cat("If: no branch can be planned: ", failed));
      s.out = outputs_of(s.bodies[s.bodies[0].plan ? 0 : 1], 0);
      if (s.bodies[0].plan && s.bodies[1].plan) {
        const std::vector<TensorDesc> other = outputs_of(s.bodies[1], 0);
        bool same = other.size() == s.out.size();
        for (size_t k = 0; same && k < other.size(); ++k) same = same_type(s.out[k], other[k]);
        if (!same) throw ValueUnknownError("If: the branches give different types");
      }
    }
    if (s.out.size() != n.outputs.size())
      throw ShapeError(
          cat("If: the branch has ", s.out.size(), " outputs, the node ", n.outputs.size()));
    return;
  }

  if (n.op_type == "Loop") {
    if (own < 2) throw ShapeError("Loop: needs the inputs M and cond (either may be empty)");
    const Tensor &m = probes[0], &cond = probes[1];
    if ((m.defined() && (m.dtype() != DType::kI64 || m.numel() != 1)) ||
        (cond.defined() && (cond.dtype() != DType::kBool || cond.numel() != 1)))
      throw ShapeError("Loop: M must be one i64 element and cond one bool element");
    const size_t carried = own - 2;
    if (n.outputs.size() < carried)
      throw ShapeError(
          cat("Loop: ", carried, " loop-carried values but ", n.outputs.size(), " outputs"));
    const size_t scans = n.outputs.size() - carried;
    // The body runs only while cond is true, so it is planned with cond known true.
    Descs formal{{{DType::kI64, {}}, {DType::kBool, {}}}, {nullptr, &true_tensor()}};
    for (size_t k = 2; k < own; ++k) formal.in.push_back({probes[k].dtype(), probes[k].shape()});
    BodyPlan b = plan_body("body", std::move(formal));
    const Graph& bg = *b.graph;
    if (bg.outputs.size() != 1 + carried + scans)
      throw ShapeError(cat("Loop: the body has ", bg.outputs.size(), " outputs, expected 1 + ",
                           carried, " carried + ", scans, " scan outputs"));
    const std::vector<TensorDesc> out = outputs_of(b, 0);
    if (out[0].dtype != DType::kBool || numel(out[0].shape) != 1)
      throw ShapeError(
          cat("Loop: the body's cond output must be one bool element, got ", out[0].str()));
    for (size_t k = 0; k < carried; ++k)
      if (!same_type(out[1 + k], {probes[2 + k].dtype(), probes[2 + k].shape()}))
        throw ValueUnknownError(cat("Loop: carried value ", k, " changes type"));
    s.out.assign(out.begin() + 1, out.begin() + 1 + static_cast<std::ptrdiff_t>(carried));
    if (scans > 0) {  // stacked over the iterations: their count must be known now
      const Tensor& body_cond = b.plan->known[bg.outputs[0]];
      const bool runs_to_m = m.data() && (!cond.defined() || cond.data()) && body_cond.defined() &&
                             body_cond.at(0) != 0.0;
      const int64_t trips = !runs_to_m                            ? -1
                            : cond.defined() && cond.at(0) == 0.0 ? 0
                                                                  : int64_t(m.at(0));
      if (trips <= 0)
        throw ValueUnknownError("Loop: its scan outputs' length is known once it has run");
      for (size_t k = 0; k < scans; ++k) {
        TensorDesc d = out[1 + carried + k];
        d.shape.insert(d.shape.begin(), trips);
        s.out.push_back(d);
      }
    }
    s.bodies = {std::move(b)};
    return;
  }

  if (n.op_type == "Scan" && n.def->since >= 9) {
    const ScanAxes ax = scan_axes(n, probes.subspan(0, own));
    Descs formal;
    for (size_t k = 0; k < ax.states; ++k)
      formal.in.push_back({probes[k].dtype(), probes[k].shape()});
    int64_t len = -1;
    for (size_t k = ax.states; k < own; ++k) {
      const TensorDesc d{probes[k].dtype(), probes[k].shape()};
      const int64_t axis = ax.in_axis[k - ax.states];
      if (len >= 0 && d.shape[static_cast<size_t>(axis)] != len)
        throw ShapeError(cat("Scan: scan inputs have ", len, " and ",
                             d.shape[static_cast<size_t>(axis)], " steps"));
      len = d.shape[static_cast<size_t>(axis)];
      formal.in.push_back(without_axis(d, axis));
    }
    if (len <= 0) throw ValueUnknownError("Scan: no step to plan its outputs from");
    BodyPlan b = plan_body("body", std::move(formal));
    const size_t scans = ax.scans;
    if (b.graph->outputs.size() != ax.states + scans)
      throw ShapeError(cat("Scan: the body has ", b.graph->outputs.size(), " outputs, expected ",
                           ax.states, " states + ", scans, " scan outputs"));
    const std::vector<TensorDesc> out = outputs_of(b, 0);
    for (size_t k = 0; k < ax.states; ++k)
      if (!same_type(out[k], {probes[k].dtype(), probes[k].shape()}))
        throw ValueUnknownError(cat("Scan: state ", k, " changes type"));
    s.out.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(ax.states));
    for (size_t k = 0; k < scans; ++k) {
      TensorDesc d = out[ax.states + k];
      const int64_t axis = scan_output_axis(ax.out_axis.at(k), d.shape.size() + 1);
      d.shape.insert(d.shape.begin() + axis, len);
      s.out.push_back(d);
    }
    s.bodies = {std::move(b)};
    return;
  }
  throw ValueUnknownError(cat(n.op_type, " runs node by node"));
}

}  // namespace asc

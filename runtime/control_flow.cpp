// Control flow in the runtime: every subgraph of a control-flow node is a nested Model, planned
// and executed like the top-level one (its plans cached per input shapes); the node's kernel is
// the loop here that feeds it. Supported: If, Loop, Scan (8, 9+), SequenceMap (17). Subgraphs
// run at the model's own dtypes (the precision conversion does not reach into them). Scan inputs
// and scan outputs are sliced and stacked through memory: strings, sequences and optionals are
// refused there by name (a Loop carries them as loop-carried values).
#include <climits>
#include <functional>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/control_flow_internal.h"
#include "runtime/model.h"

namespace asc {

void Model::load_subgraphs() {
  for (Node& n : graph_.nodes)
    for (auto& [attr, sub] : n.subgraphs) {
      if (subgraphs_.count(sub.get())) continue;
      // Values the subgraph reads from this graph that are constants here become its own
      // constants: its folding, fusion and weight packing see them, and runs do not feed them.
      Graph g = *sub;
      const size_t own = n.inputs.size() - static_cast<size_t>(n.captured);
      for (size_t j = 0; j < g.outer.size();) {
        const Value* c = nullptr;
        for (size_t k = own; k < n.inputs.size() && !c; ++k) {
          const Value& v = graph_.values[n.inputs[k]];
          if (n.inputs[k] >= 0 && v.name == g.outer[j] && v.constant) c = &v;
        }
        const int gv = c ? g.find(g.outer[j]) : -1;
        if (gv < 0) {
          ++j;
          continue;
        }
        g.values[gv].constant = *c->constant;
        std::erase(g.inputs, gv);
        g.outer.erase(g.outer.begin() + static_cast<std::ptrdiff_t>(j));
      }
      if (g.outer.size() != sub->outer.size()) sub = std::make_shared<const Graph>(g);
      ModelOptions o = options_;
      o.expose = {};
      o.last_logits_only = false;
      o.kv_cache_precision = false;
      o.precision = DType::kF32;
      o.plan_cache = 8;
      try {
        subgraphs_.emplace(
            sub.get(), std::unique_ptr<const Model>(new Model(std::move(g), o, device_, kernels_)));
      } catch (const Error& e) {
        throw ModelError(cat("subgraph '", attr, "' of node ", n.label(), ": ", e.what()));
      }
    }
}

namespace {

// The feed of a subgraph: its formal inputs from `formal` (in order), then the values it reads
// from enclosing scopes by name from the node's captured inputs.
std::vector<NamedTensor> feed(const Graph& outer, const Node& n, const std::vector<Tensor>& ins,
                              const Graph& sub, const char* attr, std::vector<Tensor> formal) {
  const size_t nformal = sub.inputs.size() - sub.outer.size();
  if (formal.size() != nformal)
    throw ShapeError(
        cat(n.op_type, ": ", attr, " takes ", nformal, " inputs, the op gives ", formal.size()));
  std::vector<NamedTensor> f;
  for (size_t i = 0; i < nformal; ++i) {
    const Value& v = sub.values[sub.inputs[i]];
    // A value fed where the subgraph declares an optional is wrapped in one (a Loop whose
    // optional state the body returns as a plain sequence or tensor).
    if (v.type.dtype == DType::kOptional && formal[i].defined() &&
        formal[i].dtype() != DType::kOptional) {
      const DType dt = formal[i].dtype();
      formal[i] = Tensor::optional(dt, std::move(formal[i]));
    }
    f.push_back({v.name, std::move(formal[i])});
  }
  const size_t own = ins.size() - static_cast<size_t>(n.captured);
  for (const std::string& name : sub.outer) {
    bool found = false;
    for (size_t k = own; k < ins.size() && !found; ++k)
      if (outer.values[n.inputs[k]].name == name) {
        f.push_back({name, ins[k]});
        found = true;
      }
    if (!found)
      throw ModelError(
          cat(n.op_type, ": ", attr, " reads '", name, "', which the node does not capture"));
  }
  return f;
}

// What a body run reports to the node's run: the step hook, and its predicted kernels summed.
struct Report {
  const RunStats* stats = nullptr;
  KernelCost* cost = nullptr;
};

std::vector<Tensor> run_sub(const Model& sub, const char* attr, std::vector<NamedTensor> f,
                            const Report& report) {
  try {
    RunStats stats;
    if (report.stats) stats.on_step = report.stats->on_step;
    const bool want = report.cost || stats.on_step;
    std::vector<Tensor> r;
    for (auto& o : sub.run(f, {}, want ? &stats : nullptr)) r.push_back(std::move(o.tensor));
    if (report.cost)
      for (const StepTiming& st : stats.steps) report.cost->then(st.cost);
    return r;
  } catch (const Error& e) {
    throw Error(cat(attr, ": ", e.what()));
  }
}

Tensor scalar(DType dt, double v) {
  Tensor t(dt, {});
  t.set(0, v);
  return t;
}

// Per-iteration tensors stacked along a new leading axis; every one must have the same type.
// With no iteration: an empty tensor of the type the graphs declare ([0, dims...] when the node's
// output declares every dim after the first, or the body's output declares every dim; else [0]).
Tensor stack(const std::vector<Tensor>& parts, const TensorType& node_out,
             const TensorType& body_out, const std::string& what) {
  if (parts.empty()) {
    const DType dt = body_out.dtype != DType::kUndefined   ? body_out.dtype
                     : node_out.dtype != DType::kUndefined ? node_out.dtype
                                                           : DType::kF32;
    Shape shape = {0};
    auto known = [](const SymShape& s, size_t from) {
      for (size_t i = from; i < s.size(); ++i)
        if (!s[i].known()) return false;
      return true;
    };
    if (node_out.shape && !node_out.shape->empty() && known(*node_out.shape, 1)) {
      for (size_t i = 1; i < node_out.shape->size(); ++i)
        shape.push_back((*node_out.shape)[i].value());
    } else if (body_out.shape && known(*body_out.shape, 0)) {
      for (const Dim& d : *body_out.shape) shape.push_back(d.value());
    }
    return Tensor(dt, shape);
  }
  if (dtype_is_host_object(parts[0].dtype()))
    throw UnsupportedError(
        cat(what, ": ", dtype_name(parts[0].dtype()), " values are not stacked yet"));
  Shape shape = parts[0].shape();
  for (const Tensor& p : parts)
    if (p.dtype() != parts[0].dtype() || p.shape() != shape)
      throw ShapeError(cat(what, " changes type across iterations: ", parts[0].desc().str(),
                           " then ", p.desc().str()));
  shape.insert(shape.begin(), static_cast<int64_t>(parts.size()));
  Tensor out(parts[0].dtype(), shape);
  const size_t bytes = parts[0].nbytes();
  for (size_t i = 0; i < parts.size(); ++i) {
    Tensor slot = Tensor::wrap(parts[0].dtype(), parts[0].shape(),
                               static_cast<std::byte*>(out.data()) + i * bytes);
    slot.assign(parts[i]);
  }
  return out;
}

// SequenceMap: out_k[i] = body(seq[i], extra (element i of a sequence, a tensor as is)...)[k].
std::vector<Tensor> sequence_map(const Graph& outer, const Node& n, const std::vector<Tensor>& ins,
                                 const Model& body, const Report& report) {
  const size_t own = ins.size() - static_cast<size_t>(n.captured);
  if (own < 1 || !ins[0].list() || ins[0].dtype() != DType::kSequence)
    throw ShapeError("SequenceMap: input 0 must be a sequence");
  const size_t len = ins[0].list()->items.size();
  for (size_t k = 1; k < own; ++k)
    if (ins[k].dtype() == DType::kSequence && ins[k].list()->items.size() != len)
      throw ShapeError(cat("SequenceMap: input ", k, " has ", ins[k].list()->items.size(),
                           " elements, input 0 has ", len));
  const Graph& bg = body.graph();
  std::vector<Tensor> result;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const TensorType& t = bg.values[bg.outputs[std::min(k, bg.outputs.size() - 1)]].type;
    result.push_back(Tensor::sequence(t.dtype, {}));
  }
  for (size_t i = 0; i < len; ++i) {
    std::vector<Tensor> formal;
    for (size_t k = 0; k < own; ++k)
      formal.push_back(ins[k].dtype() == DType::kSequence ? ins[k].list()->items[i] : ins[k]);
    std::vector<Tensor> out =
        run_sub(body, "body", feed(outer, n, ins, bg, "body", formal), report);
    if (out.size() != result.size())
      throw ShapeError(
          cat("SequenceMap: the body has ", out.size(), " outputs, the node ", result.size()));
    for (size_t k = 0; k < out.size(); ++k) {
      TensorList& l = *result[k].list();
      if (l.items.empty()) l.elem = out[k].dtype();
      if (out[k].dtype() != l.elem)
        throw ShapeError(cat("SequenceMap: body output ", k, " is ", out[k].desc().str(),
                             " at element ", i, ", the sequence holds ", dtype_name(l.elem)));
      l.items.push_back(std::move(out[k]));
    }
  }
  return result;
}

}  // namespace

std::vector<Tensor> Model::run_control_flow(const Node& n, const std::vector<Tensor>& ins,
                                            const RunStats* stats, KernelCost* cost) const {
  const Report report{stats, cost};
  const size_t own = ins.size() - static_cast<size_t>(n.captured);
  auto sub_of = [&](const char* attr) -> const Model& {
    const auto it = n.subgraphs.find(attr);
    if (it == n.subgraphs.end()) throw ModelError(cat(n.op_type, ": the node has no ", attr));
    return *subgraphs_.at(it->second.get());
  };
  if (n.op_type == "If") {
    if (own != 1 || !ins[0].defined() || ins[0].numel() != 1 || ins[0].dtype() != DType::kBool)
      throw ShapeError(cat("If: cond must be one bool element, got ", own >= 1 && ins[0].defined()
                                                                          ? ins[0].desc().str()
                                                                          : std::string("none")));
    const char* branch = ins[0].at(0) != 0.0 ? "then_branch" : "else_branch";
    const Model& sub = sub_of(branch);
    std::vector<Tensor> out =
        run_sub(sub, branch, feed(graph_, n, ins, sub.graph(), branch, {}), report);
    if (out.size() != n.outputs.size())
      throw ShapeError(
          cat("If: ", branch, " has ", out.size(), " outputs, the node ", n.outputs.size()));
    return out;
  }
  if (n.op_type == "Loop") return run_loop(n, ins, sub_of("body"), stats, cost);
  if (n.op_type == "Scan") return run_scan(n, ins, sub_of("body"), stats, cost);
  if (n.op_type == "SequenceMap") return sequence_map(graph_, n, ins, sub_of("body"), report);
  throw UnsupportedError(cat(n.op_type, " is not supported by the runtime's control flow yet"));
}

// Loop: while (i < M) and cond: (cond, v..., scan...) = body(i, cond, v...); outputs the final
// v... and each scan output stacked over the iterations.
std::vector<Tensor> Model::run_loop(const Node& n, const std::vector<Tensor>& ins,
                                    const Model& body, const RunStats* stats,
                                    KernelCost* cost) const {
  const size_t own = ins.size() - static_cast<size_t>(n.captured);
  if (own < 2) throw ShapeError("Loop: needs the inputs M and cond (either may be empty)");
  auto one = [&](size_t k, DType dt, const char* what) {
    if (ins[k].defined() && (ins[k].numel() != 1 || ins[k].dtype() != dt))
      throw ShapeError(cat("Loop: ", what, " must be one ", dtype_name(dt), " element, got ",
                           ins[k].desc().str()));
    return ins[k].defined();
  };
  const bool has_m = one(0, DType::kI64, "M"), has_cond = one(1, DType::kBool, "cond");
  const int64_t trips = has_m ? static_cast<int64_t>(ins[0].at(0)) : INT64_MAX;
  bool cond = has_cond ? ins[1].at(0) != 0.0 : true;
  std::vector<Tensor> v(ins.begin() + 2, ins.begin() + static_cast<std::ptrdiff_t>(own));
  const size_t carried = v.size();
  if (n.outputs.size() < carried)
    throw ShapeError(
        cat("Loop: ", carried, " loop-carried values but ", n.outputs.size(), " outputs"));
  const size_t scans = n.outputs.size() - carried;
  const Graph& bg = body.graph();
  if (bg.outputs.size() != 1 + carried + scans)
    throw ShapeError(cat("Loop: the body has ", bg.outputs.size(), " outputs, expected 1 + ",
                         carried, " carried + ", scans, " scan outputs"));
  std::vector<std::vector<Tensor>> scanned(scans);
  for (int64_t i = 0; i < trips && cond; ++i) {
    std::vector<Tensor> formal = {scalar(DType::kI64, static_cast<double>(i)),
                                  scalar(DType::kBool, cond ? 1.0 : 0.0)};
    formal.insert(formal.end(), v.begin(), v.end());
    std::vector<Tensor> out =
        run_sub(body, "body", feed(graph_, n, ins, bg, "body", formal), {stats, cost});
    if (out[0].numel() != 1 || out[0].dtype() != DType::kBool)
      throw ShapeError(
          cat("Loop: the body's cond output must be one bool element, got ", out[0].desc().str()));
    cond = out[0].at(0) != 0.0;
    for (size_t k = 0; k < carried; ++k) v[k] = std::move(out[1 + k]);
    for (size_t k = 0; k < scans; ++k) scanned[k].push_back(std::move(out[1 + carried + k]));
  }
  std::vector<Tensor> result = std::move(v);
  for (size_t k = 0; k < scans; ++k) {
    const int o = n.outputs[carried + k];
    result.push_back(stack(scanned[k], o >= 0 ? graph_.values[o].type : TensorType{},
                           bg.values[bg.outputs[1 + carried + k]].type,
                           cat("Loop: scan output ", k)));
  }
  return result;
}

namespace {

// One Scan over `len` steps: states carried, scan input k sliced along in_axis[k] (in_rev[k]:
// from the end), scan output k stacked along out_axis[k] (scan_output_axis; out_rev[k]: from the
// end). `body` runs one step on (states..., slices...).

std::vector<Tensor> scan_steps(
    std::vector<Tensor> state, const std::vector<Tensor>& xs, const ScanAxes& sp, size_t scans,
    const Graph& bg, const std::vector<TensorType>& declared,
    const std::function<std::vector<Tensor>(std::vector<Tensor>)>& body) {
  int64_t len = -1;
  for (size_t k = 0; k < xs.size(); ++k) {
    const int64_t l = xs[k].shape()[static_cast<size_t>(sp.in_axis[k])];
    if (len >= 0 && l != len)
      throw ShapeError(cat("Scan: scan inputs have ", len, " and ", l, " steps"));
    len = l;
  }
  const size_t states = state.size();
  std::vector<std::vector<Tensor>> scanned(scans);
  for (int64_t t = 0; t < len; ++t) {
    std::vector<Tensor> formal = state;
    for (size_t k = 0; k < xs.size(); ++k)
      formal.push_back(along(xs[k], sp.in_axis[k], sp.in_rev[k] ? len - 1 - t : t).clone());
    std::vector<Tensor> out = body(std::move(formal));
    for (size_t k = 0; k < states; ++k) state[k] = std::move(out[k]);
    for (size_t k = 0; k < scans; ++k) scanned[k].push_back(std::move(out[states + k]));
  }
  std::vector<Tensor> result = std::move(state);
  for (size_t k = 0; k < scans; ++k) {
    Tensor stacked = stack(scanned[k], declared[k], bg.values[bg.outputs[states + k]].type,
                           cat("Scan: scan output ", k));
    const int64_t axis = scan_output_axis(sp.out_axis[k], stacked.shape().size());
    if (axis == 0 && !sp.out_rev[k]) {
      result.push_back(std::move(stacked));
      continue;
    }
    // Move the step axis from 0 to `axis` (and reverse it): write each step into its place.
    Shape shape = stacked.shape();
    shape.erase(shape.begin());
    shape.insert(shape.begin() + axis, len);
    Tensor out(stacked.dtype(), shape);
    for (int64_t t = 0; t < len; ++t)
      along(out, axis, sp.out_rev[k] ? len - 1 - t : t).assign(along(stacked, 0, t));
    result.push_back(std::move(out));
  }
  return result;
}

std::vector<int64_t> ints_or(const Attrs& a, const char* name, size_t n, int64_t dflt) {
  std::vector<int64_t> v(n, dflt);
  if (a.has(name)) {
    const auto& given = a.ints(name);
    if (given.size() != n)
      throw ShapeError(cat("Scan: ", name, " has ", given.size(), " entries for ", n, " values"));
    v = given;
  }
  return v;
}

}  // namespace

// Scan: opset 9+ slices each scan input along its axis; opset 8 has a leading batch axis on every
// input and output, scans along axis 1 and takes an optional first input sequence_lens (only
// full-length sequences are supported).
std::vector<Tensor> Model::run_scan(const Node& n, const std::vector<Tensor>& ins,
                                    const Model& body, const RunStats* stats,
                                    KernelCost* cost) const {
  const size_t own = ins.size() - static_cast<size_t>(n.captured);
  const Attrs& a = n.attrs;
  if (!a.has("num_scan_inputs")) throw ModelError("Scan: the attribute num_scan_inputs is missing");
  const bool v8 = n.def->since < 9;
  const size_t first = v8 ? 1 : 0;  // Scan-8: sequence_lens comes first
  const int64_t m = a.i("num_scan_inputs");
  if (m < 1 || static_cast<size_t>(m) + first > own)
    throw ShapeError(cat("Scan: num_scan_inputs ", m, " with ", own, " inputs"));
  const size_t states = own - first - static_cast<size_t>(m);
  if (n.outputs.size() < states)
    throw ShapeError(cat("Scan: ", states, " states but ", n.outputs.size(), " outputs"));
  const size_t scans = n.outputs.size() - states;
  const Graph& bg = body.graph();
  if (bg.outputs.size() != states + scans)
    throw ShapeError(cat("Scan: the body has ", bg.outputs.size(), " outputs, expected ", states,
                         " states + ", scans, " scan outputs"));
  std::vector<Tensor> state(ins.begin() + static_cast<std::ptrdiff_t>(first),
                            ins.begin() + static_cast<std::ptrdiff_t>(first + states));
  std::vector<Tensor> xs(ins.begin() + static_cast<std::ptrdiff_t>(first + states),
                         ins.begin() + static_cast<std::ptrdiff_t>(own));
  for (size_t k = 0; k < xs.size(); ++k)
    if (!xs[k].defined()) throw ShapeError(cat("Scan: scan input ", k, " is missing"));
  std::vector<TensorType> declared;
  for (size_t k = 0; k < scans; ++k) {
    const int o = n.outputs[states + k];
    declared.push_back(o >= 0 ? graph_.values[o].type : TensorType{});
  }
  auto step = [&](std::vector<Tensor> formal) {
    return run_sub(body, "body", feed(graph_, n, ins, bg, "body", std::move(formal)),
                   {stats, cost});
  };
  const size_t nx = xs.size();
  if (!v8) {
    const ScanAxes sp = scan_axes(n, std::span<const Tensor>(ins.data(), own));
    return scan_steps(state, xs, sp, scans, bg, declared, step);
  }
  ScanAxes sp;
  // Scan-8: per batch entry, a Scan along axis 0 of the entry (axis 1 of the input).
  const Tensor& lens = ins[0];
  sp.in_axis.assign(nx, 0);
  for (int64_t d : ints_or(a, "directions", nx, 0)) sp.in_rev.push_back(d != 0);
  sp.out_axis.assign(scans, 0);
  sp.out_rev.assign(scans, false);
  const int64_t batch = xs[0].shape().empty() ? 0 : xs[0].shape()[0];
  for (const Tensor& t : state)
    if (t.shape().empty() || t.shape()[0] != batch)
      throw ShapeError(cat("Scan-8: a state is ", t.desc().str(), ", not batch ", batch));
  for (const Tensor& t : xs)
    if (t.shape().size() < 2 || t.shape()[0] != batch)
      throw ShapeError(
          cat("Scan-8: a scan input is ", t.desc().str(), ", not [batch ", batch, ", steps, ...]"));
  if (lens.defined())
    for (int64_t b = 0; b < lens.numel(); ++b)
      if (static_cast<int64_t>(lens.at(b)) != xs[0].shape()[1])
        throw UnsupportedError(cat("Scan-8: sequence_lens[", b,
                                   "] = ", static_cast<int64_t>(lens.at(b)),
                                   " is shorter than the ", xs[0].shape()[1],
                                   " steps; only full-length sequences are supported"));
  std::vector<TensorType> per_entry(scans);  // declared types lose the batch axis
  for (size_t k = 0; k < scans; ++k)
    if (declared[k].shape && !declared[k].shape->empty()) {
      per_entry[k] = declared[k];
      per_entry[k].shape->erase(per_entry[k].shape->begin());
    }
  std::vector<std::vector<Tensor>> parts(states + scans);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Tensor> st, x;
    for (const Tensor& t : state) st.push_back(along(t, 0, b).clone());
    for (const Tensor& t : xs) x.push_back(along(t, 0, b).clone());
    std::vector<Tensor> r = scan_steps(st, x, sp, scans, bg, per_entry, step);
    for (size_t k = 0; k < r.size(); ++k) parts[k].push_back(std::move(r[k]));
  }
  std::vector<Tensor> result;
  for (size_t k = 0; k < parts.size(); ++k)
    result.push_back(stack(parts[k], k < states ? TensorType{} : declared[k - states], TensorType{},
                           cat("Scan-8: output ", k)));
  return result;
}

ScanAxes scan_axes(const Node& n, std::span<const Tensor> own) {
  const Attrs& a = n.attrs;
  if (!a.has("num_scan_inputs")) throw ModelError("Scan: the attribute num_scan_inputs is missing");
  const int64_t m = a.i("num_scan_inputs");
  if (m < 1 || static_cast<size_t>(m) > own.size())
    throw ShapeError(cat("Scan: num_scan_inputs ", m, " with ", own.size(), " inputs"));
  ScanAxes sp;
  sp.states = own.size() - static_cast<size_t>(m);
  if (n.outputs.size() < sp.states)
    throw ShapeError(cat("Scan: ", sp.states, " states but ", n.outputs.size(), " outputs"));
  sp.scans = n.outputs.size() - sp.states;
  const size_t nx = static_cast<size_t>(m);
  sp.in_axis = ints_or(a, "scan_input_axes", nx, 0);
  for (size_t k = 0; k < nx; ++k) {
    const Tensor& x = own[sp.states + k];
    if (!x.defined()) throw ShapeError(cat("Scan: scan input ", k, " is missing"));
    const int64_t rank = static_cast<int64_t>(x.shape().size());
    if (sp.in_axis[k] < -rank || sp.in_axis[k] >= rank)
      throw ShapeError(cat("Scan: scan_input_axes[", k, "] = ", sp.in_axis[k],
                           " is out of range for rank ", rank));
    if (sp.in_axis[k] < 0) sp.in_axis[k] += rank;
  }
  for (int64_t d : ints_or(a, "scan_input_directions", nx, 0)) sp.in_rev.push_back(d != 0);
  sp.out_axis = ints_or(a, "scan_output_axes", sp.scans, 0);
  for (int64_t d : ints_or(a, "scan_output_directions", sp.scans, 0)) sp.out_rev.push_back(d != 0);
  return sp;
}

int64_t scan_output_axis(int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw ShapeError(cat("Scan: scan_output_axes value ", axis, " is out of range for rank ", r));
  return axis < 0 ? axis + r : axis;
}

// Element t along `axis` of x: a strided view of x's memory (read-only use).
Tensor along(const Tensor& x, int64_t axis, int64_t t) {
  if (dtype_is_host_object(x.dtype()))
    throw UnsupportedError(
        cat("a scan over ", dtype_name(x.dtype()), " values is not supported yet"));
  Shape shape = x.shape(), strides = x.strides();
  const int64_t step = strides[static_cast<size_t>(axis)];
  shape.erase(shape.begin() + axis);
  strides.erase(strides.begin() + axis);
  auto* base = static_cast<std::byte*>(const_cast<void*>(x.data())) +
               t * step * static_cast<int64_t>(dtype_size(x.dtype()));
  return Tensor::strided(x.dtype(), shape, strides, base);
}

}  // namespace asc

#include "runtime/plan.h"

#include <algorithm>
#include <cstring>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

constexpr int64_t kArenaAlign = 64;

int64_t align_up(int64_t v, int64_t a) {
  return (v + a - 1) / a * a;
}

std::string describe(const Node& n, const std::vector<TensorDesc>& in) {
  std::string s = cat(n.label(), " [", n.domain.empty() ? "ai.onnx" : n.domain, " opset ", n.opset,
                      "] inputs (");
  for (size_t i = 0; i < in.size(); ++i) s += cat(i ? ", " : "", in[i].str());
  return s + ")";
}

// A node's tile program depends on its types and on the input values its tiling or tracing may
// read: known values by content, the model's constants (weights: fixed for its life) by address.
// Empty when a large value known only to this plan (a folded result) would have to be keyed.
std::string program_key(const Graph& g, const Node& n, const PlanStep& s,
                        const std::vector<Tensor>& probes) {
  std::string k = cat(s.node, "|");
  for (const auto& d : s.in) k += cat(d.str(), ";");
  k += "|";
  for (const auto& d : s.out) k += cat(d.str(), ";");
  for (size_t i = 0; i < probes.size() && i < n.inputs.size(); ++i) {
    const Tensor& t = probes[i];
    if (!t.data()) continue;
    k += cat("|", i, "=");
    const int v = n.inputs[i];
    if (v >= 0 && g.values[v].constant && g.values[v].constant->data() == t.data()) {
      k += cat("@", reinterpret_cast<uintptr_t>(t.data()));
      continue;
    }
    if (t.numel() > kFoldMaxElements || dtype_is_host_object(t.dtype())) return "";
    static const char* hex = "0123456789abcdef";
    const auto* b = static_cast<const unsigned char*>(t.data());
    for (size_t j = 0; j < t.nbytes(); ++j) {
      k += hex[b[j] >> 4];
      k += hex[b[j] & 15];
    }
  }
  return k;
}

// Same value for planning: same bytes (or the same memory). Host objects (strings, sequences):
// only the same memory counts.
bool same_desc(const TensorDesc& a, const TensorDesc& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides;
}

bool same_known(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined() || a.data() == b.data()) return same_desc(a.desc(), b.desc());
  if (!same_desc(a.desc(), b.desc()) || dtype_is_host_object(a.dtype())) return false;
  return a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

// Whether node n sees exactly what it saw in `base` (types and known values of its inputs).
bool same_inputs(const Node& n, const Plan& p, const Plan& base) {
  for (int v : n.inputs)
    if (v >= 0 && (!same_desc(p.desc[v], base.desc[v]) || !same_known(p.known[v], base.known[v])))
      return false;
  return true;
}

// Whether `base` folded node i: it has no step there and every output is a known constant.
bool folded_in(const Graph& g, int i, const Plan& base) {
  if (base.step_of[i] >= 0) return false;
  for (int o : g.nodes[i].outputs)
    if (o >= 0 && (base.storage[o] != Storage::kConstant || !base.known[o].defined())) return false;
  return true;
}

// Bytes a value takes in the arena (at least one aligned unit).
int64_t arena_size(const TensorDesc& d) {
  return align_up(std::max<int64_t>(1, numel(d.shape) * static_cast<int64_t>(dtype_size(d.dtype))),
                  kArenaAlign);
}

// Places the inputs of step `s`, whose output is their bytes back to back (OpDef::back_to_back: a
// Concat), in the blocks of its output they fill (share, delta) when every block is arena-aligned
// and each input is an arena value that only this step reads (so whatever later writes over the
// output in place destroys nothing still needed) and no other alias involves; false, changing
// nothing, otherwise.
bool place_back_to_back(const Plan& p, const Node& n, const PlanStep& s,
                        const std::vector<int>& uses, std::vector<int>& share,
                        std::vector<bool>& taken, const std::vector<bool>& rooted,
                        std::vector<int64_t>& delta) {
  if (!n.def->back_to_back_fn || n.outputs.empty() || n.outputs[0] < 0 || s.out.empty())
    return false;
  const int o = n.outputs[0];
  const TensorDesc& od = p.desc[o];
  if (p.storage[o] != Storage::kArena || !od.strides.empty() ||
      !n.def->back_to_back_fn(s.attrs, s.in, od))
    return false;
  const int64_t es = static_cast<int64_t>(dtype_size(od.dtype));
  std::vector<int64_t> at;
  int64_t off = 0;
  for (size_t j = 0; j < n.inputs.size(); ++j) {
    const int v = n.inputs[j];
    if (v < 0 || v == o || p.storage[v] != Storage::kArena || uses[v] != 1 || taken[v] ||
        rooted[v] || share[v] >= 0 || p.desc[v].dtype != od.dtype || !p.desc[v].strides.empty() ||
        off % kArenaAlign != 0)
      return false;
    for (size_t i = 0; i < j; ++i)
      if (n.inputs[i] == v) return false;
    at.push_back(off);
    off += numel(p.desc[v].shape) * es;
  }
  if (off != numel(od.shape) * es) return false;
  for (size_t j = 0; j < n.inputs.size(); ++j) {
    const int v = n.inputs[j];
    share[v] = o;
    delta[v] = at[j];
    taken[v] = true;
  }
  return true;
}

}  // namespace

std::string shape_signature(const std::vector<TensorDesc>& inputs,
                            const std::vector<const Tensor*>& values,
                            const std::vector<Shape>& output_strides) {
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) {
    s += cat(i ? ";" : "", inputs[i].str());
    if (i < values.size() && values[i]) {
      s += "=";
      for (int64_t k = 0; k < values[i]->numel(); ++k) s += cat(k ? "," : "", values[i]->at(k));
    }
  }
  for (size_t k = 0; k < output_strides.size(); ++k)
    if (!output_strides[k].empty()) s += cat("|out ", k, ":s", to_string(output_strides[k]));
  return s;
}

Plan make_plan(const Graph& g, const std::vector<TensorDesc>& inputs, const DeviceSpec& spec,
               bool optimize, const std::vector<const Tensor*>& values, const NodeEval* eval,
               const LruCache<TileProgram>* programs, const std::vector<Shape>& output_strides,
               const Plan* base, const ControlFlowPlanner* control) {
  if (inputs.size() != g.inputs.size())
    throw ShapeError(cat("model takes ", g.inputs.size(), " inputs, got ", inputs.size()));
  Plan p;
  const size_t nv = g.values.size();
  p.output_strides = output_strides;
  if (base && (base->desc.size() != nv || base->step_of.size() != g.nodes.size() ||
               base->output_strides != output_strides))
    base = nullptr;
  p.step_of.assign(g.nodes.size(), -1);
  p.desc.resize(nv);
  p.storage.assign(nv, Storage::kUnused);
  p.offset.assign(nv, -1);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.values[g.inputs[i]];
    const TensorDesc& d = inputs[i];
    // The declared type must admit the given one: same dtype, same rank, known dims equal.
    bool ok = v.type.dtype == DType::kUndefined || v.type.dtype == d.dtype;
    if (ok && v.type.shape) {
      ok = v.type.shape->size() == d.shape.size();
      for (size_t k = 0; ok && k < d.shape.size(); ++k)
        ok = !(*v.type.shape)[k].known() || (*v.type.shape)[k].value() == d.shape[k];
    }
    if (!ok)
      throw ShapeError(cat("input '", v.name, "' expects ", v.type.str(), ", got ", d.str()));
    p.desc[g.inputs[i]] = d;
    p.storage[g.inputs[i]] = Storage::kInput;
  }
  p.known.resize(nv);
  for (size_t v = 0; v < nv; ++v)
    if (g.values[v].constant) {
      p.desc[v] = g.values[v].constant->desc();
      p.storage[v] = Storage::kConstant;
      p.known[v] = *g.values[v].constant;
    }
  for (size_t i = 0; i < g.inputs.size() && i < values.size(); ++i)
    if (values[i]) p.known[g.inputs[i]] = *values[i];

  // Wavefront levels: a node runs one level after the latest producer of its inputs; nodes of one
  // level are independent and run in parallel. Liveness is counted in levels.
  std::vector<int> order = g.topo_order();
  std::vector<int> level(g.nodes.size(), 0);
  for (int i : order)
    for (int v : g.nodes[i].inputs)
      if (v >= 0 && g.values[v].producer >= 0)
        level[i] = std::max(level[i], level[g.values[v].producer] + 1);
  std::stable_sort(order.begin(), order.end(),
                   [&level](int a, int b) { return level[a] < level[b]; });
  std::vector<int> first(nv, -1), last(nv, -1);
  // A planned step: its outputs live in the arena from its level on.
  auto add_step = [&](PlanStep&& s) {
    const Node& n = g.nodes[s.node];
    s.bytes = 0;
    for (const auto* list : {&s.in, &s.out})
      for (const TensorDesc& d : *list)
        s.bytes += numel(d.shape) * static_cast<int64_t>(dtype_size(d.dtype));
    for (int v : n.inputs)
      if (v >= 0) last[v] = std::max(last[v], s.level);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const int v = n.outputs[k];
      if (v < 0) continue;
      p.desc[v] = s.out[k];
      p.storage[v] = Storage::kArena;
      first[v] = s.level;
      last[v] = std::max(last[v], s.level);
    }
    p.step_of[s.node] = static_cast<int>(p.steps.size());
    p.steps.push_back(std::move(s));
  };
  for (int step = 0; step < static_cast<int>(order.size()); ++step) {
    const Node& n = g.nodes[order[step]];
    if (!n.def)
      throw UnsupportedError(cat("node ", n.label(), ": op ", n.op_type, " is not supported"));
    if (n.def->has(kControlFlow) && !control) {
      p.dynamic = cat(n.label(), ": control flow runs node by node");
      return p;
    }
    PlanStep s;
    s.node = order[step];
    s.level = level[s.node];
    if (base && same_inputs(n, p, *base)) {  // as in the base plan: take its result
      if (const int b = base->step_of[s.node]; b >= 0) {
        s = base->steps[b];
        s.level = level[s.node];
        for (size_t k = 0; k < n.outputs.size(); ++k)
          if (n.outputs[k] >= 0) p.desc[n.outputs[k]] = s.out[k];
        add_step(std::move(s));
        continue;
      }
      if (folded_in(g, s.node, *base)) {
        for (int o : n.outputs)
          if (o >= 0) {
            p.desc[o] = base->desc[o];
            p.storage[o] = Storage::kConstant;
            p.known[o] = base->known[o];
          }
        continue;
      }
    }
    std::vector<Tensor> probes;  // descs, plus values where known
    bool all_known = true;
    for (int v : n.inputs) {
      s.in.push_back(v >= 0 ? p.desc[v] : TensorDesc{});
      if (v < 0) {
        probes.emplace_back();
        continue;
      }
      all_known = all_known && p.known[v].defined();
      probes.push_back(p.known[v].defined()
                           ? p.known[v]
                           : Tensor::wrap(p.desc[v].dtype, p.desc[v].shape, nullptr));
    }
    try {
      s.attrs = n.def->resolve(n.attrs);
      if (n.def->has(kControlFlow)) {  // its subgraphs planned for these inputs give its outputs
        (*control)(n, probes, s);
        add_step(std::move(s));
        continue;
      }
      s.out = infer_outputs(*n.def, s.attrs, probes, n.outputs.size());
      if (s.out.size() < n.outputs.size())
        throw ShapeError(
            cat("inference gave ", s.out.size(), " outputs, the node has ", n.outputs.size()));
      s.out.resize(n.outputs.size());
      for (size_t k = 0; k < n.outputs.size(); ++k)  // a caller's strided output buffer
        for (size_t o = 0; o < g.outputs.size() && o < output_strides.size(); ++o)
          if (n.outputs[k] >= 0 && g.outputs[o] == n.outputs[k] && !output_strides[o].empty() &&
              output_strides[o].size() == s.out[k].shape.size())
            s.out[k].strides = output_strides[o];
      // Host objects (strings, sequences, optionals): nodes touching them run node by node.
      for (const auto* list : {&s.in, &s.out})
        for (const TensorDesc& d : *list)
          if (dtype_is_host_object(d.dtype))
            throw ValueUnknownError(cat(dtype_name(d.dtype), " values are planned while running"));
      // Small known subgraphs (shape arithmetic) are evaluated now and become plan constants.
      int64_t out_elems = 0;
      for (const auto& d : s.out) out_elems += numel(d.shape);
      if (eval && (all_known || n.def->has(kShapeOf)) && !n.def->has(kRandom) &&
          out_elems <= kFoldMaxElements) {
        std::vector<Tensor> outs = (*eval)(n, s.attrs, probes);
        for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k) {
          const int v = n.outputs[k];
          if (v < 0) continue;
          p.desc[v] = outs[k].desc();
          p.storage[v] = Storage::kConstant;
          p.known[v] = std::move(outs[k]);
        }
        continue;
      }
      std::vector<TensorDesc> wanted = s.out;  // outputs the node does not want: undefined
      for (size_t k = 0; k < wanted.size() && k < n.outputs.size(); ++k)
        if (n.outputs[k] < 0) wanted[k].dtype = DType::kUndefined;
      if (n.def->kernel_for(s.attrs, s.in, wanted) == KernelKind::kTile) {
        std::vector<const Tensor*> known;
        for (const auto& t : probes) known.push_back(t.data() ? &t : nullptr);
        OpRunOptions o;
        o.optimize = optimize;
        auto make = [&] {
          return std::make_shared<const TileProgram>(
              plan_tile_program(*n.def, s.attrs, s.in, s.out, spec, o, known));
        };
        const std::string key = programs ? program_key(g, n, s, probes) : "";
        if (key.empty()) {
          s.program = make();
        } else {
          s.program = programs->find(key);
          if (!s.program) s.program = programs->insert(key, make());
        }
      }
    } catch (const ValueUnknownError& e) {
      p.dynamic = cat(describe(n, s.in), ": ", e.what());
      return p;
    } catch (const Error& e) {
      throw ShapeError(cat(describe(n, s.in), ": ", e.what()));
    }
    add_step(std::move(s));
  }
  for (int v : g.outputs)
    if (p.storage[v] == Storage::kArena) p.storage[v] = Storage::kOutput;

  // In place: an elementwise tile kernel writes its output over an input of the same type whose
  // last reader it is (exact aliasing is legal for every vector instruction and copy), and so
  // does a tile kernel over its OpDef::in_place_input (a convolution over its residual). The
  // output then shares the input's memory and extends its live range. Levels run one after
  // another, so a reader in an earlier level is done by then. A view (a node whose output is
  // its input's bytes as they are, OpDef::same_bytes) shares it too when it is the input's only
  // reader, and runs nothing: whatever later writes over the output in place writes over a value
  // nobody else reads.
  // A node whose output is its inputs' bytes back to back (OpDef::back_to_back: a Concat with
  // only 1s before the axis) runs nothing either: its inputs are placed in their blocks (at
  // `delta` bytes into the output), so their producers write the concatenation.
  std::vector<int> uses(nv, 0), share(nv, -1);
  std::vector<int64_t> delta(nv, 0);
  std::vector<bool> taken(nv, false), rooted(nv, false);
  std::vector<int> last_reads(nv, 0);  // reads in the level of a value's last reader
  for (const PlanStep& s : p.steps)
    for (int v : g.nodes[s.node].inputs)
      if (v >= 0) {
        ++uses[v];
        last_reads[v] += s.level == last[v];
      }
  // Step s may write output o over input v: s is v's only reader in its level and none reads v
  // later, v is nobody else's memory yet, and both are the same type in the arena.
  auto may_overwrite = [&](const PlanStep& s, int v, int o) {
    return v >= 0 && o >= 0 && !taken[v] && !rooted[v] && last[v] == s.level &&
           last_reads[v] == 1 && p.storage[v] == Storage::kArena &&
           p.storage[o] == Storage::kArena && p.desc[v].dtype == p.desc[o].dtype &&
           p.desc[v].shape == p.desc[o].shape;
  };
  auto overwrite = [&](int v, int o) {
    share[o] = v;
    taken[v] = rooted[v] = true;
    ++p.in_place;
  };
  for (PlanStep& s : p.steps) {
    const Node& n = g.nodes[s.node];
    s.view = false;  // a step taken from the base plan is decided again
    if (place_back_to_back(p, n, s, uses, share, taken, rooted, delta)) {
      s.view = true;
      ++p.views;
      continue;
    }
    if (n.def->same_bytes_fn && !n.inputs.empty() && !n.outputs.empty()) {
      const int v = n.inputs[0], o = n.outputs[0];
      if (v >= 0 && o >= 0 && !taken[v] && uses[v] == 1 && p.storage[v] == Storage::kArena &&
          p.storage[o] == Storage::kArena && p.desc[v].dtype == p.desc[o].dtype &&
          numel(p.desc[v].shape) == numel(p.desc[o].shape) &&
          n.def->same_bytes_fn(s.attrs, p.desc[v], p.desc[o])) {
        share[o] = v;
        taken[v] = rooted[v] = true;
        s.view = true;
        ++p.views;
        continue;
      }
    }
    if (!s.program) continue;
    const int z = n.def->in_place_input;
    if (z >= 0 && z < static_cast<int>(n.inputs.size()) && !n.outputs.empty() &&
        may_overwrite(s, n.inputs[z], n.outputs[0]))
      overwrite(n.inputs[z], n.outputs[0]);
    if (!n.def->has(kElementwise)) continue;
    for (int o : n.outputs)
      for (int v : n.inputs)
        if (may_overwrite(s, v, o)) {
          overwrite(v, o);
          break;
        }
  }
  auto root = [&share](int v) {
    while (share[v] >= 0) v = share[v];
    return v;
  };
  for (size_t v = 0; v < nv; ++v)
    if (share[v] >= 0) {
      const int r = root(static_cast<int>(v));
      last[r] = std::max(last[r], last[v]);
      first[r] = std::min(first[r], first[v]);  // a concatenation's inputs come before it
    }

  // Activation arena: first fit by address over live ranges [first, last] in levels (two values
  // touched in one level never share memory, except an in-place output and its input). Values
  // are placed in order of their first level; a placed value that died before that level can
  // never conflict again and leaves the active list, so each placement scans only the values
  // live around it (sorted by address, gaps taken lowest first).
  struct Placed {
    int64_t off, end;
    int last;
  };
  std::vector<int> by_first;
  for (size_t v = 0; v < nv; ++v) {
    if (p.storage[v] != Storage::kArena) continue;
    p.arena_bytes_no_reuse += arena_size(p.desc[v]);
    if (share[v] < 0) by_first.push_back(static_cast<int>(v));  // shared: placed with its root
  }
  std::stable_sort(by_first.begin(), by_first.end(),
                   [&first](int a, int b) { return first[a] < first[b]; });
  std::vector<Placed> active, busy;
  for (int v : by_first) {
    const int64_t bytes = arena_size(p.desc[v]);
    std::erase_if(active, [&](const Placed& q) { return q.last < first[v]; });
    busy = active;
    std::sort(busy.begin(), busy.end(),
              [](const Placed& a, const Placed& b) { return a.off < b.off; });
    int64_t off = 0;
    for (const Placed& q : busy) {
      if (off + bytes <= q.off) break;
      off = std::max(off, q.end);
    }
    active.push_back({off, off + bytes, last[v]});
    p.offset[v] = off;
    p.arena_bytes = std::max(p.arena_bytes, off + bytes);
  }
  for (size_t v = 0; v < nv; ++v)
    if (share[v] >= 0) {
      int64_t off = 0;
      for (int u = static_cast<int>(v); share[u] >= 0; u = share[u]) off += delta[u];
      p.offset[v] = p.offset[root(static_cast<int>(v))] + off;
    }
  return p;
}

}  // namespace asc

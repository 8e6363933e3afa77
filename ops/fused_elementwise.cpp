// FusedElementwise (ai.asc 1): a chain of elementwise ops (trait kElementwise, tile kernels) run
// as one tile program — what the pass makes of a run of single-consumer elementwise nodes. The
// chain is the node's attributes (ops/fused.h: encode_chain); the output is the last step's.
//
// One tile: every fused input is copied in once with the fused output's elementwise view
// (broadcast expanded, as ew_load's box does), then each step's own tile kernel is spliced
// (TileBuilder::splice): its copy-ins yield those buffers or earlier steps' results, its copy-out
// hands its result to the next step, so intermediates stay in UB and only the last result is
// copied out. Every step keeps its own dtype handling (compute in f32, cast to its output dtype),
// so the fused result equals the unfused chain's. Elementwise ops commute with broadcasting, so a
// step may compute on a broadcast-expanded tile of a smaller operand.
// Inference and the reference run the steps' own inference and references in order.
#include <cstdio>
#include <cstdlib>

#include "ops/fused.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc::fused {

// ---- the chain's encoding
// ------------------------------------------------------------------------

bool chain_encodable(const Attrs& a) {
  for (const auto& [name, v] : a.all()) {
    const AttrKind k = attr_kind(v);
    if (k != AttrKind::kInt && k != AttrKind::kFloat && k != AttrKind::kString) return false;
  }
  return true;
}

Attrs encode_chain(const std::vector<ChainStep>& steps) {
  std::vector<std::string> ops, step_attrs;
  std::vector<int64_t> opsets, arity, args;
  for (size_t k = 0; k < steps.size(); ++k) {
    const ChainStep& s = steps[k];
    ops.push_back(s.domain.empty() ? s.type : cat(s.domain, ".", s.type));
    opsets.push_back(s.opset);
    arity.push_back(static_cast<int64_t>(s.args.size()));
    args.insert(args.end(), s.args.begin(), s.args.end());
    for (const auto& [name, v] : s.attrs.all()) {
      std::string value;
      char kind = 's';
      switch (attr_kind(v)) {
        case AttrKind::kInt:
          kind = 'i';
          value = cat(std::get<int64_t>(v));
          break;
        case AttrKind::kFloat: {
          kind = 'f';
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(std::get<float>(v)));
          value = buf;
          break;
        }
        case AttrKind::kString:
          value = std::get<std::string>(v);
          break;
        default:
          throw ShapeError(cat("FusedElementwise: step ", k, " (", s.type, ") attribute '", name,
                               "' is a ", attr_kind_name(attr_kind(v)),
                               ", which a chain cannot hold"));
      }
      step_attrs.push_back(cat(k, ":", kind, ":", name, "=", value));
    }
  }
  Attrs a;
  a.set("ops", ops);
  a.set("opsets", opsets);
  a.set("arity", arity);
  a.set("args", args);
  a.set("step_attrs", step_attrs);
  return a;
}

namespace {

// A strings attribute (empty when absent); ShapeError when it has another kind.
std::vector<std::string> strings_attr(const Attrs& a, const std::string& name) {
  auto it = a.all().find(name);
  if (it == a.all().end()) return {};
  if (attr_kind(it->second) != AttrKind::kStrings)
    throw ShapeError(cat("FusedElementwise: attribute '", name, "' must be strings"));
  return std::get<std::vector<std::string>>(it->second);
}

}  // namespace

std::vector<ChainStep> decode_chain(const Attrs& a) {
  auto bad = [](const std::string& why) { return ShapeError(cat("FusedElementwise: ", why)); };
  const std::vector<std::string> ops = strings_attr(a, "ops");
  const std::vector<int64_t>& opsets = a.ints("opsets");
  const std::vector<int64_t>& arity = a.ints("arity");
  const std::vector<int64_t>& args = a.ints("args");
  if (ops.empty() || opsets.size() != ops.size() || arity.size() != ops.size())
    throw bad(cat("ops, opsets and arity must have one entry per step (", ops.size(), ", ",
                  opsets.size(), ", ", arity.size(), ")"));
  std::vector<ChainStep> steps(ops.size());
  size_t at = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    ChainStep& s = steps[k];
    const size_t dot = ops[k].rfind('.');
    s.domain = dot == std::string::npos ? "" : ops[k].substr(0, dot);
    s.type = dot == std::string::npos ? ops[k] : ops[k].substr(dot + 1);
    s.opset = static_cast<int>(opsets[k]);
    if (arity[k] < 0 || at + static_cast<size_t>(arity[k]) > args.size())
      throw bad(cat("step ", k, " (", ops[k], ") has ", arity[k], " operands; args has ",
                    args.size(), " codes in all"));
    s.args.assign(args.begin() + static_cast<int64_t>(at),
                  args.begin() + static_cast<int64_t>(at) + arity[k]);
    at += static_cast<size_t>(arity[k]);
    for (int64_t c : s.args)
      if (c <= chain_step_code(k)) throw bad(cat("step ", k, " reads a later step (code ", c, ")"));
  }
  if (at != args.size()) throw bad(cat("args has ", args.size(), " codes, arity sums to ", at));
  for (const std::string& e : strings_attr(a, "step_attrs")) {
    const size_t c1 = e.find(':'), c2 = e.find(':', c1 + 1), eq = e.find('=', c2 + 1);
    if (c1 == std::string::npos || c2 != c1 + 2 || eq == std::string::npos)
      throw bad(cat("step_attrs entry '", e, "' is not step:kind:name=value"));
    char* end = nullptr;
    const long k = std::strtol(e.c_str(), &end, 10);
    if (end != e.c_str() + c1 || k < 0 || static_cast<size_t>(k) >= steps.size())
      throw bad(cat("step_attrs entry '", e, "' names no step"));
    const std::string name = e.substr(c2 + 1, eq - c2 - 1), value = e.substr(eq + 1);
    Attrs& target = steps[static_cast<size_t>(k)].attrs;
    switch (e[c1 + 1]) {
      case 'i':
        target.set(name, static_cast<int64_t>(std::strtoll(value.c_str(), nullptr, 10)));
        break;
      case 'f':
        target.set(name, std::strtof(value.c_str(), nullptr));
        break;
      case 's':
        target.set(name, value);
        break;
      default:
        throw bad(cat("step_attrs entry '", e, "' has kind '", e[c1 + 1], "' (i, f or s)"));
    }
  }
  return steps;
}

namespace {

struct Step {
  const OpDef* def = nullptr;
  Attrs resolved;
  std::vector<int64_t> args;
};

std::vector<Step> resolve_steps(const Attrs& a, size_t num_inputs) {
  std::vector<Step> steps;
  const std::vector<ChainStep> chain = decode_chain(a);
  for (size_t k = 0; k < chain.size(); ++k) {
    const ChainStep& c = chain[k];
    const OpDef* d = global_registry().find(c.domain, c.type, c.opset);
    const std::string label = cat("FusedElementwise step ", k, " (", c.type, ")");
    if (!d) throw UnsupportedError(cat(label, ": no such op at opset ", c.opset));
    if (!d->has(kElementwise) || !d->tile_kernel_fn)
      throw ShapeError(cat(label, ": not an elementwise tile op"));
    for (int64_t code : c.args)
      if (code >= static_cast<int64_t>(num_inputs))
        throw ShapeError(cat(label, ": reads input ", code, " of ", num_inputs));
    steps.push_back({d, d->resolve(c.attrs), c.args});
  }
  return steps;
}

// Every step's result type, from the fused inputs' types (and their values where known).
std::vector<TensorType> chain_types(const std::vector<Step>& steps,
                                    const std::vector<TensorType>& inputs,
                                    const std::vector<const Tensor*>& values) {
  std::vector<TensorType> res;
  for (size_t k = 0; k < steps.size(); ++k) {
    const Step& s = steps[k];
    std::vector<TensorType> in;
    std::vector<const Tensor*> vals;
    std::vector<DType> dts;
    for (int64_t c : s.args) {
      const auto i = static_cast<size_t>(c);
      in.push_back(c >= 0    ? inputs.at(i)
                   : c == -1 ? TensorType{}
                             : res.at(static_cast<size_t>(-c - 2)));
      vals.push_back(c >= 0 && i < values.size() ? values[i] : nullptr);
      dts.push_back(in.back().dtype);
    }
    try {
      s.def->check_types(dts);
      res.push_back(s.def->infer_fn(InferContext{*s.def, in, s.resolved, vals, 1}).at(0));
    } catch (const ValueUnknownError&) {
      throw;
    } catch (const Error& e) {
      throw ShapeError(cat("FusedElementwise step ", k, " (", s.def->name(), "): ", e.what()));
    }
  }
  return res;
}

// A step type with a concrete shape (ShapeError naming `where` otherwise).
TensorDesc concrete(const TensorType& t, const std::string& where) {
  const auto shape = t.shape ? to_concrete(*t.shape) : std::nullopt;
  if (!shape) throw ShapeError(cat(where, ": a step's shape ", t.str(), " is not concrete"));
  return {t.dtype, *shape};
}

std::vector<TensorType> infer_chain(const InferContext& c) {
  const std::vector<Step> steps = resolve_steps(c.attrs, c.inputs.size());
  return {chain_types(steps, c.inputs, c.values).back()};
}

void chain_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const std::vector<Step> steps = resolve_steps(ctx.attr(), ctx.inputs.size());
  std::vector<TensorType> in_types;
  for (const TensorDesc& d : ctx.inputs) in_types.push_back({d.dtype, to_sym(d.shape)});
  std::vector<TensorDesc> res;  // every step's result
  for (const TensorType& r : chain_types(steps, in_types, ctx.values))
    res.push_back(concrete(r, ctx.str()));
  std::vector<Buf> loaded(ctx.inputs.size()), results;
  for (size_t k = 0; k < steps.size(); ++k) {
    const Step& s = steps[k];
    LaunchContext sc;
    sc.op = s.def;
    sc.attrs = &s.resolved;
    sc.spec = ctx.spec;
    sc.optimize = ctx.optimize;
    sc.outputs = {res[k]};
    std::vector<Buf> bufs;
    for (int64_t c : s.args) {
      const auto i = static_cast<size_t>(c);
      if (c >= 0 && !loaded[i].valid()) loaded[i] = ew_copy_in(t, static_cast<int>(c));
      bufs.push_back(c >= 0 ? loaded[i] : c == -1 ? Buf{} : results[static_cast<size_t>(-c - 2)]);
      sc.inputs.push_back(c >= 0    ? ctx.inputs[i]
                          : c == -1 ? TensorDesc{}
                                    : res[static_cast<size_t>(-c - 2)]);
      sc.values.push_back(c >= 0 && i < ctx.values.size() ? ctx.values[i] : nullptr);
    }
    const std::vector<Buf> out = t.splice(sc, bufs, s.def->tile_kernel_fn);
    if (out.empty() || !out[0].valid())
      throw ShapeError(cat(ctx.str(), ": step ", k, " (", s.def->name(), ") wrote no result"));
    results.push_back(out[0]);
  }
  t.copy_out(0, results.back(), ew_box(ctx, t.tiling(), static_cast<int>(ctx.inputs.size())));
}

// The steps' references in order, each into a tensor of its inferred type; the last into Y.
void ref_chain(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const std::vector<Step> steps = resolve_steps(a, in.size());
  std::vector<TensorType> in_types;
  std::vector<const Tensor*> values;
  for (const Tensor& x : in) {
    in_types.push_back({x.dtype(), to_sym(x.shape())});
    values.push_back(&x);
  }
  const std::vector<TensorType> types = chain_types(steps, in_types, values);
  std::vector<Tensor> res;
  for (size_t k = 0; k < steps.size(); ++k) {
    std::vector<Tensor> ops;
    for (int64_t c : steps[k].args)
      ops.push_back(c >= 0    ? in[static_cast<size_t>(c)]
                    : c == -1 ? Tensor()
                              : res[static_cast<size_t>(-c - 2)]);
    Tensor y = out[0];
    if (k + 1 < steps.size()) {
      const TensorDesc d = concrete(types[k], "FusedElementwise reference");
      y = Tensor(d.dtype, d.shape);
    }
    Tensor outs[1] = {y};
    steps[k].def->reference_fn(steps[k].resolved, ops, outs);
    res.push_back(y);
  }
}

}  // namespace

void add_elementwise(Registry& r) {
  r.add(def_op("FusedElementwise", 1, INT_MAX, kDomain)
            .input("inputs", "T", Arity::kVariadic)
            .heterogeneous()
            .output("Y", "T")
            .attr("ops", AttrKind::kStrings)
            .attr("opsets", AttrKind::kInts)
            .attr("arity", AttrKind::kInts)
            .attr("args", AttrKind::kInts)
            .attr("step_attrs", AttrKind::kStrings, AttrValue{std::vector<std::string>{}})
            .type_constraint("T", numeric_bool_types())
            .trait(kElementwise | kBroadcast)
            .describe("a chain of elementwise ops (attributes ops, opsets, arity, args, "
                      "step_attrs) spliced into one tile program (fused elementwise)")
            .infer(infer_chain)
            .tiling(elementwise_tiling)
            .kernel(chain_kernel)
            .reference(ref_chain));
}

}  // namespace asc::fused

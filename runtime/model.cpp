#include "runtime/model.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/fusion.h"
#include "runtime/graph_passes.h"
#include "runtime/op_runner.h"
#include "runtime/precision.h"
#ifdef ASC_WITH_CANN
#include "runtime/devices/ascend/acl_device.h"
#endif

namespace asc {

Model::Model(Graph graph, ModelOptions options)
    : graph_(std::move(graph)),
      options_(std::move(options)),
      plans_(options_.plan_cache),
      programs_(options_.program_cache) {
  if (options_.device == "ascend") {
#ifdef ASC_WITH_CANN
    acl_ = std::make_shared<ascend::AclDevice>();
#else
    throw Error(
        cat("device 'ascend' is not available: asc was built without CANN (configure "
            "with -DASC_WITH_CANN=ON and ASCEND_HOME_PATH set to the CANN toolkit; "
            "devices: ",
            sim::device_names(), ")"));
#endif
  } else if (options_.device != "cpu") {
    sim_ = std::make_unique<sim::SimDevice>(options_.device);
  }
  if (options_.timing_only && !sim_)
    throw Error(cat("timing-only needs a simulated device (devices: ", sim::device_names(), ")"));
  device_ = std::make_unique<cpu::CpuDevice>(options_.threads);
  spec_ = sim_ ? sim_->spec() : acl_ ? ascend910b() : device_->spec();
  graph_.topo_order();  // refuse cycles and dangling inputs at load
  std::vector<int> expose;
  for (const std::string& name : options_.expose) {
    const int v = graph_.find(name);
    if (v < 0) throw ModelError(cat("expose: the model has no value named '", name, "'"));
    expose.push_back(v);
  }
  eliminate_dead_nodes(graph_, expose);
  load_subgraphs();
  fold_constants(graph_, *device_);
  if (options_.last_logits_only) keep_last_position(graph_, "logits");  // before fusion: a MatMul
  if (options_.optimize && options_.fusion) {  // exposed values are the fusion's keep-set
    FuseOptions fo;
    fo.keep = expose;
    fusion_ = fuse(graph_, fo);
  }
  std::function<bool(const std::string&)> low_io;
  if (options_.kv_cache_precision)
    low_io = [](const std::string& name) {
      return name.rfind("past_key_values.", 0) == 0 || name.rfind("present.", 0) == 0;
    };
  WeightPacking packing;
  // Weights that need no conversion pack only into a weight cache: otherwise they stay mapped
  // from the model file.
  if (options_.pack_weights && !sim_ && !acl_)
    packing = plan_weight_packing(graph_, options_.precision, !options_.weight_cache.file.empty());
  device_->run([&] {  // model threads
    convert_precision(graph_, options_.precision, low_io, options_.weight_cache,
                      packing.empty() ? nullptr : &packing);
  });
  if (!packing.empty()) use_packed_weights(graph_, packing);
  if (options_.pack_weights && !sim_ && !acl_) pack_conv_weights(graph_);
  // Exposed values still produced (or folded into constants) become outputs after the model's.
  for (int v : expose) {
    const bool survives = graph_.values[v].producer >= 0 || graph_.values[v].constant;
    if (!survives ||
        std::find(graph_.outputs.begin(), graph_.outputs.end(), v) != graph_.outputs.end())
      continue;
    graph_.outputs.push_back(v);
    exposed_.push_back(graph_.values[v].name);
  }
  // Graph inputs whose values shape the plan: those reaching a value-needed parameter through
  // data edges (not through ops that read only types, such as Shape).
  std::vector<bool> needed(graph_.values.size(), false);
  for (const Node& n : graph_.nodes)
    for (size_t k = 0; k < n.inputs.size() && n.def; ++k) {
      const auto& params = n.def->inputs;
      if (n.inputs[k] >= 0 && !params.empty() &&
          params[std::min(k, params.size() - 1)].value_needed)
        needed[n.inputs[k]] = true;
    }
  const std::vector<int> order = graph_.topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& n = graph_.nodes[*it];
    bool feeds = false;
    for (int o : n.outputs) feeds = feeds || (o >= 0 && needed[o]);
    if (!feeds || (n.def && n.def->has(kShapeOf))) continue;
    for (int v : n.inputs)
      if (v >= 0) needed[v] = true;
  }
  value_inputs_.assign(graph_.inputs.size(), false);
  for (size_t i = 0; i < graph_.inputs.size(); ++i) value_inputs_[i] = needed[graph_.inputs[i]];

  // Values every consumer reads through strides (ParamDef::strided); graph outputs are read by
  // the caller, who gets the view back.
  auto param = [](const std::vector<ParamDef>& ps, size_t k) -> const ParamDef* {
    return ps.empty() ? nullptr : &ps[std::min(k, ps.size() - 1)];
  };
  std::vector<bool> read_strided(graph_.values.size(), true);
  for (const Node& n : graph_.nodes)
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0) {
        const ParamDef* p = n.def ? param(n.def->inputs, k) : nullptr;
        read_strided[n.inputs[k]] = read_strided[n.inputs[k]] && p && p->strided;
      }
  strided_inputs_.assign(graph_.inputs.size(), false);
  for (size_t i = 0; i < graph_.inputs.size(); ++i)
    strided_inputs_[i] =
        read_strided[graph_.inputs[i]] && std::find(graph_.outputs.begin(), graph_.outputs.end(),
                                                    graph_.inputs[i]) == graph_.outputs.end();
  strided_outputs_.assign(graph_.outputs.size(), false);
  for (size_t o = 0; o < graph_.outputs.size(); ++o) {
    const int v = graph_.outputs[o], prod = graph_.values[v].producer;
    if (prod < 0 || !read_strided[v] || !graph_.nodes[prod].def) continue;
    const Node& n = graph_.nodes[prod];
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k] == v) {
        const ParamDef* p = param(n.def->outputs, k);
        strided_outputs_[o] = p && p->strided;
      }
  }
}

Model::~Model() = default;

ArenaPool::Buffer ArenaPool::take(size_t bytes) {
  bytes = std::max<size_t>((bytes + 63) / 64 * 64, 64);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The smallest free buffer that fits.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->bytes >= bytes && (best == free_.end() || it->bytes < best->bytes)) best = it;
    if (best != free_.end()) {
      Buffer b = std::move(*best);
      free_.erase(best);
      return b;
    }
  }
  Buffer b{std::unique_ptr<std::byte, void (*)(void*)>(
               static_cast<std::byte*>(std::aligned_alloc(64, bytes)), &std::free),
           bytes};
  if (!b.data) throw std::bad_alloc();
  return b;
}

void ArenaPool::give_back(Buffer b) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(b));
  if (free_.size() > kKeep) {  // drop the smallest: the large ones are the costly to fault in
    auto smallest =
        std::min_element(free_.begin(), free_.end(),
                         [](const Buffer& x, const Buffer& y) { return x.bytes < y.bytes; });
    free_.erase(smallest);
  }
}

std::shared_ptr<const Plan> Model::plan_for(const std::vector<TensorDesc>& inputs,
                                            const std::vector<const Tensor*>& values,
                                            const std::vector<Shape>& output_strides) const {
  const std::string key = shape_signature(inputs, values, output_strides);
  if (auto plan = plans_.find(key)) return plan;
  // Planning runs outside the lock; two threads may plan the same signature, the first wins.
  const NodeEval eval = [this](const Node& n, const Attrs& resolved, std::span<const Tensor> ins) {
    OpRunOptions o;
    o.num_outputs = n.outputs.size();
    return run_op(*n.def, resolved, ins, *device_, o);
  };
  // The last plan used is the base: a decoding step differs from it in a few nodes only.
  const std::shared_ptr<const Plan> base = plans_.most_recent();
  Plan plan = make_plan(graph_, inputs, spec_, options_.optimize, values, &eval, &programs_,
                        output_strides, base.get());
  if (sim_) plan.cost = sim_->predict(graph_, plan);
#ifdef ASC_WITH_CANN
  if (acl_) plan.device = acl_->prepare(plan);  // compiles and loads the kernels
#endif
  return plans_.insert(key, std::make_shared<const Plan>(std::move(plan)));
}

void Model::run_step(const Plan& plan, size_t index, const std::vector<Tensor>& bound) const {
  const PlanStep& s = plan.steps[index];
  if (s.view) return;  // its output is bound to its input's memory
  const Node& n = graph_.nodes[s.node];
  std::vector<Tensor> ins, outs;
  for (int v : n.inputs) ins.push_back(v >= 0 ? bound[v] : Tensor());
  for (size_t k = 0; k < n.outputs.size(); ++k)
    outs.push_back(n.outputs[k] >= 0 ? bound[n.outputs[k]]
                                     : Tensor(s.out[k].dtype, s.out[k].shape));
  try {
    if (s.program) {
      std::vector<void*> args;
      for (auto& t : ins) args.push_back(t.data());
      for (auto& t : outs) args.push_back(t.data());
#ifdef ASC_WITH_CANN
      if (acl_) return acl_->launch(plan, index, args);
#endif
      device_->launch(*s.program, args);
    } else {
      LaunchContext ctx;
      ctx.op = n.def;
      ctx.inputs = s.in;
      ctx.outputs = s.out;
      ctx.attrs = &s.attrs;
      ctx.spec = &spec_;
      for (auto& t : ins) ctx.values.push_back(t.defined() ? &t : nullptr);
      const cpu::CpuDevice& dev = *device_;
      ctx.parallel_for = [&dev](int64_t k, const std::function<void(int64_t, int64_t)>& body) {
        dev.parallel_for(k, body);
      };
      device_->run([&] { n.def->host_kernel_fn(ctx, ins, outs); });
    }
  } catch (const Error& e) {
    throw Error(cat("node ", n.label(), ": ", e.what()));
  }
}

std::vector<NamedTensor> Model::run_dynamic(const std::vector<const Tensor*>& fed,
                                            const std::vector<NamedTensor>& outputs,
                                            RunStats* stats) const {
  std::vector<Tensor> bound(graph_.values.size());
  for (size_t i = 0; i < fed.size(); ++i) bound[graph_.inputs[i]] = *fed[i];
  for (size_t v = 0; v < graph_.values.size(); ++v)
    if (graph_.values[v].constant) bound[v] = *graph_.values[v].constant;
  for (int i : graph_.topo_order()) {
    const Node& n = graph_.nodes[i];
    std::vector<Tensor> ins;
    for (int v : n.inputs) ins.push_back(v >= 0 ? bound[v] : Tensor());
    StepTiming st;
    st.node = i;
    st.thread = std::this_thread::get_id();
    st.start = std::chrono::steady_clock::now();
    std::vector<Tensor> outs;
    std::shared_ptr<const TileProgram> launched;
    try {
      if (!n.def) throw UnsupportedError(cat("op ", n.op_type, " is not supported"));
      if (n.def->has(kControlFlow)) {
        outs = run_control_flow(n, ins, stats, sim_ ? &st.cost : nullptr);
      } else {
        // Planned as a plan's step would be: the model's spec and optimisation level.
        OpRunOptions o;
        o.num_outputs = n.outputs.size();
        o.optimize = options_.optimize;
        o.spec = spec_;
        if (sim_ || (stats && stats->on_step))
          o.on_program = [&](const TileProgram& p) {
            launched = std::make_shared<const TileProgram>(p);
          };
        device_->run([&] { outs = run_op(*n.def, n.attrs, ins, *device_, o); });
        if (sim_) {
          PlanStep ps;
          ps.node = i;
          for (const Tensor& t : ins) ps.in.push_back(t.defined() ? t.desc() : TensorDesc{});
          for (const Tensor& t : outs) ps.out.push_back(t.desc());
          ps.program = launched;
          st.cost = sim_->predict(graph_, ps);
        }
      }
    } catch (const Error& e) {
      std::string shapes;
      for (size_t k = 0; k < ins.size(); ++k)
        shapes += cat(k ? ", " : "", ins[k].defined() ? ins[k].desc().str() : "-");
      throw ShapeError(cat(n.label(), " [", n.domain.empty() ? "ai.onnx" : n.domain, " opset ",
                           n.opset, "] inputs (", shapes, "): ", e.what()));
    }
    st.end = std::chrono::steady_clock::now();
    if (stats) {
      stats->steps.push_back(st);
      if (stats->on_step && !n.def->has(kControlFlow)) stats->on_step(n, launched.get());
    }
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k)
      if (n.outputs[k] >= 0) bound[n.outputs[k]] = std::move(outs[k]);
  }
  std::vector<NamedTensor> result;
  for (int v : graph_.outputs) {
    const std::string& name = graph_.values[v].name;
    Tensor t = bound[v];
    bool copied = false;
    for (const auto& o : outputs)
      if (o.name == name) {
        if (o.tensor.dtype() != t.dtype() || o.tensor.shape() != t.shape())
          throw ShapeError(cat("output buffer '", o.name, "' is ", o.tensor.desc().str(),
                               ", the model produces ", t.desc().str()));
        Tensor dst = o.tensor;
        dst.assign(t);  // strings and strided views included
        result.push_back({name, dst});
        copied = true;
      }
    if (copied) continue;
    // An input or constant passed through is copied; so is a sequence or optional, whose
    // elements may be the caller's inputs.
    if (graph_.values[v].producer < 0 || t.list()) t = t.clone();
    result.push_back({name, t});
  }
  return result;
}

std::vector<NamedTensor> Model::run(const std::vector<NamedTensor>& inputs,
                                    const std::vector<NamedTensor>& outputs,
                                    RunStats* stats) const {
  // Inputs in graph order.
  std::vector<const Tensor*> fed(graph_.inputs.size(), nullptr);
  for (const auto& nt : inputs) {
    bool found = false;
    for (size_t i = 0; i < graph_.inputs.size(); ++i)
      if (graph_.values[graph_.inputs[i]].name == nt.name) {
        fed[i] = &nt.tensor;
        found = true;
      }
    if (!found) throw ShapeError(cat("the model has no input named '", nt.name, "'"));
  }
  // Strided views: kept when every consumer reads them through strides, else made dense.
  std::vector<Tensor> dense;
  dense.reserve(fed.size());
  std::vector<TensorDesc> descs;
  for (size_t i = 0; i < fed.size(); ++i) {
    if (!fed[i])
      throw ShapeError(cat("input '", graph_.values[graph_.inputs[i]].name, "' is not given"));
    if (!fed[i]->is_contiguous() && !strided_inputs_[i]) {
      dense.push_back(fed[i]->clone());
      fed[i] = &dense.back();
    }
    descs.push_back(fed[i]->desc());
  }
  // Strided output buffers their producer writes through (else copied into after the run).
  std::vector<Shape> out_strides(graph_.outputs.size());
  for (const auto& o : outputs)
    for (size_t k = 0; k < graph_.outputs.size(); ++k)
      if (!o.tensor.is_contiguous() && strided_outputs_[k] &&
          graph_.values[graph_.outputs[k]].name == o.name)
        out_strides[k] = o.tensor.strides();
  // Small inputs that shape the plan key it by value; a large one leaves its consumers to be
  // planned while running.
  std::vector<const Tensor*> values(fed.size(), nullptr);
  for (size_t i = 0; i < fed.size(); ++i)
    if (value_inputs_[i] && fed[i]->numel() <= kFoldMaxElements) values[i] = fed[i];
  const std::shared_ptr<const Plan> plan = plan_for(descs, values, out_strides);
  if (!plan->dynamic.empty() && options_.timing_only)
    throw Error(cat("timing-only: the plan depends on values computed while running (",
                    plan->dynamic, "); it cannot be predicted without executing"));
  if (!plan->dynamic.empty()) return run_dynamic(fed, outputs, stats);
  if (options_.timing_only) return predict_only(*plan, outputs, stats);

  // Bind every value to memory.
  std::vector<Tensor> bound(graph_.values.size());
  for (size_t i = 0; i < fed.size(); ++i) bound[graph_.inputs[i]] = *fed[i];
  // Activations need no zeroing: every arena value is written by its producer before use. The
  // arena comes from the model's pool (no allocation or page faults per run once warm).
  ArenaLease arena(arenas_, static_cast<size_t>(plan->arena_bytes));
  std::vector<NamedTensor> result;
  std::vector<Tensor> given(graph_.values.size());  // caller buffers of outputs
  for (size_t v = 0; v < graph_.values.size(); ++v) {
    const TensorDesc& d = plan->desc[v];
    switch (plan->storage[v]) {
      case Storage::kConstant:
        bound[v] = plan->known[v];
        break;
      case Storage::kArena:
        bound[v] = Tensor::wrap(d.dtype, d.shape, arena.data() + plan->offset[v]);
        break;
      case Storage::kOutput: {
        for (const auto& o : outputs)
          if (o.name == graph_.values[v].name) {
            if (o.tensor.dtype() != d.dtype || o.tensor.shape() != d.shape)
              throw ShapeError(cat("output buffer '", o.name, "' is ", o.tensor.desc().str(),
                                   ", the model produces ", d.str()));
            given[v] = o.tensor;
            // A strided buffer the plan does not write through: dense memory, copied after.
            if (o.tensor.is_contiguous() || o.tensor.strides() == d.strides) bound[v] = o.tensor;
          }
        if (!bound[v].defined()) bound[v] = Tensor(d.dtype, d.shape);
        break;
      }
      default:
        break;
    }
  }
  // Execute level by level; the steps of one level are independent and run in parallel.
  const size_t stats_base = stats ? stats->steps.size() : 0;
  if (stats) stats->steps.resize(stats_base + plan->steps.size());
  auto step = [&](size_t k) {
    if (!stats) return run_step(*plan, k, bound);
    StepTiming& st = stats->steps[stats_base + k];  // one slot per step: no lock
    st.node = plan->steps[k].node;
    st.thread = std::this_thread::get_id();
    st.start = std::chrono::steady_clock::now();
    run_step(*plan, k, bound);
    st.end = std::chrono::steady_clock::now();
    if (k < plan->cost.size()) st.cost = plan->cost[k];
    if (stats->on_step) stats->on_step(graph_.nodes[st.node], plan->steps[k].program.get());
  };
  std::vector<size_t> work;  // the level's steps that run something (views do not)
  for (size_t i = 0; i < plan->steps.size();) {
    size_t j = i + 1;
    while (j < plan->steps.size() && plan->steps[j].level == plan->steps[i].level) ++j;
    work.clear();
    for (size_t k = i; k < j; ++k) {
      if (plan->steps[k].view)
        step(k);  // nothing runs; the profile still lists it
      else
        work.push_back(k);
    }
    if (work.size() == 1 || acl_) {  // the ascend device: one stream, one step at a time
      for (size_t k : work) step(k);
    } else if (!work.empty()) {
      device_->run(
          [&] { tbb::parallel_for(size_t{0}, work.size(), [&](size_t w) { step(work[w]); }); });
    }
    i = j;
  }
  for (int v : graph_.outputs) {
    Tensor t = bound[v];
    if (plan->storage[v] != Storage::kOutput) {
      t = t.clone();  // an input or constant: copy
    } else if (given[v].defined() && given[v].data() != t.data()) {
      given[v].assign(t);  // into the caller's strided view
      t = given[v];
    }
    result.push_back({graph_.values[v].name, t});
  }
  return result;
}

std::vector<NamedTensor> Model::predict_only(const Plan& plan,
                                             const std::vector<NamedTensor>& outputs,
                                             RunStats* stats) const {
  if (stats) {
    const auto now = std::chrono::steady_clock::now();
    for (size_t k = 0; k < plan.steps.size(); ++k) {
      StepTiming st;
      st.node = plan.steps[k].node;
      st.thread = std::this_thread::get_id();
      st.start = st.end = now;
      if (k < plan.cost.size()) st.cost = plan.cost[k];
      stats->steps.push_back(st);
      if (stats->on_step) stats->on_step(graph_.nodes[st.node], plan.steps[k].program.get());
    }
  }
  std::vector<NamedTensor> result;
  for (int v : graph_.outputs) {
    const std::string& name = graph_.values[v].name;
    Tensor t;
    for (const auto& o : outputs)
      if (o.name == name) t = o.tensor;
    if (!t.defined()) t = Tensor(plan.desc[v].dtype, plan.desc[v].shape);
    result.push_back({name, t});
  }
  return result;
}

}  // namespace asc

#include "runtime/model.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/cpu/conv_5hd.h"
#include "runtime/fusion.h"
#include "runtime/graph_passes.h"
#include "runtime/layout_5hd.h"
#include "runtime/op_runner.h"
#include "runtime/precision.h"

namespace asc {

Model::Model(Graph graph, ModelOptions options)
    : Model(std::move(graph), std::move(options), {}, {}) {}

Model::Model(Graph graph, ModelOptions options, std::shared_ptr<cpu::CpuDevice> host,
             std::shared_ptr<Device> kernels)
    : graph_(std::move(graph)),
      options_(std::move(options)),
      plans_(options_.plan_cache),
      programs_(options_.program_cache) {
  kernels_ = kernels ? std::move(kernels) : make_kernel_device(options_.device);
  std::string predict = options_.predict;
  if (is_predictor(options_.device)) {  // the cpu under that predictor
    if (!predict.empty() && predict != options_.device)
      throw Error(cat("device ", options_.device, " is predicted by itself, not by ", predict));
    predict = options_.device;
  }
  if (!predict.empty()) predictor_ = make_predictor(predict);
  if (options_.timing_only && !predictor_)
    throw Error(cat("timing-only needs a predictor (sim:910b; devices: ", device_names(), ")"));
  device_ = host ? std::move(host) : std::make_shared<cpu::CpuDevice>(options_.threads);
  if (!kernels_) kernels_ = device_;
  if (predictor_ && kernels_ != device_ && kernels_->spec().name != predictor_->spec().name)
    throw Error(cat("device ", kernels_->name(), " runs plans for ", kernels_->spec().name, ", ",
                    predictor_->name(), " predicts plans for ", predictor_->spec().name));
  spec_ = predictor_ ? predictor_->spec() : kernels_->spec();
  const bool on_cpu = !predictor_ && kernels_ == device_;  // the cpu's own weight layouts apply
  graph_.topo_order();  // refuse cycles and dangling inputs at load
  std::vector<int> expose;
  for (const std::string& name : options_.expose) {
    const int v = graph_.find(name);
    if (v < 0) throw ModelError(cat("expose: the model has no value named '", name, "'"));
    expose.push_back(v);
  }
  eliminate_dead_nodes(graph_, expose);
  fold_constants(graph_, *device_);
  load_subgraphs();  // after folding: folded values they read become their constants
  if (options_.last_logits_only) keep_last_position(graph_, "logits");  // before fusion: a MatMul
  if (options_.optimize && options_.fusion) {  // exposed values are the fusion's keep-set
    bypass_inference_dropouts(graph_, expose);
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
  // Weights that need no conversion pack into a weight cache, or at load when they are few
  // bytes; otherwise they stay mapped from the model file.
  if (options_.pack_weights && on_cpu)
    packing = plan_weight_packing(graph_, options_.precision, !options_.weight_cache.file.empty(),
                                  options_.pack_copy_limit);
  device_->run([&] {  // model threads
    convert_precision(graph_, options_.precision, low_io, options_.weight_cache,
                      packing.empty() ? nullptr : &packing);
  });
  if (!packing.empty()) use_packed_weights(graph_, packing);
  if (options_.conv_layout != "nchw" && options_.conv_layout != "5hd")
    throw Error(cat("conv layout '", options_.conv_layout, "': nchw or 5hd"));
  if (options_.conv_layout == "5hd" && options_.optimize && options_.pack_weights && on_cpu) {
    convert_to_5hd(graph_, expose, cpu::kConv5hdPanel, 1);  // the cpu's 5HD kernel's panels
  }
  if (options_.pack_weights && on_cpu)
    pack_conv_weights(graph_, std::min(spec_.l0a_bytes, spec_.l0b_bytes));
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
  ++allocations_;
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
  ++plan_lookups_;
  const std::string key = shape_signature(inputs, values, output_strides);
  if (auto plan = plans_.find(key)) return plan;
  // Planning runs outside the lock; two threads may plan the same signature, the first wins.
  const NodeEval eval = [this](const Node& n, const Attrs& resolved, std::span<const Tensor> ins) {
    OpRunOptions o;
    o.num_outputs = n.outputs.size();
    return run_op(*n.def, resolved, ins, *device_, o);
  };
  const ControlFlowPlanner control = [this](const Node& n, std::span<const Tensor> probes,
                                            PlanStep& s) { plan_control_flow(n, probes, s); };
  // The last plan used is the base: a decoding step differs from it in a few nodes only.
  const std::shared_ptr<const Plan> base = plans_.most_recent();
  Plan plan = make_plan(graph_, inputs, spec_, options_.optimize, values, &eval, &programs_,
                        output_strides, base.get(), &control);
  ++plans_made_;
  plan.frames = std::make_shared<RunFramePool>();
  if (predictor_) plan.cost = predictor_->predict(graph_, plan);
  // The device compiles its kernels (Ascend) or lowers its programs (cpu); a timing-only plan
  // is predicted, never run.
  if (!options_.timing_only) plan.device = kernels_->prepare(plan);
  return plans_.insert(key, std::make_shared<const Plan>(std::move(plan)));
}

}  // namespace asc

// Running a model: run() resolves inputs and the plan, execute() runs a plan on a frame kept with
// it (runtime/run_frame.h), run_dynamic() goes node by node where shapes depend on computed data.
#include <tbb/parallel_for.h>

#include <algorithm>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/model.h"
#include "runtime/op_runner.h"

namespace asc {

namespace {

// A view typed as planned, pointing nowhere until a run aims it (Tensor::set_data).
Tensor planned_view(const TensorDesc& d) {
  return d.strides.empty() ? Tensor::wrap(d.dtype, d.shape, nullptr)
                           : Tensor::strided(d.dtype, d.shape, d.strides, nullptr);
}

}  // namespace

void Model::prepare_frame(const Plan& plan, RunFrame& f) const {
  const size_t nv = graph_.values.size();
  f.bound.assign(nv, Tensor());
  f.arena_values.clear();
  for (size_t v = 0; v < nv; ++v) {
    switch (plan.storage[v]) {
      case Storage::kConstant:
        f.bound[v] = plan.known[v];
        break;
      case Storage::kArena:
        f.arena_values.push_back(static_cast<int>(v));
        [[fallthrough]];
      case Storage::kInput:
      case Storage::kOutput:
        f.bound[v] = planned_view(plan.desc[v]);
        break;
      default:
        break;
    }
  }
  f.first_output.assign(graph_.outputs.size(), 0);
  for (size_t k = 0; k < graph_.outputs.size(); ++k) {
    f.first_output[k] = k;
    for (size_t j = 0; j < k && f.first_output[k] == k; ++j)
      if (graph_.outputs[j] == graph_.outputs[k]) f.first_output[k] = j;
  }
  f.steps.clear();
  f.steps.resize(plan.steps.size());
  f.level_begin.clear();
  f.level_work.clear();
  f.level_bytes.clear();
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& s = plan.steps[k];
    if (k == 0 || s.level != plan.steps[k - 1].level) {
      f.level_begin.push_back(k);
      f.level_work.emplace_back();
      f.level_bytes.push_back(0);
    }
    if (s.view) continue;
    f.level_work.back().push_back(k);
    f.level_bytes.back() += s.bytes;
    const Node& n = graph_.nodes[s.node];
    RunFrame::Step& fs = f.steps[k];
    for (int v : n.inputs) fs.ins.push_back(v >= 0 ? f.bound[v] : Tensor());
    for (size_t j = 0; j < n.outputs.size(); ++j) {
      const int v = n.outputs[j];
      fs.outs.push_back(v >= 0 ? f.bound[v] : Tensor(s.out[j].dtype, s.out[j].shape));
    }
    if (s.program) {
      fs.args.resize(fs.ins.size() + fs.outs.size());
    } else if (s.bodies.empty()) {
      auto ctx = std::make_unique<LaunchContext>();
      ctx->op = n.def;
      ctx->inputs = s.in;
      ctx->outputs = s.out;
      ctx->attrs = &s.attrs;
      ctx->spec = &spec_;
      for (const Tensor& t : fs.ins) ctx->values.push_back(t.defined() ? &t : nullptr);
      const cpu::CpuDevice* dev = device_.get();
      ctx->parallel_for = [dev](int64_t m, const std::function<void(int64_t, int64_t)>& body) {
        dev->parallel_for(m, body);
      };
      ctx->launch_program = [dev](const TileProgram& p, std::span<void* const> args) {
        dev->launch(p, args);
      };
      ctx->launch_sequence = [dev](std::span<const ProgramLaunch> l) { dev->launch_sequence(l); };
      for (int v : n.inputs)
        ctx->constant.push_back(v >= 0 && plan.storage[v] == Storage::kConstant);
      fs.ctx = std::move(ctx);
    }
  }
  f.level_begin.push_back(plan.steps.size());
  f.ready = true;
}

void Model::run_step(const Plan& plan, size_t index, RunFrame& f, const RunStats* stats,
                     StepTiming* st) const {
  const PlanStep& s = plan.steps[index];
  if (s.view) return;  // its output is bound to its input's memory
  const Node& n = graph_.nodes[s.node];
  RunFrame::Step& fs = f.steps[index];
  for (size_t j = 0; j < n.inputs.size(); ++j) {
    const int v = n.inputs[j];
    if (v >= 0 && plan.storage[v] != Storage::kConstant) fs.ins[j].set_data(f.bound[v].data());
  }
  for (size_t j = 0; j < n.outputs.size(); ++j)
    if (n.outputs[j] >= 0) fs.outs[j].set_data(f.bound[n.outputs[j]].data());
  try {
    if (!s.bodies.empty()) {
      run_planned_control_flow(n, s, fs, stats, st ? &st->cost : nullptr);
    } else if (s.program) {
      size_t a = 0;
      for (Tensor& t : fs.ins) fs.args[a++] = t.data();
      for (Tensor& t : fs.outs) fs.args[a++] = t.data();
      if (!kernels_->launch(plan, index, fs.args)) device_->launch(*s.program, fs.args);
    } else {
      n.def->host_kernel_fn(*fs.ctx, fs.ins, fs.outs);
    }
  } catch (const Error& e) {
    throw Error(cat("node ", n.label(), ": ", e.what()));
  }
}

void Model::execute(const Plan& plan, std::span<const Tensor* const> fed, std::span<Tensor> outputs,
                    RunStats* stats) const {
  FrameLease lease(plan.frames.get());
  RunFrame& f = *lease;
  if (!f.ready) prepare_frame(plan, f);
  // Activations need no zeroing: every arena value is written by its producer before use. The
  // arena comes from the model's pool (no allocation or page faults per run once warm).
  ArenaLease arena(arenas_, static_cast<size_t>(plan.arena_bytes));
  for (size_t i = 0; i < fed.size(); ++i)
    f.bound[graph_.inputs[i]].set_data(const_cast<void*>(fed[i]->data()));
  for (int v : f.arena_values) f.bound[v].set_data(arena.data() + plan.offset[v]);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const int v = graph_.outputs[k];
    if (plan.storage[v] != Storage::kOutput || f.first_output[k] != k) continue;
    if (!outputs[k].defined())  // written in full by its producer, as the arena's values are
      outputs[k] = Tensor::uninitialized(plan.desc[v].dtype, plan.desc[v].shape);
    f.bound[v].set_data(outputs[k].data());
  }

  const size_t stats_base = stats ? stats->steps.size() : 0;
  if (stats) stats->steps.resize(stats_base + plan.steps.size());
  auto step = [&](size_t k) {
    if (!stats) return run_step(plan, k, f, nullptr, nullptr);
    StepTiming& st = stats->steps[stats_base + k];  // one slot per step: no lock
    const bool control = !plan.steps[k].bodies.empty();
    st.node = plan.steps[k].node;
    st.thread = std::this_thread::get_id();
    st.start = std::chrono::steady_clock::now();
    if (!control && k < plan.cost.size()) st.cost = plan.cost[k];
    run_step(plan, k, f, stats, predictor_ ? &st : nullptr);  // control flow: its bodies' costs
    st.end = std::chrono::steady_clock::now();
    if (stats->on_step && !control)
      stats->on_step(graph_.nodes[st.node], plan.steps[k].program.get());
  };
  // Level by level; the steps of one level are independent. A level spreads over the device's
  // threads only when it moves enough bytes to pay for the hand-off (DeviceSpec::inline_bytes);
  // the ascend device runs one step at a time on its one stream.
  const int64_t inline_bytes = device_->spec().inline_bytes;
  const bool spread = device_->threads() > 1 && kernels_->concurrent();
  // A step that spreads over every core by itself: a tile program of at least as many tiles as
  // threads, moving enough bytes to hand tiles off. A level of only such steps runs them one
  // after another: side by side, each got part of the cores and the larger one's tiles waited
  // behind the smaller (squeezenet's expand 1x1 beside its 3x3, 9x the work; resnet's downsample
  // beside its strided 3x3): squeezenet1_1 4 %, resnet18 1 % faster on two threads.
  const auto fills_cores = [&](size_t k) {
    const PlanStep& s = plan.steps[k];
    return s.program && s.program->num_tiles() >= device_->threads() && s.bytes >= inline_bytes;
  };
  auto levels = [&] {
    for (size_t l = 0; l + 1 < f.level_begin.size(); ++l) {
      if (stats)  // views run nothing; the profile still lists them
        for (size_t k = f.level_begin[l]; k < f.level_begin[l + 1]; ++k)
          if (plan.steps[k].view) step(k);
      const std::vector<size_t>& work = f.level_work[l];
      if (!spread || work.size() <= 1 || f.level_bytes[l] < inline_bytes ||
          std::all_of(work.begin(), work.end(), fills_cores)) {
        for (size_t k : work) step(k);
      } else {
        tbb::parallel_for(size_t{0}, work.size(), [&](size_t w) { step(work[w]); });
      }
    }
  };
  device_->run([&levels] { levels(); });  // one entry into the device's threads per run

  for (size_t k = 0; k < outputs.size(); ++k) {
    const int v = graph_.outputs[k];
    if (plan.storage[v] == Storage::kOutput) {
      if (f.first_output[k] == k) continue;  // written in place
      const Tensor& first = outputs[f.first_output[k]];
      if (outputs[k].defined())
        outputs[k].assign(first);
      else
        outputs[k] = first;
    } else if (outputs[k].defined()) {  // an input or a constant passed through
      outputs[k].assign(f.bound[v]);
    } else {
      outputs[k] = f.bound[v].clone();
    }
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
        outs = run_control_flow(n, ins, stats, predictor_ ? &st.cost : nullptr);
      } else {
        // Planned as a plan's step would be: the model's spec and optimisation level.
        OpRunOptions o;
        o.num_outputs = n.outputs.size();
        o.optimize = options_.optimize;
        o.spec = spec_;
        // An op launching a sequence of programs (OpDef::launches_fn) is predicted from that
        // list, not from its last launch.
        if ((predictor_ || (stats && stats->on_step)) && !n.def->launches_fn)
          o.on_program = [&](const TileProgram& p) {
            launched = std::make_shared<const TileProgram>(p);
          };
        device_->run([&] { outs = run_op(*n.def, n.attrs, ins, *device_, o); });
        if (predictor_) {
          PlanStep ps;
          ps.node = i;
          for (const Tensor& t : ins) ps.in.push_back(t.defined() ? t.desc() : TensorDesc{});
          for (const Tensor& t : outs) ps.out.push_back(t.desc());
          ps.program = launched;
          std::vector<const Tensor*> values;
          for (const Tensor& t : ins) values.push_back(t.defined() ? &t : nullptr);
          st.cost = predictor_->predict(graph_, ps, values);
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
  if (options_.timing_only) {
    for (const PlanStep& s : plan->steps)
      if (!s.bodies.empty())
        throw Error(cat("timing-only: ", graph_.nodes[s.node].label(),
                        " runs subgraphs whose work is known once they run; it cannot be "
                        "predicted without executing"));
    return predict_only(*plan, outputs, stats);
  }

  // Caller buffers: bound as they are when dense or written through by the plan, otherwise given
  // a dense result copied into them after the run.
  std::vector<Tensor> out(graph_.outputs.size()), given(graph_.outputs.size());
  for (size_t k = 0; k < graph_.outputs.size(); ++k) {
    const int v = graph_.outputs[k];
    const TensorDesc& d = plan->desc[v];
    for (const auto& o : outputs) {
      if (o.name != graph_.values[v].name) continue;
      if (o.tensor.dtype() != d.dtype || o.tensor.shape() != d.shape)
        throw ShapeError(cat("output buffer '", o.name, "' is ", o.tensor.desc().str(),
                             ", the model produces ", d.str()));
      given[k] = o.tensor;
      if (o.tensor.is_contiguous() || o.tensor.strides() == d.strides ||
          plan->storage[v] != Storage::kOutput)
        out[k] = o.tensor;
    }
  }
  execute(*plan, fed, out, stats);
  std::vector<NamedTensor> result;
  result.reserve(out.size());
  for (size_t k = 0; k < out.size(); ++k) {
    if (given[k].defined() && given[k].data() != out[k].data()) {
      given[k].assign(out[k]);  // into the caller's strided view
      out[k] = given[k];
    }
    result.push_back({graph_.values[graph_.outputs[k]].name, std::move(out[k])});
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

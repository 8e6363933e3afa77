// Model: a loaded graph, immutable and shared across threads. run() plans once per input-shape
// signature (cached), then executes the plan on the cpu device; concurrent runs are safe.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/fusion.h"
#include "runtime/graph.h"
#include "runtime/plan.h"
#include "runtime/prediction.h"
#include "runtime/run_frame.h"
#include "runtime/weight_cache.h"

namespace asc {

struct ModelOptions {
  int threads = 0;  // 0: all hardware threads
  // "cpu", or "sim:910b": plans under the 910B spec, runs on the cpu and predicts every kernel
  // with the cost model (runtime/devices/sim, docs/SIM.md), or "ascend-emu": plans under the
  // 910B spec and runs the emitted Ascend C kernels on the emulator, or "ascend": the same through
  // ACL (builds with -DASC_WITH_CANN=ON only; docs/ASCENDC.md). Steps an Ascend device does not
  // run (Device::unsupported) and host kernels run on the cpu. Others: Error listing the devices.
  std::string device = "cpu";
  bool optimize = true;  // graph fusion (runtime/fusion.h), double buffering, prefetch
  // kF16 / kBF16: f32 weights and activations are stored in that dtype, computed in f32
  // (runtime/precision.h); kF32 keeps the model's own dtypes.
  DType precision = DType::kF32;
  // Values (by name) to return after the graph outputs, as asc-check reads intermediates. Nodes
  // that reach one are kept by dead-node elimination and fusion never removes one (they are its
  // keep-set: an exposed interior value blocks that fusion); each becomes a graph output
  // (exposed()). It is returned in its stored dtype (f16/bf16 under a low precision). Unknown
  // names: ModelError.
  std::vector<std::string> expose = {};
  // Generation: compute the "logits" output for the last position only (graph_passes.h
  // keep_last_position): a prefill of s tokens then costs one lm_head row, not s. The output's
  // sequence dim becomes 1. Off by default: run() returns what the model says.
  bool last_logits_only = false;
  // Generation under a low `precision`: the KV-cache inputs and outputs (past_key_values.* and
  // present.*) take that dtype too, so the cache is stored at the model's precision and a step
  // neither casts nor copies it. Off by default: run() keeps the model's f32 interface.
  bool kv_cache_precision = false;
  // Plans kept per input-shape signature, and tile programs per node shape shared by them (least
  // recently used evicted): a decoding loop meets a new signature at every step.
  size_t plan_cache = 64;
  size_t program_cache = 16384;
  // Graph fusion when `optimize` is on; off keeps the other optimisations, to compare fused
  // kernels with the chains they replace (asc-run --no-fusion).
  bool fusion = true;
  // Simulated devices only: run() plans and predicts without executing a kernel (no weight is
  // read); outputs are zeros of the planned shapes (caller buffers are left as they are). A plan
  // whose shapes depend on computed values cannot be predicted: Error.
  bool timing_only = false;
  // Where the converted (or packed) weights are kept between loads (runtime/weight_cache.h;
  // weight_cache_for makes the options for a model file). Empty file: every load converts, and
  // weights that need no conversion are not packed.
  WeightCacheOptions weight_cache = {};
  // On the cpu device: store each MatMul weight in the cube kernels' packed layout (f32 or bf16
  // panels), and run those MatMuls as PackedMatMul (runtime/weight_pack.h; asc-run
  // --pack-weights 0 turns it off). Weights that need no conversion (an f32 model under fp32, a
  // bf16 model) are packed with a weight cache, or at every load when they take at most
  // `pack_copy_limit` bytes in all (packing copies them: a ViT's 330 MB, not an LLM's GBs).
  // Convolution weights are packed at every load (pack_conv_weights).
  bool pack_weights = true;
  int64_t pack_copy_limit = int64_t{1} << 30;
  // The layout of the feature maps between convolutions that feed one another: "5hd" (NC1HWC0
  // where enough of them do, runtime/layout_5hd.h; f32 on the cpu device, with `optimize` and
  // `pack_weights`), or "nchw" as the model has it.
  std::string conv_layout = "5hd";
  // A predictor (runtime/prediction.h: "sim:910b") that times every launch of whichever device
  // runs them; the device's spec must be the predictor's (ascend-emu's is sim:910b's), and on
  // the cpu the plans take the predictor's. Empty: none, unless `device` names one.
  std::string predict = {};
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// The timing of one executed plan step (for profiles and traces).
struct StepTiming {
  int node = -1;  // index into Graph::nodes
  std::chrono::steady_clock::time_point start, end;
  std::thread::id thread;  // the thread that launched the step
  KernelCost cost;         // the predictor's (cost.valid), else nothing
};
struct RunStats {
  std::vector<StepTiming> steps;
  // Called for every node executed — by the plan, by a dynamic plan node by node, and inside the
  // runs of If/Loop/Scan/SequenceMap bodies — with the tile program launched for it (null for a
  // host kernel). Steps of one level call it from several threads at once. asc-run
  // --emit-ascendc collects the programs of a run with it.
  std::function<void(const Node&, const TileProgram*)> on_step;
};

// Activation arenas reused across runs: a run leases one at least as large as its plan needs and
// returns it after; at most kKeep stay pooled (concurrent runs lease several).
class ArenaPool {
 public:
  struct Buffer {
    std::unique_ptr<std::byte, void (*)(void*)> data{nullptr, nullptr};
    size_t bytes = 0;
  };
  static constexpr size_t kKeep = 4;
  Buffer take(size_t bytes);
  void give_back(Buffer b);
  // Buffers allocated so far (a steady state of runs allocates none).
  size_t allocations() const { return allocations_.load(); }

 private:
  std::mutex mutex_;
  std::vector<Buffer> free_;
  std::atomic<size_t> allocations_{0};
};

class ArenaLease {
 public:
  ArenaLease(ArenaPool& pool, size_t bytes) : pool_(pool), buf_(pool.take(bytes)) {}
  ~ArenaLease() { pool_.give_back(std::move(buf_)); }
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;
  std::byte* data() const { return buf_.data.get(); }

 private:
  ArenaPool& pool_;
  ArenaPool::Buffer buf_;
};

class Model {
 public:
  // Takes the graph (from an importer); throws Error for an unknown device.
  Model(Graph graph, ModelOptions options);
  ~Model();

  const Graph& graph() const { return graph_; }
  const ModelOptions& options() const { return options_; }
  const cpu::CpuDevice& device() const { return *device_; }
  // The device tile programs run on: device(), or the Ascend device ModelOptions::device names.
  const Device& kernel_device() const { return *kernels_; }
  // The spec plans are tiled for: the cpu's, the kernel device's or the predictor's.
  const DeviceSpec& spec() const { return spec_; }
  // The predictor timing the launches (ModelOptions::predict), or null.
  const Predictor* predictor() const { return predictor_.get(); }
  // The ModelOptions::expose names that survived the load passes and were not graph outputs
  // already, in the order given; run() returns them after the model's own outputs.
  const std::vector<std::string>& exposed() const { return exposed_; }
  // What graph fusion did at load (nothing when ModelOptions::optimize is off).
  const FuseReport& fusion() const { return fusion_; }
  // The nested model of subgraph attribute `attr` of node `n` (a node of graph()); Error when the
  // node has no such subgraph.
  const Model& subgraph(const Node& n, const std::string& attr) const;
  // Plans looked up (plan_for calls) and made (make_plan calls) so far, and the activation arenas
  // allocated (tests: a steady state of runs makes no plan and no arena, and a control-flow body
  // is looked up once per plan of its node, not per run).
  size_t plan_lookups() const { return plan_lookups_.load(); }
  size_t plans_made() const { return plans_made_.load(); }
  size_t arenas_allocated() const { return arenas_.allocations(); }

  // Runs with inputs by name (every graph input must be given; tensors may wrap caller memory).
  // Returns the graph outputs in order. `outputs`, when given, are caller-provided buffers for
  // some outputs by name (written in place). `stats`, when given, gets one StepTiming per plan
  // step appended (plan order; steps of one level may overlap in time on different threads). Throws
  // Error naming node, op and shapes.
  // Inputs and output buffers may be strided views (Tensor::strided). A strided input whose
  // consumers all declare the parameter strided (ParamDef::strided), or a strided output whose
  // producer declares it so (and whose consumers, if any, accept it), is bound as is; otherwise
  // the input is copied to dense memory before the run and the output copied into the caller's
  // view after it (correct, not zero-copy).
  std::vector<NamedTensor> run(const std::vector<NamedTensor>& inputs,
                               const std::vector<NamedTensor>& outputs = {},
                               RunStats* stats = nullptr) const;

  // The plan for these input types (planned once, then cached).
  // `values` as in make_plan: the values of inputs that feed value-needed parameters.
  // `output_strides` as in make_plan (per graph output; empty: dense).
  std::shared_ptr<const Plan> plan_for(const std::vector<TensorDesc>& inputs,
                                       const std::vector<const Tensor*>& values = {},
                                       const std::vector<Shape>& output_strides = {}) const;

 private:
  // Runs node by node, inferring each from the values computed before it (plans whose shapes
  // depend on data computed while running).
  std::vector<NamedTensor> run_dynamic(const std::vector<const Tensor*>& fed,
                                       const std::vector<NamedTensor>& outputs,
                                       RunStats* stats) const;
  // timing_only: the plan's predictions as stats, zeros (or the caller's buffers) as outputs.
  std::vector<NamedTensor> predict_only(const Plan& plan, const std::vector<NamedTensor>& outputs,
                                        RunStats* stats) const;
  // Runs a plan that is not dynamic (runtime/model_exec.cpp) on `fed` (graph input order; the
  // planned dtypes, shapes and strides). outputs[k] (graph output order, outputs.size() ==
  // graph outputs) is written when defined (the planned type and strides); otherwise it receives
  // fresh memory holding the output. `stats` as in run().
  void execute(const Plan& plan, std::span<const Tensor* const> fed, std::span<Tensor> outputs,
               RunStats* stats) const;
  // Builds a frame's bindings for `plan` (its first run).
  void prepare_frame(const Plan& plan, RunFrame& f) const;
  // Runs step `index` of the plan on the frame's bindings; `st`, when given, gets the step's
  // predicted cost of control-flow bodies.
  void run_step(const Plan& plan, size_t index, RunFrame& f, const RunStats* stats,
                StepTiming* st) const;
  // Control-flow nodes in plans (runtime/control_flow_plan.cpp): plans a node's subgraphs for
  // its inputs (a ControlFlowPlanner), and runs the step through their plans.
  void plan_control_flow(const Node& n, std::span<const Tensor> probes, PlanStep& s) const;
  void run_planned_control_flow(const Node& n, const PlanStep& s, RunFrame::Step& fs,
                                const RunStats* stats, KernelCost* cost) const;
  // Runs a control-flow node (If, Loop, Scan) on its inputs through the nested models of its
  // subgraphs (runtime/control_flow.cpp).
  // `stats` (may be null) passes its on_step to the body runs; `cost` (may be null) gets their
  // predicted kernels summed on a simulated device.
  std::vector<Tensor> run_control_flow(const Node& n, const std::vector<Tensor>& ins,
                                       const RunStats* stats, KernelCost* cost) const;
  std::vector<Tensor> run_loop(const Node& n, const std::vector<Tensor>& ins, const Model& body,
                               const RunStats* stats, KernelCost* cost) const;
  std::vector<Tensor> run_scan(const Node& n, const std::vector<Tensor>& ins, const Model& body,
                               const RunStats* stats, KernelCost* cost) const;
  // One nested Model per subgraph of every control-flow node (recursively, each builds its own),
  // sharing this model's device.
  void load_subgraphs();
  // A nested model: runs on its parent's devices when given.
  Model(Graph graph, ModelOptions options, std::shared_ptr<cpu::CpuDevice> host,
        std::shared_ptr<Device> kernels);

  Graph graph_;
  ModelOptions options_;
  std::vector<std::string> exposed_;
  FuseReport fusion_;
  std::vector<bool> value_inputs_;  // per graph input: feeds a value-needed parameter
  // Per graph input / output: a strided caller view may be bound as is (ParamDef::strided).
  std::vector<bool> strided_inputs_, strided_outputs_;
  std::shared_ptr<cpu::CpuDevice> device_;  // host kernels, and what kernels_ does not run
  std::shared_ptr<Device> kernels_;         // runs the tile programs: device_, or an Ascend one
  std::unique_ptr<Predictor> predictor_;
  DeviceSpec spec_;
  LruCache<Plan> plans_;
  LruCache<TileProgram> programs_;
  mutable ArenaPool arenas_;
  mutable std::atomic<size_t> plan_lookups_{0}, plans_made_{0};
  std::map<const Graph*, std::unique_ptr<const Model>> subgraphs_;
};

}  // namespace asc

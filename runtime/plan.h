// Plan: everything a run needs for one input-shape signature — node order, concrete types,
// each node's placed TileProgram (or host kernel), and an activation arena with liveness reuse.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "registry/device_spec.h"
#include "registry/tile_program.h"
#include "runtime/graph.h"
#include "runtime/lru_cache.h"
#include "runtime/prediction.h"

namespace asc {

struct Plan;
class RunFramePool;  // runtime/run_frame.h

// A subgraph of a control-flow step, planned with the step for the types (and small known values)
// it is fed. `captured[j]` is the node input that feeds the subgraph's j-th outer value
// (Graph::outer); its formal inputs come from the op.
struct BodyPlan {
  const Graph* graph = nullptr;  // the subgraph (Node::subgraphs); null: not planned
  std::shared_ptr<const Plan> plan;
  std::vector<int> captured;
};

struct PlanStep {
  int node = -1;
  int level = 0;  // wavefront: steps of one level are independent
  Attrs attrs;    // resolved: defaults filled in
  std::vector<TensorDesc> in, out;
  std::shared_ptr<const TileProgram> program;  // tile kernel; null: host kernel
  // Output 0 is input 0's memory (OpDef::same_bytes, both in the arena): nothing runs.
  bool view = false;
  // Control flow (trait kControlFlow): its subgraphs' plans — If: then_branch, else_branch (a
  // branch its known condition does not take is not planned); Loop and Scan: body. Empty for
  // other ops.
  std::vector<BodyPlan> bodies;
  // Bytes the step reads and writes (its inputs' and outputs' elements): what the executor weighs
  // against DeviceSpec::inline_bytes.
  int64_t bytes = 0;
};

// Where a value lives during a run.
enum class Storage : uint8_t { kInput, kConstant, kArena, kOutput, kUnused };

struct Plan {
  // Non-empty when some node's output shapes depend on data only known while running (NonZero,
  // a shape computed from activations): the runtime then plans each node as it executes.
  std::string dynamic;
  std::vector<PlanStep> steps;        // topological order
  std::vector<int> step_of;           // per node: its index in steps, -1 when it has none
  std::vector<Shape> output_strides;  // as given to make_plan
  std::vector<TensorDesc> desc;       // per value: concrete dtype and shape
  std::vector<Storage> storage;       // per value
  // Per value: its value when fixed for this signature (constants, inputs keyed by value, and the
  // shape arithmetic folded at planning); undefined otherwise. Folded nodes have no step.
  std::vector<Tensor> known;
  std::vector<int64_t> offset;  // per value in the arena (kArena)
  int64_t arena_bytes = 0;
  int64_t arena_bytes_no_reuse = 0;
  int in_place = 0;  // outputs written over their input's memory
  int views = 0;     // steps whose output is their input's memory (PlanStep::view)
  // Per step, under a predictor (runtime/prediction.h): its prediction.
  std::vector<KernelCost> cost;
  // The kernel device's per-plan state (Device::prepare): the cpu's lowerings, the Ascend
  // devices' compiled kernels and device memory.
  std::shared_ptr<void> device;
  // The executor's bookkeeping of runs of this plan, reused by later runs (runtime/run_frame.h);
  // null: each run makes its own.
  std::shared_ptr<RunFramePool> frames;
};

// Runs one node on host tensors (the runtime's device); make_plan folds shape arithmetic with it.
using NodeEval =
    std::function<std::vector<Tensor>(const Node&, const Attrs& resolved, std::span<const Tensor>)>;

// Plans control-flow node `n` for its inputs (descs, with values where known): fills s.out and
// s.bodies. Throws ValueUnknownError when its outputs' types are known only once it has run.
using ControlFlowPlanner =
    std::function<void(const Node& n, std::span<const Tensor> probes, PlanStep& s)>;

// Nodes whose inputs are all known (or that read only input types, kShapeOf) and whose outputs
// have at most this many elements are evaluated at planning when an evaluator is given.
constexpr int64_t kFoldMaxElements = 4096;

// Shapes for every graph input (by graph input order). Throws ShapeError naming node, op and
// shapes where inference or tiling fails.
// `values[i]`, when given and not null, is graph input i's value, for inputs that feed a
// value-needed parameter (ParamDef::value_needed); inference then sees it like a constant.
// `eval`, when given, folds small known subgraphs (shape arithmetic) into Plan::known. When a
// node's inference needs a value that is not known (ValueUnknownError) the plan is returned with
// `dynamic` set and no steps from that node on.
// `programs`, when given, caches tile programs per node and shape across plans: signatures that
// differ in a few nodes (a decoding step's attention) reuse the programs of all the others.
// Inputs may carry strides (TensorDesc::strides: caller views bound as is, which every consumer
// must declare ParamDef::strided). `output_strides[k]`, when not empty, are the strides of the
// caller's buffer for graph output k: its producer writes through them (the caller checks that
// the producer declares the output strided).
// `base`, when given, is an earlier plan of the same graph, spec and optimisation: a node whose
// inputs have the same types (strides included) and known values as there takes its step (or
// folded outputs) from it without inference, tiling or a cache lookup — a decoding step re-plans
// only the nodes whose shapes moved. A base planned for other output strides is not used.
// `control`, when given, plans control-flow nodes (If, Loop, Scan) with their subgraphs; without
// it, or when it throws ValueUnknownError, the plan is `dynamic` from such a node on.
Plan make_plan(const Graph& g, const std::vector<TensorDesc>& inputs, const DeviceSpec& spec,
               bool optimize, const std::vector<const Tensor*>& values = {},
               const NodeEval* eval = nullptr, const LruCache<TileProgram>* programs = nullptr,
               const std::vector<Shape>& output_strides = {}, const Plan* base = nullptr,
               const ControlFlowPlanner* control = nullptr);

// "f32[1,128];i64[1,128]" (+ "=[v0,v1]" for inputs with values, "|out k:s[..]" for strided
// outputs): the cache key of a plan.
std::string shape_signature(const std::vector<TensorDesc>& inputs,
                            const std::vector<const Tensor*>& values = {},
                            const std::vector<Shape>& output_strides = {});

}  // namespace asc

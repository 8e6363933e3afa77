// Control flow: If and Loop (1, 11, 13, 16), Scan (8, 9, 11, 16). The
// op's definition lives here so the importer, coverage and the passes know it; the runtime executes
// it (runtime/control_flow.h): it runs one of the node's subgraphs, whose outputs' shapes are known
// only then, so inference leaves them to run time.
//
// Inputs: cond (a one-element bool tensor), then the values the branches read from enclosing
// scopes (Node::captured, appended by the importer). Outputs: the chosen branch's outputs.
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"

namespace asc {
namespace {

std::vector<TensorType> runtime_infer(const InferContext& c) {
  throw ValueUnknownError(cat(c.op.type, ": its outputs are known once its subgraphs have run"));
}

void runtime_kernel(const LaunchContext& ctx, std::span<const Tensor>, std::span<Tensor>) {
  throw Error(cat(ctx.op->type, " runs subgraphs: a Model executes it, not a kernel call"));
}

// What every control-flow definition shares: any dtype, the trait, and no kernel of its own.
OpDef executed_by_runtime(OpDef d, const char* doc) {
  return std::move(d.type_constraint("V", any_types())
                       .trait(kControlFlow)
                       .describe(doc)
                       .infer(runtime_infer)
                       .host_kernel(runtime_kernel));
}

struct Version {
  int since, until;
};
// If and Loop: the opsets whose schemas changed (types added at 11, 13 and 16).
constexpr Version kIfLoopVersions[] = {{1, 10}, {11, 12}, {13, 15}, {16, INT_MAX}};

}  // namespace

void register_control_flow(Registry& r) {
  for (const Version v : kIfLoopVersions)
    r.add(executed_by_runtime(def_op("If", v.since, v.until)
                                  .input("cond", "bool")
                                  .input("captured", "V", Arity::kVariadic)
                                  .heterogeneous()
                                  .output("outputs", "V", Arity::kVariadic),
                              "outputs = then_branch() if cond else else_branch() (subgraph "
                              "attributes; the branches may read values of enclosing graphs)"));
  for (const Version v : kIfLoopVersions)
    r.add(executed_by_runtime(def_op("Loop", v.since, v.until)
                                  .input("M", "i64", Arity::kOptional)
                                  .input("cond", "bool", Arity::kOptional)
                                  .input("v_initial", "V", Arity::kVariadic)
                                  .heterogeneous()
                                  .output("v_final_and_scan_outputs", "V", Arity::kVariadic),
                              "(cond, v..., scan...) = body(i, cond, v...) while i < M and cond; "
                              "outputs the final v... and every scan output stacked over the "
                              "iterations"));
  r.add(executed_by_runtime(def_op("Scan", 8, 8)
                                .input("sequence_lens", "i64", Arity::kOptional)
                                .input("initial_state_and_scan_inputs", "V", Arity::kVariadic)
                                .heterogeneous()
                                .output("final_state_and_scan_outputs", "V", Arity::kVariadic)
                                .attr("num_scan_inputs", AttrKind::kInt, std::nullopt)
                                .attr("directions", AttrKind::kInts, std::vector<int64_t>{}),
                            "Scan-8: the batched form — every input and output has a leading "
                            "batch axis, the scan runs along axis 1 of each entry (full-length "
                            "sequences)"));
  for (const Version v : {Version{9, 10}, Version{11, 15}, Version{16, INT_MAX}}) {
    OpDef d = def_op("Scan", v.since, v.until)
                  .input("initial_state_and_scan_inputs", "V", Arity::kVariadic)
                  .heterogeneous()
                  .output("final_state_and_scan_outputs", "V", Arity::kVariadic)
                  .attr("num_scan_inputs", AttrKind::kInt, std::nullopt);
    for (const char* a :
         {"scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions"})
      d.attr(a, AttrKind::kInts, std::vector<int64_t>{});
    r.add(executed_by_runtime(std::move(d),
                              "(state..., out...) = body(state..., scan_input[t]...) for each "
                              "step t along the scan axes; outputs the final states and the "
                              "outputs stacked"));
  }
}

}  // namespace asc

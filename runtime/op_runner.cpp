#include "runtime/op_runner.h"

#include <spdlog/spdlog.h>

#include "registry/error.h"
#include "registry/tiling.h"

namespace asc {
namespace {

std::string describe(const OpDef& op, std::span<const Tensor> inputs) {
  std::string s = op.type + "(";
  for (size_t i = 0; i < inputs.size(); ++i) s += (i ? ", " : "") + inputs[i].desc().str();
  return s + ")";
}

}  // namespace

std::vector<TensorDesc> infer_outputs(const OpDef& op, const Attrs& resolved,
                                      std::span<const Tensor> inputs, size_t num_outputs) {
  std::vector<TensorType> in;
  std::vector<const Tensor*> values;
  std::vector<DType> dtypes;
  for (const auto& t : inputs) {
    in.push_back(t.defined() ? TensorType{t.dtype(), to_sym(t.shape())} : TensorType{});
    values.push_back(t.defined() && t.data() ? &t : nullptr);  // a desc-only probe has none
    dtypes.push_back(t.dtype());
  }
  std::vector<TensorType> out;
  try {
    op.check_types(dtypes);
    if (!op.infer_fn) throw ShapeError("op has no shape inference");
    out = op.infer_fn(InferContext{op, in, resolved, values, num_outputs});
  } catch (const ValueUnknownError& e) {
    throw ValueUnknownError(describe(op, inputs) + ": " + e.what());
  } catch (const ShapeError& e) {
    throw ShapeError(describe(op, inputs) + ": " + e.what());
  }
  if (num_outputs > 0 && out.size() > num_outputs) out.resize(num_outputs);  // trailing optional
  std::vector<TensorDesc> r;
  for (const auto& t : out) {
    auto shape = t.shape ? to_concrete(*t.shape) : std::nullopt;
    if (!shape) {
      // A shape left open because a value-needed input has no value yet is for run time.
      for (size_t k = 0; k < inputs.size(); ++k) {
        const auto& p =
            op.inputs.empty() ? ParamDef{} : op.inputs[std::min(k, op.inputs.size() - 1)];
        if (p.value_needed && inputs[k].defined() && !values[k])
          throw ValueUnknownError(describe(op, inputs) + ": output shape " + t.str() +
                                  " depends on the value of input '" + p.name + "'");
      }
      throw ShapeError(describe(op, inputs) + ": output shape " + t.str() + " is not concrete");
    }
    r.push_back({t.dtype, *shape});
  }
  return r;
}

TileProgram plan_tile_program(const OpDef& op, const Attrs& resolved,
                              std::span<const TensorDesc> inputs,
                              std::span<const TensorDesc> outputs, const DeviceSpec& spec,
                              const OpRunOptions& opts, std::span<const Tensor* const> values) {
  LaunchContext ctx;
  ctx.op = &op;
  ctx.inputs.assign(inputs.begin(), inputs.end());
  ctx.outputs.assign(outputs.begin(), outputs.end());
  ctx.attrs = &resolved;
  ctx.spec = &spec;
  ctx.optimize = opts.optimize;
  ctx.values.assign(values.begin(), values.end());
  if (!op.tile_kernel_fn) throw Error(ctx.str() + ": op has no tile kernel");
  const TilingData tiling = opts.tiling ? *opts.tiling : op.tiling_fn(ctx);
  TileProgram p = trace_program(ctx, tiling);
  spdlog::debug("planned {} on {}: {}, {} instructions, local memory {} B (no reuse {} B)",
                ctx.str(), spec.name, tiling.str(), p.instrs.size(), p.placement.total_used(),
                p.placement.total_no_reuse());
  return p;
}

std::vector<Tensor> run_op(const OpDef& op, const Attrs& attrs, std::span<const Tensor> inputs,
                           const cpu::CpuDevice& device, const OpRunOptions& opts) {
  const Attrs resolved = op.resolve(attrs);
  const auto out_desc = infer_outputs(op, resolved, inputs, opts.num_outputs);
  std::vector<Tensor> outs;
  for (const auto& d : out_desc) outs.emplace_back(d.dtype, d.shape);
  // Host objects (strings, sequences, optionals): an op with both kernels takes its host kernel.
  bool objects = false;
  for (const auto& t : inputs) objects = objects || dtype_is_host_object(t.dtype());
  for (const auto& d : out_desc) objects = objects || dtype_is_host_object(d.dtype);
  std::vector<TensorDesc> in_descs;
  for (const auto& t : inputs) in_descs.push_back(t.desc());
  if (op.kernel_for(resolved, in_descs, out_desc) == KernelKind::kHost ||
      (objects && op.host_kernel_fn)) {
    LaunchContext ctx;
    ctx.op = &op;
    for (const auto& t : inputs) ctx.inputs.push_back(t.desc());
    ctx.outputs = out_desc;
    ctx.attrs = &resolved;
    ctx.spec = opts.spec ? &*opts.spec : &device.spec();
    for (const auto& t : inputs) ctx.values.push_back(t.defined() ? &t : nullptr);
    ctx.parallel_for = [&device](int64_t n, const std::function<void(int64_t, int64_t)>& body) {
      device.parallel_for(n, body);
    };
    ctx.launch_program = [&device, &opts](const TileProgram& p, std::span<void* const> args) {
      if (opts.on_program) opts.on_program(p);
      device.launch(p, args);
    };
    ctx.launch_sequence = [&device, &opts](std::span<const ProgramLaunch> l) {
      if (opts.on_program)
        for (const ProgramLaunch& x : l) opts.on_program(*x.program);
      device.launch_sequence(l);
    };
    op.host_kernel_fn(ctx, inputs, outs);
    return outs;
  }
  std::vector<TensorDesc> in_desc;
  std::vector<const Tensor*> values;  // every input is a host tensor here
  for (const auto& t : inputs) {
    in_desc.push_back(t.desc());
    values.push_back(t.defined() && t.data() ? &t : nullptr);  // a desc-only probe has none
  }
  const TileProgram p = plan_tile_program(op, resolved, in_desc, out_desc,
                                          opts.spec ? *opts.spec : device.spec(), opts, values);
  std::vector<void*> args;
  for (const auto& t : inputs) args.push_back(const_cast<void*>(t.data()));
  for (auto& t : outs) args.push_back(t.data());
  if (opts.on_program) opts.on_program(p);
  device.launch(p, args);
  return outs;
}

std::vector<Tensor> run_reference(const OpDef& op, const Attrs& attrs,
                                  std::span<const Tensor> inputs, size_t num_outputs) {
  const Attrs resolved = op.resolve(attrs);
  const auto out_desc = infer_outputs(op, resolved, inputs, num_outputs);
  std::vector<Tensor> outs;
  for (const auto& d : out_desc) outs.emplace_back(d.dtype, d.shape);
  if (!op.reference_fn) throw Error(op.type + ": op has no reference");
  op.reference_fn(resolved, inputs, outs);
  return outs;
}

}  // namespace asc

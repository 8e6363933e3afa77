// asc-ops: lists the registry; --dump prints an op's traced, placed TileProgram for given shapes.
#include <spdlog/cfg/env.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ops/host_reasons.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"
#include "tools/cli_common.h"
#include "tools/ops_coverage.h"

namespace {

std::string types_of(const asc::OpDef& op) {
  std::string s;
  for (const auto& c : op.constraints) {
    s += asc::cat(s.empty() ? "" : " ", c.name, ":");
    for (size_t i = 0; i < c.types.size(); ++i)
      s += asc::cat(i ? "," : "", asc::dtype_name(c.types[i]));
  }
  return s;
}

void list(const asc::Registry& reg, bool json) {
  if (json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const asc::OpDef* op : reg.all()) {
      nlohmann::json o;
      o["op"] = op->type;
      o["domain"] = op->domain.empty() ? "ai.onnx" : op->domain;
      o["since"] = op->since;
      if (op->until != INT_MAX) o["until"] = op->until;
      o["versions"] = op->versions();
      o["kernel"] = std::string(asc::kernel_kind_name(op->kernel_kind()));
      o["traits"] = asc::traits_str(op->traits);
      if (op->kernel_kind() == asc::KernelKind::kHost)
        o["host_reason"] = std::string(asc::host_kernel_reason(op->type));
      nlohmann::json tc = nlohmann::json::object();
      for (const auto& c : op->constraints) {
        auto& l = tc[c.name] = nlohmann::json::array();
        for (auto t : c.types) l.push_back(std::string(asc::dtype_name(t)));
      }
      o["types"] = tc;
      o["inputs"] = nlohmann::json::array();
      for (const auto& p : op->inputs) o["inputs"].push_back(p.name);
      o["outputs"] = nlohmann::json::array();
      for (const auto& p : op->outputs) o["outputs"].push_back(p.name);
      o["doc"] = op->doc;
      arr.push_back(o);
    }
    std::cout << arr.dump(2) << "\n";
    return;
  }
  std::printf("%-16s %-8s %-9s %-6s %-28s %s\n", "op", "domain", "versions", "kernel", "traits",
              "types");
  for (const asc::OpDef* op : reg.all())
    std::printf("%-16s %-8s %-9s %-6s %-28s %s\n", op->type.c_str(),
                op->domain.empty() ? "ai.onnx" : op->domain.c_str(), op->versions().c_str(),
                std::string(asc::kernel_kind_name(op->kernel_kind())).c_str(),
                asc::traits_str(op->traits).c_str(), types_of(*op).c_str());
  std::printf("%zu op versions\n", reg.all().size());
}

// Host-kernel op versions and why each is not a tile kernel.
void list_host(const asc::Registry& reg) {
  size_t n = 0;
  for (const asc::OpDef* op : reg.all()) {
    if (op->kernel_kind() != asc::KernelKind::kHost) continue;
    ++n;
    std::printf("%-34s %-9s %s\n",
                (op->domain.empty() ? op->type : op->domain + "." + op->type).c_str(),
                op->versions().c_str(), std::string(asc::host_kernel_reason(op->type)).c_str());
  }
  std::printf("%zu of %zu op versions are host kernels\n", n, reg.all().size());
}

int dump(const asc::Registry& reg, const std::string& name, const std::vector<std::string>& shapes,
         const std::vector<std::string>& attr_strs, const std::string& device, int opset,
         bool no_opt) {
  // "Type" (ai.onnx) or "domain.Type" (com.microsoft.RotaryEmbedding, ai.asc.FusedRotary).
  const size_t dot = name.rfind('.');
  const std::string domain = dot == std::string::npos ? "" : name.substr(0, dot);
  const asc::OpDef& op =
      reg.lookup(domain, dot == std::string::npos ? name : name.substr(dot + 1), opset);
  asc::Attrs attrs;
  for (const auto& a : attr_strs) asc::cli::parse_attr(a, attrs);
  const asc::Attrs resolved = op.resolve(attrs);
  std::vector<asc::Tensor> ins;
  std::vector<asc::TensorDesc> in_desc;
  for (const auto& s : shapes) {
    in_desc.push_back(asc::cli::parse_tensor_desc(s));
    ins.push_back(asc::Tensor::wrap(in_desc.back().dtype, in_desc.back().shape, nullptr));
  }
  const auto out_desc = asc::infer_outputs(op, resolved, ins);
  const asc::DeviceSpec spec = device == "cpu" ? asc::cpu::cpu_spec(2)
                               : device == "ascend910b" || device == "sim:910b"
                                   ? asc::ascend910b()
                                   : throw asc::Error("unknown device '" + device + "'");
  if (op.kernel_kind() != asc::KernelKind::kTile) {
    std::cout << op.type << " runs as a host kernel; no tile program\n";
    return 0;
  }
  asc::OpRunOptions opts;
  opts.optimize = !no_opt;
  const asc::TileProgram p = asc::plan_tile_program(op, resolved, in_desc, out_desc, spec, opts);
  std::cout << "device " << spec.str() << "\n" << p.dump();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"asc-ops: the operators asc registers"};
  bool json = false, no_opt = false, coverage = false, host = false;
  std::string dump_op, device = "ascend910b";
  std::vector<std::string> shapes, attrs;
  int opset = 17;
  app.add_flag("--json", json, "list as JSON");
  app.add_flag("--coverage", coverage,
               "every operator of ONNX's schema registry (opsets up to 23) and the versions asc "
               "implements");
  app.add_flag("--host", host, "the op versions that run as host kernels, and why");
  app.add_option("--dump", dump_op,
                 "print the traced program of OP (Type, or domain.Type) for --shapes");
  app.add_option("shapes", shapes, "input tensors for --dump, e.g. f32[128,896] bf16[896,4864]");
  app.add_option("--attr", attrs, "attribute k=v for --dump (repeatable)");
  app.add_option("--device", device, "spec to tile for: ascend910b (default) or cpu");
  app.add_option("--opset", opset, "opset to look the op up in (default 17)");
  app.add_flag("--no-opt", no_opt, "trace without double buffering / prefetch");
  CLI11_PARSE(app, argc, argv);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows every plan
  try {
    const asc::Registry& reg = asc::global_registry();
    if (!dump_op.empty()) return dump(reg, dump_op, shapes, attrs, device, opset, no_opt);
    if (coverage) {
      std::cout << asc::coverage_report(asc::ops_coverage(reg), json);
      return 0;
    }
    if (host && !json) {
      list_host(reg);
      return 0;
    }
    list(reg, json);
  } catch (const asc::Error& e) {
    std::cerr << "asc-ops: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

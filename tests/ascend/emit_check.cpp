#include "ascend/emit_check.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ascend/emit_spec.h"
#include "ops/ops.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {

void* emit_gm_alloc(size_t bytes);
void emit_gm_free(void* p);

namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

}  // namespace

const OpCase* emitted_case(const EmitEntry& e) {
  static const std::map<std::string, size_t> by_key = [] {
    std::map<std::string, size_t> m;
    std::map<std::string, int> seen;
    const auto& cases = all_op_cases();
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string name = cases[i].name();
      m.emplace(name + "#" + std::to_string(seen[name]++), i);
    }
    return m;
  }();
  const auto it = by_key.find(e.case_name);
  return it == by_key.end() ? nullptr : &all_op_cases()[it->second];
}

const std::map<std::string, std::string>& listed_gaps() {
  static const std::map<std::string, std::string> gaps = [] {
    std::map<std::string, std::string> m;
    std::ifstream in(ASC_EMIT_GAPS_FILE);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream f(line);
      std::string name, variant, how;
      f >> name >> variant >> how;
      m[name + " " + variant] = how;
    }
    return m;
  }();
  return gaps;
}

std::string test_name(const EmitEntry& e) {
  std::string n = std::string(e.name) + "_" + e.case_name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

bool listed(const EmitEntry& e) {
  return listed_gaps().count(std::string(e.case_name) + " " + std::to_string(e.variant)) > 0;
}

std::vector<Tensor> cpu_outputs(const EmitEntry& e, const OpCase& c) {
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  OpRunOptions opts;
  opts.spec = emit_spec(e.variant);
  opts.num_outputs = c.num_outputs;
  return run_op(op, c.attrs, make_inputs(c), device(), opts);
}

Outcome run_on_emulator(const EmitEntry& e, const OpCase& c, const std::vector<Tensor>& want,
                        const EmitRunOptions& ro) {
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  const auto out_desc = infer_outputs(op, op.resolve(c.attrs), inputs, c.num_outputs);
  std::vector<Tensor> got;
  for (const auto& d : out_desc) got.emplace_back(d.dtype, d.shape);
  // Every argument in its own GM block (at least 32 bytes), inputs copied in.
  std::vector<uint8_t*> args;
  std::vector<size_t> sizes;
  auto add = [&](const Tensor& t, bool copy) {
    const size_t n = t.data() ? t.nbytes() : 0;
    auto* p = static_cast<uint8_t*>(emit_gm_alloc(std::max<size_t>(n, 32)));
    if (copy && n) std::memcpy(p, t.data(), n);
    args.push_back(p);
    sizes.push_back(n);
  };
  for (const auto& t : inputs) add(t, true);
  for (const auto& t : got) add(t, false);
  Outcome o;
  std::vector<std::string> races;
  try {
    emit_run(e, args.data(), ro, &races);
    if (!races.empty()) o = {"race", races.front()};
  } catch (const std::exception& err) {
    o = {"refused", err.what()};
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (sizes[inputs.size() + i])
      std::memcpy(got[i].data(), args[inputs.size() + i], sizes[inputs.size() + i]);
  for (uint8_t* p : args) emit_gm_free(p);
  if (!o.how.empty()) return o;
  if (got.size() != want.size()) return {"values", "output count differs"};
  for (size_t i = 0; i < got.size(); ++i) {
    double atol = c.atol, rtol = c.rtol;
    if (atol < 0 || rtol < 0) default_tolerance(want[i].dtype(), atol, rtol);
    const std::string diff = compare(got[i], want[i], atol, rtol);
    if (!diff.empty()) return {"values", "output " + std::to_string(i) + ": " + diff};
  }
  return o;
}

}  // namespace asc::test

#include "tools/conformance_case.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/tensor_proto.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "tools/conformance_compare.h"

namespace asc::conformance {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOutcomeNames[] = {"passed", "not_implemented", "load", "run", "result"};

// Multi-line messages (the importer lists every unsupported node) as one line: a line break and
// its indentation become "; ", or a space after a colon.
std::string one_line(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n') {
      out += s[i];
      continue;
    }
    while (i + 1 < s.size() && (s[i + 1] == ' ' || s[i + 1] == '\t')) ++i;
    out += !out.empty() && out.back() == ':' ? " " : "; ";
  }
  return out;
}

// ONNX 1.12 writes bfloat16 test data as uint16 TensorProtos (numpy has no bfloat16; ONNX
// Runtime lists those cases as broken). Where the graph declares bf16, the bits are bf16.
Tensor as_declared(Tensor t, DType declared) {
  if (t.dtype() != DType::kU16 || declared != DType::kBF16) return t;
  auto keep = std::make_shared<Tensor>(std::move(t));
  return Tensor::view(DType::kBF16, keep->shape(), keep->data(), keep);
}

CaseResult fail(Outcome o, std::string reason) {
  return CaseResult{o, one_line(reason), 0, 0};
}

void collect_ops(const onnx::GraphProto& g, std::set<OpUse>& out) {
  for (const auto& n : g.node()) {
    out.insert({n.domain() == "ai.onnx" ? std::string() : n.domain(), n.op_type()});
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_ops(a.g(), out);
      for (const auto& sub : a.graphs()) collect_ops(sub, out);
    }
  }
}

// The K of "<prefix>K.pb", or nullopt for any other file name.
std::optional<int> pb_index(const fs::path& p, std::string_view prefix) {
  const std::string name = p.filename().string();
  if (name.size() <= prefix.size() + 3 || !name.starts_with(prefix) || !name.ends_with(".pb"))
    return std::nullopt;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 3);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(digits);
}

// The "<prefix>K.pb" files of a data set, ordered by K; throws ModelError on a gap.
std::vector<fs::path> pb_files(const fs::path& set, std::string_view prefix) {
  std::vector<std::pair<int, fs::path>> found;
  for (const auto& e : fs::directory_iterator(set))
    if (auto k = pb_index(e.path(), prefix)) found.emplace_back(*k, e.path());
  std::sort(found.begin(), found.end());
  std::vector<fs::path> files;
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i].first != static_cast<int>(i))
      throw ModelError(cat(set.filename().string(), ": ", prefix, i, ".pb is missing"));
    files.push_back(found[i].second);
  }
  return files;
}

std::vector<fs::path> data_sets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().starts_with("test_data_set_"))
      sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  return sets;
}

// input_K.pb feeds the graph input its TensorProto names; an unnamed or unknown name falls back
// to the K-th fed graph input.
std::vector<NamedTensor> read_inputs(const Graph& g, const fs::path& set) {
  std::vector<NamedTensor> inputs;
  const auto files = pb_files(set, "input_");
  for (size_t k = 0; k < files.size(); ++k) {
    std::string name;
    // A graph input's declared type says which proto the file holds (sequences and optionals are
    // not TensorProtos); the name inside the file is only known after reading it, so a file
    // feeding input k is read with input k's kind when the name then matches no input.
    const DType kind = k < g.inputs.size() ? g.values[g.inputs[k]].type.dtype : DType::kUndefined;
    Tensor t = read_value_proto_file(files[k].string(), kind, &name);
    int id = name.empty() ? -1 : g.find(name);
    const bool fed = id >= 0 && std::find(g.inputs.begin(), g.inputs.end(), id) != g.inputs.end();
    if (!fed) {
      if (k >= g.inputs.size())
        throw ModelError(cat(set.filename().string(), "/", files[k].filename().string(), " ('",
                             name, "') matches no graph input (the graph has ", g.inputs.size(),
                             ")"));
      id = g.inputs[k];
    }
    inputs.push_back({g.values[id].name, as_declared(std::move(t), g.values[id].type.dtype)});
  }
  return inputs;
}

// Runs one data set; returns nullopt when every output matches.
std::optional<CaseResult> run_data_set(const Model& model, const fs::path& set) {
  const std::string set_name = set.filename().string();
  std::vector<NamedTensor> inputs;
  std::vector<Tensor> expected;
  try {
    inputs = read_inputs(model.graph(), set);
    const Graph& g = model.graph();
    const auto files = pb_files(set, "output_");
    for (size_t k = 0; k < files.size(); ++k) {
      const DType kind =
          k < g.outputs.size() ? g.values[g.outputs[k]].type.dtype : DType::kUndefined;
      expected.push_back(read_value_proto_file(files[k].string(), kind));
    }
  } catch (const UnsupportedError& e) {
    return fail(Outcome::kNotImplemented, cat(set_name, ": test data: ", e.what()));
  } catch (const std::exception& e) {
    return fail(Outcome::kLoad, cat(set_name, ": test data: ", e.what()));
  }
  const Graph& g = model.graph();
  for (size_t k = 0; k < expected.size() && k < g.outputs.size(); ++k)
    expected[k] = as_declared(std::move(expected[k]), g.values[g.outputs[k]].type.dtype);
  std::vector<NamedTensor> outputs;
  try {
    outputs = model.run(inputs);
  } catch (const UnsupportedError& e) {
    return fail(Outcome::kNotImplemented, cat(set_name, ": at run: ", e.what()));
  } catch (const std::exception& e) {
    return fail(Outcome::kRun, cat(set_name, ": ", e.what()));
  }
  if (outputs.size() != expected.size())
    return fail(Outcome::kResult,
                cat(set_name, ": ", outputs.size(), " outputs, expected ", expected.size()));
  CaseResult worst{Outcome::kPassed, "", 0, 0};
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Comparison c = compare_tensors(outputs[k].tensor, expected[k]);
    if (c.ok) continue;
    if (worst.outcome == Outcome::kPassed || c.max_abs_err > worst.max_abs_err)
      worst = CaseResult{Outcome::kResult,
                         cat(set_name, ": output ", k, " '", outputs[k].name, "': ", c.reason),
                         c.max_abs_err, 0};
  }
  if (worst.outcome == Outcome::kPassed) return std::nullopt;
  return worst;
}

}  // namespace

std::string_view outcome_name(Outcome o) {
  return kOutcomeNames[static_cast<int>(o)];
}

Outcome outcome_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kOutcomeNames); ++i)
    if (kOutcomeNames[i] == name) return static_cast<Outcome>(i);
  throw Error(cat("unknown outcome '", name, "'"));
}

std::string OpUse::label() const {
  return domain.empty() ? type : cat(domain, ".", type);
}

std::vector<OpUse> read_op_uses(const fs::path& model_path) {
  std::ifstream in(model_path, std::ios::binary);
  onnx::ModelProto m;
  if (!in || !m.ParseFromIstream(&in))
    throw Error(cat("cannot parse '", model_path.string(), "' as an ONNX model"));
  std::set<OpUse> ops;
  collect_ops(m.graph(), ops);
  return {ops.begin(), ops.end()};
}

CaseResult run_case(const fs::path& dir, const ModelOptions& options) {
  try {
    std::optional<Model> model;
    try {
      model.emplace(import_onnx_file((dir / "model.onnx").string()), options);
    } catch (const UnsupportedError& e) {
      return fail(Outcome::kNotImplemented, e.what());
    } catch (const std::exception& e) {
      return fail(Outcome::kLoad, e.what());
    }
    const auto sets = data_sets(dir);
    if (sets.empty()) return fail(Outcome::kLoad, "no test_data_set_* folder");
    for (const auto& set : sets)
      if (auto r = run_data_set(*model, set)) return *r;
    return CaseResult{Outcome::kPassed, "", 0, static_cast<int>(sets.size())};
  } catch (const std::exception& e) {
    return fail(Outcome::kRun, e.what());
  } catch (...) {
    return fail(Outcome::kRun, "unknown exception");
  }
}

}  // namespace asc::conformance

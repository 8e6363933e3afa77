#include "tools/check_ort.h"

#include <fcntl.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "importers/onnx/tensor_proto.h"
#include "registry/error.h"
#include "registry/strings.h"

extern char** environ;

namespace asc::check {
namespace fs = std::filesystem;

namespace {

// Suffix of the f32 cast through which a bf16 value is fetched.
constexpr const char* kViaF32 = "::asc-check-f32";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The last `n` lines of `text`, for error messages.
std::string tail(const std::string& text, int n) {
  size_t pos = text.size();
  while (pos > 0 && text[pos - 1] == '\n') --pos;
  const size_t end = pos;
  for (int k = 0; k < n && pos > 0; ++k) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) {
      pos = 0;
      break;
    }
  }
  return text.substr(pos == 0 ? 0 : pos + 1, end - (pos == 0 ? 0 : pos + 1));
}

// True when a tensor of `g` (initializers, Constant attributes, control-flow subgraphs) is
// stored in an external data file.
bool has_external_data(const onnx::GraphProto& g) {
  auto external = [](const onnx::TensorProto& t) {
    return t.data_location() == onnx::TensorProto::EXTERNAL;
  };
  for (const auto& t : g.initializer())
    if (external(t)) return true;
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_t() && external(a.t())) return true;
      for (const auto& t : a.tensors())
        if (external(t)) return true;
      if (a.has_g() && has_external_data(a.g())) return true;
      for (const auto& sub : a.graphs())
        if (has_external_data(sub)) return true;
    }
  return false;
}

// What ONNX's shape inference knows of a value: nothing, a tensor of an element type (0 when
// unknown), or another type (sequence, map, optional).
struct ValueKind {
  bool known = false, tensor = false;
  int elem = 0;
};

// Element types onnxruntime-node passes as typed arrays (TensorProto.DataType 1..13).
bool node_binding_has(int elem) {
  return elem >= 1 && elem <= 13;
}

std::string elem_name(int elem) {
  if (elem == onnx::TensorProto::BFLOAT16) return "bfloat16";
  return onnx::TensorProto::DataType_IsValid(elem)
             ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elem))
             : cat("data_type ", elem);
}

// The types of the main graph's values: declared, or inferred by ONNX's shape inference (which
// may fail on models it does not know; the values are then left unknown). The model itself is
// left as it was.
std::map<std::string, ValueKind> value_kinds(onnx::ModelProto& model) {
  onnx::GraphProto& g = *model.mutable_graph();
  const auto declared = g.value_info();
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception&) {
  }
  std::map<std::string, ValueKind> kinds;
  auto note = [&kinds](const onnx::ValueInfoProto& vi) {
    if (!vi.has_type() || vi.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) return;
    ValueKind k;
    k.known = true;
    k.tensor = vi.type().has_tensor_type();
    if (k.tensor) k.elem = vi.type().tensor_type().elem_type();
    kinds[vi.name()] = k;
  };
  for (const auto& vi : g.input()) note(vi);
  for (const auto& vi : g.output()) note(vi);
  for (const auto& vi : g.value_info()) note(vi);
  *g.mutable_value_info() = declared;
  return kinds;
}

// Runs `argv` (PATH lookup) with stdout and stderr into `log`; returns the exit status, -1 when
// killed by a signal. Throws Error when the program cannot be started.
int spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw Error(cat("cannot run '", argv[0], "': ", std::strerror(rc),
                    " (asc-check needs Node.js: apt-get install nodejs, or --node PATH)"));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(cat("waiting for '", argv[0], "': ", std::strerror(errno)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  const char* env = std::getenv("TMPDIR");
  std::string pattern = cat(env && *env ? env : "/tmp", "/", prefix, "-XXXXXX");
  if (!mkdtemp(pattern.data()))
    throw Error(cat("cannot create a folder '", pattern, "': ", std::strerror(errno)));
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

MarkedModel write_marked_model(const std::string& model_path, const std::string& out_path) {
  onnx::ModelProto model;
  {
    std::ifstream in(model_path, std::ios::binary);
    if (!in) throw ModelError(cat("cannot open '", model_path, "'"));
    if (!model.ParseFromIstream(&in))
      throw ModelError(cat("'", model_path, "' is not a valid ONNX model (ModelProto)"));
  }
  onnx::GraphProto& g = *model.mutable_graph();
  const std::map<std::string, ValueKind> kinds = value_kinds(model);
  auto kind_of = [&kinds](const std::string& name) {
    auto it = kinds.find(name);
    return it != kinds.end() ? it->second : ValueKind{};
  };
  for (const auto& in : g.input()) {
    const ValueKind k = kind_of(in.name());
    if (k.tensor && k.elem != 0 && !node_binding_has(k.elem))
      throw UnsupportedError(cat(model_path, ": input '", in.name(), "' is ", elem_name(k.elem),
                                 ", which onnxruntime-node cannot feed"));
  }
  MarkedModel marked;
  // A bf16 value is fetched through a Cast to f32 (exact), named NAME + kViaF32.
  auto via_f32 = [&](const std::string& name) {
    auto* n = g.add_node();
    n->set_op_type("Cast");
    n->set_name(cat(name, kViaF32));
    n->add_input(name);
    n->add_output(cat(name, kViaF32));
    auto* to = n->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::FLOAT);
    marked.via_f32[cat(name, kViaF32)] = name;
    return cat(name, kViaF32);
  };
  const int nodes = g.node_size();
  // The model's own outputs: bf16 ones are swapped for their f32 casts.
  std::set<std::string> seen;
  std::vector<std::string> outputs;
  for (const auto& o : g.output()) {
    seen.insert(o.name());
    outputs.push_back(o.name());
  }
  g.clear_output();
  for (const auto& name : outputs) {
    const ValueKind k = kind_of(name);
    if (k.tensor && k.elem == onnx::TensorProto::BFLOAT16)
      g.add_output()->set_name(via_f32(name));
    else if (k.tensor && k.elem != 0 && !node_binding_has(k.elem))
      throw UnsupportedError(cat(model_path, ": output '", name, "' is ", elem_name(k.elem),
                                 ", which onnxruntime-node cannot return"));
    else
      g.add_output()->set_name(name);
  }
  // Every other node output (not those of the Casts added here).
  for (int i = 0; i < nodes; ++i)
    for (const auto& o : g.node(i).output()) {
      if (o.empty() || !seen.insert(o).second) continue;
      const ValueKind k = kind_of(o);
      if (k.known && !k.tensor) {
        marked.skipped[o] = "not a tensor (a sequence, map or optional)";
      } else if (k.elem == onnx::TensorProto::BFLOAT16) {
        g.add_output()->set_name(via_f32(o));
        marked.added.push_back(o);
      } else if (k.elem != 0 && !node_binding_has(k.elem)) {
        marked.skipped[o] = cat(elem_name(k.elem), " tensors have no onnxruntime-node binding");
      } else {
        g.add_output()->set_name(o);
        marked.added.push_back(o);
      }
    }
  marked.external_data = has_external_data(g);
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out || !model.SerializeToOstream(&out) || !out.flush())
    throw Error(cat("cannot write '", out_path, "'"));
  return marked;
}

std::string default_bridge() {
  const char* env = std::getenv("ASC_ORT_BRIDGE");
  if (env && *env) return env;
  return cat(ASC_SOURCE_DIR, "/tools/ort/bridge.mjs");
}

OrtResult run_ort(const std::string& model_path, const std::vector<NamedTensor>& inputs,
                  const OrtOptions& options, const std::string& work_dir,
                  const std::string& external_data_dir) {
  const std::string bridge = options.bridge.empty() ? default_bridge() : options.bridge;
  if (!fs::exists(bridge))
    throw Error(cat("the ONNX Runtime bridge '", bridge,
                    "' is missing (set ASC_ORT_BRIDGE or --bridge to tools/ort/bridge.mjs)"));
  const fs::path dir(work_dir), out_dir = dir / "ort";
  fs::create_directories(out_dir);
  std::vector<std::string> argv = {
      options.node, bridge,           "--model",   model_path,
      "--out",      out_dir.string(), "--threads", cat(options.threads)};
  if (!external_data_dir.empty()) {
    argv.push_back("--external-data-dir");
    argv.push_back(external_data_dir);
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string file = (dir / cat("input_", k, ".pb")).string();
    write_tensor_proto_file(file, inputs[k].name, inputs[k].tensor);
    argv.push_back("--input");
    argv.push_back(cat(inputs[k].name, "=", file));
  }
  const std::string log = (dir / "bridge.log").string();
  const int code = spawn(argv, log);
  if (code != 0)
    throw Error(cat("ONNX Runtime failed (", options.node, " ", bridge, " exited with ", code,
                    "):\n", tail(slurp(log), 20)));
  OrtResult r;
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(slurp(out_dir / "outputs.json"));
    r.version = manifest.value("ort_version", "");
    for (const auto& s : manifest.at("skipped"))
      r.skipped[s.at("name").get<std::string>()] = s.at("reason").get<std::string>();
    for (const auto& o : manifest.at("outputs"))
      r.outputs[o.at("name").get<std::string>()] =
          read_tensor_proto_file((out_dir / o.at("file").get<std::string>()).string());
  } catch (const nlohmann::json::exception& e) {
    throw Error(
        cat("the bridge wrote a bad ", (out_dir / "outputs.json").string(), ": ", e.what()));
  }
  return r;
}

}  // namespace asc::check

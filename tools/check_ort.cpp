#include "tools/check_ort.h"

#include <fcntl.h>
#include <onnx/onnx_pb.h>
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
  std::set<std::string> seen;
  for (const auto& o : g.output()) seen.insert(o.name());
  MarkedModel marked;
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (!o.empty() && seen.insert(o).second) {
        g.add_output()->set_name(o);
        marked.added.push_back(o);
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

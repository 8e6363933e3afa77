#include "runtime/devices/ascend/emu_device.h"

#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/ascend/emit_ascendc.h"
#include "runtime/devices/ascend/kernel_cache.h"
#include "runtime/plan.h"

#if !defined(ASC_EMU_INCLUDE_DIR) || !defined(ASC_EMU_LIBRARY_DIR) || !defined(ASC_EMU_CXX)
#error "CMake defines where the emulator's headers and library are and the compiler to use"
#endif

namespace asc::ascend {
namespace {

std::string env_or(const char* var, const char* fallback) {
  const char* v = std::getenv(var);
  return v && *v ? v : fallback;
}

// The kernel `name`, its emulator runner and its C entry `name`_entry (EmuDevice::Entry): the
// arguments go through GmAlloc'd GM (bounds-checked by every DMA), outputs included, so what lies
// between a strided output's elements comes back unchanged.
std::string entry_source(const TileProgram& p, const std::string& name) {
  std::string s = emit_kernel(p, name) + "\n" + emit_emu_runner(p, name) + "\n";
  s += cat("extern \"C\" int ", name, R"(_entry(void* const* host, const size_t* bytes,
                              int num_args, int num_inputs, char* err, size_t err_size) {
  std::vector<uint8_t*> gm(static_cast<size_t>(num_args), nullptr);
  struct Release {
    std::vector<uint8_t*>& v;
    ~Release() {
      for (uint8_t* p : v)
        if (p) AscendC::GmFree(p);
    }
  } release{gm};
  try {
    for (int a = 0; a < num_args; ++a) {
      gm[a] = static_cast<uint8_t*>(AscendC::GmAlloc(bytes[a] ? bytes[a] : 32));
      if (bytes[a] && host[a]) std::memcpy(gm[a], host[a], bytes[a]);
    }
    std::vector<std::string> races;
    ascemu::Options o;
    o.cce_auto_sync = true;  // as bisheng --cce-auto-sync=on builds them
    o.stop_at_first_race = false;
    )",
           name, R"(_emu_run(gm.data(), o, &races);
    if (!races.empty()) {
      std::snprintf(err, err_size, "%zu race(s); the first: %s", races.size(), races[0].c_str());
      return 1;
    }
    for (int a = num_inputs; a < num_args; ++a)
      if (bytes[a] && host[a]) std::memcpy(host[a], gm[a], bytes[a]);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(err, err_size, "%s", e.what());
    return 1;
  }
}
)");
  return s;
}

// A kernel's name in its shared object: the op and the hash of its source.
std::string kernel_name(const TileProgram& p, const std::string& key) {
  return cat("asc_", kernel_ident(p.op), "_", key);
}

struct EmuStep {
  EmuDevice::Entry entry = nullptr;  // null: the step runs on the cpu device
  std::vector<size_t> bytes;         // per argument
};

struct EmuPlan {
  std::vector<EmuStep> steps;  // per plan step
};

// What a compiled kernel depends on besides its source: the compiler, and the emulator's headers
// and library (names, sizes and modification times), so a rebuilt emulator compiles afresh.
std::string emulator_stamp() {
  namespace fs = std::filesystem;
  std::string s = env_or("ASC_EMU_CXX", ASC_EMU_CXX);
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e :
       fs::directory_iterator(env_or("ASC_EMU_INCLUDE_DIR", ASC_EMU_INCLUDE_DIR), ec))
    files.push_back(e.path());
  files.push_back(fs::path(env_or("ASC_EMU_LIBRARY_DIR", ASC_EMU_LIBRARY_DIR)) /
                  "libasc_ascend_emu.so");
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    const auto size = fs::file_size(f, ec);
    const auto time = fs::last_write_time(f, ec).time_since_epoch().count();
    s += cat("\n", f.filename().string(), " ", ec ? 0 : size, " ", time);
  }
  return s;
}

}  // namespace

EmuDevice::EmuDevice()
    : spec_(ascend910b()), cache_dir_(kernel_cache_dir("emu")), stamp_(emulator_stamp()) {}

EmuDevice::~EmuDevice() {
  for (auto& [key, h] : so_) dlclose(h);
}

std::string EmuDevice::unsupported(const TileProgram& p) const {
  return emission_refusal(p);
}

// Kernels are compiled in batches, one translation unit per hardware thread (the emulator's
// headers are most of a compile), and cached per kernel: <key>.ref names the shared object
// holding kernel <key>, so later plans load what earlier ones compiled.
std::shared_ptr<void> EmuDevice::prepare(const Plan& plan) {
  auto state = std::make_shared<EmuPlan>();
  state->steps.resize(plan.steps.size());
  struct Job {
    std::vector<size_t> steps;
    std::string key, name, source, op;
  };
  std::map<std::string, Job> jobs;  // by key: steps sharing a program compile it once
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& s = plan.steps[k];
    if (!s.program || s.view) continue;
    const TileProgram& p = *s.program;
    std::string key, name, source;
    try {
      key = hash_hex(emit_kernel(p, "asc_kernel") + stamp_);
      name = kernel_name(p, key);
      source = entry_source(p, name);
    } catch (const Error& e) {  // a unit the A2 lacks, or a form not emitted yet
      spdlog::debug("ascend-emu: step {} runs on the cpu: {}", k, e.what());
      source.clear();
    }
    if (source.empty()) {
      ++host_steps_;
      continue;
    }
    for (const TensorDesc& d : p.args) state->steps[k].bytes.push_back(gm_arg_bytes(d));
    Job& j = jobs[key];
    j.steps.push_back(k);
    if (j.key.empty()) j = {j.steps, key, name, std::move(source), p.op};
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const std::filesystem::path dir = cache_dir_;
  // Kernels neither loaded nor on disk, split into one batch per hardware thread.
  std::vector<const Job*> todo;
  for (const auto& [key, j] : jobs)
    if (!entries_.count(key) && !std::filesystem::exists(dir / (key + ".ref"))) todo.push_back(&j);
  const size_t nb =
      std::min<size_t>(todo.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> batch_src(nb), batch_key(nb), errors(nb);
  for (size_t t = 0; t < todo.size(); ++t) {
    batch_src[t % nb] += todo[t]->source + "\n";
    batch_key[t % nb] += todo[t]->key;
  }
  const std::string inc = env_or("ASC_EMU_INCLUDE_DIR", ASC_EMU_INCLUDE_DIR);
  const std::string lib = env_or("ASC_EMU_LIBRARY_DIR", ASC_EMU_LIBRARY_DIR);
  const std::string cxx = env_or("ASC_EMU_CXX", ASC_EMU_CXX);
  const auto command = [&](const std::string& src, const std::string& out) {
    return cat("'", cxx, "' -std=c++20 -O1 -fPIC -shared -w -DASC_EMULATOR -I'", inc, "' '", src,
               "' -o '", out, "' -L'", lib, "' -lasc_ascend_emu -Wl,-rpath,'", lib, "'");
  };
  {
    std::vector<std::thread> workers;
    for (size_t b = 0; b < nb; ++b)
      workers.emplace_back([&, b] {
        try {
          const std::string key = hash_hex(batch_key[b]);
          // kernel_operator.h first: the includes the entries use come after it.
          const std::string src =
              "#include \"kernel_operator.h\"\n#include <cstdio>\n#include "
              "<cstring>\n#include <string>\n#include <vector>\n\n" +
              batch_src[b];
          const std::string so = compile_cached(cache_dir_, "b" + key, ".so", src,
                                                cat(todo[b]->op, " (and others)"), command);
          for (size_t t = b; t < todo.size(); t += nb)
            std::ofstream(dir / (todo[t]->key + ".ref"))
                << std::filesystem::path(so).filename().string();
        } catch (const Error& e) {
          errors[b] = e.what();
        }
      });
    for (std::thread& w : workers) w.join();
  }
  for (const std::string& e : errors)
    if (!e.empty()) throw Error(e);
  for (const auto& [key, j] : jobs) {
    Entry& entry = entries_[key];
    if (!entry) {
      std::string so;
      std::ifstream(dir / (key + ".ref")) >> so;
      const std::string path = (dir / so).string();
      void*& h = so_[so];
      if (!h && !(h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        const char* why = dlerror();
        so_.erase(so);
        entries_.erase(key);
        throw Error(cat("ascend-emu: cannot load the ", j.op, " kernel from '", path,
                        "': ", why ? why : "dlopen failed"));
      }
      entry = reinterpret_cast<Entry>(dlsym(h, (j.name + "_entry").c_str()));
      if (!entry) {
        entries_.erase(key);
        throw Error(cat("ascend-emu: '", path, "' has no ", j.name, "_entry"));
      }
    }
    for (size_t k : j.steps) state->steps[k].entry = entry;
  }
  return state;
}

bool EmuDevice::launch(const Plan& plan, size_t k, std::span<void* const> args) const {
  const auto* state = static_cast<const EmuPlan*>(plan.device.get());
  if (!state || k >= state->steps.size() || !state->steps[k].entry) return false;
  const EmuStep& st = state->steps[k];
  const TileProgram& p = *plan.steps[k].program;
  if (args.size() != st.bytes.size())
    throw Error(
        cat("ascend-emu: ", p.op, " takes ", st.bytes.size(), " arguments, got ", args.size()));
  char err[4096] = {};
  std::lock_guard<std::mutex> lock(mutex_);
  if (st.entry(args.data(), st.bytes.data(), static_cast<int>(args.size()), p.num_inputs, err,
               sizeof(err)) != 0)
    throw Error(cat("ascend-emu: the ", p.op, " kernel: ", err));
  ++launches_;
  return true;
}

}  // namespace asc::ascend

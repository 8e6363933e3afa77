// The ascend device through ACL (docs/ASCENDC.md, "The ascend device"). Compiled only with
// -DASC_WITH_CANN=ON, which defines ASC_CANN_HOME (the toolkit), ASC_CANN_BISHENG (its kernel
// compiler) and ASC_CANN_TIKCFW (the Ascend C headers). Every ACL call below is named with its
// documented meaning (CANN "Runtime API" and "Kernel loading and execution" reference pages); none
// of it has been compiled or run here.
#include "runtime/devices/ascend/acl_device.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/ascend/emit_ascendc.h"
#include "runtime/devices/ascend/kernel_cache.h"

#ifndef ASC_CANN_HOME
#error "acl_device.cpp is built only with -DASC_WITH_CANN=ON (CMake defines ASC_CANN_HOME)"
#endif

namespace asc::ascend {
namespace {

namespace fs = std::filesystem;

void check(aclError e, const char* call) {
  if (e != ACL_SUCCESS) throw Error(cat("ascend: ", call, " failed with aclError ", e));
}
#define ASC_ACL(x) check((x), #x)

// One step's device memory: a buffer per GM argument and the tiling struct.
struct AclStep {
  const AclDevice::Kernel* kernel = nullptr;  // null: a host-kernel step
  std::vector<void*> gm;                      // per argument, then the tiling struct
  std::vector<size_t> bytes;                  // per argument
  uint32_t block_dim = 0;                     // min(blockDim, numTiles); 0: nothing to launch
};

struct AclPlan {
  aclrtContext context = nullptr;  // the device's; a plan may be freed on any thread
  std::vector<AclStep> steps;      // per plan step
  ~AclPlan() {
    // aclrtFree: frees device memory from aclrtMalloc. Errors are ignored in a destructor.
    aclrtSetCurrentContext(context);
    for (AclStep& s : steps)
      for (void* p : s.gm)
        if (p) aclrtFree(p);
  }
};

}  // namespace

AclDevice::AclDevice(int device)
    : device_(device), spec_(ascend910b()), cache_dir_(kernel_cache_dir("")) {
  // aclInit: initialises ACL once per process (nullptr: no configuration file). A second call
  // reports ACL_ERROR_REPEAT_INITIALIZE, which is fine for a second device object.
  const aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) check(init, "aclInit(nullptr)");
  // aclrtSetDevice: selects the device for the calling thread and creates its default context.
  ASC_ACL(aclrtSetDevice(device_));
  // aclrtGetCurrentContext: that context, bound again on other threads by bind().
  ASC_ACL(aclrtGetCurrentContext(&context_));
  // aclrtCreateStream: the one stream every launch and copy of this device goes through.
  ASC_ACL(aclrtCreateStream(&stream_));
}

AclDevice::~AclDevice() {
  aclrtSetCurrentContext(context_);  // as bind(), without throwing
  // aclrtBinaryUnLoad: releases a binary from aclrtBinaryLoadFromFile and its device copy (same
  // context as the load).
  for (auto& [key, k] : kernels_) aclrtBinaryUnLoad(k.bin);
  aclrtDestroyStream(stream_);  // aclrtDestroyStream: destroys the stream (no task pending)
  aclrtResetDevice(device_);    // aclrtResetDevice: releases the device's resources
  // aclFinalize is left to the process: other AclDevice objects may still use ACL.
}

void AclDevice::bind() const {
  // aclrtSetCurrentContext: binds a context to the calling thread.
  ASC_ACL(aclrtSetCurrentContext(context_));
}

const AclDevice::Kernel& AclDevice::load(const TileProgram& p) {
  const std::string name = "asc_" + kernel_ident(p.op);
  const std::string source = emit_kernel(p, name);
  // bisheng options (CANN "BiSheng compiler" pages): -xcce compiles device code from a .cpp,
  // --cce-aicore-arch picks the core: dav-c220-vec (910B vector core) for vector-only programs,
  // dav-c220-cube for cube-only ones, dav-c220 (both) for mixed kernels.
  // --cce-auto-sync=on: the compiler orders the vector pipe within itself and the scalar unit
  // against V/MTE2/MTE3, which the emitted kernels rely on (docs/ASCENDC.md); the emulator's
  // test runs them under the same rule. ASC_CANN_TIKCFW: the directory of the Ascend C headers
  // (kernel_operator.h), found by cmake/AscCann.cmake.
  const std::string home = ASC_CANN_HOME, tik = ASC_CANN_TIKCFW;
  const std::string type = kernel_type(p);
  const char* arch = type == "KERNEL_TYPE_AIC_ONLY"   ? "dav-c220-cube"
                     : type == "KERNEL_TYPE_AIV_ONLY" ? "dav-c220-vec"
                                                      : "dav-c220";
  const std::string flags =
      cat("-xcce -O2 -std=c++17 --cce-auto-sync=on --cce-aicore-arch=", arch, " -I'", tik, "' -I'",
          tik, "/impl' -I'", tik, "/interface' -I'", home, "/include'");
  const std::string key = hash_hex(source + "\n" + flags);
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  const std::string obj = compile_cached(
      cache_dir_, key, ".o", source, p.op, [&](const std::string& src, const std::string& out) {
        return cat("'", ASC_CANN_BISHENG, "' ", flags, " -c '", src, "' -o '", out, "'");
      });
  Kernel k;
  // aclrtBinaryLoadFromFile: loads and parses a kernel binary (*.o, absolute path) into a handle;
  // options may be null. AI Core binaries loaded this way are launched with
  // aclrtLaunchKernelWithConfig, aclrtLaunchKernelV2 or aclrtLaunchKernelWithHostArgs.
  ASC_ACL(aclrtBinaryLoadFromFile(fs::absolute(obj).c_str(), nullptr, &k.bin));
  // aclrtBinaryGetFunction: the kernel function of the binary by its name (the extern "C" name).
  ASC_ACL(aclrtBinaryGetFunction(k.bin, name.c_str(), &k.func));
  return kernels_.emplace(key, k).first->second;
}

std::string AclDevice::unsupported(const TileProgram& p) const {
  return emission_refusal(p);
}

std::shared_ptr<void> AclDevice::prepare(const Plan& plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  bind();
  auto state = std::make_shared<AclPlan>();
  state->context = context_;
  state->steps.resize(plan.steps.size());
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& s = plan.steps[k];
    if (!s.program || s.view) continue;  // a view runs nothing
    const TileProgram& p = *s.program;
    if (!unsupported(p).empty()) continue;  // runs on the cpu device
    AclStep& st = state->steps[k];
    st.kernel = &load(p);
    for (const TensorDesc& d : p.args) {
      st.bytes.push_back(gm_arg_bytes(d));
      st.gm.push_back(nullptr);
      // aclrtMalloc: device memory; HUGE_FIRST prefers huge pages. At least 32 bytes, so an empty
      // argument still has an address.
      ASC_ACL(aclrtMalloc(&st.gm.back(), std::max<size_t>(32, st.bytes.back()),
                          ACL_MEM_MALLOC_HUGE_FIRST));
    }
    // A mixed kernel's GM workspace (the L0C tiles its AIC hands to its AIVs), before the tiling.
    if (const int64_t ws = workspace_bytes(p); ws > 0) {
      st.gm.push_back(nullptr);
      ASC_ACL(aclrtMalloc(&st.gm.back(), static_cast<size_t>(ws), ACL_MEM_MALLOC_HUGE_FIRST));
    }
    // The tiling struct (emit_ascendc.h tiling_words), the kernel's last GM argument.
    const std::vector<int64_t> tiling = tiling_words(p);
    const size_t tbytes = tiling.size() * sizeof(int64_t);
    st.gm.push_back(nullptr);
    ASC_ACL(aclrtMalloc(&st.gm.back(), tbytes, ACL_MEM_MALLOC_HUGE_FIRST));
    // aclrtMemcpy(dst, destMax, src, count, kind): a synchronous copy.
    ASC_ACL(aclrtMemcpy(st.gm.back(), tbytes, tiling.data(), tbytes, ACL_MEMCPY_HOST_TO_DEVICE));
    st.block_dim =
        static_cast<uint32_t>(std::min(p.num_tiles(), std::max<int64_t>(1, p.block_dim)));
  }
  return state;
}

bool AclDevice::launch(const Plan& plan, size_t k, std::span<void* const> args) const {
  const auto* state = static_cast<const AclPlan*>(plan.device.get());
  if (!state || k >= state->steps.size() || !state->steps[k].kernel) return false;
  const AclStep& st = state->steps[k];
  const TileProgram& p = *plan.steps[k].program;
  if (args.size() != st.bytes.size())
    throw Error(cat("ascend: ", p.op, " takes ", st.bytes.size(), " arguments, got ", args.size()));
  std::lock_guard<std::mutex> lock(mutex_);
  bind();
  // Every argument is copied in, outputs too: the kernel writes only its outputs' valid regions,
  // and what lies between a strided output's elements must come back unchanged.
  for (size_t a = 0; a < args.size(); ++a)
    if (st.bytes[a] && args[a])
      ASC_ACL(aclrtMemcpy(st.gm[a], st.bytes[a], args[a], st.bytes[a], ACL_MEMCPY_HOST_TO_DEVICE));
  if (st.block_dim > 0) {
    // aclrtLaunchKernelWithHostArgs(func, numBlocks, stream, cfg, hostArgs, argsSize,
    // placeHolderArray, placeHolderNum): launches on numBlocks cores (asynchronous); hostArgs is
    // host memory holding the kernel's parameters in order — here the GM addresses, the tiling
    // struct's last; cfg null: no launch configuration; no placeholders.
    std::vector<void*> params = st.gm;  // the launch takes a non-const array
    ASC_ACL(aclrtLaunchKernelWithHostArgs(st.kernel->func, st.block_dim, stream_, nullptr,
                                          params.data(), params.size() * sizeof(void*), nullptr,
                                          0));
    // aclrtSynchronizeStream: blocks until every task of the stream has finished.
    ASC_ACL(aclrtSynchronizeStream(stream_));
  }
  for (size_t a = static_cast<size_t>(p.num_inputs); a < args.size(); ++a)
    if (st.bytes[a] && args[a])
      ASC_ACL(aclrtMemcpy(args[a], st.bytes[a], st.gm[a], st.bytes[a], ACL_MEMCPY_DEVICE_TO_HOST));
  return true;
}

}  // namespace asc::ascend

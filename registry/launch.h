// What a tiling function and a tile kernel see at launch: concrete input/output types, the
// node's attributes, the device spec; and what a tiling function returns.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "registry/attr.h"
#include "registry/device_spec.h"
#include "registry/shape.h"

namespace asc {

struct OpDef;
struct TileProgram;
class Tensor;

// One launch of a placed program: args[i] is GM argument i (inputs, then outputs).
struct ProgramLaunch {
  const TileProgram* program = nullptr;
  std::span<void* const> args;
};

struct LaunchContext {
  const OpDef* op = nullptr;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  const Attrs* attrs = nullptr;  // defaults already filled in
  const DeviceSpec* spec = nullptr;
  bool optimize = true;  // double buffering, prefetch
  // Per input: its host-visible value (a constant, or a shape-like input such as ReduceSum-13's
  // axes) or nullptr when unknown at launch. May be shorter than `inputs` (missing = unknown).
  std::vector<const Tensor*> values;
  // Host kernels: runs body(begin, end) over chunks of [0, n) on the device's workers. Set by the
  // runtime; when empty, parallel() runs the whole range inline.
  std::function<void(int64_t n, const std::function<void(int64_t, int64_t)>& body)> parallel_for;

  // Host kernels that run as a sequence of tile programs (OpDef::launches_fn; docs/RUNTIME.md,
  // "Ops as a sequence of tile programs"): launches a placed program on the runtime's device,
  // args[i] being GM argument i (inputs, then outputs, dense as the program's args). Set by the
  // runtime; when empty the op computes on the host.
  std::function<void(const TileProgram&, std::span<void* const> args)> launch_program;
  // Launches in order, each seeing what the ones before it wrote, as launch_program one after
  // another would; the device may run them in one parallel region (the cpu device: its workers
  // take tiles as they come, each waiting only for the launch before to finish), which is what
  // makes a recurrence's per-step launches cheap. Set by the runtime; launch_all falls back to
  // launch_program per launch when it is empty.
  std::function<void(std::span<const ProgramLaunch>)> launch_sequence;
  // Per input: true when it is a model constant (its bytes stay the same while the context
  // lives). May be shorter than `inputs` (missing = not known to be constant).
  std::vector<bool> constant;
  // A host kernel's own data kept across the launches of one context: the runtime keeps a
  // plan step's context for every run of that plan (one run at a time per context), so a kernel
  // may keep what depends only on constants and the signature there (the RNN family: its planned
  // programs, its transposed weights). Empty in a context made for one launch.
  mutable std::shared_ptr<void> state;

  const Attrs& attr() const { return *attrs; }
  void parallel(int64_t n, const std::function<void(int64_t, int64_t)>& body) const {
    if (n <= 0) return;
    if (parallel_for && n > 1)
      parallel_for(n, body);
    else
      body(0, n);
  }
  void launch_all(std::span<const ProgramLaunch> launches) const {
    if (launch_sequence) return launch_sequence(launches);
    for (const ProgramLaunch& l : launches) launch_program(*l.program, l.args);
  }
  // "Add(in f32[2,3], f32[3]) -> f32[2,3]" for error messages.
  std::string str() const;
};

// Tiling data: a plain record copied to every core, as CANN's tiling structs are.
struct TilingData {
  Shape grid;                             // tile grid
  int64_t block_dim = 1;                  // cores to use
  std::map<std::string, int64_t> params;  // op-specific values (tile sizes, flags)

  int64_t get(const std::string& key) const;  // throws Error naming the key
  int64_t get(const std::string& key, int64_t dflt) const;
  std::string str() const;  // "grid [4,2] block_dim 2 {TM=128, TN=256}"
};

}  // namespace asc

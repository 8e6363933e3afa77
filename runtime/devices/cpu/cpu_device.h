// The cpu device: runs TilePrograms on the host. Cores are oneTBB workers; each owns an arena
// with the spec's local memories; vector instructions are Highway loops (vec.h) and mmad runs on
// packed GEMM micro-kernels (gemm.h).
#pragma once

#include <functional>
#include <memory>
#include <span>

#include "registry/device_spec.h"
#include "registry/launch.h"
#include "registry/tile_program.h"
#include "runtime/device.h"

namespace asc::cpu {

struct Lowering;  // tile_exec.h

// Local-memory capacities derived from the host's caches, so the same tiling code gives cache
// blocking: UB = L2/2, L1 = 2 L2, L0A = L2/2, L0B = L2/2, L0C = L2; cores = threads.
DeviceSpec cpu_spec(int threads);

class CpuDevice : public Device {
 public:
  explicit CpuDevice(int threads = 0);  // 0: all hardware threads
  ~CpuDevice() override;
  CpuDevice(const CpuDevice&) = delete;
  CpuDevice& operator=(const CpuDevice&) = delete;

  // Device: runs every tile program. A program is lowered for the tile executor (tile_exec.h)
  // once: for a plan's steps by prepare (kept in Plan::device), for others at their first
  // launch, kept by this device by TileProgram::id (least recently used dropped past 4096).
  const std::string& name() const override { return name_; }
  const DeviceSpec& spec() const override { return spec_; }
  std::string unsupported(const TileProgram&) const override { return {}; }
  std::shared_ptr<void> prepare(const Plan& plan) override;
  bool launch(const Plan& plan, size_t k, std::span<void* const> args) const override;
  bool concurrent() const override { return true; }

  int threads() const { return threads_; }

  // Runs every tile of a placed program: core c of block_dim takes a contiguous range of tiles.
  // args[i] is GM argument i (inputs, then outputs), dense row-major of p.args[i].
  void launch(const TileProgram& p, std::span<void* const> args) const;

  // Runs the launches in order, each after the one before has finished, in one parallel region:
  // the workers take tiles one at a time from a shared count over all the launches and wait
  // (spinning) only for the launch before theirs to finish. A recurrence's steps (a GEMV and its
  // gates, ~10 us each) then pay no task spawn or worker wake-up per step.
  void launch_sequence(std::span<const ProgramLaunch> launches) const;

  // Runs f inside this device's thread arena (for host kernels and whole-graph parallelism).
  void run(const std::function<void()>& f) const;

  // Runs body(begin, end) over chunks of [0, n) on this device's workers (host kernels' loops).
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& body) const;

 private:
  void launch(const TileProgram& p, const Lowering& low, std::span<void* const> args) const;
  struct Impl;
  std::string name_ = "cpu";
  int threads_;
  DeviceSpec spec_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace asc::cpu

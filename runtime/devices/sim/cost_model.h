// The sim device's cost model: a pure function from a placed TileProgram (or a host kernel's
// bytes), the DeviceSpec it was tiled for and the model's constants to cycles per pipe. It never
// runs a kernel and never reads tensor data, so it predicts plans that are not executed
// (--timing-only). Every constant and formula is documented in docs/SIM.md.
#pragma once

#include <cstdint>
#include <string_view>

#include "registry/device_spec.h"
#include "registry/tile_program.h"
#include "runtime/prediction.h"

namespace asc::sim {

// The constants of the model (docs/SIM.md, "Constants"); defaults are the Atlas A2 / 910B figures.
struct CostConfig {
  double clock_hz = 1.8e9;
  double hbm_bytes_per_s = 1.6e12;  // per chip, shared by the active cores
  // L2 (192 MB per die): a GM tensor read more than once by one launch and no larger than L2
  // serves its re-reads at this rate (first reads come from HBM).
  double l2_bytes = 192.0 * 1024 * 1024;
  double l2_bytes_per_s = 4.0e12;
  double core_dma_bytes_per_cycle = 128;     // one core's MTE2 / MTE3 peak (230 GB/s)
  int64_t dma_burst_bytes = 32;              // a contiguous run is rounded up to this
  double dma_issue_cycles = 40;              // per copy instruction (descriptor, sync)
  double mte1_bytes_per_cycle = 256;         // L1 -> L0A / L0B
  double vector_repeat_bytes = 256;          // one repeat per cycle
  double vector_issue_cycles = 8;            // per instruction (255 repeats at most each)
  double vector_transcendental_repeats = 4;  // exp, log, sigmoid, ...: repeats per 256 B
  double cube_macs_per_cycle = 4096;         // 16 x 16 x 16 fp16 / bf16
  double cube_f32_rate = 0.25;               // fp32 operands: a quarter of the fp16 rate
  double cube_i8_rate = 2.0;                 // int8 operands: twice the fp16 rate
  double scalar_instr_cycles = 4;            // scalar pipe per instruction issued
  double scalar_tile_cycles = 200;  // per tile: tile loop, offsets, tiling reads, pipe flags
  double launch_us = 3.0;           // per kernel launch (host -> device task)
  // A cross-core flag between a mixed kernel's AIC and AIVs (set to seen), per side per hand-off.
  double cross_core_flag_cycles = 100;
};

// A tile program's launch. `optimized` overlap (max over pipes per stage) applies when some
// copy-in buffer has two slots (the double-buffer pass ran); otherwise the pipes serialise.
KernelCost predict_program(const TileProgram& p, const DeviceSpec& spec, const CostConfig& c);

// A host kernel (irregular op, run on the AI CPU): memory-bound at HBM bandwidth over its bytes
// in and out, plus the launch.
KernelCost predict_host_kernel(int64_t bytes_in, int64_t bytes_out, const CostConfig& c);

}  // namespace asc::sim

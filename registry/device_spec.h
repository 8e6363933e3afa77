// What a kernel may assume about the device it is tiled for: local-memory capacities, core
// counts and the alignment rules of DMA, vector and cube units.
#pragma once

#include <cstdint>
#include <string>

#include "registry/tile_ops.h"

namespace asc {

struct DeviceSpec {
  std::string name;
  int64_t ub_bytes = 0;
  int64_t l1_bytes = 0;
  int64_t l0a_bytes = 0;
  int64_t l0b_bytes = 0;
  int64_t l0c_bytes = 0;
  int cube_cores = 0;
  int vector_cores = 0;
  int64_t block_bytes = 32;  // DMA granularity and local-buffer alignment
  // Vector operands start on block boundaries (Ascend's UB): UB buffers whose rows are not whole
  // blocks get a padded layout (pad_rows), so a row-wise instruction can address every row.
  bool aligned_rows = false;
  int64_t repeat_bytes = 256;  // bytes one vector instruction repeat processes
  int fractal = 16;            // cube fractal edge: m, n, k granules (fp16)
  // Cube buffers (L1 operands, L0A/L0B/L0C) are held as whole fractals (Ascend's Nz/zZ/nZ
  // layouts): their matrices are allocated with rows and columns padded (pad_fractals).
  bool fractal_layout = false;
  // Cube tile granules: mmad tiles are multiples of these in m and n (k: mmad_k_align).
  int64_t mmad_m_align = 16;
  int64_t mmad_n_align = 16;
  int64_t mmad_k_align = 16;
  // Buffers in these positions start at multiples of these bytes (L0A/L0B 512, L0C 1024 on A2).
  int64_t l0ab_align = 512;
  int64_t l0c_align = 1024;
  // Executes on the host CPU (cpu device); the mmad lowering may pick direct forms.
  bool host = false;
  // Host only: the per-core cache all local memories share (L2). A tile whose working set spills
  // it runs from L3; on an NPU the local memories are separate SRAMs and this is 0.
  int64_t shared_cache_bytes = 0;
  // Host only: a kernel launch, or a level of independent plan steps, that reads and writes fewer
  // bytes than this runs on the calling thread: handing work to other threads costs more than it
  // saves below it (docs/PERFORMANCE.md, "Small models"). 0: always spread.
  int64_t inline_bytes = 0;

  // What the matmul tiling (ops/matmul.cpp) estimates a tile's cost with, in MACs: a device's
  // matmul kernels, described as data (the defaults are the 910B's cube).
  struct MatmulCosts {
    int64_t direct_max_m = 0;   // rows up to which B is streamed unpacked (0: always packed)
    int64_t k_chunk = 0;        // k of one micro-kernel chunk, re-reading C (0: the whole K)
    int64_t k_chunk_bf16 = 0;   // the same for bf16 operands (0: k_chunk)
    double pack_a = 32;         // per element of A packed
    double pack_b = 32;         // per element of B packed
    double pack_cols = 32;      // per element of a column matrix (image to column) packed
    double step_fixed = 2.6e5;  // per k step (issue, DMA and sync latency)
    bool ints_as_f32 = false;   // integer operands widened to 4 bytes while packing
    // A core packs its A block once for all the position tiles it walks (the cpu keeps it); an
    // NPU core loads it for every tile.
    bool keeps_a = false;
    // A column tail of up to 11 costs 4/3 of its columns (the cpu's narrow micro-kernels); else
    // the tail takes a whole n granule.
    bool narrow_tails = false;
  } matmul;

  int64_t capacity(Pos p) const;
  int64_t alignment(Pos p) const;
  std::string str() const;  // one line: name and capacities
};

// Atlas A2 / 910B: UB 192 KiB, L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB, 24 cube + 48 vector cores.
DeviceSpec ascend910b();

}  // namespace asc

#include "runtime/devices/sim/cost_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/devices/ascend/a2_cores.h"

namespace asc::sim {
namespace {

constexpr int kMte2 = static_cast<int>(Pipe::kMte2);
constexpr int kMte1 = static_cast<int>(Pipe::kMte1);
constexpr int kMte3 = static_cast<int>(Pipe::kMte3);
constexpr int kVector = static_cast<int>(Pipe::kVector);
constexpr int kCube = static_cast<int>(Pipe::kCube);
constexpr int kScalar = static_cast<int>(Pipe::kScalar);

int64_t round_up(int64_t a, int64_t b) {
  return (a + b - 1) / b * b;
}

// One core's share of a tile before the GM rates are known (MTE2 bytes per GM argument are kept
// apart, so re-reads can be priced at L2 rate), everything else in cycles.
struct SideWork {
  double pipe[kPipeCount] = {};  // cycles, MTE2 / MTE3 excluded (bytes below)
  double mte3_bytes = 0;
  double l2_in = 0, l2_out = 0;  // workspace traffic (L2-resident): reads, writes
};

// One tile: on a mixed kernel side[0] is the AIC's share and side[1] an AIV's (docs/SIM.md,
// "Split cores"); otherwise side[0] is all of it.
struct TileWork {
  SideWork side[2];
  int64_t stages = 1;  // pipelined stages: loop iterations, at least 1
};

// Repeats of one 256-byte block a vector op costs (transcendentals are instruction sequences).
double vector_repeat_factor(const Instr& in, const CostConfig& c) {
  switch (in.kind) {
    case InstrKind::kUnary:
      switch (static_cast<UnaryOp>(in.op)) {
        case UnaryOp::kSigmoid:
        case UnaryOp::kTanh:
        case UnaryOp::kExp:
        case UnaryOp::kLog:
        case UnaryOp::kErf:
        case UnaryOp::kSin:
        case UnaryOp::kCos:
        case UnaryOp::kSilu:
        case UnaryOp::kPowScalar:
          return c.vector_transcendental_repeats;
        default:
          return 1;
      }
    case InstrKind::kBinary:
      switch (static_cast<BinaryOp>(in.op)) {
        case BinaryOp::kPow:
        case BinaryOp::kMod:
          return c.vector_transcendental_repeats;
        default:
          return 1;
      }
    case InstrKind::kGather:  // its offsets (as many bytes as f32 data) are read too
      return 2;
    default:
      return 1;
  }
}

// Bytes the DMA moves for one evaluated box: each contiguous run rounded up to a burst; a
// broadcast dim (stride 0) is read once. Runs lie along the innermost dim when its stride is 1;
// into L1 (a cube operand) along whichever dim has stride 1, since the L1 -> L0 load transposes
// (a k^T block is read row by row); otherwise every element is its own run. 0 for an empty box.
double box_bytes(const GmBox& box, const int64_t* vars, int64_t es, int64_t burst, Pos dst) {
  if (box.dims.empty()) return static_cast<double>(round_up(es, burst));
  const size_t rank = box.dims.size();
  size_t run_dim = rank;  // none
  if (box.dims[rank - 1].stride == 1) {
    run_dim = rank - 1;
  } else if (dst == Pos::kL1) {
    for (size_t j = 0; j < rank; ++j)
      if (box.dims[j].stride == 1) run_dim = j;
  }
  double runs = 1;
  int64_t run_bytes = es;
  for (size_t j = 0; j < rank; ++j) {
    const BoxDim& d = box.dims[j];
    const int64_t st = d.start.eval(vars), ph = d.phase.eval(vars);
    const int64_t valid = d.hi(st, ph) - d.lo(st, ph);
    if (valid == 0) return 0;
    if (j == run_dim)
      run_bytes = valid * es;
    else if (d.stride != 0)
      runs *= static_cast<double>(valid);
  }
  return runs * static_cast<double>(round_up(run_bytes, burst));
}

struct Walker {
  const TileProgram& p;
  const DeviceSpec& spec;
  const CostConfig& c;
  std::vector<int> loop_end;
  std::vector<int64_t> vars;
  double* in_bytes = nullptr;  // copy-in bytes per GM argument and side, this tile
  TileWork* tw = nullptr;
  SideWork* w = nullptr;     // the side of the instruction being walked
  bool mixed = false;        // cube and vector work: an AIC and two AIVs per AI core
  std::vector<bool> handed;  // per L0C buffer: handed to the AIVs since the cube last wrote it
  double macs = 0;           // cube MACs over every tile walked

  Walker(const TileProgram& prog, const DeviceSpec& s, const CostConfig& cfg)
      : p(prog), spec(s), c(cfg), loop_end(prog.instrs.size(), -1) {
    bool cube = false, vec = false;
    for (const Instr& in : p.instrs) {
      if (in.kind == InstrKind::kLoopBegin || in.kind == InstrKind::kLoopEnd) continue;
      (ascend::a2::cube_side(p, in) ? cube : vec) = true;
    }
    // A chip with more vector than cube cores has them apart (the 910B: 24 AIC, 48 AIV).
    mixed = cube && vec && !s.host && s.vector_cores > s.cube_cores;
    handed.assign(p.buffers.size(), false);
    std::vector<int> open;
    for (size_t i = 0; i < p.instrs.size(); ++i) {
      if (p.instrs[i].kind == InstrKind::kLoopBegin) open.push_back(static_cast<int>(i));
      if (p.instrs[i].kind == InstrKind::kLoopEnd && !open.empty()) {
        loop_end[static_cast<size_t>(open.back())] = static_cast<int>(i);
        open.pop_back();
      }
    }
    vars.assign(static_cast<size_t>(std::max(1, p.num_vars())), 0);
  }

  int64_t bytes_of(int buf) const {
    return buf < 0 ? 0 : p.buffers[static_cast<size_t>(buf)].bytes();
  }

  // A mixed kernel's hand-off of `bytes` through the GM workspace: written by `from`, read by
  // `to`, each side waiting on a cross-core flag.
  void hand_off(SideWork& from, SideWork& to, double bytes) {
    from.l2_out += bytes;
    from.pipe[kMte3] += c.dma_issue_cycles;
    to.l2_in += bytes;
    to.pipe[kMte2] += c.dma_issue_cycles;
    from.pipe[kScalar] += c.cross_core_flag_cycles;
    to.pipe[kScalar] += c.cross_core_flag_cycles;
  }

  void instr(const Instr& in) {
    const int side = mixed && !ascend::a2::cube_side(p, in) ? 1 : 0;
    w = &tw->side[side];
    w->pipe[kScalar] += c.scalar_instr_cycles;
    if (mixed && side == 1)  // L0C results this vector instruction reads come through GM
      for (int src : in.src)
        if (src >= 0 && p.buffers[static_cast<size_t>(src)].pos == Pos::kL0C &&
            !handed[static_cast<size_t>(src)]) {
          handed[static_cast<size_t>(src)] = true;
          hand_off(tw->side[0], tw->side[1], static_cast<double>(bytes_of(src)));
        }
    if (in.kind == InstrKind::kMmad) handed[static_cast<size_t>(in.dst)] = false;
    switch (in.kind) {
      case InstrKind::kCopyIn: {
        const int64_t es = static_cast<int64_t>(dtype_size(p.args[in.arg].dtype));
        const double b = box_bytes(in.box, vars.data(), es, c.dma_burst_bytes,
                                   p.buffers[static_cast<size_t>(in.dst)].pos);
        if (b > 0) {
          in_bytes[static_cast<size_t>(side) * p.args.size() + in.arg] += b;
          w->pipe[kMte2] += c.dma_issue_cycles;
        }
        break;
      }
      case InstrKind::kCopyOut: {
        const int64_t es = static_cast<int64_t>(dtype_size(p.args[in.arg].dtype));
        const double b = box_bytes(in.box, vars.data(), es, c.dma_burst_bytes, Pos::kGM);
        if (b > 0) {
          w->mte3_bytes += b;
          w->pipe[kMte3] += c.dma_issue_cycles;
        }
        break;
      }
      case InstrKind::kLoadL0: {
        const double b = static_cast<double>(bytes_of(in.dst));
        w->pipe[kMte1] += b / c.mte1_bytes_per_cycle;
        // From a vector result in UB: the UB -> GM -> L1 round trip of the split architecture.
        if (p.buffers[static_cast<size_t>(in.src[0])].pos == Pos::kUB)
          hand_off(tw->side[mixed ? 1 : 0], tw->side[0], static_cast<double>(bytes_of(in.src[0])));
        break;
      }
      case InstrKind::kLoadIm2col:  // Load3D: the column matrix is expanded on the way to L0
        w->pipe[kMte1] += static_cast<double>(bytes_of(in.dst)) / c.mte1_bytes_per_cycle;
        if (p.buffers[static_cast<size_t>(in.src[0])].pos == Pos::kUB)  // a map the AIVs laid out
          hand_off(tw->side[mixed ? 1 : 0], tw->side[0], static_cast<double>(bytes_of(in.src[0])));
        break;
      case InstrKind::kMmad: {
        const BufferDecl& a = p.buffers[static_cast<size_t>(in.src[0])];
        const BufferDecl& b = p.buffers[static_cast<size_t>(in.src[1])];
        const int64_t f = spec.fractal > 0 ? spec.fractal : 16;
        const int64_t m = a.dims.size() >= 2 ? a.dims[a.dims.size() - 2] : 1;
        const int64_t k = a.dims.empty() ? 1 : a.dims.back();
        const int64_t n = b.dims.empty() ? 1 : b.dims.back();
        // Padded to whole fractals: the cube computes 16 x 16 x 16 blocks.
        const double padded = static_cast<double>(round_up(m, f) * round_up(n, f) *
                                                  round_up(std::max<int64_t>(k, 1), f));
        const double rate = a.dtype == DType::kF32                           ? c.cube_f32_rate
                            : a.dtype == DType::kI8 || a.dtype == DType::kU8 ? c.cube_i8_rate
                                                                             : 1.0;
        w->pipe[kCube] += padded / (c.cube_macs_per_cycle * rate);
        macs += padded;
        break;
      }
      case InstrKind::kLoopBegin:
      case InstrKind::kLoopEnd:
        break;
      default: {  // vector instructions
        int64_t bytes = bytes_of(in.dst);
        for (int s : in.src) bytes = std::max(bytes, bytes_of(s));
        const double repeats = std::ceil(static_cast<double>(bytes) / c.vector_repeat_bytes);
        const double issues = std::max(1.0, std::ceil(repeats / 255.0));
        w->pipe[kVector] += repeats * vector_repeat_factor(in, c) + issues * c.vector_issue_cycles;
        break;
      }
    }
  }

  // Runs instrs [begin, end) (loops expanded) for the current vars.
  void walk(int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const Instr& in = p.instrs[static_cast<size_t>(i)];
      if (in.kind != InstrKind::kLoopBegin) {
        instr(in);
        continue;
      }
      const int close = loop_end[static_cast<size_t>(i)];
      if (close < 0) continue;
      for (int64_t it = 0; it < in.count; ++it) {
        if (in.var >= 0) vars[static_cast<size_t>(in.var)] = it;
        for (int sd = 0; sd < (mixed ? 2 : 1); ++sd)
          tw->side[sd].pipe[kScalar] += c.scalar_instr_cycles;
        walk(i + 1, close);
      }
      tw->stages += std::max<int64_t>(0, in.count - 1);
      i = close;
    }
  }

  void tile(int64_t t, TileWork& work, double* bytes) {
    tw = &work;
    in_bytes = bytes;
    std::fill(handed.begin(), handed.end(), false);
    for (int d = p.grid_rank() - 1; d >= 0; --d) {
      const int64_t g = p.grid[static_cast<size_t>(d)];
      vars[static_cast<size_t>(d)] = g > 0 ? t % g : 0;
      t = g > 0 ? t / g : 0;
    }
    for (int sd = 0; sd < (mixed ? 2 : 1); ++sd) tw->side[sd].pipe[kScalar] += c.scalar_tile_cycles;
    walk(0, static_cast<int>(p.instrs.size()));
  }
};

}  // namespace

KernelCost predict_program(const TileProgram& p, const DeviceSpec& spec, const CostConfig& c) {
  KernelCost k;
  k.valid = true;
  k.launch_cycles = c.launch_us * 1e-6 * c.clock_hz;
  const int64_t tiles = p.num_tiles();
  if (tiles <= 0) return k;
  for (const Instr& in : p.instrs) k.cube = k.cube || in.kind == InstrKind::kMmad;
  bool overlap = false;
  for (const BufferDecl& b : p.buffers) overlap = overlap || (b.copy_in && b.slots >= 2);

  // Pass 1: per-tile work and copy-in bytes per GM argument and side.
  Walker walker(p, spec, c);
  k.mixed = walker.mixed;
  const int sides = walker.mixed ? 2 : 1;
  const size_t n_arg = std::max<size_t>(1, p.args.size());
  const size_t n_in = n_arg * 2;  // copy-ins by side and GM argument
  std::vector<TileWork> work(static_cast<size_t>(tiles));
  std::vector<double> bytes(static_cast<size_t>(tiles) * n_in, 0.0);
  std::vector<double> arg_total(n_arg, 0.0);
  for (int64_t t = 0; t < tiles; ++t) {
    double* b = bytes.data() + static_cast<size_t>(t) * n_in;
    walker.tile(t, work[static_cast<size_t>(t)], b);
    for (size_t a = 0; a < n_in; ++a) arg_total[a % n_arg] += b[a];
  }
  k.macs = walker.macs;

  // Blocks as the devices split them: block b takes a contiguous range of `per` tiles and runs
  // on physical core b % hw (more blocks than cores run in waves); a mixed kernel's block is an
  // AI core, its AIC and two AIVs.
  const int64_t blocks = std::clamp<int64_t>(p.block_dim, 1, tiles);
  const int64_t per = (tiles + blocks - 1) / blocks;
  const int64_t used_blocks = (tiles + per - 1) / per;
  const int64_t hw = std::max(1, k.cube ? spec.cube_cores : spec.vector_cores);
  k.cores = std::min(used_blocks, hw);

  // Per-core rates: the chip's HBM (and L2) bandwidth shared by the active cores (AI cores for a
  // mixed kernel, whose AIC and AIVs share their core's part), capped by one DMA engine's peak.
  // Re-reads of an argument that fits in L2 come from L2.
  const double active = static_cast<double>(k.cores);
  const double hbm = std::min(c.core_dma_bytes_per_cycle, c.hbm_bytes_per_s / c.clock_hz / active);
  const double l2 = std::min(c.core_dma_bytes_per_cycle, c.l2_bytes_per_s / c.clock_hz / active);
  std::vector<double> l2_share(n_arg, 0.0);
  for (size_t a = 0; a < p.args.size(); ++a) {
    const TensorDesc& d = p.args[a];
    const double unique = static_cast<double>(numel(d.shape) * dtype_size(d.dtype));
    if (arg_total[a] > unique && unique <= c.l2_bytes)
      l2_share[a] = (arg_total[a] - unique) / arg_total[a];
  }

  // Pass 2: each side's time per tile, each block's; a core's time is the sum of its blocks'.
  double hbm_moved = 0;  // HBM bytes of the tiles timed so far
  const auto side_time = [&](int64_t t, int sd, bool first) {
    const TileWork& tw = work[static_cast<size_t>(t)];
    const SideWork& w = tw.side[sd];
    double pipe[kPipeCount];
    std::copy(w.pipe, w.pipe + kPipeCount, pipe);
    double hbm_in = 0, l2_in = w.l2_in;
    for (size_t a = 0; a < n_arg; ++a) {
      const double b = bytes[static_cast<size_t>(t) * n_in + static_cast<size_t>(sd) * n_arg + a];
      hbm_in += b * (1 - l2_share[a]);
      l2_in += b * l2_share[a];
    }
    pipe[kMte2] += hbm_in / hbm + l2_in / l2;
    pipe[kMte3] += w.mte3_bytes / hbm + w.l2_out / l2;
    k.gm_bytes += hbm_in + l2_in + w.mte3_bytes + w.l2_out;
    hbm_moved += hbm_in + w.mte3_bytes;
    double sum = 0, top = 0;
    for (int q = 0; q < kPipeCount; ++q) {
      k.busy[q] += pipe[q];
      sum += pipe[q];
      top = std::max(top, pipe[q]);
    }
    top = std::max(top, (hbm_in + w.mte3_bytes) / hbm);  // MTE2 and MTE3 share the HBM share
    if (!overlap) return sum;
    // Pipeline fill: the first stage of the block's first tile runs unoverlapped.
    return top + (first ? (sum - top) / static_cast<double>(tw.stages) : 0.0);
  };
  std::vector<double> core_time(static_cast<size_t>(hw), 0.0);
  for (int64_t blk = 0; blk < used_blocks; ++blk) {
    const int64_t t0 = blk * per, t1 = std::min(tiles, (blk + 1) * per);
    double block_time = 0;
    if (sides == 1) {
      for (int64_t t = t0; t < t1; ++t) block_time += side_time(t, 0, t == t0);
    } else {
      // The AIC runs every tile, handing each to the AIVs, which take alternate tiles: a
      // two-stage pipeline whose fill is the AIC's first tile and whose drain an AIV's last.
      const double moved0 = hbm_moved;
      double aic = 0, aiv[2] = {0, 0}, aic_first = 0, aiv_last = 0;
      for (int64_t t = t0; t < t1; ++t) {
        const double a = side_time(t, 0, t == t0), v = side_time(t, 1, t - t0 < 2);
        aic += a;
        aiv[(t - t0) % 2] += v;
        if (t == t0) aic_first = a;
        aiv_last = v;
      }
      block_time = std::max(aic + aiv_last, std::max(aiv[0], aiv[1]) + aic_first);
      block_time = std::max(block_time, (hbm_moved - moved0) / hbm);  // the core's HBM share
    }
    core_time[static_cast<size_t>(blk % hw)] += block_time;
  }
  k.cycles = *std::max_element(core_time.begin(), core_time.end());
  return k;
}

KernelCost predict_host_kernel(int64_t bytes_in, int64_t bytes_out, const CostConfig& c) {
  KernelCost k;
  k.valid = true;
  k.host = true;
  k.cores = 1;
  k.launch_cycles = c.launch_us * 1e-6 * c.clock_hz;
  k.gm_bytes = static_cast<double>(bytes_in + bytes_out);
  k.cycles = k.gm_bytes / (c.hbm_bytes_per_s / c.clock_hz);
  return k;
}

}  // namespace asc::sim

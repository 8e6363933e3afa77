#include "runtime/devices/cpu/cpu_device.h"

#include "runtime/plan.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <mutex>
#include <thread>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/tile_claims.h"
#include "runtime/devices/cpu/tile_exec.h"
#include "runtime/lru_cache.h"

namespace asc::cpu {
namespace {

// Products on x86 take a microcode assist per denormal operand or result (~100x an FMA): Swin's
// masked attention probabilities (e^-100 and below) made its attn x v 15x slower than the
// unmasked blocks'. A program with an mmad runs its tiles with denormals flushed to zero (MXCSR
// FTZ and DAZ, what GEMM libraries offer), restored after; a denormal is below 1.2e-38, so a sum
// of K such products moves a result by less than K * 1.2e-38. Elsewhere (Arm) IEEE as is.
class FlushDenormals {
 public:
  explicit FlushDenormals(bool on) {
#if defined(__x86_64__) || defined(_M_X64)
    if (!on) return;
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | 0x8040u);  // FTZ (bit 15) | DAZ (bit 6)
    set_ = true;
#else
    (void)on;
#endif
  }
  ~FlushDenormals() {
#if defined(__x86_64__) || defined(_M_X64)
    if (set_) _mm_setcsr(saved_);
#endif
  }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  unsigned saved_ = 0;
  bool set_ = false;
};

// Bytes a launch of p reads and writes (its arguments).
int64_t launch_bytes(const TileProgram& p) {
  int64_t bytes = 0;
  for (const TensorDesc& d : p.args)
    bytes += numel(d.shape) * static_cast<int64_t>(dtype_size(d.dtype));
  return bytes;
}

// Lowerings kept by program (TileProgram::id) for launches outside a prepared plan (host ops'
// programs, run_op): a prepared plan holds its own, so this only bounds what is shared.
constexpr size_t kLoweringCache = 4096;

// A plan's lowerings, one per step (null for a host step), made by CpuDevice::prepare.
struct PreparedPlan {
  std::vector<std::shared_ptr<const Lowering>> steps;
};

void spin_pause() {
#if defined(__x86_64__) || defined(_M_X64)
  _mm_pause();
#endif
}

// Bytes of the data/unified cache at `level`, from sysfs (sysconf may report 0 in VMs).
int64_t cache_bytes(int level, int64_t fallback) {
  for (int idx = 0; idx < 8; ++idx) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    std::ifstream lf(dir + "level"), tf(dir + "type"), sf(dir + "size");
    int l = 0;
    std::string type, size;
    if (!(lf >> l) || !(tf >> type) || !(sf >> size)) continue;
    if (l != level || type == "Instruction") continue;
    int64_t v = std::stoll(size);
    if (size.back() == 'K') v *= 1024;
    if (size.back() == 'M') v *= 1024 * 1024;
    return v;
  }
  return fallback;
}

}  // namespace

DeviceSpec cpu_spec(int threads) {
  DeviceSpec s;
  s.name = "cpu";
  const int64_t l2 = std::max<int64_t>(cache_bytes(2, 1 << 20), 256 << 10);
  // L1 copy-ins feeding the cube are GM views on this device (no storage): L1 only bounds the
  // panels' double-buffered footprint. L0A holds the packed A block the micro-kernel re-streams
  // per B panel (L2-resident), L0B the packed B block, L0C the f32 C tile (re-read once per K
  // block, from L2/L3). Big L0A/L0C let a tile cover M up to ~512 rows, so B is packed once per
  // K block rather than once per M tile (asc-matmul-bench: bf16 M=512 0.7 -> 0.9 of oneDNN).
  s.ub_bytes = l2 / 2;
  s.l1_bytes = 2 * l2;
  s.l0a_bytes = l2 / 2;
  s.l0b_bytes = l2 / 2;
  s.l0c_bytes = l2;
  s.shared_cache_bytes = l2;
  s.inline_bytes = 64 << 10;
  s.cube_cores = threads;
  s.vector_cores = threads;
  s.block_bytes = 32;
  s.repeat_bytes = 64;
  s.fractal = 16;
  // Cube granules = the GEMM micro-kernel's register tile (12 x 32 on AVX-512), so tiles are
  // whole panels; k in pairs for bf16 dot products.
  const GemmKernel& g = gemm_kernel(DType::kF32);
  s.mmad_m_align = g.mr;
  s.mmad_n_align = g.nr;
  s.mmad_k_align = 16;
  s.l0ab_align = 64;
  s.l0c_align = 64;
  s.host = true;
  // The GEMM micro-kernels' costs (gemm.h): small-m products stream B unpacked; k chunks of
  // kL1 (256 f32 / 512 bf16) re-read C; packing A costs ~24 MACs' time per element, B ~4 (read
  // once, written in panels), a column matrix ~8; a k step's fixed cost is ~600 cycles of calls and
  // set-up at 16 MACs/cycle; integer operands are widened to f32 while packing.
  s.matmul.direct_max_m = kGemmDirectMaxM;
  s.matmul.k_chunk = 256;
  s.matmul.k_chunk_bf16 = 512;
  s.matmul.pack_a = 24;
  s.matmul.pack_b = 4;
  s.matmul.pack_cols = 8;
  s.matmul.step_fixed = 1e4;
  s.matmul.ints_as_f32 = true;
  s.matmul.keeps_a = true;
  s.matmul.narrow_tails = true;
  return s;
}

struct CpuDevice::Impl {
  explicit Impl(int threads) : arena(threads), lowerings(kLoweringCache) {}
  tbb::task_arena arena;
  tbb::enumerable_thread_specific<CoreArena> cores;
  LruCache<Lowering> lowerings;  // by TileProgram::id

  // The lowering depends on the program alone: made at its first launch, then kept here.
  std::shared_ptr<const Lowering> lowering(const TileProgram& p) const {
    const std::string key = std::to_string(p.id.value());
    if (auto l = lowerings.find(key)) return l;
    return lowerings.insert(key, std::make_shared<const Lowering>(lower(p)));
  }
};

CpuDevice::CpuDevice(int threads)
    : threads_(threads > 0 ? threads
                           : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
      spec_(cpu_spec(threads_)),
      impl_(std::make_unique<Impl>(threads_)) {}

CpuDevice::~CpuDevice() = default;

std::shared_ptr<void> CpuDevice::prepare(const Plan& plan) {
  auto prepared = std::make_shared<PreparedPlan>();
  for (const PlanStep& s : plan.steps)
    prepared->steps.push_back(s.program ? impl_->lowering(*s.program) : nullptr);
  return prepared;
}

bool CpuDevice::launch(const Plan& plan, size_t k, std::span<void* const> args) const {
  const TileProgram& p = *plan.steps[k].program;
  const auto* prepared = static_cast<const PreparedPlan*>(plan.device.get());
  if (prepared && k < prepared->steps.size() && prepared->steps[k])
    launch(p, *prepared->steps[k], args);
  else
    launch(p, args);
  return true;
}

void CpuDevice::launch(const TileProgram& p, std::span<void* const> args) const {
  if (p.num_tiles() <= 0) return;
  launch(p, *impl_->lowering(p), args);
}

void CpuDevice::launch(const TileProgram& p, const Lowering& low,
                       std::span<void* const> args) const {
  const int64_t tiles = p.num_tiles();
  if (tiles <= 0) return;
  // A core runs a contiguous range of tiles (its packed blocks carry over from one to the next)
  // and then takes the tiles a slower core has not begun (TileClaims), except in a small-M
  // matmul streaming its weights unpacked (a decoding step's GEMV): there each tile is a task of
  // its own, so a thread whose stream ran faster takes the tiles left — of this launch or of one
  // beside it in the level (gate and up) — instead of waiting.
  const int64_t cores = low.mmad_direct ? tiles : std::clamp<int64_t>(p.block_dim, 1, tiles);
  // A launch too small to pay for handing tiles to other threads runs them all here, in order
  // (results do not depend on which thread runs a tile).
  if (cores == 1 || threads_ == 1 || launch_bytes(p) < spec_.inline_bytes) {
    CoreArena& a = impl_->cores.local();
    a.reserve(p);
    const FlushDenormals flush(low.has_mmad);
    run_tiles(p, low, args, a, 0, tiles);
    return;
  }
  TileClaims claims(tiles, cores);
  auto run_core = [&](int64_t c) {
    CoreArena& a = impl_->cores.local();
    a.reserve(p);
    const FlushDenormals flush(low.has_mmad);
    run_tiles(p, low, args, a, [&] { return claims.next(c); });
  };
  impl_->arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, cores, 1),
        [&](const tbb::blocked_range<int64_t>& r) {
          for (int64_t c = r.begin(); c < r.end(); ++c) run_core(c);
        },
        tbb::simple_partitioner());
  });
}

void CpuDevice::launch_sequence(std::span<const ProgramLaunch> launches) const {
  // Tiles of launch i are tickets [end[i - 1], end[i]).
  std::vector<int64_t> end;
  std::vector<std::shared_ptr<const Lowering>> low;
  bool spread = false;  // some launch has tiles for other threads and pays for handing them off
  for (const ProgramLaunch& l : launches) {
    const TileProgram& p = *l.program;
    low.push_back(impl_->lowering(p));
    end.push_back((end.empty() ? 0 : end.back()) + std::max<int64_t>(p.num_tiles(), 0));
    spread = spread || (p.num_tiles() > 1 && launch_bytes(p) >= spec_.inline_bytes);
  }
  if (threads_ == 1 || launches.size() < 2 || !spread) {
    for (const ProgramLaunch& l : launches) launch(*l.program, l.args);
    return;
  }
  const int64_t total = end.back();
  std::atomic<int64_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mu;
  auto work = [&] {
    CoreArena& a = impl_->cores.local();
    size_t i = 0;
    int spins = 0;
    const TileProgram* reserved = nullptr;
    try {
      // A ticket is taken only once its launch may start, so no thread holds a tile while it
      // waits: a waiting thread the OS preempts (another process on the core) blocks nobody,
      // and the others run the sequence without it.
      for (int64_t g = next.load(std::memory_order_relaxed);;) {
        if (g >= total) break;
        while (end[i] <= g) ++i;  // tickets only grow
        const int64_t begin = i ? end[i - 1] : 0;
        if (done.load(std::memory_order_acquire) < begin) {
          if (failed.load(std::memory_order_relaxed)) return;
          if (++spins < 4096)
            spin_pause();
          else
            std::this_thread::yield();
          g = next.load(std::memory_order_relaxed);
          continue;
        }
        if (!next.compare_exchange_weak(g, g + 1, std::memory_order_relaxed)) continue;
        spins = 0;
        const TileProgram& p = *launches[i].program;
        if (reserved != &p) a.reserve(p), reserved = &p;
        const FlushDenormals flush(low[i]->has_mmad);
        run_tiles(p, *low[i], launches[i].args, a, g - begin, g - begin + 1);
        done.fetch_add(1, std::memory_order_release);
        g = next.load(std::memory_order_relaxed);
      }
    } catch (...) {
      const std::lock_guard lock(error_mu);
      if (!error) error = std::current_exception();
      failed.store(true);
    }
  };
  // A worker busy elsewhere never joins: the others take its tiles, so the region cannot wait on
  // a task that was not started.
  impl_->arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, threads_, 1),
        [&](const tbb::blocked_range<int64_t>& r) {
          for (int64_t c = r.begin(); c < r.end(); ++c) work();
        },
        tbb::simple_partitioner());
  });
  if (error) std::rethrow_exception(error);
}

void CpuDevice::run(const std::function<void()>& f) const {
  impl_->arena.execute(f);
}

void CpuDevice::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& body) const {
  if (n <= 0) return;
  if (n == 1 || threads_ == 1) {
    body(0, n);
    return;
  }
  impl_->arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, 1),
                      [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
  });
}

}  // namespace asc::cpu

// Dispatch, packing and the portable fallback of the CPU device's GEMM (see gemm.h for layouts).
#include "runtime/devices/cpu/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/devices/cpu/gemm_avx512.h"
#include "runtime/devices/cpu/vec.h"

namespace asc::cpu {
namespace {

// Element i of an f32/f16/bf16 buffer as f32.
float load_f32(DType in, const void* base, int64_t i) {
  switch (in) {
    case DType::kF16:
      return f16_to_f32(static_cast<const f16*>(base)[i]);
    case DType::kBF16:
      return bf16_to_f32(static_cast<const bf16*>(base)[i]);
    default:
      return static_cast<const float*>(base)[i];
  }
}

}  // namespace

namespace gemm_detail {
namespace {

// ---- portable fallback: mr x nr = 4 x 16, plain loops the compiler may vectorise ----
constexpr int kGenMr = 4;
constexpr int kGenNr = 16;

void generic_mmad_f32(const float* pa, const float* pb, float* c, int64_t ldc, int64_t m, int64_t n,
                      int64_t k, bool accumulate, GemmAhead* ahead, int64_t a_stride) {
  const int64_t panels = (m + kGenMr - 1) / kGenMr;
  for (int64_t p = 0; p * kGenMr < m; ++p) {
    ahead->issue(p, panels);
    const float* a = pa + p * (a_stride > 0 ? a_stride : kGenMr * k);
    const int64_t rows = std::min<int64_t>(kGenMr, m - p * kGenMr);
    for (int64_t q = 0; q * kGenNr < n; ++q) {
      const float* b = pb + q * kGenNr * k;
      const int64_t cols = std::min<int64_t>(kGenNr, n - q * kGenNr);
      float acc[kGenMr][kGenNr] = {};
      for (int64_t kk = 0; kk < k; ++kk) {
        for (int i = 0; i < kGenMr; ++i) {
          const float ai = a[kk * kGenMr + i];
          for (int j = 0; j < kGenNr; ++j) acc[i][j] += ai * b[kk * kGenNr + j];
        }
      }
      for (int64_t i = 0; i < rows; ++i) {
        float* crow = c + (p * kGenMr + i) * ldc + q * kGenNr;
        for (int64_t j = 0; j < cols; ++j) crow[j] = (accumulate ? crow[j] : 0.0f) + acc[i][j];
      }
    }
  }
}

void generic_direct(DType in, const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
                    int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
  std::vector<float> brow(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    float* crow = c + i * ldc;
    if (!accumulate) std::fill(crow, crow + n, 0.0f);
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t j = 0; j < n; ++j) brow[j] = load_f32(in, b, kk * ldb + j);
    for (int64_t i = 0; i < m; ++i) {
      const float ai = a[i * lda + kk];
      float* crow = c + i * ldc;
      for (int64_t j = 0; j < n; ++j) crow[j] += ai * brow[j];
    }
  }
}

}  // namespace

const GemmIsa& gemm_isa_generic() {
  static const GemmIsa isa{"generic",
                           {kGenMr, kGenNr, 1, DType::kF32, "generic"},
                           {0, 0, 0, DType::kUndefined, "generic"},
                           generic_mmad_f32,
                           nullptr,
                           generic_direct,
                           nullptr,
                           nullptr,
                           nullptr,
                           nullptr};
  return isa;
}

}  // namespace gemm_detail

namespace {

using gemm_detail::GemmIsa;

enum class IsaLevel { kGeneric = 0, kAvx2 = 1, kAvx512 = 2, kAvx512Bf16 = 3 };

std::atomic<int> g_forced{-1};  // -1: automatic

const GemmIsa& isa_at(IsaLevel level) {
  if (level >= IsaLevel::kAvx512Bf16)
    if (const GemmIsa* isa = gemm_detail::gemm_isa_avx512_bf16()) return *isa;
  if (level >= IsaLevel::kAvx512)
    if (const GemmIsa* isa = gemm_detail::gemm_isa_avx512()) return *isa;
  if (level >= IsaLevel::kAvx2)
    if (const GemmIsa* isa = gemm_detail::gemm_isa_avx2()) return *isa;
  return gemm_detail::gemm_isa_generic();
}

const GemmIsa& active() {
  static const GemmIsa& best =
      isa_at(gemm_detail::gemm_bf16_dot_pays() ? IsaLevel::kAvx512Bf16 : IsaLevel::kAvx512);
  const int forced = g_forced.load(std::memory_order_relaxed);
  return forced < 0 ? best : isa_at(static_cast<IsaLevel>(forced));
}

void check_in(DType in, const char* fn) {
  if (in != DType::kF32 && in != DType::kF16 && in != DType::kBF16)
    throw std::invalid_argument(std::string(fn) + ": input dtype " + std::string(dtype_name(in)) +
                                " is not f32, f16 or bf16");
}

bool packs_bf16(const GemmIsa& isa, DType in) {
  return in == DType::kBF16 && isa.mmad_bf16 != nullptr;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Packs `rows` x `k` of a source into panels of `r` rows (the A layout; B is packed as B^T with
// the same code, swapping the strides). k_pack 1 -> f32 panels; k_pack 2 -> bf16 pair panels.
void pack_panels_f32(DType in, const void* src, int64_t rs, int64_t cs, int64_t rows, int64_t k,
                     int r, float* dst) {
  if (in == DType::kF32 && rs == 1) {  // panel rows contiguous in the source (row-major B)
    // Groups of 8 source rows outer, panels inner: the source is read nearly in memory order
    // and each panel gets 8 contiguous rows (no aliasing of many write streams in L1).
    const float* s = static_cast<const float*>(src);
    for (int64_t k0 = 0; k0 < k; k0 += 8) {
      for (int64_t p = 0; p * r < rows; ++p) {
        const int64_t valid = std::min<int64_t>(r, rows - p * r);
        for (int64_t kk = k0; kk < std::min<int64_t>(k, k0 + 8); ++kk) {
          float* d = dst + p * r * k + kk * r;
          std::memcpy(d, s + kk * cs + p * r, static_cast<size_t>(valid) * sizeof(float));
          std::fill(d + valid, d + r, 0.0f);
        }
      }
    }
    return;
  }
  for (int64_t p = 0; p * r < rows; ++p) {
    const int64_t valid = std::min<int64_t>(r, rows - p * r);
    float* d = dst + p * r * k;
    if (in == DType::kF32 && cs == 1) {
      const float* s = static_cast<const float*>(src) + p * r * rs;
      for (int64_t i = 0; i < valid; ++i)
        for (int64_t kk = 0; kk < k; ++kk) d[kk * r + i] = s[i * rs + kk];
    } else {
      for (int64_t i = 0; i < valid; ++i)
        for (int64_t kk = 0; kk < k; ++kk)
          d[kk * r + i] = load_f32(in, src, (p * r + i) * rs + kk * cs);
    }
    for (int64_t i = valid; i < r; ++i)
      for (int64_t kk = 0; kk < k; ++kk) d[kk * r + i] = 0.0f;
  }
}

void pack_panels_bf16(const void* src, int64_t rs, int64_t cs, int64_t rows, int64_t k, int r,
                      uint16_t* dst) {
  const uint16_t* s = static_cast<const uint16_t*>(src);
  const int64_t kp = (k + 1) / 2 * 2;
  for (int64_t p = 0; p * r < rows; ++p) {
    const int64_t valid = std::min<int64_t>(r, rows - p * r);
    uint16_t* d = dst + p * r * kp;
    if (rs == 1) {  // panel rows contiguous in the source: interleave two source rows of k
      const uint16_t* sp = s + p * r;
      for (int64_t kk = 0; kk < kp; kk += 2) {
        uint16_t* dk = d + kk * r;
        const uint16_t* s0 = sp + kk * cs;
        const uint16_t* s1 = kk + 1 < k ? s0 + cs : nullptr;
        for (int64_t i = 0; i < valid; ++i) {
          dk[2 * i] = s0[i];
          dk[2 * i + 1] = s1 ? s1[i] : 0;
        }
        for (int64_t i = valid; i < r; ++i) dk[2 * i] = dk[2 * i + 1] = 0;
      }
      continue;
    }
    if (cs == 1) {  // k contiguous (row-major A): a pair of k is one 32-bit word to transpose
      uint32_t* d32 = reinterpret_cast<uint32_t*>(d);
      for (int64_t i = 0; i < r; ++i) {
        const uint16_t* si = s + (p * r + i) * rs;
        for (int64_t t = 0; t < k / 2; ++t) {
          uint32_t w = 0;
          if (i < valid) std::memcpy(&w, si + 2 * t, 4);
          d32[t * r + i] = w;
        }
        if (k % 2) d32[(k / 2) * r + i] = i < valid ? si[k - 1] : 0;  // little-endian: low half
      }
      continue;
    }
    for (int64_t i = 0; i < r; ++i) {
      const uint16_t* si = s + (p * r + i) * rs;
      for (int64_t kk = 0; kk < kp; ++kk)
        d[(kk / 2) * r * 2 + i * 2 + kk % 2] = (i < valid && kk < k) ? si[kk * cs] : 0;
    }
  }
}

}  // namespace

const char* gemm_force_isa(const char* isa) {
  const std::string_view s = isa ? isa : "";
  if (s.empty())
    g_forced = -1;
  else if (s == "avx512_bf16")
    g_forced = static_cast<int>(IsaLevel::kAvx512Bf16);
  else if (s == "avx512")
    g_forced = static_cast<int>(IsaLevel::kAvx512);
  else if (s == "avx2")
    g_forced = static_cast<int>(IsaLevel::kAvx2);
  else if (s == "generic")
    g_forced = static_cast<int>(IsaLevel::kGeneric);
  else
    throw std::invalid_argument("gemm_force_isa: unknown ISA '" + std::string(s) + "'");
  return active().name;
}

const char* gemm_active_isa() {
  return active().name;
}

const GemmKernel& gemm_kernel(DType in) {
  check_in(in, "gemm_kernel");
  const GemmIsa& isa = active();
  return packs_bf16(isa, in) ? isa.bf16 : isa.f32;
}

size_t gemm_packed_a_bytes(DType in, int64_t m, int64_t k) {
  const GemmKernel& g = gemm_kernel(in);
  const int64_t kp = ceil_div(k, g.k_pack) * g.k_pack;
  return static_cast<size_t>(ceil_div(m, g.mr) * g.mr * kp) * dtype_size(g.packed);
}

size_t gemm_packed_b_bytes(DType in, int64_t k, int64_t n) {
  const GemmKernel& g = gemm_kernel(in);
  const int64_t kp = ceil_div(k, g.k_pack) * g.k_pack;
  return static_cast<size_t>(ceil_div(n, g.nr) * g.nr * kp) * dtype_size(g.packed);
}

void gemm_pack_a(DType in, const void* src, int64_t rs, int64_t cs, int64_t m, int64_t k,
                 void* dst) {
  const GemmKernel& g = gemm_kernel(in);
  if (g.k_pack == 2)
    pack_panels_bf16(src, rs, cs, m, k, g.mr, static_cast<uint16_t*>(dst));
  else
    pack_panels_f32(in, src, rs, cs, m, k, g.mr, static_cast<float*>(dst));
}

void gemm_pack_b(DType in, const void* src, int64_t rs, int64_t cs, int64_t k, int64_t n,
                 void* dst) {
  const GemmKernel& g = gemm_kernel(in);
  // B panels are A panels of B^T: panel rows are B's columns (stride cs), k runs along rs.
  const GemmIsa& isa = active();
  if (g.k_pack == 2 && cs == 1 && isa.pack_b_bf16_rows)
    isa.pack_b_bf16_rows(static_cast<const uint16_t*>(src), rs, k, n, static_cast<uint16_t*>(dst));
  else if (g.k_pack == 2)
    pack_panels_bf16(src, cs, rs, n, k, g.nr, static_cast<uint16_t*>(dst));
  else if (cs == 1 && isa.pack_b_rows)
    isa.pack_b_rows(in, src, rs, k, n, static_cast<float*>(dst));
  else
    pack_panels_f32(in, src, cs, rs, n, k, g.nr, static_cast<float*>(dst));
}

void gemm_mmad(DType in, const void* pa, const void* pb, float* c, int64_t ldc, int64_t m,
               int64_t n, int64_t k, bool accumulate, GemmAhead* ahead) {
  check_in(in, "gemm_mmad");
  GemmAhead none;
  if (!ahead) ahead = &none;
  ahead->start();
  if (m > 0 && n > 0) {
    const GemmIsa& isa = active();
    if (packs_bf16(isa, in))
      isa.mmad_bf16(static_cast<const uint16_t*>(pa), static_cast<const uint16_t*>(pb), c, ldc, m,
                    n, k, accumulate, ahead, 0);
    else
      isa.mmad_f32(static_cast<const float*>(pa), static_cast<const float*>(pb), c, ldc, m, n, k,
                   accumulate, ahead, 0);
  }
  ahead->issue(1, 1);  // whatever the kernel did not reach
}

void gemm_mmad_panels(DType in, const void* pa, const void* pb, int64_t panel_stride, float* c,
                      int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate,
                      GemmAhead* ahead) {
  check_in(in, "gemm_mmad_panels");
  const GemmKernel& g = gemm_kernel(in);
  GemmAhead none;
  if (!ahead) ahead = &none;
  ahead->start();
  // One panel per call of the ISA's loop nest; `ahead` is issued in step with the panels.
  const int64_t panels = ceil_div(n, g.nr);
  const size_t es = dtype_size(g.packed);
  // The next panel's k rows (one contiguous run) are fetched while this one computes: a weight
  // streamed from DRAM arrives under the arithmetic, as in gemm_mmad_b_rows.
  const int64_t panel_bytes = ceil_div(k, g.k_pack) * g.k_pack * g.nr * static_cast<int64_t>(es);
  for (int64_t q = 0; q < panels && m > 0; ++q) {
    const auto* b = static_cast<const std::byte*>(pb) + static_cast<size_t>(q * panel_stride) * es;
    const int64_t cols = std::min<int64_t>(g.nr, n - q * g.nr);
    GemmAhead next;
    if (q + 1 < panels) next.add(b + panel_stride * static_cast<int64_t>(es), 0, 1, panel_bytes);
    next.start();
    const GemmIsa& isa = active();
    if (packs_bf16(isa, in))
      isa.mmad_bf16(static_cast<const uint16_t*>(pa), reinterpret_cast<const uint16_t*>(b),
                    c + q * g.nr, ldc, m, cols, k, accumulate, &next, 0);
    else
      isa.mmad_f32(static_cast<const float*>(pa), reinterpret_cast<const float*>(b), c + q * g.nr,
                   ldc, m, cols, k, accumulate, &next, 0);
    ahead->issue(q + 1, panels);
  }
  ahead->issue(1, 1);
}

void gemm_mmad_a_panels(DType in, const void* pa, int64_t a_stride, const void* pb, float* c,
                        int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate,
                        GemmAhead* ahead) {
  check_in(in, "gemm_mmad_a_panels");
  GemmAhead none;
  if (!ahead) ahead = &none;
  ahead->start();
  if (m > 0 && n > 0) {
    const GemmIsa& isa = active();
    if (packs_bf16(isa, in))
      isa.mmad_bf16(static_cast<const uint16_t*>(pa), static_cast<const uint16_t*>(pb), c, ldc, m,
                    n, k, accumulate, ahead, a_stride);
    else
      isa.mmad_f32(static_cast<const float*>(pa), static_cast<const float*>(pb), c, ldc, m, n, k,
                   accumulate, ahead, a_stride);
  }
  ahead->issue(1, 1);
}

bool gemm_mmad_a_panels_b_rows_supported(DType in) {
  const GemmIsa& isa = active();
  return in == DType::kF32 && isa.f32.k_pack == 1 &&
         (&isa == gemm_detail::gemm_isa_avx512() || &isa == gemm_detail::gemm_isa_avx512_bf16());
}

bool gemm_mmad_a_panels_b_rows(DType in, const void* pa, int64_t a_stride, const float* b,
                               int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                               bool accumulate, GemmAhead* ahead) {
  check_in(in, "gemm_mmad_a_panels_b_rows");
  if (!gemm_mmad_a_panels_b_rows_supported(in)) return false;
  GemmAhead none;
  if (!ahead) ahead = &none;
  ahead->start();
  if (m > 0 && n > 0)
    gemm_detail::mmad_f32_a_panels_rows(static_cast<const float*>(pa), a_stride, b, ldb, c, ldc, m,
                                        n, k, accumulate, ahead);
  ahead->issue(1, 1);
  return true;
}

bool gemm_mmad_a_panels_diag(DType in, const void* pa, int64_t a_stride, const void* pb, float* c,
                             int64_t ldc, int64_t m, int64_t n, int64_t k, int64_t diag,
                             bool accumulate) {
  check_in(in, "gemm_mmad_a_panels_diag");
  const GemmIsa& isa = active();
  if (packs_bf16(isa, in) || isa.f32.k_pack != 1 || diag <= 0) return false;
  if (m <= 0 || n <= 0) return true;
  const auto* a = static_cast<const float*>(pa);
  const auto* b = static_cast<const float*>(pb);
  if (&isa == gemm_detail::gemm_isa_avx512() || &isa == gemm_detail::gemm_isa_avx512_bf16()) {
    gemm_detail::mmad_f32_diag(a, a_stride, b, c, ldc, m, n, k, diag, accumulate);
    return true;
  }
  const int64_t mr = isa.f32.mr, nr = isa.f32.nr;
  std::vector<float> acc(static_cast<size_t>(nr));
  for (int64_t q = 0; q * nr < n; ++q) {
    const float* bq = b + q * k * nr;
    const int64_t cols = std::min(nr, n - q * nr);
    for (int64_t r = 0; r < m; ++r) {
      const float* ar = a + (r / mr) * a_stride + r % mr;
      const int64_t lo = std::min(k, r * diag), hi = std::min(k, lo + diag);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t kk = lo; kk < hi; ++kk)
        for (int64_t j = 0; j < cols; ++j) acc[j] += ar[kk * mr] * bq[kk * nr + j];
      float* cr = c + r * ldc + q * nr;
      for (int64_t j = 0; j < cols; ++j) cr[j] = (accumulate ? cr[j] : 0.0f) + acc[j];
    }
  }
  return true;
}

void gemm_direct_panels(DType in, const void* a, int64_t lda, const void* pb, int64_t panel_stride,
                        float* c, int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
  check_in(in, "gemm_direct_panels");
  if (m <= 0 || n <= 0) return;
  const GemmIsa& isa = active();
  const GemmKernel& g = gemm_kernel(in);
  const int64_t kp = ceil_div(k, g.k_pack);
  static thread_local std::vector<std::byte> buf;  // A as the kernels take it, kept per thread
  if (m == 1 && isa.gemv_panels && g.nr == 32) {
    const void* row = a;
    if (g.packed != in || k % g.k_pack != 0) {  // widen to f32, or pad the last bf16 pair
      buf.assign(static_cast<size_t>(kp * g.k_pack) * dtype_size(g.packed), std::byte{0});
      vec_cast(in, g.packed, a, buf.data(), k);
      row = buf.data();
    }
    isa.gemv_panels(g.packed, row, pb, panel_stride, c, n, kp, accumulate);
    return;
  }
  buf.resize(gemm_packed_a_bytes(in, m, k));
  gemm_pack_a(in, a, lda, 1, m, k, buf.data());
  gemm_mmad_panels(in, buf.data(), pb, panel_stride, c, ldc, m, n, k, accumulate);
}

bool gemm_mmad_b_rows_supported(DType in) {
  return in == DType::kF32 && active().mmad_f32_b_rows != nullptr;
}

bool gemm_mmad_b_rows(DType in, const void* pa, const void* b, int64_t ldb, float* c, int64_t ldc,
                      int64_t m, int64_t n, int64_t k, bool accumulate, GemmAhead* ahead) {
  if (!gemm_mmad_b_rows_supported(in)) return false;
  GemmAhead none;
  if (!ahead) ahead = &none;
  ahead->start();
  if (m > 0 && n > 0)
    active().mmad_f32_b_rows(static_cast<const float*>(pa), static_cast<const float*>(b), ldb, c,
                             ldc, m, n, k, accumulate, ahead);
  ahead->issue(1, 1);
  return true;
}

void gemm_direct(DType in, const void* a, int64_t lda, const void* b, int64_t ldb, float* c,
                 int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
  check_in(in, "gemm_direct");
  if (m <= 0 || n <= 0) return;
  const GemmIsa& isa = active();
  if (in == DType::kF32) {
    isa.direct(in, static_cast<const float*>(a), lda, b, ldb, c, ldc, m, n, k, accumulate);
    return;
  }
  // A is small on this path (m rows): convert it to f32 once, into a buffer the thread keeps (a
  // bf16 decoding step makes thousands of these calls).
  static thread_local std::vector<float> af;
  if (af.size() < static_cast<size_t>(m * k)) af.resize(static_cast<size_t>(m * k));
  const size_t es = dtype_size(in);
  for (int64_t i = 0; i < m; ++i)
    vec_cast(in, DType::kF32, static_cast<const std::byte*>(a) + i * lda * es, af.data() + i * k,
             k);
  isa.direct(in, af.data(), k, b, ldb, c, ldc, m, n, k, accumulate);
}

}  // namespace asc::cpu

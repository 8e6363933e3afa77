// The product of a pre-packed A (panels of mr rows, k-major: gemm.h) and a B of at most
// kNarrowMax columns read where it lies (a squeeze-and-excitation 1x1 convolution on a 1x1 map,
// a decoding step's conv): per panel, every k is one masked load of the panel's mr weights times
// B's value per column, broadcast — the GEMM micro-kernel would compute 32 columns for one.
#include <algorithm>
#include <cstring>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu {
namespace {

using gemm_detail::tail_mask;

constexpr int64_t kNarrowAhead = 1024;  // floats: 4 KiB ahead of the loads

template <int N>
ASC_AVX512 void narrow_panel(const float* a, int64_t mr, const float* b, int64_t brs, int64_t bcs,
                             int64_t k, float* out /* [N][16] */) {
  const __mmask16 rows = tail_mask(mr);
  __m512 acc[2][N];
  for (int j = 0; j < N; ++j) acc[0][j] = acc[1][j] = _mm512_setzero_ps();
  int64_t kk = 0;
  for (; kk + 2 <= k; kk += 2) {
    // The panels stream from L3 or memory once per run (a network's squeeze-and-excitation
    // weights): the loads waited on them with only the hardware's prefetch.
    _mm_prefetch(reinterpret_cast<const char*>(a + kk * mr + kNarrowAhead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(a + kk * mr + kNarrowAhead + 16), _MM_HINT_T0);
    const __m512 a0 = _mm512_maskz_loadu_ps(rows, a + kk * mr);
    const __m512 a1 = _mm512_maskz_loadu_ps(rows, a + (kk + 1) * mr);
    for (int j = 0; j < N; ++j) {
      acc[0][j] = _mm512_fmadd_ps(a0, _mm512_set1_ps(b[kk * brs + j * bcs]), acc[0][j]);
      acc[1][j] = _mm512_fmadd_ps(a1, _mm512_set1_ps(b[(kk + 1) * brs + j * bcs]), acc[1][j]);
    }
  }
  if (kk < k) {
    const __m512 a0 = _mm512_maskz_loadu_ps(rows, a + kk * mr);
    for (int j = 0; j < N; ++j)
      acc[0][j] = _mm512_fmadd_ps(a0, _mm512_set1_ps(b[kk * brs + j * bcs]), acc[0][j]);
  }
  for (int j = 0; j < N; ++j) _mm512_storeu_ps(out + 16 * j, _mm512_add_ps(acc[0][j], acc[1][j]));
}

ASC_AVX512 void narrow(const float* pa, int64_t a_stride, int64_t mr, const float* b, int64_t brs,
                       int64_t bcs, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                       bool accumulate) {
  alignas(64) float out[kNarrowMax * 16];
  for (int64_t p = 0; p * mr < m; ++p) {
    const float* a = pa + p * a_stride;
    switch (n) {
      case 1:
        narrow_panel<1>(a, mr, b, brs, bcs, k, out);
        break;
      case 2:
        narrow_panel<2>(a, mr, b, brs, bcs, k, out);
        break;
      case 3:
        narrow_panel<3>(a, mr, b, brs, bcs, k, out);
        break;
      default:
        narrow_panel<4>(a, mr, b, brs, bcs, k, out);
        break;
    }
    const int64_t rows = std::min(mr, m - p * mr);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float& y = c[(p * mr + i) * ldc + j];
        y = (accumulate ? y : 0.0f) + out[16 * j + i];
      }
  }
}

}  // namespace

bool gemm_mmad_a_panels_narrow(DType in, const void* pa, int64_t a_stride, const float* b,
                               int64_t brs, int64_t bcs, float* c, int64_t ldc, int64_t m,
                               int64_t n, int64_t k, bool accumulate) {
  const GemmKernel& kern = gemm_kernel(in);
  if (in != DType::kF32 || kern.packed != DType::kF32 || kern.k_pack != 1 || kern.mr > 16 ||
      n > kNarrowMax || std::strncmp(gemm_active_isa(), "avx512", 6) != 0)
    return false;
  if (m > 0 && n > 0)
    narrow(static_cast<const float*>(pa), a_stride, kern.mr, b, brs, bcs, c, ldc, m, n, k,
           accumulate);
  return true;
}

}  // namespace asc::cpu

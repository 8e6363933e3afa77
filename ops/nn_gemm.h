// The host GEMM of Conv / ConvTranspose: Y[M, N] += A[M, K] x B[K, N], all strided views.
//   A[m, k] at A[m * a_rs + k * a_cs] (a transposed weight is a_rs = 1, a_cs = Q),
//   B[k, j] at B[k * ldb + j], Y[m, j] at Y[m * ldy + j].
// Blocked so a [kKb, kNb] panel of B stays in cache while four rows of Y reuse every load of it;
// the inner loop over j is unit-stride on restrict pointers, which the compiler vectorises.
#pragma once

#include <algorithm>
#include <cstdint>

namespace asc {

template <class C>
void gemm_acc(int64_t m_n, int64_t n_n, int64_t k_n, const C* a, int64_t a_rs, int64_t a_cs,
              const C* b, int64_t ldb, C* y, int64_t ldy) {
  constexpr int64_t kNb = 512, kKb = 128;
  for (int64_t j0 = 0; j0 < n_n; j0 += kNb) {
    const int64_t nb = std::min(kNb, n_n - j0);
    for (int64_t k0 = 0; k0 < k_n; k0 += kKb) {
      const int64_t k1 = std::min(k_n, k0 + kKb);
      int64_t m = 0;
      for (; m + 4 <= m_n; m += 4) {
        C* __restrict y0 = y + m * ldy + j0;
        C* __restrict y1 = y0 + ldy;
        C* __restrict y2 = y1 + ldy;
        C* __restrict y3 = y2 + ldy;
        for (int64_t k = k0; k < k1; ++k) {
          const C* __restrict bk = b + k * ldb + j0;
          const C a0 = a[m * a_rs + k * a_cs], a1 = a[(m + 1) * a_rs + k * a_cs];
          const C a2 = a[(m + 2) * a_rs + k * a_cs], a3 = a[(m + 3) * a_rs + k * a_cs];
          for (int64_t j = 0; j < nb; ++j) {
            const C v = bk[j];
            y0[j] += a0 * v;
            y1[j] += a1 * v;
            y2[j] += a2 * v;
            y3[j] += a3 * v;
          }
        }
      }
      for (; m < m_n; ++m) {
        C* __restrict y0 = y + m * ldy + j0;
        for (int64_t k = k0; k < k1; ++k) {
          const C* __restrict bk = b + k * ldb + j0;
          const C a0 = a[m * a_rs + k * a_cs];
          for (int64_t j = 0; j < nb; ++j) y0[j] += a0 * bk[j];
        }
      }
    }
  }
}

}  // namespace asc

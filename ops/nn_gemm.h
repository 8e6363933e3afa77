// The host GEMM of Conv / ConvTranspose: Y[M, N] += A[M, K] x B[K, N], all strided views.
//   A[m, k] at A[m * a_rs + k * a_cs] (a transposed weight is a_rs = 1, a_cs = Q),
//   B[k, j] at B[k * ldb + j], Y[m, j] at Y[m * ldy + j].
// Blocked so a [kKb, kNb] panel of B stays in cache; a micro-kernel keeps a [4, kNr] tile of Y in
// registers across a whole k block (fixed-size loops the compiler vectorises), the ragged edges
// run row by row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace asc {

// Y[0:MR, 0:NV * lanes] += A[0:MR, 0:kc] x B[0:kc, 0:NV * lanes], the Y tile held in MR x NV
// 16-byte vector registers (GCC/Clang vector extension; unaligned access through memcpy).
template <class C, int MR, int NV>
inline void gemm_micro(int64_t kc, const C* a, int64_t a_rs, int64_t a_cs, const C* b, int64_t ldb,
                       C* y, int64_t ldy) {
  typedef C Vec __attribute__((vector_size(16)));
  constexpr int kLanes = 16 / sizeof(C);
  Vec acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) std::memcpy(&acc[r][v], y + r * ldy + v * kLanes, 16);
  for (int64_t k = 0; k < kc; ++k) {
    Vec bv[NV];
    for (int v = 0; v < NV; ++v) std::memcpy(&bv[v], b + k * ldb + v * kLanes, 16);
    for (int r = 0; r < MR; ++r) {
      const C av = a[r * a_rs + k * a_cs];
      for (int v = 0; v < NV; ++v) acc[r][v] += av * bv[v];
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) std::memcpy(y + r * ldy + v * kLanes, &acc[r][v], 16);
}

// Y[m0:m1, j0:j1] += A x B row by row (the edges the micro-kernel does not cover).
template <class C>
void gemm_rows(int64_t m0, int64_t m1, int64_t j0, int64_t j1, int64_t k0, int64_t k1, const C* a,
               int64_t a_rs, int64_t a_cs, const C* b, int64_t ldb, C* y, int64_t ldy) {
  for (int64_t m = m0; m < m1; ++m) {
    C* __restrict ym = y + m * ldy;
    for (int64_t k = k0; k < k1; ++k) {
      const C* __restrict bk = b + k * ldb;
      const C am = a[m * a_rs + k * a_cs];
      for (int64_t j = j0; j < j1; ++j) ym[j] += am * bk[j];
    }
  }
}

template <class C>
void gemm_acc(int64_t m_n, int64_t n_n, int64_t k_n, const C* a, int64_t a_rs, int64_t a_cs,
              const C* b, int64_t ldb, C* y, int64_t ldy) {
  constexpr int kMr = 4, kNv = 2, kNr = kNv * 16 / int(sizeof(C));
  constexpr int64_t kNb = 512, kKb = 256;
  for (int64_t j0 = 0; j0 < n_n; j0 += kNb) {
    const int64_t j1 = std::min(n_n, j0 + kNb);
    const int64_t jv = j0 + (j1 - j0) / kNr * kNr;  // [j0, jv): whole micro-tiles
    for (int64_t k0 = 0; k0 < k_n; k0 += kKb) {
      const int64_t k1 = std::min(k_n, k0 + kKb);
      const int64_t mv = m_n / kMr * kMr;
      for (int64_t m = 0; m < mv; m += kMr)
        for (int64_t j = j0; j < jv; j += kNr)
          gemm_micro<C, kMr, kNv>(k1 - k0, a + m * a_rs + k0 * a_cs, a_rs, a_cs, b + k0 * ldb + j,
                                  ldb, y + m * ldy + j, ldy);
      gemm_rows(0, mv, jv, j1, k0, k1, a, a_rs, a_cs, b, ldb, y, ldy);
      gemm_rows(mv, m_n, j0, j1, k0, k1, a, a_rs, a_cs, b, ldb, y, ldy);
    }
  }
}

}  // namespace asc

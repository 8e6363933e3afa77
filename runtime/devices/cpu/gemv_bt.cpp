// The direct mmad of a small-m product whose B is a transposed view (B[kk, j] at b[j * ldbt + kk]:
// a weight stored [N, K], as R of the recurrent ops or a Linear layer's W): dot products of A's
// rows with B's contiguous columns, so B is streamed once in its own layout instead of being
// packed at every launch. f32 only; clones for AVX-512, AVX2 and generic x86-64.
#include <cstring>

#include "runtime/devices/cpu/gemm.h"

// The helpers pass 64-byte vectors by value; they are always inlined into the clones, so no
// call crosses the ABI the warning is about.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace asc::cpu {
namespace {

typedef float V16 __attribute__((vector_size(64)));
constexpr int kCols = 4;  // columns of B per pass: A's row chunk is loaded once for all four

[[gnu::always_inline]] inline V16 load16(const float* p) {
  V16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline float hsum(V16 v) {
  float s = 0;
  for (int l = 0; l < 16; ++l) s += v[l];
  return s;
}

}  // namespace

__attribute__((target_clones("arch=skylake-avx512", "arch=haswell", "default"))) void
gemm_direct_bt_f32(const float* a, int64_t lda, const float* b, int64_t ldbt, float* c,
                   int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
  const int64_t kv = k / 16 * 16;
  int64_t j = 0;
  for (; j + kCols <= n; j += kCols) {
    const float* bj = b + j * ldbt;
    for (int64_t i = 0; i < m; ++i) {
      const float* ai = a + i * lda;
      V16 s[kCols] = {};
      for (int64_t kk = 0; kk < kv; kk += 16) {
        const V16 av = load16(ai + kk);
        for (int q = 0; q < kCols; ++q) s[q] += av * load16(bj + q * ldbt + kk);
      }
      float* ci = c + i * ldc + j;
      for (int q = 0; q < kCols; ++q) {
        float t = hsum(s[q]);
        for (int64_t kk = kv; kk < k; ++kk) t += ai[kk] * bj[q * ldbt + kk];
        ci[q] = accumulate ? ci[q] + t : t;
      }
    }
  }
  for (; j < n; ++j) {
    const float* bj = b + j * ldbt;
    for (int64_t i = 0; i < m; ++i) {
      const float* ai = a + i * lda;
      V16 s = {};
      for (int64_t kk = 0; kk < kv; kk += 16) s += load16(ai + kk) * load16(bj + kk);
      float t = hsum(s);
      for (int64_t kk = kv; kk < k; ++kk) t += ai[kk] * bj[kk];
      float& ci = c[i * ldc + j];
      ci = accumulate ? ci + t : t;
    }
  }
}

}  // namespace asc::cpu

#include "runtime/devices/cpu/gemm_int8.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "runtime/devices/cpu/gemm.h"

#define ASC_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

namespace asc::cpu {
namespace {

constexpr int64_t kVnniMr = 12, kVnniNr = 32, kVnniK2 = 256;  // k pairs per cache block

// Whether the product runs on AVX512-VNNI (below): the CPU has it and the GEMM dispatch is at an
// AVX-512 level (gemm_force_isa may restrict it).
bool vnni_active() {
  static const bool cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vnni");
  return cpu && std::string_view(gemm_active_isa()).rfind("avx512", 0) == 0;
}

// Two widened values as the i16 pair of one i32 (low half first).
int32_t pair(float lo, float hi) {
  const auto h = [](float v) {
    return static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(v)));
  };
  return static_cast<int32_t>(h(lo) | (h(hi) << 16));
}

int64_t round_up(int64_t a, int64_t b) {
  return (a + b - 1) / b * b;
}

const GemmKernel& f32_kernel() {
  const GemmKernel& g = gemm_kernel(DType::kF32);
  if (g.k_pack != 1 || g.packed != DType::kF32)
    throw std::logic_error("int8 mmad: the f32 GEMM kernel does not pack f32 with k_pack 1");
  return g;
}

// Zero points as floats, one per row / column [0, n).
std::vector<float> zeros_of(const ZeroPoint& z, int64_t n) {
  std::vector<float> v(static_cast<size_t>(std::max<int64_t>(n, 0)), 0.0f);
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(z.at(i));
  return v;
}

// dst[j] = src[j * cs] - z[j] (or - z0 when z is null) for j in [0, n).
template <class S>
void widen(const S* src, int64_t cs, int64_t n, const float* z, float z0, float* dst) {
  if (cs == 1 && !z) {
    for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<float>(src[j]) - z0;
  } else if (cs == 1) {
    for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<float>(src[j]) - z[j];
  } else {
    for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<float>(src[j * cs]) - (z ? z[j] : z0);
  }
}

template <class S>
void pack_a(const S* src, int64_t rs, int64_t cs, int64_t m, int64_t k, const ZeroPoint& za,
            float* dst) {
  const int64_t mr = f32_kernel().mr, mp = round_up(m, mr);
  const std::vector<float> z = zeros_of(za, m);
  std::vector<float> row(static_cast<size_t>(k));
  std::memset(dst, 0, int8_packed_a_bytes(m, k));
  for (int64_t i = 0; i < m; ++i) {
    widen(src + i * rs, cs, k, nullptr, z[static_cast<size_t>(i)], row.data());
    for (int64_t k0 = 0; k0 < k; k0 += kInt8Chunk) {
      const int64_t kc = std::min(kInt8Chunk, k - k0);
      float* blk = dst + mp * k0 + (i / mr) * mr * kc + i % mr;
      for (int64_t kk = 0; kk < kc; ++kk) blk[kk * mr] = row[static_cast<size_t>(k0 + kk)];
    }
  }
}

// The VNNI A layout straight from the source.
template <class S>
void pack_a_vnni(const S* src, int64_t rs, int64_t cs, int64_t m, int64_t k, const ZeroPoint& za,
                 int32_t* dst) {
  const int64_t k2n = (k + 1) / 2;
  const std::vector<float> z = zeros_of(za, m);
  std::vector<float> row(static_cast<size_t>(2 * k2n), 0.0f);
  std::memset(dst, 0, static_cast<size_t>(round_up(std::max<int64_t>(m, 1), kVnniMr) * k2n) * 4);
  for (int64_t i = 0; i < m; ++i) {
    widen(src + i * rs, cs, k, nullptr, z[static_cast<size_t>(i)], row.data());
    int32_t* d = dst + (i / kVnniMr) * k2n * kVnniMr + i % kVnniMr;
    for (int64_t k2 = 0; k2 < k2n; ++k2)
      d[k2 * kVnniMr] =
          pair(row[static_cast<size_t>(2 * k2)], row[static_cast<size_t>(2 * k2 + 1)]);
  }
}

template <class S>
void pack_b(const S* src, int64_t rs, int64_t cs, int64_t k, int64_t n, const ZeroPoint& zb,
            float* dst) {
  const int64_t nr = f32_kernel().nr;
  const std::vector<float> z = zeros_of(zb, n);
  const bool per_col = zb.p && zb.count > 1;
  const float z0 = zb.p ? static_cast<float>(zb.at(0)) : 0.0f;
  for (int64_t q = 0; q * nr < n; ++q) {
    const int64_t cols = std::min(nr, n - q * nr);
    float* panel = dst + q * nr * k;
    for (int64_t kk = 0; kk < k; ++kk) {
      float* d = panel + kk * nr;
      widen(src + kk * rs + q * nr * cs, cs, cols, per_col ? z.data() + q * nr : nullptr, z0, d);
      std::fill(d + cols, d + nr, 0.0f);
    }
  }
}

template <class S>
void widen_map(const S* map, const Im2colSource& s, float z, float* dst, const int64_t* ext) {
  for (int64_t c = s.lo[0]; c < s.hi[0]; ++c)
    for (int64_t d = s.lo[1]; d < s.hi[1]; ++d)
      for (int64_t h = s.lo[2]; h < s.hi[2]; ++h) {
        const int64_t at =
            s.base + c * s.stride[0] + d * s.stride[1] + h * s.stride[2] + s.lo[3] * s.stride[3];
        float* row = dst + (((c - s.lo[0]) * ext[1] + d - s.lo[1]) * ext[2] + h - s.lo[2]) * ext[3];
        widen(map + at, s.stride[3], ext[3], nullptr, z, row);
      }
}

}  // namespace

int32_t ZeroPoint::at(int64_t i) const {
  if (!p || count <= 0) return 0;
  const std::byte* e = p + (count == 1 ? 0 : std::min(i, count - 1)) * stride *
                               static_cast<int64_t>(dtype_size(dtype));
  switch (dtype) {
    case DType::kU8:
      return *reinterpret_cast<const uint8_t*>(e);
    case DType::kI8:
      return *reinterpret_cast<const int8_t*>(e);
    default:
      return *reinterpret_cast<const int32_t*>(e);
  }
}

size_t int8_packed_a_bytes(int64_t m, int64_t k) {
  if (vnni_active())
    return static_cast<size_t>(round_up(std::max<int64_t>(m, 1), kVnniMr) * ((k + 1) / 2)) * 4;
  return static_cast<size_t>(round_up(std::max<int64_t>(m, 1), f32_kernel().mr) * k) * 4;
}

size_t int8_packed_b_bytes(int64_t k, int64_t n) {
  return static_cast<size_t>(round_up(std::max<int64_t>(n, 1), f32_kernel().nr) * k) * 4;
}

void int8_pack_a(DType in, const void* src, int64_t rs, int64_t cs, int64_t m, int64_t k,
                 const ZeroPoint& za, float* dst) {
  if (vnni_active()) {
    int32_t* d = reinterpret_cast<int32_t*>(dst);
    if (in == DType::kU8) return pack_a_vnni(static_cast<const uint8_t*>(src), rs, cs, m, k, za, d);
    return pack_a_vnni(static_cast<const int8_t*>(src), rs, cs, m, k, za, d);
  }
  if (in == DType::kU8) return pack_a(static_cast<const uint8_t*>(src), rs, cs, m, k, za, dst);
  pack_a(static_cast<const int8_t*>(src), rs, cs, m, k, za, dst);
}

void int8_pack_b(DType in, const void* src, int64_t rs, int64_t cs, int64_t k, int64_t n,
                 const ZeroPoint& zb, float* dst) {
  if (in == DType::kU8) return pack_b(static_cast<const uint8_t*>(src), rs, cs, k, n, zb, dst);
  pack_b(static_cast<const int8_t*>(src), rs, cs, k, n, zb, dst);
}

Im2colSource int8_widen_map(DType in, const Im2colSource& src, int64_t zero,
                            std::vector<float>& scratch) {
  int64_t ext[4];
  int64_t size = 1;
  for (int j = 0; j < 4; ++j) size *= (ext[j] = std::max<int64_t>(src.hi[j] - src.lo[j], 0));
  if (scratch.size() < static_cast<size_t>(size)) scratch.resize(static_cast<size_t>(size));
  const float z = static_cast<float>(zero);
  if (size > 0) {
    if (in == DType::kU8)
      widen_map(reinterpret_cast<const uint8_t*>(src.gm), src, z, scratch.data(), ext);
    else
      widen_map(reinterpret_cast<const int8_t*>(src.gm), src, z, scratch.data(), ext);
  }
  Im2colSource w = src;
  w.gm = reinterpret_cast<const std::byte*>(scratch.data());
  w.stride[3] = 1;
  w.stride[2] = ext[3];
  w.stride[1] = ext[2] * ext[3];
  w.stride[0] = ext[1] * ext[2] * ext[3];
  w.base = 0;
  for (int j = 0; j < 4; ++j) w.base -= src.lo[j] * w.stride[j];
  return w;
}

// ---- AVX512-VNNI: vpdpwssd over i16 pairs ------------------------------------------------------
// The widened operands fit in i16, so the product runs as i16 x i16 -> i32 dot products of k
// pairs (32 multiply-adds per instruction, twice the f32 FMA's), exact in i32 with no chunks.
// Layouts: A panels of kVnniMr rows, i32 element (k2, i) = (A[i][2 k2], A[i][2 k2 + 1]) as two
// i16; B panels of 32 columns, element (k2, j) = (B[2 k2][j], B[2 k2 + 1][j]).
namespace {

// B (f32 panels of nr columns, `stride` floats apart) -> VNNI B panels of 32.
ASC_VNNI void vnni_pack_b(const float* pb, int64_t stride, int64_t k, int64_t n, int32_t* dst) {
  const int64_t nr = f32_kernel().nr, k2n = (k + 1) / 2;
  const __m512i lo16 = _mm512_set1_epi32(0xffff);
  for (int64_t q = 0; q * kVnniNr < n; ++q) {
    int32_t* panel = dst + q * k2n * kVnniNr;
    if (nr == kVnniNr) {
      const float* src = pb + q * stride;
      for (int64_t k2 = 0; k2 < k2n; ++k2) {
        const float* r0 = src + 2 * k2 * nr;
        const bool odd = 2 * k2 + 1 >= k;
        for (int h = 0; h < 2; ++h) {
          const __m512i a = _mm512_maskz_cvttps_epi32(0xffff, _mm512_loadu_ps(r0 + 16 * h));
          const __m512i b =
              odd ? _mm512_setzero_si512()
                  : _mm512_maskz_cvttps_epi32(0xffff, _mm512_loadu_ps(r0 + nr + 16 * h));
          _mm512_storeu_si512(
              panel + k2 * kVnniNr + 16 * h,
              _mm512_or_si512(_mm512_and_si512(a, lo16), _mm512_maskz_slli_epi32(0xffff, b, 16)));
        }
      }
      continue;
    }
    for (int64_t k2 = 0; k2 < k2n; ++k2)
      for (int64_t j = 0; j < kVnniNr; ++j) {
        const int64_t col = q * kVnniNr + j;
        auto at = [&](int64_t kk) {
          return col < n && kk < k ? pb[(col / nr) * stride + kk * nr + col % nr] : 0.f;
        };
        panel[k2 * kVnniNr + j] = pair(at(2 * k2), at(2 * k2 + 1));
      }
  }
}

// C[rows, cols] (+)= A panel x B panel over k2n pairs (rows <= 12, cols <= 32).
ASC_VNNI void vnni_kernel(const int32_t* a, const int32_t* b, int64_t k2n, int32_t* c, int64_t ldc,
                          int64_t rows, int64_t cols, bool accumulate) {
  __m512i acc[kVnniMr][2];
  for (auto& r : acc) r[0] = r[1] = _mm512_setzero_si512();
  for (int64_t k2 = 0; k2 < k2n; ++k2) {
    const __m512i b0 = _mm512_loadu_si512(b + k2 * kVnniNr);
    const __m512i b1 = _mm512_loadu_si512(b + k2 * kVnniNr + 16);
    const int32_t* ak = a + k2 * kVnniMr;
#pragma GCC unroll 12
    for (int r = 0; r < kVnniMr; ++r) {
      const __m512i av = _mm512_set1_epi32(ak[r]);
      acc[r][0] = _mm512_dpwssd_epi32(acc[r][0], av, b0);
      acc[r][1] = _mm512_dpwssd_epi32(acc[r][1], av, b1);
    }
  }
  const __mmask16 m0 = static_cast<__mmask16>(cols >= 16 ? 0xffff : (1u << cols) - 1);
  const __mmask16 m1 = static_cast<__mmask16>(cols >= 32   ? 0xffff
                                              : cols <= 16 ? 0
                                                           : (1u << (cols - 16)) - 1);
  for (int64_t r = 0; r < rows; ++r) {
    int32_t* cr = c + r * ldc;
    __m512i v0 = acc[r][0], v1 = acc[r][1];
    if (accumulate) {
      v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, cr));
      v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(m1, cr + 16));
    }
    _mm512_mask_storeu_epi32(cr, m0, v0);
    _mm512_mask_storeu_epi32(cr + 16, m1, v1);
  }
}

void vnni_mmad(const float* pa, const float* pb, int64_t b_panel_stride, int32_t* c, int64_t ldc,
               int64_t m, int64_t n, int64_t k, bool accumulate, std::vector<int32_t>& scratch) {
  const int64_t k2n = (k + 1) / 2, bp = round_up(n, kVnniNr) * k2n;
  if (scratch.size() < static_cast<size_t>(bp)) scratch.resize(static_cast<size_t>(bp));
  const int32_t* va = reinterpret_cast<const int32_t*>(pa);  // packed so by int8_pack_a
  int32_t* vb = scratch.data();
  vnni_pack_b(pb, b_panel_stride, k, n, vb);
  for (int64_t k0 = 0; k0 < k2n; k0 += kVnniK2) {
    const int64_t kc = std::min(kVnniK2, k2n - k0);
    for (int64_t q = 0; q * kVnniNr < n; ++q)
      for (int64_t p = 0; p * kVnniMr < m; ++p)
        vnni_kernel(va + (p * k2n + k0) * kVnniMr, vb + (q * k2n + k0) * kVnniNr, kc,
                    c + p * kVnniMr * ldc + q * kVnniNr, ldc, std::min(kVnniMr, m - p * kVnniMr),
                    std::min(kVnniNr, n - q * kVnniNr), accumulate || k0 > 0);
  }
}

}  // namespace

void int8_mmad(const float* pa, const float* pb, int64_t b_panel_stride, int32_t* c, int64_t ldc,
               int64_t m, int64_t n, int64_t k, bool accumulate, std::vector<float>& tmp) {
  if (m <= 0 || n <= 0) return;
  if (k > 0 && vnni_active()) {
    thread_local std::vector<int32_t> scratch;
    return vnni_mmad(pa, pb, b_panel_stride, c, ldc, m, n, k, accumulate, scratch);
  }
  if (k <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0);
    return;
  }
  const int64_t mp = round_up(m, f32_kernel().mr);
  if (tmp.size() < static_cast<size_t>(m * n)) tmp.resize(static_cast<size_t>(m * n));
  for (int64_t k0 = 0; k0 < k; k0 += kInt8Chunk) {
    const int64_t kc = std::min(kInt8Chunk, k - k0);
    gemm_mmad_panels(DType::kF32, pa + mp * k0, pb + k0 * f32_kernel().nr, b_panel_stride,
                     tmp.data(), n, m, n, kc, false);
    const bool add = accumulate || k0 > 0;
    for (int64_t i = 0; i < m; ++i) {
      int32_t* ci = c + i * ldc;
      const float* ti = tmp.data() + i * n;
      if (add) {
        for (int64_t j = 0; j < n; ++j) ci[j] += static_cast<int32_t>(ti[j]);
      } else {
        for (int64_t j = 0; j < n; ++j) ci[j] = static_cast<int32_t>(ti[j]);
      }
    }
  }
}

}  // namespace asc::cpu

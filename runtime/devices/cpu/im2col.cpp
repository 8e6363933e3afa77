#include "runtime/devices/cpu/im2col.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/vec.h"

namespace asc::cpu {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// First o in [0, n) with o * s + off >= lo, and the end of those with o * s + off < hi.
void window_range(int64_t lo, int64_t hi, int64_t off, int64_t s, int64_t n, int64_t& o0,
                  int64_t& o1) {
  o0 = lo - off <= 0 ? 0 : ceil_div(lo - off, s);
  o1 = hi - off <= 0 ? 0 : ceil_div(hi - off, s);
  o0 = std::min(o0, n);
  o1 = std::clamp(o1, o0, n);
}

template <class S, class P>
P convert(S v) {
  if constexpr (std::is_same_v<S, P>) {
    return v;
  } else if constexpr (std::is_same_v<S, f16>) {
    return f16_to_f32(v);
  } else {
    static_assert(std::is_same_v<S, bf16> && std::is_same_v<P, float>);
    return bf16_to_f32(v);
  }
}

// The packed layout (gemm.h): position j of panel q at k row kk is element
// q * kp * w + (kk / kp2) * w * kp2 + j * kp2 + kk % kp2, kp2 being k_pack.
template <class S, class P>
class Packer {
 public:
  Packer(const Im2colSource& s, const Im2col& g, int64_t k, int64_t w, int kp2, P* dst)
      : s_(s), g_(g), k_(k), w_(w), kp2_(kp2), dst_(dst) {
    kp_ = ceil_div(k, kp2) * kp2;
    np_ = g.positions();
    panel_ = kp_ * w;
  }

  void run() {
    const int64_t win = g_.window(), c0 = std::max<int64_t>(g_.c0, 1);
    const int64_t channels = k_ / std::max<int64_t>(win * c0, 1);
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t a = 0; a < g_.k[0]; ++a)
        for (int64_t b = 0; b < g_.k[1]; ++b)
          for (int64_t e = 0; e < g_.k[2]; ++e)
            for (int64_t l = 0; l < c0; ++l)
              row((((c * g_.k[0] + a) * g_.k[1] + b) * g_.k[2] + e) * c0 + l, c, a, b, e, l);
    for (int64_t kk = k_; kk < kp_; ++kk) zeros(kk, 0, np_);
    const int64_t padded = ceil_div(np_, w_) * w_;
    for (int64_t kk = 0; kk < kp_ && padded > np_; ++kk) zeros(kk, np_, padded - np_);
  }

 private:
  P* at(int64_t kk, int64_t p) const {
    return dst_ + (p / w_) * panel_ + (kk / kp2_) * w_ * kp2_ + (p % w_) * kp2_ + kk % kp2_;
  }

  // Positions [p, p + n) of row kk set to zero, one run per panel (no index arithmetic per
  // element: a tile of few positions pads most of its panel with these).
  void zeros(int64_t kk, int64_t p, int64_t n) {
    while (n > 0) {
      const int64_t run = std::min(n, w_ - p % w_);
      P* d = at(kk, p);
      if (kp2_ == 1)
        std::memset(static_cast<void*>(d), 0, static_cast<size_t>(run) * sizeof(P));
      else
        for (int64_t i = 0; i < run; ++i) d[i * kp2_] = P{};
      p += run;
      n -= run;
    }
  }

  // Positions [p, p + n) of row kk from src[i * step], split at panel edges.
  void values(int64_t kk, int64_t p, const S* src, int64_t step, int64_t n) {
    while (n > 0) {
      const int64_t run = std::min(n, w_ - p % w_);
      P* d = at(kk, p);
      if (kp2_ == 1 && step == 1 && std::is_same_v<S, P>) {
        std::memcpy(d, src, static_cast<size_t>(run) * sizeof(P));
      } else {
        for (int64_t i = 0; i < run; ++i) d[i * kp2_] = convert<S, P>(src[i * step]);
      }
      p += run;
      n -= run;
      src += run * step;
    }
  }

  // Row kk = (c, a, b, e, l) of the column matrix over every position of the tile: l is the
  // lane of an NC1HWC0 map's channel block c (0 for an NCDHW map, channel c).
  void row(int64_t kk, int64_t c, int64_t a, int64_t b, int64_t e, int64_t l) {
    const int64_t ow_n = g_.out[2];
    if (c < s_.lo[0] || c >= s_.hi[0]) {
      zeros(kk, 0, np_);
      return;
    }
    int64_t w0, w1;  // the ow whose input column lies inside the map
    window_range(s_.lo[3], s_.hi[3], e * g_.d[2], g_.s[2], ow_n, w0, w1);
    const S* map = reinterpret_cast<const S*>(s_.gm);
    for (int64_t od = 0; od < g_.out[0]; ++od)
      for (int64_t oh = 0; oh < g_.out[1]; ++oh) {
        const int64_t p = (od * g_.out[1] + oh) * ow_n;
        const int64_t id = od * g_.s[0] + a * g_.d[0], ih = oh * g_.s[1] + b * g_.d[1];
        if (id < s_.lo[1] || id >= s_.hi[1] || ih < s_.lo[2] || ih >= s_.hi[2]) {
          zeros(kk, p, ow_n);
          continue;
        }
        zeros(kk, p, w0);
        const int64_t off = s_.base + c * s_.stride[0] + id * s_.stride[1] + ih * s_.stride[2] +
                            (w0 * g_.s[2] + e * g_.d[2]) * s_.stride[3] + l;
        if (w1 > w0) values(kk, p + w0, map + off, g_.s[2] * s_.stride[3], w1 - w0);
        zeros(kk, p + w1, ow_n - w1);
      }
  }

  const Im2colSource& s_;
  const Im2col& g_;
  int64_t k_, w_;
  int kp2_;
  P* dst_;
  int64_t kp_ = 0, np_ = 0, panel_ = 0;
};

template <class S, class P>
void pack_as(const Im2colSource& s, const Im2col& g, int64_t k, int64_t w, int kp2, void* dst) {
  Packer<S, P>(s, g, k, w, kp2, static_cast<P*>(dst)).run();
}

}  // namespace

size_t im2col_packed_bytes(DType in, bool a_side, int64_t k, int64_t positions) {
  return a_side ? gemm_packed_a_bytes(in, positions, k) : gemm_packed_b_bytes(in, k, positions);
}

void im2col_pack(DType in, bool a_side, const Im2colSource& src, const Im2col& g, int64_t k,
                 void* dst) {
  const GemmKernel& kern = gemm_kernel(in);
  const int64_t w = a_side ? kern.mr : kern.nr;
  const bool to_bf16 = kern.packed == DType::kBF16;
  if (!a_side && !to_bf16 && kern.k_pack == 1 && kern.nr == 32 && g.c0 == 1 &&
      im2col_pack_avx512(in, src, g, k, static_cast<float*>(dst)))
    return;
  switch (in) {
    case DType::kF32:
      return pack_as<float, float>(src, g, k, w, kern.k_pack, dst);
    case DType::kF16:
      return pack_as<f16, float>(src, g, k, w, kern.k_pack, dst);
    case DType::kBF16:
      if (to_bf16) return pack_as<bf16, bf16>(src, g, k, w, kern.k_pack, dst);
      return pack_as<bf16, float>(src, g, k, w, kern.k_pack, dst);
    default:
      throw std::invalid_argument("load_l0_im2col: no cube kernel for " +
                                  std::string(dtype_name(in)));
  }
}

}  // namespace asc::cpu

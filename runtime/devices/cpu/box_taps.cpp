// box_accumulate_taps' separable form for max and min (box_io.h): a pool's kh x kw window read as
// kh rows of kw taps. Per output row, the rows of the groups valid there are combined first over
// the span their columns cover (V, one vector op per row and 16 columns), then V's kw strided taps
// into the accumulator: (kh + kw) reads per output instead of kh * kw. Up to kFusedTaps
// contiguous column taps run as one pass (TapsKernels::fused) with V in registers, each tap a
// lane shift: SqueezeNet's 3x3/2 pools 10-20 % faster than V stored and read back per tap. Taps
// outside the tensor (the padding) are never read: a group only where its rows are inside, a
// column tap only over its valid columns (the fused pass: V holds op's identity past the row's
// ends, so the padded edge columns need no pass of their own).
#include <algorithm>
#include <vector>

#include "runtime/devices/cpu/box_io.h"

namespace asc::cpu {
namespace {

constexpr size_t kMaxGroups = 64;
// How far ahead of the output row being made its map is fetched (past a plane's end: the next
// channel's, the map's continuation). squeezenet1_1's first max pool (64 x 111 x 111, 3 MB from
// the stem just before) in the model: 0.23 -> 0.18 ms on one thread, 0.14 -> 0.09 on two;
// resnet18's 0.28 -> 0.22 (from one step ahead; 4 and 16 KiB measured between the two).
constexpr int64_t kPrefetchBytes = 8 << 10;

float apply_minmax(BinaryOp op, float a, float b) {
  return op == BinaryOp::kMax ? std::max(a, b) : std::min(a, b);
}

// The window as groups of kw taps: tap g * kw + i starts i * delta after tap g * kw, shares its
// valid rows (every dim but the last) with tap g * kw and its valid columns with tap i.
struct TapGrid {
  int64_t kw = 0, groups = 0, delta = 0;
};

bool same_rows(const BoxEval& a, const BoxEval& b, size_t c) {
  for (size_t j = 0; j < c; ++j)
    if (a.lo[j] != b.lo[j] || a.hi[j] != b.hi[j]) return false;
  return true;
}

bool tap_grid(std::span<const BoxEval> e, size_t c, TapGrid& g) {
  const int64_t k = static_cast<int64_t>(e.size());
  g.delta = k > 1 ? e[1].base - e[0].base : 1;
  g.kw = 1;
  while (g.kw < k && e[g.kw].base - e[g.kw - 1].base == g.delta && same_rows(e[g.kw], e[0], c))
    ++g.kw;
  if (g.delta <= 0 && g.kw > 1) return false;
  if (k % g.kw != 0) return false;
  g.groups = k / g.kw;
  if (g.groups > static_cast<int64_t>(kMaxGroups)) return false;
  for (int64_t q = 0; q < g.groups; ++q)
    for (int64_t i = 0; i < g.kw; ++i) {
      const BoxEval &t = e[q * g.kw + i], &head = e[q * g.kw], &col = e[i];
      if (t.base - head.base != i * g.delta || !same_rows(t, head, c) || t.lo[c] != col.lo[c] ||
          t.hi[c] != col.hi[c])
        return false;
    }
  return true;
}

struct Separable {
  const float* gm = nullptr;
  std::span<const BoxEval> e;
  const GmBox* box = nullptr;
  BinaryOp op = BinaryOp::kMax;
  TapsKernels k;
  TapGrid grid;
  size_t c = 0;                  // the last dim
  int64_t cs = 1;                // its GM stride
  int64_t umin = 0, nu = 0;      // the row offsets the column taps read: V = [umin, umin + nu)
  int64_t xl = 0, xh = 0;        // the columns every tap covers
  int64_t xa = 0, xb = 0;        // the columns some tap covers
  int64_t inner[kMaxRank] = {};  // the dense local buffer's strides
  int64_t idx[kMaxRank] = {};    // the output row's index in every dim but the last
  std::vector<int64_t> off;      // per column tap, V's offset of column xl
  std::vector<float> v;
};

// Each column tap's columns outside the common ones [xl, xh) (a pool's padded edges), V's column
// u read as v_at(u).
template <class VAt>
void rims(const Separable& s, float* acc, const VAt& v_at) {
  for (int64_t i = 0; i < s.grid.kw; ++i) {
    const BoxEval& t = s.e[static_cast<size_t>(i)];
    const int64_t shift = i * s.grid.delta - s.umin;
    const auto rim = [&](int64_t lo, int64_t hi) {
      for (int64_t x = lo; x < hi; ++x) acc[x] = apply_minmax(s.op, acc[x], v_at(x * s.cs + shift));
    };
    rim(t.lo[s.c], std::min(t.hi[s.c], std::max(s.xl, t.lo[s.c])));
    rim(std::max(t.lo[s.c], std::min(s.xh, t.hi[s.c])), t.hi[s.c]);
  }
}

// One output row (acc) from the rows of its valid groups (rows[q][u]: V's column u).
void separable_row(Separable& s, const float* const* rows, int64_t n_rows, float* acc) {
  const int64_t kw = s.grid.kw;
  if (s.k.fused && s.grid.delta == 1 && kw <= kFusedTaps) {  // the rims too: V is op's
    if (s.xa < s.xb)                                         // identity outside [0, nu)
      s.k.fused(rows, n_rows, s.xa * s.cs - s.umin, s.nu, kw, s.xb - s.xa, acc + s.xa);
    return;
  }
  const float* v = rows[0];
  if (n_rows > 1) {
    if (s.k.rows) {
      s.k.rows(rows, n_rows, s.nu, s.v.data());
    } else {
      for (int64_t u = 0; u < s.nu; ++u) {
        float x = rows[0][u];
        for (int64_t q = 1; q < n_rows; ++q) x = apply_minmax(s.op, x, rows[q][u]);
        s.v[static_cast<size_t>(u)] = x;
      }
    }
    v = s.v.data();
  }
  if (s.xl < s.xh && s.k.cols)
    s.k.cols(v, s.off.data(), kw, s.xh - s.xl, acc + s.xl);
  else if (s.xl < s.xh)
    for (int64_t x = 0; x < s.xh - s.xl; ++x)
      for (int64_t i = 0; i < kw; ++i)
        acc[s.xl + x] =
            apply_minmax(s.op, acc[s.xl + x], v[s.off[static_cast<size_t>(i)] + x * s.cs]);
  rims(s, acc, [v](int64_t u) { return v[u]; });
}

// The output rows of the last two dims (j = c - 1): the groups inside in every dim before j
// found once, then per row those whose rows cover it.
void separable_plane(Separable& s, size_t j, int64_t at, int64_t local, float* acc) {
  const float* base[kMaxGroups];
  int64_t glo[kMaxGroups], ghi[kMaxGroups];
  int64_t ng = 0, lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t q = 0; q < s.grid.groups; ++q) {
    const BoxEval& h = s.e[static_cast<size_t>(q * s.grid.kw)];
    bool inside = true;
    for (size_t d = 0; d < j && inside; ++d) inside = s.idx[d] >= h.lo[d] && s.idx[d] < h.hi[d];
    if (!inside || h.lo[j] >= h.hi[j]) continue;
    base[ng] = s.gm + h.base + at + s.umin;
    glo[ng] = h.lo[j];
    ghi[ng] = h.hi[j];
    lo = std::min(lo, glo[ng]);
    hi = std::max(hi, ghi[ng]);
    ++ng;
  }
  const int64_t stride = s.box->dims[j].stride;
  const int64_t ahead = std::max<int64_t>(1, kPrefetchBytes / (4 * std::max<int64_t>(stride, 1)));
  for (int64_t i = lo; i < hi; ++i) {
    const float* rows[kMaxGroups];
    int64_t n = 0;
    for (int64_t g = 0; g < ng; ++g)
      if (i >= glo[g] && i < ghi[g]) rows[n++] = base[g] + i * stride;
    // The rows that the output row `ahead` steps further down reads and the one before it does
    // not: the map comes once, from L3, memory or the core that wrote it, and a row's worth of
    // lead (one step) was less than their latency.
    for (int64_t q = 0; q < n; ++q)
      if (rows[q] + stride > rows[n - 1])
        for (int64_t u = 0; u < s.nu; u += 16)
          __builtin_prefetch(rows[q] + ahead * stride + u, 0, 3);
    if (n > 0) separable_row(s, rows, n, acc + local + i * s.inner[j]);
  }
}

// Dims j.. of the output rows; `at` the GM offset of the index in dims before j (from any tap's
// base), `local` its offset in acc.
void separable_dims(Separable& s, size_t j, int64_t at, int64_t local, float* acc) {
  const size_t groups = static_cast<size_t>(s.grid.groups);
  if (j + 1 == s.c) {
    separable_plane(s, j, at, local, acc);
    return;
  }
  if (j == s.c) {  // a box of one dim: one row, every group's
    const float* rows[kMaxGroups];
    for (size_t q = 0; q < groups; ++q)
      rows[q] = s.gm + s.e[q * static_cast<size_t>(s.grid.kw)].base + at + s.umin;
    separable_row(s, rows, static_cast<int64_t>(groups), acc + local);
    return;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;  // the rows any group covers
  for (size_t q = 0; q < groups; ++q) {
    const BoxEval& h = s.e[q * static_cast<size_t>(s.grid.kw)];
    lo = std::min(lo, h.lo[j]);
    hi = std::max(hi, h.hi[j]);
  }
  for (int64_t i = lo; i < hi; ++i) {
    s.idx[j] = i;
    separable_dims(s, j + 1, at + i * s.box->dims[j].stride, local + i * s.inner[j], acc);
  }
}

}  // namespace

bool box_accumulate_taps_separable(const std::byte* gm, const GmBox& box,
                                   std::span<const BoxEval> e, std::byte* acc, BinaryOp op) {
  const size_t r = box.dims.size();
  if ((op != BinaryOp::kMax && op != BinaryOp::kMin) || e.size() < 2 || r == 0) return false;
  for (const BoxEval& t : e)
    if (t.empty) return false;
  Separable s;
  s.gm = reinterpret_cast<const float*>(gm);
  s.e = e;
  s.box = &box;
  s.op = op;
  s.c = r - 1;
  s.cs = box.dims[r - 1].stride;
  s.k = taps_kernels_f32(op, s.cs);
  if ((s.cs != 1 && s.cs != 2) || !tap_grid(e, s.c, s.grid) || s.grid.kw < 2 || s.grid.groups < 2)
    return false;
  const int64_t kw = s.grid.kw;
  int64_t umax = INT64_MIN;
  s.umin = INT64_MAX;
  s.xl = INT64_MIN, s.xh = INT64_MAX;
  s.xa = INT64_MAX, s.xb = INT64_MIN;
  for (int64_t i = 0; i < kw; ++i) {
    const BoxEval& t = e[static_cast<size_t>(i)];
    s.umin = std::min(s.umin, t.lo[s.c] * s.cs + i * s.grid.delta);
    umax = std::max(umax, (t.hi[s.c] - 1) * s.cs + i * s.grid.delta);
    s.xl = std::max(s.xl, t.lo[s.c]);
    s.xh = std::min(s.xh, t.hi[s.c]);
    if (t.lo[s.c] < t.hi[s.c]) s.xa = std::min(s.xa, t.lo[s.c]), s.xb = std::max(s.xb, t.hi[s.c]);
  }
  s.nu = umax - s.umin + 1;
  s.off.resize(static_cast<size_t>(kw));
  for (int64_t i = 0; i < kw; ++i)
    s.off[static_cast<size_t>(i)] = s.xl * s.cs + i * s.grid.delta - s.umin;
  thread_local std::vector<float> scratch;
  scratch.resize(static_cast<size_t>(s.nu));
  s.v.swap(scratch);
  int64_t size = 1;
  for (size_t j = r; j-- > 0;) {
    s.inner[j] = size;
    size *= box.dims[j].size;
  }
  separable_dims(s, 0, 0, 0, reinterpret_cast<float*>(acc));
  s.v.swap(scratch);
  return true;
}

}  // namespace asc::cpu

#include "runtime/devices/cpu/box_io.h"

#include <algorithm>
#include <cstring>

#include "runtime/devices/cpu/vec.h"

namespace asc::cpu {
namespace {

// dst[a * ld + c] = src[a * sa + c * sc] (elements of T) for a < na, c < nc: the last two box
// dims when the inner one is strided (a transposed read). 8x8 blocks: the 8 GM rows a block reads
// stay in L1 while their lines are used up, even at a power-of-two stride where they all share
// one 8-way L1 set, and the local rows are written contiguously.
template <typename T>
void gather_2d(const std::byte* src, int64_t sa, int64_t sc, int64_t na, int64_t nc, std::byte* dst,
               int64_t ld) {
  constexpr int64_t kBlock = 8;
  for (int64_t a0 = 0; a0 < na; a0 += kBlock) {
    const int64_t a1 = std::min(na, a0 + kBlock);
    for (int64_t c0 = 0; c0 < nc; c0 += kBlock) {
      const int64_t c1 = std::min(nc, c0 + kBlock);
      for (int64_t a = a0; a < a1; ++a)
        for (int64_t c = c0; c < c1; ++c)
          std::memcpy(dst + (a * ld + c) * sizeof(T), src + (a * sa + c * sc) * sizeof(T),
                      sizeof(T));
    }
  }
}

bool gather_2d_any(const std::byte* src, int64_t sa, int64_t sc, int64_t na, int64_t nc,
                   std::byte* dst, int64_t ld, size_t es) {
  switch (es) {
    case 1:
      gather_2d<uint8_t>(src, sa, sc, na, nc, dst, ld);
      return true;
    case 2:
      gather_2d<uint16_t>(src, sa, sc, na, nc, dst, ld);
      return true;
    case 4:
      gather_2d<uint32_t>(src, sa, sc, na, nc, dst, ld);
      return true;
    case 8:
      gather_2d<uint64_t>(src, sa, sc, na, nc, dst, ld);
      return true;
    default:
      return false;
  }
}

// dst[i] = src[i * stride] for i < n, elements of T (stride 0: a broadcast, one value filled).
template <typename T>
inline void gather_strided(const std::byte* src, int64_t stride, int64_t n, std::byte* dst) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  if (stride == 0) {
    T v;
    std::memcpy(&v, s, sizeof(T));
    std::fill(d, d + n, v);
    return;
  }
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i, s + i * stride, sizeof(T));
}

inline void gather_strided_any(const std::byte* src, int64_t stride, int64_t n, std::byte* dst,
                               size_t es) {
  switch (es) {
    case 1:
      return gather_strided<uint8_t>(src, stride, n, dst);
    case 2:
      return gather_strided<uint16_t>(src, stride, n, dst);
    case 4:
      return gather_strided<uint32_t>(src, stride, n, dst);
    case 8:
      return gather_strided<uint64_t>(src, stride, n, dst);
    default:
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * es, src + static_cast<size_t>(i * stride) * es, es);
  }
}

// dst[i * stride] = src[i] for i < n, elements of es bytes.
template <typename T>
inline void scatter_strided(const std::byte* src, int64_t stride, int64_t n, std::byte* dst) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * stride, s + i, sizeof(T));
}

inline void scatter_strided_any(const std::byte* src, int64_t stride, int64_t n, std::byte* dst,
                                size_t es) {
  switch (es) {
    case 2:
      return scatter_strided<uint16_t>(src, stride, n, dst);
    case 4:
      return scatter_strided<uint32_t>(src, stride, n, dst);
    case 8:
      return scatter_strided<uint64_t>(src, stride, n, dst);
    default:
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * stride * static_cast<int64_t>(es), src + i * static_cast<int64_t>(es),
                    es);
  }
}

// An innermost stride up to this reads every line of a row anyway (a strided window of a
// feature map): copied row by row. Beyond it (a transposed read): 8x8 blocks (gather_2d).
constexpr int64_t kRowStrideMax = 8;

// The box's valid region as nested runs, outermost first: per dim its count and its strides in
// GM and in the dense local buffer (elements). Dims of one valid element are dropped (but the
// last), and a dim merges into the one outside it when both layouts continue across them (a
// convolution tile's [m][oh][ow] rows of whole planes: one run), so a move makes one call per
// contiguous run rather than one per box row. The last dim's local stride is 1.
struct Walk {
  int rank = 0;
  int64_t n[kMaxRank], gs[kMaxRank], ls[kMaxRank];
};

Walk walk_of(const GmBox& box, const BoxEval& e, const int64_t* inner) {
  Walk w;
  const size_t r = box.dims.size();
  for (size_t j = 0; j < r; ++j) {
    const int64_t cnt = e.valid(j), g = box.dims[j].stride, l = inner[j];
    if (cnt == 1 && j + 1 < r) continue;
    if (w.rank > 0) {
      const int o = w.rank - 1;
      if (w.gs[o] == cnt * g && w.ls[o] == cnt * l) {
        w.n[o] *= cnt;
        w.gs[o] = g;
        w.ls[o] = l;
        continue;
      }
    }
    w.n[w.rank] = cnt;
    w.gs[w.rank] = g;
    w.ls[w.rank] = l;
    ++w.rank;
  }
  return w;
}

void gather(const std::byte* gm, const Walk& w, int j, std::byte* dst, size_t es) {
  const int64_t n = w.n[j];
  if (j + 1 == w.rank) {
    if (w.gs[j] == 1)
      std::memcpy(dst, gm, static_cast<size_t>(n) * es);
    else
      gather_strided_any(gm, w.gs[j], n, dst, es);
    return;
  }
  if (j + 2 == w.rank) {  // the last two dims: rows
    const int64_t cs = w.gs[j + 1], cols = w.n[j + 1];
    if (cs > kRowStrideMax && gather_2d_any(gm, w.gs[j], cs, n, cols, dst, w.ls[j], es)) return;
    if (cs == 2 && es == 4 && gather_stride2_f32(gm, w.gs[j], n, cols, dst, w.ls[j])) return;
    for (int64_t i = 0; i < n; ++i) {
      const std::byte* row = gm + static_cast<size_t>(i * w.gs[j]) * es;
      std::byte* out = dst + static_cast<size_t>(i * w.ls[j]) * es;
      if (cs == 1)
        std::memcpy(out, row, static_cast<size_t>(cols) * es);
      else
        gather_strided_any(row, cs, cols, out, es);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    gather(gm + static_cast<size_t>(i * w.gs[j]) * es, w, j + 1,
           dst + static_cast<size_t>(i * w.ls[j]) * es, es);
}

float apply_f32(BinaryOp op, float a, float b) {
  return op == BinaryOp::kAdd ? a + b : op == BinaryOp::kMax ? std::max(a, b) : std::min(a, b);
}

void accumulate(const std::byte* gm, const Walk& w, int j, std::byte* acc, BinaryOp op) {
  const bool rows = j + 2 == w.rank;
  if (rows || j + 1 == w.rank) {
    const int64_t nr = rows ? w.n[j] : 1, rs = rows ? w.gs[j] : 0, ld = rows ? w.ls[j] : 0;
    const int64_t cs = w.gs[w.rank - 1], n = w.n[w.rank - 1];
    if (accumulate_rows_f32(op, gm, rs, cs, nr, n, acc, ld)) return;
    for (int64_t r = 0; r < nr; ++r) {
      const float* s = reinterpret_cast<const float*>(gm) + r * rs;
      float* a = reinterpret_cast<float*>(acc) + r * ld;
      for (int64_t i = 0; i < n; ++i) a[i] = apply_f32(op, a[i], s[i * cs]);
    }
    return;
  }
  for (int64_t i = 0; i < w.n[j]; ++i)
    accumulate(gm + i * w.gs[j] * 4, w, j + 1, acc + i * w.ls[j] * 4, op);
}

void scatter(std::byte* gm, const Walk& w, int j, const std::byte* src, DType from, DType to,
             size_t es_from, size_t es_to) {
  const int64_t n = w.n[j];
  if (j + 1 == w.rank) {
    if (w.gs[j] == 1) {
      if (from == to) {
        std::memcpy(gm, src, static_cast<size_t>(n) * es_to);
      } else {
        vec_cast(from, to, src, gm, n);
      }
    } else {  // a strided row (ConvTranspose's phases): cast in chunks, then one store each
      constexpr int64_t kChunk = 256;
      alignas(64) std::byte buf[kChunk * 8];
      for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
        const int64_t m = std::min(kChunk, n - i0);
        const std::byte* from_src = src + i0 * static_cast<int64_t>(es_from);
        if (from != to) {
          vec_cast(from, to, from_src, buf, m);
          from_src = buf;
        }
        scatter_strided_any(from_src, w.gs[j], m, gm + i0 * w.gs[j] * static_cast<int64_t>(es_to),
                            es_to);
      }
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    scatter(gm + static_cast<size_t>(i * w.gs[j]) * es_to, w, j + 1,
            src + static_cast<size_t>(i * w.ls[j]) * es_from, from, to, es_from, es_to);
}

// Elements of the dense local buffer per step of each box dim, and the local offset of the
// box's first valid element.
int64_t inner_sizes(const GmBox& box, const BoxEval& e, int64_t* inner) {
  int64_t acc = 1, first = 0;
  for (int64_t j = static_cast<int64_t>(box.dims.size()) - 1; j >= 0; --j) {
    inner[j] = acc;
    first += e.lo[j] * acc;
    acc *= box.dims[j].size;
  }
  return first;
}

}  // namespace

BoxEval eval_box(const GmBox& box, const int64_t* vars) {
  BoxEval e;
  e.base = box.offset;
  e.first = box.offset;
  for (size_t j = 0; j < box.dims.size(); ++j) {
    const BoxDim& d = box.dims[j];
    const int64_t s = d.start.eval(vars), ph = d.phase.eval(vars);
    e.lo[j] = d.lo(s, ph);
    e.hi[j] = d.hi(s, ph);
    e.full = e.full && e.lo[j] == 0 && e.hi[j] == d.size;
    e.empty = e.empty || e.hi[j] == e.lo[j];
    e.base += s * d.stride + d.phase_offset(ph);
    e.first += (s + e.lo[j]) * d.stride + d.phase_offset(ph);
  }
  return e;
}

BoxMatrix box_matrix(const GmBox& box, const BoxEval& e) {
  BoxMatrix m;
  const size_t r = box.dims.size();
  m.cols = r >= 1 ? e.valid(r - 1) : 1;
  m.cs = r >= 1 ? box.dims[r - 1].stride : 1;
  m.rows = r >= 2 ? e.valid(r - 2) : 1;
  m.rs = r >= 2 ? box.dims[r - 2].stride : m.cols;
  return m;
}

bool box_matrix_of(const GmBox& box, const BoxEval& e, int64_t cols, BoxMatrix& m) {
  const int r = static_cast<int>(box.dims.size());
  int j0 = r;  // the column dims are [j0, r)
  for (int64_t prod = 1; j0 > 0 && prod < cols;) prod *= box.dims[--j0].size;
  int64_t prod = 1;
  for (int j = j0; j < r; ++j) prod *= box.dims[j].size;
  if (prod != cols || cols == 0) return false;
  m = BoxMatrix{};
  bool inner = true;  // walking the column dims from the innermost: every one so far is whole
  int64_t run_stride = 0;
  for (int j = r - 1; j >= j0; --j) {
    const BoxDim& d = box.dims[j];
    if (d.size == 1) {
      if (e.valid(j) != 1) return false;
      continue;
    }
    if (!inner) return false;  // a dim outside a partial one
    if (run_stride == 0) {
      m.cs = d.stride;
      m.cols = e.valid(j);
    } else {
      if (d.stride != run_stride) return false;
      m.cols *= e.valid(j);
    }
    if (e.lo[j] != 0) return false;
    inner = e.hi[j] == d.size;
    run_stride = d.stride * d.size;
  }
  m.rows = 1;
  m.rs = std::max<int64_t>(cols, 1);
  bool row_dim = false;
  for (int j = 0; j < j0; ++j) {
    const BoxDim& d = box.dims[j];
    if (d.size == 1) {
      if (e.valid(j) != 1) return false;
      continue;
    }
    if (row_dim || e.lo[j] != 0) return false;
    row_dim = true;
    m.rows = e.valid(j);
    m.rs = d.stride;
  }
  return true;
}

void box_gather(const std::byte* gm, const GmBox& box, const BoxEval& e, std::byte* local,
                size_t es) {
  if (e.empty) return;
  if (box.dims.empty()) {
    std::memcpy(local, gm + static_cast<size_t>(e.first) * es, es);
    return;
  }
  int64_t inner[kMaxRank];
  const int64_t first = inner_sizes(box, e, inner);
  gather(gm + static_cast<size_t>(e.first) * es, walk_of(box, e, inner), 0,
         local + static_cast<size_t>(first) * es, es);
}

void box_accumulate(const std::byte* gm, const GmBox& box, const BoxEval& e, std::byte* acc,
                    BinaryOp op) {
  if (e.empty) return;
  const std::byte* first_gm = gm + e.first * 4;
  if (box.dims.empty()) {
    float* a = reinterpret_cast<float*>(acc);
    a[0] = apply_f32(op, a[0], *reinterpret_cast<const float*>(first_gm));
    return;
  }
  int64_t inner[kMaxRank];
  const int64_t first = inner_sizes(box, e, inner);
  accumulate(first_gm, walk_of(box, e, inner), 0, acc + first * 4, op);
}

namespace {

// The walk's outer dims down to its rows, every tap's source offset by `off` elements.
bool accumulate_taps(const float* const* src, int64_t taps, int64_t off, const Walk& w, int j,
                     float* acc, BinaryOp op) {
  const bool rows = j + 2 == w.rank;
  if (rows || j + 1 == w.rank) {
    const int64_t nr = rows ? w.n[j] : 1, rs = rows ? w.gs[j] : 0, ld = rows ? w.ls[j] : 0;
    return accumulate_taps_f32(op, src, taps, off, rs, w.gs[w.rank - 1], nr, w.n[w.rank - 1], acc,
                               ld);
  }
  for (int64_t i = 0; i < w.n[j]; ++i)
    if (!accumulate_taps(src, taps, off + i * w.gs[j], w, j + 1, acc + i * w.ls[j], op))
      return false;
  return true;
}

// e restricted to [lo, hi) per dim (inside e's own valid region): the first element moves with it.
BoxEval restrict_eval(const GmBox& box, const BoxEval& e, const int64_t* lo, const int64_t* hi) {
  BoxEval r = e;
  r.full = false;
  for (size_t j = 0; j < box.dims.size(); ++j) {
    r.first += (lo[j] - e.lo[j]) * box.dims[j].stride;
    r.lo[j] = lo[j];
    r.hi[j] = hi[j];
    r.empty = r.empty || hi[j] <= lo[j];
  }
  return r;
}

}  // namespace

bool box_accumulate_taps(const std::byte* gm, const GmBox& box, std::span<const BoxEval> e,
                         std::byte* acc, BinaryOp op) {
  constexpr size_t kMaxTaps = 64;
  const size_t r = box.dims.size();
  if (e.empty() || e.size() > kMaxTaps || r == 0) return false;
  if (box_accumulate_taps_separable(gm, box, e, acc, op)) return true;
  // The region every tap covers: one pass there, then each tap's own rim box by box.
  int64_t lo[kMaxRank], hi[kMaxRank];
  bool alike = true;
  for (size_t j = 0; j < r; ++j) {
    lo[j] = e[0].lo[j], hi[j] = e[0].hi[j];
    for (const BoxEval& t : e) {
      if (t.empty) return false;
      lo[j] = std::max(lo[j], t.lo[j]), hi[j] = std::min(hi[j], t.hi[j]);
      alike = alike && t.lo[j] == e[0].lo[j] && t.hi[j] == e[0].hi[j];
    }
    if (hi[j] <= lo[j]) return false;
  }
  BoxEval common[kMaxTaps];
  for (size_t t = 0; t < e.size(); ++t) common[t] = alike ? e[t] : restrict_eval(box, e[t], lo, hi);
  int64_t inner[kMaxRank];
  const int64_t first = inner_sizes(box, common[0], inner);
  const Walk w = walk_of(box, common[0], inner);
  const int64_t cs = w.gs[w.rank - 1];
  if (cs != 1 && cs != 2) return false;
  const float* src[kMaxTaps];
  for (size_t t = 0; t < e.size(); ++t)
    src[t] = reinterpret_cast<const float*>(gm) + common[t].first;
  // The first row decides for all: the kernel either takes every row or none.
  if (!accumulate_taps(src, static_cast<int64_t>(e.size()), 0, w, 0,
                       reinterpret_cast<float*>(acc) + first, op))
    return false;
  if (alike) return true;
  // Tap by tap (each element still sees its taps in order): the slabs of its region outside the
  // common one, dim j outside [lo, hi) with the dims before it inside and those after it whole.
  for (const BoxEval& t : e)
    for (size_t j = 0; j < r; ++j)
      for (const bool before : {true, false}) {
        int64_t sl[kMaxRank], sh[kMaxRank];
        for (size_t i = 0; i < r; ++i) {
          sl[i] = i < j ? lo[i] : t.lo[i];
          sh[i] = i < j ? hi[i] : t.hi[i];
        }
        sl[j] = before ? t.lo[j] : hi[j];
        sh[j] = before ? lo[j] : t.hi[j];
        const BoxEval slab = restrict_eval(box, t, sl, sh);
        if (!slab.empty) box_accumulate(gm, box, slab, acc, op);
      }
  return true;
}

void box_scatter(std::byte* gm, const GmBox& box, const BoxEval& e, const std::byte* local,
                 DType from, DType to) {
  if (e.empty) return;
  const size_t es_to = dtype_size(to);
  if (box.dims.empty()) {
    vec_cast(from, to, local, gm + static_cast<size_t>(e.first) * es_to, 1);
    return;
  }
  int64_t inner[kMaxRank];
  const int64_t first = inner_sizes(box, e, inner);
  const size_t es_from = dtype_size(from);
  scatter(gm + static_cast<size_t>(e.first) * es_to, walk_of(box, e, inner), 0,
          local + static_cast<size_t>(first) * es_from, from, to, es_from, es_to);
}

Im2colSource map_view(const std::byte* gm, const GmBox& box, const BoxEval& e, int64_t c0) {
  Im2colSource m;
  m.gm = gm;
  m.base = e.base;
  const size_t r = box.dims.size() - (c0 > 1 ? 1 : 0);
  for (size_t j = 0; j < 4; ++j) {
    m.stride[j] = box.dims[r - 4 + j].stride;
    m.lo[j] = e.lo[r - 4 + j];
    m.hi[j] = e.hi[r - 4 + j];
  }
  return m;
}

Im2colSource map_local(const std::byte* local, const Shape& dims, int64_t c0) {
  Im2colSource m;
  m.gm = local;
  int64_t acc = c0 > 1 ? c0 : 1;
  const size_t r = dims.size() - (c0 > 1 ? 1 : 0);
  for (int j = 3; j >= 0; --j) {
    const int64_t n = dims[r - 4 + static_cast<size_t>(j)];
    m.stride[j] = acc;
    m.hi[j] = n;
    acc *= n;
  }
  return m;
}

bool same_map(const Im2colSource& a, const Im2colSource& b) {
  if (a.gm != b.gm || a.base != b.base) return false;
  for (int j = 0; j < 4; ++j)
    if (a.stride[j] != b.stride[j] || a.lo[j] != b.lo[j] || a.hi[j] != b.hi[j]) return false;
  return true;
}

}  // namespace asc::cpu

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

// dst[i] = src[i * stride] for i < n, elements of T.
template <typename T>
inline void gather_strided(const std::byte* src, int64_t stride, int64_t n, std::byte* dst) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
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

void gather(const std::byte* gm, const GmBox& box, const BoxEval& e, size_t j, std::byte* dst,
            const int64_t* inner, size_t es) {
  const BoxDim& d = box.dims[j];
  const int64_t n = e.valid(j);
  if (j + 2 == box.dims.size()) {  // the last two dims: rows
    const int64_t cs = box.dims[j + 1].stride, cols = e.valid(j + 1);
    if (cs > kRowStrideMax && gather_2d_any(gm, d.stride, cs, n, cols, dst, inner[j], es)) return;
    for (int64_t i = 0; i < n; ++i) {
      const std::byte* row = gm + static_cast<size_t>(i * d.stride) * es;
      std::byte* out = dst + static_cast<size_t>(i * inner[j]) * es;
      if (cs == 1)
        std::memcpy(out, row, static_cast<size_t>(cols) * es);
      else
        gather_strided_any(row, cs, cols, out, es);
    }
    return;
  }
  if (j + 1 == box.dims.size()) {
    if (d.stride == 1) {
      std::memcpy(dst, gm, static_cast<size_t>(n) * es);
    } else {
      gather_strided_any(gm, d.stride, n, dst, es);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    gather(gm + static_cast<size_t>(i * d.stride) * es, box, e, j + 1,
           dst + static_cast<size_t>(i * inner[j]) * es, inner, es);
}

void scatter(std::byte* gm, const GmBox& box, const BoxEval& e, size_t j, const std::byte* src,
             const int64_t* inner, DType from, DType to) {
  const BoxDim& d = box.dims[j];
  const int64_t n = e.valid(j);
  const size_t es_from = dtype_size(from), es_to = dtype_size(to);
  if (j + 1 == box.dims.size()) {
    if (d.stride == 1) {
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
        scatter_strided_any(from_src, d.stride, m, gm + i0 * d.stride * static_cast<int64_t>(es_to),
                            es_to);
      }
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    scatter(gm + static_cast<size_t>(i * d.stride) * es_to, box, e, j + 1,
            src + static_cast<size_t>(i * inner[j]) * es_from, inner, from, to);
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
  gather(gm + static_cast<size_t>(e.first) * es, box, e, 0, local + static_cast<size_t>(first) * es,
         inner, es);
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
  scatter(gm + static_cast<size_t>(e.first) * es_to, box, e, 0,
          local + static_cast<size_t>(first) * dtype_size(from), inner, from, to);
}

void box_prefetch(const std::byte* gm, const GmBox& box, const BoxEval& e, size_t es) {
  const BoxMatrix m = box_matrix(box, e);
  if (m.cs != 1 || e.empty) return;
  const std::byte* first = gm + static_cast<size_t>(e.first) * es;
  const int64_t row_bytes = m.cols * static_cast<int64_t>(es);
  for (int64_t r = 0; r < std::min<int64_t>(m.rows, 64); ++r)
    for (int64_t b = 0; b < row_bytes; b += 64)
      __builtin_prefetch(first + (r * m.rs) * static_cast<int64_t>(es) + b, 0, 1);
}

}  // namespace asc::cpu

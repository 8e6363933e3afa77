// Shape and layout movement: Reshape, Shape, Size, Flatten, Squeeze, Unsqueeze, Identity, Concat,
// Split, Slice, Expand, Tile, Pad, ConstantOfShape, Range, EyeLike, Trilu, DepthToSpace,
// SpaceToDepth. This file holds the family's registration list and its byte-moving helpers.
#include <cstring>

#include "ops/movement.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// n elements of ES bytes from src (stride ss) to dst (stride ds), strides in elements.
template <size_t ES>
void copy_run(std::byte* dst, int64_t ds, const std::byte* src, int64_t ss, int64_t n) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds * ES, src + i * ss * ES, ES);
}

void copy_run_any(std::byte* dst, int64_t ds, const std::byte* src, int64_t ss, int64_t n,
                  size_t es) {
  if (ds == 1 && ss == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * es);
    return;
  }
  switch (es) {
    case 1:
      return copy_run<1>(dst, ds, src, ss, n);
    case 2:
      return copy_run<2>(dst, ds, src, ss, n);
    case 4:
      return copy_run<4>(dst, ds, src, ss, n);
    case 8:
      return copy_run<8>(dst, ds, src, ss, n);
    default:
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * ds * static_cast<int64_t>(es),
                    src + i * ss * static_cast<int64_t>(es), es);
  }
}

}  // namespace

void copy_strided(std::byte* dst, const Shape& dst_strides, const std::byte* src,
                  const Shape& src_strides, const Shape& dims, size_t elem_size) {
  // Simplified view: size-1 dims dropped, an outer dim merged into the next inner one when both
  // sides step over it contiguously.
  struct Dim3 {
    int64_t n, ds, ss;
  };
  std::vector<Dim3> v;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 0) return;
    if (dims[k] == 1) continue;
    v.push_back({dims[k], dst_strides[k], src_strides[k]});
  }
  std::vector<Dim3> m;
  for (size_t k = v.size(); k-- > 0;) {  // innermost first
    if (!m.empty() && v[k].ds == m.back().ds * m.back().n && v[k].ss == m.back().ss * m.back().n) {
      m.back().n *= v[k].n;
    } else {
      m.push_back(v[k]);
    }
  }
  const int64_t es = static_cast<int64_t>(elem_size);
  if (m.empty()) {
    std::memcpy(dst, src, elem_size);
    return;
  }
  // m[0] is the innermost run; m[1..] are walked by an odometer.
  const Dim3 run = m[0];
  std::vector<int64_t> idx(m.size(), 0);
  int64_t doff = 0, soff = 0;
  for (;;) {
    copy_run_any(dst + doff * es, run.ds, src + soff * es, run.ss, run.n, elem_size);
    size_t k = 1;
    for (; k < m.size(); ++k) {
      doff += m[k].ds;
      soff += m[k].ss;
      if (++idx[k] < m[k].n) break;
      doff -= m[k].ds * m[k].n;
      soff -= m[k].ss * m[k].n;
      idx[k] = 0;
    }
    if (k == m.size()) return;
  }
}

void copy_all(Tensor& dst, const Tensor& src) {
  if (dst.nbytes() != src.nbytes())
    throw ShapeError(
        cat("copy of ", src.desc().str(), " into ", dst.desc().str(), ": byte counts differ"));
  if (dst.nbytes() != 0 && dst.data() != src.data())
    std::memcpy(dst.data(), src.data(), dst.nbytes());
}

void fill_elements(std::byte* dst, int64_t n, const std::byte* value, size_t elem_size) {
  if (n <= 0) return;
  std::memcpy(dst, value, elem_size);
  const size_t total = static_cast<size_t>(n) * elem_size;
  for (size_t done = elem_size; done < total;) {
    const size_t step = std::min(done, total - done);
    std::memcpy(dst + done, dst, step);
    done += step;
  }
}

std::vector<int64_t> need_ints(const InferContext& c, size_t k, const char* what) {
  const Tensor& t = need_value(c, k);
  if (t.shape().size() > 1)
    throw ShapeError(cat(c.op.type, ": ", what, " must be 1-D, got ", to_string(t.shape())));
  return to_int64s(t);
}

void register_movement(Registry& r) {
  register_movement_shape(r);
  register_movement_join(r);
  register_movement_slice(r);
  register_movement_broadcast(r);
  register_movement_pad(r);
  register_movement_fill(r);
  register_movement_space(r);
}

}  // namespace asc

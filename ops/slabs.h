// A shape seen around one axis: [outer, n, inner] — the dims before the axis, the axis, and the
// elements after it. Element (o, k, i) of a contiguous tensor is at (o * n + k) * inner + i.
#pragma once

#include <cstdint>

#include "registry/shape.h"

namespace asc {

struct Slabs {
  int64_t outer = 1, n = 1, inner = 1;
};

inline Slabs slabs_of(const Shape& s, int64_t axis) {
  Slabs r;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
    (d < axis ? r.outer : d == axis ? r.n : r.inner) *= s[d];
  return r;
}

}  // namespace asc

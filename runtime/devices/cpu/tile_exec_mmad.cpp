// The kMmad of a tile program on the cpu: the GEMM path each operand form takes (gemm.h).
#include <cstring>
#include <string>
#include <vector>

#include "registry/error.h"
#include "runtime/devices/cpu/gemm_int8.h"
#include "runtime/devices/cpu/tile_state.h"

namespace asc::cpu {

void mmad_product(const TileProgram& p, const Instr& in, BufState& c, const BufState& a,
                  const BufState& b, int64_t m, int64_t n, bool acc, CoreArena& arena,
                  RowEpilogue* ep) {
  const DType dt = p.buffers[in.src[0]].dtype;
  if (dt == DType::kI8 || dt == DType::kU8) {  // the integer cube (gemm_int8.h)
    c.rows = m;
    c.cols = n;
    if (!a.packed || !b.packed || a.panel_stride > 0 || b.panel_stride > 0 || a.cols != b.rows)
      throw Error(p.op + ": integer mmad needs packed A and B of one k");
    int8_mmad(reinterpret_cast<const float*>(a.ptr), reinterpret_cast<const float*>(b.ptr),
              gemm_kernel(DType::kF32).nr * b.rows, reinterpret_cast<int32_t*>(c.ptr), c.rs, m, n,
              a.cols, acc, arena.int8_sums);
    return;
  }
  if (a.panel_stride > 0) {  // A pre-packed: its k columns are k padded to k_pack
    const int64_t k = b.rows;
    if (k > a.cols || a.cols - k >= gemm_kernel(dt).k_pack || b.panel_stride > 0)
      throw Error(p.op + ": mmad of pre-packed A with k " + std::to_string(a.cols) + " vs " +
                  std::to_string(k));
    c.rows = m;
    c.cols = n;
    float* cp = reinterpret_cast<float*>(c.ptr);
    // A depthwise weight's panels with its taps compactly after K (runtime/weight_pack.cpp).
    const int64_t mr = gemm_kernel(dt).mr;
    const int64_t taps_k = in.diag > 0 && a.panel_stride == (a.cols + in.diag) * mr ? a.cols : -1;
    if (b.lazy && (in.diag > 0 ? mmad_a_panels_diag_map(dt, a.ptr, a.panel_stride, b.map, *b.lazy,
                                                        cp, c.rs, m, n, k, acc, taps_k)
                               : mmad_a_panels_im2col(dt, a.ptr, a.panel_stride, b.map, *b.lazy, cp,
                                                      c.rs, m, n, k, acc, nullptr, ep))) {
      return;  // B read from its map (a block-diagonal A), or packed chunk by chunk in L1
    }
    if (!b.lazy && !b.packed && b.panel_stride == 0 && in.diag == 0 && n <= kNarrowMax &&
        p.buffers[in.src[1]].dtype == DType::kF32 &&
        gemm_mmad_a_panels_narrow(dt, a.ptr, a.panel_stride, reinterpret_cast<const float*>(b.ptr),
                                  b.rs, b.cs, reinterpret_cast<float*>(c.ptr), c.rs, m, n, k, acc))
      return;  // a few columns of B, read as they lie
    if (!b.lazy && !b.packed && b.panel_stride == 0 && in.diag == 0 && b.cs == 1 &&
        p.buffers[in.src[1]].dtype == DType::kF32 &&
        gemm_mmad_a_panels_b_rows(dt, a.ptr, a.panel_stride, reinterpret_cast<const float*>(b.ptr),
                                  b.rs, cp, c.rs, m, n, k, acc)) {
      return;  // B's rows copied panel by panel into L1
    }
    std::vector<std::byte> tb;
    const void* bp = b.ptr;
    if (b.lazy) {  // the direct form is not available here: make the column matrix (all of
      // the map's columns: a product into GM may want fewer, the first ones)
      tb.resize(im2col_packed_bytes(DType::kF32, false, k, b.cols));
      im2col_pack(DType::kF32, false, b.map, *b.lazy, k, tb.data());
      bp = tb.data();
    } else if (!b.packed) {
      tb.resize(gemm_packed_b_bytes(dt, k, n));
      gemm_pack_b(dt, b.ptr, b.rs, b.cs, k, n, tb.data());
      bp = tb.data();
    }
    if (in.diag == 0 ||
        !gemm_mmad_a_panels_diag(dt, a.ptr, a.panel_stride, bp, reinterpret_cast<float*>(c.ptr),
                                 c.rs, m, n, k, in.diag, acc))
      gemm_mmad_a_panels(dt, a.ptr, a.panel_stride, bp, reinterpret_cast<float*>(c.ptr), c.rs, m, n,
                         k, acc);
    return;
  }
  const int64_t k = a.cols;
  if (k != b.rows && b.panel_stride == 0)
    throw Error(p.op + ": mmad with k " + std::to_string(k) + " vs " + std::to_string(b.rows));
  c.rows = m;
  c.cols = n;
  if (b.panel_stride > 0) {  // B pre-packed: its k rows are k padded to k_pack
    if (k > b.rows || b.rows - k >= gemm_kernel(dt).k_pack)
      throw Error(p.op + ": mmad with k " + std::to_string(k) + " vs pre-packed " +
                  std::to_string(b.rows));
    if (a.packed)
      gemm_mmad_panels(dt, a.ptr, b.ptr, b.panel_stride, reinterpret_cast<float*>(c.ptr), c.rs, m,
                       n, k, acc);
    else
      gemm_direct_panels(dt, a.ptr, a.rs, b.ptr, b.panel_stride, reinterpret_cast<float*>(c.ptr),
                         c.rs, m, n, k, acc);
    return;
  }
  if (k == 0) {  // empty contraction: C = 0 (or unchanged when accumulating)
    if (!acc)
      for (int64_t r = 0; r < m; ++r)
        std::memset(c.ptr + r * c.rs * 4, 0, static_cast<size_t>(n) * 4);
    return;
  }
  if (a.packed && b.b_rows &&
      gemm_mmad_b_rows(dt, a.ptr, b.ptr, b.rs, reinterpret_cast<float*>(c.ptr), c.rs, m, n, k,
                       acc)) {
    return;
  }
  if (a.packed != b.packed) {  // direct form refused for one operand: pack both
    std::vector<std::byte> ta, tb;
    const void* ap = a.ptr;
    const void* bp = b.ptr;
    if (!a.packed) {
      ta.resize(gemm_packed_a_bytes(dt, m, k));
      gemm_pack_a(dt, a.ptr, a.rs, a.cs, m, k, ta.data());
      ap = ta.data();
    }
    if (!b.packed) {
      tb.resize(gemm_packed_b_bytes(dt, k, n));
      gemm_pack_b(dt, b.ptr, b.rs, b.cs, k, n, tb.data());
      bp = tb.data();
    }
    gemm_mmad(dt, ap, bp, reinterpret_cast<float*>(c.ptr), c.rs, m, n, k, acc);
    return;
  }
  if (a.packed) {
    gemm_mmad(dt, a.ptr, b.ptr, reinterpret_cast<float*>(c.ptr), c.rs, m, n, k, acc);
  } else {
    gemm_direct(dt, a.ptr, a.rs, b.ptr, b.rs, reinterpret_cast<float*>(c.ptr), c.rs, m, n, k, acc);
  }
}

}  // namespace asc::cpu

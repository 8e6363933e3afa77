// The machinery of the Atlas A2 advanced vector APIs (include kernel_operator.h): elementwise calls
// on UB operands that need temporary UB space, given by the kernel (sharedTmpBuffer) or taken by
// the framework from the UB the TPipe has not handed out (PopStackBuffer: from Core::ub_end to the
// end of UB; no reserve is documented).
//
// Each call runs as one V instruction that reads its sources, writes dst and its temporary bytes.
// The temp needs at least TmpSize::min bytes (else refused) and the call touches at most
// TmpSize::max of them, the two numbers Get<Name>MaxMinTmpSize gives on the Atlas A2 (NPU arch
// 2201). Results are computed in float (half rounds once on the store); the hardware's sequence
// of vector steps may differ in the last bits.
#pragma once

#include <array>

#include "emu_vec_elementwise.h"

namespace ascemu {

// The temporary bytes of one call: at least `min`, touched at most `max` (both 0: none).
struct TmpSize {
  uint64_t min = 0, max = 0;
};
// The common rule of the A2 tiling formulas: `factor` 256-byte slices at least, `factor` slices
// of max(bytes, 256) at most, where bytes = count * sizeof(T).
inline TmpSize tmp_slices(uint64_t factor, uint64_t bytes) {
  return {factor * 256, factor * std::max<uint64_t>(bytes, 256)};
}

// The accesses of an advanced call: the sources (reads), the temp (write, when sz.max > 0; from
// `given`, or the framework's left-over UB when given is null) and dst (write); with
// isReuseSource the sources are written too (the API may overwrite them). Refuses a temp smaller
// than sz.min, sources overlapping dst (unless src_dst_overlap), a temp overlapping an operand.
std::vector<Access> adv_accesses(const char* call, const std::vector<Access>& srcs,
                                 const Access& dst, const AscendC::LocalTensor<uint8_t>* given,
                                 TmpSize sz, const char* type, bool src_dst_overlap,
                                 bool reuse_source);

// The behaviour flags of a call.
struct AdvFlags {
  bool src_dst_overlap = false;  // the docs allow src and dst at the same address
  bool reuse_source = false;     // isReuseSource in effect: the sources may be overwritten
};

// dst[i] = f(srcs[0][i], ...) for i < count, as one V instruction. f takes N Calc<T> values.
template <size_t N, typename T, typename F>
inline void adv_elementwise(const char* call, const AscendC::LocalTensor<T>& dst,
                            std::array<const AscendC::LocalTensor<T>*, N> srcs,
                            const AscendC::LocalTensor<uint8_t>* tmp, TmpSize sz, uint64_t count,
                            AdvFlags flags, F f) {
  std::vector<Access> in;
  std::array<const T*, N> x{};
  for (size_t k = 0; k < N; ++k) {
    in.push_back(vec_operand(call, *srcs[k], count, false));
    x[k] = srcs[k]->GetPhyAddr();
  }
  const Access d = vec_operand(call, dst, count, true);
  std::vector<Access> acc =
      adv_accesses(call, in, d, tmp, sz, type_name<T>(), flags.src_dst_overlap, flags.reuse_source);
  T* y = dst.GetPhyAddr();
  current().issue(kV, call, std::move(acc), [=] {
    // Element i is read before it is written: an allowed src == dst stays elementwise.
    for (uint64_t i = 0; i < count; ++i) {
      if constexpr (N == 1) {
        y[i] = static_cast<T>(f(static_cast<Calc<T>>(x[0][i])));
      } else {
        y[i] = static_cast<T>(f(static_cast<Calc<T>>(x[0][i]), static_cast<Calc<T>>(x[1][i])));
      }
    }
  });
}

// A count without calCount: the source's whole size; two sources must be of one size.
template <typename T>
inline uint32_t adv_whole(const char* call, const AscendC::LocalTensor<T>& a,
                          const AscendC::LocalTensor<T>* b = nullptr) {
  if (b)
    check(a.GetSize() == b->GetSize(), call,
          "src0Tensor holds " + std::to_string(a.GetSize()) + " elements, src1Tensor " +
              std::to_string(b->GetSize()) + " (the form without calCount needs equal shapes)");
  return a.GetSize();
}

}  // namespace ascemu

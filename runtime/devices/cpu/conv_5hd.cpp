// The packed weight layout of the 5HD convolution (conv_5hd.h); the kernel is in
// conv_5hd_avx512.cpp.
#include "runtime/devices/cpu/conv_5hd.h"

#include <algorithm>

namespace asc::cpu {

void conv5hd_pack(const float* w, int64_t m, int64_t c, int64_t window, float* dst) {
  const int64_t stride = conv5hd_panel_stride(c, window);
  const int64_t panels = (m + kConv5hdPanel - 1) / kConv5hdPanel;
  for (int64_t q = 0; q < panels; ++q) {
    float* panel = dst + q * stride;
    const int64_t cols = std::min(kConv5hdPanel, m - q * kConv5hdPanel);
    for (int64_t c1 = 0; c1 * kConv5hdC0 < c; ++c1) {
      const int64_t lanes = std::min(kConv5hdC0, c - c1 * kConv5hdC0);
      for (int64_t t = 0; t < window; ++t)
        for (int64_t c0 = 0; c0 < lanes; ++c0) {
          float* row = panel + (c1 * window * kConv5hdC0 + t * lanes + c0) * kConv5hdPanel;
          const int64_t ci = c1 * kConv5hdC0 + c0;
          for (int64_t j = 0; j < cols; ++j)
            row[j] = w[((q * kConv5hdPanel + j) * c + ci) * window + t];
          std::fill(row + cols, row + kConv5hdPanel, 0.0f);
        }
    }
  }
}

}  // namespace asc::cpu

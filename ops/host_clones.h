// Host kernels' hot loops compiled for several x86-64 levels and picked at load time (GCC's
// function multiversioning), as the cpu device's Highway kernels are: the build itself targets
// the baseline, so a plain loop would otherwise run on SSE2.
//   ASC_HOST_CLONES     AVX-512, AVX2+FMA and the baseline;
//   ASC_HOST_CLONES_V3  AVX2+FMA and the baseline.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ASC_HOST_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define ASC_HOST_CLONES_V3 __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ASC_HOST_CLONES
#define ASC_HOST_CLONES_V3
#endif

// For scripts/check-cann-headers.sh only: the names bisheng (CANN's kernel compiler) builds in,
// declared for g++ so that the Ascend C headers of CANN's open asc-devkit parse on the host.
// Written from the names the headers use; no behaviour, no CANN code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
using std::size_t;
#define __aicore__
#define __host_aicore__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __sync_alias__
#define __sync_noalias__
#define __sync_out__
#define __sync_in__
#define __simd_callee__
#define __simd_vf__
#define __global__
#define __inout_pipe__(...)
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __DAV_VEC__ 1
enum pipe_t {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
  PIPE_MAX
};
enum event_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7
};
enum QuantMode_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };
struct half {
  uint16_t v;
  half() = default;
  template <class U>
  half(U) {}
  template <class U>
  operator U() const {
    return U();
  }
};
struct bfloat16_t {
  uint16_t v;
  bfloat16_t() = default;
  template <class U>
  bfloat16_t(U) {}
  template <class U>
  operator U() const {
    return U();
  }
};

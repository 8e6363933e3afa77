// vec_chain_f32: a chain of f32 elementwise instructions run block by block over a tile's rows:
// every instruction over a block of 128 floats before the next, the intermediate results in L1,
// one store of the last result (a matmul or convolution epilogue — bias, residual, activation —
// in one call instead of a call per row and instruction). Highway SIMD with runtime dispatch.
#include <cstring>

#include "runtime/devices/cpu/vec.h"

// foreach_target.h must precede the other Highway headers.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/devices/cpu/vec_chain.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "runtime/devices/cpu/vec_unary-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace asc::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Whether the chain's ops all have a vector form here.
bool Supported(const ChainStep& s) {
  if (s.binary) {
    switch (static_cast<BinaryOp>(s.op)) {
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
      case BinaryOp::kMul:
      case BinaryOp::kDiv:
      case BinaryOp::kMax:
      case BinaryOp::kMin:
        return true;
      default:
        return false;
    }
  }
  switch (static_cast<UnaryOp>(s.op)) {
    case UnaryOp::kNeg:
    case UnaryOp::kAbs:
    case UnaryOp::kRelu:
    case UnaryOp::kSigmoid:
    case UnaryOp::kTanh:
    case UnaryOp::kExp:
    case UnaryOp::kLog:
    case UnaryOp::kSqrt:
    case UnaryOp::kRsqrt:
    case UnaryOp::kReciprocal:
    case UnaryOp::kErf:
    case UnaryOp::kSquare:
    case UnaryOp::kSilu:
    case UnaryOp::kLeakyRelu:
    case UnaryOp::kClip:
    case UnaryOp::kAffine:
      return true;
    default:
      return false;
  }
}

// Vectors per block: each instruction runs over a block of the row before the next starts, its
// result in a stack block (L1), so the dispatch on the op is paid once per block.
constexpr size_t kBlock = 8;

// An operand over one block: lanes at p + v * step (step 0: one broadcast vector); `mem`: p points
// into the caller's buffers, so the block's last, partial vector is read masked.
struct Src {
  const float* p;
  size_t step;
  bool mem;
};

HWY_INLINE V LoadSrc(D d, const Src& s, size_t v, size_t nv, size_t tail) {
  const float* at = s.p + v * s.step;
  if (!s.mem || tail == 0 || v + 1 < nv) return hn::LoadU(d, at);
  return hn::MaskedLoad(hn::FirstN(d, tail), d, at);  // masked-off lanes do not fault (x86)
}

template <class F>
HWY_INLINE void Run1(D d, const Src& a, float* out, size_t nv, size_t tail, const F& f) {
  const size_t N = hn::Lanes(d);
  for (size_t v = 0; v < nv; ++v) hn::StoreU(f(LoadSrc(d, a, v, nv, tail)), d, out + v * N);
}

template <class F>
HWY_INLINE void Run2(D d, const Src& a, const Src& b, float* out, size_t nv, size_t tail,
                     const F& f) {
  const size_t N = hn::Lanes(d);
  for (size_t v = 0; v < nv; ++v)
    hn::StoreU(f(LoadSrc(d, a, v, nv, tail), LoadSrc(d, b, v, nv, tail)), d, out + v * N);
}

HWY_INLINE void RunUnary(D d, const ChainStep& s, const Src& a, float* out, size_t nv,
                         size_t tail) {
  const P p{s.alpha, s.beta};
  switch (static_cast<UnaryOp>(s.op)) {
#define ASC_CHAIN_UNARY(OP, FN)                                           \
  case UnaryOp::OP:                                                       \
    Run1(d, a, out, nv, tail, [&](V v) HWY_ATTR { return FN{p}(d, v); }); \
    return;
    ASC_CHAIN_UNARY(kNeg, OpNeg)
    ASC_CHAIN_UNARY(kAbs, OpAbs)
    ASC_CHAIN_UNARY(kRelu, OpRelu)
    ASC_CHAIN_UNARY(kSigmoid, OpSigmoid)
    ASC_CHAIN_UNARY(kTanh, OpTanh)
    ASC_CHAIN_UNARY(kExp, OpExp)
    ASC_CHAIN_UNARY(kLog, OpLog)
    ASC_CHAIN_UNARY(kSqrt, OpSqrt)
    ASC_CHAIN_UNARY(kRsqrt, OpRsqrt)
    ASC_CHAIN_UNARY(kReciprocal, OpReciprocal)
    ASC_CHAIN_UNARY(kErf, OpErf)
    ASC_CHAIN_UNARY(kSquare, OpSquare)
    ASC_CHAIN_UNARY(kSilu, OpSilu)
    ASC_CHAIN_UNARY(kLeakyRelu, OpLeakyRelu)
    ASC_CHAIN_UNARY(kClip, OpClip)
#undef ASC_CHAIN_UNARY
    default:  // kAffine (Supported admits no other)
      Run1(d, a, out, nv, tail, [&](V v) HWY_ATTR { return OpAffine{p}(d, v); });
  }
}

// Max/Min propagate NaN as vec_binary's do.
HWY_INLINE void RunBinary(D d, uint8_t op, const Src& a, const Src& b, float* out, size_t nv,
                          size_t tail) {
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::kAdd:
      return Run2(d, a, b, out, nv, tail, [](V x, V y) HWY_ATTR { return hn::Add(x, y); });
    case BinaryOp::kSub:
      return Run2(d, a, b, out, nv, tail, [](V x, V y) HWY_ATTR { return hn::Sub(x, y); });
    case BinaryOp::kMul:
      return Run2(d, a, b, out, nv, tail, [](V x, V y) HWY_ATTR { return hn::Mul(x, y); });
    case BinaryOp::kDiv:
      return Run2(d, a, b, out, nv, tail, [](V x, V y) HWY_ATTR { return hn::Div(x, y); });
    case BinaryOp::kMax:
      return Run2(d, a, b, out, nv, tail, [](V x, V y) HWY_ATTR {
        return hn::IfThenElse(hn::IsNaN(x), x, hn::IfThenElse(hn::IsNaN(y), y, hn::Max(x, y)));
      });
    default:  // kMin
      return Run2(d, a, b, out, nv, tail, [](V x, V y) HWY_ATTR {
        return hn::IfThenElse(hn::IsNaN(x), x, hn::IfThenElse(hn::IsNaN(y), y, hn::Min(x, y)));
      });
  }
}

bool ChainF32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows, int64_t cols) {
#if !HWY_ARCH_X86 || HWY_TARGET > HWY_AVX2
  // A row's last vector is read and written masked: only where masked-off lanes cannot fault.
  (void)steps, (void)n, (void)y, (void)ldy, (void)rows, (void)cols;
  return false;
#else
  if (n <= 0 || n > kChainMaxSteps) return false;
  for (int k = 0; k < n; ++k)
    if (!Supported(steps[k])) return false;
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t width = kBlock * N;
  // Results per step over one block; broadcast operands as one vector each.
  HWY_ALIGN float res[kChainMaxSteps][kBlock * HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float bc[kChainMaxSteps][2][HWY_MAX_BYTES / sizeof(float)];
  const auto src = [&](const ChainArg& a, int k, int slot, int64_t r, size_t j) -> Src {
    switch (a.kind) {
      case ChainArg::kStep:
        return {res[a.step], N, false};
      case ChainArg::kScalar:
        hn::Store(hn::Set(d, a.s), d, bc[k][slot]);
        return {bc[k][slot], 0, false};
      case ChainArg::kRow:
        hn::Store(hn::Set(d, a.p[r]), d, bc[k][slot]);
        return {bc[k][slot], 0, false};
      case ChainArg::kCol:
        return {a.p + j, N, true};
      default:
        return {a.p + r * a.rs + j, N, true};
    }
  };
  for (int64_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < static_cast<size_t>(cols); j += width) {
      const size_t len = std::min(width, static_cast<size_t>(cols) - j);
      const size_t nv = (len + N - 1) / N, tail = len % N;
      for (int k = 0; k < n; ++k) {
        const ChainStep& s = steps[k];
        const Src a = src(s.a, k, 0, r, j);
        if (s.binary)
          RunBinary(d, s.op, a, src(s.b, k, 1, r, j), res[k], nv, tail);
        else
          RunUnary(d, s, a, res[k], nv, tail);
      }
      float* out = y + r * ldy + j;
      for (size_t v = 0; v < nv; ++v) {
        const V val = hn::Load(d, res[n - 1] + v * N);
        if (tail == 0 || v + 1 < nv)
          hn::StoreU(val, d, out + v * N);
        else
          hn::BlendedStore(val, hn::FirstN(d, tail), d, out + v * N);
      }
    }
  return true;
#endif
}

}  // namespace asc::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::cpu {

HWY_EXPORT(ChainF32);

bool vec_chain_f32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows,
                   int64_t cols) {
  return HWY_DYNAMIC_DISPATCH(ChainF32)(steps, n, y, ldy, rows, cols);
}

}  // namespace asc::cpu
#endif  // HWY_ONCE

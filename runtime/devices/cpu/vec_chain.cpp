// vec_chain_f32: a chain of f32 elementwise instructions run block by block over a tile's rows:
// every instruction over a block of 128 floats before the next, the intermediate results in L1,
// one store of the last result (a matmul or convolution epilogue — bias, residual, activation —
// in one call instead of a call per row and instruction). Highway SIMD with runtime dispatch.
#include <cstring>
#include <utility>

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

// The form most chains take, a convolution's or matmul's epilogue: y = act(t + bias [+ z]), t and
// z tiles, bias per row or per column, act none or one of the activations below (hardsigmoid,
// hardswish and gelu as matmul_activation spells them: clip(affine(x)), x * clip(affine(x)),
// x * affine(erf(x * scale))). Run in one pass with every value in registers, by the same
// functors as the steps one by one.
struct Pattern {
  enum Act {
    kNone,
    kRelu,
    kClip,
    kLeakyRelu,
    kSigmoid,
    kSilu,
    kTanh,
    kHardSigmoid,
    kHardSwish,
    kGelu
  };
  const float* t = nullptr;
  int64_t ldt = 0;
  const float* bias = nullptr;
  bool row = false;  // bias per row (else per column)
  const float* z = nullptr;
  int64_t ldz = 0;
  Act act = kNone;
  P affine{}, p{};    // the affine of hard* and gelu, and the activation's (clip) parameters
  float scale = 0.f;  // gelu's 1 / sqrt(2)
};

bool IsStep(const ChainArg& a, int k) {
  return a.kind == ChainArg::kStep && a.step == k;
}

bool IsBinary(const ChainStep& s, BinaryOp op) {
  return s.binary && static_cast<BinaryOp>(s.op) == op;
}

bool IsUnary(const ChainStep& s, UnaryOp op, int of) {
  return !s.binary && static_cast<UnaryOp>(s.op) == op && IsStep(s.a, of);
}

bool Match(const ChainStep* s, int n, Pattern& q) {
  if (n < 1 || !IsBinary(s[0], BinaryOp::kAdd)) return false;
  const ChainArg *t = &s[0].a, *b = &s[0].b;
  if (t->kind != ChainArg::kTile) std::swap(t, b);
  if (t->kind != ChainArg::kTile || (b->kind != ChainArg::kRow && b->kind != ChainArg::kCol))
    return false;
  q.t = t->p;
  q.ldt = t->rs;
  q.bias = b->p;
  q.row = b->kind == ChainArg::kRow;
  int k = 1;
  if (k < n && IsBinary(s[k], BinaryOp::kAdd)) {  // + a residual tile
    const ChainArg *x = &s[k].a, *z = &s[k].b;
    if (!IsStep(*x, k - 1)) std::swap(x, z);
    if (!IsStep(*x, k - 1) || z->kind != ChainArg::kTile) return false;
    q.z = z->p;
    q.ldz = z->rs;
    ++k;
  }
  const int x = k - 1;  // the activation's input
  const int rest = n - k;
  if (rest == 0) return true;
  const ChainStep& a = s[k];
  q.p = {a.alpha, a.beta};
  if (rest == 1 && !a.binary && IsStep(a.a, x)) {
    static constexpr std::pair<UnaryOp, Pattern::Act> kOne[] = {
        {UnaryOp::kRelu, Pattern::kRelu},           {UnaryOp::kClip, Pattern::kClip},
        {UnaryOp::kLeakyRelu, Pattern::kLeakyRelu}, {UnaryOp::kSigmoid, Pattern::kSigmoid},
        {UnaryOp::kSilu, Pattern::kSilu},           {UnaryOp::kTanh, Pattern::kTanh}};
    for (const auto& [op, act] : kOne)
      if (static_cast<UnaryOp>(a.op) == op) {
        q.act = act;
        return true;
      }
    return false;
  }
  if (rest == 4 && IsBinary(a, BinaryOp::kMul) && IsStep(a.a, x) && a.b.kind == ChainArg::kScalar &&
      IsUnary(s[k + 1], UnaryOp::kErf, k) && IsUnary(s[k + 2], UnaryOp::kAffine, k + 1) &&
      IsBinary(s[k + 3], BinaryOp::kMul) &&
      ((IsStep(s[k + 3].a, x) && IsStep(s[k + 3].b, k + 2)) ||
       (IsStep(s[k + 3].b, x) && IsStep(s[k + 3].a, k + 2)))) {  // x * affine(erf(x * scale))
    q.scale = a.b.s;
    q.affine = {s[k + 2].alpha, s[k + 2].beta};
    q.act = Pattern::kGelu;
    return true;
  }
  if (rest < 2 || !IsUnary(a, UnaryOp::kAffine, x) || !IsUnary(s[k + 1], UnaryOp::kClip, k))
    return false;
  q.affine = {a.alpha, a.beta};
  q.p = {s[k + 1].alpha, s[k + 1].beta};
  if (rest == 2) {
    q.act = Pattern::kHardSigmoid;
    return true;
  }
  const ChainStep& m = s[k + 2];
  if (rest != 3 || !IsBinary(m, BinaryOp::kMul) ||
      !((IsStep(m.a, x) && IsStep(m.b, k + 1)) || (IsStep(m.b, x) && IsStep(m.a, k + 1))))
    return false;
  q.act = Pattern::kHardSwish;
  return true;
}

template <bool kRowBias, class F>
HWY_INLINE void RunPattern(D d, const Pattern& q, float* y, int64_t ldy, int64_t rows, int64_t cols,
                           const F& act) {
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* t = q.t + r * q.ldt;
    const float* z = q.z ? q.z + r * q.ldz : nullptr;
    float* out = y + r * ldy;
    const V br = hn::Set(d, kRowBias ? q.bias[r] : 0.f);
    const auto at = [&](size_t j, V v, auto load) HWY_ATTR {
      V x = hn::Add(v, kRowBias ? br : load(q.bias + j));
      if (z) x = hn::Add(x, load(z + j));
      return act(d, x);
    };
    size_t j = 0;
    for (; j + N <= n; j += N)
      hn::StoreU(
          at(j, hn::LoadU(d, t + j), [&](const float* p) HWY_ATTR { return hn::LoadU(d, p); }), d,
          out + j);
    if (j < n) {
      const auto m = hn::FirstN(d, n - j);
      const auto load = [&](const float* p) HWY_ATTR { return hn::MaskedLoad(m, d, p); };
      hn::BlendedStore(at(j, load(t + j), load), m, d, out + j);
    }
  }
}

template <bool kRowBias>
void RunPatternOf(D d, const Pattern& q, float* y, int64_t ldy, int64_t rows, int64_t cols) {
  switch (q.act) {
#define ASC_PATTERN_ACT(ACT, EXPR) \
  case Pattern::ACT:               \
    return RunPattern<kRowBias>(d, q, y, ldy, rows, cols, [&](D d, V x) HWY_ATTR { return EXPR; });
    ASC_PATTERN_ACT(kNone, ((void)d, x))
    ASC_PATTERN_ACT(kRelu, OpRelu{q.p}(d, x))
    ASC_PATTERN_ACT(kClip, OpClip{q.p}(d, x))
    ASC_PATTERN_ACT(kLeakyRelu, OpLeakyRelu{q.p}(d, x))
    ASC_PATTERN_ACT(kSigmoid, OpSigmoid{q.p}(d, x))
    ASC_PATTERN_ACT(kSilu, OpSilu{q.p}(d, x))
    ASC_PATTERN_ACT(kTanh, OpTanh{q.p}(d, x))
    ASC_PATTERN_ACT(kHardSigmoid, OpClip{q.p}(d, OpAffine{q.affine}(d, x)))
    ASC_PATTERN_ACT(kHardSwish, hn::Mul(x, OpClip{q.p}(d, OpAffine{q.affine}(d, x))))
    ASC_PATTERN_ACT(
        kGelu, hn::Mul(x, OpAffine{q.affine}(d, OpErf{q.p}(d, hn::Mul(x, hn::Set(d, q.scale))))))
#undef ASC_PATTERN_ACT
  }
}

bool EpilogueF32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows, int64_t cols) {
#if !HWY_ARCH_X86 || HWY_TARGET > HWY_AVX2
  (void)steps, (void)n, (void)y, (void)ldy, (void)rows, (void)cols;
  return false;
#else
  Pattern q;
  if (!Match(steps, n, q)) return false;
  const D d;
  q.row ? RunPatternOf<true>(d, q, y, ldy, rows, cols)
        : RunPatternOf<false>(d, q, y, ldy, rows, cols);
  return true;
#endif
}

bool ChainF32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows, int64_t cols) {
#if !HWY_ARCH_X86 || HWY_TARGET > HWY_AVX2
  // A row's last vector is read and written masked: only where masked-off lanes cannot fault.
  (void)steps, (void)n, (void)y, (void)ldy, (void)rows, (void)cols;
  return false;
#else
  if (n <= 0 || n > kChainMaxSteps) return false;
  if (EpilogueF32(steps, n, y, ldy, rows, cols)) return true;
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
      float* out = y + r * ldy + j;
      for (int k = 0; k < n; ++k) {
        const ChainStep& s = steps[k];
        const Src a = src(s.a, k, 0, r, j);
        // The last step of whole vectors stores straight into y.
        float* to = k + 1 == n && tail == 0 ? out : res[k];
        if (s.binary)
          RunBinary(d, s.op, a, src(s.b, k, 1, r, j), to, nv, tail);
        else
          RunUnary(d, s, a, to, nv, tail);
      }
      if (tail != 0) {
        for (size_t v = 0; v + 1 < nv; ++v)
          hn::StoreU(hn::Load(d, res[n - 1] + v * N), d, out + v * N);
        hn::BlendedStore(hn::Load(d, res[n - 1] + (nv - 1) * N), hn::FirstN(d, tail), d,
                         out + (nv - 1) * N);
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
HWY_EXPORT(EpilogueF32);

bool vec_epilogue_f32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows,
                      int64_t cols) {
  return HWY_DYNAMIC_DISPATCH(EpilogueF32)(steps, n, y, ldy, rows, cols);
}

bool vec_chain_f32(const ChainStep* steps, int n, float* y, int64_t ldy, int64_t rows,
                   int64_t cols) {
  return HWY_DYNAMIC_DISPATCH(ChainF32)(steps, n, y, ldy, rows, cols);
}

}  // namespace asc::cpu
#endif  // HWY_ONCE

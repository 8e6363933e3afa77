// RNN, GRU, LSTM on the host (layouts and semantics: ops/reduce_rnn.h): the path of f64, which no
// cube multiplies, and of runs without a device to launch tile programs on (ops/rnn.cpp);
// f16/bf16 compute in f32, f32 in f32, f64 in f64.
//
// Each (direction, batch row) is a unit of its own, run in parallel over the device's workers (the
// steps of one unit are sequential): per step a = X[t, b] W^T + Wb (+ Rb for the gates whose
// recurrent bias adds directly) + h R^T, then the cell.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "ops/reduce.h"
#include "ops/reduce_rnn.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"

namespace asc {
namespace {

// The elements of t as compute type C (f16/bf16 widen to f32).
template <class C>
std::vector<C> load(const Tensor& t) {
  std::vector<C> v(static_cast<size_t>(t.numel()));
  switch (t.dtype()) {
    case DType::kF32:
      std::copy_n(t.data_as<float>(), v.size(), v.begin());
      break;
    case DType::kF64:
      std::copy_n(t.data_as<double>(), v.size(), v.begin());
      break;
    case DType::kF16:
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<C>(f16_to_f32(t.data_as<f16>()[i]));
      break;
    case DType::kBF16:
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<C>(bf16_to_f32(t.data_as<bf16>()[i]));
      break;
    default:
      throw ShapeError(cat("RNN: unsupported data type ", dtype_name(t.dtype())));
  }
  return v;
}

// The elements of t as compute type C: t's own memory when it holds C already (weights are not
// copied per run), else a widened copy kept in `owned`.
template <class C>
const C* as_compute(const Tensor& t, std::vector<std::vector<C>>& owned) {
  if ((std::is_same_v<C, float> && t.dtype() == DType::kF32) ||
      (std::is_same_v<C, double> && t.dtype() == DType::kF64))
    return t.data_as<C>();
  owned.push_back(load<C>(t));
  return owned.back().data();
}

template <class C>
void store(const std::vector<C>& v, Tensor& t) {
  switch (t.dtype()) {
    case DType::kF32:
      std::copy(v.begin(), v.end(), t.data_as<float>());
      break;
    case DType::kF64:
      std::copy(v.begin(), v.end(), t.data_as<double>());
      break;
    case DType::kF16:
      for (size_t i = 0; i < v.size(); ++i)
        t.data_as<f16>()[i] = f32_to_f16(static_cast<float>(v[i]));
      break;
    default:
      for (size_t i = 0; i < v.size(); ++i)
        t.data_as<bf16>()[i] = f32_to_bf16(static_cast<float>(v[i]));
  }
}

// x[i] = act(clip(x[i])) for i < n; the switch runs once per call.
template <class C>
void activate(const RnnActivation& f, float clip, C* x, size_t n) {
  if (clip > 0)
    for (size_t i = 0; i < n; ++i) x[i] = std::clamp<C>(x[i], -clip, clip);
  const C a = f.alpha, b = f.beta;
  using Fn = RnnActivation::Fn;
  auto each = [&](auto g) {
    for (size_t i = 0; i < n; ++i) x[i] = g(x[i]);
  };
  switch (f.fn) {
    case Fn::kRelu:
      return each([](C v) { return std::max<C>(v, 0); });
    case Fn::kTanh:
      return each([](C v) { return std::tanh(v); });
    case Fn::kSigmoid:
      return each([](C v) { return C(1) / (C(1) + std::exp(-v)); });
    case Fn::kAffine:
      return each([&](C v) { return a * v + b; });
    case Fn::kLeakyRelu:
      return each([&](C v) { return v < 0 ? a * v : v; });
    case Fn::kThresholdedRelu:
      return each([&](C v) { return v > a ? v : C(0); });
    case Fn::kScaledTanh:
      return each([&](C v) { return a * std::tanh(b * v); });
    case Fn::kHardSigmoid:
      return each([&](C v) { return std::clamp<C>(a * v + b, 0, 1); });
    case Fn::kElu:
      return each([&](C v) { return v < 0 ? a * (std::exp(v) - C(1)) : v; });
    case Fn::kSoftsign:
      return each([](C v) { return v / (C(1) + std::abs(v)); });
    case Fn::kSoftplus:
      return each([](C v) { return v > 20 ? v : std::log1p(std::exp(v)); });
  }
}

// sum a[p] b[p] over p < n, in 8 independent partial sums (vectorisable without reassociation
// flags).
template <class C>
C dot(const C* a, const C* b, int64_t n) {
  C s[8] = {};
  int64_t p = 0;
  for (; p + 8 <= n; p += 8)
    for (int k = 0; k < 8; ++k) s[k] += a[p + k] * b[p + k];
  C tail = 0;
  for (; p < n; ++p) tail += a[p] * b[p];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail;
}

// y[n] (+)= w[n, k] x[k]: a row vector times W^T (rows of w contiguous).
template <class C>
void matvec(const C* w, const C* x, C* y, int64_t n, int64_t k, bool accumulate) {
  for (int64_t j = 0; j < n; ++j) {
    const C s = dot(w + j * k, x, k);
    y[j] = accumulate ? y[j] + s : s;
  }
}

template <class C>
struct RnnRun {
  explicit RnnRun(const RnnConfig& config) : c(config) {}

  const RnnConfig& c;
  const C *x = nullptr, *w = nullptr, *r = nullptr, *bias = nullptr, *p = nullptr;
  std::vector<C> h0, c0;
  std::vector<std::vector<C>> owned;  // inputs widened to C
  const Tensor* lens = nullptr;
  std::vector<C> y, yh, yc;  // layout 0 buffers (transposed on store for layout 1)

  // X[t, b, :] in layout 0 order.
  const C* x_at(int64_t t, int64_t b) const {
    const int64_t row = c.batch_first ? b * c.seq + t : t * c.batch + b;
    return x + row * c.input;
  }

  // One batch row of one direction: its input projections, then its steps. Units write disjoint
  // parts of y, yh and yc, so they run in parallel.
  void unit(int64_t d, int64_t b) {
    const int64_t H = c.hidden, GH = c.gates * H;
    const bool rev = c.reverse || d == 1;
    const C* wd = w + d * GH * c.input;
    const C* rd = r + d * GH * H;
    const C* wb = bias ? bias + d * 2 * GH : nullptr;
    const C* rb = wb ? wb + GH : nullptr;
    const auto& acts = c.acts[static_cast<size_t>(d)];
    // GRU keeps Rbh apart: it joins (r h) Rh^T, or is scaled by r with linear_before_reset.
    const int64_t rb_direct = c.kind == RnnKind::kGru ? 2 * H : GH;
    std::vector<C> h(H), cell(H), a(GH), hr(H), rh(H);
    const size_t state = static_cast<size_t>((d * c.batch + b) * H);
    for (int64_t i = 0; i < H; ++i) {
      h[i] = h0.empty() ? C(0) : h0[state + i];
      cell[i] = c0.empty() ? C(0) : c0[state + i];
    }
    const int64_t steps = rnn_steps(c, lens, b);
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t t = rev ? steps - 1 - s : s;
      // a = X[t, b] W^T + Wb + Rb (its direct part), then the cell adds h R^T.
      matvec(wd, x_at(t, b), a.data(), GH, c.input, false);
      if (wb)
        for (int64_t j = 0; j < GH; ++j) a[j] += wb[j] + (j < rb_direct ? rb[j] : C(0));
      if (c.kind == RnnKind::kGru)
        gru_step(a, h, hr, rh, rd, rb, acts);
      else
        step(a, h, cell, rd, d, acts);
      std::copy(h.begin(), h.end(), y.begin() + ((t * c.dirs + d) * c.batch + b) * H);
    }
    std::copy(h.begin(), h.end(), yh.begin() + static_cast<int64_t>(state));
    if (c.kind == RnnKind::kLstm)
      std::copy(cell.begin(), cell.end(), yc.begin() + static_cast<int64_t>(state));
  }

  // RNN: h = f(a + h R^T). LSTM: a = a + h R^T over i, o, f, c, then the cell update.
  void step(std::vector<C>& a, std::vector<C>& h, std::vector<C>& cell, const C* rd, int64_t d,
            const std::vector<RnnActivation>& acts) {
    const int64_t H = c.hidden;
    matvec(rd, h.data(), a.data(), c.gates * H, H, true);
    if (c.kind == RnnKind::kRnn) {
      activate(acts[0], c.clip, a.data(), static_cast<size_t>(H));
      std::copy_n(a.data(), H, h.data());
      return;
    }
    C *gi = a.data(), *go = gi + H, *gf = go + H, *gc = gf + H;
    const C* pd = p ? p + d * 3 * H : nullptr;
    if (pd)
      for (int64_t i = 0; i < H; ++i) {
        gi[i] += pd[i] * cell[i];
        gf[i] += pd[2 * H + i] * cell[i];
      }
    activate(acts[0], c.clip, gi, static_cast<size_t>(H));
    if (c.input_forget)
      for (int64_t i = 0; i < H; ++i) gf[i] = C(1) - gi[i];
    else
      activate(acts[0], c.clip, gf, static_cast<size_t>(H));
    activate(acts[1], c.clip, gc, static_cast<size_t>(H));
    for (int64_t i = 0; i < H; ++i) cell[i] = gf[i] * cell[i] + gi[i] * gc[i];
    if (pd)
      for (int64_t i = 0; i < H; ++i) go[i] += pd[H + i] * cell[i];
    activate(acts[0], c.clip, go, static_cast<size_t>(H));
    std::copy(cell.begin(), cell.end(), h.begin());
    activate(acts[2], 0.f, h.data(), static_cast<size_t>(H));  // h(C), not clipped
    for (int64_t i = 0; i < H; ++i) h[i] *= go[i];
  }

  // GRU: z, r = f(a + h R^T); n = g(a_h + (r h) Rh^T + Rbh) or g(a_h + r (h Rh^T + Rbh));
  // h = (1 - z) n + z h.
  void gru_step(std::vector<C>& a, std::vector<C>& h, std::vector<C>& hr, std::vector<C>& rh,
                const C* rd, const C* rb, const std::vector<RnnActivation>& acts) {
    const int64_t H = c.hidden;
    C *gz = a.data(), *gr = gz + H, *gh = gr + H;
    matvec(rd, h.data(), gz, 2 * H, H, true);
    activate(acts[0], c.clip, gz, static_cast<size_t>(2 * H));
    const C* rbh = rb ? rb + 2 * H : nullptr;
    if (c.linear_before_reset) {
      matvec(rd + 2 * H * H, h.data(), rh.data(), H, H, false);
      for (int64_t i = 0; i < H; ++i) gh[i] += gr[i] * (rh[i] + (rbh ? rbh[i] : C(0)));
    } else {
      for (int64_t i = 0; i < H; ++i) hr[i] = gr[i] * h[i];
      matvec(rd + 2 * H * H, hr.data(), gh, H, H, true);
      if (rbh)
        for (int64_t i = 0; i < H; ++i) gh[i] += rbh[i];
    }
    activate(acts[1], c.clip, gh, static_cast<size_t>(H));
    for (int64_t i = 0; i < H; ++i) h[i] = (C(1) - gz[i]) * gh[i] + gz[i] * h[i];
  }
};

// [A, B, H] -> [B, A, H] (state layouts) or [S, D, B, H] -> [B, S, D, H] (Y).
template <class C>
std::vector<C> to_batch_first(const std::vector<C>& v, int64_t outer, int64_t batch,
                              int64_t inner) {
  std::vector<C> out(v.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t b = 0; b < batch; ++b)
      std::copy_n(v.data() + (o * batch + b) * inner, inner, out.data() + (b * outer + o) * inner);
  return out;
}

template <class C>
std::vector<C> from_batch_first(const std::vector<C>& v, int64_t outer, int64_t batch,
                                int64_t inner) {
  return to_batch_first(v, batch, outer, inner);  // [B, A, H] -> [A, B, H]
}

template <class C>
void rnn_run(const RnnConfig& c, const LaunchContext& ctx, std::span<const Tensor> in,
             std::span<Tensor> out) {
  RnnRun<C> run(c);
  auto has = [&](int k) { return static_cast<int>(in.size()) > k && in[k].defined(); };
  run.x = as_compute<C>(in[kRnnX], run.owned);
  run.w = as_compute<C>(in[kRnnW], run.owned);
  run.r = as_compute<C>(in[kRnnR], run.owned);
  if (has(kRnnB)) run.bias = as_compute<C>(in[kRnnB], run.owned);
  if (has(kRnnLens)) run.lens = &in[kRnnLens];
  const int64_t H = c.hidden;
  if (has(kRnnH0)) run.h0 = load<C>(in[kRnnH0]);
  if (c.kind == RnnKind::kLstm && has(kRnnC0)) run.c0 = load<C>(in[kRnnC0]);
  if (c.kind == RnnKind::kLstm && has(kRnnP)) run.p = as_compute<C>(in[kRnnP], run.owned);
  if (c.batch_first) {  // states to [D, B, H]
    if (!run.h0.empty()) run.h0 = from_batch_first(run.h0, c.dirs, c.batch, H);
    if (!run.c0.empty()) run.c0 = from_batch_first(run.c0, c.dirs, c.batch, H);
  }
  run.y.assign(static_cast<size_t>(c.seq * c.dirs * c.batch * H), C(0));
  run.yh.assign(static_cast<size_t>(c.dirs * c.batch * H), C(0));
  run.yc.assign(run.yh.size(), C(0));
  ctx.parallel(c.dirs * c.batch, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) run.unit(u / c.batch, u % c.batch);
  });
  if (c.batch_first) {
    run.y = to_batch_first(run.y, c.seq * c.dirs, c.batch, H);
    run.yh = to_batch_first(run.yh, c.dirs, c.batch, H);
    run.yc = to_batch_first(run.yc, c.dirs, c.batch, H);
  }
  if (!out.empty()) store(run.y, out[0]);
  if (out.size() > 1) store(run.yh, out[1]);
  if (out.size() > 2) store(run.yc, out[2]);
}

}  // namespace

void rnn_host_kernel(RnnKind kind, const LaunchContext& ctx, std::span<const Tensor> in,
                     std::span<Tensor> out) {
  std::vector<Shape> shapes;
  std::vector<bool> present;
  for (const Tensor& t : in) {
    shapes.push_back(t.shape());
    present.push_back(t.defined());
  }
  const RnnConfig c = rnn_config(kind, ctx.attr(), shapes, present);
  if (in[kRnnX].dtype() == DType::kF64)
    rnn_run<double>(c, ctx, in, out);
  else
    rnn_run<float>(c, ctx, in, out);
}

}  // namespace asc

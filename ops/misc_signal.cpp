// DFT (17, 20: axis as an input), STFT (17), HannWindow / HammingWindow / BlackmanWindow (17),
// MelWeightMatrix (17).
//
// DFT layout: input [d0, .., d(r-2), c] with c = 1 (real) or 2 (complex, interleaved re/im);
// the transform runs along `axis` (one of the signal dims, not the last) over the view
// [outer, n, inner] of the first r-1 dims. The signal is zero-padded or truncated to dft_length
// L; the output is [.., L or L/2+1 (onesided), .., 2]. The inverse scales by 1/L. The onesided
// inverse (IRFFT) reads a one-sided complex spectrum (L defaults to 2 (n - 1)), completes it by
// conjugate symmetry and returns the real part, [.., L, .., 1].
// STFT layout: signal [batch, length, c]; frame f is signal[f*step .. f*step+frame_length) times
// the window; output [batch, frames, bins, 2] with frames = (length - frame_length)/step + 1.
//
// Transforms run in double: radix-2 FFT for power-of-two lengths, a direct DFT for short ones
// and Bluestein's chirp-z convolution (through a power-of-two FFT) for the rest.
#include <complex>
#include <numbers>

#include "ops/misc.h"

namespace asc {
namespace {

using cd = std::complex<double>;
using misc::has_input;

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// ---- FFT ---------------------------------------------------------------------------------------

bool is_pow2(int64_t n) {
  return n > 0 && (n & (n - 1)) == 0;
}

// exp(sign * 2*pi*i * k / n) with k reduced mod n first (exact angles for large k).
cd twiddle(int64_t k, int64_t n, double sign) {
  const double a = sign * kTwoPi * static_cast<double>(k % n) / static_cast<double>(n);
  return {std::cos(a), std::sin(a)};
}

// In-place iterative radix-2 FFT; sign -1 forward, +1 inverse (unscaled).
void fft_pow2(std::vector<cd>& a, double sign) {
  const int64_t n = static_cast<int64_t>(a.size());
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  std::vector<cd> tw(static_cast<size_t>(n / 2));
  for (int64_t k = 0; k < n / 2; ++k) tw[k] = twiddle(k, n, sign);
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t step = n / len, half = len / 2;
    for (int64_t s = 0; s < n; s += len)
      for (int64_t k = 0; k < half; ++k) {
        const cd u = a[s + k], v = a[s + k + half] * tw[k * step];
        a[s + k] = u + v;
        a[s + k + half] = u - v;
      }
  }
}

void dft_direct(std::vector<cd>& a, double sign) {
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<cd> tw(a.size()), out(a.size());
  for (int64_t k = 0; k < n; ++k) tw[k] = twiddle(k, n, sign);
  for (int64_t k = 0; k < n; ++k) {
    cd s = 0;
    for (int64_t j = 0; j < n; ++j) s += a[j] * tw[(j * k) % n];
    out[k] = s;
  }
  a.swap(out);
}

// Bluestein: X_k = w_k * sum_j (x_j w_j) conj(w_{k-j}), w_k = exp(sign*pi*i*k^2/n).
void fft_bluestein(std::vector<cd>& a, double sign) {
  const int64_t n = static_cast<int64_t>(a.size());
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  std::vector<cd> w(a.size());
  for (int64_t k = 0; k < n; ++k) {
    const auto k2 = static_cast<int64_t>((static_cast<unsigned __int128>(k) * k) % (2 * n));
    const double ang = sign * std::numbers::pi * static_cast<double>(k2) / static_cast<double>(n);
    w[k] = {std::cos(ang), std::sin(ang)};
  }
  std::vector<cd> x(static_cast<size_t>(m)), y(static_cast<size_t>(m));
  for (int64_t k = 0; k < n; ++k) x[k] = a[k] * w[k];
  y[0] = std::conj(w[0]);
  for (int64_t k = 1; k < n; ++k) y[k] = y[m - k] = std::conj(w[k]);
  fft_pow2(x, -1);
  fft_pow2(y, -1);
  for (int64_t k = 0; k < m; ++k) x[k] *= y[k];
  fft_pow2(x, 1);
  for (int64_t k = 0; k < n; ++k) a[k] = x[k] * w[k] / static_cast<double>(m);
}

void fft(std::vector<cd>& a, bool inverse) {
  const double sign = inverse ? 1.0 : -1.0;
  if (a.size() <= 1) return;
  if (is_pow2(static_cast<int64_t>(a.size())))
    fft_pow2(a, sign);
  else if (a.size() <= 32)
    dft_direct(a, sign);
  else
    fft_bluestein(a, sign);
}

// ---- DFT ---------------------------------------------------------------------------------------

struct DftGeom {
  int64_t outer = 1, n = 0, inner = 1, c = 1;  // input view [outer, n, inner, c]
  int64_t length = 0;                          // transform length L
  int64_t out_n = 0;                           // L, or L/2+1 for the RFFT
  bool irfft = false;  // onesided inverse: one-sided complex spectrum in, L real values out
  Shape out;
};

// The axis: DFT-17's attribute (default 1), DFT-20's optional i64 input (default -2).
int64_t dft_axis(const Attrs& a, int since, const Tensor* axis_t) {
  if (since < 20) return a.i("axis");
  return axis_t ? misc::int_scalar_of(*axis_t, "DFT", "axis") : -2;
}

DftGeom dft_geom(const Shape& xs, int64_t axis_in, const Tensor* len_t, const Attrs& a) {
  const bool onesided = a.i("onesided") != 0, inverse = a.i("inverse") != 0;
  const int64_t r = static_cast<int64_t>(xs.size());
  if (r < 2 || (xs.back() != 1 && xs.back() != 2))
    throw ShapeError(cat("DFT: input ", to_string(xs),
                         " must have rank >= 2 and a last dim of 1 (real) or 2 (complex)"));
  if (axis_in >= r - 1 || axis_in < -r || axis_in == -1)
    throw ShapeError(cat("DFT: axis ", axis_in, " is out of range for input ", to_string(xs),
                         " (the last dim holds the real/imaginary parts)"));
  const size_t axis = static_cast<size_t>(axis_in < 0 ? axis_in + r : axis_in);
  DftGeom g;
  g.outer = misc::dims_product(xs, 0, axis);
  g.n = xs[axis];
  g.inner = misc::dims_product(xs, axis + 1, xs.size() - 1);
  g.c = xs.back();
  g.irfft = onesided && inverse;
  if (g.irfft && g.c != 2)
    throw ShapeError(cat("DFT: an inverse onesided transform (IRFFT) takes a complex input, got ",
                         to_string(xs)));
  g.length = g.irfft ? 2 * (g.n - 1) : g.n;
  if (len_t) g.length = misc::int_scalar_of(*len_t, "DFT", "dft_length");
  if (g.length < 1)
    throw ShapeError(cat("DFT: ", len_t ? "dft_length " : "the transform length ", g.length,
                         " must be >= 1 (input ", to_string(xs), ")"));
  g.out_n = onesided && !inverse ? g.length / 2 + 1 : g.length;
  g.out = xs;
  g.out[axis] = g.out_n;
  g.out.back() = g.irfft ? 1 : 2;
  return g;
}

DftGeom dft_geom(int since, const Attrs& a, std::span<const Tensor> in) {
  const Tensor* axis = since >= 20 && has_input(in, 2) ? &in[2] : nullptr;
  return dft_geom(in[0].shape(), dft_axis(a, since, axis), has_input(in, 1) ? &in[1] : nullptr, a);
}

std::vector<TensorType> dft_infer(int since, const InferContext& c) {
  const Tensor* len = has_input(c, 1) ? &need_value(c, 1) : nullptr;
  const Tensor* axis = since >= 20 && has_input(c, 2) ? &need_value(c, 2) : nullptr;
  const auto xs = misc::concrete(c.inputs[0]);
  if (!xs) return {{c.inputs[0].dtype, std::nullopt}};
  const DftGeom g = dft_geom(*xs, dft_axis(c.attrs, since, axis), len, c.attrs);
  return {{c.inputs[0].dtype, to_sym(g.out)}};
}

// Spectrum value k of a line as the transform reads it: the input's first min(n, L) values,
// zeros after; for the IRFFT the one-sided input completed by conjugate symmetry,
// X[k] = conj(X[L - k]) beyond L/2.
template <class At>
cd line_value(const DftGeom& g, int64_t k, At at) {
  if (!g.irfft) return k < std::min(g.n, g.length) ? at(k) : cd{};
  const int64_t half = std::min(g.n, g.length / 2 + 1);
  if (k < half) return at(k);
  return g.length - k < half ? std::conj(at(g.length - k)) : cd{};
}

// Transforms every (outer, inner) line: L values (line_value), transform, store out_n values
// (the real part alone for the IRFFT).
void dft_lines(const Tensor& x, Tensor& y, const DftGeom& g, bool inverse) {
  std::vector<cd> line(static_cast<size_t>(g.length));
  const double scale = inverse ? 1.0 / static_cast<double>(g.length) : 1.0;
  const int64_t oc = g.irfft ? 1 : 2;
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i) {
      const auto at = [&](int64_t j) {
        const int64_t p = ((o * g.n + j) * g.inner + i) * g.c;
        return cd{x.at(p), g.c == 2 ? x.at(p + 1) : 0.0};
      };
      for (int64_t k = 0; k < g.length; ++k) line[k] = line_value(g, k, at);
      fft(line, inverse);
      for (int64_t k = 0; k < g.out_n; ++k) {
        const int64_t p = ((o * g.out_n + k) * g.inner + i) * oc;
        y.set(p, line[k].real() * scale);
        if (!g.irfft) y.set(p + 1, line[k].imag() * scale);
      }
    }
}

// Naive O(L^2) DFT per line, angles reduced mod L.
void dft_reference(int since, const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const DftGeom g = dft_geom(since, a, in);
  const double sign = a.i("inverse") != 0 ? 1.0 : -1.0;
  const double scale = a.i("inverse") != 0 ? 1.0 / static_cast<double>(g.length) : 1.0;
  const int64_t oc = g.irfft ? 1 : 2;
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i) {
      const auto at = [&](int64_t j) {
        const int64_t p = ((o * g.n + j) * g.inner + i) * g.c;
        return cd{in[0].at(p), g.c == 2 ? in[0].at(p + 1) : 0.0};
      };
      for (int64_t k = 0; k < g.out_n; ++k) {
        cd s = 0;
        for (int64_t j = 0; j < g.length; ++j)
          s += line_value(g, j, at) * twiddle(j * k, g.length, sign);
        const int64_t p = ((o * g.out_n + k) * g.inner + i) * oc;
        out[0].set(p, s.real() * scale);
        if (!g.irfft) out[0].set(p + 1, s.imag() * scale);
      }
    }
}

// ---- STFT --------------------------------------------------------------------------------------

struct StftGeom {
  int64_t batch = 0, length = 0, c = 1, step = 1, frame = 0, frames = 0, bins = 0;
};

// Inputs: signal, frame_step, window (optional), frame_length (optional).
StftGeom stft_geom(const Shape& xs, const Tensor& step, const Shape* window,
                   const Tensor* frame_len, bool onesided) {
  if (xs.size() != 3 || (xs[2] != 1 && xs[2] != 2))
    throw ShapeError(
        cat("STFT: signal ", to_string(xs), " must be [batch, length, 1 or 2] (real or complex)"));
  StftGeom g;
  g.batch = xs[0];
  g.length = xs[1];
  g.c = xs[2];
  g.step = misc::int_scalar_of(step, "STFT", "frame_step");
  if (g.step < 1) throw ShapeError(cat("STFT: frame_step ", g.step, " must be >= 1"));
  if (window && window->size() != 1)
    throw ShapeError(cat("STFT: window ", to_string(*window), " must be 1-D"));
  if (frame_len) {
    g.frame = misc::int_scalar_of(*frame_len, "STFT", "frame_length");
    if (window && (*window)[0] != g.frame)
      throw ShapeError(
          cat("STFT: window ", to_string(*window), " does not match frame_length ", g.frame));
  } else if (window) {
    g.frame = (*window)[0];
  } else {
    throw ShapeError("STFT: either window or frame_length must be given");
  }
  if (g.frame < 1 || g.frame > g.length)
    throw ShapeError(cat("STFT: frame length ", g.frame, " must be in [1, ", g.length, "] (signal ",
                         to_string(xs), ")"));
  if (onesided && g.c == 2)
    throw ShapeError(cat("STFT: onesided output needs a real signal, got ", to_string(xs)));
  g.frames = (g.length - g.frame) / g.step + 1;
  g.bins = onesided ? g.frame / 2 + 1 : g.frame;
  return g;
}

StftGeom stft_geom_of(const Attrs& a, std::span<const Tensor> in) {
  return stft_geom(in[0].shape(), in[1], has_input(in, 2) ? &in[2].shape() : nullptr,
                   has_input(in, 3) ? &in[3] : nullptr, a.i("onesided") != 0);
}

std::vector<TensorType> stft_infer(const InferContext& c) {
  const Tensor& step = need_value(c, 1);
  const Tensor* len = has_input(c, 3) ? &need_value(c, 3) : nullptr;
  const auto xs = misc::concrete(c.inputs[0]);
  const auto ws = has_input(c, 2) ? misc::concrete(c.inputs[2]) : std::nullopt;
  if (!xs || (has_input(c, 2) && !ws)) return {{c.inputs[0].dtype, std::nullopt}};
  const StftGeom g = stft_geom(*xs, step, ws ? &*ws : nullptr, len, c.attrs.i("onesided") != 0);
  return {{c.inputs[0].dtype, to_sym(Shape{g.batch, g.frames, g.bins, 2})}};
}

double stft_window(std::span<const Tensor> in, int64_t j) {
  return has_input(in, 2) ? in[2].at(j) : 1.0;
}

void stft_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const StftGeom g = stft_geom_of(ctx.attr(), in);
  std::vector<cd> line(static_cast<size_t>(g.frame));
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t f = 0; f < g.frames; ++f) {
      for (int64_t j = 0; j < g.frame; ++j) {
        const int64_t at = (b * g.length + f * g.step + j) * g.c;
        const double w = stft_window(in, j);
        line[j] = {in[0].at(at) * w, g.c == 2 ? in[0].at(at + 1) * w : 0.0};
      }
      fft(line, false);
      for (int64_t k = 0; k < g.bins; ++k) {
        const int64_t at = ((b * g.frames + f) * g.bins + k) * 2;
        out[0].set(at, line[k].real());
        out[0].set(at + 1, line[k].imag());
      }
    }
}

void stft_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const StftGeom g = stft_geom_of(a, in);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t f = 0; f < g.frames; ++f)
      for (int64_t k = 0; k < g.bins; ++k) {
        cd s = 0;
        for (int64_t j = 0; j < g.frame; ++j) {
          const int64_t at = (b * g.length + f * g.step + j) * g.c;
          const cd v{in[0].at(at), g.c == 2 ? in[0].at(at + 1) : 0.0};
          s += v * stft_window(in, j) * twiddle(j * k, g.frame, -1.0);
        }
        const int64_t at = ((b * g.frames + f) * g.bins + k) * 2;
        out[0].set(at, s.real());
        out[0].set(at + 1, s.imag());
      }
}

// ---- windows -----------------------------------------------------------------------------------

enum class Window { kHann, kHamming, kBlackman };

// w[n] for n in [0, size): N = size (periodic) or size - 1 (symmetric); a one-element symmetric
// window is [1].
double window_value(Window kind, int64_t n, int64_t size, bool periodic) {
  const int64_t den = periodic ? size : size - 1;
  if (den <= 0) return 1.0;
  const double t = kTwoPi * static_cast<double>(n) / static_cast<double>(den);
  switch (kind) {
    case Window::kHann:
      return 0.5 - 0.5 * std::cos(t);
    case Window::kHamming:
      return 25.0 / 46.0 - (21.0 / 46.0) * std::cos(t);
    default:
      return 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2.0 * t);
  }
}

const std::vector<DType>& window_out_types() {
  static const std::vector<DType> t = numeric_types();
  return t;
}

int64_t window_size(const Tensor& t, std::string_view op) {
  const int64_t n = misc::int_scalar_of(t, op, "size");
  if (n < 0) throw ShapeError(cat(op, ": size ", n, " must be >= 0"));
  return n;
}

std::vector<TensorType> window_infer(const InferContext& c) {
  const int64_t n = window_size(need_value(c, 0), c.op.type);
  const DType dt = misc::dtype_attr(c.attrs.i("output_datatype"), window_out_types(), c.op.type,
                                    "output_datatype");
  return {{dt, to_sym(Shape{n})}};
}

void window_fill(Window kind, const Attrs& a, std::span<Tensor> out) {
  const int64_t n = out[0].numel();
  for (int64_t i = 0; i < n; ++i) out[0].set(i, window_value(kind, i, n, a.i("periodic") != 0));
}

// ---- MelWeightMatrix ---------------------------------------------------------------------------

struct MelGeom {
  int64_t bins = 0, mels = 0;
};

MelGeom mel_geom(const Tensor& mels, const Tensor& dft_len) {
  MelGeom g;
  g.mels = misc::int_scalar_of(mels, "MelWeightMatrix", "num_mel_bins");
  const int64_t l = misc::int_scalar_of(dft_len, "MelWeightMatrix", "dft_length");
  if (g.mels < 0 || l < 1)
    throw ShapeError(
        cat("MelWeightMatrix: num_mel_bins ", g.mels, " must be >= 0 and dft_length ", l, " >= 1"));
  g.bins = l / 2 + 1;
  return g;
}

std::vector<TensorType> mel_infer(const InferContext& c) {
  const MelGeom g = mel_geom(need_value(c, 0), need_value(c, 1));
  const DType dt = misc::dtype_attr(c.attrs.i("output_datatype"), window_out_types(),
                                    "MelWeightMatrix", "output_datatype");
  return {{dt, to_sym(Shape{g.bins, g.mels})}};
}

// The triangle corners: num_mel_bins + 2 points equally spaced on the mel scale between the
// edges, mapped back to hertz and to spectrogram bins floor((dft_length + 1) * f / sample_rate).
// The mel edges and step are float, as in ONNX's definition; the rest is double.
std::vector<int64_t> mel_points(std::span<const Tensor> in, const MelGeom& g) {
  const int64_t l = to_int64s(in[1])[0];
  const double rate = misc::scalar_of(in[2], "MelWeightMatrix", "sample_rate");
  const float lo = static_cast<float>(misc::scalar_of(in[3], "MelWeightMatrix", "lower_edge"));
  const float hi = static_cast<float>(misc::scalar_of(in[4], "MelWeightMatrix", "upper_edge"));
  if (!(rate > 0) || !(lo >= 0) || !(hi >= lo))
    throw ShapeError(cat("MelWeightMatrix: need sample_rate > 0 and 0 <= lower_edge_hertz (",
                         misc::num(lo), ") <= upper_edge_hertz (", misc::num(hi), ")"));
  const float lo_mel = 2595.f * std::log10(1.f + lo / 700.f);
  const float hi_mel = 2595.f * std::log10(1.f + hi / 700.f);
  const float step = (hi_mel - lo_mel) / static_cast<float>(g.mels + 2);
  std::vector<int64_t> pts(static_cast<size_t>(g.mels + 2));
  for (int64_t i = 0; i < g.mels + 2; ++i) {
    const double mel = static_cast<double>(i) * step + lo_mel;
    const double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
    pts[i] = static_cast<int64_t>(std::floor(static_cast<double>(l + 1) * hz / rate));
    if (pts[i] < 0 || pts[i] >= g.bins)
      throw ShapeError(cat("MelWeightMatrix: upper_edge_hertz ", misc::num(hi),
                           " maps to spectrogram bin ", pts[i], ", past the ", g.bins,
                           " bins of dft_length ", l, " at sample_rate ", misc::num(rate)));
  }
  return pts;
}

// out[j, i]: rising edge (j - left) / (center - left) on [left, center], falling edge
// (right - j) / (right - center) on [center, right); a zero-width rise puts 1 at the center.
void mel_fill(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const MelGeom g = mel_geom(in[0], in[1]);
  const std::vector<int64_t> p = mel_points(in, g);
  for (int64_t e = 0; e < out[0].numel(); ++e) out[0].set(e, 0.0);  // arena memory is not zeroed
  for (int64_t i = 0; i < g.mels; ++i) {
    const int64_t left = p[i], center = p[i + 1], right = p[i + 2];
    if (center == left) {
      out[0].set(center * g.mels + i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j)
        out[0].set(j * g.mels + i,
                   static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    for (int64_t j = center; j < right; ++j)
      out[0].set(j * g.mels + i,
                 static_cast<double>(right - j) / static_cast<double>(right - center));
  }
}

}  // namespace

void register_misc_signal(Registry& r) {
  const std::vector<DType> kIndex = {DType::kI32, DType::kI64};
  // DFT-20 takes the axis as an optional input (default -2) instead of an attribute (default 1).
  for (const auto& [since, until] : {std::pair{17, 19}, std::pair{20, INT_MAX}}) {
    const int v = since;
    OpDef d = def_op("DFT", since, until);
    d.input("input", "T1").input("dft_length", "T2", Arity::kOptional, true);
    if (since >= 20)
      d.input("axis", "i64", Arity::kOptional, true);
    else
      d.attr("axis", AttrKind::kInt, int64_t{1});
    d.output("output", "T1")
        .attr("inverse", AttrKind::kInt, int64_t{0})
        .attr("onesided", AttrKind::kInt, int64_t{0})
        .type_constraint("T1", float_types())
        .type_constraint("T2", kIndex)
        .describe(
            "discrete Fourier transform (or inverse) of a real or complex signal along "
            "axis, zero-padded/truncated to dft_length; onesided: L/2+1 bins (RFFT), or "
            "with inverse a real signal from a one-sided spectrum (IRFFT)")
        .infer([v](const InferContext& c) { return dft_infer(v, c); })
        .host_kernel(
            [v](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
              dft_lines(in[0], out[0], dft_geom(v, ctx.attr(), in), ctx.attr().i("inverse") != 0);
            })
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          dft_reference(v, a, in, out);
        });
    r.add(std::move(d));
  }

  r.add(def_op("STFT", 17)
            .input("signal", "T1")
            .input("frame_step", "T2", Arity::kSingle, true)
            .input("window", "T1", Arity::kOptional)
            .input("frame_length", "T2", Arity::kOptional, true)
            .output("output", "T1")
            .attr("onesided", AttrKind::kInt, int64_t{1})
            .type_constraint("T1", float_types())
            .type_constraint("T2", kIndex)
            .describe("short-time Fourier transform: DFT of windowed frames every frame_step "
                      "samples; output [batch, frames, bins, 2]")
            .infer(stft_infer)
            .host_kernel(stft_kernel)
            .reference(stft_reference));

  const std::pair<const char*, Window> windows[] = {{"HannWindow", Window::kHann},
                                                    {"HammingWindow", Window::kHamming},
                                                    {"BlackmanWindow", Window::kBlackman}};
  for (const auto& [name, kind] : windows) {
    const Window k = kind;
    r.add(def_op(name, 17)
              .input("size", "T1", Arity::kSingle, true)
              .output("output", "T2")
              .attr("output_datatype", AttrKind::kInt, int64_t{1})
              .attr("periodic", AttrKind::kInt, int64_t{1})
              .type_constraint("T1", kIndex)
              .type_constraint("T2", window_out_types())
              .describe(cat(name,
                            " of `size` points, periodic (N = size) or symmetric "
                            "(N = size - 1), in output_datatype"))
              .infer(window_infer)
              .host_kernel([k](const LaunchContext& ctx, std::span<const Tensor>,
                               std::span<Tensor> out) { window_fill(k, ctx.attr(), out); })
              .reference([k](const Attrs& a, std::span<const Tensor>, std::span<Tensor> out) {
                window_fill(k, a, out);
              }));
  }

  r.add(def_op("MelWeightMatrix", 17)
            .input("num_mel_bins", "T1", Arity::kSingle, true)
            .input("dft_length", "T1", Arity::kSingle, true)
            .input("sample_rate", "T1")
            .input("lower_edge_hertz", "T2")
            .input("upper_edge_hertz", "T2")
            .output("output", "T3")
            .attr("output_datatype", AttrKind::kInt, int64_t{1})
            .type_constraint("T1", kIndex)
            .type_constraint("T2", float_types())
            .type_constraint("T3", window_out_types())
            .describe("[dft_length/2+1, num_mel_bins] triangular mel filterbank between the "
                      "edge frequencies")
            .infer(mel_infer)
            .host_kernel([](const LaunchContext& ctx, std::span<const Tensor> in,
                            std::span<Tensor> out) { mel_fill(ctx.attr(), in, out); })
            .reference(mel_fill));
}

}  // namespace asc

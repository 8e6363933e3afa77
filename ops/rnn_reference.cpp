// Naive references of RNN / GRU / LSTM in double (ops/reduce_rnn.h): the ONNX equations written
// out per direction, batch row, step and hidden unit, reading every tensor through its layout.
#include <algorithm>
#include <cmath>

#include "ops/reduce_rnn.h"

namespace asc {
namespace {

double act(const RnnActivation& f, double clip, double x) {
  return rnn_activation_ref(f, clip, x);
}

struct Ref {
  const RnnConfig& c;
  std::span<const Tensor> in;

  bool has(int k) const { return static_cast<int>(in.size()) > k && in[k].defined(); }
  double x(int64_t t, int64_t b, int64_t i) const {
    const int64_t row = c.batch_first ? b * c.seq + t : t * c.batch + b;
    return in[kRnnX].at(row * c.input + i);
  }
  // Row `g * H + j` of W / R for direction d.
  double w(int64_t d, int64_t row, int64_t i) const {
    return in[kRnnW].at((d * c.gates * c.hidden + row) * c.input + i);
  }
  double r(int64_t d, int64_t row, int64_t k) const {
    return in[kRnnR].at((d * c.gates * c.hidden + row) * c.hidden + k);
  }
  double wb(int64_t d, int64_t row) const {
    return has(kRnnB) ? in[kRnnB].at(d * 2 * c.gates * c.hidden + row) : 0.0;
  }
  double rb(int64_t d, int64_t row) const {
    return has(kRnnB) ? in[kRnnB].at(d * 2 * c.gates * c.hidden + c.gates * c.hidden + row) : 0.0;
  }
  int64_t state_at(int64_t d, int64_t b, int64_t j) const {
    return (c.batch_first ? b * c.dirs + d : d * c.batch + b) * c.hidden + j;
  }
  int64_t y_at(int64_t t, int64_t d, int64_t b, int64_t j) const {
    return (c.batch_first ? (b * c.seq + t) * c.dirs + d : (t * c.dirs + d) * c.batch + b) *
               c.hidden +
           j;
  }
  // x_t W_g^T + Wb_g for hidden unit j of gate g.
  double xw(int64_t d, int64_t t, int64_t b, int64_t g, int64_t j) const {
    double s = wb(d, g * c.hidden + j);
    for (int64_t i = 0; i < c.input; ++i) s += x(t, b, i) * w(d, g * c.hidden + j, i);
    return s;
  }
  // v R_g^T for hidden unit j of gate g.
  double vr(int64_t d, const std::vector<double>& v, int64_t g, int64_t j) const {
    double s = 0;
    for (int64_t k = 0; k < c.hidden; ++k) s += v[k] * r(d, g * c.hidden + j, k);
    return s;
  }
};

}  // namespace

void rnn_reference(RnnKind kind, const Attrs& a, std::span<const Tensor> in,
                   std::span<Tensor> out) {
  std::vector<Shape> shapes;
  std::vector<bool> present;
  for (const Tensor& t : in) {
    shapes.push_back(t.shape());
    present.push_back(t.defined());
  }
  const RnnConfig c = rnn_config(kind, a, shapes, present);
  const Ref ref{c, in};
  const int64_t H = c.hidden;
  for (Tensor& o : out)
    for (int64_t i = 0; i < o.numel(); ++i) o.set(i, 0.0);
  for (int64_t d = 0; d < c.dirs; ++d) {
    const auto& f = c.acts[d];
    for (int64_t b = 0; b < c.batch; ++b) {
      std::vector<double> h(H), cell(H);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = ref.has(kRnnH0) ? in[kRnnH0].at(ref.state_at(d, b, j)) : 0.0;
        cell[j] =
            kind == RnnKind::kLstm && ref.has(kRnnC0) ? in[kRnnC0].at(ref.state_at(d, b, j)) : 0.0;
      }
      const int64_t steps = ref.has(kRnnLens) ? static_cast<int64_t>(in[kRnnLens].at(b)) : c.seq;
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = (c.reverse || d == 1) ? steps - 1 - s : s;
        std::vector<double> nh(H), nc(H);
        for (int64_t j = 0; j < H; ++j) {
          if (kind == RnnKind::kRnn) {
            nh[j] = act(f[0], c.clip, ref.xw(d, t, b, 0, j) + ref.vr(d, h, 0, j) + ref.rb(d, j));
          } else if (kind == RnnKind::kGru) {  // gates z, r, h
            auto gate = [&](int64_t g) {
              return act(f[0], c.clip,
                         ref.xw(d, t, b, g, j) + ref.vr(d, h, g, j) + ref.rb(d, g * H + j));
            };
            const double z = gate(0), rr = gate(1);
            double pre = ref.xw(d, t, b, 2, j);
            if (c.linear_before_reset) {
              pre += rr * (ref.vr(d, h, 2, j) + ref.rb(d, 2 * H + j));
            } else {
              std::vector<double> rh(H);
              for (int64_t k = 0; k < H; ++k) {  // r_k uses hidden unit k's reset gate
                const double rk = act(
                    f[0], c.clip, ref.xw(d, t, b, 1, k) + ref.vr(d, h, 1, k) + ref.rb(d, H + k));
                rh[k] = rk * h[k];
              }
              pre += ref.vr(d, rh, 2, j) + ref.rb(d, 2 * H + j);
            }
            nh[j] = (1 - z) * act(f[1], c.clip, pre) + z * h[j];
          } else {  // gates i, o, f, c; peepholes i, o, f
            auto pre = [&](int64_t g) {
              return ref.xw(d, t, b, g, j) + ref.vr(d, h, g, j) + ref.rb(d, g * H + j);
            };
            auto peep = [&](int64_t k) {
              return ref.has(kRnnP) ? in[kRnnP].at(d * 3 * H + k * H + j) : 0.0;
            };
            const double ig = act(f[0], c.clip, pre(0) + peep(0) * cell[j]);
            const double fg =
                c.input_forget ? 1 - ig : act(f[0], c.clip, pre(2) + peep(2) * cell[j]);
            const double cg = act(f[1], c.clip, pre(3));
            nc[j] = fg * cell[j] + ig * cg;
            const double og = act(f[0], c.clip, pre(1) + peep(1) * nc[j]);
            nh[j] = og * act(f[2], 0.0, nc[j]);
          }
        }
        h = nh;
        if (kind == RnnKind::kLstm) cell = nc;
        if (!out.empty())
          for (int64_t j = 0; j < H; ++j) out[0].set(ref.y_at(t, d, b, j), h[j]);
      }
      for (int64_t j = 0; j < H; ++j) {
        if (out.size() > 1) out[1].set(ref.state_at(d, b, j), h[j]);
        if (out.size() > 2) out[2].set(ref.state_at(d, b, j), cell[j]);
      }
    }
  }
}

}  // namespace asc

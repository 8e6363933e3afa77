// RNN / GRU / LSTM configuration: attributes and input shapes checked and resolved once
// (ops/reduce_rnn.h), for inference, the host kernel and the reference alike.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "ops/reduce_rnn.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

using Fn = RnnActivation::Fn;

struct ActSpec {
  const char* name;
  Fn fn;
  bool takes_alpha, takes_beta;
  float alpha, beta;  // defaults (those of the ONNX operators of the same name)
};

constexpr ActSpec kActs[] = {
    {"relu", Fn::kRelu, false, false, 0, 0},
    {"tanh", Fn::kTanh, false, false, 0, 0},
    {"sigmoid", Fn::kSigmoid, false, false, 0, 0},
    {"affine", Fn::kAffine, true, true, 1.f, 0.f},
    {"leakyrelu", Fn::kLeakyRelu, true, false, 0.01f, 0},
    {"thresholdedrelu", Fn::kThresholdedRelu, true, false, 1.f, 0},
    {"scaledtanh", Fn::kScaledTanh, true, true, 1.f, 1.f},
    {"hardsigmoid", Fn::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", Fn::kElu, true, false, 1.f, 0},
    {"softsign", Fn::kSoftsign, false, false, 0, 0},
    {"softplus", Fn::kSoftplus, false, false, 0, 0},
};

const ActSpec& act_spec(const std::string& name, const char* op) {
  std::string low = name;
  for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const ActSpec& s : kActs)
    if (low == s.name) return s;
  throw ShapeError(cat(op, ": unsupported activation '", name, "'"));
}

std::vector<std::string> default_acts(RnnKind k) {
  if (k == RnnKind::kRnn) return {"Tanh"};
  if (k == RnnKind::kGru) return {"Sigmoid", "Tanh"};
  return {"Sigmoid", "Tanh", "Tanh"};
}

// Per direction: the activations with their alpha/beta, consumed in order by the activations
// that take them.
std::vector<std::vector<RnnActivation>> parse_acts(RnnKind k, const Attrs& a, int64_t dirs) {
  const char* op = rnn_name(k);
  const auto per_dir = default_acts(k).size();
  std::vector<std::string> names = std::get<std::vector<std::string>>(a.all().at("activations"));
  if (names.empty()) names = default_acts(k);
  if (names.size() == per_dir && dirs == 2) {  // one set given: both directions use it
    const auto once = names;
    names.insert(names.end(), once.begin(), once.end());
  }
  if (names.size() != per_dir * static_cast<size_t>(dirs))
    throw ShapeError(cat(op, ": expected ", per_dir * static_cast<size_t>(dirs),
                         " activations, got ", names.size()));
  const auto& alphas = a.floats("activation_alpha");
  const auto& betas = a.floats("activation_beta");
  size_t ia = 0, ib = 0;
  std::vector<std::vector<RnnActivation>> out(static_cast<size_t>(dirs));
  for (size_t i = 0; i < names.size(); ++i) {
    const ActSpec& s = act_spec(names[i], op);
    RnnActivation act{s.fn, s.alpha, s.beta};
    if (s.takes_alpha && ia < alphas.size()) act.alpha = alphas[ia++];
    if (s.takes_beta && ib < betas.size()) act.beta = betas[ib++];
    out[i / per_dir].push_back(act);
  }
  return out;
}

void expect_shape(const char* op, const char* what, const Shape& got, const Shape& want) {
  if (got != want)
    throw ShapeError(cat(op, ": ", what, " must be ", to_string(want), ", got ", to_string(got)));
}

}  // namespace

std::vector<RnnActivation> rnn_activations(const std::vector<std::string>& names,
                                           const std::vector<float>& alpha,
                                           const std::vector<float>& beta) {
  std::vector<RnnActivation> out;
  for (size_t i = 0; i < names.size(); ++i) {
    const ActSpec& s = act_spec(names[i], "RnnStep");
    out.push_back(
        {s.fn, i < alpha.size() ? alpha[i] : s.alpha, i < beta.size() ? beta[i] : s.beta});
  }
  return out;
}

std::string rnn_activation_name(RnnActivation::Fn fn) {
  for (const ActSpec& s : kActs)
    if (s.fn == fn) return s.name;
  return "tanh";
}

double rnn_activation_ref(const RnnActivation& f, double clip, double x) {
  if (clip > 0) x = std::min(std::max(x, -clip), clip);
  const double a = f.alpha, b = f.beta;
  switch (f.fn) {
    case Fn::kRelu:
      return x > 0 ? x : 0;
    case Fn::kTanh:
      return std::tanh(x);
    case Fn::kSigmoid:
      return 1 / (1 + std::exp(-x));
    case Fn::kAffine:
      return a * x + b;
    case Fn::kLeakyRelu:
      return x < 0 ? a * x : x;
    case Fn::kThresholdedRelu:
      return x > a ? x : 0;
    case Fn::kScaledTanh:
      return a * std::tanh(b * x);
    case Fn::kHardSigmoid:
      return std::min(1.0, std::max(0.0, a * x + b));
    case Fn::kElu:
      return x < 0 ? a * (std::exp(x) - 1) : x;
    case Fn::kSoftsign:
      return x / (1 + std::fabs(x));
    case Fn::kSoftplus:
      return std::log(1 + std::exp(x));
  }
  return x;
}

const char* rnn_name(RnnKind k) {
  return k == RnnKind::kRnn ? "RNN" : k == RnnKind::kGru ? "GRU" : "LSTM";
}

int rnn_outputs(RnnKind k) {
  return k == RnnKind::kLstm ? 3 : 2;
}

RnnConfig rnn_config(RnnKind kind, const Attrs& a, std::span<const Shape> shapes,
                     const std::vector<bool>& present) {
  const char* op = rnn_name(kind);
  auto has = [&](int k) { return static_cast<size_t>(k) < present.size() && present[k]; };
  if (!has(kRnnX) || !has(kRnnW) || !has(kRnnR)) throw ShapeError(cat(op, ": X, W and R needed"));
  RnnConfig c;
  c.kind = kind;
  c.gates = kind == RnnKind::kRnn ? 1 : kind == RnnKind::kGru ? 3 : 4;
  const std::string& dir = a.s("direction");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    throw ShapeError(
        cat(op, ": direction must be forward, reverse or bidirectional, got '", dir, "'"));
  c.dirs = dir == "bidirectional" ? 2 : 1;
  c.reverse = dir == "reverse";
  c.batch_first = a.i("layout", 0) != 0;
  const Shape &x = shapes[kRnnX], &w = shapes[kRnnW], &r = shapes[kRnnR];
  if (x.size() != 3 || w.size() != 3 || r.size() != 3)
    throw ShapeError(cat(op, ": X, W, R must have rank 3, got ", to_string(x), ", ", to_string(w),
                         ", ", to_string(r)));
  c.seq = x[c.batch_first ? 1 : 0];
  c.batch = x[c.batch_first ? 0 : 1];
  c.input = x[2];
  c.hidden = a.i("hidden_size") > 0 ? a.i("hidden_size") : r[2];
  const int64_t gh = c.gates * c.hidden;
  expect_shape(op, "W", w, {c.dirs, gh, c.input});
  expect_shape(op, "R", r, {c.dirs, gh, c.hidden});
  if (has(kRnnB)) expect_shape(op, "B", shapes[kRnnB], {c.dirs, 2 * gh});
  if (has(kRnnLens)) expect_shape(op, "sequence_lens", shapes[kRnnLens], {c.batch});
  const Shape state =
      c.batch_first ? Shape{c.batch, c.dirs, c.hidden} : Shape{c.dirs, c.batch, c.hidden};
  if (has(kRnnH0)) expect_shape(op, "initial_h", shapes[kRnnH0], state);
  if (kind == RnnKind::kLstm && has(kRnnC0)) expect_shape(op, "initial_c", shapes[kRnnC0], state);
  if (kind == RnnKind::kLstm && has(kRnnP))
    expect_shape(op, "P", shapes[kRnnP], {c.dirs, 3 * c.hidden});
  c.acts = parse_acts(kind, a, c.dirs);
  c.clip = std::max(0.f, a.f("clip"));
  c.linear_before_reset = kind == RnnKind::kGru && a.i("linear_before_reset", 0) != 0;
  c.input_forget = kind == RnnKind::kLstm && a.i("input_forget", 0) != 0;
  return c;
}

std::vector<Shape> rnn_output_shapes(const RnnConfig& c) {
  const Shape y = c.batch_first ? Shape{c.batch, c.seq, c.dirs, c.hidden}
                                : Shape{c.seq, c.dirs, c.batch, c.hidden};
  const Shape state =
      c.batch_first ? Shape{c.batch, c.dirs, c.hidden} : Shape{c.dirs, c.batch, c.hidden};
  std::vector<Shape> out{y, state};
  if (c.kind == RnnKind::kLstm) out.push_back(state);
  return out;
}

int64_t rnn_steps(const RnnConfig& c, const Tensor* lens, int64_t b) {
  if (!lens) return c.seq;
  const auto n = static_cast<int64_t>(lens->at(b));
  if (n < 0 || n > c.seq)
    throw ShapeError(
        cat(rnn_name(c.kind), ": sequence_lens[", b, "] = ", n, " out of range [0, ", c.seq, "]"));
  return n;
}

}  // namespace asc

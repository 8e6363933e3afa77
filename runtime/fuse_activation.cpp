// The activations the fused epilogues take (activation_after, runtime/fusion.h), in the spellings
// exporters write. z is the value the activation reads; its output has z's shape and dtype.
//
//   one node      Relu | Sigmoid | Tanh | Gelu | HardSwish | LeakyRelu | HardSigmoid |
//                 Clip (constant bounds; Relu6 is Clip(z, 0, 6)) |
//                 Max(z, lo) [-> Min(., hi)] | Min(z, hi) [-> Max(., lo)]     -> relu / clip
//   SiLU          z * Sigmoid(z),  z * Sigmoid(z * 1)  (Paddle's swish, beta 1)
//   hard-sigmoid  Clip(z + 3, 0, 6) / 6                           -> hardsigmoid(1/6, 1/2)
//   hard-swish    z * Clip(z + 3, 0, 6) / 6,  z * (Clip(z + 3, 0, 6) / 6),
//                 z * HardSigmoid(z) with alpha 1/6, beta 1/2
//   GELU (erf)    e = Erf(z / sqrt 2 | z * 1/sqrt 2), p = e + 1, (z * p) * 0.5 | (z * 0.5) * p
//
// "/ 6" is Div by 6 or Mul by 1/6; Mul's and Add's operands either way. The constants are one
// element of a float dtype, checked exactly (0, 1, 3, 6, 0.5 as written; 1/6 within one float
// ulp of float(1/6); sqrt 2 and 1/sqrt 2 within 1e-6 relative). Each step's value must have no
// reader outside the chain — can_fuse decides that for the pattern the caller builds.
#include <cctype>
#include <cmath>
#include <numbers>

#include "runtime/fusion.h"

namespace asc {
namespace {

int out(const Graph& g, int n) {
  return g.nodes[n].outputs[0];
}

// The one-element float constant binary node n reads beside v; nullptr otherwise.
const Tensor* scalar_beside(const FuseGraph& fg, int n, int v) {
  const int o = other_operand(fg.graph(), n, v);
  if (o < 0 || o == v) return nullptr;
  const Tensor* c = fg.scalar(o);
  return c && dtype_is_float(c->dtype()) ? c : nullptr;
}

bool scalar_is(const FuseGraph& fg, int n, int v, double value) {
  const Tensor* c = scalar_beside(fg, n, v);
  return c && c->at(0) == value;
}

bool scalar_near(const FuseGraph& fg, int n, int v, double value) {
  const Tensor* c = scalar_beside(fg, n, v);
  return c && std::fabs(c->at(0) - value) <= 1e-6 * value;
}

// 1/6 within one ulp of its float rounding.
bool is_sixth(double c) {
  const float f = 1.0f / 6;
  return c >= std::nextafter(f, 0.0f) && c <= std::nextafter(f, 1.0f);
}

// Node n is v / 6 or v * (1/6).
bool divides_by_six(const FuseGraph& fg, int n, int v) {
  const Graph& g = fg.graph();
  if (is_op(fg, n, "Div")) return g.nodes[n].inputs[0] == v && scalar_is(fg, n, v, 6.0);
  if (!is_op(fg, n, "Mul")) return false;
  const Tensor* c = scalar_beside(fg, n, v);
  return c && is_sixth(c->at(0));
}

// The only reader of v, whatever its op; -1 when v has none or several.
int only_reader(const FuseGraph& fg, int v) {
  return fg.consumers(v).size() == 1 ? fg.consumers(v)[0] : -1;
}

// Clip node n's bounds: Clip-1/6 attributes, Clip-11+ optional one-element constant inputs.
// False when a bound is not a constant.
bool clip_bounds(const FuseGraph& fg, int n, float& lo, float& hi) {
  const Node& a = fg.graph().nodes[n];
  lo = -INFINITY;
  hi = INFINITY;
  if (a.opset < 11) {
    lo = a.attrs.f("min", lo);
    hi = a.attrs.f("max", hi);
    return true;
  }
  for (size_t k = 1; k < a.inputs.size(); ++k) {
    if (a.inputs[k] < 0) continue;
    const Tensor* t = fg.scalar(a.inputs[k]);
    if (!t) return false;
    (k == 1 ? lo : hi) = static_cast<float>(t->at(0));
  }
  return true;
}

// Node add is z + 3 and its only reader a Clip(., 0, 6): that Clip, else -1.
int relu6_of_z_plus_3(const FuseGraph& fg, int add, int z) {
  if (!is_op(fg, add, "Add") || !scalar_is(fg, add, z, 3.0)) return -1;
  const int clip = fg.sole_consumer(out(fg.graph(), add), "Clip");
  float lo = 0, hi = 0;
  return clip >= 0 && clip_bounds(fg, clip, lo, hi) && lo == 0.0f && hi == 6.0f ? clip : -1;
}

// The erf-form GELU reading z (two readers: the scaling into Erf and a Mul), if it is one.
Activation gelu_erf_of(const FuseGraph& fg, int z) {
  const Graph& g = fg.graph();
  const auto& users = fg.consumers(z);
  for (int k = 0; k < 2; ++k) {
    const int d = users[k], u = users[1 - k];
    const bool div = is_op(fg, d, "Div") && g.nodes[d].inputs[0] == z &&
                     scalar_near(fg, d, z, std::numbers::sqrt2);
    const bool mul = is_op(fg, d, "Mul") && scalar_near(fg, d, z, 1 / std::numbers::sqrt2);
    if ((!div && !mul) || !is_op(fg, u, "Mul")) continue;
    const int e = fg.sole_consumer(out(g, d), "Erf");
    const int p = e < 0 ? -1 : fg.sole_consumer(out(g, e), "Add");
    if (p < 0 || !scalar_near(fg, p, out(g, e), 1.0)) continue;
    const int pv = out(g, p), uv = out(g, u);
    const int last = fg.sole_consumer(other_operand(g, u, z) == pv ? uv : pv, "Mul");
    if (last < 0) continue;
    const bool torch = other_operand(g, u, z) == pv && scalar_near(fg, last, uv, 0.5);
    const bool half_first = scalar_near(fg, u, z, 0.5) && other_operand(g, last, pv) == uv;
    if (torch || half_first) return {{d, e, p, u, last}, out(g, last), "gelu"};
  }
  return {};
}

// Two readers of z: SiLU, hard-swish, GELU.
Activation two_readers(const FuseGraph& fg, int z) {
  const Graph& g = fg.graph();
  const auto& users = fg.consumers(z);
  for (int k = 0; k < 2; ++k) {
    const int a = users[k], m = users[1 - k];  // m multiplies z by what a computes
    if (!is_op(fg, m, "Mul")) continue;
    const int gate = other_operand(g, m, z), mo = out(g, m);
    if (gate < 0 || gate == z) continue;
    // SiLU: Sigmoid(z) or Sigmoid(z * 1).
    const int s = is_op(fg, a, "Mul") && scalar_is(fg, a, z, 1.0)
                      ? fg.sole_consumer(out(g, a), "Sigmoid")
                      : (is_op(fg, a, "Sigmoid") ? a : -1);
    if (s >= 0 && gate == out(g, s))
      return s == a ? Activation{{s, m}, mo, "silu"} : Activation{{a, s, m}, mo, "silu"};
    // Hard-swish: z * HardSigmoid(z) of ONNX's HardSwish constants.
    if (is_op(fg, a, "HardSigmoid") && gate == out(g, a) &&
        is_sixth(g.nodes[a].attrs.f("alpha", 0.2f)) && g.nodes[a].attrs.f("beta", 0.5f) == 0.5f)
      return {{a, m}, mo, "hardswish"};
    // Hard-swish: z * Clip(z + 3, 0, 6) / 6, or z * (Clip(z + 3, 0, 6) / 6).
    const int clip = relu6_of_z_plus_3(fg, a, z);
    if (clip < 0) continue;
    const int r = out(g, clip);
    if (gate == r) {
      const int d = only_reader(fg, mo);
      if (divides_by_six(fg, d, mo)) return {{a, clip, m, d}, out(g, d), "hardswish"};
    } else {
      const int d = only_reader(fg, r);
      if (d >= 0 && out(g, d) == gate && divides_by_six(fg, d, r))
        return {{a, clip, d, m}, mo, "hardswish"};
    }
  }
  return gelu_erf_of(fg, z);
}

// Max(z, lo) [-> Min(., hi)] or Min(z, hi) [-> Max(., lo)], bounds one-element constants.
Activation clamp_of(const FuseGraph& fg, int n, int z) {
  const Graph& g = fg.graph();
  const bool max = is_op(fg, n, "Max");
  if ((!max && !is_op(fg, n, "Min")) || g.nodes[n].inputs.size() != 2) return {};
  const Tensor* c = scalar_beside(fg, n, z);
  if (!c) return {};
  float lo = max ? static_cast<float>(c->at(0)) : -INFINITY;
  float hi = max ? INFINITY : static_cast<float>(c->at(0));
  Activation r{{n}, out(g, n), "clip"};
  const int m = fg.sole_consumer(out(g, n), max ? "Min" : "Max");
  if (m >= 0 && g.nodes[m].inputs.size() == 2) {
    if (const Tensor* d = scalar_beside(fg, m, out(g, n)); d) {
      (max ? hi : lo) = static_cast<float>(d->at(0));
      r = {{n, m}, out(g, m), "clip"};
    }
  }
  if (lo > hi) return {};
  if (lo == 0.0f && hi == INFINITY) r.name = "relu";
  r.alpha = lo;
  r.beta = hi;
  return r;
}

// One reader of z.
Activation one_reader(const FuseGraph& fg, int z) {
  const Graph& g = fg.graph();
  const int n = fg.consumers(z)[0];
  if (n < 0 || fg.removed(n) || !g.nodes[n].domain.empty()) return {};
  const Attrs& at = g.nodes[n].attrs;
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "HardSwish", "Gelu"}) {
    if (!is_op(fg, n, op)) continue;
    std::string name = op;
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (name == "gelu" && at.has("approximate") && at.s("approximate") == "tanh")
      name = "gelu_tanh";
    return {{n}, out(g, n), name};
  }
  if (is_op(fg, n, "LeakyRelu")) return {{n}, out(g, n), "leakyrelu", at.f("alpha", 0.01f)};
  if (is_op(fg, n, "HardSigmoid"))
    return {{n}, out(g, n), "hardsigmoid", at.f("alpha", 0.2f), at.f("beta", 0.5f)};
  if (is_op(fg, n, "Clip")) {
    float lo = 0, hi = 0;
    if (!clip_bounds(fg, n, lo, hi)) return {};
    return {{n}, out(g, n), "clip", lo, hi};
  }
  // Hard-sigmoid: Clip(z + 3, 0, 6) / 6.
  if (const int clip = relu6_of_z_plus_3(fg, n, z); clip >= 0) {
    const int d = only_reader(fg, out(g, clip));
    if (divides_by_six(fg, d, out(g, clip)))
      return {{n, clip, d}, out(g, d), "hardsigmoid", 1.0f / 6, 0.5f};
    return {};
  }
  return clamp_of(fg, n, z);
}

}  // namespace

Activation activation_after(const FuseGraph& fg, int z) {
  const size_t readers = fg.consumers(z).size();
  Activation a = readers == 1   ? one_reader(fg, z)
                 : readers == 2 ? two_readers(fg, z)
                                : Activation{};
  if (a.nodes.empty()) return {};
  // The steps read z, each other's values and one-element constants: the output has z's shape
  // unless a constant's rank is above z's (a [1, 1, 1, 1, 1] "3" broadcasts z up).
  const Graph& g = fg.graph();
  const TensorType& zt = fg.type(z);
  if (!zt.shape || fg.type(a.out).dtype != zt.dtype) return {};
  for (int n : a.nodes)
    for (int v : g.nodes[n].inputs)
      if (v >= 0 && g.values[v].constant && g.values[v].constant->shape().size() > zt.shape->size())
        return {};
  return a;
}

}  // namespace asc

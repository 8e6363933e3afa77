// Convolutions and their epilogues -> FusedConv (ops/fused_conv.cpp):
//
//   [x = Mul(x0, c) | Div(x0, c) | Add(x0, c) | Sub(x0, c) | Sub(c, x0)] ...   c of one element
//        or one per input channel, each value read only by the next step: folded into w (scale
//        per input channel) and b (shift summed over w), a shift only when the conv reads no
//        padding (PP-LCNetV3's learnable affine block after an activation)
//   y = Conv(x, w[, b])
//   [y = BatchNormalization(y, scale, bias, mean, var) | Mul(y, c) | Div(y, c) | Add(y, c) |
//        Sub(y, c) | Sub(c, y)] ...    w, b and every parameter constant; c of one element or one
//                                      per output channel ([M, 1, 1], [1, M, 1, 1]); each step
//                                      the only reader of its input: folded into w and b
//   [z = Add(y, r) | Add(r, y)]        r of y's shape, provably (a residual)
//   [a = act(z)]                       activation_after (runtime/fuse_activation.cpp): single ops
//                                      and hard-swish, hard-sigmoid, SiLU, GELU written out
//   [Mul(a, c) | Div(a, c) | Add(a, c) | Sub(a, c) | Sub(c, a)] ...   after an activation, c of
//                                      one element: post_scale, post_shift (not when an unpadded
//                                      conv reads the result: it takes them into its weights)
//
// Every Conv becomes a FusedConv (activation none when nothing follows), so the load-time weight
// packing (runtime/weight_pack.h) finds every convolution in one form. The longest legal form
// wins: an exposed y or z keeps what follows it out.
#include <cmath>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/fusion.h"

namespace asc {
namespace {

const Tensor* constant(const Graph& g, int v) {
  return v >= 0 && g.values[v].constant ? &*g.values[v].constant : nullptr;
}

// The map y -> y * scale[c] + shift[c] per output channel c that the nodes after a conv apply
// (BatchNormalization, Mul / Div / Add / Sub by constants), composed in double.
struct ChannelAffine {
  std::vector<double> scale, shift;
  explicit ChannelAffine(int64_t m) : scale(m, 1.0), shift(m, 0.0) {}
};

// BatchNormalization node bn in inference form, every parameter a constant of [M]:
// s = scale / sqrt(var + eps), y -> y * s + (bias - mean * s). False when it has another form.
bool batch_norm_step(const FuseGraph& fg, int bn, ChannelAffine& f) {
  const Graph& g = fg.graph();
  const Node& n = g.nodes[bn];
  const int64_t m = std::ssize(f.scale);
  if (n.inputs.size() != 5 || (n.attrs.has("training_mode") && n.attrs.i("training_mode")))
    return false;
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (n.outputs[k] >= 0) return false;
  const Tensor* p[4];
  for (int k = 0; k < 4; ++k) {
    p[k] = constant(g, n.inputs[k + 1]);
    if (!p[k] || p[k]->numel() != m) return false;
  }
  const double eps = n.attrs.has("epsilon") ? n.attrs.f("epsilon") : 1e-5;
  for (int64_t c = 0; c < m; ++c) {
    const double s = p[0]->at(c) / std::sqrt(p[3]->at(c) + eps);
    f.scale[c] *= s;
    f.shift[c] = f.shift[c] * s + (p[1]->at(c) - p[2]->at(c) * s);
  }
  return true;
}

// Constant c broadcasts against the conv's output y [N, M, ...] per channel: a float of y's
// dtype, rank <= y's and, aligned right, every dim 1 but y's channel dim, which is 1 or M.
bool per_channel(const Tensor& c, const TensorType& y, int64_t m) {
  if (!y.shape || c.shape().size() > y.shape->size() || c.dtype() != y.dtype ||
      !dtype_is_float(c.dtype()))
    return false;
  const size_t off = y.shape->size() - c.shape().size();
  for (size_t i = 0; i < c.shape().size(); ++i)
    if (c.shape()[i] != 1 && !(off + i == 1 && c.shape()[i] == m)) return false;
  return true;
}

// Node n computes y * c, y / c (no c zero), y + c, y - c or c - y (operands of Mul and Add
// either way), c a per-channel constant. False when it is none of these.
bool affine_step(const FuseGraph& fg, int n, int y, ChannelAffine& f) {
  const Graph& g = fg.graph();
  const bool mul = is_op(fg, n, "Mul"), div = is_op(fg, n, "Div"), add = is_op(fg, n, "Add"),
             sub = is_op(fg, n, "Sub");
  if (!mul && !div && !add && !sub) return false;
  const int cv = other_operand(g, n, y);
  const Tensor* c = cv == y ? nullptr : constant(g, cv);
  const int64_t m = std::ssize(f.scale);
  if (!c || !per_channel(*c, fg.type(y), m) || (div && g.nodes[n].inputs[0] != y)) return false;
  auto at = [&](int64_t k) { return c->at(c->numel() == 1 ? 0 : k); };
  for (int64_t k = 0; div && k < m; ++k)
    if (at(k) == 0) return false;
  const bool y_second = g.nodes[n].inputs[1] == y;
  for (int64_t k = 0; k < m; ++k) {
    const double v = at(k);
    double &s = f.scale[k], &t = f.shift[k];
    if (mul) {
      s *= v;
      t *= v;
    } else if (div) {
      s /= v;
      t /= v;
    } else if (add) {
      t += v;
    } else if (y_second) {
      s = -s;
      t = v - t;
    } else {
      t -= v;
    }
  }
  return true;
}

// W [M, C/G, k...] and B [M] of a conv while folds rewrite them, in double.
struct ConvWeights {
  Tensor w, b;
  int64_t group = 1;
};

ConvWeights weights_of(const Tensor& w, const Tensor* b, int64_t group) {
  ConvWeights r{Tensor(DType::kF64, w.shape()), Tensor(DType::kF64, {w.shape()[0]}), group};
  for (int64_t i = 0; i < w.numel(); ++i) r.w.set(i, w.at(i));
  for (int64_t i = 0; i < r.b.numel(); ++i) r.b.set(i, b ? b->at(i) : 0.0);
  return r;
}

// Steps after the conv: W' = W * scale per output channel, B' = B * scale + shift.
void fold_output(ConvWeights& cw, const ChannelAffine& f) {
  const int64_t m = std::ssize(f.scale), per = m > 0 ? cw.w.numel() / m : 0;
  for (int64_t c = 0; c < m; ++c) {
    for (int64_t i = 0; i < per; ++i) cw.w.set(c * per + i, cw.w.at(c * per + i) * f.scale[c]);
    cw.b.set(c, cw.b.at(c) * f.scale[c] + f.shift[c]);
  }
}

// Steps before the conv, per input channel c (output channel m of group g reads c = g * C/G + j
// through W[m, j]): W' = W * scale[c], B' = B + sum over j and the window of W * shift[c].
void fold_input(ConvWeights& cw, const ChannelAffine& f) {
  const int64_t m = cw.w.shape()[0], cg = cw.w.shape()[1], mg = m / cw.group;
  const int64_t k = m * cg > 0 ? cw.w.numel() / (m * cg) : 0;
  for (int64_t o = 0; o < m; ++o)
    for (int64_t j = 0; j < cg; ++j) {
      const int64_t c = o / mg * cg + j;
      for (int64_t i = (o * cg + j) * k, e = i + k; i < e; ++i) {
        cw.b.set(o, cw.b.at(o) + cw.w.at(i) * f.shift[c]);
        cw.w.set(i, cw.w.at(i) * f.scale[c]);
      }
    }
}

// The operand of binary node n that is not a constant; -1 when none or both are.
int variable_operand(const Graph& g, int n) {
  const auto& in = g.nodes[n].inputs;
  if (in.size() != 2 || in[0] < 0 || in[1] < 0) return -1;
  const bool c0 = g.values[in[0]].constant.has_value(), c1 = g.values[in[1]].constant.has_value();
  return c0 == c1 ? -1 : (c0 ? in[1] : in[0]);
}

// Whether the conv reads padding anywhere (then a shift of its input is no bias).
bool padded(const Attrs& a) {
  if (a.has("auto_pad") && a.s("auto_pad") != "NOTSET" && a.s("auto_pad") != "VALID") return true;
  if (a.has("pads"))
    for (int64_t p : a.ints("pads"))
      if (p != 0) return true;
  return false;
}

// Mul / Div / Add / Sub steps by per-input-channel constants ending in the conv's input x, each
// value read only by the next step (what PP-LCNetV3's learnable affine block after an activation
// is): the steps, nearest the conv first, that fold legally — with `pattern` (the conv) and y,
// the conv's output, can_fuse holds, and a shift is left only when the conv reads no padding.
// x becomes the first step's input, f the steps' map.
std::vector<int> input_steps(const FuseGraph& fg, std::vector<int> pattern, int y, int& x,
                             ChannelAffine& f, bool pad) {
  const Graph& g = fg.graph();
  std::vector<int> steps, reads;
  for (int v = x; fg.consumers(v).size() == 1;) {
    const int p = g.values[v].producer;
    if (p < 0 || fg.removed(p) || g.nodes[p].outputs.size() != 1) break;
    const int in = variable_operand(g, p);
    ChannelAffine probe = f;
    if (in < 0 || !affine_step(fg, p, in, probe)) break;
    // in has x's channels for sure: a constant [1, C, 1, 1] would broadcast a [N, 1, H, W] up.
    const TensorType& it = fg.type(in);
    const int64_t c = std::ssize(f.scale);
    if (!it.shape || it.shape->size() < 2 || !(*it.shape)[1].known() || (*it.shape)[1].value() != c)
      break;
    pattern.push_back(p);
    if (!can_fuse(fg, pattern, std::span<const int>(&y, 1))) break;
    steps.push_back(p);
    reads.push_back(in);
    v = in;
  }
  // The longest run whose shift the conv can take.
  for (size_t n = steps.size(); n > 0; --n) {
    ChannelAffine run = f;
    for (size_t i = n; i-- > 0;) affine_step(fg, steps[i], reads[i], run);
    bool shift = false;
    for (double t : run.shift) shift = shift || t != 0;
    if (shift && pad) continue;
    f = std::move(run);
    x = reads[n - 1];
    steps.resize(n);
    return steps;
  }
  return {};
}

// Mul / Div / Add / Sub by one-element constants after the activation (PP-LCNetV3's learnable
// affine block): the nodes, their output and the composed map, FusedConv's post_scale and
// post_shift. None when an unpadded conv reads the result: input_steps folds them into its
// weights for free.
struct PostAffine {
  std::vector<int> nodes;
  int out = -1;
  float scale = 1, shift = 0;
};

PostAffine post_affine(const FuseGraph& fg, int v) {
  const Graph& g = fg.graph();
  PostAffine p{{}, v};
  ChannelAffine f(1);
  while (fg.consumers(p.out).size() == 1) {
    const int n = fg.consumers(p.out)[0];
    if (!affine_step(fg, n, p.out, f)) break;
    p.nodes.push_back(n);
    p.out = g.nodes[n].outputs[0];
  }
  const auto& next = fg.consumers(p.out);
  if (p.nodes.empty() || (next.size() == 1 && is_op(fg, next[0], "Conv") &&
                          g.nodes[next[0]].inputs[0] == p.out && !padded(g.nodes[next[0]].attrs)))
    return {{}, v};
  p.scale = static_cast<float>(f.scale[0]);
  p.shift = static_cast<float>(f.shift[0]);
  return p;
}

}  // namespace

int fuse_conv(FuseGraph& fg) {
  Graph& g = fg.graph();
  int made = 0;
  const int before = fg.num_nodes();
  for (int cv = 0; cv < before; ++cv) {
    if (!is_op(fg, cv, "Conv")) continue;
    const Node& conv = g.nodes[cv];
    int x = conv.inputs[0], w = conv.inputs[1], b = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    int y = conv.outputs[0];
    std::vector<int> nodes = {cv};
    // BatchNormalization, Mul / Div / Add / Sub by per-channel constants: folded into W and B.
    const Tensor* wt = constant(g, w);
    const Tensor* bt = b >= 0 ? constant(g, b) : nullptr;
    if (wt && dtype_is_float(wt->dtype()) && wt->shape().size() >= 3 &&
        (b < 0 || (bt && bt->numel() == wt->shape()[0]))) {
      const int64_t group = conv.attrs.i("group", 1);
      ConvWeights cw = weights_of(*wt, bt, group);
      const DType dtype = wt->dtype();
      ChannelAffine in(wt->shape()[1] * group), out(wt->shape()[0]);
      const std::vector<int> before_conv = input_steps(fg, {cv}, y, x, in, padded(conv.attrs));
      nodes.insert(nodes.begin(), before_conv.begin(), before_conv.end());
      // An activation reading y comes first: Clip(y + 3, 0, 6) / 6 is a hard-sigmoid, not a
      // shifted bias and a clip.
      const size_t folded_in = nodes.size();
      while (fg.consumers(y).size() == 1 && activation_after(fg, y).nodes.empty()) {
        const int n = fg.consumers(y)[0];
        ChannelAffine step = out;
        const bool bn = is_op(fg, n, "BatchNormalization") && g.nodes[n].inputs[0] == y;
        if (!(bn ? batch_norm_step(fg, n, step) : affine_step(fg, n, y, step))) break;
        std::vector<int> with = nodes;
        with.push_back(n);
        const int o = g.nodes[n].outputs[0];
        if (!can_fuse(fg, with, std::span<const int>(&o, 1))) break;
        out = std::move(step);
        nodes = std::move(with);
        y = o;
      }
      if (nodes.size() > 1) {
        if (!before_conv.empty()) fold_input(cw, in);
        if (nodes.size() > folded_in) fold_output(cw, out);
        Tensor nw(dtype, cw.w.shape()), nb(dtype, cw.b.shape());
        for (int64_t i = 0; i < nw.numel(); ++i) nw.set(i, cw.w.at(i));
        for (int64_t i = 0; i < nb.numel(); ++i) nb.set(i, cw.b.at(i));
        w = fg.add_constant(cat(conv.name, "/w_folded"), std::move(nw));
        b = fg.add_constant(cat(conv.name, "/b_folded"), std::move(nb));
      }
    }
    // Forms, longest first: residual + activation, residual, activation, the conv alone.
    int z = y, r = -1;
    const int add = fg.sole_consumer(y, "Add");
    if (add >= 0) {
      const int other = other_operand(g, add, y);
      if (other >= 0 && other != y && same_shape(fg.type(other), fg.type(y)) &&
          fg.type(other).dtype == fg.type(y).dtype) {
        r = other;
        z = g.nodes[add].outputs[0];
      }
    }
    struct Form {
      std::vector<int> nodes;
      int residual, out;
      Activation act;
      PostAffine post;
    };
    std::vector<Form> forms;
    // With an activation: first with the scale and shift after it, then without.
    auto activated = [&](std::vector<int> with, int residual, const Activation& act) {
      with.insert(with.end(), act.nodes.begin(), act.nodes.end());
      const PostAffine post = post_affine(fg, act.out);
      if (!post.nodes.empty()) {
        std::vector<int> all = with;
        all.insert(all.end(), post.nodes.begin(), post.nodes.end());
        forms.push_back({all, residual, post.out, act, post});
      }
      forms.push_back({with, residual, act.out, act, PostAffine{}});
    };
    if (r >= 0) {
      std::vector<int> with = nodes;
      with.push_back(add);
      const Activation act = activation_after(fg, z);
      if (!act.nodes.empty()) activated(with, r, act);
      forms.push_back({with, r, z, Activation{}, PostAffine{}});
    }
    const Activation act = activation_after(fg, y);
    if (!act.nodes.empty()) activated(nodes, -1, act);
    forms.push_back({nodes, -1, y, Activation{}, PostAffine{}});
    for (const Form& f : forms) {
      if (!can_fuse(fg, f.nodes, std::span<const int>(&f.out, 1))) continue;
      Attrs attrs = conv.attrs;
      attrs.set("activation", f.act.name);
      attrs.set("alpha", f.act.alpha);
      attrs.set("beta", f.act.beta);
      attrs.set("post_scale", f.post.scale);
      attrs.set("post_shift", f.post.shift);
      std::vector<int> inputs = {x, w, b};
      if (f.residual >= 0) inputs.push_back(f.residual);
      const std::string name = g.nodes[g.values[f.out].producer].name;
      fg.replace(f.nodes, fused_node("FusedConv", name, inputs, {f.out}, attrs));
      ++made;
      break;
    }
  }
  return made;
}

}  // namespace asc

// RnnStep (ai.asc 1): one time step of one direction of RNN / GRU / LSTM as a tile program, the
// recurrent product on the cube and the gates on the vector unit. The RNN family's ops launch it
// once per step (ops/rnn.cpp, docs/RUNTIME.md "Ops as a sequence of tile programs").
//
// Inputs (B batch rows, H hidden units, G gates; gate order as ONNX: GRU z, r, h; LSTM i, o, f, c):
//   0 XW  [B, G*H]  this step's input projections x W^T + Wb (+ the Rb that adds directly)
//   1 H   [B, H]    the state h
//   2 RT  [G, H, H] the direction's recurrence weights, each gate's transposed: RT[g, k, j] =
//                   R[g*H + j, k] (a gate's block is contiguous); with `block` J (0 < J < H,
//                   dividing H), each gate's block in column blocks of J, [G, H / J * H, J]:
//                   RT[g, (j / J) * H + k, j % J] = R[g*H + j, k], so a tile of J hidden units
//                   over all of k reads one contiguous [H, J] run (an LSTM step's 1024 x 256
//                   GEMV on one core of two ~1.2x faster than rows of 512 bytes 1 KiB apart)
//   3 C   [B, H]    LSTM: the cell state (absent: zeros)
//   4 P   [3*H]     LSTM: peepholes i, o, f
//   5 RBH [H]       GRU: the h gate's recurrent bias (scaled by r with linear_before_reset)
//   6 M   [B]       1 where the batch row runs this step, 0 where its state stays (sequence_lens)
//   7 RH  [B, H]    GRU without linear_before_reset: r * h, from this step's `reset` stage
// Outputs: Y [B, H] the new h (stage `reset`: r * h), Y_c [B, H] (LSTM) the new cell state.
//
// One tile is TB batch rows x TJ hidden units of every gate:
//   a (L0A [TB, TK]) = H[b0 : +TB, k0 : +TK]          per k block (one when TK covers H)
//   b_g (L0B [TK, TJ]) = RT[g, k0 : +TK, j0 : +TJ]  (row-major, as a weight of a MatMul; with
//                        `block` = TJ, rows j0 / TJ * H : +H of all TJ columns)
//   c_g (L0C f32 [TB, TJ]) += a x b_g                  for each gate g the stage multiplies
//   then on the vector unit: pre_g = c_g + XW[b0 : +TB, g*H + j0 : +TJ], clip, activations and
//   the cell update; rows with M = 0 keep H (and C); copy_out Y (and Y_c).
// The recurrent product of a step needs all of h, so tiles split hidden units (and batch rows),
// never k, across cores; steps are ordered by their launches.
#include <algorithm>
#include <cmath>

#include "ops/reduce.h"
#include "ops/reduce_rnn.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

enum StepInput : int { kXw, kH, kR, kC, kP, kRbh, kM, kRh };

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t round_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}

bool present(const std::vector<TensorDesc>& in, int k) {
  return static_cast<int>(in.size()) > k && in[k].dtype != DType::kUndefined;
}

RnnKind cell_kind(const std::string& s) {
  if (s == "RNN") return RnnKind::kRnn;
  if (s == "GRU") return RnnKind::kGru;
  if (s == "LSTM") return RnnKind::kLstm;
  throw ShapeError(cat("RnnStep: cell must be RNN, GRU or LSTM, got '", s, "'"));
}

// The step's configuration from its attributes and shapes.
struct StepConfig {
  RnnKind kind = RnnKind::kRnn;
  int64_t batch = 0, hidden = 0, gates = 1;
  int64_t block = 0;                // RT's column blocks (0: H, one row-major block per gate)
  std::vector<RnnActivation> acts;  // f (RNN); f, g (GRU); f, g, h (LSTM)
  float clip = 0;
  bool input_forget = false, linear_before_reset = false, reset = false;
};

StepConfig step_config(const Attrs& a, const std::vector<Shape>& shapes,
                       const std::vector<bool>& has) {
  StepConfig c;
  c.kind = cell_kind(a.s("cell"));
  c.gates = c.kind == RnnKind::kRnn ? 1 : c.kind == RnnKind::kGru ? 3 : 4;
  const Shape &xw = shapes[kXw], &h = shapes[kH], &r = shapes[kR];
  if (h.size() != 2 || xw.size() != 2 || r.size() != 3)
    throw ShapeError(cat("RnnStep: XW, H must have rank 2 and RT rank 3, got ", to_string(xw), ", ",
                         to_string(h), ", ", to_string(r)));
  c.batch = h[0];
  c.hidden = h[1];
  c.block = a.i("block");
  if (c.block < 0 || (c.block > 0 && c.hidden % c.block != 0))
    throw ShapeError(
        cat("RnnStep: block ", c.block, " must be 0 or divide the hidden size ", c.hidden));
  if (c.block == 0) c.block = c.hidden;
  const int64_t gh = c.gates * c.hidden;
  const Shape rt{c.gates, c.hidden / std::max<int64_t>(c.block, 1) * c.hidden, c.block};
  if (xw != Shape{c.batch, gh} || r != rt)
    throw ShapeError(cat("RnnStep: with H ", to_string(h), " XW must be [", c.batch, ",", gh,
                         "] and RT ", to_string(rt), ", got ", to_string(xw), ", ", to_string(r)));
  auto expect = [&](int k, const Shape& want, const char* what) {
    if (has[k] && shapes[k] != want)
      throw ShapeError(
          cat("RnnStep: ", what, " must be ", to_string(want), ", got ", to_string(shapes[k])));
  };
  expect(kC, h, "C");
  expect(kP, {3 * c.hidden}, "P");
  expect(kRbh, {c.hidden}, "RBH");
  expect(kM, {c.batch}, "M");
  expect(kRh, h, "RH");
  std::vector<std::string> names = std::get<std::vector<std::string>>(a.all().at("activations"));
  const auto& alpha = a.floats("activation_alpha");
  const auto& beta = a.floats("activation_beta");
  const size_t want = c.kind == RnnKind::kRnn ? 1 : c.kind == RnnKind::kGru ? 2 : 3;
  if (names.empty()) {  // ONNX's defaults
    names = {c.kind == RnnKind::kRnn ? "Tanh" : "Sigmoid", "Tanh", "Tanh"};
    names.resize(want);
  }
  // One alpha and beta per activation, positionally (missing: the function's defaults).
  if (names.size() != want || alpha.size() > want || beta.size() > want)
    throw ShapeError(cat("RnnStep: ", want,
                         " activations (and at most as many alpha, beta) "
                         "expected for cell ",
                         a.s("cell"), ", got ", names.size(), " (", alpha.size(), ", ", beta.size(),
                         ")"));
  c.acts = rnn_activations(names, alpha, beta);
  c.clip = std::max(0.f, a.f("clip"));
  c.input_forget = a.i("input_forget") != 0;
  c.linear_before_reset = a.i("linear_before_reset") != 0;
  const std::string& stage = a.s("stage");
  if (stage != "cell" && stage != "reset")
    throw ShapeError(cat("RnnStep: stage must be cell or reset, got '", stage, "'"));
  c.reset = stage == "reset";
  if (c.reset && (c.kind != RnnKind::kGru || c.linear_before_reset))
    throw ShapeError("RnnStep: the reset stage is GRU's without linear_before_reset");
  if (c.kind == RnnKind::kGru && !c.linear_before_reset && !c.reset && !has[kRh])
    throw ShapeError("RnnStep: GRU without linear_before_reset needs RH (r * h)");
  return c;
}

StepConfig step_config(const LaunchContext& ctx) {
  std::vector<Shape> shapes;
  std::vector<bool> has;
  for (size_t k = 0; k <= kRh; ++k) {
    has.push_back(present(ctx.inputs, static_cast<int>(k)));
    shapes.push_back(has.back() ? ctx.inputs[k].shape : Shape{});
  }
  return step_config(ctx.attr(), shapes, has);
}

// ---- kernel ------------------------------------------------------------------------------------

// x = act(clip(x)) on the vector unit (ops/reduce_rnn.h lists the functions).
Buf activate(TileBuilder& t, const RnnActivation& f, float clip, Buf x) {
  if (clip > 0) x = t.unary(UnaryOp::kClip, x, -clip, clip);
  const float a = f.alpha, b = f.beta;
  auto dup = [&](double v) { return t.duplicate(DType::kF32, t.dims(x), v); };
  using Fn = RnnActivation::Fn;
  switch (f.fn) {
    case Fn::kRelu:
      return t.unary(UnaryOp::kRelu, x);
    case Fn::kTanh:
      return t.unary(UnaryOp::kTanh, x);
    case Fn::kSigmoid:
      return t.unary(UnaryOp::kSigmoid, x);
    case Fn::kAffine:
      return t.unary(UnaryOp::kAffine, x, a, b);
    case Fn::kLeakyRelu:
      return t.unary(UnaryOp::kLeakyRelu, x, a);
    case Fn::kThresholdedRelu:
      return t.select(t.compare(CmpOp::kGt, x, dup(a)), x, dup(0));
    case Fn::kScaledTanh:
      return t.unary(UnaryOp::kAffine, t.unary(UnaryOp::kTanh, x * b), a, 0.f);
    case Fn::kHardSigmoid:
      return t.unary(UnaryOp::kClip, t.unary(UnaryOp::kAffine, x, a, b), 0.f, 1.f);
    case Fn::kElu: {
      Buf neg = t.unary(UnaryOp::kAffine, exp(min(x, dup(0))), a, -a);
      return t.select(t.compare(CmpOp::kLt, x, dup(0)), neg, x);
    }
    case Fn::kSoftsign:
      return x / (t.unary(UnaryOp::kAbs, x) + 1.0);
    case Fn::kSoftplus:  // max(x, 0) + log(1 + exp(-|x|)): no overflow
      return t.unary(UnaryOp::kRelu, x) + log(exp(-t.unary(UnaryOp::kAbs, x)) + 1.0);
  }
  return x;
}

void step_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const StepConfig c = step_config(ctx);
  const int64_t B = c.batch, H = c.hidden, GH = c.gates * H;
  const int64_t tb = t.param("TB"), tj = t.param("TJ"), tk = t.param("TK");
  const Coord b0 = t.grid(0, tb), j0 = t.grid(1, tj);
  // A [TB, TJ] box of a [B, cols] tensor at column `col` (+ j0), clamped to `width` columns.
  auto rows_box = [&](int64_t cols, int64_t col, int64_t width) {
    GmBox box;
    box.offset = col;
    box.dims = {BoxDim{B, cols, b0, tb}, BoxDim{width, 1, j0, tj}};
    return box;
  };
  auto load = [&](int k, const GmBox& box, const char* name) {
    return t.cast(t.copy_in(k, box, Pos::kUB, name), DType::kF32);
  };
  // Which gates multiply h (or r * h) by R this stage: GRU's reset stage only r; without
  // linear_before_reset the cell stage multiplies z by h and h by r * h (r came from the reset).
  std::vector<int> gates;
  if (c.reset) {
    gates = {1};
  } else if (c.kind == RnnKind::kGru && !c.linear_before_reset) {
    gates = {0, 2};
  } else {
    for (int g = 0; g < c.gates; ++g) gates.push_back(g);
  }
  std::vector<Buf> acc(static_cast<size_t>(c.gates));
  for (int g : gates) acc[g] = t.alloc(Pos::kL0C, DType::kF32, {tb, tj}, cat("c", g));
  const int64_t nk = ceil_div(H, tk);
  auto k_block = [&](Coord kb) {
    Coord k0 = kb;
    k0.scale *= tk;
    auto a_of = [&](int input) {
      GmBox box;
      box.dims = {BoxDim{B, H, b0, tb}, BoxDim{H, 1, k0, tk}};
      return t.load_l0(t.copy_in(input, box, Pos::kL1, input == kRh ? "rh1" : "h1"), Pos::kL0A);
    };
    const Buf a_h = a_of(kH);
    const bool rh = c.kind == RnnKind::kGru && !c.linear_before_reset && !c.reset;
    const Buf a_rh = rh ? a_of(kRh) : Buf{};
    for (int g : gates) {
      GmBox box;  // RT[g, k, j]: the tile's column block over all of k, with `block`
      box.offset = g * H * H;
      if (c.block < H)
        box.dims = {BoxDim{H / c.block * H, c.block, t.grid(1, H), H},
                    BoxDim{c.block, 1, Coord{}, c.block}};
      else
        box.dims = {BoxDim{H, H, k0, tk}, BoxDim{H, 1, j0, tj}};
      const Buf b = t.load_l0(t.copy_in(kR, box, Pos::kL1, cat("r", g)), Pos::kL0B);
      t.mmad(acc[g], rh && g == 2 ? a_rh : a_h, b, kb);
    }
  };
  if (nk == 1)
    k_block(Coord{});
  else
    t.loop(nk, k_block);
  auto pre = [&](int g) {  // x W^T (+ biases) + h R^T of gate g, f32 [TB, TJ]
    return acc[g] + load(kXw, rows_box(GH, g * H, H), "xw");
  };
  const Buf h = load(kH, rows_box(H, 0, H), "h");
  const std::vector<RnnActivation>& f = c.acts;
  auto mask = [&](Buf now, Buf before) {  // rows with M = 0 keep `before`
    if (!present(ctx.inputs, kM)) return now;
    GmBox box;
    box.dims = {BoxDim{B, 1, b0, tb}, BoxDim{H, 0, j0, tj}};
    const Buf m = load(kM, box, "m");
    return before + m * (now - before);
  };
  if (c.reset) {
    t.copy_out(0, t.cast(activate(t, f[0], c.clip, pre(1)) * h, ctx.outputs[0].dtype),
               rows_box(H, 0, H));
    return;
  }
  Buf hn;
  if (c.kind == RnnKind::kRnn) {
    hn = activate(t, f[0], c.clip, pre(0));
  } else if (c.kind == RnnKind::kGru) {
    const Buf z = activate(t, f[0], c.clip, pre(0));
    Buf n;
    const bool rbh = present(ctx.inputs, kRbh);
    const Buf bias = rbh ? load(
                               kRbh,
                               [&] {
                                 GmBox box;
                                 box.dims = {BoxDim{B, 0, b0, tb}, BoxDim{H, 1, j0, tj}};
                                 return box;
                               }(),
                               "rbh")
                         : Buf{};
    const Buf xh = load(kXw, rows_box(GH, 2 * H, H), "xw");
    if (c.linear_before_reset) {
      const Buf r = activate(t, f[0], c.clip, pre(1));
      n = xh + r * (rbh ? acc[2] + bias : acc[2]);
    } else {
      n = rbh ? xh + acc[2] + bias : xh + acc[2];
    }
    n = activate(t, f[1], c.clip, n);
    hn = n + z * (h - n);  // (1 - z) n + z h
  } else {
    const bool peep = present(ctx.inputs, kP);
    auto peephole = [&](int k) {
      GmBox box;
      box.offset = k * H;
      box.dims = {BoxDim{B, 0, b0, tb}, BoxDim{H, 1, j0, tj}};
      return load(kP, box, "p");
    };
    const Buf cell = present(ctx.inputs, kC) ? load(kC, rows_box(H, 0, H), "c")
                                             : t.duplicate(DType::kF32, {tb, tj}, 0.0);
    Buf pi = pre(0), pf = pre(2);
    if (peep) {
      pi = pi + peephole(0) * cell;
      pf = pf + peephole(2) * cell;
    }
    const Buf i = activate(t, f[0], c.clip, pi);
    const Buf fg = c.input_forget ? t.scalar(BinaryOp::kSub, i, 1.0, /*scalar_left=*/true)
                                  : activate(t, f[0], c.clip, pf);
    const Buf g = activate(t, f[1], c.clip, pre(3));
    const Buf cn = fg * cell + i * g;
    Buf po = pre(1);
    if (peep) po = po + peephole(1) * cn;
    const Buf o = activate(t, f[0], c.clip, po);
    hn = o * activate(t, f[2], 0.f, cn);  // h(C), not clipped
    if (ctx.outputs.size() > 1)
      t.copy_out(1, t.cast(mask(cn, cell), ctx.outputs[1].dtype), rows_box(H, 0, H));
  }
  t.copy_out(0, t.cast(mask(hn, h), ctx.outputs[0].dtype), rows_box(H, 0, H));
}

// ---- tiling ------------------------------------------------------------------------------------

TilingData step_tiling(const LaunchContext& ctx) {
  const StepConfig c = step_config(ctx);
  const DeviceSpec& spec = *ctx.spec;
  const int64_t cores = cores_for(ctx);
  const int64_t B = std::max<int64_t>(c.batch, 1), H = std::max<int64_t>(c.hidden, 1);
  // Batch rows: all of them up to the device's direct-GEMV limit (R streamed once per tile,
  // MatmulCosts::direct_max_m), else blocks of the cube's m granule.
  const int64_t tb =
      B <= spec.matmul.direct_max_m ? B : std::min(round_up(B, spec.mmad_m_align), int64_t{64});
  const int64_t gb = ceil_div(B, tb);
  // Hidden units: the cube's n granule, split so every core gets a tile.
  const int64_t per = ceil_div(H, std::max<int64_t>(1, ceil_div(cores, gb)));
  std::vector<TilingData> cands;
  if (c.block < H) {  // RT in column blocks: a tile is one block over all of k
    TilingData td;
    td.grid = {gb, H / c.block};
    td.params = {{"TB", tb}, {"TJ", c.block}, {"TK", round_up(H, spec.mmad_k_align)}};
    td.block_dim = std::clamp<int64_t>(numel(td.grid), 1, cores);
    cands.push_back(td);
    return auto_tiling(ctx, cands);
  }
  for (int64_t tj = round_up(per, spec.mmad_n_align);; tj = round_up(tj / 2, spec.mmad_n_align)) {
    for (int64_t tk = round_up(H, spec.mmad_k_align);; tk = round_up(tk / 2, spec.mmad_k_align)) {
      TilingData td;
      td.grid = {gb, ceil_div(H, tj)};
      td.params = {{"TB", tb}, {"TJ", tj}, {"TK", tk}};
      td.block_dim = std::clamp<int64_t>(numel(td.grid), 1, cores);
      cands.push_back(td);
      if (tk <= spec.mmad_k_align) break;
    }
    if (tj <= spec.mmad_n_align) break;
  }
  return auto_tiling(ctx, cands);
}

// ---- reference ---------------------------------------------------------------------------------

double act(const RnnActivation& f, double clip, double x) {
  return rnn_activation_ref(f, clip, x);
}

void step_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  std::vector<Shape> shapes;
  std::vector<bool> has;
  for (size_t k = 0; k <= kRh; ++k) {
    has.push_back(in.size() > k && in[k].defined());
    shapes.push_back(has.back() ? in[k].shape() : Shape{});
  }
  const StepConfig c = step_config(a, shapes, has);
  const int64_t H = c.hidden, GH = c.gates * H;
  const int64_t J = c.block;
  auto dot = [&](int input, int64_t b, int64_t col) {  // v[b] . R[col]
    const int64_t g = col / H, j = col % H;
    double s = 0;
    for (int64_t k = 0; k < H; ++k)
      s += in[input].at(b * H + k) * in[kR].at(g * H * H + ((j / J) * H + k) * J + j % J);
    return s;
  };
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t j = 0; j < H; ++j) {
      auto pre = [&](int g) { return in[kXw].at(b * GH + g * H + j) + dot(kH, b, g * H + j); };
      const double h = in[kH].at(b * H + j);
      const double m = has[kM] ? in[kM].at(b) : 1.0;
      const auto& f = c.acts;
      const int64_t o = b * H + j;
      if (c.reset) {
        out[0].set(o, act(f[0], c.clip, pre(1)) * h);
        continue;
      }
      double hn = 0;
      if (c.kind == RnnKind::kRnn) {
        hn = act(f[0], c.clip, pre(0));
      } else if (c.kind == RnnKind::kGru) {
        const double z = act(f[0], c.clip, pre(0));
        const double rbh = has[kRbh] ? in[kRbh].at(j) : 0.0;
        const double xh = in[kXw].at(b * GH + 2 * H + j);
        double n;
        if (c.linear_before_reset)
          n = xh + act(f[0], c.clip, pre(1)) * (dot(kH, b, 2 * H + j) + rbh);
        else
          n = xh + dot(kRh, b, 2 * H + j) + rbh;
        n = act(f[1], c.clip, n);
        hn = (1 - z) * n + z * h;
      } else {
        auto p = [&](int k) { return has[kP] ? in[kP].at(k * H + j) : 0.0; };
        const double cell = has[kC] ? in[kC].at(o) : 0.0;
        const double i = act(f[0], c.clip, pre(0) + p(0) * cell);
        const double fg = c.input_forget ? 1 - i : act(f[0], c.clip, pre(2) + p(2) * cell);
        const double cn = fg * cell + i * act(f[1], c.clip, pre(3));
        const double og = act(f[0], c.clip, pre(1) + p(1) * cn);
        hn = og * act(f[2], 0.0, cn);
        if (out.size() > 1) out[1].set(o, cell + m * (cn - cell));
      }
      out[0].set(o, h + m * (hn - h));
    }
}

std::vector<TensorType> infer_step(const InferContext& ctx) {
  const TensorType& h = ctx.inputs[kH];
  const bool lstm = ctx.attrs.s("cell") == "LSTM" && ctx.attrs.s("stage") == "cell";
  std::vector<TensorType> out{{ctx.inputs[kXw].dtype, h.shape}};
  if (lstm && ctx.num_outputs != 1) out.push_back(out[0]);
  return out;
}

}  // namespace

void register_rnn_step(Registry& r) {
  r.add(def_op("RnnStep", 1, INT_MAX, "ai.asc")
            .input("XW", "T")
            .input("H", "T")
            .input("RT", "T")
            .input("C", "T", Arity::kOptional)
            .input("P", "T", Arity::kOptional)
            .input("RBH", "T", Arity::kOptional)
            .input("M", "T", Arity::kOptional)
            .input("RH", "T", Arity::kOptional)
            .output("Y", "T")
            .output("Y_c", "T", Arity::kOptional)
            .attr("cell", AttrKind::kString)
            .attr("activations", AttrKind::kStrings, std::vector<std::string>{})
            .attr("activation_alpha", AttrKind::kFloats, std::vector<float>{})
            .attr("activation_beta", AttrKind::kFloats, std::vector<float>{})
            .attr("clip", AttrKind::kFloat, 0.f)
            .attr("input_forget", AttrKind::kInt, int64_t{0})
            .attr("linear_before_reset", AttrKind::kInt, int64_t{0})
            .attr("stage", AttrKind::kString, std::string("cell"))
            .attr("block", AttrKind::kInt, int64_t{0})
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .trait(kContraction)
            .describe("one step of one direction of RNN / GRU / LSTM: h R^T on the cube, gates on "
                      "the vector unit (the RNN family's per-step launch)")
            .infer(infer_step)
            .tiling(step_tiling)
            .kernel(step_kernel)
            .reference(step_reference));
}

}  // namespace asc

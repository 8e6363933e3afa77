// RNN / GRU / LSTM as a sequence of tile programs (docs/RUNTIME.md, "Ops as a sequence of tile
// programs"). Per direction d, in f32 workspaces (S steps, B batch rows, I inputs, H hidden, G
// gates):
//   1. Xs_d [S*B, I]: the input rows in the order direction d visits them — row (s, b) is
//      X[t, b] with t = s forward, t = len_b - 1 - s in reverse, zero for s >= len_b (no copy for
//      a forward direction in layout 0).
//   2. WT_d [I, G*H] = W_d^T and RT_d [G, H, H] = R_d with each gate's [H, H] block transposed:
//      Transpose launches, so the weights are a MatMul's row-major B for the projection and for
//      every step's GEMV (the cpu device then streams their rows unpacked when M is small). Where
//      the steps' tiles split the hidden units into blocks of J over all of k (two cores), each
//      gate's block is stored in those column blocks, [G, H / J * H, J] (RnnStep's `block`): one
//      Transpose of R_d seen as [G, H / J, J, H], and each tile reads one contiguous run. Made
//      once and kept in the launch context's state when W / R are model constants, else per run.
//   3. XW_d [S*B, G*H] = Xs_d WT_d + (Wb_d + the part of Rb_d that adds directly): one Gemm
//      launch, a MatMul-shaped cube program over all steps.
//   4. For s in [0, max len): one RnnStep launch (ops/rnn_step.cpp; GRU without
//      linear_before_reset first its `reset` stage), reading XW_d rows s*B.., Hs_d[s] and writing
//      Hs_d[s + 1] [B, H] (and the cell state, ping-pong in Cs_d[s % 2]); M[s, b] = s < len_b keeps
//      the state of a finished batch row.
//   5. On the host: Y[t, d, b] = Hs_d[s + 1, b] for the step s that visited t (zero past len_b),
//      Y_h = Hs_d[max len], Y_c the last cell state, in the node's layout and dtype.
// The programs depend on shapes, attributes and the spec only: they are planned once per signature
// and kept (a bounded cache, and the launch context's state), and rnn_launches lists them for the
// sim device.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "ops/ops.h"
#include "ops/reduce_rnn.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

using ProgramPtr = std::shared_ptr<const TileProgram>;

// The programs of one node signature: the projection and, per direction, the step (and GRU's
// reset stage). Directions with equal activations share programs.
struct RnnPrograms {
  ProgramPtr proj, transpose_w, transpose_r;
  std::vector<ProgramPtr> step, reset;
};

bool has_input(const std::vector<TensorDesc>& in, int k) {
  return static_cast<int>(in.size()) > k && in[k].dtype != DType::kUndefined;
}

RnnConfig config_of(RnnKind kind, const LaunchContext& ctx) {
  std::vector<Shape> shapes;
  std::vector<bool> present;
  for (const TensorDesc& d : ctx.inputs) {
    shapes.push_back(d.shape);
    present.push_back(d.dtype != DType::kUndefined);
  }
  return rnn_config(kind, ctx.attr(), shapes, present);
}

// GRU with linear_before_reset keeps Rbh apart (r scales it); every other recurrent bias adds
// directly and joins the projection's bias.
bool rbh_apart(const RnnConfig& c) {
  return c.kind == RnnKind::kGru && c.linear_before_reset;
}

// op's launch context for these inputs and outputs on parent's device; `attrs` outlives it.
LaunchContext context_for(const OpDef& op, const Attrs& attrs, std::vector<TensorDesc> in,
                          std::vector<TensorDesc> out, const LaunchContext& parent) {
  LaunchContext ctx;
  ctx.op = &op;
  ctx.inputs = std::move(in);
  ctx.outputs = std::move(out);
  ctx.attrs = &attrs;
  ctx.spec = parent.spec;
  ctx.optimize = parent.optimize;
  return ctx;
}

ProgramPtr plan(const OpDef& op, const Attrs& given, std::vector<TensorDesc> in,
                std::vector<TensorDesc> out, const LaunchContext& parent) {
  const Attrs attrs = op.resolve(given);
  const LaunchContext ctx = context_for(op, attrs, std::move(in), std::move(out), parent);
  return std::make_shared<const TileProgram>(trace_program(ctx, op.tiling_fn(ctx)));
}

Attrs step_attrs(const RnnConfig& c, int64_t d, const char* stage, int64_t block) {
  std::vector<std::string> names;
  std::vector<float> alpha, beta;
  for (const RnnActivation& a : c.acts[static_cast<size_t>(d)]) {
    names.push_back(rnn_activation_name(a.fn));
    alpha.push_back(a.alpha);
    beta.push_back(a.beta);
  }
  Attrs a;
  a.set("cell", std::string(rnn_name(c.kind)));
  a.set("activations", names);
  a.set("activation_alpha", alpha);
  a.set("activation_beta", beta);
  a.set("clip", c.clip);
  a.set("input_forget", int64_t{c.input_forget});
  a.set("linear_before_reset", int64_t{c.linear_before_reset});
  a.set("stage", std::string(stage));
  a.set("block", block);
  return a;
}

// RnnStep's input RT.
constexpr size_t kStepRt = 2;

// The column block width for RT: the step tiling's TJ where it splits the hidden units into
// whole blocks and keeps all of k in one tile (0: row-major gate blocks).
int64_t rt_block(const OpDef& step, const Attrs& given, const std::vector<TensorDesc>& in,
                 const std::vector<TensorDesc>& out, const LaunchContext& parent) {
  const Attrs attrs = step.resolve(given);
  const LaunchContext ctx = context_for(step, attrs, in, out, parent);
  const TilingData td = step.tiling_fn(ctx);
  const int64_t H = in[kStepRt].shape[1], tj = td.get("TJ"), tk = td.get("TK");
  return tj > 0 && tj < H && H % tj == 0 && tk >= H ? tj : 0;
}

RnnPrograms make_programs(const RnnConfig& c, const LaunchContext& ctx) {
  const Registry& reg = global_registry();
  const int64_t B = c.batch, H = c.hidden, GH = c.gates * H;
  const TensorDesc none{};
  auto f32 = [](Shape s) { return TensorDesc{DType::kF32, std::move(s)}; };
  RnnPrograms p;
  const bool bias = has_input(ctx.inputs, kRnnB);
  std::vector<TensorDesc> gin{f32({c.seq * B, c.input}), f32({c.input, GH})};
  if (bias) gin.push_back(f32({GH}));
  p.proj = plan(reg.lookup("", "Gemm", 13), Attrs{}, gin, {f32({c.seq * B, GH})}, ctx);
  const OpDef& transpose = reg.lookup("", "Transpose", 13);
  Attrs perm;
  perm.set("perm", std::vector<int64_t>{1, 0});
  p.transpose_w = plan(transpose, perm, {f32({GH, c.input})}, {f32({c.input, GH})}, ctx);
  const OpDef& step = reg.lookup("ai.asc", "RnnStep", 1);
  const bool lstm = c.kind == RnnKind::kLstm;
  const bool split = c.kind == RnnKind::kGru && !c.linear_before_reset;
  std::vector<TensorDesc> in{f32({B, GH}),
                             f32({B, H}),
                             f32({c.gates, H, H}),
                             lstm ? f32({B, H}) : none,
                             lstm && has_input(ctx.inputs, kRnnP) ? f32({3 * H}) : none,
                             rbh_apart(c) && bias ? f32({H}) : none,
                             has_input(ctx.inputs, kRnnLens) ? f32({B}) : none,
                             split ? f32({B, H}) : none};
  std::vector<TensorDesc> out{f32({B, H})};
  if (lstm) out.push_back(f32({B, H}));
  // RT in column blocks of the steps' tile width where their tiling (with row-major gate
  // blocks) splits the hidden units and keeps all of k: each tile reads one contiguous run.
  const int64_t J = rt_block(step, step_attrs(c, 0, "cell", 0), in, out, ctx);
  if (J > 0) {
    perm.set("perm", std::vector<int64_t>{0, 1, 3, 2});
    p.transpose_r =
        plan(transpose, perm, {f32({c.gates, H / J, J, H})}, {f32({c.gates, H / J, H, J})}, ctx);
    in[kStepRt] = f32({c.gates, H / J * H, J});
  } else {
    perm.set("perm", std::vector<int64_t>{0, 2, 1});
    p.transpose_r = plan(transpose, perm, {f32({c.gates, H, H})}, {f32({c.gates, H, H})}, ctx);
  }
  for (int64_t d = 0; d < c.dirs; ++d) {
    const bool same =
        d > 0 && step_attrs(c, d, "cell", J).str() == step_attrs(c, 0, "cell", J).str();
    p.step.push_back(same ? p.step[0] : plan(step, step_attrs(c, d, "cell", J), in, out, ctx));
    if (split) {
      std::vector<TensorDesc> rin(in.begin(), in.begin() + 3);
      rin.resize(in.size());
      p.reset.push_back(same ? p.reset[0]
                             : plan(step, step_attrs(c, d, "reset", J), rin, {f32({B, H})}, ctx));
    }
  }
  return p;
}

// What a launch context keeps across runs (LaunchContext::state): the programs, and the
// transposed weights of a constant W / R per direction (empty until the first run).
struct RnnState {
  std::shared_ptr<const RnnPrograms> programs;
  std::vector<std::vector<float>> wt, rt;
  // Workspaces, kept so that a run allocates (and faults in) nothing the run before it had.
  std::vector<float> xs, xw, pbias, hs, cs, rh, rbh, mask;
  std::vector<void*> args;
  std::vector<ProgramLaunch> seq;
};

// Programs per (node signature, spec, optimisation), kept across runs; the cache is cleared when
// it grows past kCacheMax entries (a model has few RNN signatures).
std::shared_ptr<const RnnPrograms> programs_for(RnnKind kind, const RnnConfig& c,
                                                const LaunchContext& ctx) {
  constexpr size_t kCacheMax = 256;
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const RnnPrograms>> cache;
  const DeviceSpec& s = *ctx.spec;
  std::string key = cat(rnn_name(kind), " ", ctx.attr().str(), " ", s.str(), " cores ",
                        s.cube_cores, "/", s.vector_cores, " granules ", s.mmad_m_align, "/",
                        s.mmad_n_align, "/", s.mmad_k_align, " opt ", int(ctx.optimize));
  for (const TensorDesc& d : ctx.inputs) key.append(d.str()).push_back(';');
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto p = std::make_shared<const RnnPrograms>(make_programs(c, ctx));
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= kCacheMax) cache.clear();
  return cache.emplace(key, p).first->second;
}

// The elements of t as f32 (nullptr data for an absent tensor); f32 tensors are not copied.
struct F32 {
  std::vector<float> copy;
  const float* data = nullptr;
};
F32 as_f32(const Tensor& t) {
  F32 v;
  if (!t.defined()) return v;
  if (t.dtype() == DType::kF32) {
    v.data = t.data_as<float>();
    return v;
  }
  v.copy.resize(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.copy.size(); ++i) v.copy[i] = static_cast<float>(t.at(i));
  v.data = v.copy.data();
  return v;
}

// n floats into t at element `at` (t's dtype).
void put(Tensor& t, int64_t at, const float* v, int64_t n) {
  if (t.dtype() == DType::kF32) {
    std::memcpy(t.data_as<float>() + at, v, static_cast<size_t>(n) * 4);
    return;
  }
  for (int64_t i = 0; i < n; ++i) t.set(at + i, v[i]);
}

}  // namespace

std::vector<ProgramLaunches> rnn_launches(RnnKind kind, const LaunchContext& ctx) {
  if (ctx.inputs.empty() || ctx.inputs[kRnnX].dtype == DType::kF64) return {};
  const RnnConfig c = config_of(kind, ctx);
  const auto p = programs_for(kind, c, ctx);
  std::vector<ProgramLaunches> l{
      {p->transpose_w, c.dirs}, {p->proj, c.dirs}, {p->transpose_r, c.dirs}};
  for (int64_t d = 0; d < c.dirs; ++d) {
    if (!p->reset.empty()) l.push_back({p->reset[static_cast<size_t>(d)], c.seq});
    l.push_back({p->step[static_cast<size_t>(d)], c.seq});
  }
  return l;
}

void rnn_tile_kernel(RnnKind kind, const LaunchContext& ctx, std::span<const Tensor> in,
                     std::span<Tensor> out) {
  const RnnConfig c = config_of(kind, ctx);
  auto st = std::static_pointer_cast<RnnState>(ctx.state);
  if (!st) {
    st = std::make_shared<RnnState>();
    st->programs = programs_for(kind, c, ctx);
    ctx.state = st;
  }
  const RnnPrograms* p = st->programs.get();
  auto has = [&](int k) { return static_cast<int>(in.size()) > k && in[k].defined(); };
  auto constant = [&](int k) {
    return k < static_cast<int>(ctx.constant.size()) && ctx.constant[k];
  };
  const int64_t S = c.seq, B = c.batch, I = c.input, H = c.hidden, G = c.gates, GH = G * H;
  const int64_t D = c.dirs;
  const Tensor* lens = has(kRnnLens) ? &in[kRnnLens] : nullptr;
  std::vector<int64_t> steps(static_cast<size_t>(B));
  int64_t max_steps = 0;
  for (int64_t b = 0; b < B; ++b) max_steps = std::max(max_steps, steps[b] = rnn_steps(c, lens, b));
  const F32 x = as_f32(in[kRnnX]);
  // W_d^T [I, G*H] and R_d [G, H, H] with each gate's block transposed, by Transpose launches:
  // once for constants (kept in the state), else per run.
  std::vector<float> w_scratch, r_scratch;
  auto weights = [&](int k, std::vector<std::vector<float>>& kept, std::vector<float>& scratch,
                     const TileProgram& prog, int64_t d) -> float* {
    const bool keep = constant(k);
    if (keep && kept.size() == static_cast<size_t>(D) && !kept[d].empty()) return kept[d].data();
    const F32 src = as_f32(in[k]);
    const int64_t n = in[k].numel() / D;
    if (keep) kept.resize(static_cast<size_t>(D));
    std::vector<float>& dst = keep ? kept[static_cast<size_t>(d)] : scratch;
    dst.resize(static_cast<size_t>(n));
    void* a[] = {const_cast<float*>(src.data + d * n), dst.data()};
    ctx.launch_program(prog, a);
    return dst.data();
  };
  const F32 bias = as_f32(has(kRnnB) ? in[kRnnB] : Tensor());
  const F32 h0 = as_f32(has(kRnnH0) ? in[kRnnH0] : Tensor());
  const bool lstm = kind == RnnKind::kLstm;
  const F32 c0 = as_f32(lstm && has(kRnnC0) ? in[kRnnC0] : Tensor());
  const F32 peep = as_f32(lstm && has(kRnnP) ? in[kRnnP] : Tensor());
  // The state's row (d, b) of a [D, B, H] / [B, D, H] tensor.
  auto state_row = [&](int64_t d, int64_t b) {
    return (c.batch_first ? b * D + d : d * B + b) * H;
  };
  std::vector<float>& mask = st->mask;
  if (lens) {
    mask.assign(static_cast<size_t>(S * B), 0.f);
    for (int64_t s = 0; s < S; ++s)
      for (int64_t b = 0; b < B; ++b) mask[s * B + b] = s < steps[b] ? 1.f : 0.f;
  }
  const bool split = kind == RnnKind::kGru && !c.linear_before_reset;
  // (Every element of xw, hs, cs and rh a step reads is written before.)
  std::vector<float>&xs = st->xs, &xw = st->xw, &pbias = st->pbias, &hs = st->hs, &cs = st->cs,
  &rh = st->rh, &rbh = st->rbh;
  xw.resize(static_cast<size_t>(S * B * GH));
  pbias.resize(static_cast<size_t>(GH));
  hs.resize(static_cast<size_t>((S + 1) * B * H));
  if (lstm) cs.resize(static_cast<size_t>(2 * B * H));
  if (split) rh.resize(static_cast<size_t>(B * H));
  rbh.clear();
  for (int64_t d = 0; d < D; ++d) {
    const bool rev = c.reverse || d == 1;
    // 1. The input rows in visiting order.
    const float* xd = x.data;
    if (rev || c.batch_first) {
      xs.assign(static_cast<size_t>(S * B * I), 0.f);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t s = 0; s < steps[b]; ++s) {
          const int64_t t = rev ? steps[b] - 1 - s : s;
          const int64_t row = c.batch_first ? b * S + t : t * B + b;
          std::memcpy(&xs[(s * B + b) * I], x.data + row * I, static_cast<size_t>(I) * 4);
        }
      xd = xs.data();
    }
    // 2. The projection of every step.
    const float* wbd = bias.data ? bias.data + d * 2 * GH : nullptr;
    if (wbd) {
      for (int64_t j = 0; j < GH; ++j)
        pbias[j] = wbd[j] + (rbh_apart(c) && j >= 2 * H ? 0.f : wbd[GH + j]);
      if (rbh_apart(c)) rbh.assign(wbd + GH + 2 * H, wbd + 2 * GH);
    }
    std::vector<void*> pargs{const_cast<float*>(xd),
                             weights(kRnnW, st->wt, w_scratch, *p->transpose_w, d)};
    if (wbd) pargs.push_back(pbias.data());
    pargs.push_back(xw.data());
    if (S * B > 0) ctx.launch_program(*p->proj, pargs);
    // 3, 4. The steps.
    for (int64_t b = 0; b < B; ++b) {
      const int64_t at = state_row(d, b);
      for (int64_t j = 0; j < H; ++j) {
        hs[b * H + j] = h0.data ? h0.data[at + j] : 0.f;
        if (lstm) cs[b * H + j] = c0.data ? c0.data[at + j] : 0.f;
      }
    }
    float* rd = weights(kRnnR, st->rt, r_scratch, *p->transpose_r, d);
    // Every step's launches at once (the device runs them in order in one parallel region): each
    // launch's arguments in `args`, 10 slots a launch.
    const size_t per_step = split ? 2 : 1;
    std::vector<void*>& args = st->args;
    args.assign(static_cast<size_t>(max_steps) * per_step * 10, nullptr);
    std::vector<ProgramLaunch>& seq = st->seq;
    seq.clear();
    for (int64_t s = 0; s < max_steps; ++s) {
      float* hin = hs.data() + s * B * H;
      float* xws = xw.data() + s * B * GH;
      float* ms = lens ? mask.data() + s * B : nullptr;
      void** a = args.data() + static_cast<size_t>(s) * per_step * 10;
      if (split) {
        a[0] = xws, a[1] = hin, a[2] = rd, a[8] = rh.data();
        seq.push_back({p->reset[static_cast<size_t>(d)].get(), std::span<void* const>(a, 9)});
        a += 10;
      }
      float* cin = lstm ? cs.data() + (s % 2) * B * H : nullptr;
      float* cout = lstm ? cs.data() + ((s + 1) % 2) * B * H : nullptr;
      float* pd = peep.data ? const_cast<float*>(peep.data + d * 3 * H) : nullptr;
      void* const step_args[] = {xws,         hin,
                                 rd,          cin,
                                 pd,          rbh.empty() ? nullptr : rbh.data(),
                                 ms,          split ? rh.data() : nullptr,
                                 hin + B * H, cout};
      std::copy(std::begin(step_args), std::end(step_args), a);
      seq.push_back(
          {p->step[static_cast<size_t>(d)].get(), std::span<void* const>(a, lstm ? 10 : 9)});
    }
    ctx.launch_all(seq);
    // 5. The outputs.
    if (!out.empty()) {
      const std::vector<float> zeros(static_cast<size_t>(H), 0.f);
      for (int64_t t = 0; t < S; ++t)
        for (int64_t b = 0; b < B; ++b) {
          const int64_t s = rev ? steps[b] - 1 - t : t;
          const float* v = t < steps[b] ? hs.data() + (s + 1) * B * H + b * H : zeros.data();
          const int64_t at = c.batch_first ? ((b * S + t) * D + d) * H : ((t * D + d) * B + b) * H;
          put(out[0], at, v, H);
        }
    }
    for (int64_t b = 0; b < B; ++b) {
      if (out.size() > 1) put(out[1], state_row(d, b), hs.data() + max_steps * B * H + b * H, H);
      if (out.size() > 2 && lstm)
        put(out[2], state_row(d, b), cs.data() + (max_steps % 2) * B * H + b * H, H);
    }
  }
}

}  // namespace asc

// Resize / Upsample as a sequence of tile programs (docs/RUNTIME.md, "Ops as a sequence of tile
// programs"): every mode is a tensor product of 1-D interpolations (resize.cpp), so each resized
// dim d is one matrix product with a constant interpolation matrix R made on the host from the
// shapes, the attributes and the scales / sizes / roi values:
//   X viewed [O, Nin, I] (O: the dims before d, I: the dims after) -> Y [O, Nout, I]
//   last dim (I = 1):  Y[O, Nout]    = X[O, Nin] x R[Nin, Nout]   (R[k, j]: weight of k in j)
//   inner dim:         Y[o][Nout, I] = R[Nout, Nin] x X[o][Nin, I]
//   + E[j] (extrapolation_value where a tf_crop_and_resize coordinate j falls outside the input;
//     R's row / column j is zero there)
// R holds every mode: nearest (one 1), linear, cubic, antialias, exclude_outside, any coordinate
// transformation; repeated clamped taps add up. One ResizeAxis launch (ai.asc) per resized dim,
// the dims that shrink most first; intermediates are f32 workspaces.
//
// ResizeAxis is banded: output tile n of T coordinates along the resized dim reads only the
// input rows [n * S + B0, + K) (S, B0, K from the taps' first and last input row per output,
// made so that every tile's rows fall inside its window; rows past the input read as zero), so
// a box start stays affine in the tile coordinate and the work stays near the taps' count: a 2x
// upsample with T = 64 reads K ~ 34 rows per output tile. When no band is narrower than the
// input (or K would not fit), the product loops over K in TK steps like a MatMul.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include "ops/nn.h"
#include "ops/ops.h"
#include "ops/resize.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t round_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}

// ResizeAxis's view: X [O, Nin, I] -> Y [O, Nout, I]; lo[j] / hi[j] the first and last input row
// output j reads (-1: none).
struct AxisView {
  int64_t o = 1, n_in = 1, n_out = 1, i = 1;
  bool last() const { return i == 1; }
};

AxisView axis_view(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs.at(0).shape;
  const Shape& y = ctx.outputs.at(0).shape;
  if (x.size() != 3 || y.size() != 3)
    throw ShapeError(cat("ResizeAxis: X and Y must be 3-D [O, N, I]; got ", ctx.str()));
  return {x[0], x[1], y[1], x[2]};
}

bool has_extrapolation(const LaunchContext& ctx) {
  return ctx.inputs.size() > 2 && ctx.inputs[2].dtype != DType::kUndefined;
}

// The window of input rows output tile n (of t outputs) reads: [n * s + b0, + k), s and b0 >= 0.
struct Band {
  int64_t s = 0, b0 = 0, k = 1;
};

Band band_of(const std::vector<int64_t>& lo, const std::vector<int64_t>& hi, int64_t n_in,
             int64_t t) {
  const int64_t n_out = static_cast<int64_t>(lo.size()), tiles = ceil_div(n_out, t);
  std::vector<int64_t> tlo(static_cast<size_t>(tiles), INT64_MAX),
      thi(static_cast<size_t>(tiles), -1);
  for (int64_t j = 0; j < n_out; ++j) {
    if (lo[j] < 0) continue;
    tlo[j / t] = std::min(tlo[j / t], lo[j]);
    thi[j / t] = std::max(thi[j / t], hi[j]);
  }
  Band b;
  b.s = tiles > 1 ? t * n_in / std::max<int64_t>(n_out, 1) : 0;
  for (int64_t n = 1; n < tiles; ++n)
    if (thi[n] >= 0) b.s = std::min(b.s, tlo[n] / n);  // every window starts inside X
  int64_t b0 = INT64_MAX, end = 1;
  for (int64_t n = 0; n < tiles; ++n)
    if (thi[n] >= 0) {
      b0 = std::min(b0, tlo[n] - n * b.s);
      end = std::max(end, thi[n] - n * b.s + 1);
    }
  b.b0 = b0 == INT64_MAX ? 0 : b0;
  b.k = std::max<int64_t>(1, end - b.b0);
  return b;
}

// Candidates in order of an estimated time per core (MAC units, as matmul_tiling): padded MACs
// per wave plus packing both operands per step and a fixed cost per step. T (the resized dim's
// tile) and TR (the other operand's: rows of X for the last dim, columns for an inner one).
TilingData axis_tiling(const LaunchContext& ctx) {
  const AxisView v = axis_view(ctx);
  const DeviceSpec& spec = *ctx.spec;
  const int64_t am = spec.mmad_m_align, an = spec.mmad_n_align, ak = spec.mmad_k_align;
  const int64_t es = static_cast<int64_t>(dtype_size(ctx.inputs[0].dtype));
  const std::vector<int64_t>& lo = ctx.attr().ints("lo");
  const std::vector<int64_t>& hi = ctx.attr().ints("hi");
  if (static_cast<int64_t>(lo.size()) != v.n_out || hi.size() != lo.size())
    throw ShapeError(cat("ResizeAxis: lo / hi need ", v.n_out, " values; ", ctx.str()));
  const int64_t cores = cores_for(ctx), slots = ctx.optimize ? 2 : 1;
  const int64_t rows = v.last() ? v.o : v.i;
  const int64_t r_align = v.last() ? am : an, t_align = v.last() ? an : am;
  const double step_fixed = spec.matmul.step_fixed;
  struct Scored {
    double cost;
    TilingData t;
  };
  std::vector<Scored> cands;
  for (int64_t tr0 : {512, 256, 128, 64, 32, 16})
    for (int64_t tt0 : {128, 64, 32, 16}) {
      const int64_t tr =
          std::min(round_up(tr0, r_align), round_up(std::max<int64_t>(rows, 1), r_align));
      const int64_t tt =
          std::min(round_up(tt0, t_align), round_up(std::max<int64_t>(v.n_out, 1), t_align));
      const Band b = band_of(lo, hi, v.n_in, tt);
      const int64_t kp = round_up(std::max<int64_t>(v.n_in, 1), ak);
      const bool band = round_up(b.k, ak) < kp;
      for (int64_t tk0 : {512, 256, 128}) {
        const int64_t tk = band ? round_up(b.k, ak) : std::min(kp, round_up(tk0, ak));
        const int64_t tm = v.last() ? tr : tt, tn = v.last() ? tt : tr;
        if (tm * tk * es > spec.l0a_bytes || tk * tn * es > spec.l0b_bytes ||
            tm * tn * 4 > spec.l0c_bytes || slots * (tm + tn) * tk * es > spec.l1_bytes)
          continue;
        const int64_t gr = ceil_div(std::max<int64_t>(rows, 1), tr),
                      gt = ceil_div(std::max<int64_t>(v.n_out, 1), tt);
        TilingData td;
        td.grid = v.last() ? Shape{gr, gt} : Shape{v.o, gt, gr};
        const int64_t steps = band ? 1 : ceil_div(kp, tk);
        td.params = {{"TM", tm}, {"TN", tn},  {"TK", tk}, {"BAND", band ? 1 : 0},
                     {"S", b.s}, {"B0", b.b0}};
        td.block_dim = std::clamp<int64_t>(numel(td.grid), 1, cores);
        const double waves = static_cast<double>(ceil_div(numel(td.grid), cores));
        const double k = static_cast<double>(band ? tk : kp);
        const double per_tile = static_cast<double>(tm * tn) * k + 24.0 * double(tm) * k +
                                4.0 * k * double(tn) + step_fixed * double(steps);
        cands.push_back({waves * per_tile, td});
        if (band) break;
      }
    }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
  std::vector<TilingData> list;
  for (const Scored& s : cands) list.push_back(s.t);
  if (list.empty()) {  // the smallest tiles, K looped; auto_tiling reports what does not fit
    TilingData td;
    const int64_t tm = v.last() ? am : t_align, tn = v.last() ? an : r_align;
    td.grid = v.last() ? Shape{ceil_div(std::max<int64_t>(rows, 1), tm),
                               ceil_div(std::max<int64_t>(v.n_out, 1), tn)}
                       : Shape{v.o, ceil_div(std::max<int64_t>(v.n_out, 1), tm),
                               ceil_div(std::max<int64_t>(rows, 1), tn)};
    td.params = {{"TM", tm}, {"TN", tn}, {"TK", ak}, {"BAND", 0}, {"S", 0}, {"B0", 0}};
    td.block_dim = std::clamp<int64_t>(numel(td.grid), 1, cores);
    list.push_back(td);
  }
  return auto_tiling(ctx, list);
}

// One output tile: c (L0C f32 [TM, TN]) = A x B over the tile's K window (banded: one step at
// n * S + B0 for the tile's resized coordinate n, grid axis 1; else K steps of TK), + E.
void axis_kernel(TileBuilder& t) {
  const AxisView v = axis_view(t.ctx());
  const int64_t tm = t.param("TM"), tn = t.param("TN"), tk = t.param("TK");
  const bool band = t.param("BAND") != 0;
  const int64_t s = t.param("S"), b0 = t.param("B0");
  Buf c = t.alloc(Pos::kL0C, DType::kF32, {tm, tn}, "c");
  const int64_t steps = band ? 1 : std::max<int64_t>(1, ceil_div(v.n_in, tk));
  t.loop(steps, [&](Coord kv) {
    const Coord k0 = band ? Coord{1, s, b0} : Coord{kv.var, tk, 0};
    Buf a1, b1;
    if (v.last()) {  // X [O, Nin] rows x R [Nin, Nout]
      a1 = t.copy_in(0,
                     GmBox{0, {BoxDim{v.o, v.n_in, t.grid(0, tm), tm}, BoxDim{v.n_in, 1, k0, tk}}},
                     Pos::kL1, "x1");
      b1 = t.copy_in(
          1, GmBox{0, {BoxDim{v.n_in, v.n_out, k0, tk}, BoxDim{v.n_out, 1, t.grid(1, tn), tn}}},
          Pos::kL1, "r1");
    } else {  // R [Nout, Nin] x X[o] [Nin, I]
      a1 = t.copy_in(
          1, GmBox{0, {BoxDim{v.n_out, v.n_in, t.grid(1, tm), tm}, BoxDim{v.n_in, 1, k0, tk}}},
          Pos::kL1, "r1");
      b1 = t.copy_in(0,
                     GmBox{0,
                           {BoxDim{v.o, v.n_in * v.i, t.grid(0), 1}, BoxDim{v.n_in, v.i, k0, tk},
                            BoxDim{v.i, 1, t.grid(2, tn), tn}}},
                     Pos::kL1, "x1");
    }
    t.mmad(c, t.load_l0(a1, Pos::kL0A), t.load_l0(b1, Pos::kL0B), kv);
  });
  Buf y = c;
  if (has_extrapolation(t.ctx())) {  // E along the resized dim, broadcast along the other
    const GmBox e =
        v.last()
            ? GmBox{0, {BoxDim{v.o, 0, t.grid(0, tm), tm}, BoxDim{v.n_out, 1, t.grid(1, tn), tn}}}
            : GmBox{0, {BoxDim{v.n_out, 1, t.grid(1, tm), tm}, BoxDim{v.i, 0, t.grid(2, tn), tn}}};
    y = y + t.cast(t.copy_in(2, e, Pos::kUB, "e"), DType::kF32);
  }
  const GmBox out =
      v.last()
          ? GmBox{0,
                  {BoxDim{v.o, v.n_out, t.grid(0, tm), tm}, BoxDim{v.n_out, 1, t.grid(1, tn), tn}}}
          : GmBox{0,
                  {BoxDim{v.o, v.n_out * v.i, t.grid(0), 1},
                   BoxDim{v.n_out, v.i, t.grid(1, tm), tm}, BoxDim{v.i, 1, t.grid(2, tn), tn}}};
  t.copy_out(0, y, out);
}

std::vector<TensorType> infer_axis(const InferContext& ctx) {
  const TensorType& x = ctx.inputs[0];
  const DType yt = ctx.attrs.i("y_f32") ? DType::kF32 : x.dtype;
  if (!x.shape || x.shape->size() != 3) return {TensorType{yt, std::nullopt}};
  SymShape y = *x.shape;
  y[1] = Dim(static_cast<int64_t>(ctx.attrs.ints("lo").size()));
  return {TensorType{yt, y}};
}

// Naive reference in double: Y[o, j, i] = sum_k w(j, k) X[o, k, i] + E[j].
void axis_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape& x = in[0].shape();
  Tensor& y = out[0];
  const int64_t o = x[0], n_in = x[1], i_n = x[2], n_out = y.shape()[1];
  const bool last = i_n == 1;
  const bool has_e = in.size() > 2 && in[2].defined();
  for (int64_t a = 0; a < o; ++a)
    for (int64_t j = 0; j < n_out; ++j)
      for (int64_t i = 0; i < i_n; ++i) {
        double acc = has_e ? in[2].at(j) : 0.0;
        for (int64_t k = 0; k < n_in; ++k)
          acc += in[1].at(last ? k * n_out + j : j * n_in + k) * in[0].at((a * n_in + k) * i_n + i);
        y.set((a * n_out + j) * i_n + i, acc);
      }
}

// ---- The Resize launches -----------------------------------------------------------------------

using ProgramPtr = std::shared_ptr<const TileProgram>;

struct AxisPass {
  ProgramPtr program;
  Tensor r, e;  // R in the pass's input dtype; E (f32) or undefined
  int64_t out_elems = 0;
};

// What a launch context keeps across runs (LaunchContext::state): the passes, the f32
// workspaces of the intermediates, and the roi / scales / sizes values the passes were made for
// (a plan is per signature, which holds them; a run with other values makes the plan afresh).
struct ResizePlan {
  std::vector<AxisPass> passes;
  std::vector<float> ws[2];
  std::vector<double> values;
};

std::vector<double> value_key(std::span<const Tensor> in) {
  std::vector<double> key;
  for (size_t k = 1; k < in.size(); ++k) {
    key.push_back(in[k].defined() ? double(in[k].numel()) : -1.0);
    for (int64_t i = 0; in[k].defined() && i < in[k].numel(); ++i) key.push_back(in[k].at(i));
  }
  return key;
}

ProgramPtr plan_axis(const Attrs& given, std::vector<TensorDesc> in, TensorDesc out,
                     const LaunchContext& parent) {
  const OpDef& op = global_registry().lookup("ai.asc", "ResizeAxis", 1);
  const Attrs attrs = op.resolve(given);
  LaunchContext ctx;
  ctx.op = &op;
  ctx.inputs = std::move(in);
  ctx.outputs = {std::move(out)};
  ctx.attrs = &attrs;
  ctx.spec = parent.spec;
  ctx.optimize = parent.optimize;
  return std::make_shared<const TileProgram>(trace_program(ctx, op.tiling_fn(ctx)));
}

std::shared_ptr<ResizePlan> make_plan(const ResizeVersion& v, const LaunchContext& ctx,
                                      const std::function<const Tensor*(size_t)>& value) {
  const TensorDesc& xd = ctx.inputs.at(0);
  const ResizeSpec s = resize_spec(v, ctx.attr(), xd.shape, value);
  const size_t r = s.in.size();
  std::vector<size_t> dims;
  for (size_t d = 0; d < r; ++d)
    if (resize_axis_active(s, d)) dims.push_back(d);
  // The dims that shrink most first: the later passes then run over fewer elements.
  std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) {
    return double(s.out[a]) * double(s.in[b]) < double(s.out[b]) * double(s.in[a]);
  });
  auto plan = std::make_shared<ResizePlan>();
  Shape cur = s.in;
  DType cur_dt = xd.dtype;
  for (size_t p = 0; p < dims.size(); ++p) {
    const size_t d = dims[p];
    int64_t o = 1, inner = 1;
    for (size_t e = 0; e < d; ++e) o *= cur[e];
    for (size_t e = d + 1; e < r; ++e) inner *= cur[e];
    const int64_t n_in = cur[d], n_out = s.out[d];
    const bool last = inner == 1;
    AxisPass pass;
    std::vector<double> w(static_cast<size_t>(n_in * n_out), 0.0);
    std::vector<int64_t> lo(static_cast<size_t>(n_out), -1), hi(static_cast<size_t>(n_out), -1);
    std::vector<double> e(static_cast<size_t>(n_out), 0.0);
    bool any_e = false;
    for (int64_t j = 0; j < n_out; ++j) {
      const Taps t = resize_taps(s, d, j);
      if (t.outside) {
        e[j] = s.extrapolation;
        any_e = any_e || s.extrapolation != 0.0;
        continue;
      }
      for (int k = 0; k < t.n(); ++k) {
        const int64_t idx = t.idx[static_cast<size_t>(k)];
        const double wk = t.w[static_cast<size_t>(k)];
        if (wk == 0.0) continue;
        w[static_cast<size_t>(last ? idx * n_out + j : j * n_in + idx)] += wk;
        lo[j] = lo[j] < 0 ? idx : std::min(lo[j], idx);
        hi[j] = std::max(hi[j], idx);
      }
    }
    pass.r = Tensor(cur_dt, last ? Shape{n_in, n_out} : Shape{n_out, n_in});
    for (size_t q = 0; q < w.size(); ++q) pass.r.set(static_cast<int64_t>(q), w[q]);
    if (any_e) {
      pass.e = Tensor(DType::kF32, {n_out});
      for (int64_t j = 0; j < n_out; ++j) pass.e.set(j, e[static_cast<size_t>(j)]);
    }
    const bool final_pass = p + 1 == dims.size();
    const DType y_dt = final_pass ? ctx.outputs.at(0).dtype : DType::kF32;
    Attrs a;
    a.set("lo", lo);
    a.set("hi", hi);
    a.set("y_f32", int64_t{y_dt == DType::kF32 && cur_dt != DType::kF32});
    std::vector<TensorDesc> ins{{cur_dt, {o, n_in, inner}},
                                {cur_dt, pass.r.shape()},
                                any_e ? TensorDesc{DType::kF32, {n_out}} : TensorDesc{}};
    pass.program = plan_axis(a, std::move(ins), {y_dt, {o, n_out, inner}}, ctx);
    pass.out_elems = o * n_out * inner;
    plan->passes.push_back(std::move(pass));
    cur[d] = n_out;
    cur_dt = y_dt;
  }
  return plan;
}

std::function<const Tensor*(size_t)> context_values(const LaunchContext& ctx) {
  return [&ctx](size_t k) -> const Tensor* {
    if (k >= ctx.inputs.size() || ctx.inputs[k].dtype == DType::kUndefined) return nullptr;
    return k < ctx.values.size() ? ctx.values[k] : nullptr;
  };
}

bool tile_dtype(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

}  // namespace

// The interpolation matrices are dense [Nin, Nout]: past 2^26 elements (256 MiB in f32) for one
// dim the host kernel's taps take less memory.
bool resize_tile_covers(const LaunchContext& ctx, std::span<const Tensor> in) {
  if (!ctx.launch_program || in.empty() || !tile_dtype(in[0].dtype()) || in[0].numel() == 0)
    return false;
  const Shape& x = in[0].shape();
  const Shape& y = ctx.outputs.at(0).shape;
  for (size_t d = 0; d < x.size() && d < y.size(); ++d)
    if (x[d] * y[d] > (int64_t{1} << 26)) return false;
  return true;
}

void resize_tile_run(const ResizeVersion& v, const LaunchContext& ctx, std::span<const Tensor> in,
                     std::span<Tensor> out) {
  if (out[0].numel() == 0) return;
  auto plan = std::static_pointer_cast<ResizePlan>(ctx.state);
  std::vector<double> key = value_key(in);
  if (!plan || plan->values != key) {
    plan = make_plan(v, ctx, [in](size_t k) -> const Tensor* {
      return k < in.size() && in[k].defined() ? &in[k] : nullptr;
    });
    plan->values = std::move(key);
    ctx.state = plan;
  }
  if (plan->passes.empty()) {  // no dim resized: Y is X
    std::memcpy(out[0].data(), in[0].data(), out[0].nbytes());
    return;
  }
  const void* src = in[0].data();
  for (size_t p = 0; p < plan->passes.size(); ++p) {
    AxisPass& pass = plan->passes[p];
    void* dst = out[0].data();
    if (p + 1 < plan->passes.size()) {
      std::vector<float>& ws = plan->ws[p % 2];
      ws.resize(static_cast<size_t>(pass.out_elems));
      dst = ws.data();
    }
    void* args[] = {const_cast<void*>(src), pass.r.data(),
                    pass.e.defined() ? pass.e.data() : nullptr, dst};
    ctx.launch_program(*pass.program, args);
    src = dst;
  }
}

std::vector<ProgramLaunches> resize_launches(const ResizeVersion& v, const LaunchContext& ctx) {
  if (ctx.inputs.empty() || !tile_dtype(ctx.inputs[0].dtype) || numel(ctx.inputs[0].shape) == 0)
    return {};
  std::vector<ProgramLaunches> l;
  std::shared_ptr<ResizePlan> plan;
  try {
    plan = make_plan(v, ctx, context_values(ctx));
  } catch (const ShapeError&) {  // scales / sizes / roi not known: nothing to list
    return l;
  }
  for (const AxisPass& p : plan->passes) l.push_back({p.program, 1});
  return l;
}

void register_resize_axis(Registry& r) {
  r.add(def_op("ResizeAxis", 1, INT_MAX, "ai.asc")
            .input("X", "T")
            .input("R", "T")
            .input("E", "f32", Arity::kOptional)
            .output("Y", "T2")
            .attr("lo", AttrKind::kInts)
            .attr("hi", AttrKind::kInts)
            .attr("y_f32", AttrKind::kInt, int64_t{0})
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .type_constraint("T2", {DType::kF32, DType::kF16, DType::kBF16})
            .trait(kContraction)
            .describe("one resized dim of Resize / Upsample: X [O, Nin, I] times the interpolation "
                      "matrix R (+ E), banded on the cube (Resize's per-dim launch)")
            .infer(infer_axis)
            .tiling(axis_tiling)
            .kernel(axis_kernel)
            .reference(axis_reference));
}

}  // namespace asc

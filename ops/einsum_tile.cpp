// Einsum as a sequence of tile programs (docs/RUNTIME.md, "Ops as a sequence of tile programs"):
// EinsumPrep and EinsumMatMul launches (einsum_ops.cpp) over strided views of the inputs, the
// output and f32 / f16 / bf16 workspaces (the inputs' dtype).
//
// A view gives each label of more than one element its element stride in a GM buffer (a
// diagonal's stride is the sum of its dims'; a broadcast dim's is 0). The inputs contract a
// pair at a time, the pair with the fewest multiply-adds first (a matrix chain times a vector
// starts at the vector); a contraction of views A and B, keeping the labels the output or
// another input names, classifies the labels:
//   batch: in A and B, kept      K: in A and B, summed      M: A only, kept   N: B only, kept
//   RA / RB: A (B) only, summed: a prep sums them first (into a workspace laid out [batch, M, K]
//            / [batch, K, N]); a prep also makes a K that is not one strided dim in A or B
//            (labels that do not chain: stride(l) = stride(next) * size(next)) into one.
// Labels of a kind that chain in every view merge into one dim; M is the innermost chain of M
// labels, the other chains become batch dims B does not vary over (N likewise), so M, N and K
// are one strided dim each and the product is one EinsumMatMul reading A and B in place (a
// permuted operand is a transposed read). Y is the output when the output's unit-stride label
// is an N label (A and B swap when it is an M label, computing Y^T's layout); otherwise, and
// between contractions, Y is a workspace [batch.., M, N] and, for the last one, a prep permutes
// it into the output. One input: one prep (diagonal, sums, permute) straight into the output.
// A prep that only permutes a dense layout into another is a Transpose launch (transpose.cpp:
// square blocks, whole rows read and written) rather than an EinsumPrep.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "ops/einsum.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

using ProgramPtr = std::shared_ptr<const TileProgram>;
using Labels = std::vector<int>;

constexpr int kOut = -1;           // GM buffers: input k >= 0, the output, workspace w at -2 - w
constexpr size_t kMaxBoxDims = 8;  // dims of a GM box the devices take

struct View {
  int buf = kOut;
  std::map<int, int64_t> st;  // label -> element stride, labels of more than one element

  bool has(int l) const { return st.count(l) != 0; }
  int64_t at(int l) const {
    const auto it = st.find(l);
    return it == st.end() ? 0 : it->second;
  }
};

struct Launch {
  ProgramPtr program;
  std::vector<int> bufs;  // its GM arguments: inputs, then the output
};

// What a launch context keeps across runs (LaunchContext::state): the launches planned for
// these input shapes and the workspaces.
struct EinsumPlan {
  bool fits = true;  // false: a view needs more box dims than a device takes (the host runs it)
  std::vector<Shape> shapes;
  std::vector<Launch> launches;
  std::vector<int64_t> ws_elems;
  std::vector<std::vector<std::byte>> ws;
};

bool tile_dtype(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

bool contains(const Labels& ls, int l) {
  return std::find(ls.begin(), ls.end(), l) != ls.end();
}

class Planner {
 public:
  explicit Planner(const LaunchContext& ctx) : ctx_(ctx), dt_(ctx.inputs.at(0).dtype) {
    std::vector<Shape> shapes;
    for (const TensorDesc& d : ctx.inputs) shapes.push_back(d.shape);
    const std::string& raw = ctx.attr().s("equation");
    std::vector<size_t> ranks;
    for (const Shape& s : shapes) ranks.push_back(s.size());
    eq_ = einsum_parse(raw, ranks);
    size_ = einsum_label_sizes(eq_, shapes, raw);
    const auto st = einsum_label_strides(eq_, shapes, size_);
    for (size_t k = 0; k < shapes.size(); ++k) {
      View v;
      v.buf = static_cast<int>(k);
      for (int l : eq_.terms[k])
        if (size_[l] > 1) v.st[l] = st[k][l];
      in_.push_back(std::move(v));
    }
    Labels out;
    for (int l : eq_.out)
      if (size_[l] > 1) out.push_back(l);
    out_ = layout(kOut, out);
  }

  EinsumPlan plan() && {
    std::vector<View> ops = in_;
    if (ops.size() == 1) prep(ops[0], out_);
    while (ops.size() > 1) {
      // The pair whose product has the fewest multiply-adds (the first such pair on ties).
      size_t x = 0, y = 1;
      double best = -1;
      for (size_t i = 0; i < ops.size(); ++i)
        for (size_t j = i + 1; j < ops.size(); ++j) {
          std::set<int> ls;
          for (const auto& [l, s] : ops[i].st) ls.insert(l);
          for (const auto& [l, s] : ops[j].st) ls.insert(l);
          double macs = 1;
          for (int l : ls) macs *= static_cast<double>(size_[l]);
          if (best < 0 || macs < best) best = macs, x = i, y = j;
        }
      std::set<int> keep;
      for (const auto& [l, s] : out_.st) keep.insert(l);
      for (size_t k = 0; k < ops.size(); ++k)
        if (k != x && k != y)
          for (const auto& [l, s] : ops[k].st) keep.insert(l);
      ops[x] = contract(ops[x], ops[y], keep, ops.size() == 2 ? &out_ : nullptr);
      ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(y));
    }
    return std::move(plan_);
  }

 private:
  int64_t size(const Labels& ls) const {
    int64_t n = 1;
    for (int l : ls) n *= size_[l];
    return n;
  }

  // Buffer `buf` dense over `order` (outermost first).
  View layout(int buf, const Labels& order) const {
    View v;
    v.buf = buf;
    int64_t s = 1;
    for (size_t i = order.size(); i-- > 0;) {
      v.st[order[i]] = s;
      s *= size_[order[i]];
    }
    return v;
  }

  View workspace(const Labels& order) {
    plan_.ws_elems.push_back(size(order));
    return layout(-1 - static_cast<int>(plan_.ws_elems.size()), order);
  }

  TensorDesc desc(int buf) const {
    if (buf >= 0) return ctx_.inputs[static_cast<size_t>(buf)];
    if (buf == kOut) return ctx_.outputs.at(0);
    return {dt_, {plan_.ws_elems[static_cast<size_t>(-2 - buf)]}};
  }

  // A launch of `op` over GM buffers `bufs` (inputs, then the output) seen as `io`.
  void emit(const OpDef& op, const Attrs& given, std::vector<int> bufs, std::vector<TensorDesc> io,
            size_t box_dims) {
    plan_.fits = plan_.fits && box_dims <= kMaxBoxDims;
    if (!plan_.fits) return;
    const Attrs attrs = op.resolve(given);
    LaunchContext c;
    c.op = &op;
    c.outputs = {io.back()};
    io.pop_back();
    c.inputs = std::move(io);
    c.attrs = &attrs;
    c.spec = ctx_.spec;
    c.optimize = ctx_.optimize;
    auto p = std::make_shared<const TileProgram>(trace_program(c, op.tiling_fn(c)));
    plan_.launches.push_back({std::move(p), std::move(bufs)});
  }
  void emit(const char* type, const Attrs& given, std::vector<int> bufs, size_t box_dims) {
    std::vector<TensorDesc> io;
    for (int b : bufs) io.push_back(desc(b));
    emit(global_registry().lookup("ai.asc", type, 1), given, std::move(bufs), std::move(io),
         box_dims);
  }

  // Whether v lays its labels `order` (by decreasing stride) out densely.
  bool dense(const Labels& order, const View& v) const {
    return !order.empty() && v.at(order.back()) == 1 && chains(order, v);
  }

  // ls by decreasing stride in v (then in w): the order in which they would chain.
  Labels by_stride(Labels ls, const View& v, const View* w = nullptr) const {
    std::stable_sort(ls.begin(), ls.end(), [&](int x, int y) {
      if (v.at(x) != v.at(y)) return v.at(x) > v.at(y);
      return w && w->at(x) > w->at(y);
    });
    return ls;
  }

  bool chain(int outer, int inner, const View& v) const {
    return v.at(outer) == v.at(inner) * size_[inner];
  }
  bool chains(const Labels& ls, const View& v) const {
    for (size_t i = 0; i + 1 < ls.size(); ++i)
      if (!chain(ls[i], ls[i + 1], v)) return false;
    return true;
  }

  // ls (in order) split into runs that chain in every view of vs.
  std::vector<Labels> runs(const Labels& ls, const std::vector<const View*>& vs) const {
    std::vector<Labels> g;
    for (int l : ls) {
      bool joined = !g.empty();
      for (const View* v : vs) joined = joined && chain(g.back().back(), l, *v);
      if (joined)
        g.back().push_back(l);
      else
        g.push_back({l});
    }
    return g;
  }

  // y = x summed over x's labels y does not have (a diagonal, a sum, a permute or a copy); a
  // Transpose when x and y both lay the same labels out densely (its blocks write whole rows).
  void prep(const View& x, const View& y) {
    Labels ls;
    for (const auto& [l, s] : x.st) ls.push_back(l);
    const Labels xo = by_stride(ls, x), yo = by_stride(ls, y);
    if (x.st.size() == y.st.size() && dense(xo, x) && dense(yo, y)) {
      Shape xs, ys;
      std::vector<int64_t> perm;
      for (int l : xo) xs.push_back(size_[l]);
      for (int l : yo) {
        ys.push_back(size_[l]);
        perm.push_back(std::find(xo.begin(), xo.end(), l) - xo.begin());
      }
      Attrs a;
      a.set("perm", perm);
      emit(global_registry().lookup("", "Transpose", 13), a, {x.buf, y.buf}, {{dt_, xs}, {dt_, ys}},
           xs.size());
      return;
    }
    ls = by_stride(ls, x, &y);  // the input's innermost dims last: contiguous reads
    std::vector<int64_t> dims, in, out, red;
    for (int l : ls) {
      const bool r = !y.has(l);
      const int64_t n = size_[l];
      if (!dims.empty() && red.back() == r && in.back() == x.at(l) * n &&
          (r || out.back() == y.at(l) * n)) {
        dims.back() *= n;
        in.back() = x.at(l);
        out.back() = r ? 0 : y.at(l);
        continue;
      }
      dims.push_back(n);
      in.push_back(x.at(l));
      out.push_back(r ? 0 : y.at(l));
      red.push_back(r);
    }
    Attrs a;
    a.set("dims", dims);
    a.set("in_strides", in);
    a.set("out_strides", out);
    a.set("reduced", red);
    a.set("y_shape", desc(y.buf).shape);
    emit("EinsumPrep", a, {x.buf, y.buf}, dims.size());
  }

  View contract(View a, View b, const std::set<int>& keep, const View* final_y);

  const LaunchContext& ctx_;
  DType dt_;
  EinsumEquation eq_;
  std::vector<int64_t> size_;
  std::vector<View> in_;
  View out_;
  EinsumPlan plan_;
};

View Planner::contract(View a, View b, const std::set<int>& keep, const View* final_y) {
  Labels batch, m, n, k, ra, rb;
  auto classify = [&] {
    batch.clear(), m.clear(), n.clear(), k.clear(), ra.clear(), rb.clear();
    for (const auto& [l, s] : a.st) {
      const bool kept = keep.count(l) != 0;
      (b.has(l) ? (kept ? batch : k) : (kept ? m : ra)).push_back(l);
    }
    for (const auto& [l, s] : b.st)
      if (!a.has(l)) (keep.count(l) ? n : rb).push_back(l);
  };
  classify();
  bool y_direct = final_y != nullptr;
  if (final_y) {  // the output's unit-stride label must be Y's column
    int o = -1;
    for (const auto& [l, s] : final_y->st)
      if (s == 1) o = l;
    if (o >= 0 && contains(m, o)) {
      std::swap(a, b);
      classify();
    }
    y_direct = o < 0 || !contains(batch, o);
  }
  // K: one strided dim in both operands, in an order one of them already has if it can.
  const Labels ka = by_stride(k, a, &b), kb = by_stride(k, b, &a);
  bool need_a = !ra.empty(), need_b = !rb.empty();
  Labels ko = ka;
  if (!need_a && !need_b && chains(ka, a) && chains(ka, b)) {
  } else if (!need_a && chains(ka, a)) {
    need_b = true;
  } else if (!need_b && chains(kb, b)) {
    ko = kb;
    need_a = true;
  } else {
    need_a = need_b = true;
  }
  const View& ref_a = y_direct ? *final_y : a;
  const View& ref_b = y_direct ? *final_y : b;
  const Labels bo = by_stride(batch, ref_a, y_direct ? nullptr : &b);
  const Labels mo = by_stride(m, ref_a), no = by_stride(n, ref_b);
  auto concat = [](std::initializer_list<const Labels*> parts) {
    Labels r;
    for (const Labels* p : parts) r.insert(r.end(), p->begin(), p->end());
    return r;
  };
  if (need_a) {
    const View w = workspace(concat({&bo, &mo, &ko}));
    prep(a, w);
    a = w;
  }
  if (need_b) {
    const View w = workspace(concat({&bo, &ko, &no}));
    prep(b, w);
    b = w;
  }
  // M and N: the innermost chain each; the other chains become batch dims.
  std::vector<const View*> mv{&a}, nv{&b}, bv{&a, &b};
  if (y_direct) mv.push_back(final_y), nv.push_back(final_y), bv.push_back(final_y);
  std::vector<Labels> dims = runs(bo, bv), mg = runs(mo, mv), ng = runs(no, nv);
  Labels mgrp, ngrp;
  if (!mg.empty()) mgrp = mg.back(), mg.pop_back();
  if (!ng.empty()) ngrp = ng.back(), ng.pop_back();
  dims.insert(dims.end(), mg.begin(), mg.end());
  dims.insert(dims.end(), ng.begin(), ng.end());
  if (y_direct)  // the grid row-major over Y
    std::stable_sort(dims.begin(), dims.end(), [&](const Labels& x, const Labels& y) {
      return final_y->at(x.back()) > final_y->at(y.back());
    });
  View y;
  if (y_direct) {
    y = *final_y;
  } else {
    Labels order;
    for (const Labels& d : dims) order.insert(order.end(), d.begin(), d.end());
    y = workspace(concat({&order, &mgrp, &ngrp}));
  }
  auto stride = [](const Labels& g, const View& v) { return g.empty() ? 0 : v.at(g.back()); };
  if (!ngrp.empty() && stride(ngrp, y) != 1)
    throw Error(cat("Einsum: internal: Y's columns are not contiguous; ", ctx_.str()));
  std::vector<int64_t> sizes, a_bs, b_bs, y_bs;
  for (const Labels& d : dims) {
    sizes.push_back(size(d));
    a_bs.push_back(stride(d, a));
    b_bs.push_back(stride(d, b));
    y_bs.push_back(stride(d, y));
  }
  Attrs at;
  at.set("batch", sizes);
  at.set("a_bs", a_bs);
  at.set("b_bs", b_bs);
  at.set("y_bs", y_bs);
  at.set("mnk", std::vector<int64_t>{size(mgrp), size(ngrp), size(ko)});
  at.set("strides", std::vector<int64_t>{stride(mgrp, a), stride(ko, a), stride(ko, b),
                                         stride(ngrp, b), stride(mgrp, y)});
  at.set("y_shape", desc(y.buf).shape);
  emit("EinsumMatMul", at, {a.buf, b.buf, y.buf}, dims.size() + 2);
  if (final_y && !y_direct) prep(y, *final_y);
  return y;
}

bool plannable(const LaunchContext& ctx) {
  if (ctx.inputs.empty() || ctx.outputs.empty() || numel(ctx.outputs[0].shape) == 0) return false;
  for (const TensorDesc& d : ctx.inputs)
    if (!tile_dtype(d.dtype) || numel(d.shape) == 0) return false;
  return true;
}

}  // namespace

bool einsum_tile_covers(const LaunchContext& ctx, std::span<const Tensor> in) {
  if (!ctx.launch_program || in.empty()) return false;
  for (const Tensor& t : in)
    if (!tile_dtype(t.dtype()) || t.numel() == 0) return false;
  return !ctx.outputs.empty() && numel(ctx.outputs[0].shape) > 0;
}

bool einsum_tile_run(const LaunchContext& ctx, std::span<const Tensor> in, Tensor& out) {
  auto plan = std::static_pointer_cast<EinsumPlan>(ctx.state);
  std::vector<Shape> shapes;
  for (const Tensor& t : in) shapes.push_back(t.shape());
  if (!plan || plan->shapes != shapes) {
    plan = std::make_shared<EinsumPlan>(Planner(ctx).plan());
    plan->shapes = std::move(shapes);
    ctx.state = plan;
  }
  if (!plan->fits) return false;
  const size_t es = dtype_size(out.dtype());
  plan->ws.resize(plan->ws_elems.size());
  for (size_t w = 0; w < plan->ws.size(); ++w)
    plan->ws[w].resize(static_cast<size_t>(plan->ws_elems[w]) * es);
  auto gm = [&](int buf) -> void* {
    if (buf >= 0) return const_cast<void*>(in[static_cast<size_t>(buf)].data());
    if (buf == kOut) return out.data();
    return plan->ws[static_cast<size_t>(-2 - buf)].data();
  };
  std::vector<void*> args;
  for (const Launch& l : plan->launches) {
    args.clear();
    for (int b : l.bufs) args.push_back(gm(b));
    ctx.launch_program(*l.program, args);
  }
  return true;
}

std::vector<ProgramLaunches> einsum_launches(const LaunchContext& ctx) {
  if (!plannable(ctx)) return {};
  std::vector<ProgramLaunches> l;
  const EinsumPlan plan = Planner(ctx).plan();
  for (const Launch& p : plan.launches)
    if (plan.fits) l.push_back({p.program, 1});
  return l;
}

}  // namespace asc

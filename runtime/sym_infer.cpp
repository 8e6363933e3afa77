#include "runtime/sym_infer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <string>

#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"

namespace asc {
namespace {

// ---- products of symbols ------------------------------------------------------------------------
// A dim as coef * s1 * s2 * ... (symbols sorted), spelled "12*batch*sequence" in a Dim's symbol.

struct Mono {
  int64_t coef = 0;
  std::vector<std::string> syms;
};

bool is_int_token(const std::string& t) {
  const size_t s = !t.empty() && t[0] == '-' ? 1 : 0;
  return t.size() > s && t.size() - s <= 15 &&
         std::all_of(t.begin() + static_cast<std::ptrdiff_t>(s), t.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::optional<Mono> mono(const Dim& d) {
  if (d.known()) return Mono{d.value(), {}};
  if (!d.symbolic()) return std::nullopt;
  const std::string& s = d.symbol();
  Mono m{1, {}};
  size_t at = 0;
  while (true) {
    const size_t star = s.find('*', at);
    const std::string t = s.substr(at, star == std::string::npos ? std::string::npos : star - at);
    if (t.empty()) return Mono{1, {s}};  // not a product this file spelled: one symbol
    if (is_int_token(t))
      m.coef *= std::stoll(t);
    else
      m.syms.push_back(t);
    if (star == std::string::npos) break;
    at = star + 1;
  }
  std::sort(m.syms.begin(), m.syms.end());
  return m;
}

// Negative integers (elements such as Reshape's -1) are spelled as symbols: Dim(-1) is unknown.
Dim to_dim(const Mono& m) {
  if (m.syms.empty() || m.coef == 0) return m.coef >= 0 ? Dim(m.coef) : Dim(std::to_string(m.coef));
  std::string s = m.coef == 1 ? "" : cat(m.coef, "*");
  for (size_t i = 0; i < m.syms.size(); ++i) s += (i ? "*" : "") + m.syms[i];
  return Dim(s);
}

}  // namespace

Dim dim_mul(const Dim& a, const Dim& b) {
  if (a == Dim(0) || b == Dim(0)) return Dim(0);
  const auto x = mono(a), y = mono(b);
  if (!x || !y) return Dim();
  Mono r;
  if (__builtin_mul_overflow(x->coef, y->coef, &r.coef)) return Dim();
  r.syms = x->syms;
  r.syms.insert(r.syms.end(), y->syms.begin(), y->syms.end());
  std::sort(r.syms.begin(), r.syms.end());
  return to_dim(r);
}

Dim dim_div(const Dim& a, const Dim& b) {
  const auto x = mono(a), y = mono(b);
  if (!x || !y || y->coef == 0 || x->coef % y->coef != 0) return Dim();
  Mono r{x->coef / y->coef, x->syms};
  for (const std::string& s : y->syms) {
    const auto it = std::find(r.syms.begin(), r.syms.end(), s);
    if (it == r.syms.end()) return Dim();
    r.syms.erase(it);
  }
  return to_dim(r);
}

Dim dim_add(const Dim& a, const Dim& b) {
  const auto x = mono(a), y = mono(b);
  if (!x || !y) return Dim();
  if (x->coef == 0) return b;
  if (y->coef == 0) return a;
  if (x->syms != y->syms) return Dim();
  Mono r{0, x->syms};
  if (__builtin_add_overflow(x->coef, y->coef, &r.coef)) return Dim();
  return to_dim(r);
}

Dim dim_sub(const Dim& a, const Dim& b) {
  auto y = mono(b);
  if (!y) return Dim();
  y->coef = -y->coef;
  return dim_add(a, to_dim(*y));
}

namespace {

Dim int_elem(int64_t v) {
  return to_dim(Mono{v, {}});
}
std::optional<int64_t> int_of(const Dim& d) {
  const auto m = mono(d);
  if (!m || !m->syms.empty()) return std::nullopt;
  return m->coef;
}

constexpr int64_t kMaxElems = 64;  // shape-like tensors only

bool int_dtype(DType d) {
  return d == DType::kI64 || d == DType::kI32;
}
bool elem_dtype(DType d) {
  return int_dtype(d) || d == DType::kBool || dtype_is_float(d);
}

// The elements of a small integer constant (rank <= 1).
std::optional<SymShape> const_elems(const Tensor& t) {
  if (!(int_dtype(t.dtype()) || t.dtype() == DType::kBool) || t.numel() > kMaxElems)
    return std::nullopt;
  SymShape s;
  for (int64_t v : to_int64s(t)) s.push_back(int_elem(v));
  return s;
}

std::optional<std::vector<int64_t>> known_ints(const std::optional<SymShape>& s) {
  if (!s) return std::nullopt;
  std::vector<int64_t> r;
  for (const Dim& d : *s) {
    const auto v = int_of(d);
    if (!v) return std::nullopt;
    r.push_back(*v);
  }
  return r;
}

// Numpy-style elementwise over two element lists of rank <= 1 (one may have one element).
template <class F>
std::optional<SymShape> zip(const std::optional<SymShape>& a, const std::optional<SymShape>& b,
                            F f) {
  if (!a || !b) return std::nullopt;
  const size_t n = std::max(a->size(), b->size());
  if ((a->size() != n && a->size() != 1) || (b->size() != n && b->size() != 1)) return std::nullopt;
  SymShape r;
  for (size_t i = 0; i < n; ++i)
    r.push_back(f((*a)[a->size() == 1 ? 0 : i], (*b)[b->size() == 1 ? 0 : i]));
  return r;
}

// zip over known integers only (an element that is not one gives an unknown element).
template <class F>
std::optional<SymShape> zip_known(const std::optional<SymShape>& a,
                                  const std::optional<SymShape>& b, F f) {
  return zip(a, b, [&f](const Dim& x, const Dim& y) {
    const auto p = int_of(x), q = int_of(y);
    const std::optional<int64_t> r = p && q ? f(*p, *q) : std::nullopt;
    return r ? int_elem(*r) : Dim();
  });
}

template <class F>
std::optional<SymShape> map_known(const std::optional<SymShape>& a, F f) {
  return zip_known(a, SymShape{int_elem(0)},
                   [&f](int64_t x, int64_t) { return std::optional(f(x)); });
}

// 1 when equal, 0 when not, unknown when it depends on the symbols' values. A product of symbols
// with a positive coefficient is >= 0, so never equal to a negative integer (torch's -1s).
Dim dim_equal(const Dim& a, const Dim& b) {
  const auto x = mono(a), y = mono(b);
  if (!x || !y) return Dim();
  if (x->syms == y->syms) return Dim(int64_t{x->coef == y->coef});
  const Mono& sym = x->syms.empty() ? *y : *x;
  const Mono& num = x->syms.empty() ? *x : *y;
  if (num.syms.empty() && sym.coef > 0 && num.coef < 0) return Dim(0);
  return Dim();
}

// Elements of a rank <= 1 value sliced like ONNX Slice along axis 0.
std::optional<SymShape> slice_elems(const SymShape& x, int64_t start, int64_t end, int64_t step) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (step == 0) return std::nullopt;
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += n;
    return std::clamp(v, lo, hi);
  };
  SymShape r;
  if (step > 0) {
    for (int64_t i = clamp(start, 0, n), e = clamp(end, 0, n); i < e; i += step) r.push_back(x[i]);
  } else {
    for (int64_t i = clamp(start, -1, n - 1), e = clamp(end, -1, n - 1); i > e; i += step)
      r.push_back(x[i]);
  }
  return r;
}

// What node n's output 0 holds as elements, from its inputs' elements and types.
std::optional<SymShape> node_elems(const Node& n, const Attrs& at, const SymInference& s) {
  auto in = [&](size_t k) -> std::optional<SymShape> {
    return k < n.inputs.size() && n.inputs[k] >= 0 ? s.elems[n.inputs[k]] : std::nullopt;
  };
  auto type = [&](size_t k) -> const TensorType& { return s.types[n.inputs[k]]; };
  const std::string& op = n.op_type;
  if (!n.domain.empty() || n.inputs.empty() || n.inputs[0] < 0) return std::nullopt;
  // The rules below read elements as a list: inputs of rank <= 1 (Shape and Size read a type).
  if (op != "Shape" && op != "Size")
    for (int v : n.inputs)
      if (v >= 0 && (!s.types[v].shape || s.types[v].shape->size() > 1)) return std::nullopt;
  if (op == "Shape") {
    const TensorType& t = type(0);
    if (!t.shape) return std::nullopt;
    const int64_t r = static_cast<int64_t>(t.shape->size());
    int64_t b = at.has("start") ? at.i("start") : 0, e = at.has("end") ? at.i("end") : r;
    if (b < 0) b += r;
    if (e < 0) e += r;
    b = std::clamp<int64_t>(b, 0, r), e = std::clamp<int64_t>(e, 0, r);
    return SymShape(t.shape->begin() + b, t.shape->begin() + std::max(b, e));
  }
  if (op == "Size") {
    const TensorType& t = type(0);
    if (!t.shape) return std::nullopt;
    Dim p(1);
    for (const Dim& d : *t.shape) p = dim_mul(p, d);
    return SymShape{p};
  }
  if (op == "Identity" || op == "Cast" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" ||
      op == "Flatten")
    return in(0);
  if (op == "Concat") {
    SymShape r;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const auto e = in(k);
      if (!e) return std::nullopt;
      r.insert(r.end(), e->begin(), e->end());
    }
    return r;
  }
  if (op == "Gather") {
    const auto x = in(0);
    const auto idx = known_ints(in(1));
    if (!x || !idx || (at.has("axis") && at.i("axis") != 0)) return std::nullopt;
    SymShape r;
    for (int64_t i : *idx) {
      if (i < 0) i += static_cast<int64_t>(x->size());
      if (i < 0 || i >= static_cast<int64_t>(x->size())) return std::nullopt;
      r.push_back((*x)[i]);
    }
    return r;
  }
  if (op == "Slice") {
    const auto x = in(0);
    if (!x) return std::nullopt;
    if (n.opset < 10) {
      const auto st = at.has("starts") ? at.ints("starts") : std::vector<int64_t>{};
      const auto en = at.has("ends") ? at.ints("ends") : std::vector<int64_t>{};
      const auto ax = at.has("axes") ? at.ints("axes") : std::vector<int64_t>{0};
      if (st.size() != 1 || en.size() != 1 || ax.size() != 1 || (ax[0] != 0 && ax[0] != -1))
        return std::nullopt;
      return slice_elems(*x, st[0], en[0], 1);
    }
    const auto st = known_ints(in(1)), en = known_ints(in(2));
    const auto ax = n.inputs.size() > 3 && n.inputs[3] >= 0
                        ? known_ints(in(3))
                        : std::optional<std::vector<int64_t>>{{0}};
    const auto sp = n.inputs.size() > 4 && n.inputs[4] >= 0
                        ? known_ints(in(4))
                        : std::optional<std::vector<int64_t>>{{1}};
    if (!st || !en || !ax || !sp || st->size() != 1 || en->size() != 1 || ax->size() != 1 ||
        sp->size() != 1 || ((*ax)[0] != 0 && (*ax)[0] != -1))
      return std::nullopt;
    return slice_elems(*x, (*st)[0], (*en)[0], (*sp)[0]);
  }
  if (op == "Neg") return zip(in(0), SymShape{int_elem(-1)}, dim_mul);
  if (op == "Not") return map_known(in(0), [](int64_t a) { return int64_t{a == 0}; });
  if (op == "ConstantOfShape") {
    const auto shape = known_ints(in(0));
    if (!shape) return std::nullopt;
    int64_t count = 1;
    for (int64_t d : *shape) count *= d;
    if (count < 0 || count > kMaxElems) return std::nullopt;
    int64_t v = 0;
    if (at.has("value")) {
      const Tensor& t = at.tensor("value");
      if (t.numel() != 1 || t.at(0) != std::floor(t.at(0))) return std::nullopt;
      v = static_cast<int64_t>(t.at(0));
    }
    return SymShape(static_cast<size_t>(count), int_elem(v));
  }
  if (op == "Range") {
    const auto a = known_ints(in(0)), l = known_ints(in(1)), d = known_ints(in(2));
    if (!a || !l || !d || a->size() != 1 || l->size() != 1 || d->size() != 1 || (*d)[0] == 0)
      return std::nullopt;
    SymShape r;
    for (int64_t v = (*a)[0]; (*d)[0] > 0 ? v < (*l)[0] : v > (*l)[0]; v += (*d)[0]) {
      if (static_cast<int64_t>(r.size()) >= kMaxElems) return std::nullopt;
      r.push_back(int_elem(v));
    }
    return r;
  }
  if (op == "Where" && n.inputs.size() == 3) {
    const auto c = known_ints(in(0));
    const auto x = in(1), y = in(2);
    if (!c || !x || !y) return std::nullopt;
    const size_t len = std::max({c->size(), x->size(), y->size()});
    SymShape r;
    for (size_t i = 0; i < len; ++i) {
      auto pick = [&](size_t size) { return size == 1 ? 0 : i; };
      if ((c->size() != 1 && c->size() != len) || (x->size() != 1 && x->size() != len) ||
          (y->size() != 1 && y->size() != len))
        return std::nullopt;
      r.push_back((*c)[pick(c->size())] != 0 ? (*x)[pick(x->size())] : (*y)[pick(y->size())]);
    }
    return r;
  }
  if (n.inputs.size() != 2 || n.inputs[1] < 0) return std::nullopt;
  if (op == "Equal") return zip(in(0), in(1), dim_equal);
  if (op == "Mod") {
    const bool fmod = at.has("fmod") && at.i("fmod") != 0;
    return zip_known(in(0), in(1), [fmod](int64_t a, int64_t b) -> std::optional<int64_t> {
      if (b == 0) return std::nullopt;
      const int64_t r = a % b;
      return fmod || r == 0 || (r < 0) == (b < 0) ? r : r + b;  // integer Mod: divisor's sign
    });
  }
  if (op == "Max")
    return zip_known(in(0), in(1),
                     [](int64_t a, int64_t b) { return std::optional(std::max(a, b)); });
  if (op == "Min")
    return zip_known(in(0), in(1),
                     [](int64_t a, int64_t b) { return std::optional(std::min(a, b)); });
  if (op == "Less")
    return zip_known(in(0), in(1),
                     [](int64_t a, int64_t b) { return std::optional(int64_t{a < b}); });
  if (op == "Greater")
    return zip_known(in(0), in(1),
                     [](int64_t a, int64_t b) { return std::optional(int64_t{a > b}); });
  if (op == "Add") return zip(in(0), in(1), dim_add);
  if (op == "Sub") return zip(in(0), in(1), dim_sub);
  if (op == "Mul") return zip(in(0), in(1), dim_mul);
  if (op == "Div") {
    const bool ints = int_dtype(type(0).dtype);
    return zip(in(0), in(1), [ints](const Dim& a, const Dim& b) {
      const auto x = int_of(a), y = int_of(b);
      if (ints && x && y && *y != 0) return int_elem(*x / *y);  // integer Div truncates
      return dim_div(a, b);
    });
  }
  return std::nullopt;
}

// Reshape to elements that may be symbolic: 0 copies the input's dim (unless allowzero), -1 is
// what is left of the input's element count.
std::optional<SymShape> reshape_dims(const TensorType& x, const SymShape& target, bool allowzero) {
  SymShape out;
  int infer_at = -1;
  Dim rest(1);
  for (size_t i = 0; i < target.size(); ++i) {
    const auto v = int_of(target[i]);
    if (v && *v == -1) {
      if (infer_at >= 0) return std::nullopt;
      infer_at = static_cast<int>(i);
      out.push_back(Dim());
      continue;
    }
    Dim d = target[i];
    if (v && *v == 0 && !allowzero) d = x.shape && i < x.shape->size() ? (*x.shape)[i] : Dim();
    if (v && *v < -1) return std::nullopt;
    out.push_back(d);
    rest = dim_mul(rest, d);
  }
  if (infer_at >= 0 && x.shape) {
    Dim total(1);
    for (const Dim& d : *x.shape) total = dim_mul(total, d);
    out[infer_at] = dim_div(total, rest);
  }
  return out;
}

// What the registry's inference says about node n's outputs from its inputs' types, the
// constants among them and the inputs whose elements are all known; empty when an input type
// is unknown. When inference fails (a shape left unknown), an output still gets the dtype of an
// input bound to the same type constraint, so patterns downstream can see it.
std::vector<TensorType> infer_node(const Graph& g, const Node& n, const SymInference& s) {
  if (!n.def || !n.def->infer_fn) return {};
  std::vector<TensorType> in;
  std::vector<const Tensor*> values;
  std::vector<DType> dtypes;
  std::deque<Tensor> made;  // elements known while loading, as constants for inference
  for (int v : n.inputs) {
    in.push_back(v >= 0 ? s.types[v] : TensorType{});
    if (v >= 0 && s.types[v].dtype == DType::kUndefined) return {};
    const Tensor* value = v >= 0 && g.values[v].constant ? &*g.values[v].constant : nullptr;
    const auto ints = v >= 0 && !value ? known_ints(s.elems[v]) : std::nullopt;
    if (ints && elem_dtype(s.types[v].dtype) && s.types[v].shape && s.types[v].shape->size() <= 1) {
      Tensor& t = made.emplace_back(
          s.types[v].dtype,
          s.types[v].shape->empty() ? Shape{} : Shape{static_cast<int64_t>(ints->size())});
      if (t.numel() == static_cast<int64_t>(ints->size())) {
        for (size_t i = 0; i < ints->size(); ++i)
          t.set(static_cast<int64_t>(i), static_cast<double>((*ints)[i]));
        value = &t;
      }
    }
    values.push_back(value);
    dtypes.push_back(in.back().dtype);
  }
  try {
    n.def->check_types(dtypes);
    const Attrs resolved = n.def->resolve(n.attrs);
    return n.def->infer_fn(InferContext{*n.def, in, resolved, values, n.outputs.size()});
  } catch (const Error&) {
    std::vector<TensorType> out(n.outputs.size());
    for (size_t k = 0; k < out.size() && k < n.def->outputs.size(); ++k)
      for (size_t j = 0; j < in.size() && j < n.def->inputs.size(); ++j)
        if (n.def->outputs[k].type == n.def->inputs[j].type) out[k].dtype = in[j].dtype;
    return out;
  }
}

// The shapes of Reshape, Expand and ConstantOfShape from symbolic elements, where inference
// could not take them as constants.
void refine_shape(const Node& n, const Attrs& at, const SymInference& s, TensorType& out) {
  if (!n.domain.empty() || n.inputs.size() < 2 || n.inputs[0] < 0 || n.inputs[1] < 0) {
    if (n.domain.empty() && n.op_type == "ConstantOfShape" && !n.inputs.empty() &&
        n.inputs[0] >= 0 && s.elems[n.inputs[0]] && !out.shape)
      out.shape = s.elems[n.inputs[0]];
    return;
  }
  const auto& target = s.elems[n.inputs[1]];
  if (!target) return;
  const TensorType& x = s.types[n.inputs[0]];
  if (n.op_type == "Reshape" && n.opset >= 5) {
    const auto r =
        reshape_dims(x, *target, n.opset >= 14 && at.has("allowzero") && at.i("allowzero") != 0);
    if (!r) return;
    // Keep what inference found where this knows less (an unknown dim it could compute).
    if (out.shape && out.shape->size() == r->size()) {
      SymShape merged = *r;
      for (size_t i = 0; i < merged.size(); ++i)
        if (!merged[i].known() && !merged[i].symbolic()) merged[i] = (*out.shape)[i];
      out.shape = merged;
    } else {
      out.shape = r;
    }
  } else if (n.op_type == "Expand" && x.shape && !out.shape) {
    try {
      out.shape = broadcast_shapes(*x.shape, *target);
    } catch (const Error&) {
    }
  }
}

// Runs node n by its naive reference when every input is known (a constant of at most
// kMaxEvalElems elements, or elements all known integers) and every output is a small integer or
// bool tensor of a known shape: the shape arithmetic whose elements are plain numbers once the
// dims are (torch's pad and window computations). Sets the outputs' elements; false otherwise.
bool evaluate(const Graph& g, const Node& n, const Attrs& at, SymInference& s) {
  constexpr int64_t kMaxEvalElems = 4096;
  if (!n.def || !n.def->reference_fn || n.inputs.empty() || !n.subgraphs.empty() ||
      n.op_type.find("Random") != std::string::npos)
    return false;
  std::vector<Tensor> in;
  for (int v : n.inputs) {
    if (v < 0) {
      in.emplace_back();
      continue;
    }
    if (g.values[v].constant) {
      if (g.values[v].constant->numel() > kMaxEvalElems) return false;
      in.push_back(*g.values[v].constant);
      continue;
    }
    const auto ints = known_ints(s.elems[v]);
    const auto shape = s.types[v].shape ? to_concrete(*s.types[v].shape) : std::nullopt;
    if (!ints || !shape || numel(*shape) != static_cast<int64_t>(ints->size()) ||
        !elem_dtype(s.types[v].dtype))
      return false;
    Tensor t(s.types[v].dtype, *shape);
    for (size_t i = 0; i < ints->size(); ++i)
      t.set(static_cast<int64_t>(i), static_cast<double>((*ints)[i]));
    in.push_back(std::move(t));
  }
  std::vector<Tensor> out;
  for (int v : n.outputs) {
    const TensorType& t = v >= 0 ? s.types[v] : TensorType{};
    const auto shape = t.shape ? to_concrete(*t.shape) : std::nullopt;
    if (v < 0 || !shape || numel(*shape) > kMaxElems ||
        !(int_dtype(t.dtype) || t.dtype == DType::kBool))
      return false;
    out.emplace_back(t.dtype, *shape);
  }
  try {
    n.def->reference_fn(at, in, out);
  } catch (const Error&) {
    return false;
  }
  for (size_t k = 0; k < out.size(); ++k) s.elems[n.outputs[k]] = const_elems(out[k]);
  return true;
}

// A declared type unless inference knows more (a shape where the declaration has none).
TensorType better(const TensorType& declared, const TensorType& inferred) {
  if (inferred.dtype == DType::kUndefined) return declared;
  if (declared.dtype != DType::kUndefined && declared.shape && !inferred.shape) return declared;
  return inferred;
}

}  // namespace

SymInference infer_symbolic(const Graph& g) {
  SymInference s;
  s.types.resize(g.values.size());
  s.elems.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    s.types[v] =
        val.constant ? TensorType{val.constant->dtype(), to_sym(val.constant->shape())} : val.type;
    if (val.constant) s.elems[v] = const_elems(*val.constant);
  }
  for (int i : g.topo_order()) {
    const Node& n = g.nodes[i];
    std::vector<TensorType> out = infer_node(g, n, s);
    Attrs at;
    try {
      at = n.def ? n.def->resolve(n.attrs) : n.attrs;
    } catch (const Error&) {
      at = n.attrs;
    }
    if (!out.empty()) refine_shape(n, at, s, out[0]);
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k] >= 0)
        s.types[n.outputs[k]] =
            better(g.values[n.outputs[k]].type, k < out.size() ? out[k] : TensorType{});
    if (n.outputs.empty() || n.outputs[0] < 0) continue;
    if (evaluate(g, n, at, s)) continue;
    const TensorType& t = s.types[n.outputs[0]];
    if (t.shape && t.shape->size() <= 1 && elem_dtype(t.dtype)) {
      auto e = node_elems(n, at, s);
      if (e && static_cast<int64_t>(e->size()) <= kMaxElems &&
          (t.shape->empty() ? e->size() == 1
                            : !(*t.shape)[0].known() ||
                                  (*t.shape)[0].value() == static_cast<int64_t>(e->size())))
        s.elems[n.outputs[0]] = std::move(e);
    }
  }
  return s;
}

}  // namespace asc

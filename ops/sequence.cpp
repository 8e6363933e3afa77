// Sequences (11+) and optionals (15+): host kernels over TensorList values (registry/tensor.h).
// A sequence holds tensors of one dtype (any shapes); an optional holds one value or none. Their
// elements are shared, not copied, between the lists that hold them (values are immutable once
// produced); a kernel that returns an element as a plain tensor copies it into its output.
//
// Positions (SequenceAt, SequenceInsert, SequenceErase) are one i32/i64 element; negative ones
// count from the back. SplitToSequence cuts along `axis` into pieces of the sizes `split` gives
// (a scalar: equal pieces, the last smaller; absent: pieces of 1, squeezed unless keepdims);
// ConcatFromSequence joins along `axis`, or stacks along a new one (new_axis = 1).
// SequenceMap runs its body per element: the runtime executes it (runtime/control_flow.cpp).
#include <algorithm>
#include <cstring>

#include "ops/ops.h"
#include "ops/slabs.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"

namespace asc {
namespace {

const std::vector<DType>& position_types() {
  static const std::vector<DType> v = {DType::kI32, DType::kI64};
  return v;
}

std::vector<TensorType> one_sequence(const InferContext&) {
  return {TensorType{DType::kSequence, SymShape{}}};
}

const TensorList& list_of(const Tensor& t, std::string_view op) {
  if (!t.list())
    throw ShapeError(cat(op, ": expected a sequence or optional, got ", t.desc().str()));
  return *t.list();
}

// A known container input's contents (inference probes have none: decided while running).
const TensorList& known_list(const InferContext& c, size_t k) {
  const Tensor* v = k < c.values.size() ? c.values[k] : nullptr;
  if (!v || !v->list())
    throw ValueUnknownError(
        cat(c.op.type, ": the contents of input ", k, " are known while running"));
  return *v->list();
}

TensorType type_of(const Tensor& t) {
  return TensorType{t.dtype(), to_sym(t.shape())};
}

// A position input in [-n, n - 1] (or [-n, n] when inserting) as an index into the list.
int64_t position(std::span<const Tensor> in, size_t k, int64_t n, int64_t dflt, bool insert,
                 std::string_view op) {
  if (k >= in.size() || !in[k].defined()) return dflt;
  if (in[k].numel() != 1)
    throw ShapeError(cat(op, ": position must be one element, got ", in[k].desc().str()));
  const int64_t p = static_cast<int64_t>(in[k].at(0));
  const int64_t hi = insert ? n : n - 1;
  if (p < -n || p > hi)
    throw ShapeError(cat(op, ": position ", p, " is out of range [", -n, ", ", hi, "] for ", n,
                         " element", n == 1 ? "" : "s"));
  return p < 0 ? p + n : p;
}

void check_elem(const TensorList& l, DType dt, std::string_view op) {
  if (l.elem != DType::kUndefined && l.elem != dt)
    throw ShapeError(cat(op, ": cannot add a tensor of ", dtype_name(dt), " to a sequence of ",
                         dtype_name(l.elem)));
}

// count elements from src (from element s) to dst (from element d); strings included.
void copy_elements(Tensor& dst, int64_t d, const Tensor& src, int64_t s, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DType::kString) {
    std::copy_n(src.strings() + s, count, dst.strings() + d);
    return;
  }
  const size_t es = dtype_size(src.dtype());
  std::memcpy(static_cast<std::byte*>(dst.data()) + d * es,
              static_cast<const std::byte*>(src.data()) + s * es, count * es);
}

int64_t normalise_axis(int64_t axis, int64_t rank, std::string_view op) {
  if (axis < -rank || axis >= rank)
    throw ShapeError(cat(op, ": axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

// ---- SplitToSequence -------------------------------------------------------------------------

struct SplitPlan {
  int64_t axis = 0;
  std::vector<int64_t> sizes;
  bool squeeze = false;
};

SplitPlan split_plan(const Attrs& a, std::span<const Tensor> in) {
  const Tensor& x = in[0];
  const int64_t rank = static_cast<int64_t>(x.shape().size());
  if (rank == 0) throw ShapeError("SplitToSequence: the input must have rank >= 1");
  SplitPlan p;
  p.axis = normalise_axis(a.i("axis"), rank, "SplitToSequence");
  const int64_t dim = x.shape()[p.axis];
  if (in.size() < 2 || !in[1].defined()) {
    p.sizes.assign(static_cast<size_t>(dim), 1);
    p.squeeze = a.i("keepdims") == 0;
    return p;
  }
  const Tensor& split = in[1];
  if (split.shape().size() > 1)
    throw ShapeError(
        cat("SplitToSequence: split must be a scalar or 1-D, got ", split.desc().str()));
  const std::vector<int64_t> v = to_int64s(split);
  if (split.shape().empty()) {
    if (v[0] <= 0) throw ShapeError(cat("SplitToSequence: split ", v[0], " must be > 0"));
    for (int64_t at = 0; at < dim; at += v[0]) p.sizes.push_back(std::min(v[0], dim - at));
    return p;
  }
  int64_t sum = 0;
  for (int64_t s : v) {
    if (s < 0) throw ShapeError(cat("SplitToSequence: split has a negative size ", s));
    sum += s;
  }
  if (sum != dim)
    throw ShapeError(cat("SplitToSequence: split sizes sum to ", sum, ", the axis has ", dim));
  p.sizes = v;
  return p;
}

void split_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const SplitPlan p = split_plan(*ctx.attrs, in);
  const Tensor x = in[0].is_contiguous() ? in[0] : in[0].clone();
  const Slabs a = slabs_of(x.shape(), p.axis);
  TensorList& l = *out[0].list();
  l.elem = x.dtype();
  int64_t begin = 0;
  for (int64_t len : p.sizes) {
    Shape shape = x.shape();
    shape[p.axis] = len;
    if (p.squeeze) shape.erase(shape.begin() + p.axis);
    Tensor piece(x.dtype(), shape);
    for (int64_t o = 0; o < a.outer; ++o)
      copy_elements(piece, o * len * a.inner, x, (o * a.n + begin) * a.inner, len * a.inner);
    l.items.push_back(std::move(piece));
    begin += len;
  }
}

// Element (o, i) of piece k is element (o, begin_k + i) of x, copied one by one.
void split_reference(const Attrs& attrs, std::span<const Tensor> in, std::span<Tensor> out) {
  const SplitPlan p = split_plan(attrs, in);
  const Tensor& x = in[0];
  const Shape xs = contiguous_strides(x.shape());
  TensorList& l = *out[0].list();
  l.elem = x.dtype();
  int64_t begin = 0;
  for (int64_t len : p.sizes) {
    Shape shape = x.shape();
    shape[p.axis] = len;
    Tensor piece(x.dtype(), shape);
    std::vector<int64_t> idx(shape.size());
    for (int64_t e = 0; e < piece.numel(); ++e) {
      unravel(e, shape, idx.data());
      idx[p.axis] += begin;
      copy_elements(piece, e, x, ravel(idx.data(), xs, idx.size()), 1);
    }
    if (p.squeeze) {
      shape.erase(shape.begin() + p.axis);
      Tensor squeezed(x.dtype(), shape);
      copy_elements(squeezed, 0, piece, 0, piece.numel());
      piece = squeezed;
    }
    l.items.push_back(std::move(piece));
    begin += len;
  }
}

// ---- ConcatFromSequence ----------------------------------------------------------------------

// The output shape, and the axis in it along which the items are laid out.
std::pair<Shape, int64_t> concat_shape(const TensorList& l, const Attrs& a) {
  if (l.items.empty()) throw ShapeError("ConcatFromSequence: the sequence is empty");
  const bool stack = a.i("new_axis") != 0;
  const Shape& first = l.items[0].shape();
  const int64_t rank = static_cast<int64_t>(first.size()) + (stack ? 1 : 0);
  if (rank == 0) throw ShapeError("ConcatFromSequence: cannot concatenate scalars");
  const int64_t axis = normalise_axis(a.i("axis"), rank, "ConcatFromSequence");
  Shape shape = first;
  if (stack) shape.insert(shape.begin() + axis, 0);
  shape[axis] = 0;
  for (const Tensor& t : l.items) {
    Shape s = t.shape();
    if (stack) s.insert(s.begin() + axis, 1);
    bool same = s.size() == shape.size() && t.dtype() == l.items[0].dtype();
    for (size_t d = 0; same && d < s.size(); ++d)
      same = static_cast<int64_t>(d) == axis || s[d] == shape[d];
    if (!same)
      throw ShapeError(cat("ConcatFromSequence: ", t.desc().str(), " does not join ",
                           l.items[0].desc().str(), " along axis ", axis));
    shape[axis] += s[axis];
  }
  return {shape, axis};
}

std::vector<TensorType> concat_infer(const InferContext& c) {
  const TensorList& l = known_list(c, 0);
  const auto [shape, axis] = concat_shape(l, c.attrs);
  return {TensorType{l.items[0].dtype(), to_sym(shape)}};
}

void concat_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const TensorList& l = list_of(in[0], "ConcatFromSequence");
  const int64_t axis = concat_shape(l, *ctx.attrs).second;
  const Slabs o = slabs_of(out[0].shape(), axis);
  int64_t begin = 0;
  for (const Tensor& item : l.items) {
    const Tensor t = item.is_contiguous() ? item : item.clone();
    const int64_t len = t.numel() / std::max<int64_t>(o.outer * o.inner, 1);
    for (int64_t r = 0; r < o.outer; ++r)
      copy_elements(out[0], (r * o.n + begin) * o.inner, t, r * len * o.inner, len * o.inner);
    begin += len;
  }
}

// Output element e comes from the item whose range along the axis holds e's coordinate.
void concat_reference(const Attrs& attrs, std::span<const Tensor> in, std::span<Tensor> out) {
  const TensorList& l = list_of(in[0], "ConcatFromSequence");
  const bool stack = attrs.i("new_axis") != 0;
  const auto [shape, axis] = concat_shape(l, attrs);
  std::vector<int64_t> idx(shape.size());
  for (int64_t e = 0; e < out[0].numel(); ++e) {
    unravel(e, shape, idx.data());
    int64_t at = idx[axis];
    size_t k = 0;
    for (;; ++k) {
      const int64_t len = stack ? 1 : l.items[k].shape()[axis];
      if (at < len) break;
      at -= len;
    }
    std::vector<int64_t> src = idx;
    if (stack)
      src.erase(src.begin() + axis);
    else
      src[axis] = at;
    const Tensor& item = l.items[k];
    copy_elements(out[0], e, item, ravel(src.data(), contiguous_strides(item.shape()), src.size()),
                  1);
  }
}

// ---- Optional --------------------------------------------------------------------------------

// The element dtype a type attribute names: "tensor(f32)" -> f32, "seq(...)" -> kSequence,
// "optional(...)" -> kOptional (the importer writes TypeProto attributes this way).
DType elem_of_type(const std::string& type) {
  if (type.starts_with("seq(")) return DType::kSequence;
  if (type.starts_with("optional(")) return DType::kOptional;
  if (type.starts_with("tensor(") && type.ends_with(")")) {
    const DType dt = dtype_from_name(type.substr(7, type.size() - 8));
    if (dt != DType::kUndefined) return dt;
  }
  throw ShapeError(cat("Optional: cannot read the type '", type, "'"));
}

void optional_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  TensorList& l = *out[0].list();
  if (!in.empty() && in[0].defined()) {
    l.elem = in[0].dtype();
    l.items = {in[0]};
    return;
  }
  const std::string& type = ctx.attrs->s("type");
  if (type.empty())
    throw ShapeError("Optional: an empty optional needs the type attribute (no input given)");
  l.elem = elem_of_type(type);
}

void optional_reference(const Attrs& attrs, std::span<const Tensor> in, std::span<Tensor> out) {
  const bool given = !in.empty() && in[0].defined();
  out[0] = given ? Tensor::optional(in[0].dtype(), in[0].clone())
                 : Tensor::optional(elem_of_type(attrs.s("type")), std::nullopt);
}

// OptionalGetElement and SequenceAt give an element as a plain value: copied into the output.
void give(const Tensor& item, Tensor& out) {
  if (item.list()) {
    out = item;  // a container element: lists are shared
    return;
  }
  out.assign(item);
}

// ---- the small list ops -----------------------------------------------------------------------

DType empty_dtype(const Attrs& a) {
  const DType dt = static_cast<DType>(a.i("dtype"));
  for (DType t : all_types())
    if (t == dt) return dt;
  throw ShapeError(cat("SequenceEmpty: dtype ", a.i("dtype"), " is not a tensor dtype"));
}

void insert_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  const TensorList& l = list_of(in[0], "SequenceInsert");
  check_elem(l, in[1].dtype(), "SequenceInsert");
  const int64_t n = static_cast<int64_t>(l.items.size());
  const int64_t p = position(in, 2, n, n, true, "SequenceInsert");
  TensorList& r = *out[0].list();
  r.elem = in[1].dtype();
  r.items = l.items;
  r.items.insert(r.items.begin() + p, in[1]);
}

void insert_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const TensorList& l = *in[0].list();
  const int64_t n = static_cast<int64_t>(l.items.size());
  int64_t p = in.size() > 2 && in[2].defined() ? static_cast<int64_t>(in[2].at(0)) : n;
  if (p < 0) p += n;
  TensorList& r = *out[0].list();
  r.elem = in[1].dtype();
  for (int64_t i = 0; i <= n; ++i) {
    if (i == p) r.items.push_back(in[1].clone());
    if (i < n) r.items.push_back(l.items[i].clone());
  }
}

void erase_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  const TensorList& l = list_of(in[0], "SequenceErase");
  const int64_t n = static_cast<int64_t>(l.items.size());
  if (n == 0) throw ShapeError("SequenceErase: the sequence is empty");
  const int64_t p = position(in, 1, n, n - 1, false, "SequenceErase");
  TensorList& r = *out[0].list();
  r = l;
  r.items.erase(r.items.begin() + p);
}

void erase_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const TensorList& l = *in[0].list();
  const int64_t n = static_cast<int64_t>(l.items.size());
  int64_t p = in.size() > 1 && in[1].defined() ? static_cast<int64_t>(in[1].at(0)) : -1;
  if (p < 0) p += n;
  out[0].list()->elem = l.elem;
  for (int64_t i = 0; i < n; ++i)
    if (i != p) out[0].list()->items.push_back(l.items[i].clone());
}

std::vector<TensorType> at_infer(const InferContext& c) {
  const TensorList& l = known_list(c, 0);
  const auto n = static_cast<int64_t>(l.items.size());
  const Tensor* pos = c.values.size() > 1 ? c.values[1] : nullptr;
  if (!pos) throw ValueUnknownError("SequenceAt: the position is known while running");
  return {
      type_of(l.items[position(std::span<const Tensor>(pos, 1), 0, n, 0, false, "SequenceAt")])};
}

void at_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  const TensorList& l = list_of(in[0], "SequenceAt");
  give(l.items[position(in, 1, static_cast<int64_t>(l.items.size()), 0, false, "SequenceAt")],
       out[0]);
}

std::vector<TensorType> get_infer(const InferContext& c) {
  const Tensor* v = c.values.empty() ? nullptr : c.values[0];
  if (c.inputs[0].dtype != DType::kOptional) return {c.inputs[0]};  // opset 18: as is
  if (!v || !v->list()) throw ValueUnknownError("OptionalGetElement: known while running");
  if (v->list()->items.empty()) throw ShapeError("OptionalGetElement: the optional is empty");
  return {type_of(v->list()->items[0])};
}

void get_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  if (in[0].dtype() != DType::kOptional) return give(in[0], out[0]);
  const TensorList& l = list_of(in[0], "OptionalGetElement");
  if (l.items.empty()) throw ShapeError("OptionalGetElement: the optional is empty");
  give(l.items[0], out[0]);
}

void has_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  const bool has = !in.empty() && in[0].defined() &&
                   (in[0].dtype() != DType::kOptional || !list_of(in[0], "x").items.empty());
  out[0].set(0, has ? 1.0 : 0.0);
}

std::vector<TensorType> bool_scalar(const InferContext&) {
  return {TensorType{DType::kBool, SymShape{}}};
}

std::vector<TensorType> runtime_infer(const InferContext& c) {
  throw ValueUnknownError(cat(c.op.type, ": its outputs are known once its body has run"));
}

}  // namespace

void register_sequence(Registry& r) {
  r.add(def_op("SequenceEmpty", 11)
            .output("output", "S")
            .attr("dtype", AttrKind::kInt, int64_t{1})
            .type_constraint("S", {DType::kSequence})
            .describe("output = an empty sequence of dtype tensors")
            .infer(one_sequence)
            .host_kernel([](const LaunchContext& c, std::span<const Tensor>, std::span<Tensor> o) {
              o[0].list()->elem = empty_dtype(*c.attrs);
            })
            .reference([](const Attrs& a, std::span<const Tensor>, std::span<Tensor> o) {
              o[0] = Tensor::sequence(static_cast<DType>(a.i("dtype")), {});
            }));
  r.add(def_op("SequenceConstruct", 11)
            .input("inputs", "T", Arity::kVariadic)
            .output("output_sequence", "S")
            .type_constraint("T", all_types())
            .type_constraint("S", {DType::kSequence})
            .describe("output_sequence = [inputs...] (one dtype)")
            .infer(one_sequence)
            .host_kernel([](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> o) {
              o[0].list()->elem = in[0].dtype();
              o[0].list()->items.assign(in.begin(), in.end());
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> o) {
              std::vector<Tensor> items;
              for (const Tensor& t : in) items.push_back(t.clone());
              o[0] = Tensor::sequence(in[0].dtype(), std::move(items));
            }));
  r.add(def_op("SequenceInsert", 11)
            .input("input_sequence", "S")
            .input("tensor", "T")
            .input("position", "I", Arity::kOptional)
            .output("output_sequence", "S")
            .type_constraint("S", {DType::kSequence})
            .type_constraint("T", all_types())
            .type_constraint("I", position_types())
            .describe("output_sequence = input_sequence with tensor inserted before position "
                      "(default: appended)")
            .infer(one_sequence)
            .host_kernel(insert_kernel)
            .reference(insert_reference));
  r.add(def_op("SequenceErase", 11)
            .input("input_sequence", "S")
            .input("position", "I", Arity::kOptional)
            .output("output_sequence", "S")
            .type_constraint("S", {DType::kSequence})
            .type_constraint("I", position_types())
            .describe("output_sequence = input_sequence without the element at position "
                      "(default: the last)")
            .infer(one_sequence)
            .host_kernel(erase_kernel)
            .reference(erase_reference));
  r.add(def_op("SequenceAt", 11)
            .input("input_sequence", "S")
            .input("position", "I")
            .output("tensor", "T")
            .type_constraint("S", {DType::kSequence})
            .type_constraint("I", position_types())
            .type_constraint("T", all_types())
            .describe("tensor = input_sequence[position]")
            .infer(at_infer)
            .host_kernel(at_kernel)
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> o) {
              const auto& items = in[0].list()->items;
              int64_t p = static_cast<int64_t>(in[1].at(0));
              o[0] = items[p < 0 ? p + static_cast<int64_t>(items.size()) : p].clone();
            }));
  r.add(def_op("SequenceLength", 11)
            .input("input_sequence", "S")
            .output("length", "i64")
            .type_constraint("S", {DType::kSequence})
            .describe("length = the number of tensors in input_sequence (an i64 scalar)")
            .infer([](const InferContext&) {
              return std::vector<TensorType>{{DType::kI64, SymShape{}}};
            })
            .host_kernel([](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> o) {
              o[0].set(0, static_cast<double>(list_of(in[0], "SequenceLength").items.size()));
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> o) {
              int64_t n = 0;
              for (auto it = in[0].list()->items.begin(); it != in[0].list()->items.end(); ++it)
                ++n;
              o[0].data_as<int64_t>()[0] = n;
            }));
  r.add(def_op("SplitToSequence", 11)
            .input("input", "T")
            .input("split", "I", Arity::kOptional)
            .output("output_sequence", "S")
            .attr("axis", AttrKind::kInt, int64_t{0})
            .attr("keepdims", AttrKind::kInt, int64_t{1})
            .type_constraint("T", all_types())
            .type_constraint("I", position_types())
            .type_constraint("S", {DType::kSequence})
            .describe("output_sequence = input cut along axis into pieces of the split sizes")
            .infer(one_sequence)
            .host_kernel(split_kernel)
            .reference(split_reference));
  r.add(def_op("ConcatFromSequence", 11)
            .input("input_sequence", "S")
            .output("concat_result", "T")
            .attr("axis", AttrKind::kInt)
            .attr("new_axis", AttrKind::kInt, int64_t{0})
            .type_constraint("S", {DType::kSequence})
            .type_constraint("T", all_types())
            .describe("concat_result = the tensors joined along axis (stacked along a new axis "
                      "when new_axis = 1)")
            .infer(concat_infer)
            .host_kernel(concat_kernel)
            .reference(concat_reference));
  r.add(def_op("SequenceMap", 17)
            .input("input_sequence", "S")
            .input("additional_inputs", "V", Arity::kVariadic)
            .heterogeneous()
            .output("out_sequence", "S", Arity::kVariadic)
            .type_constraint("S", {DType::kSequence})
            .type_constraint("V", any_types())
            .trait(kControlFlow)
            .describe("out_sequence[k][i] = body(input_sequence[i], additional_inputs (element i "
                      "of a sequence, a tensor as is)...)[k]")
            .infer(runtime_infer)
            .host_kernel([](const LaunchContext&, std::span<const Tensor>, std::span<Tensor>) {
              throw Error("SequenceMap runs its body: a Model executes it, not a kernel call");
            }));

  r.add(def_op("Optional", 15)
            .input("input", "V", Arity::kOptional)
            .output("output", "O")
            .attr("type", AttrKind::kString, std::string())
            .type_constraint("V", any_types())
            .type_constraint("O", {DType::kOptional})
            .describe("output = an optional holding input, or an empty one of the type attribute")
            .infer([](const InferContext&) {
              return std::vector<TensorType>{{DType::kOptional, SymShape{}}};
            })
            .host_kernel(optional_kernel)
            .reference(optional_reference));
  // Opset 18 lets both take a tensor or sequence as it is and OptionalHasElement no input at all;
  // asc reads the 15 forms the same way (docs/ONNX.md), so the two versions share a definition.
  for (const auto& [since, until] : {std::pair{15, 17}, std::pair{18, INT_MAX}}) {
    r.add(def_op("OptionalHasElement", since, until)
              .input("input", "O", Arity::kOptional)
              .output("output", "bool")
              .type_constraint("O", any_types())
              .describe("output = whether the optional holds a value (a bool scalar; a tensor or "
                        "sequence: true, no input: false)")
              .infer(bool_scalar)
              .host_kernel(has_kernel)
              .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> o) {
                bool has = !in.empty() && in[0].defined();
                if (has && in[0].dtype() == DType::kOptional) has = in[0].list()->items.size() == 1;
                o[0].data_as<bool>()[0] = has;
              }));
    r.add(def_op("OptionalGetElement", since, until)
              .input("input", "O")
              .output("output", "V")
              .type_constraint("O", any_types())
              .type_constraint("V", any_types())
              .describe("output = the value the optional holds (an error when empty; a tensor or "
                        "sequence as it is)")
              .infer(get_infer)
              .host_kernel(get_kernel)
              .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> o) {
                o[0] = in[0].dtype() == DType::kOptional ? in[0].list()->items.at(0).clone()
                                                         : in[0].clone();
              }));
  }
}

}  // namespace asc

// Pad: constant / edge / reflect (and wrap from opset 19) with begin and end pads per dim
// (negative pads crop). Pad-1 takes attributes, the pads named `paddings` (same layout; its doc
// example lists [0, 0, 2, 0] for what Pad-2's lists as [0, 2, 0, 0], the layout both texts
// state); Pad-2 names them `pads`; Pad-11 inputs (pads, constant_value); Pad-18 an
// axes input selecting the padded dims.
//
// Kernel: per dim d a map from output index o to the input index it copies, or -1 for the
// constant. The last dim's map is cut once into segments (a contiguous run is one memcpy, a
// constant run one fill, a reflected element one copy); every output row, found by an odometer
// over the outer dims, replays those segments from its input row (or is filled when an outer
// dim maps to the constant).
#include <climits>
#include <cstring>

#include "ops/movement.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

enum class PadMode : uint8_t { kConstant, kEdge, kReflect, kWrap };

struct PadVersion {
  int since, until;
  const char* pads_attr;  // the pads attribute's name before Pad-11
  bool inputs;            // pads / constant_value as inputs (else attributes)
  bool axes;              // optional axes input
  bool wrap;              // wrap mode allowed
};

PadMode pad_mode(const PadVersion& v, const Attrs& a) {
  const std::string& m = a.s("mode");
  if (m == "constant") return PadMode::kConstant;
  if (m == "edge") return PadMode::kEdge;
  if (m == "reflect") return PadMode::kReflect;
  if (m == "wrap" && v.wrap) return PadMode::kWrap;
  throw ShapeError(
      cat("Pad: mode '", m, "' is not one of constant, edge, reflect", v.wrap ? ", wrap" : ""));
}

// Begin pads then end pads, one pair per dim of x (axes spread to the full rank).
std::vector<int64_t> full_pads(const char* what, const std::vector<int64_t>& pads,
                               const std::vector<int64_t>& axes, bool has_axes, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  std::vector<int64_t> ax = axes;
  if (!has_axes)
    for (int64_t d = 0; d < r; ++d) ax.push_back(d);
  if (pads.size() != 2 * ax.size())
    throw ShapeError(cat("Pad: ", what, " ", ints_str(pads), " must have 2 x ", ax.size(),
                         " entries (begins then ends) for rank ", rank));
  std::vector<int64_t> full(2 * rank, 0);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < ax.size(); ++i) {
    int64_t a = ax[i];
    if (a < -r || a >= r) throw ShapeError(cat("Pad: axis ", a, " is out of range for rank ", r));
    if (a < 0) a += r;
    if (seen[a]) throw ShapeError(cat("Pad: repeated axis in ", ints_str(axes)));
    seen[a] = true;
    full[a] = pads[i];
    full[a + r] = pads[i + ax.size()];
  }
  return full;
}

Shape padded_shape(const Shape& x, const std::vector<int64_t>& pads, PadMode mode) {
  const size_t r = x.size();
  Shape out(r);
  for (size_t d = 0; d < r; ++d) {
    if (x[d] < 0) {
      out[d] = -1;
      continue;
    }
    out[d] = x[d] + pads[d] + pads[d + r];
    if (out[d] < 0)
      throw ShapeError(
          cat("Pad: pads ", ints_str(pads), " crop dim ", d, " of ", to_string(x), " below zero"));
    if (mode != PadMode::kConstant && x[d] == 0 && out[d] > 0)
      throw ShapeError(cat("Pad: cannot pad the empty dim ", d, " of ", to_string(x),
                           " in a non-constant mode"));
  }
  return out;
}

// Input index copied to output index o of a dim of extent n with begin pad b; -1: the constant.
int64_t pad_source(int64_t o, int64_t n, int64_t b, PadMode mode) {
  const int64_t i = o - b;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : n - 1;
    case PadMode::kWrap:
      return (i % n + n) % n;
    default: {  // reflect without repeating the edge: period 2(n - 1)
      if (n == 1) return 0;
      const int64_t p = 2 * (n - 1);
      const int64_t k = (i % p + p) % p;
      return k < n ? k : p - k;
    }
  }
}

struct PadArgs {
  std::vector<int64_t> pads;  // full: 2 x rank
  PadMode mode;
  std::vector<std::byte> value;  // one element of the data dtype
};

PadArgs pad_args(const PadVersion& v, const Attrs& a, std::span<const Tensor> in) {
  const Tensor& x = in[0];
  PadArgs p;
  p.mode = pad_mode(v, a);
  std::vector<int64_t> pads, axes;
  const bool has_axes = v.axes && has_input(in, 3);
  if (v.inputs) {
    pads = to_int64s(in[1]);
    if (has_axes) axes = to_int64s(in[3]);
  } else {
    pads = a.ints(v.pads_attr);
  }
  p.pads = full_pads(v.pads_attr, pads, axes, has_axes, x.shape().size());
  Tensor value(x.dtype(), {});
  if (v.inputs) {
    if (has_input(in, 2) && in[2].numel() > 0)
      std::memcpy(value.data(), in[2].data(), dtype_size(x.dtype()));
  } else {
    value.set(0, a.f("value"));
  }
  p.value.assign(bytes_of(value), bytes_of(value) + dtype_size(x.dtype()));
  return p;
}

std::vector<TensorType> infer_pad(const PadVersion& v, const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const PadMode mode = pad_mode(v, c.attrs);
  std::vector<int64_t> pads, axes;
  const bool has_axes = v.axes && has_input(c, 3);
  if (v.inputs) {
    pads = need_ints(c, 1, "pads");
    if (has_axes) axes = need_ints(c, 3, "axes");
    if (has_input(c, 2) && c.inputs[2].dtype != x.dtype)
      throw ShapeError(cat("Pad: constant_value is ", dtype_name(c.inputs[2].dtype), ", data is ",
                           dtype_name(x.dtype)));
  } else {
    pads = c.attrs.ints(v.pads_attr);
  }
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const Shape dims = known_dims(*x.shape);
  const auto full = full_pads(v.pads_attr, pads, axes, has_axes, dims.size());
  const Shape out = padded_shape(dims, full, mode);
  SymShape s;
  for (size_t d = 0; d < out.size(); ++d) {
    const bool padded = full[d] != 0 || full[d + dims.size()] != 0;
    s.push_back(out[d] >= 0 ? Dim(out[d]) : padded ? Dim() : (*x.shape)[d]);
  }
  return {{x.dtype, s}};
}

void pad_run(const PadArgs& p, const Tensor& x, Tensor& y) {
  const size_t r = x.shape().size();
  const size_t es = dtype_size(x.dtype());
  if (y.numel() == 0) return;
  if (r == 0) return copy_all(y, x);
  const Shape& xd = x.shape();
  const Shape& yd = y.shape();
  std::vector<std::vector<int64_t>> maps(r);
  for (size_t d = 0; d < r; ++d)
    for (int64_t o = 0; o < yd[d]; ++o) maps[d].push_back(pad_source(o, xd[d], p.pads[d], p.mode));
  // Last-dim segments: [out start, source start or -1, length].
  struct Seg {
    int64_t out, src, len;
  };
  std::vector<Seg> segs;
  for (int64_t o = 0; o < yd[r - 1]; ++o) {
    const int64_t s = maps[r - 1][o];
    if (!segs.empty()) {
      Seg& b = segs.back();
      if ((s < 0 && b.src < 0) || (s >= 0 && b.src >= 0 && s == b.src + b.len)) {
        ++b.len;
        continue;
      }
    }
    segs.push_back({o, s, 1});
  }
  const Shape xs = contiguous_strides(xd);
  const int64_t row = yd[r - 1], rows = y.numel() / row;
  std::vector<int64_t> idx(r, 0);
  std::byte* dst = bytes_of(y);
  const std::byte* src = bytes_of(x);
  const int64_t e = static_cast<int64_t>(es);
  for (int64_t k = 0; k < rows; ++k, dst += row * e) {
    int64_t off = 0;
    bool constant_row = false;
    for (size_t d = 0; d + 1 < r; ++d) {
      const int64_t s = maps[d][idx[d]];
      constant_row = constant_row || s < 0;
      off += s * xs[d];
    }
    if (constant_row) {
      fill_elements(dst, row, p.value.data(), es);
    } else {
      for (const Seg& g : segs) {
        if (g.src < 0)
          fill_elements(dst + g.out * e, g.len, p.value.data(), es);
        else
          std::memcpy(dst + g.out * e, src + (off + g.src) * e, static_cast<size_t>(g.len) * es);
      }
    }
    for (size_t d = r - 1; d-- > 0;) {  // next outer index
      if (++idx[d] < yd[d]) break;
      idx[d] = 0;
    }
  }
}

// Naive reference: per output element and dim, walk back into the input (reflect by bouncing).
void pad_reference_run(const PadArgs& p, const Tensor& x, Tensor& y) {
  const size_t r = x.shape().size();
  const size_t es = dtype_size(x.dtype());
  const Shape xs = contiguous_strides(x.shape());
  std::vector<int64_t> idx(r + 1);
  for (int64_t i = 0; i < y.numel(); ++i) {
    unravel(i, y.shape(), idx.data());
    int64_t src = 0;
    bool constant = false;
    for (size_t d = 0; d < r; ++d) {
      const int64_t n = x.shape()[d];
      int64_t j = idx[d] - p.pads[d];
      if (j < 0 || j >= n) {
        if (p.mode == PadMode::kConstant) constant = true;
        if (p.mode == PadMode::kEdge) j = j < 0 ? 0 : n - 1;
        if (p.mode == PadMode::kWrap)
          while (j < 0 || j >= n) j += j < 0 ? n : -n;
        if (p.mode == PadMode::kReflect)
          while (n > 1 && (j < 0 || j >= n)) j = j < 0 ? -j : 2 * (n - 1) - j;
        if (p.mode == PadMode::kReflect && n == 1) j = 0;
      }
      src += j * xs[d];
    }
    std::memcpy(bytes_of(y) + i * es, constant ? p.value.data() : bytes_of(x) + src * es, es);
  }
}

// ---- CenterCropPad ----------------------------------------------------------------------------
// Per listed axis a target extent t for a dim of extent n: t < n crops a window starting at
// floor((n - t) / 2); t > n pads (t - n) / 2 zeros before and the rest (one more when odd)
// after. As Pad's pads: begin -floor((n - t) / 2) or floor((t - n) / 2), end the remainder.

std::vector<int64_t> center_pads(const Shape& x, const std::vector<int64_t>& target,
                                 const Attrs& a) {
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes = a.ints("axes");
  if (axes.empty())
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  if (target.size() != axes.size())
    throw ShapeError(cat("CenterCropPad: shape ", ints_str(target), " has ", target.size(),
                         " entries for axes ", ints_str(axes), " of input ", to_string(x)));
  std::vector<int64_t> pads(2 * x.size(), 0);
  std::vector<bool> seen(x.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = axes[i];
    if (d < -r || d >= r)
      throw ShapeError(cat("CenterCropPad: axis ", d, " is out of range for input ", to_string(x)));
    if (d < 0) d += r;
    if (seen[d]) throw ShapeError(cat("CenterCropPad: repeated axis in ", ints_str(axes)));
    seen[d] = true;
    if (target[i] < 0)
      throw ShapeError(cat("CenterCropPad: negative target extent in shape ", ints_str(target)));
    if (x[d] < 0) continue;  // unknown while inferring
    const int64_t diff = target[i] - x[d];
    const int64_t begin = diff >= 0 ? diff / 2 : -((-diff) / 2);
    pads[d] = begin;
    pads[d + x.size()] = diff - begin;
  }
  return pads;
}

PadArgs center_args(const Attrs& a, std::span<const Tensor> in) {
  PadArgs p;
  p.mode = PadMode::kConstant;
  p.pads = center_pads(in[0].shape(), to_int64s(in[1]), a);
  p.value.assign(dtype_size(in[0].dtype()), std::byte{0});
  return p;
}

std::vector<TensorType> infer_center_crop_pad(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const std::vector<int64_t> target = need_ints(c, 1, "shape");
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const Shape dims = known_dims(*x.shape);
  center_pads(dims, target, c.attrs);  // checks the axes and the extents
  // Listed axes take their target extent whether the input dim is known or not.
  std::vector<int64_t> axes = c.attrs.ints("axes");
  if (axes.empty())
    for (size_t d = 0; d < dims.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  SymShape s = *x.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t d = axes[i] < 0 ? axes[i] + static_cast<int64_t>(dims.size()) : axes[i];
    s[d] = Dim(target[i]);
  }
  return {{x.dtype, s}};
}

constexpr PadVersion kPad[] = {
    {1, 1, "paddings", false, false, false}, {2, 10, "pads", false, false, false},
    {11, 17, "pads", true, false, false},    {18, 18, "pads", true, true, false},
    {19, INT_MAX, "pads", true, true, true},
};

}  // namespace

void register_movement_pad(Registry& r) {
  for (const PadVersion& pv : kPad) {
    const PadVersion* v = &pv;
    OpDef d = def_op("Pad", pv.since, pv.until);
    d.input("data", "T");
    if (pv.inputs) {
      d.input("pads", "i64", Arity::kSingle, true).input("constant_value", "T", Arity::kOptional);
      if (pv.axes) {
        d.input("axes", "Tind", Arity::kOptional, true)
            .type_constraint("Tind", {DType::kI32, DType::kI64});
      }
    } else {
      d.attr(pv.pads_attr, AttrKind::kInts).attr("value", AttrKind::kFloat, 0.0f);
    }
    d.output("output", "T")
        .attr("mode", AttrKind::kString, std::string("constant"))
        .type_constraint("T", movement_types())
        .trait(kMovement)
        .describe(pv.wrap ? "output = data padded (begins then ends; negative crops) with a "
                            "constant, edge, reflect or wrap values"
                          : "output = data padded (begins then ends; negative crops) with a "
                            "constant, edge or reflect values")
        .infer([v](const InferContext& c) { return infer_pad(*v, c); })
        .host_kernel(
            [v](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
              pad_run(pad_args(*v, ctx.attr(), in), in[0], out[0]);
            })
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          pad_reference_run(pad_args(*v, a, in), in[0], out[0]);
        });
    r.add(std::move(d));
  }

  r.add(def_op("CenterCropPad", 18)
            .input("input_data", "T")
            .input("shape", "Tind", Arity::kSingle, true)
            .output("output_data", "T")
            .attr("axes", AttrKind::kInts, std::vector<int64_t>{})
            .type_constraint("T", movement_types())
            .type_constraint("Tind", {DType::kI32, DType::kI64})
            .trait(kMovement)
            .describe("output = input_data center-cropped or zero-padded to shape along axes "
                      "(crops start at floor((n - t) / 2); odd pads put the extra one at the end)")
            .infer(infer_center_crop_pad)
            .host_kernel(
                [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                  pad_run(center_args(ctx.attr(), in), in[0], out[0]);
                })
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              pad_reference_run(center_args(a, in), in[0], out[0]);
            }));
}

}  // namespace asc

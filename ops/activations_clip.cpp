// Clip and Dropout.
//
// Clip 1-10 takes min/max as float attributes (1-5 only add the legacy consumed_inputs); 11+ as
// optional one-element inputs of X's dtype (12+ also on integers). y = min(max(x, lo), hi), so
// lo > hi gives hi everywhere, as the spec says. With f32/f16/bf16 data and bounds known when
// planning (constants), the tile is one kClip; otherwise the bounds are copied in broadcast
// (stride 0) and applied with vector max/min, exact for every dtype.
//
// Dropout in inference is the identity with an all-true mask: a tile kernel for 7-9 (mask of
// dtype T) and 10-11 (bool mask). 12+ takes ratio and training_mode as inputs whose values are
// only known at run time, and training draws a random mask: a host kernel. The mask keeps
// element i iff dropout_uniform(seed, i) >= ratio, kept elements scaled by 1 / (1 - ratio).
// Dropout-1 and -6 (host kernel) train unless the is_test attribute is nonzero, with the ratio
// attribute and seed 0; their mask has dtype T (1 kept, 0 dropped); 1 adds consumed_inputs.
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>

#include "ops/activations.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

bool present(const std::vector<TensorDesc>& in, size_t k) {
  return k < in.size() && in[k].dtype != DType::kUndefined;
}
bool present(std::span<const Tensor> in, size_t k) {
  return k < in.size() && in[k].defined();
}

// Inputs k in `ks` must hold one element when present (scalars; [1] is accepted too).
void check_scalar_inputs(const InferContext& c, std::initializer_list<size_t> ks) {
  for (size_t k : ks) {
    if (k >= c.inputs.size() || c.inputs[k].dtype == DType::kUndefined || !c.inputs[k].shape)
      continue;
    const auto shape = to_concrete(*c.inputs[k].shape);
    if (shape && numel(*shape) != 1)
      throw ShapeError(cat(c.op.name(), ": input '", c.op.inputs[k].name,
                           "' must be a scalar, got shape ", to_string(*shape)));
  }
}

// ---- Clip ------------------------------------------------------------------------------------

// Clip works on the storage dtype: max/min are exact in every dtype (f16/bf16 widen exactly),
// so the tile needs no casts.
void clip_attr_kernel(TileBuilder& t) {
  const float lo = t.ctx().attr().f("min"), hi = t.ctx().attr().f("max");
  Buf x = t.copy_in(0, ew_box(t.ctx(), t.tiling(), 0));
  ew_store(t, 0, t.unary(UnaryOp::kClip, x, std::min(lo, hi), hi));
}

void clip_input_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const LaunchContext v = act_view(ctx, {1, 2});
  Buf x = t.copy_in(0, ew_box(v, t.tiling(), 0));
  const DType dt = t.dtype(x);
  auto known = [&](size_t k) { return k < ctx.values.size() ? ctx.values[k] : nullptr; };
  const bool has_lo = present(ctx.inputs, 1), has_hi = present(ctx.inputs, 2);
  // f32, f16 and bf16 bounds are exact as kClip's float parameters.
  const bool f32_bounds = dt == DType::kF32 || dt == DType::kF16 || dt == DType::kBF16;
  if (f32_bounds && (!has_lo || known(1)) && (!has_hi || known(2))) {
    const float inf = std::numeric_limits<float>::infinity();
    const float lo = has_lo ? static_cast<float>(known(1)->at(0)) : -inf;
    const float hi = has_hi ? static_cast<float>(known(2)->at(0)) : inf;
    act_store(t, v, 0, t.unary(UnaryOp::kClip, x, std::min(lo, hi), hi));
    return;
  }
  if (has_lo) x = max(x, t.copy_in(1, ew_box(v, t.tiling(), 1)));
  if (has_hi) x = min(x, t.copy_in(2, ew_box(v, t.tiling(), 2)));
  act_store(t, v, 0, x);
}

void clip_ref(double lo, double hi, std::span<const Tensor> in, Tensor& out) {
  ref_elementwise(in.first(1), out, [lo, hi](const double* v) {
    if (std::isnan(v[0])) return v[0];
    return std::min(std::max(v[0], lo), hi);
  });
}

OpDef clip_inputs(int since, int until, std::vector<DType> types) {
  return def_op("Clip", since, until)
      .input("input", "T")
      .input("min", "T", Arity::kOptional)
      .input("max", "T", Arity::kOptional)
      .output("output", "T")
      .type_constraint("T", std::move(types))
      .trait(kElementwise)
      .describe("output = min(max(input, min), max); absent bounds do not clip")
      .infer([](const InferContext& c) {
        check_scalar_inputs(c, {1, 2});
        return std::vector<TensorType>{c.inputs.at(0)};
      })
      .tiling([](const LaunchContext& c) {
        return elementwise_tiling(act_view(c, {1, 2}));
      })
      .kernel(clip_input_kernel)
      .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
        const double inf = std::numeric_limits<double>::infinity();
        clip_ref(present(in, 1) ? in[1].at(0) : -inf, present(in, 2) ? in[2].at(0) : inf, in,
                 out[0]);
      });
}

// ---- Dropout ---------------------------------------------------------------------------------

// Output 0 is X; output 1 (the mask) has X's shape and dtype `mask`.
std::vector<TensorType> infer_dropout(const InferContext& c, DType mask) {
  check_scalar_inputs(c, {1, 2});
  const TensorType& x = c.inputs.at(0);
  return {x, TensorType{mask == DType::kUndefined ? x.dtype : mask, x.shape}};
}

// Identity; the mask (when the node asks for it) is all ones.
void dropout_identity_kernel(TileBuilder& t) {
  Buf x = t.copy_in(0, ew_box(t.ctx(), t.tiling(), 0));
  ew_store(t, 0, x);
  if (t.ctx().outputs.size() > 1)
    ew_store(t, 1, t.duplicate(t.ctx().outputs[1].dtype, t.dims(x), 1.0));
}

// A uniform double in [0, 1) for element i: splitmix64 of (seed, i), top 53 bits. Counter-based,
// so the mask does not depend on how the work is split.
double dropout_uniform(int64_t seed, int64_t i) {
  uint64_t z = static_cast<uint64_t>(seed) + 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1p-53;
}

struct DropoutMode {
  bool training = false;
  double ratio = 0.5;
};

// Dropout-1 and -6 (`legacy`) read is_test and ratio from attributes, 12+ from inputs 1 and 2.
DropoutMode dropout_mode(const std::string& op, bool legacy, const Attrs& a,
                         std::span<const Tensor> in) {
  DropoutMode m;
  if (legacy) {
    m.training = a.i("is_test") == 0;
    m.ratio = a.f("ratio");
  } else {
    m.training = present(in, 2) && in[2].numel() > 0 && in[2].at(0) != 0;
    if (present(in, 1) && in[1].numel() > 0) m.ratio = in[1].at(0);
  }
  if (m.training && !(m.ratio >= 0 && m.ratio < 1))
    throw ShapeError(cat(op, ": ratio must be in [0, 1) in training mode, got ", m.ratio));
  return m;
}

double widen(float v) {
  return v;
}
double widen(double v) {
  return v;
}
double widen(f16 v) {
  return f16_to_f32(v);
}
double widen(bf16 v) {
  return bf16_to_f32(v);
}
template <typename T>
T narrow(double v) {
  if constexpr (std::is_same_v<T, f16>) {
    return f32_to_f16(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bf16>) {
    return f32_to_bf16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// y[i] = keep[i] ? x[i] * scale : 0 (computed in double, rounded once).
template <typename T>
void dropout_scale(const T* x, const uint8_t* keep, double scale, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = keep[i] ? narrow<T>(widen(x[i]) * scale) : T{};
}

bool dropout_legacy(const OpDef& op) {
  return op.since < 7;
}

void dropout_host(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const bool legacy = dropout_legacy(*ctx.op);
  const DropoutMode m = dropout_mode(ctx.op->name(), legacy, ctx.attr(), in);
  const Tensor& x = in[0];
  const int64_t n = x.numel();
  // The mask: written in place when it is a bool output, else built here (and then written to a
  // mask output of dtype T).
  const bool bool_mask = out.size() > 1 && out[1].dtype() == DType::kBool;
  std::vector<uint8_t> own_mask;
  uint8_t* mask = nullptr;
  if (bool_mask) {
    mask = out[1].data_as<uint8_t>();
  } else if (m.training || out.size() > 1) {
    own_mask.resize(static_cast<size_t>(n));
    mask = own_mask.data();
  }
  auto write_mask = [&] {
    if (out.size() > 1 && !bool_mask)
      for (int64_t i = 0; i < n; ++i) out[1].set(i, mask[i]);
  };
  if (!m.training) {
    if (n > 0) std::memcpy(out[0].data(), x.data(), x.nbytes());
    if (mask && n > 0) std::memset(mask, 1, static_cast<size_t>(n));
    return write_mask();
  }
  const int64_t seed = legacy ? 0 : ctx.attr().i("seed");
  for (int64_t i = 0; i < n; ++i) mask[i] = dropout_uniform(seed, i) >= m.ratio;
  write_mask();
  const double scale = 1.0 / (1.0 - m.ratio);
  switch (x.dtype()) {
    case DType::kF32:
      return dropout_scale(x.data_as<float>(), mask, scale, out[0].data_as<float>(), n);
    case DType::kF64:
      return dropout_scale(x.data_as<double>(), mask, scale, out[0].data_as<double>(), n);
    case DType::kF16:
      return dropout_scale(x.data_as<f16>(), mask, scale, out[0].data_as<f16>(), n);
    case DType::kBF16:
      return dropout_scale(x.data_as<bf16>(), mask, scale, out[0].data_as<bf16>(), n);
    default:
      throw ShapeError(cat(ctx.op->name(), ": unsupported dtype ", dtype_name(x.dtype())));
  }
}

void dropout_ref(bool legacy, const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const DropoutMode m = dropout_mode("Dropout", legacy, a, in);
  const int64_t seed = a.has("seed") ? a.i("seed") : 0;
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    const bool keep = !m.training || dropout_uniform(seed, i) >= m.ratio;
    out[0].set(i, keep ? in[0].at(i) / (m.training ? 1.0 - m.ratio : 1.0) : 0.0);
    if (out.size() > 1) out[1].set(i, keep ? 1.0 : 0.0);
  }
}

}  // namespace

void register_activations_clip(Registry& r) {
  const std::vector<DType>& fl = float_types();
  r.add(def_op("Clip", 1, 10)
            .input("input", "T")
            .output("output", "T")
            .attr("min", AttrKind::kFloat, AttrValue{-FLT_MAX})
            .attr("max", AttrKind::kFloat, AttrValue{FLT_MAX})
            .type_constraint("T", fl)
            .trait(kElementwise)
            .describe("output = min(max(input, min), max) with float attributes min, max")
            .infer(infer_unary)
            .tiling(elementwise_tiling)
            .kernel(clip_attr_kernel)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              clip_ref(a.f("min"), a.f("max"), in, out[0]);
            }));
  r.add(clip_inputs(11, 11, fl));
  r.add(clip_inputs(12, INT_MAX, numeric_types()));

  for (const auto& [since, until, mask] :
       {std::tuple{7, 9, DType::kUndefined}, std::tuple{10, 11, DType::kBool}}) {
    const DType mask_dtype = mask;
    r.add(def_op("Dropout", since, until)
              .input("data", "T")
              .output("output", "T")
              .output("mask", mask == DType::kBool ? "bool" : "T", Arity::kOptional)
              .attr("ratio", AttrKind::kFloat, AttrValue{0.5f})
              .type_constraint("T", fl)
              .trait(kElementwise)
              .describe("inference: output = data, mask all true (ratio is ignored)")
              .infer([mask_dtype](const InferContext& c) { return infer_dropout(c, mask_dtype); })
              .tiling(elementwise_tiling)
              .kernel(dropout_identity_kernel)
              .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
                dropout_ref(false, a, in, out);
              }));
  }
  for (const int since : {1, 6}) {
    OpDef d = def_op("Dropout", since, since == 1 ? 5 : 6);
    if (since == 1) d.attr("consumed_inputs", AttrKind::kInts, std::vector<int64_t>{});
    d.input("data", "T")
        .output("output", "T")
        .output("mask", "T", Arity::kOptional)
        .attr("is_test", AttrKind::kInt, int64_t{0})
        .attr("ratio", AttrKind::kFloat, AttrValue{0.5f})
        .type_constraint("T", fl)
        .describe("output = data * mask / (1 - ratio) unless is_test, else data with mask all ones")
        .infer([](const InferContext& c) {
          const double ratio = c.attrs.f("ratio");
          if (c.attrs.i("is_test") == 0 && !(ratio >= 0 && ratio < 1))
            throw ShapeError(cat(c.op.name(),
                                 ": ratio must be in [0, 1) in training mode (is_test "
                                 "0), got ",
                                 ratio));
          return infer_dropout(c, DType::kUndefined);
        })
        .host_kernel(dropout_host)
        .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          dropout_ref(true, a, in, out);
        });
    r.add(std::move(d));
  }
  r.add(def_op("Dropout", 12)
            .input("data", "T")
            .input("ratio", "T1", Arity::kOptional)
            .input("training_mode", "bool", Arity::kOptional)
            .output("output", "T")
            .output("mask", "bool", Arity::kOptional)
            .attr("seed", AttrKind::kInt, AttrValue{int64_t{0}})
            .type_constraint("T", fl)
            .type_constraint("T1", fl)
            .describe(
                "output = data * mask / (1 - ratio) when training_mode, else data with mask all "
                "true")
            .infer([](const InferContext& c) { return infer_dropout(c, DType::kBool); })
            .host_kernel(dropout_host)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              dropout_ref(false, a, in, out);
            }));
}

}  // namespace asc

// RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike (1), Bernoulli (15),
// Multinomial (7).
//
// Values come from one generator: mt19937_64 seeded with the `seed` attribute's float bits (a
// fresh random_device seed when absent), uniform doubles in [0, 1) from its top 53 bits, normals
// by Box-Muller. Elements are drawn in row-major order, so a seeded op is deterministic and the
// reference (which draws the same stream) matches the kernel exactly. ONNX leaves the stream
// implementation-defined: values never match another runtime's.
//
// Multinomial: input [batch, classes] of unnormalised log-probabilities; output [batch,
// sample_size] class indices, sampled by inverting the cumulative softmax.
#include <bit>
#include <limits>
#include <numbers>
#include <random>

#include "ops/misc.h"

namespace asc {
namespace {

constexpr float kNoSeed = std::numeric_limits<float>::quiet_NaN();  // seed attribute absent
constexpr int64_t kNoDtype = 0;                                     // dtype attribute absent

class Rng {
 public:
  explicit Rng(float seed)
      : g_(std::isnan(seed) ? std::random_device{}()
                            : static_cast<uint64_t>(std::bit_cast<uint32_t>(seed))) {}
  double uniform() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 g_;
};

const std::vector<DType> kRandomOut = {DType::kF16, DType::kF32, DType::kF64, DType::kBF16};

enum class Dist { kUniform, kNormal };

// ---- RandomUniform / RandomNormal (+Like) ------------------------------------------------------

// Output dtype: the dtype attribute, else (Like ops) the input's dtype.
DType random_dtype(const Attrs& a, DType like, std::string_view op) {
  const int64_t dt = a.i("dtype");
  if (dt == kNoDtype) {
    if (like == DType::kUndefined) return DType::kF32;
    return misc::dtype_attr(static_cast<int64_t>(like), kRandomOut, op, "dtype (input's)");
  }
  return misc::dtype_attr(dt, kRandomOut, op, "dtype");
}

std::vector<TensorType> random_infer(const InferContext& c, bool like) {
  if (like) return {{random_dtype(c.attrs, c.inputs[0].dtype, c.op.type), c.inputs[0].shape}};
  const std::vector<int64_t>& shape = c.attrs.ints("shape");
  for (int64_t d : shape)
    if (d < 0)
      throw ShapeError(cat(c.op.type, ": shape ", to_string(Shape(shape)), " has a negative dim"));
  return {{random_dtype(c.attrs, DType::kUndefined, c.op.type), to_sym(Shape(shape))}};
}

void random_fill(Dist d, const Attrs& a, std::span<Tensor> out) {
  Rng rng(a.f("seed"));
  const double p0 = d == Dist::kUniform ? a.f("low") : a.f("mean");
  const double p1 = d == Dist::kUniform ? a.f("high") : a.f("scale");
  for (int64_t i = 0; i < out[0].numel(); ++i)
    out[0].set(i, d == Dist::kUniform ? p0 + (p1 - p0) * rng.uniform() : p0 + p1 * rng.normal());
}

// ---- Bernoulli ---------------------------------------------------------------------------------

const std::vector<DType>& bernoulli_out() {
  static const std::vector<DType> t = numeric_bool_types();
  return t;
}

std::vector<TensorType> bernoulli_infer(const InferContext& c) {
  const int64_t dt = c.attrs.i("dtype");
  const DType out = dt == kNoDtype ? c.inputs[0].dtype
                                   : misc::dtype_attr(dt, bernoulli_out(), "Bernoulli", "dtype");
  return {{out, c.inputs[0].shape}};
}

// y = 1 where a uniform draw in [0, 1) is below p: p <= 0 never, p >= 1 always.
void bernoulli_run(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  Rng rng(a.f("seed"));
  for (int64_t i = 0; i < in[0].numel(); ++i) out[0].set(i, rng.uniform() < in[0].at(i) ? 1 : 0);
}

// ---- Multinomial -------------------------------------------------------------------------------

std::vector<TensorType> multinomial_infer(const InferContext& c) {
  const DType out =
      misc::dtype_attr(c.attrs.i("dtype"), {DType::kI32, DType::kI64}, "Multinomial", "dtype");
  const int64_t n = c.attrs.i("sample_size");
  if (n < 0) throw ShapeError(cat("Multinomial: sample_size ", n, " must be >= 0"));
  const TensorType& x = c.inputs[0];
  if (!x.shape) return {{out, std::nullopt}};
  if (x.shape->size() != 2)
    throw ShapeError(cat("Multinomial: input ", x.str(), " must be [batch, classes]"));
  return {{out, SymShape{(*x.shape)[0], Dim(n)}}};
}

void multinomial_run(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  Rng rng(a.f("seed"));
  const int64_t batch = in[0].shape()[0], classes = in[0].shape()[1];
  const int64_t n = a.i("sample_size");
  if (classes == 0 && n > 0 && batch > 0)
    throw ShapeError(
        cat("Multinomial: cannot sample from 0 classes (input ", in[0].desc().str(), ")"));
  std::vector<double> cdf(static_cast<size_t>(classes));
  for (int64_t b = 0; b < batch; ++b) {
    double mx = -std::numeric_limits<double>::infinity(), total = 0;
    for (int64_t k = 0; k < classes; ++k) mx = std::max(mx, in[0].at(b * classes + k));
    for (int64_t k = 0; k < classes; ++k)
      cdf[k] = total += std::exp(in[0].at(b * classes + k) - mx);
    for (int64_t s = 0; s < n; ++s) {
      const double u = rng.uniform() * total;
      int64_t k = 0;
      while (k + 1 < classes && cdf[k] <= u) ++k;
      out[0].set(b * n + s, static_cast<double>(k));
    }
  }
}

}  // namespace

void register_misc_random(Registry& r) {
  const std::pair<Dist, bool> kinds[] = {{Dist::kUniform, false},
                                         {Dist::kNormal, false},
                                         {Dist::kUniform, true},
                                         {Dist::kNormal, true}};
  for (const auto& [dist, like] : kinds) {
    const Dist d = dist;
    const bool lk = like;
    const std::string name =
        cat("Random", d == Dist::kUniform ? "Uniform" : "Normal", lk ? "Like" : "");
    OpDef op = def_op(name, 1);
    op.trait(kRandom);
    if (lk) op.input("input", "T1").type_constraint("T1", numeric_bool_types());
    op.output("output", "T")
        .attr("dtype", AttrKind::kInt, lk ? kNoDtype : int64_t{1})
        .attr("seed", AttrKind::kFloat, kNoSeed)
        .type_constraint("T", kRandomOut)
        .describe(cat(d == Dist::kUniform ? "uniform samples in [low, high)"
                                          : "normal samples "
                                            "(mean, scale)",
                      lk ? " shaped like the input" : " of the given shape",
                      "; seeded when seed is set"))
        .infer([lk](const InferContext& c) { return random_infer(c, lk); })
        .host_kernel([d](const LaunchContext& ctx, std::span<const Tensor>, std::span<Tensor> out) {
          random_fill(d, ctx.attr(), out);
        })
        .reference([d](const Attrs& a, std::span<const Tensor>, std::span<Tensor> out) {
          random_fill(d, a, out);
        });
    if (d == Dist::kUniform)
      op.attr("low", AttrKind::kFloat, 0.0f).attr("high", AttrKind::kFloat, 1.0f);
    else
      op.attr("mean", AttrKind::kFloat, 0.0f).attr("scale", AttrKind::kFloat, 1.0f);
    if (!lk) op.attr("shape", AttrKind::kInts);
    r.add(std::move(op));
  }

  r.add(def_op("Bernoulli", 15)
            .trait(kRandom)
            .input("input", "T1")
            .output("output", "T2")
            .attr("dtype", AttrKind::kInt, kNoDtype)
            .attr("seed", AttrKind::kFloat, kNoSeed)
            .type_constraint("T1", float_types())
            .type_constraint("T2", bernoulli_out())
            .describe("output = 1 with probability input, else 0; seeded when seed is set")
            .infer(bernoulli_infer)
            .host_kernel([](const LaunchContext& ctx, std::span<const Tensor> in,
                            std::span<Tensor> out) { bernoulli_run(ctx.attr(), in, out); })
            .reference(bernoulli_run));

  r.add(def_op("Multinomial", 7)
            .trait(kRandom)
            .input("input", "T1")
            .output("output", "T2")
            .attr("dtype", AttrKind::kInt, int64_t{6})
            .attr("sample_size", AttrKind::kInt, int64_t{1})
            .attr("seed", AttrKind::kFloat, kNoSeed)
            .type_constraint("T1", float_types())
            .type_constraint("T2", {DType::kI32, DType::kI64})
            .describe("sample_size class indices per row drawn from softmax(input)")
            .infer(multinomial_infer)
            .host_kernel([](const LaunchContext& ctx, std::span<const Tensor> in,
                            std::span<Tensor> out) { multinomial_run(ctx.attr(), in, out); })
            .reference(multinomial_run));
}

}  // namespace asc

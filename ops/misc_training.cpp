// ai.onnx.preview.training version 1: Adagrad, Adam, Momentum — one optimiser step over n
// tensors.
//
// Input layout: R (learning rate, scalar), T (update count, i64 scalar), then `groups` blocks of
// n tensors each: Adagrad X.., G.., H..; Adam X.., G.., V.., H..; Momentum X.., G.., V...
// Output layout: the updated blocks in order: Adagrad X.., H..; Adam X.., V.., H..; Momentum
// X.., V... Tensor i of every block has X_i's shape.
//
// Per element, with g = norm_coefficient * x + grad:
//   Adagrad:  r = R / (1 + T * decay_factor); h' = h + g^2; x' = x - r * g / (sqrt(h') + eps)
//   Adam:     v' = alpha v + (1 - alpha) g; h' = beta h + (1 - beta) g^2;
//             r = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R;
//             x' = (1 - norm_coefficient_post) (x - r v' / (sqrt(h') + eps))
//   Momentum: b = T > 0 ? beta : 1; v' = alpha v + b g;
//             x' = x - R v' (standard) or x - R (g + alpha v') (nesterov)
#include "ops/misc.h"

namespace asc {
namespace {

using misc::kTrainingDomain;

enum class Optimizer { kAdagrad, kAdam, kMomentum };

struct OptSpec {
  const char* name;
  size_t in_blocks;   // X, G and the state tensors
  size_t out_blocks;  // X and the state tensors
};

OptSpec spec_of(Optimizer o) {
  switch (o) {
    case Optimizer::kAdagrad:
      return {"Adagrad", 3, 2};
    case Optimizer::kAdam:
      return {"Adam", 4, 3};
    default:
      return {"Momentum", 3, 2};
  }
}

// The number of optimised tensors; ShapeError unless the variadic inputs split into blocks of
// equal shapes.
size_t tensor_count(Optimizer o, const std::vector<std::optional<Shape>>& shapes) {
  const OptSpec s = spec_of(o);
  if (shapes.size() < 2 + s.in_blocks || (shapes.size() - 2) % s.in_blocks != 0)
    throw ShapeError(cat(s.name, ": expected R, T and ", s.in_blocks, " blocks of n tensors, got ",
                         shapes.size(), " inputs"));
  const size_t n = (shapes.size() - 2) / s.in_blocks;
  for (size_t k : {0, 1})
    if (shapes[k] && numel(*shapes[k]) != 1)
      throw ShapeError(
          cat(s.name, ": ", k == 0 ? "R" : "T", " must be a scalar, got ", to_string(*shapes[k])));
  for (size_t i = 0; i < n; ++i)
    for (size_t b = 1; b < s.in_blocks; ++b) {
      const auto &x = shapes[2 + i], &y = shapes[2 + b * n + i];
      if (x && y && *x != *y)
        throw ShapeError(cat(s.name, ": input ", 2 + b * n + i, " ", to_string(*y),
                             " must have the shape of X", i, " ", to_string(*x)));
    }
  return n;
}

std::vector<TensorType> optimizer_infer(const InferContext& c, Optimizer o) {
  std::vector<std::optional<Shape>> shapes;
  for (const auto& t : c.inputs) shapes.push_back(misc::concrete(t));
  const size_t n = tensor_count(o, shapes);
  std::vector<TensorType> out;
  for (size_t b = 0; b < spec_of(o).out_blocks; ++b)
    for (size_t i = 0; i < n; ++i) out.push_back(c.inputs[2 + i]);
  return out;
}

// One optimiser step in double; the kernel and the reference differ only in how they walk the
// tensors, so both call this per element.
struct Step {
  Optimizer o;
  const Attrs& a;
  double r = 0;
  int64_t t = 0;
  bool nesterov = false;

  // Updates x and the state s0 (h for Adagrad, v for Adam/Momentum) and s1 (h for Adam).
  void operator()(double& x, double g, double& s0, double& s1) const {
    switch (o) {
      case Optimizer::kAdagrad: {
        const double gr = a.f("norm_coefficient") * x + g;
        const double lr = r / (1.0 + static_cast<double>(t) * a.f("decay_factor"));
        s0 += gr * gr;
        x -= lr * gr / (std::sqrt(s0) + a.f("epsilon"));
        break;
      }
      case Optimizer::kAdam: {
        const double alpha = a.f("alpha"), beta = a.f("beta");
        const double gr = a.f("norm_coefficient") * x + g;
        s0 = alpha * s0 + (1 - alpha) * gr;
        s1 = beta * s1 + (1 - beta) * gr * gr;
        const double td = static_cast<double>(t);
        const double lr =
            t > 0 ? r * std::sqrt(1 - std::pow(beta, td)) / (1 - std::pow(alpha, td)) : r;
        x = (1 - a.f("norm_coefficient_post")) * (x - lr * s0 / (std::sqrt(s1) + a.f("epsilon")));
        break;
      }
      default: {
        const double gr = a.f("norm_coefficient") * x + g;
        const double b = t > 0 ? a.f("beta") : 1.0;
        s0 = a.f("alpha") * s0 + b * gr;
        x -= nesterov ? r * (gr + a.f("alpha") * s0) : r * s0;
        break;
      }
    }
  }
};

Step make_step(Optimizer o, const Attrs& a, std::span<const Tensor> in) {
  Step s{o, a};
  const OptSpec sp = spec_of(o);
  s.r = misc::scalar_of(in[0], sp.name, "R");
  s.t = misc::int_scalar_of(in[1], sp.name, "T");
  if (o == Optimizer::kMomentum) {
    const std::string& mode = a.s("mode");
    if (mode != "standard" && mode != "nesterov")
      throw ShapeError(cat("Momentum: mode '", mode, "' must be 'standard' or 'nesterov'"));
    s.nesterov = mode == "nesterov";
  }
  return s;
}

void optimizer_run(Optimizer o, const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  std::vector<std::optional<Shape>> shapes;
  for (const auto& t : in) shapes.push_back(t.shape());
  const size_t n = tensor_count(o, shapes);
  const Step step = make_step(o, a, in);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& x = in[2 + i];
    const Tensor& g = in[2 + n + i];
    const Tensor& s0 = in[2 + 2 * n + i];
    const Tensor* s1 = o == Optimizer::kAdam ? &in[2 + 3 * n + i] : nullptr;
    for (int64_t e = 0; e < x.numel(); ++e) {
      double xv = x.at(e), v0 = s0.at(e), v1 = s1 ? s1->at(e) : 0.0;
      step(xv, g.at(e), v0, v1);
      out[i].set(e, xv);
      out[n + i].set(e, v0);
      if (s1) out[2 * n + i].set(e, v1);
    }
  }
}

}  // namespace

void register_misc_training(Registry& r) {
  const std::vector<DType> kFloats = {DType::kF32, DType::kF64};
  const std::pair<Optimizer, const char*> ops[] = {
      {Optimizer::kAdagrad,
       "one Adagrad step: X, H <- X - r g / (sqrt(H + g^2) + epsilon), H + g^2"},
      {Optimizer::kAdam, "one Adam step with bias-corrected learning rate over X, V, H"},
      {Optimizer::kMomentum, "one momentum step (standard or nesterov) over X, V"}};
  for (const auto& [o, doc] : ops) {
    const Optimizer opt = o;
    OpDef d = def_op(spec_of(opt).name, 1, INT_MAX, kTrainingDomain);
    d.input("R", "T1")
        .input("T", "i64")
        .input("inputs", "T3", Arity::kVariadic)
        .output("outputs", "T3", Arity::kVariadic)
        .type_constraint("T1", kFloats)
        .type_constraint("T3", kFloats)
        .describe(doc)
        .infer([opt](const InferContext& c) { return optimizer_infer(c, opt); })
        .host_kernel([opt](const LaunchContext& ctx, std::span<const Tensor> in,
                           std::span<Tensor> out) { optimizer_run(opt, ctx.attr(), in, out); })
        .reference([opt](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          optimizer_run(opt, a, in, out);
        });
    switch (opt) {
      case Optimizer::kAdagrad:
        d.attr("decay_factor", AttrKind::kFloat, 0.0f)
            .attr("epsilon", AttrKind::kFloat, 1e-6f)
            .attr("norm_coefficient", AttrKind::kFloat, 0.0f);
        break;
      case Optimizer::kAdam:
        d.attr("alpha", AttrKind::kFloat, 0.9f)
            .attr("beta", AttrKind::kFloat, 0.999f)
            .attr("epsilon", AttrKind::kFloat, 1e-6f)
            .attr("norm_coefficient", AttrKind::kFloat, 0.0f)
            .attr("norm_coefficient_post", AttrKind::kFloat, 0.0f);
        break;
      default:
        d.attr("alpha", AttrKind::kFloat)
            .attr("beta", AttrKind::kFloat)
            .attr("mode", AttrKind::kString)
            .attr("norm_coefficient", AttrKind::kFloat);
        break;
    }
    r.add(std::move(d));
  }
}

}  // namespace asc

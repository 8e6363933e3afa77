#include "ops/op_cases.h"

#include <cmath>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <stdexcept>

#include "registry/strings.h"

namespace asc::test {

std::string OpCase::name() const {
  std::string s = op + "/";
  s += inputs.empty() ? "none" : std::string(dtype_name(inputs[0].dtype));
  s += "/";
  for (size_t i = 0; i < inputs.size(); ++i) s += cat(i ? "x" : "", to_string(inputs[i].shape));
  if (!label.empty()) s += cat("/", label);
  return s;
}

InputSpec in(DType dt, Shape shape, double lo, double hi) {
  InputSpec s;
  s.dtype = dt;
  s.shape = std::move(shape);
  s.lo = lo;
  s.hi = hi;
  s.integral = dtype_is_integer(dt) || dt == DType::kBool;
  if (dt == DType::kBool) {
    s.lo = 0;
    s.hi = 1;
  }
  return s;
}

InputSpec in_int(DType dt, Shape shape, double lo, double hi) {
  InputSpec s = in(dt, std::move(shape), lo, hi);
  s.integral = true;
  return s;
}

InputSpec fixed_tensor(Tensor t) {
  static std::deque<Tensor> store;  // stable addresses for InputSpec::fixed
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  store.push_back(std::move(t));
  InputSpec s;
  s.dtype = store.back().dtype();
  s.shape = store.back().shape();
  s.fixed = &store.back();
  return s;
}

InputSpec fixed_i64(const std::vector<int64_t>& values, std::optional<Shape> shape) {
  Tensor t(DType::kI64, shape ? *shape : Shape{static_cast<int64_t>(values.size())});
  if (t.numel() != static_cast<int64_t>(values.size()))
    throw std::invalid_argument("fixed_i64: values do not fill the shape");
  for (size_t i = 0; i < values.size(); ++i) t.data_as<int64_t>()[i] = values[i];
  return fixed_tensor(std::move(t));
}

InputSpec absent() {
  InputSpec s;
  s.dtype = DType::kUndefined;
  return s;
}

const std::vector<OpCase>& all_op_cases() {
  static const std::vector<OpCase> all = [] {
    std::vector<OpCase> v;
    for (auto* family :
         {cases_elementwise, cases_transpose, cases_softmax, cases_reduce, cases_matmul,
          cases_movement, cases_indexing, cases_normalization, cases_nn, cases_activations,
          cases_logical, cases_reduce_more, cases_misc, cases_contrib, cases_attention, cases_fused,
          cases_legacy, cases_sequence}) {
      auto c = family();
      v.insert(v.end(), c.begin(), c.end());
    }
    return v;
  }();
  return all;
}

std::vector<Tensor> make_inputs(const OpCase& c) {
  std::mt19937_64 rng(std::hash<std::string>{}(c.name()));
  std::vector<Tensor> ins;
  for (const auto& s : c.inputs) {
    if (s.fixed) {
      ins.push_back(*s.fixed);
      continue;
    }
    if (s.dtype == DType::kUndefined) {  // absent optional input
      ins.emplace_back();
      continue;
    }
    Tensor t(s.dtype, s.shape);
    std::uniform_real_distribution<double> u(s.lo, s.hi);
    for (int64_t i = 0; i < t.numel(); ++i) {
      double v = u(rng);
      if (s.integral) v = std::floor(v + 0.5);
      t.set(i, v);
    }
    ins.push_back(std::move(t));
  }
  return ins;
}

void default_tolerance(DType dt, double& atol, double& rtol) {
  switch (dt) {
    case DType::kF16:
      atol = 1e-3;
      rtol = 2e-3;
      break;
    case DType::kBF16:
      atol = 1e-2;
      rtol = 1.6e-2;
      break;
    case DType::kF32:
      atol = 1e-5;
      rtol = 1e-5;
      break;
    case DType::kF64:
      atol = 1e-12;
      rtol = 1e-12;
      break;
    default:
      atol = 0;
      rtol = 0;
      break;  // integers and bool: exact
  }
}

std::string compare(const Tensor& got, const Tensor& want, double atol, double rtol) {
  if (got.dtype() != want.dtype())
    return "dtype " + std::string(dtype_name(got.dtype())) +
           " != " + std::string(dtype_name(want.dtype()));
  if (got.shape() != want.shape())
    return "shape " + to_string(got.shape()) + " != " + to_string(want.shape());
  if (const TensorList* wl = want.list()) {  // sequences and optionals: element by element
    const TensorList& gl = *got.list();
    if (gl.elem != wl->elem)
      return cat("element dtype ", dtype_name(gl.elem), " != ", dtype_name(wl->elem));
    if (gl.items.size() != wl->items.size())
      return cat(gl.items.size(), " elements != ", wl->items.size());
    for (size_t k = 0; k < gl.items.size(); ++k) {
      double a = atol, r = rtol;
      default_tolerance(wl->items[k].dtype(), a, r);
      const std::string diff = compare(gl.items[k], wl->items[k], a, r);
      if (!diff.empty()) return cat("element ", k, ": ", diff);
    }
    return "";
  }
  if (want.dtype() == DType::kString) {
    for (int64_t i = 0; i < got.numel(); ++i)
      if (got.strings()[i] != want.strings()[i])
        return cat("string ", i, ": got '", got.strings()[i], "', want '", want.strings()[i], "'");
    return "";
  }
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.at(i), w = want.at(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)))
      return "element " + std::to_string(i) + ": got " + std::to_string(g) + ", want " +
             std::to_string(w);
  }
  return "";
}

}  // namespace asc::test

#include "runtime/generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

std::string past_name(int64_t layer, int kv) {
  return cat("past_key_values.", layer, kv == 0 ? ".key" : ".value");
}
std::string present_name(int64_t layer, int kv) {
  return cat("present.", layer, kv == 0 ? ".key" : ".value");
}

const Value* find_value(const Graph& g, const std::vector<int>& ids, const std::string& name) {
  for (int v : ids)
    if (g.values[v].name == name) return &g.values[v];
  return nullptr;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool Generator::is_decoder_with_past(const Graph& g) {
  return find_value(g, g.inputs, "input_ids") && find_value(g, g.inputs, past_name(0, 0)) &&
         find_value(g, g.outputs, "logits") && find_value(g, g.outputs, present_name(0, 0));
}

Generator::Generator(const Model& model, GeneratorOptions options)
    : model_(model), options_(options), rng_(options.sampling.seed) {
  const Graph& g = model.graph();
  if (!is_decoder_with_past(g))
    throw Error(
        "generation needs a decoder with past: inputs input_ids and past_key_values.N.key/.value, "
        "outputs logits and present.N.key/.value");
  if (options_.max_len < 1) throw Error(cat("max_len must be positive, got ", options_.max_len));
  while (find_value(g, g.inputs, past_name(layers_, 0))) ++layers_;
  for (int v : g.inputs) {
    const std::string& n = g.values[v].name;
    const bool known = n == "input_ids" || n == "attention_mask" || n == "position_ids" ||
                       n.rfind("past_key_values.", 0) == 0;
    if (!known) throw Error(cat("generation: the model has an input '", n, "' it cannot feed"));
  }
  has_mask_ = find_value(g, g.inputs, "attention_mask") != nullptr;
  has_positions_ = find_value(g, g.inputs, "position_ids") != nullptr;
  const TensorType& past = find_value(g, g.inputs, past_name(0, 0))->type;
  if (!past.shape || past.shape->size() != 4 || !(*past.shape)[1].known() ||
      !(*past.shape)[3].known())
    throw Error(cat("generation: ", past_name(0, 0), " must be [batch, kv_heads, past, head_dim] ",
                    "with known kv_heads and head_dim, got ", past.str()));
  kv_dtype_ = past.dtype;
  kv_heads_ = (*past.shape)[1].value();
  head_dim_ = (*past.shape)[3].value();
  for (int64_t l = 0; l < layers_; ++l)
    for (int kv = 0; kv < 2; ++kv) {
      const Value* p = find_value(g, g.inputs, past_name(l, kv));
      if (!p || !find_value(g, g.outputs, present_name(l, kv)))
        throw Error(
            cat("generation: layer ", l, " lacks ", past_name(l, kv), " or ", present_name(l, kv)));
      if (p->type.dtype != kv_dtype_)
        throw Error(cat("generation: ", past_name(l, kv), " is ", p->type.str(), ", layer 0's ",
                        past.str()));
      cache_.emplace_back(kv_dtype_, Shape{1, kv_heads_, options_.max_len, head_dim_});
    }
}

int64_t Generator::run(std::span<const int64_t> ids, RunStats* stats, CostTotals& predicted) {
  const int64_t s = static_cast<int64_t>(ids.size());
  const int64_t past = length_, total = length_ + s;
  if (s == 0) throw Error("generation: no tokens to run");
  if (total > options_.max_len)
    throw Error(cat("generation: ", total, " tokens exceed max_len ", options_.max_len));
  Tensor input_ids(DType::kI64, {1, s}), mask(DType::kI64, {1, total}),
      positions(DType::kI64, {1, s});
  std::copy(ids.begin(), ids.end(), input_ids.data_as<int64_t>());
  std::fill_n(mask.data_as<int64_t>(), total, int64_t{1});
  std::iota(positions.data_as<int64_t>(), positions.data_as<int64_t>() + s, past);

  std::vector<NamedTensor> in, out;
  in.push_back({"input_ids", input_ids});
  if (has_mask_) in.push_back({"attention_mask", mask});
  if (has_positions_) in.push_back({"position_ids", positions});
  // Past and present: rows [0, past) and [0, total) of each cache buffer.
  const Shape strides = {kv_heads_ * options_.max_len * head_dim_, options_.max_len * head_dim_,
                         head_dim_, 1};
  for (int64_t l = 0; l < layers_; ++l)
    for (int kv = 0; kv < 2; ++kv) {
      void* cache = cache_[static_cast<size_t>(2 * l + kv)].data();
      in.push_back({past_name(l, kv),
                    Tensor::strided(kv_dtype_, {1, kv_heads_, past, head_dim_}, strides, cache)});
      out.push_back({present_name(l, kv),
                     Tensor::strided(kv_dtype_, {1, kv_heads_, total, head_dim_}, strides, cache)});
    }
  RunStats local;
  RunStats* st = stats ? stats : model_.predictor() ? &local : nullptr;
  const size_t first = st ? st->steps.size() : 0;
  const std::vector<NamedTensor> result = model_.run(in, out, st);
  if (model_.predictor())
    for (size_t k = first; k < st->steps.size(); ++k) predicted.add(st->steps[k].cost);
  length_ = total;
  const Tensor* logits = nullptr;
  for (const auto& r : result)
    if (r.name == "logits") logits = &r.tensor;
  // [1, s, vocab], or [1, 1, vocab] under ModelOptions::last_logits_only.
  if (!logits || logits->shape().size() != 3 || logits->shape()[0] != 1 ||
      (logits->shape()[1] != s && logits->shape()[1] != 1))
    throw Error(cat("generation: logits must be [1, ", s, ", vocab] or [1, 1, vocab], got ",
                    logits ? logits->desc().str() : std::string("nothing")));
  vocab_ = logits->shape()[2];
  logits_.resize(static_cast<size_t>(vocab_));
  const int64_t row = (logits->shape()[1] - 1) * vocab_;
  for (int64_t i = 0; i < vocab_; ++i)
    logits_[static_cast<size_t>(i)] = static_cast<float>(logits->at(row + i));
  return choose();
}

int64_t Generator::choose() {
  last_token_ = sample_token(logits_, options_.sampling, rng_);
  return last_token_;
}

int64_t Generator::prefill(std::span<const int64_t> prompt) {
  length_ = 0;
  stats_ = {};
  stats_.prompt_tokens = static_cast<int64_t>(prompt.size());
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t token = run(prompt, options_.step_timings ? &stats_.prefill_steps : nullptr,
                            stats_.predicted_prefill);
  stats_.prefill_ms = ms_since(t0);
  return token;
}

int64_t Generator::step() {
  if (last_token_ < 0) throw Error("generation: step() before prefill()");
  const int64_t token = last_token_;
  const auto t0 = std::chrono::steady_clock::now();
  CostTotals predicted;
  const int64_t next = run(std::span<const int64_t>(&token, 1),
                           options_.step_timings ? &stats_.decode_steps : nullptr, predicted);
  stats_.step_ms.push_back(ms_since(t0));
  if (model_.predictor()) {
    stats_.predicted_decode.add(predicted);
    stats_.predicted_step_s.push_back(predicted.seconds(model_.predictor()->clock_hz()));
  }
  return next;
}

std::vector<int64_t> Generator::generate(std::span<const int64_t> prompt, int n_new) {
  std::vector<int64_t> tokens;
  if (n_new <= 0) return tokens;
  tokens.push_back(prefill(prompt));
  while (static_cast<int>(tokens.size()) < n_new) tokens.push_back(step());
  return tokens;
}

int64_t sample_token(std::span<const float> logits, const SamplingOptions& o,
                     std::mt19937_64& rng) {
  if (logits.empty()) throw Error("sampling: empty logits");
  if (o.temperature <= 0.0f) return std::max_element(logits.begin(), logits.end()) - logits.begin();
  std::vector<int64_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  size_t keep = order.size();
  if (o.top_k > 0) keep = std::min(keep, static_cast<size_t>(o.top_k));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  order.resize(keep);
  std::vector<double> p(keep);
  const double top = logits[order[0]];
  double sum = 0;
  for (size_t i = 0; i < keep; ++i)
    sum += p[i] = std::exp((logits[order[i]] - top) / o.temperature);
  if (o.top_p < 1.0f) {  // nucleus: the smallest prefix reaching top_p
    double acc = 0;
    size_t n = 0;
    while (n < keep && acc < o.top_p * sum) acc += p[n++];
    keep = std::max<size_t>(n, 1);
    sum = std::accumulate(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(keep), 0.0);
  }
  double u = std::uniform_real_distribution<double>(0.0, sum)(rng);
  for (size_t i = 0; i < keep; ++i) {
    if (u < p[i]) return order[i];
    u -= p[i];
  }
  return order[keep - 1];
}

}  // namespace asc

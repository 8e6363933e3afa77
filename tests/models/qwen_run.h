// Helpers to write a Qwen model into a temp folder, load it with asc's importer and run prefill
// and decode steps with explicit inputs.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "importers/onnx/onnx_importer.h"
#include "models/qwen_builder.h"
#include "runtime/model.h"

namespace asc::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "asc_qwen_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& rel) const { return (path_ / rel).string(); }

 private:
  std::filesystem::path path_;
};

inline models::QwenOptions tiny_options(models::ElemType t,
                                        models::QwenForm form = models::QwenForm::kOptimum) {
  models::QwenOptions o;
  o.config = models::qwen_config("tiny");
  o.dtype = t;
  o.form = form;
  o.seed = 7;
  return o;
}

// The tiny f32 optimum-form model (tiny_options), written once per test process into a folder
// removed at exit: for the suites that all read the same model.
inline const std::string& tiny_model_path() {
  static const TempDir dir;
  static const std::string path = [] {
    const std::string p = dir / "tiny.onnx";
    models::write_qwen(tiny_options(models::ElemType::kF32), p);
    return p;
  }();
  return path;
}

inline DType asc_dtype(models::ElemType t) {
  return t == models::ElemType::kF32   ? DType::kF32
         : t == models::ElemType::kF16 ? DType::kF16
                                       : DType::kBF16;
}

// One batch of a step: ids/positions [b][s], mask [b][past + s], past per layer (empty: past 0).
struct QwenStep {
  std::vector<std::vector<int64_t>> ids, positions, mask;
  std::vector<Tensor> past;  // 2 per layer (key, value), [b, kv, past, d]
};

struct QwenOut {
  Tensor logits;                // [b, s, vocab]
  std::vector<Tensor> present;  // 2 per layer
};

inline Tensor i64_tensor(const std::vector<std::vector<int64_t>>& rows) {
  const int64_t b = static_cast<int64_t>(rows.size()), s = static_cast<int64_t>(rows[0].size());
  Tensor t(DType::kI64, {b, s});
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < s; ++j) t.data_as<int64_t>()[i * s + j] = rows[i][j];
  return t;
}

inline QwenOut run_step(const Model& m, const models::QwenOptions& o, const QwenStep& step,
                        bool with_positions = true) {
  const auto& c = o.config;
  const int64_t b = static_cast<int64_t>(step.ids.size());
  std::vector<NamedTensor> in = {{"input_ids", i64_tensor(step.ids)},
                                 {"attention_mask", i64_tensor(step.mask)}};
  if (with_positions) in.push_back({"position_ids", i64_tensor(step.positions)});
  for (int64_t l = 0; l < c.layers; ++l)
    for (int kv = 0; kv < 2; ++kv) {
      const std::string name = models::str_cat("past_key_values.", l, kv == 0 ? ".key" : ".value");
      Tensor t = step.past.empty() ? Tensor(asc_dtype(o.dtype), {b, c.kv_heads, 0, c.head_dim})
                                   : step.past[static_cast<size_t>(2 * l + kv)];
      in.push_back({name, t});
    }
  std::vector<NamedTensor> out = m.run(in);
  QwenOut r;
  r.logits = out.at(0).tensor;
  for (size_t i = 1; i < out.size(); ++i) r.present.push_back(out[i].tensor);
  return r;
}

inline std::unique_ptr<Model> load(const std::string& path) {
  return std::make_unique<Model>(import_onnx_file(path), ModelOptions{2, "cpu", true});
}

// The logits row [vocab] of batch i, position j.
inline std::vector<double> logits_row(const Tensor& logits, int64_t i, int64_t j) {
  const int64_t s = logits.shape()[1], v = logits.shape()[2];
  std::vector<double> r(static_cast<size_t>(v));
  for (int64_t x = 0; x < v; ++x) r[static_cast<size_t>(x)] = logits.at((i * s + j) * v + x);
  return r;
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

inline double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double x : a) m = std::max(m, std::abs(x));
  return m;
}

inline int64_t argmax(const std::vector<double>& a) {
  return std::max_element(a.begin(), a.end()) - a.begin();
}

// Tolerance on logits relative to their largest magnitude, per dtype.
inline double logits_tolerance(models::ElemType t) {
  return t == models::ElemType::kF32 ? 1e-4 : t == models::ElemType::kF16 ? 2e-2 : 8e-2;
}

}  // namespace asc::test

// Opsets 18..23 against ONNX Runtime 1.30: every op case of the table (tests/ops) at opset 18 or
// later (and the cases of ONNX Runtime's leniency, labelled "ort_lenient/") becomes a node of a
// small model asc writes itself, one model per op version; the model
// runs through asc's importer and runtime and through ONNX Runtime (tools/ort/bridge.mjs), and
// every output is compared. Cases ONNX Runtime's CPU provider has no kernel for (bf16 and most
// f16 inputs, sequences) are left out by dtype; each op version keeps at least one compared case.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/onnx_internal.h"
#include "importers/onnx/onnx_schemas.h"
#include "ops/op_cases.h"
#include "ops/ops.h"
#include "registry/strings.h"
#include "runtime/model.h"
#include "runtime/op_runner.h"
#include "tools/check_ort.h"

namespace asc {
namespace {

using test::OpCase;

// ONNX Runtime's CPU kernels take these dtypes for most ops; f16 only where listed.
bool ort_dtype(DType t, const std::string& op) {
  static const std::set<std::string> kF16Ops = {"Cast", "CastLike"};
  if (t == DType::kF16) return kF16Ops.count(op) > 0;
  return t != DType::kBF16 && t != DType::kSequence && t != DType::kOptional;
}

bool has_empty_input(const OpCase& c) {
  for (const auto& in : c.inputs)
    if (in.dtype != DType::kUndefined && numel(in.shape) == 0) return true;
  return false;
}

bool has_attr(const OpCase& c, const char* name, const std::string& value) {
  return c.attrs.has(name) && c.attrs.s(name) == value;
}

// A pad of the case (input 1) larger than its dim of the data.
bool pad_exceeds_dim(const OpCase& c, int64_t slack) {
  const Tensor* pads = c.inputs.size() > 1 ? c.inputs[1].fixed : nullptr;
  if (!pads) return false;
  const Shape& x = c.inputs[0].shape;
  const int64_t n = pads->numel() / 2;
  for (int64_t i = 0; i < pads->numel(); ++i) {
    const size_t d = static_cast<size_t>(i % n) + (x.size() - static_cast<size_t>(n));
    if (static_cast<int64_t>(pads->at(i)) > x[d] - slack) return true;
  }
  return false;
}

bool wide_unsigned(const OpCase& c) {
  return c.inputs[0].dtype == DType::kU32 || c.inputs[0].dtype == DType::kU64;
}

bool empty_bool(const OpCase& c) {
  return c.inputs[0].dtype == DType::kBool && has_empty_input(c);
}

bool any_string(const OpCase& c, bool (*pred)(const std::string&)) {
  const Tensor* t = c.inputs.empty() ? nullptr : c.inputs[0].fixed;
  if (!t || t->dtype() != DType::kString) return false;
  for (int64_t i = 0; i < t->numel(); ++i)
    if (pred(t->strings()[i])) return true;
  return false;
}

// Cases where ONNX Runtime 1.30 has no kernel or asc and it legitimately differ; each is checked
// against asc's naive reference in tests/ops instead.
struct OrtGap {
  const char* op;
  bool (*applies)(const OpCase&);
  const char* why;
};
const OrtGap kOrtGaps[] = {
    {"ReduceMax", wide_unsigned, "ONNX Runtime's ReduceMax has no u32 or u64 kernel"},
    {"ReduceMin", wide_unsigned, "ONNX Runtime's ReduceMin has no u32 or u64 kernel"},
    {"ReduceMax", empty_bool, "ONNX Runtime refuses an empty bool ReduceMax (the spec: false)"},
    {"ReduceMin", empty_bool, "ONNX Runtime refuses an empty bool ReduceMin (the spec: true)"},
    {"Col2Im", [](const OpCase& c) { return c.inputs[0].dtype != DType::kF32; },
     "ONNX Runtime's Col2Im has an f32 kernel only"},
    {"DequantizeLinear", [](const OpCase& c) { return c.attrs.has("output_dtype"); },
     "ONNX Runtime 1.30's DequantizeLinear-23 fails when output_dtype is not the scale's dtype"},
    {"Attention",
     [](const OpCase& c) {
       return c.attrs.has("qk_matmul_output_mode") && c.attrs.i("qk_matmul_output_mode") == 2 &&
              c.inputs.size() > 3 && c.inputs[3].dtype == DType::kBool;
     },
     "qk_matmul_output mode 2 holds a false bool mask entry as -inf in asc (the spec's bias), the "
     "lowest finite float in ONNX Runtime"},
    {"StringSplit",
     [](const OpCase& c) {
       return c.attrs.has("delimiter") && !c.attrs.s("delimiter").empty() &&
              any_string(c, [](const std::string& e) { return e.empty(); });
     },
     "an empty element split at a delimiter is one empty substring in the spec's reference "
     "(Python's str.split) and in asc, none in ONNX Runtime"},
    {"StringSplit",
     [](const OpCase& c) {
       return (!c.attrs.has("delimiter") || c.attrs.s("delimiter").empty()) &&
              c.attrs.has("maxsplit") && c.attrs.i("maxsplit") >= 0;
     },
     "the rest after maxsplit whitespace splits keeps its trailing whitespace in the spec's "
     "reference and in asc; ONNX Runtime strips it"},
    {"Gelu", [](const OpCase& c) { return c.inputs[0].dtype == DType::kF64; },
     "ONNX Runtime runs Gelu-20 as its function body, and its Erf has no f64 kernel"},
    {"GroupNormalization", has_empty_input,
     "ONNX Runtime runs GroupNormalization as its function body, whose Reshape fails on an empty "
     "input"},
    {"ReduceMean", has_empty_input,
     "a mean over an empty set is undefined in the spec: asc gives NaN (0 / 0), ONNX Runtime 0"},
    {"Pad", [](const OpCase& c) { return has_attr(c, "mode", "reflect") && pad_exceeds_dim(c, 1); },
     "ONNX Runtime refuses reflect pads of a dim's size or more; asc reflects again, as numpy"},
    {"Pad", [](const OpCase& c) { return has_attr(c, "mode", "wrap") && pad_exceeds_dim(c, 0); },
     "ONNX Runtime's wrap mode reads zeros beyond one turn of the dim; asc wraps again, as numpy"},
    {"Resize",
     [](const OpCase& c) {
       if (!c.attrs.has("axes")) return false;
       const auto& axes = c.attrs.ints("axes");
       return std::any_of(axes.begin(), axes.end(), [](int64_t a) { return a < 0; });
     },
     "ONNX Runtime 1.30 leaves the dim of a negative Resize-18 axes entry unresized (the spec "
     "takes [-r, r-1])"},
    {"Resize",
     [](const OpCase& c) {
       const Tensor* sizes = c.inputs.size() > 3 ? c.inputs[3].fixed : nullptr;
       if (!has_attr(c, "coordinate_transformation_mode", "pytorch_half_pixel") || !sizes)
         return false;
       for (int64_t d = 0; d < sizes->numel(); ++d)
         if (sizes->at(d) == 1 && c.inputs[0].shape[static_cast<size_t>(d)] != 1) return true;
       return false;
     },
     "pytorch_half_pixel with a resized length of 1: asc maps to -0.5 as the ONNX reference "
     "implementation does, ONNX Runtime to 0 as the spec's text says (they differ for cubic)"},
    {"Resize",
     [](const OpCase& c) {
       return has_attr(c, "mode", "cubic") &&
              has_attr(c, "coordinate_transformation_mode", "tf_crop_and_resize");
     },
     "cubic tf_crop_and_resize: ONNX Runtime 1.30's values differ from asc's and its reference "
     "on some crops (one random case of two), cause not found yet"},
};

const char* ort_gap(const OpCase& c) {
  for (const OrtGap& g : kOrtGaps)
    if (c.op == g.op && g.applies(c)) return g.why;
  return nullptr;
}

bool is_4bit(DType t) {
  return t == DType::kInt4 || t == DType::kUInt4;
}

// The op versions the comparison runs: opset 18 and later, default domain, ORT dtypes; and the
// inputs made once per case.
struct Group {
  std::string op;
  int opset = 0;
  std::vector<const OpCase*> cases;
};

std::vector<Group> groups() {
  std::map<std::pair<std::string, int>, Group> by;
  for (const OpCase& c : test::all_op_cases()) {
    const bool lenient = c.label.rfind("ort_lenient/", 0) == 0;  // tests/ops/cases_legacy.cpp
    if (!c.domain.empty() || (c.opset < 18 && !lenient)) continue;
    bool ok = true;
    for (const auto& in : c.inputs) ok = ok && ort_dtype(in.dtype, c.op);
    for (const auto& [name, v] : c.attrs.all())  // a dtype attribute naming bf16 (Cast's to)
      ok = ok && !(std::holds_alternative<int64_t>(v) && name == "to" &&
                   std::get<int64_t>(v) == static_cast<int64_t>(DType::kBF16));
    if (!ok || ort_gap(c)) continue;
    Group& g = by[{c.op, c.opset}];
    g.op = c.op;
    g.opset = c.opset;
    g.cases.push_back(&c);
  }
  std::vector<Group> out;
  for (auto& [k, g] : by) out.push_back(std::move(g));
  return out;
}

void set_attr(onnx::NodeProto& n, const std::string& name, const AttrValue& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  using AP = onnx::AttributeProto;
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, int64_t>) {
          a->set_type(AP::INT);
          a->set_i(x);
        } else if constexpr (std::is_same_v<X, float>) {
          a->set_type(AP::FLOAT);
          a->set_f(x);
        } else if constexpr (std::is_same_v<X, std::string>) {
          a->set_type(AP::STRING);
          a->set_s(x);
        } else if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
          a->set_type(AP::INTS);
          for (int64_t e : x) a->add_ints(e);
        } else if constexpr (std::is_same_v<X, std::vector<float>>) {
          a->set_type(AP::FLOATS);
          for (float e : x) a->add_floats(e);
        } else if constexpr (std::is_same_v<X, std::vector<std::string>>) {
          a->set_type(AP::STRINGS);
          for (const auto& e : x) a->add_strings(e);
        } else {
          a->set_type(AP::TENSOR);
          onnx_import::tensor_to_proto(x, *a->mutable_t());
        }
      },
      v);
}

void set_type(onnx::ValueInfoProto& vi, const Tensor& t) {
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(t.dtype()));
  auto* shape = tt->mutable_shape();
  for (int64_t d : t.shape()) shape->add_dim()->set_dim_value(d);
}

// One model holding every case of the group as its own node; `feeds` receives the graph inputs,
// `want` the reference's outputs by name (they fix the output count and dtypes).
struct Written {
  onnx::ModelProto model;
  std::vector<NamedTensor> feeds;
  std::map<std::string, Tensor> reference;
};

Written write_group(const Group& g) {
  Written w;
  w.model.set_ir_version(9);
  auto* o = w.model.add_opset_import();
  o->set_domain("");
  o->set_version(g.opset);
  auto& graph = *w.model.mutable_graph();
  graph.set_name(cat(g.op, "_", g.opset));
  const OpDef& def = global_registry().lookup("", g.op, g.opset);
  for (size_t k = 0; k < g.cases.size(); ++k) {
    const OpCase& c = *g.cases[k];
    const std::vector<Tensor> inputs = test::make_inputs(c);
    const std::vector<Tensor> want = run_reference(def, c.attrs, inputs);
    auto* n = graph.add_node();
    n->set_op_type(g.op);
    n->set_name(cat("case", k));
    size_t given = inputs.size();  // trailing absent inputs are left out, as exporters do
    while (given > 0 && !inputs[given - 1].defined()) --given;
    for (size_t j = 0; j < given; ++j) {
      if (!inputs[j].defined()) {
        n->add_input("");
        continue;
      }
      const std::string name = cat("in", k, "_", j);
      n->add_input(name);
      // Shape-like values (axes, pads, sizes) stay constants, as do 4-bit tensors (the Node
      // binding cannot pass them).
      if (c.inputs[j].fixed || is_4bit(inputs[j].dtype())) {
        auto* t = graph.add_initializer();
        onnx_import::tensor_to_proto(inputs[j], *t);
        t->set_name(name);
        continue;
      }
      auto* vi = graph.add_input();
      vi->set_name(name);
      set_type(*vi, inputs[j]);
      w.feeds.push_back({name, inputs[j]});
    }
    for (const auto& [name, v] : c.attrs.all()) set_attr(*n, name, v);
    for (size_t i = 0; i < want.size(); ++i) {
      const std::string name = cat("out", k, "_", i);
      n->add_output(name);
      auto* vi = graph.add_output();
      vi->set_name(name);
      set_type(*vi, want[i]);
      w.reference[name] = want[i];
    }
  }
  return w;
}

// asc-check's tolerances: f32/f64 atol 1e-4 and rtol 1e-3, f16 atol 1e-2, integers and bools exact.
void tolerance(DType t, double& atol, double& rtol) {
  test::default_tolerance(t, atol, rtol);
  if (t == DType::kF32 || t == DType::kF64) {
    atol = std::max(atol, 1e-4);
    rtol = std::max(rtol, 1e-3);
  }
}

// Versions ONNX Runtime 1.30's CPU provider registers no kernel for. Each only widened the type
// lists (SchemaChange::kTypes), so ONNX Runtime runs the same nodes at the opset before it.
int ort_opset(const Group& g) {
  static const std::set<std::pair<std::string, int>> kMissing = {{"MaxRoiPool", 22},
                                                                 {"RoiAlign", 22}};
  if (!kMissing.count({g.op, g.opset})) return g.opset;
  for (const SchemaVersion& s : onnx_schemas_after_1_12())
    if (s.op == g.op && s.since == g.opset) {
      EXPECT_EQ(s.change, SchemaChange::kTypes) << g.op;
    }
  return g.opset - 1;
}

// The model ONNX Runtime runs: `opset`, and each 4-bit graph output (the Node binding cannot
// return one) produced as is under a new name and cast to i8 under its own.
onnx::ModelProto ort_model(const onnx::ModelProto& m, int opset) {
  onnx::ModelProto o = m;
  o.mutable_opset_import(0)->set_version(opset);
  auto& graph = *o.mutable_graph();
  for (auto& vi : *graph.mutable_output()) {
    const DType t = static_cast<DType>(vi.type().tensor_type().elem_type());
    if (!is_4bit(t)) continue;
    const std::string name = vi.name(), packed = name + "_4bit";
    for (auto& n : *graph.mutable_node())
      for (auto& out : *n.mutable_output())
        if (out == name) out = packed;
    auto* cast = graph.add_node();
    cast->set_op_type("Cast");
    cast->add_input(packed);
    cast->add_output(name);
    set_attr(*cast, "to", static_cast<int64_t>(DType::kI8));
    vi.mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(DType::kI8));
  }
  return o;
}

class OpsetOrt : public ::testing::TestWithParam<Group> {};

TEST_P(OpsetOrt, AscMatchesOnnxRuntime) {
  const Group& g = GetParam();
  const Written w = write_group(g);
  check::TempDir dir("asc-opset-ort");
  const std::string path = dir.path() + "/model.onnx";
  onnx_import::write_message(path, w.model);
  const std::string ort_path = dir.path() + "/model_ort.onnx";
  onnx_import::write_message(ort_path, ort_model(w.model, ort_opset(g)));

  const Model model(import_onnx_file(path), ModelOptions{2, "cpu", true});
  const std::vector<NamedTensor> got = model.run(w.feeds);
  check::OrtOptions opts;
  opts.threads = 1;
  const check::OrtResult ort = check::run_ort(ort_path, w.feeds, opts, dir.path());
  EXPECT_EQ(ort.version, "1.30.0");

  ASSERT_EQ(got.size(), w.reference.size());
  for (const NamedTensor& out : got) {
    SCOPED_TRACE(out.name);
    auto it = ort.outputs.find(out.name);
    ASSERT_NE(it, ort.outputs.end()) << "ONNX Runtime did not return it";
    double atol, rtol;
    tolerance(it->second.dtype(), atol, rtol);
    const std::string node = out.name.substr(3, out.name.find('_') - 3);
    const OpCase& c = *g.cases[std::stoul(node)];
    Tensor mine = out.tensor;
    if (is_4bit(mine.dtype())) {  // ONNX Runtime's values come through a Cast to i8
      Tensor as_i8(DType::kI8, mine.shape());
      for (int64_t i = 0; i < mine.numel(); ++i) as_i8.set(i, mine.at(i));
      mine = std::move(as_i8);
    }
    EXPECT_EQ(test::compare(mine, it->second, atol, rtol), "") << c.name();
  }
}

std::string group_name(const ::testing::TestParamInfo<Group>& info) {
  return cat(info.param.op, "_", info.param.opset);
}

INSTANTIATE_TEST_SUITE_P(Opsets18To23, OpsetOrt, ::testing::ValuesIn(groups()), group_name);

// Every op version of opsets 18..23 asc registers is compared above.
TEST(OpsetOrtCoverage, EveryNewVersionAscHasIsCompared) {
  std::set<std::pair<std::string, int>> compared;
  for (const Group& g : groups())
    compared.insert({g.op, global_registry().lookup("", g.op, g.opset).since});
  for (const OpDef* d : global_registry().all()) {
    if (!d->domain.empty() || d->since < 18) continue;
    EXPECT_TRUE(compared.count({d->type, d->since})) << d->name() << " " << d->versions();
  }
}

}  // namespace
}  // namespace asc

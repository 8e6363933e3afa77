// The indexing family's error messages (op, index, bound, shapes), data-dependent inference and
// behaviours the case table cannot express (duplicate scatter indices, tie order, Unique with
// only some outputs).
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

template <typename V>
Tensor make(DType dt, Shape shape, const std::vector<V>& values) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.set(static_cast<int64_t>(i), static_cast<double>(values[i]));
  return t;
}

std::vector<Tensor> run(const char* op, int opset, const Attrs& attrs,
                        const std::vector<Tensor>& in) {
  return run_op(global_registry().lookup("", op, opset), attrs, in, device());
}

// The ShapeError message of running the op, or "" when it does not throw.
std::string error_of(const char* op, int opset, const Attrs& attrs, const std::vector<Tensor>& in) {
  try {
    run(op, opset, attrs, in);
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}

TEST(IndexingErrors, GatherIndexOutOfRangeNamesIndexAndBound) {
  const Tensor x(DType::kF32, {4, 3});
  const std::string e = error_of("Gather", 13, {}, {x, make<int>(DType::kI64, {2}, {1, 7})});
  EXPECT_NE(e.find("Gather"), std::string::npos) << e;
  EXPECT_NE(e.find("index 7"), std::string::npos) << e;
  EXPECT_NE(e.find("[-4, 3]"), std::string::npos) << e;
}

// Gather-1..10 take non-negative indices by the spec; asc accepts negative ones as ONNX Runtime
// does (registry/lenient.h) and still refuses indices outside [-n, n).
TEST(IndexingErrors, GatherBeforeOpset11AcceptsNegativeIndicesAsOrtDoes) {
  const Tensor x(DType::kF32, {4, 3});
  EXPECT_EQ(error_of("Gather", 10, {}, {x, make<int>(DType::kI32, {1}, {-1})}), "");
  EXPECT_EQ(error_of("Gather", 11, {}, {x, make<int>(DType::kI32, {1}, {-1})}), "");
  EXPECT_NE(error_of("Gather", 10, {}, {x, make<int>(DType::kI32, {1}, {-5})})
                .find("index -5 is out of range [-4, 3]"),
            std::string::npos);
}

TEST(IndexingErrors, GatherBadAxis) {
  const Tensor x(DType::kF32, {4, 3});
  const std::string e =
      error_of("Gather", 13, {{"axis", int64_t{2}}}, {x, make<int>(DType::kI64, {1}, {0})});
  EXPECT_NE(e.find("axis 2 is out of range for rank 2"), std::string::npos) << e;
}

TEST(IndexingErrors, GatherElementsAndScatterShapes) {
  const Tensor x(DType::kF32, {2, 3});
  EXPECT_NE(
      error_of("GatherElements", 13, {}, {x, Tensor(DType::kI64, {2, 3, 1})}).find("same rank"),
      std::string::npos);
  EXPECT_NE(
      error_of("GatherElements", 13, {}, {x, make<int>(DType::kI64, {1, 1}, {5})}).find("index 5"),
      std::string::npos);
  const std::string e = error_of("ScatterElements", 13, {},
                                 {x, Tensor(DType::kI64, {2, 2}), Tensor(DType::kF32, {2, 3})});
  EXPECT_NE(e.find("ScatterElements"), std::string::npos) << e;
  EXPECT_NE(e.find("[2,3]"), std::string::npos) << e;
}

TEST(IndexingErrors, ScatterReductionModesPerOpset) {
  const Tensor x(DType::kF32, {3});
  const Tensor ind = make<int>(DType::kI64, {1}, {0});
  const Tensor upd(DType::kF32, {1});
  EXPECT_NE(error_of("ScatterElements", 16, {{"reduction", std::string("max")}}, {x, ind, upd})
                .find("needs opset 18"),
            std::string::npos);
  EXPECT_NE(error_of("ScatterND", 18, {{"reduction", std::string("avg")}},
                     {x, make<int>(DType::kI64, {1, 1}, {0}), upd})
                .find("reduction 'avg'"),
            std::string::npos);
}

TEST(IndexingErrors, ScatterNDIndexAndUpdatesShape) {
  const Tensor x(DType::kF32, {3, 2});
  const std::string e = error_of(
      "ScatterND", 13, {}, {x, make<int>(DType::kI64, {1, 2}, {1, -3}), Tensor(DType::kF32, {1})});
  EXPECT_NE(e.find("ScatterND: index -3 is out of range [-2, 1] for dim 1"), std::string::npos)
      << e;
  EXPECT_NE(error_of("ScatterND", 13, {},
                     {x, make<int>(DType::kI64, {1, 1}, {0}), Tensor(DType::kF32, {1, 3})})
                .find("updates f32[1,3] must be [1,2]"),
            std::string::npos);
}

TEST(IndexingErrors, GatherNDBatchDims) {
  const Tensor x(DType::kF32, {2, 3});
  EXPECT_NE(error_of("GatherND", 13, {{"batch_dims", int64_t{1}}}, {x, Tensor(DType::kI64, {3, 1})})
                .find("batch dim 0 differs"),
            std::string::npos);
  EXPECT_NE(error_of("GatherND", 13, {}, {x, Tensor(DType::kI64, {1, 3})}).find("last dim 3"),
            std::string::npos);
}

TEST(IndexingErrors, TopKAndCumSumAndOthers) {
  const Tensor x(DType::kF32, {2, 3});
  EXPECT_NE(error_of("TopK", 11, {}, {x, make<int>(DType::kI64, {1}, {4})})
                .find("TopK: k 4 is out of range [0, 3]"),
            std::string::npos);
  EXPECT_NE(error_of("CumSum", 14, {}, {x, make<int>(DType::kI64, {}, {2})})
                .find("CumSum: axis 2 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of("Compress", 11, {}, {x, Tensor(DType::kBool, {2, 1})}).find("1-D"),
            std::string::npos);
  EXPECT_NE(error_of("Compress", 11, {{"axis", int64_t{1}}},
                     {x, make<int>(DType::kBool, {4}, {0, 0, 0, 1})})
                .find("true beyond the axis size 3"),
            std::string::npos);
  EXPECT_NE(error_of("ReverseSequence", 10, {}, {x, make<int>(DType::kI64, {3}, {1, 3, 1})})
                .find("sequence length 3 is out of range [0, 2]"),
            std::string::npos);
  EXPECT_NE(error_of("OneHot", 11, {{"axis", int64_t{3}}},
                     {x, make<int>(DType::kI64, {}, {3}), Tensor(DType::kF32, {2})})
                .find("axis 3 is out of range"),
            std::string::npos);
}

// Data-dependent sizes: inference without the value throws ValueUnknownError naming the input.
TEST(IndexingErrors, DataDependentInferenceNeedsTheValue) {
  for (const char* op : {"NonZero", "Unique", "Compress"}) {
    const OpDef& def = global_registry().lookup("", op, 13);
    const Attrs attrs = def.resolve({});
    std::vector<TensorType> in = {{DType::kF32, to_sym(Shape{4})}};
    if (def.inputs.size() > 1) in.push_back({DType::kBool, to_sym(Shape{4})});
    const InferContext ctx{def, in, attrs, std::vector<const Tensor*>(in.size(), nullptr)};
    EXPECT_THROW(def.infer_fn(ctx), ValueUnknownError) << op;
  }
}

TEST(IndexingBehaviour, ScatterDuplicatesLastWinsAndReductionsFold) {
  const Tensor x = make<int>(DType::kF32, {3}, {1, 1, 1});
  const Tensor ind = make<int>(DType::kI64, {3}, {0, 0, 2});
  const Tensor upd = make<int>(DType::kF32, {3}, {2, 3, 4});
  EXPECT_EQ(values(run("ScatterElements", 13, {}, {x, ind, upd})[0]),
            (std::vector<double>{3, 1, 4}));
  EXPECT_EQ(
      values(run("ScatterElements", 16, {{"reduction", std::string("add")}}, {x, ind, upd})[0]),
      (std::vector<double>{6, 1, 5}));
  EXPECT_EQ(
      values(run("ScatterElements", 16, {{"reduction", std::string("mul")}}, {x, ind, upd})[0]),
      (std::vector<double>{6, 1, 4}));
}

TEST(IndexingBehaviour, TopKTiesKeepLowerIndexFirst) {
  const Tensor x = make<int>(DType::kF32, {6}, {1, 3, 3, 0, 3, 1});
  const auto y = run("TopK", 11, {}, {x, make<int>(DType::kI64, {1}, {4})});
  EXPECT_EQ(values(y[1]), (std::vector<double>{1, 2, 4, 0}));
  const auto s = run("TopK", 11, {{"largest", int64_t{0}}}, {x, make<int>(DType::kI64, {1}, {3})});
  EXPECT_EQ(values(s[1]), (std::vector<double>{3, 0, 5}));
}

TEST(IndexingBehaviour, UniqueOutputsUnsorted) {
  const Tensor x = make<int>(DType::kF32, {6}, {2, 1, 1, 3, 4, 3});
  const auto y = run("Unique", 11, {{"sorted", int64_t{0}}}, {x});
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(values(y[0]), (std::vector<double>{2, 1, 3, 4}));
  EXPECT_EQ(values(y[1]), (std::vector<double>{0, 1, 3, 4}));
  EXPECT_EQ(values(y[2]), (std::vector<double>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(values(y[3]), (std::vector<double>{1, 2, 2, 1}));
}

}  // namespace
}  // namespace asc::test

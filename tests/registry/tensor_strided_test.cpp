// Strided tensor views: element access through the strides, dense copies, assignment between
// strided and dense tensors, when a view counts as contiguous, and bad strides.
#include <gtest/gtest.h>

#include <vector>

#include "registry/error.h"
#include "registry/tensor.h"

namespace asc {
namespace {

// A [2, 3, 4] buffer of f32 holding its own flat index; rows [0, rows) of each of the 2 "heads".
struct Buffer {
  std::vector<float> data = std::vector<float>(24);
  Buffer() {
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  }
  Tensor rows(int64_t n) {
    return Tensor::strided(DType::kF32, {2, n, 4}, {12, 4, 1}, data.data());
  }
};

TEST(TensorStrided, ElementsThroughTheStrides) {
  Buffer b;
  const Tensor v = b.rows(2);
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_EQ(v.strides(), (Shape{12, 4, 1}));
  EXPECT_EQ(v.desc().str(), "f32[2,2,4]:s[12,4,1]");
  const std::vector<double> want = {0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19};
  for (int64_t i = 0; i < v.numel(); ++i) EXPECT_EQ(v.at(i), want[static_cast<size_t>(i)]) << i;
  const Tensor dense = v.clone();
  EXPECT_TRUE(dense.is_contiguous());
  for (int64_t i = 0; i < v.numel(); ++i) EXPECT_EQ(dense.data_as<float>()[i], want[size_t(i)]);
}

TEST(TensorStrided, AssignWritesOnlyTheView) {
  Buffer b;
  Tensor v = b.rows(2);
  Tensor src(DType::kF32, {2, 2, 4});
  for (int64_t i = 0; i < src.numel(); ++i) src.set(i, -1.0 - static_cast<double>(i));
  v.assign(src);
  for (size_t i = 0; i < b.data.size(); ++i) {
    const bool in_view = i % 12 < 8;
    if (in_view) {
      EXPECT_LT(b.data[i], 0.f) << i;
    } else {
      EXPECT_EQ(b.data[i], static_cast<float>(i)) << i;  // row 2 of each head untouched
    }
  }
  Tensor back(DType::kF32, {2, 2, 4});
  back.assign(v);
  for (int64_t i = 0; i < back.numel(); ++i) EXPECT_EQ(back.at(i), src.at(i));
  Tensor wrong(DType::kF32, {2, 3, 4});
  EXPECT_THROW(wrong.assign(v), ShapeError);
}

TEST(TensorStrided, DenseStridesAndSizeOneDimsAreContiguous) {
  Buffer b;
  EXPECT_TRUE(b.rows(3).is_contiguous());  // all rows: the dense layout
  EXPECT_TRUE(Tensor::strided(DType::kF32, {1, 2, 4}, {999, 4, 1}, b.data.data()).is_contiguous());
  EXPECT_TRUE(b.rows(0).is_contiguous());  // no elements
  EXPECT_EQ(b.rows(3).desc().str(), "f32[2,3,4]");
}

TEST(TensorStrided, BadStridesAreRefused) {
  Buffer b;
  try {
    Tensor::strided(DType::kF32, {2, 4}, {4}, b.data.data());
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("1 strides for rank 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Tensor::strided(DType::kF32, {2, 4}, {-4, 1}, b.data.data()), ShapeError);
}

}  // namespace
}  // namespace asc

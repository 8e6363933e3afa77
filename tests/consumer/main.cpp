// Embeds asc from its installed package: builds y = relu(x) + 1 by hand, runs it, checks it.
#include <cstdio>

#include "ops/ops.h"
#include "runtime/model.h"
#ifdef ASC_CONSUMER_HAS_ONNX
#include "importers/onnx/onnx_importer.h"
#endif

int main() {
  asc::Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {asc::DType::kF32, asc::SymShape{asc::Dim(4)}});
  asc::Tensor one(asc::DType::kF32, {});
  one.set(0, 1.0);
  const int c = g.add_constant("one", one);
  const int r = g.add_value("r", {});
  const int y = g.add_value("y", {});
  g.inputs = {x};
  g.outputs = {y};
  for (auto [op, in, out] :
       {std::tuple{"Relu", std::vector<int>{x}, r}, std::tuple{"Add", std::vector<int>{r, c}, y}}) {
    asc::Node n;
    n.op_type = op;
    n.opset = 17;
    n.def = asc::global_registry().find("", op, 17);
    n.inputs = in;
    n.outputs = {out};
    g.add_node(n);
  }
  const asc::Model model(std::move(g), {1, "cpu", true});
  float data[4] = {-2.f, -0.5f, 0.5f, 2.f};
  const auto out = model.run({{"x", asc::Tensor::wrap(asc::DType::kF32, {4}, data)}});
  const float want[4] = {1.f, 1.f, 1.5f, 3.f};
  for (int i = 0; i < 4; ++i)
    if (out[0].tensor.at(i) != want[i]) {
      std::printf("consumer: y[%d] = %g, want %g\n", i, out[0].tensor.at(i), want[i]);
      return 1;
    }
  std::printf("consumer: ok\n");
  return 0;
}

// Every registered op version has inference, a kernel, a reference and at least one test case
// (control-flow ops run subgraphs in the runtime: tests/importers/control_flow_test.cpp).
#include <gtest/gtest.h>

#include "ops/op_cases.h"
#include "ops/ops.h"

namespace asc::test {
namespace {

TEST(RegistrySelfCheck, EveryOpIsComplete) {
  const Registry& reg = global_registry();
  ASSERT_FALSE(reg.all().empty());
  for (const OpDef* op : reg.all()) {
    SCOPED_TRACE(op->name() + " " + op->versions());
    EXPECT_TRUE(op->infer_fn) << "no shape inference";
    if (op->has(kControlFlow)) continue;
    EXPECT_NE(op->kernel_kind(), KernelKind::kNone) << "no kernel";
    if (op->kernel_kind() == KernelKind::kTile) {
      EXPECT_TRUE(op->tiling_fn) << "no tiling";
    }
    EXPECT_TRUE(op->reference_fn) << "no reference";
    EXPECT_FALSE(op->doc.empty()) << "no doc line";
    bool tested = false;
    for (const OpCase& c : all_op_cases())
      tested = tested || (c.op == op->type && c.domain == op->domain &&
                          reg.find(op->domain, c.op, c.opset) == op);
    EXPECT_TRUE(tested) << "no test case selects this version";
  }
}

TEST(RegistrySelfCheck, EveryCaseNamesARegisteredOp) {
  for (const OpCase& c : all_op_cases())
    EXPECT_NE(global_registry().find(c.domain, c.op, c.opset), nullptr) << c.name();
}

}  // namespace
}  // namespace asc::test

// The host-kernel reasons of asc-ops --host: every host-kernel op version has one, and every op
// the table names is registered and still has a host-kernel version (a reason goes when its op
// becomes a tile kernel).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ops/host_reasons.h"
#include "ops/ops.h"

namespace asc {
namespace {

TEST(HostReasons, EveryHostKernelOpHasOne) {
  std::string missing;
  for (const OpDef* op : global_registry().all())
    if (op->kernel_kind() == KernelKind::kHost && host_kernel_reason(op->type).empty())
      missing.append(" ").append(op->type).append("-").append(std::to_string(op->since));
  EXPECT_EQ(missing, "") << "host-kernel op versions without a reason in ops/host_reasons.cpp";
}

TEST(HostReasons, EveryListedOpIsAHostKernel) {
  std::map<std::string, bool> host;  // op type -> has a host-kernel version
  for (const OpDef* op : global_registry().all())
    host[op->type] = host[op->type] || op->kernel_kind() == KernelKind::kHost;
  std::string stale;
  for (std::string_view op : host_reason_ops()) {
    const auto it = host.find(std::string(op));
    if (it == host.end() || !it->second) stale.append(" ").append(op);
  }
  EXPECT_EQ(stale, "") << "listed in ops/host_reasons.cpp but not a host-kernel op";
}

TEST(HostReasons, UnknownOpHasNone) {
  EXPECT_EQ(host_kernel_reason("MatMul"), "");
  EXPECT_EQ(host_kernel_reason("NoSuchOp"), "");
  EXPECT_NE(host_kernel_reason("NonZero"), "");
}

// Ops run as a sequence of tile programs say so, and when they compute on the host instead.
TEST(HostReasons, TileSequencesSayWhenTheyRunOnTheHost) {
  for (const char* op : {"Einsum", "Resize", "LSTM"}) {
    const std::string_view r = host_kernel_reason(op);
    EXPECT_NE(r.find("tile program"), std::string_view::npos) << op << ": " << r;
    EXPECT_NE(r.find("f64"), std::string_view::npos) << op << ": " << r;
  }
  const std::string_view r = host_kernel_reason("Einsum");
  for (const char* what : {"EinsumMatMul", "EinsumPrep", "integer", "launch_program"})
    EXPECT_NE(r.find(what), std::string_view::npos) << what << " in: " << r;
}

}  // namespace
}  // namespace asc

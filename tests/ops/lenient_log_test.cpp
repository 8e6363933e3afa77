// ONNX Runtime's leniency (registry/lenient.h): an input the spec's letter forbids and ONNX
// Runtime accepts runs, and says so on one debug-level log line naming the op and what it took.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "ops/ops.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

// The log lines of running the op at debug level (the default logger restored after).
std::string log_of(const char* op, int opset, Attrs attrs, std::vector<Tensor> inputs) {
  static const cpu::CpuDevice dev(1);
  std::ostringstream out;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(
      "lenient", std::make_shared<spdlog::sinks::ostream_sink_st>(out));
  logger->set_level(spdlog::level::debug);
  logger->set_pattern("%l %v");
  spdlog::set_default_logger(logger);
  try {
    run_op(global_registry().lookup("", op, opset), attrs, inputs, dev);
  } catch (...) {
    spdlog::set_default_logger(previous);
    throw;
  }
  spdlog::set_default_logger(previous);
  return out.str();
}

TEST(Lenient, NegativeAxesBeforeOpset11AreLoggedAtDebug) {
  const Tensor x(DType::kF32, {2, 3});
  const std::string mean = log_of("ReduceMean", 9, {{"axes", std::vector<int64_t>{-1}}}, {x});
  EXPECT_NE(mean.find("debug ReduceMean-1: negative axes [-1] (the spec forbids it; accepted as "
                      "ONNX Runtime does)"),
            std::string::npos)
      << mean;
  EXPECT_NE(log_of("ArgMax", 10, {{"axis", int64_t{-2}}}, {x})
                .find("debug ArgMax-1: negative "
                      "axis -2"),
            std::string::npos);
  // The spec's own forms log nothing of the kind.
  EXPECT_EQ(log_of("ReduceMean", 11, {{"axes", std::vector<int64_t>{-1}}}, {x}).find("accepted"),
            std::string::npos);
  EXPECT_EQ(log_of("ReduceMean", 9, {{"axes", std::vector<int64_t>{1}}}, {x}).find("accepted"),
            std::string::npos);
}

}  // namespace
}  // namespace asc::test

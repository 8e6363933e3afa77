// asc-run --emit-ascendc: the Ascend C project written for the bundled tiny MLP (docs/ASCENDC.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "registry/strings.h"
#include "tests/tools/run_tool.h"

namespace {

namespace fs = std::filesystem;

TEST(AscRunEmit, WritesEveryKernelAStubAndACannProject) {
  const fs::path d = fs::temp_directory_path() / ("asc_run_emit_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path out = d / "kernels";
  const auto r = asc::test::run_tool(ASC_RUN_EXE,
                                     std::string("'") + ASC_TINY_MLP_ONNX +
                                         "' --dim batch=4 --emit-ascendc '" + out.string() + "'",
                                     d);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string cmake = asc::test::slurp(out / "CMakeLists.txt");
  EXPECT_NE(cmake.find("ascendc_library(asc_kernels"), std::string::npos) << cmake;
  EXPECT_NE(cmake.find("ascendc.cmake"), std::string::npos) << cmake;
  const std::string readme = asc::test::slurp(out / "README.md");
  // The matmul with its bias epilogue uses the cube and the vector unit: a mixed kernel (an AIC
  // handing its L0C tile to two AIVs through a GM workspace), whose host stub allocates the
  // workspace.
  const std::string mm = asc::test::slurp(out / "fusedmatmulbias_0.cpp");
  EXPECT_NE(mm.find("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)"), std::string::npos)
      << mm.substr(0, 400);
  EXPECT_NE(mm.find("AscendC::CrossCoreSetFlag<2, PIPE_FIX>(0)"), std::string::npos);
  EXPECT_NE(mm.find("AscendC::CrossCoreWaitFlag(0)"), std::string::npos);
  EXPECT_NE(mm.find("GM_ADDR ws, GM_ADDR tiling)"), std::string::npos);
  EXPECT_NE(cmake.find("fusedmatmulbias_0.cpp"), std::string::npos) << cmake;
  const std::string mm_host = asc::test::slurp(out / "fusedmatmulbias_0_host.cpp");
  EXPECT_NE(mm_host.find("aclrtMalloc(&ws, "), std::string::npos) << mm_host;
  EXPECT_NE(readme.find("9 of 9 programs emitted"), std::string::npos) << readme;
  // The tiny MLP's vector kernels: softmax, reduce, ...
  for (const char* k : {"softmax_0", "reducemean_0", "relu_0"}) {
    EXPECT_NE(readme.find(k), std::string::npos) << k << "\n" << readme;
    const std::string src = asc::test::slurp(out / (std::string(k) + ".cpp"));
    EXPECT_NE(src.find(std::string("extern \"C\" __global__ __aicore__ void ") + k + "("),
              std::string::npos)
        << src.substr(0, 400);
    EXPECT_NE(src.find("TilingData"), std::string::npos);
    EXPECT_NE(cmake.find(std::string(k) + ".cpp"), std::string::npos);
    const std::string host = asc::test::slurp(out / (std::string(k) + "_host.cpp"));
    EXPECT_NE(host.find(std::string("aclrtlaunch_") + k + "("), std::string::npos) << host;
    EXPECT_NE(host.find("aclrtMalloc"), std::string::npos);
  }
  EXPECT_NE(asc::test::slurp(out / "main.cpp").find("aclInit"), std::string::npos);
  fs::remove_all(d);
}

// Kernels launched inside control-flow bodies are emitted too: the loop of test_loop13_seq (ONNX's
// node suite) runs its body five times; the body's Add is one program launched five times, on
// int64 (which the A2 computes on its AI CPU).
TEST(AscRunEmit, EmitsTheKernelsOfLoopBodies) {
  const fs::path d = fs::temp_directory_path() / asc::cat("asc_run_emit_loop_", ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path c = "/usr/include/onnx/backend/test/data/node/test_loop13_seq";
  const fs::path data = c / "test_data_set_0";
  const fs::path out = d / "kernels";
  const auto r = asc::test::run_tool(
      ASC_RUN_EXE,
      asc::cat("'", (c / "model.onnx").string(), "' --input trip_count='",
               (data / "input_0.pb").string(), "' --input cond='", (data / "input_1.pb").string(),
               "' --input seq_empty='", (data / "input_2.pb").string(), "' --emit-ascendc '",
               out.string(), "'"),
      d);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string readme = asc::test::slurp(out / "README.md");
  EXPECT_NE(readme.find("| add_0 | i64[], i64[] -> i64[] | [1] | 1 | 5 |"), std::string::npos)
      << readme;
  EXPECT_NE(readme.find("| SequenceInsert | 5 |"), std::string::npos) << readme;
  // The A2's vector unit has no 64-bit integer Add: the program is listed as the host's (the AI
  // CPU's on the NPU), and no source is written for it.
  EXPECT_NE(readme.find("## On the host"), std::string::npos) << readme;
  EXPECT_NE(readme.find("| add_0 | Add(i64[], i64[]) -> i64[]: "), std::string::npos) << readme;
  EXPECT_NE(readme.find("the Atlas A2 has no"), std::string::npos) << readme;
  EXPECT_FALSE(fs::exists(out / "add_0.cpp"));
  EXPECT_EQ(asc::test::slurp(out / "CMakeLists.txt").find("add_0.cpp"), std::string::npos);
  fs::remove_all(d);
}

}  // namespace

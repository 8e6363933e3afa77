// Running one emitted kernel on the emulator and checking it against the cpu device, shared by
// the emission test (emit_kernels_test.cpp) and the mutation test (emit_mutation_test.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ascend/emit_entry.h"
#include "ops/op_cases.h"
#include "registry/tensor.h"

namespace asc::test {

const std::vector<EmitEntry>& all_emitted();

// A gtest name for e: its kernel and case names, other characters as '_'.
std::string test_name(const EmitEntry& e);

// The case a kernel was emitted from, by its name: the case table may differ between generation
// and run where cases follow the active GEMM kernels' packing (e.g. bf16 panels under
// ASC_GEMM_BF16_DOT); nullptr when this process has no such case.
const OpCase* emitted_case(const EmitEntry& e);

// Kernels that do not run clean on the emulator yet (emit_gaps.txt), "<case> <variant>" -> how
// they fail: "emission" (the emitter refuses the program), "refused" (the emulator refuses a
// call), "race" (a race between pipes or cores), "values" (a result differs from the cpu device).
const std::map<std::string, std::string>& listed_gaps();
bool listed(const EmitEntry& e);

struct Outcome {
  std::string how;     // "" when the kernel ran clean and matched
  std::string detail;  // the message
};

// The cpu device's outputs for e's case, planned under e's spec.
std::vector<Tensor> cpu_outputs(const EmitEntry& e, const OpCase& c);

// Runs e on c's inputs, every argument in a GmAlloc block of its own, and compares its outputs
// with `want` at the op tests' tolerance.
Outcome run_on_emulator(const EmitEntry& e, const OpCase& c, const std::vector<Tensor>& want,
                        const EmitRunOptions& o = {});

}  // namespace asc::test

// One emitted kernel of the verification test: the op case it came from, the spec it was planned
// for, and its runner on the Ascend C emulator (nullptr when emission failed: `error` says why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace asc::test {

struct EmitEntry {
  int case_index;    // into all_op_cases()
  int variant;       // 0: ascend910b(); 1: the shrunk 910B spec (emit_spec())
  const char* name;  // kernel name
  // Runs the kernel on the emulator; throws on a refused call, returns the races in *races.
  void (*run)(uint8_t* const* args, bool cce_auto_sync, std::vector<std::string>* races);
  const char* error;      // "" when emitted
  const char* case_name;  // "name#n": the case's name, n earlier cases having the same name
};

}  // namespace asc::test

// One emitted kernel of the verification test: the op case it came from, the spec it was planned
// for, and its runner on the Ascend C emulator (nullptr when emission failed: `error` says why,
// or when the A2 lacks a unit the kernel needs: `host` says which).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ascemu {
struct Options;  // runtime/devices/ascend/emulator/emu_core.h
}

namespace asc::test {

// How emit_run launches a kernel (the emulator's Options without its headers).
struct EmitRunOptions {
  bool cce_auto_sync = true;  // as bisheng --cce-auto-sync=on builds the emitted kernels
  // Mutation test: the synchronisation calls of this line of this file are left out.
  const char* drop_file = nullptr;
  int drop_line = 0;
  // When set, receives the (file, line) of every synchronisation call made.
  std::set<std::pair<std::string, int>>* sync_sites = nullptr;
};

struct EmitEntry {
  int case_index;    // into all_op_cases()
  int variant;       // 0: ascend910b(); 1: the shrunk 910B spec (emit_spec())
  const char* name;  // kernel name
  // Runs the kernel on the emulator (through emit_run); throws on a refused call, returns the
  // races in *races.
  void (*run)(uint8_t* const* args, ascemu::Options o, std::vector<std::string>* races);
  const char* error;      // "" when emitted
  const char* case_name;  // "name#n": the case's name, n earlier cases having the same name
  // Not emitted because the A2's units lack an operation it computes (ascend::Unsupported's
  // message); a device runs it on the host. "" otherwise.
  const char* host;
};

}  // namespace asc::test

namespace asc::test {
// Runs e (emitted) on `args` (GM from emit_gm_alloc) under `o`; races go to *races.
void emit_run(const EmitEntry& e, uint8_t* const* args, const EmitRunOptions& o,
              std::vector<std::string>* races);
}  // namespace asc::test

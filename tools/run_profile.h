// Per-op profiles of run timings (asc-run --profile, with or without --generate).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/model.h"

namespace asc {

struct OpTotal {
  int64_t calls = 0;
  double ms = 0;
};

// Op type -> {calls, ms} summed over the steps, largest total first.
std::vector<std::pair<std::string, OpTotal>> profile_ops(const Graph& g, const RunStats& stats);

// The text table: op, calls, total ms divided by `per` (e.g. the number of runs or tokens), share.
std::string profile_table(const std::vector<std::pair<std::string, OpTotal>>& rows,
                          const std::string& title, double per);

}  // namespace asc

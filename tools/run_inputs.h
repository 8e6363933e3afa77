// The inputs of a model run, shared by asc-run and asc-check: --dim and --input parsing, seeded
// random inputs shaped from the graph's declared input types.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/model.h"

namespace asc::cli {

// Bad command-line syntax that CLI11 cannot see (--dim, --input values): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "NAME=VALUE" strings -> {NAME: VALUE}; VALUE a non-negative integer. Throws UsageError.
std::map<std::string, int64_t> parse_dims(const std::vector<std::string>& dims);
// "NAME=FILE.pb" strings -> {NAME: FILE}; a name given twice is refused. Throws UsageError.
std::map<std::string, std::string> parse_inputs(const std::vector<std::string>& inputs);

// One tensor per graph input, in graph order: read from `files` when named there, otherwise
// seeded random values (floats uniform in [-1, 1), integers in [0, 10), bools 0/1) of the
// declared shape, symbolic dims from `dims` (default 1). Throws ShapeError naming the input for
// an unknown name in `files`, an unknown rank, a dtype without random values, or a size that
// does not fit in host memory.
std::vector<NamedTensor> make_inputs(const Graph& g,
                                     const std::map<std::string, std::string>& files,
                                     const std::map<std::string, int64_t>& dims, uint64_t seed);

}  // namespace asc::cli

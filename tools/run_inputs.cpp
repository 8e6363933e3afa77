#include "tools/run_inputs.h"

#include <unistd.h>

#include <random>

#include "importers/onnx/tensor_proto.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc::cli {
namespace {

// "NAME=VALUE" -> {NAME, VALUE}; both non-empty.
std::pair<std::string, std::string> split_assignment(const std::string& s, const char* flag,
                                                     const char* form) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw UsageError(cat(flag, " '", s, "': expected ", form));
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// Host memory, for refusing an absurd input size before allocating it.
uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                               : uint64_t{1} << 40;
}

// The concrete shape of a graph input: known dims as they are, symbols from --dim (default 1).
Shape input_shape(const Value& v, const std::map<std::string, int64_t>& dims) {
  if (!v.type.shape)
    throw ShapeError(
        cat("input '", v.name, "' has an unknown rank; give it with --input ", v.name, "=FILE.pb"));
  Shape s;
  for (const Dim& d : *v.type.shape) {
    if (d.known()) {
      s.push_back(d.value());
    } else {
      auto it = d.symbolic() ? dims.find(d.symbol()) : dims.end();
      s.push_back(it != dims.end() ? it->second : 1);
    }
  }
  return s;
}

// Seeded values: floats uniform in [-1, 1), integers in [0, 10) (small and non-negative, so most
// index-like inputs stay in range), bools 0/1.
Tensor random_input(const Value& v, const Shape& shape, std::mt19937_64& rng) {
  const DType dt = v.type.dtype;
  if (dtype_size(dt) == 0)
    throw ShapeError(cat("input '", v.name, "' is ", dtype_name(dt),
                         "; there are no random values of it, give --input"));
  const uint64_t limit = physical_memory_bytes();
  uint64_t bytes = dtype_size(dt);
  for (int64_t d : shape) {
    if (d != 0 && bytes > limit / static_cast<uint64_t>(d))
      throw ShapeError(cat("input '", v.name, "' of ", dtype_name(dt), to_string(shape),
                           " does not fit in host memory"));
    bytes *= static_cast<uint64_t>(d);
  }
  Tensor t(dt, shape);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9), bit(0, 1);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype_is_float(dt))
      t.set(i, real(rng));
    else if (dt == DType::kBool)
      t.set(i, bit(rng));
    else
      t.set(i, small(rng));
  }
  return t;
}

}  // namespace

std::map<std::string, int64_t> parse_dims(const std::vector<std::string>& dims) {
  std::map<std::string, int64_t> out;
  for (const auto& d : dims) {
    auto [name, value] = split_assignment(d, "--dim", "NAME=VALUE");
    size_t used = 0;
    int64_t v = -1;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || v < 0)
      throw UsageError(cat("--dim '", d, "': VALUE must be a non-negative integer"));
    out[name] = v;
  }
  return out;
}

std::map<std::string, std::string> parse_inputs(const std::vector<std::string>& inputs) {
  std::map<std::string, std::string> out;
  for (const auto& s : inputs) {
    auto [name, file] = split_assignment(s, "--input", "NAME=FILE.pb");
    if (!out.emplace(name, file).second)
      throw UsageError(cat("--input: '", name, "' is given twice"));
  }
  return out;
}

std::vector<NamedTensor> make_inputs(const Graph& g,
                                     const std::map<std::string, std::string>& files,
                                     const std::map<std::string, int64_t>& dims, uint64_t seed) {
  for (const auto& [name, file] : files) {
    bool known = false;
    for (int v : g.inputs) known |= g.values[v].name == name;
    if (!known) {
      std::string have;
      for (int v : g.inputs) have += cat(have.empty() ? "" : ", ", g.values[v].name);
      throw ShapeError(cat("--input '", name, "': the model has no input of that name",
                           " (its inputs: ", have.empty() ? "none" : have, ")"));
    }
  }
  std::mt19937_64 rng(seed);
  std::vector<NamedTensor> out;
  for (int id : g.inputs) {
    const Value& v = g.values[id];
    auto f = files.find(v.name);
    if (f != files.end())
      out.push_back({v.name, read_value_proto_file(f->second, v.type.dtype)});
    else
      out.push_back({v.name, random_input(v, input_shape(v, dims), rng)});
  }
  return out;
}

}  // namespace asc::cli

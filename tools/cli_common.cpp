#include "tools/cli_common.h"

#include <optional>
#include <sstream>

#include "registry/error.h"

namespace asc::cli {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

bool is_int(const std::string& s) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// s as a whole float (nothing left over), else nullopt.
std::optional<float> as_float(const std::string& s) {
  try {
    size_t used = 0;
    const float f = std::stof(s, &used);
    if (used == s.size()) return f;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

TensorDesc parse_tensor_desc(const std::string& s) {
  TensorDesc d{DType::kF32, {}};
  std::string dims = s;
  const auto lb = s.find('[');
  if (lb != std::string::npos) {
    if (s.back() != ']') throw Error("bad tensor '" + s + "': expected dtype[d0,d1,...]");
    if (lb > 0) {
      d.dtype = dtype_from_name(s.substr(0, lb));
      if (d.dtype == DType::kUndefined) throw Error("bad dtype in '" + s + "'");
    }
    dims = s.substr(lb + 1, s.size() - lb - 2);
    for (const auto& p : split(dims, ',')) {
      if (!is_int(p)) throw Error("bad dim '" + p + "' in '" + s + "'");
      d.shape.push_back(std::stoll(p));
    }
    return d;
  }
  for (const auto& p : split(dims, 'x')) {
    if (!is_int(p)) throw Error("bad dim '" + p + "' in '" + s + "'");
    d.shape.push_back(std::stoll(p));
  }
  return d;
}

void parse_attr(const std::string& s, Attrs& attrs) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("bad attribute '" + s + "': expected k=v");
  const std::string key = s.substr(0, eq), val = s.substr(eq + 1);
  if (val.find(',') != std::string::npos) {  // ints, else floats, else strings
    std::vector<int64_t> ints;
    std::vector<float> floats;
    const std::vector<std::string> parts = split(val, ',');
    bool all_int = true, all_float = true;
    for (const auto& p : parts) {
      all_int = all_int && is_int(p);
      if (all_int) ints.push_back(std::stoll(p));
      const std::optional<float> f = all_float ? as_float(p) : std::nullopt;
      all_float = f.has_value();
      if (all_float) floats.push_back(*f);
    }
    if (all_int) {
      attrs.set(key, ints);
    } else if (all_float) {
      attrs.set(key, floats);
    } else {
      attrs.set(key, parts);
    }
  } else if (is_int(val)) {
    attrs.set(key, static_cast<int64_t>(std::stoll(val)));
  } else if (const std::optional<float> f = as_float(val)) {
    attrs.set(key, *f);
  } else {
    attrs.set(key, val);
  }
}

}  // namespace asc::cli

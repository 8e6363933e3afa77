#include "tools/cli_common.h"

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
      if (!all_float) continue;
      try {
        size_t used = 0;
        floats.push_back(std::stof(p, &used));
        all_float = used == p.size();
      } catch (const std::exception&) {
        all_float = false;
      }
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
  } else {
    try {
      size_t used = 0;
      const float f = std::stof(val, &used);
      if (used == val.size()) {
        attrs.set(key, f);
        return;
      }
    } catch (const std::exception&) {
    }
    attrs.set(key, val);
  }
}

}  // namespace asc::cli

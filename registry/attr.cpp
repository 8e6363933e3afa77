#include "registry/attr.h"

#include <array>
#include <sstream>

#include "registry/error.h"

namespace asc {

std::string_view attr_kind_name(AttrKind k) {
  static constexpr std::array<std::string_view, 7> kNames = {"int",    "float",   "string", "ints",
                                                             "floats", "strings", "tensor"};
  return kNames[static_cast<size_t>(k)];
}

AttrKind attr_kind(const AttrValue& v) {
  return static_cast<AttrKind>(v.index());
}

std::string attr_to_string(const AttrValue& v) {
  std::ostringstream os;
  auto list = [&os](const auto& xs) {
    os << "[";
    for (size_t i = 0; i < xs.size(); ++i) os << (i ? "," : "") << xs[i];
    os << "]";
  };
  switch (attr_kind(v)) {
    case AttrKind::kInt:
      os << std::get<int64_t>(v);
      break;
    case AttrKind::kFloat:
      os << std::get<float>(v);
      break;
    case AttrKind::kString:
      os << '"' << std::get<std::string>(v) << '"';
      break;
    case AttrKind::kInts:
      list(std::get<std::vector<int64_t>>(v));
      break;
    case AttrKind::kFloats:
      list(std::get<std::vector<float>>(v));
      break;
    case AttrKind::kStrings:
      list(std::get<std::vector<std::string>>(v));
      break;
    case AttrKind::kTensor:
      os << "tensor" << std::get<Tensor>(v).desc().str();
      break;
  }
  return os.str();
}

const AttrValue& Attrs::get(const std::string& name, AttrKind kind) const {
  auto it = m_.find(name);
  if (it == m_.end()) throw ShapeError("attribute '" + name + "' is missing");
  if (attr_kind(it->second) != kind)
    throw ShapeError("attribute '" + name + "' is " +
                     std::string(attr_kind_name(attr_kind(it->second))) + ", expected " +
                     std::string(attr_kind_name(kind)));
  return it->second;
}

int64_t Attrs::i(const std::string& name) const {
  return std::get<int64_t>(get(name, AttrKind::kInt));
}
float Attrs::f(const std::string& name) const {
  return std::get<float>(get(name, AttrKind::kFloat));
}
const std::string& Attrs::s(const std::string& name) const {
  return std::get<std::string>(get(name, AttrKind::kString));
}
const std::vector<int64_t>& Attrs::ints(const std::string& name) const {
  return std::get<std::vector<int64_t>>(get(name, AttrKind::kInts));
}
const std::vector<float>& Attrs::floats(const std::string& name) const {
  return std::get<std::vector<float>>(get(name, AttrKind::kFloats));
}
const Tensor& Attrs::tensor(const std::string& name) const {
  return std::get<Tensor>(get(name, AttrKind::kTensor));
}

std::string Attrs::str() const {
  std::string r = "{";
  bool first = true;
  for (const auto& [k, v] : m_) {
    r += (first ? "" : ", ") + k + "=" + attr_to_string(v);
    first = false;
  }
  return r + "}";
}

}  // namespace asc

// Node attributes: ONNX's attribute kinds as one variant, looked up by name with schema defaults.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "registry/tensor.h"

namespace asc {

enum class AttrKind : uint8_t { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor };
std::string_view attr_kind_name(AttrKind k);

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, Tensor>;
AttrKind attr_kind(const AttrValue& v);
std::string attr_to_string(const AttrValue& v);

// Values set on a node. Getters throw ShapeError naming the attribute when it is missing or of
// another kind; the op's schema fills in defaults before kernels see the map (OpDef::resolve).
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> init) : m_(init) {}

  bool has(const std::string& name) const { return m_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { m_[name] = std::move(v); }
  const std::map<std::string, AttrValue>& all() const { return m_; }

  int64_t i(const std::string& name) const;
  float f(const std::string& name) const;
  const std::string& s(const std::string& name) const;
  const std::vector<int64_t>& ints(const std::string& name) const;
  const std::vector<float>& floats(const std::string& name) const;
  const Tensor& tensor(const std::string& name) const;

  int64_t i(const std::string& name, int64_t dflt) const { return has(name) ? i(name) : dflt; }
  float f(const std::string& name, float dflt) const { return has(name) ? f(name) : dflt; }

  std::string str() const;  // "{axis=1, keepdims=0}"

 private:
  const AttrValue& get(const std::string& name, AttrKind kind) const;
  std::map<std::string, AttrValue> m_;
};

}  // namespace asc

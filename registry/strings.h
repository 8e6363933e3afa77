// String building without `const char* + std::string` temporaries (which also trip GCC 12's
// -Wrestrict false positive).
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

namespace asc {

namespace strings_detail {
inline void append(std::string& s, std::string_view v) {
  s.append(v);
}
inline void append(std::string& s, char c) {
  s.push_back(c);
}
template <typename T>
requires std::is_arithmetic_v<T>
void append(std::string& s, T v) {
  s.append(std::to_string(v));
}
}  // namespace strings_detail

template <typename... A>
std::string cat(const A&... parts) {
  std::string s;
  (strings_detail::append(s, parts), ...);
  return s;
}

}  // namespace asc

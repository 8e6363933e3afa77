#include "registry/shape.h"

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string to_string(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += cat(i ? "," : "", s[i]);
  return r + "]";
}

std::string Dim::str() const {
  if (symbolic()) return symbol();
  return known() ? std::to_string(value()) : "?";
}

std::string to_string(const SymShape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += cat(i ? "," : "", s[i].str());
  return r + "]";
}

SymShape to_sym(const Shape& s) {
  return SymShape(s.begin(), s.end());
}

Shape known_dims(const SymShape& s) {
  Shape d;
  d.reserve(s.size());
  for (const Dim& x : s) d.push_back(x.known() ? x.value() : -1);
  return d;
}

std::optional<Shape> to_concrete(const SymShape& s) {
  Shape r;
  r.reserve(s.size());
  for (const Dim& d : s) {
    if (!d.known()) return std::nullopt;
    r.push_back(d.value());
  }
  return r;
}

std::string TensorType::str() const {
  return std::string(dtype_name(dtype)) + (shape ? to_string(*shape) : "[?]");
}

std::string TensorDesc::str() const {
  std::string s = std::string(dtype_name(dtype)) + to_string(shape);
  if (!strides.empty()) s += ":s" + to_string(strides);
  return s;
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (int64_t i = static_cast<int64_t>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError("shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

SymShape broadcast_shapes(const SymShape& a, const SymShape& b) {
  const size_t r = std::max(a.size(), b.size());
  SymShape out(r);
  for (size_t i = 0; i < r; ++i) {
    const Dim da = i < r - a.size() ? Dim(1) : a[i - (r - a.size())];
    const Dim db = i < r - b.size() ? Dim(1) : b[i - (r - b.size())];
    if (da == Dim(1)) {
      out[i] = db;
    } else if (db == Dim(1) || da == db) {
      out[i] = da;
    } else if (da.known() && db.known()) {
      throw ShapeError("shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    } else {
      out[i] = da.known() ? da : db;  // the known side wins
    }
  }
  return out;
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
  const int64_t lo = -rank, hi = rank - 1;
  if (axis < lo || axis > hi)
    throw ShapeError("axis " + std::to_string(axis) + " out of range for rank " +
                     std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace asc

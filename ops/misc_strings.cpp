// The string ops of opset 20, host kernels over string tensors:
//
// StringConcat: Z = X + Y elementwise, numpy broadcasting.
// StringSplit: Y [X.shape..., M] = the substrings of each element (padded with "" to the largest
//   count M), Z [X.shape] = each element's count. Python's str.split: a delimiter splits at every
//   occurrence (consecutive ones delimit empty strings; "" gives [""]); none (or "") splits at runs
//   of whitespace, leading and trailing whitespace dropped ("" gives no substring); maxsplit >= 0
//   stops after that many splits, the rest of the string (from its first non-space when splitting
//   on whitespace) the last substring.
// RegexFullMatch: Y = whether each element matches `pattern` as a whole. ONNX names RE2's syntax;
//   asc compiles the pattern as an ECMAScript regex (std::regex), which reads RE2's common syntax
//   (classes, quantifiers, groups, alternation, anchors) the same way.
#include <regex>
#include <string>
#include <vector>

#include "ops/elementwise.h"
#include "ops/misc.h"

namespace asc {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Python's str.split(delimiter or None, maxsplit); maxsplit < 0: no limit.
std::vector<std::string> split(const std::string& s, const std::string& delim, int64_t maxsplit) {
  std::vector<std::string> parts;
  if (!delim.empty()) {
    size_t start = 0;
    for (int64_t n = 0; maxsplit < 0 || n < maxsplit; ++n) {
      const size_t at = s.find(delim, start);
      if (at == std::string::npos) break;
      parts.push_back(s.substr(start, at - start));
      start = at + delim.size();
    }
    parts.push_back(s.substr(start));
    return parts;
  }
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  while (i < s.size()) {
    if (maxsplit >= 0 && static_cast<int64_t>(parts.size()) == maxsplit) {
      parts.push_back(s.substr(i));  // the rest, trailing whitespace kept (as Python does)
      break;
    }
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    parts.push_back(s.substr(i, j - i));
    while (j < s.size() && is_space(s[j])) ++j;
    i = j;
  }
  return parts;
}

std::vector<std::vector<std::string>> split_all(const Attrs& a, const Tensor& x) {
  std::vector<std::vector<std::string>> all;
  for (int64_t i = 0; i < x.numel(); ++i)
    all.push_back(split(x.strings()[i], a.s("delimiter"), a.i("maxsplit")));
  return all;
}

std::vector<TensorType> infer_split(const InferContext& c) {
  const Tensor& x = need_value(c, 0);
  size_t m = 0;
  for (const auto& parts : split_all(c.attrs, x)) m = std::max(m, parts.size());
  Shape y = x.shape();
  y.push_back(static_cast<int64_t>(m));
  return {{DType::kString, to_sym(y)}, {DType::kI64, to_sym(x.shape())}};
}

void split_kernel(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const auto all = split_all(a, in[0]);
  const int64_t m = out[0].shape().back();
  for (size_t i = 0; i < all.size(); ++i) {
    for (int64_t k = 0; k < m; ++k)
      out[0].strings()[static_cast<int64_t>(i) * m + k] =
          k < static_cast<int64_t>(all[i].size()) ? all[i][k] : std::string();
    out[1].data_as<int64_t>()[i] = static_cast<int64_t>(all[i].size());
  }
}

// The reference splits by scanning characters once, a second reading of the same rules.
std::vector<std::string> split_reference(const std::string& s, const std::string& delim,
                                         int64_t maxsplit) {
  std::vector<std::string> parts;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool limit = maxsplit >= 0 && static_cast<int64_t>(parts.size()) >= maxsplit;
    if (!delim.empty()) {
      if (!limit && s.compare(i, delim.size(), delim) == 0) {
        parts.push_back(cur);
        cur.clear();
        i += delim.size() - 1;
      } else {
        cur += s[i];
      }
      continue;
    }
    if (is_space(s[i]) && !(limit && in_word)) {
      if (in_word) parts.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += s[i];
      in_word = true;
    }
  }
  if (!delim.empty()) {
    parts.push_back(cur);
  } else if (in_word) {
    parts.push_back(cur);
  }
  return parts;
}

std::regex compile(const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw ShapeError(
        cat("RegexFullMatch: pattern '", pattern, "' is not a valid regex: ", e.what()));
  }
}

void concat_strings(std::span<const Tensor> in, Tensor& out) {
  const auto ox = bcast_offsets(in[0].shape(), out.shape());
  const auto oy = bcast_offsets(in[1].shape(), out.shape());
  for (size_t i = 0; i < ox.size(); ++i)
    out.strings()[static_cast<int64_t>(i)] = in[0].strings()[ox[i]] + in[1].strings()[oy[i]];
}

}  // namespace

void register_misc_strings(Registry& r) {
  r.add(def_op("StringConcat", 20)
            .input("X", "string")
            .input("Y", "string")
            .output("Z", "string")
            .trait(kBroadcast)
            .describe("Z = X + Y (string concatenation) with numpy broadcasting")
            .infer([](const InferContext& c) { return infer_broadcast(c); })
            .host_kernel([](const LaunchContext&, std::span<const Tensor> in,
                            std::span<Tensor> out) { concat_strings(in, out[0]); })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              for (int64_t i = 0; i < out[0].numel(); ++i) {  // index by index, numpy style
                std::vector<int64_t> idx(out[0].shape().size() + 1);
                unravel(i, out[0].shape(), idx.data());
                std::string s;
                for (int k = 0; k < 2; ++k) {
                  const Shape& sh = in[k].shape();
                  const size_t lead = out[0].shape().size() - sh.size();
                  int64_t off = 0;
                  for (size_t d = 0; d < sh.size(); ++d)
                    off = off * sh[d] + (sh[d] == 1 ? 0 : idx[lead + d]);
                  s += in[k].strings()[off];
                }
                out[0].strings()[i] = s;
              }
            }));

  r.add(def_op("StringSplit", 20)
            .input("X", "string", Arity::kSingle, true)
            .output("Y", "string")
            .output("Z", "i64")
            .attr("delimiter", AttrKind::kString, std::string())
            .attr("maxsplit", AttrKind::kInt, int64_t{-1})  // -1: unset (no limit)
            .describe("Y = the substrings of each element, padded with \"\" to the largest count; "
                      "Z = the counts (Python's str.split)")
            .infer(infer_split)
            .host_kernel([](const LaunchContext& ctx, std::span<const Tensor> in,
                            std::span<Tensor> out) { split_kernel(ctx.attr(), in, out); })
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              const int64_t m = out[0].shape().back();
              for (int64_t i = 0; i < in[0].numel(); ++i) {
                const auto parts =
                    split_reference(in[0].strings()[i], a.s("delimiter"), a.i("maxsplit"));
                for (int64_t k = 0; k < m; ++k)
                  out[0].strings()[i * m + k] =
                      k < static_cast<int64_t>(parts.size()) ? parts[k] : std::string();
                out[1].set(i, static_cast<double>(parts.size()));
              }
            }));

  r.add(def_op("RegexFullMatch", 20)
            .input("X", "string")
            .output("Y", "bool")
            .attr("pattern", AttrKind::kString)
            .trait(kElementwise)
            .describe("Y = whether each element matches pattern as a whole (ECMAScript syntax, "
                      "which reads RE2's common syntax alike)")
            .infer([](const InferContext& c) {
              compile(c.attrs.s("pattern"));
              return std::vector<TensorType>{{DType::kBool, c.inputs[0].shape}};
            })
            .host_kernel(
                [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                  const std::regex re = compile(ctx.attr().s("pattern"));
                  for (int64_t i = 0; i < in[0].numel(); ++i)
                    out[0].data_as<bool>()[i] = std::regex_match(in[0].strings()[i], re);
                })
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              // A search whose match spans the whole string, read another way.
              const std::regex re = compile(a.s("pattern"));
              for (int64_t i = 0; i < in[0].numel(); ++i) {
                const std::string& s = in[0].strings()[i];
                std::smatch m;
                const bool whole =
                    std::regex_match(s, m, re) && m.length(0) == static_cast<long>(s.size());
                out[0].set(i, whole ? 1.0 : 0.0);
              }
            }));
}

}  // namespace asc

// Einsum (12+): out[output labels] = sum over the other labels of the product of the inputs.
// Equations: terms of letters with at most one "..." each, optional "->" output; without it the
// output is the ellipsis dims, then the letters used exactly once, sorted. Repeated letters in
// one term take a diagonal; ellipsis dims broadcast numpy-style (right aligned, size 1 stretches).
//
// f32 / f16 / bf16 data run as tile programs (einsum_tile.cpp). The host kernel here computes
// the rest (f64, integers, an empty input, views of more than 8 dims, a context without
// launch_program): per input and
// label its stride is the sum of the strides of the input dims with that label (a diagonal), 0
// when broadcast; it walks the output labels outside and the summed labels inside with
// incremental offsets.
#include "ops/einsum.h"

#include <algorithm>
#include <cctype>

#include "ops/reduce.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"

namespace asc {
namespace {

constexpr int kLetters = kEinsumLetters;
using Equation = EinsumEquation;

int letter_id(char ch) {
  return std::isupper(static_cast<unsigned char>(ch)) ? ch - 'A' : 26 + (ch - 'a');
}

// Letters and the position of "..." (or npos) of one term; throws on anything else.
std::vector<int> parse_letters(const std::string& term, size_t& ellipsis, const std::string& eq) {
  std::vector<int> ids;
  ellipsis = std::string::npos;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0 && ellipsis == std::string::npos) {
      ellipsis = ids.size();
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(term[i]))) {
      ids.push_back(letter_id(term[i]));
    } else {
      throw ShapeError(cat("Einsum: bad term '", term, "' in equation '", eq, "'"));
    }
  }
  return ids;
}

}  // namespace

EinsumEquation einsum_parse(const std::string& raw, const std::vector<size_t>& ranks) {
  std::string eq;
  for (char ch : raw)
    if (ch != ' ') eq += ch;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ranks.size())
    throw ShapeError(cat("Einsum: equation '", raw, "' has ", terms.size(), " terms for ",
                         ranks.size(), " inputs"));
  Equation e;
  int ell = 0;  // E
  std::vector<std::pair<std::vector<int>, size_t>> parsed;
  for (size_t k = 0; k < terms.size(); ++k) {
    size_t pos;
    auto ids = parse_letters(terms[k], pos, raw);
    const int64_t extra = static_cast<int64_t>(ranks[k]) - static_cast<int64_t>(ids.size());
    if (extra < 0 || (pos == std::string::npos && extra != 0))
      throw ShapeError(cat("Einsum: term '", terms[k], "' does not match input ", k, " of rank ",
                           ranks[k], " in '", raw, "'"));
    ell = std::max<int>(ell, static_cast<int>(extra));
    parsed.emplace_back(std::move(ids), pos);
  }
  e.labels = kLetters + ell;
  for (size_t k = 0; k < parsed.size(); ++k) {
    auto& [ids, pos] = parsed[k];
    const int extra = static_cast<int>(ranks[k] - ids.size());
    std::vector<int> t(ids.begin(), ids.end());
    if (pos != std::string::npos) {
      std::vector<int> dots;
      for (int i = 0; i < extra; ++i) dots.push_back(kLetters + ell - extra + i);
      t.insert(t.begin() + static_cast<std::ptrdiff_t>(pos), dots.begin(), dots.end());
    }
    e.terms.push_back(std::move(t));
  }
  std::vector<int> uses(kLetters, 0);
  for (const auto& [ids, pos] : parsed)
    for (int id : ids) ++uses[id];
  if (arrow == std::string::npos) {  // implicit: ellipsis, then letters used once, sorted
    for (int i = 0; i < ell; ++i) e.out.push_back(kLetters + i);
    for (int id = 0; id < kLetters; ++id)
      if (uses[id] == 1) e.out.push_back(id);
    return e;
  }
  size_t pos;
  const auto ids = parse_letters(eq.substr(arrow + 2), pos, raw);
  e.out = ids;
  if (pos != std::string::npos) {
    std::vector<int> dots;
    for (int i = 0; i < ell; ++i) dots.push_back(kLetters + i);
    e.out.insert(e.out.begin() + static_cast<std::ptrdiff_t>(pos), dots.begin(), dots.end());
  }  // else ellipsis dims left out of an explicit output are summed
  std::vector<int> seen(kLetters, 0);
  for (int id : ids)
    if (uses[id] == 0 || seen[id]++)
      throw ShapeError(
          cat("Einsum: output of '", raw, "' names a letter twice or not in any input"));
  return e;
}

std::vector<int64_t> einsum_label_sizes(const EinsumEquation& e, std::span<const Shape> shapes,
                                        const std::string& raw) {
  std::vector<int64_t> size(static_cast<size_t>(e.labels), -1);
  for (size_t k = 0; k < e.terms.size(); ++k)
    for (size_t d = 0; d < e.terms[k].size(); ++d) {
      const int id = e.terms[k][d];
      int64_t& s = size[id];
      const int64_t n = shapes[k][d];
      const bool broadcasts = id >= kLetters && (s == 1 || n == 1);
      if (s < 0 || (broadcasts && s == 1)) {
        s = n;
      } else if (s != n && !broadcasts) {
        throw ShapeError(cat("Einsum: '", raw, "': dim ", d, " of input ", k, " is ", n,
                             ", elsewhere ", s, " for the same label"));
      }
    }
  return size;
}

std::vector<std::vector<int64_t>> einsum_label_strides(const EinsumEquation& e,
                                                       std::span<const Shape> shapes,
                                                       const std::vector<int64_t>& size) {
  std::vector<std::vector<int64_t>> st;
  for (size_t k = 0; k < e.terms.size(); ++k) {
    std::vector<int64_t> s(static_cast<size_t>(e.labels), 0);
    const Shape cs = contiguous_strides(shapes[k]);
    for (size_t d = 0; d < e.terms[k].size(); ++d)
      if (shapes[k][d] == size[e.terms[k][d]]) s[e.terms[k][d]] += cs[d];
    st.push_back(std::move(s));
  }
  return st;
}

namespace {

std::vector<size_t> ranks_of(std::span<const Shape> shapes) {
  std::vector<size_t> r;
  for (const Shape& s : shapes) r.push_back(s.size());
  return r;
}

std::vector<TensorType> infer_einsum(const InferContext& c) {
  const DType dt = c.inputs.empty() ? DType::kUndefined : c.inputs[0].dtype;
  std::vector<Shape> shapes;
  bool concrete = true;
  for (const auto& t : c.inputs) {
    std::optional<Shape> s;
    if (t.shape) s = to_concrete(*t.shape);
    concrete = concrete && s.has_value();
    shapes.push_back(s.value_or(Shape{}));
  }
  if (!concrete) return {{dt, std::nullopt}};
  const std::string& raw = c.attrs.s("equation");
  const Equation e = einsum_parse(raw, ranks_of(shapes));
  const auto size = einsum_label_sizes(e, shapes, raw);
  Shape out;
  for (int id : e.out) out.push_back(size[id]);
  return {{dt, to_sym(out)}};
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  const bool ok = visit_numeric(t.dtype(), [&](auto tag) {
    const auto* p = t.data_as<decltype(tag)>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(element_value(p[i]));
  });
  if (!ok) throw ShapeError(cat("Einsum: unsupported data type ", dtype_name(t.dtype())));
  return v;
}

void einsum_kernel(const LaunchContext& ctx, std::span<const Tensor> in, Tensor& out) {
  std::vector<Shape> shapes;
  for (const Tensor& t : in) shapes.push_back(t.shape());
  const std::string& raw = ctx.attr().s("equation");
  const Equation e = einsum_parse(raw, ranks_of(shapes));
  const auto size = einsum_label_sizes(e, shapes, raw);
  const auto st = einsum_label_strides(e, shapes, size);
  std::vector<int> red;  // summed labels
  for (int id = 0; id < e.labels; ++id)
    if (size[id] >= 0 && std::find(e.out.begin(), e.out.end(), id) == e.out.end())
      red.push_back(id);
  std::vector<std::vector<double>> x;
  for (const Tensor& t : in) x.push_back(to_doubles(t));
  const size_t n = in.size();
  int64_t red_total = 1;
  for (int id : red) red_total *= size[id];
  // Odometer over `labels`: idx per label, offsets per input advanced incrementally.
  auto advance = [&](const std::vector<int>& labels, std::vector<int64_t>& idx,
                     std::vector<int64_t>& off) {
    for (size_t j = labels.size(); j-- > 0;) {
      const int id = labels[j];
      for (size_t k = 0; k < n; ++k) off[k] += st[k][id];
      if (++idx[j] < size[id]) return;
      for (size_t k = 0; k < n; ++k) off[k] -= st[k][id] * size[id];
      idx[j] = 0;
    }
  };
  std::vector<int64_t> oidx(e.out.size(), 0), ooff(n, 0), ridx(red.size(), 0), roff(n);
  for (int64_t o = 0; o < out.numel(); ++o) {
    double acc = 0;
    std::fill(ridx.begin(), ridx.end(), 0);
    roff = ooff;
    for (int64_t r = 0; r < red_total; ++r) {
      double p = 1;
      for (size_t k = 0; k < n; ++k) p *= x[k][static_cast<size_t>(roff[k])];
      acc += p;
      advance(red, ridx, roff);
    }
    store_from_double(out.dtype(), out.data(), o, acc);
    advance(e.out, oidx, ooff);
  }
}

// Naive reference: every point of the full label space adds its product to its output element.
void einsum_reference(const Attrs& a, std::span<const Tensor> in, Tensor& out) {
  std::vector<Shape> shapes;
  for (const Tensor& t : in) shapes.push_back(t.shape());
  const std::string& raw = a.s("equation");
  const Equation e = einsum_parse(raw, ranks_of(shapes));
  const auto size = einsum_label_sizes(e, shapes, raw);
  std::vector<int> used;
  Shape space;
  for (int id = 0; id < e.labels; ++id)
    if (size[id] >= 0) {
      used.push_back(id);
      space.push_back(size[id]);
    }
  std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
  std::vector<int64_t> idx(space.size() + 1), at(static_cast<size_t>(e.labels), 0);
  for (int64_t i = 0; i < numel(space); ++i) {
    unravel(i, space, idx.data());
    for (size_t j = 0; j < used.size(); ++j) at[used[j]] = idx[j];
    double p = 1;
    for (size_t k = 0; k < in.size(); ++k) {
      int64_t flat = 0;
      for (size_t d = 0; d < e.terms[k].size(); ++d)
        flat = flat * shapes[k][d] + (shapes[k][d] == 1 ? 0 : at[e.terms[k][d]]);
      p *= in[k].at(flat);
    }
    int64_t o = 0;
    for (int id : e.out) o = o * size[id] + at[id];
    acc[static_cast<size_t>(o)] += p;
  }
  for (int64_t o = 0; o < out.numel(); ++o) out.set(o, acc[static_cast<size_t>(o)]);
}

}  // namespace

void register_einsum(Registry& r) {
  r.add(def_op("Einsum", 12)
            .input("Inputs", "T", Arity::kVariadic)
            .output("Output", "T")
            .attr("equation", AttrKind::kString)
            .type_constraint("T", numeric_types())
            .describe("Output = sum of products of Inputs over the labels the equation drops")
            .infer(infer_einsum)
            .host_kernel(
                [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                  if (!einsum_tile_covers(ctx, in) || !einsum_tile_run(ctx, in, out[0]))
                    einsum_kernel(ctx, in, out[0]);
                })
            .launches(einsum_launches)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              einsum_reference(a, in, out[0]);
            }));
  register_einsum_programs(r);
}

}  // namespace asc

// TfIdfVectorizer (9) and StringNormalizer (10): host kernels over i32/i64 or string tensors.
//
// TfIdfVectorizer: the pool holds n-grams grouped by length — pool entries
// [ngram_counts[n-1], ngram_counts[n]) are the n-grams of length n, n items each; n-gram ids
// count through the pool in order and ngram_indexes[id] is the id's output column. For each row
// of X ([C] or [N, C]) an n-gram of length n in [min_gram_length, max_gram_length] with skip s
// in [0, max_skip_count] is X[i], X[i+s+1], .., X[i+(n-1)(s+1)]; unigrams are counted once, not
// per skip. Y[row, ngram_indexes[id]] = count (TF), weight[id] if count > 0 (IDF), or count *
// weight[id] (TFIDF); weights default to 1.
//
// StringNormalizer: X [C] or [1, C] without the stopwords (exact, or ASCII/Latin/Greek/Cyrillic
// case-insensitive match), then lower- or upper-cased; an empty result is one empty string. Case
// mapping is locale-independent UTF-8 (invalid bytes pass through unchanged).
#include <algorithm>
#include <map>

#include "ops/misc.h"

namespace asc {
namespace {

// ---- TfIdfVectorizer ---------------------------------------------------------------------------

struct TfIdfConfig {
  int64_t min_n = 1, max_n = 1, max_skip = 0;
  enum Mode { kTF, kIDF, kTFIDF } mode = kTF;
  bool strings = false;
  std::vector<std::vector<int64_t>> grams;  // per id: its tokens
  std::vector<int64_t> column;              // per id: output column
  std::vector<double> weight;               // per id
  std::map<std::string, int64_t> vocab;     // pool string -> token (strings mode)
  int64_t width = 0;                        // output columns
};

TfIdfConfig tfidf_config(const Attrs& a) {
  TfIdfConfig c;
  c.min_n = a.i("min_gram_length");
  c.max_n = a.i("max_gram_length");
  c.max_skip = a.i("max_skip_count");
  if (c.min_n < 1 || c.max_n < c.min_n || c.max_skip < 0)
    throw ShapeError(cat("TfIdfVectorizer: need 1 <= min_gram_length (", c.min_n,
                         ") <= max_gram_length (", c.max_n, ") and max_skip_count (", c.max_skip,
                         ") >= 0"));
  const std::string& mode = a.s("mode");
  if (mode == "TF")
    c.mode = TfIdfConfig::kTF;
  else if (mode == "IDF")
    c.mode = TfIdfConfig::kIDF;
  else if (mode == "TFIDF")
    c.mode = TfIdfConfig::kTFIDF;
  else
    throw ShapeError(cat("TfIdfVectorizer: mode '", mode, "' must be TF, IDF or TFIDF"));
  const auto& ints = a.ints("pool_int64s");
  const auto& strs = std::get<std::vector<std::string>>(a.all().at("pool_strings"));
  if (!ints.empty() && !strs.empty())
    throw ShapeError("TfIdfVectorizer: give pool_int64s or pool_strings, not both");
  c.strings = !strs.empty();
  std::vector<int64_t> pool = ints;
  if (c.strings)
    for (const std::string& s : strs) {
      const auto it = c.vocab.emplace(s, static_cast<int64_t>(c.vocab.size())).first;
      pool.push_back(it->second);
    }
  const auto& counts = a.ints("ngram_counts");
  const int64_t size = static_cast<int64_t>(pool.size());
  for (size_t k = 0; k < counts.size(); ++k) {
    const int64_t n = static_cast<int64_t>(k) + 1;
    const int64_t lo = counts[k], hi = k + 1 < counts.size() ? counts[k + 1] : size;
    if (lo < 0 || hi < lo || hi > size || (hi - lo) % n != 0)
      throw ShapeError(cat("TfIdfVectorizer: ngram_counts[", k, "] = ", lo,
                           " does not split a pool of ", size, " into ", n, "-grams"));
    for (int64_t p = lo; p < hi; p += n)
      c.grams.emplace_back(pool.begin() + p, pool.begin() + p + n);
  }
  c.column = a.ints("ngram_indexes");
  if (c.column.size() != c.grams.size())
    throw ShapeError(cat("TfIdfVectorizer: ngram_indexes has ", c.column.size(), " entries for ",
                         c.grams.size(), " pool n-grams"));
  for (int64_t col : c.column) {
    if (col < 0) throw ShapeError(cat("TfIdfVectorizer: ngram_indexes has ", col, " < 0"));
    c.width = std::max(c.width, col + 1);
  }
  const auto& w = a.floats("weights");
  if (!w.empty() && w.size() != c.grams.size())
    throw ShapeError(cat("TfIdfVectorizer: weights has ", w.size(), " entries for ", c.grams.size(),
                         " pool n-grams"));
  c.weight.assign(c.grams.size(), 1.0);
  for (size_t i = 0; i < w.size(); ++i) c.weight[i] = w[i];
  return c;
}

std::vector<TensorType> tfidf_infer(const InferContext& ctx) {
  const TfIdfConfig c = tfidf_config(ctx.attrs);
  const TensorType& x = ctx.inputs[0];
  if ((x.dtype == DType::kString) != c.strings)
    throw ShapeError(cat("TfIdfVectorizer: input ", x.str(), " needs ",
                         c.strings ? "pool_strings" : "pool_int64s"));
  if (!x.shape) return {{DType::kF32, std::nullopt}};
  if (x.shape->empty() || x.shape->size() > 2)
    throw ShapeError(cat("TfIdfVectorizer: input ", x.str(), " must be [C] or [N, C]"));
  if (x.shape->size() == 1) return {{DType::kF32, SymShape{Dim(c.width)}}};
  return {{DType::kF32, SymShape{(*x.shape)[0], Dim(c.width)}}};
}

// The tokens of X (strings mode: vocabulary ids, -1 for words outside the pool).
std::vector<int64_t> tfidf_tokens(const Tensor& x, const TfIdfConfig& c) {
  if (!c.strings) return to_int64s(x);
  std::vector<int64_t> t(static_cast<size_t>(x.numel()));
  for (size_t i = 0; i < t.size(); ++i) {
    const auto it = c.vocab.find(x.strings()[i]);
    t[i] = it == c.vocab.end() ? -1 : it->second;
  }
  return t;
}

double tfidf_value(const TfIdfConfig& c, size_t id, double count) {
  switch (c.mode) {
    case TfIdfConfig::kTF:
      return count;
    case TfIdfConfig::kIDF:
      return count > 0 ? c.weight[id] : 0.0;
    default:
      return count * c.weight[id];
  }
}

void tfidf_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const TfIdfConfig c = tfidf_config(ctx.attr());
  const std::vector<int64_t> tok = tfidf_tokens(in[0], c);
  const Shape& xs = in[0].shape();
  const int64_t rows = xs.size() == 2 ? xs[0] : 1, cols = xs.back();
  std::map<std::vector<int64_t>, size_t> ids;
  for (size_t id = 0; id < c.grams.size(); ++id) ids.emplace(c.grams[id], id);
  std::vector<double> count(c.grams.size());
  std::vector<int64_t> gram;
  float* y = out[0].data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    std::fill(count.begin(), count.end(), 0.0);
    const int64_t* row = tok.data() + r * cols;
    for (int64_t n = c.min_n; n <= c.max_n; ++n)
      for (int64_t s = 0; s <= (n == 1 ? 0 : c.max_skip); ++s)
        for (int64_t i = 0; i + (n - 1) * (s + 1) < cols; ++i) {
          gram.clear();
          for (int64_t k = 0; k < n; ++k) gram.push_back(row[i + k * (s + 1)]);
          const auto it = ids.find(gram);
          if (it != ids.end()) count[it->second] += 1;
        }
    float* yr = y + r * c.width;
    std::fill(yr, yr + c.width, 0.f);
    for (size_t id = 0; id < count.size(); ++id)
      yr[c.column[id]] = static_cast<float>(tfidf_value(c, id, count[id]));
  }
}

// Naive: for every pool n-gram, count its occurrences at every start and skip.
void tfidf_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const TfIdfConfig c = tfidf_config(a);
  const std::vector<int64_t> tok = tfidf_tokens(in[0], c);
  const Shape& xs = in[0].shape();
  const int64_t rows = xs.size() == 2 ? xs[0] : 1, cols = xs.back();
  for (int64_t e = 0; e < out[0].numel(); ++e) out[0].set(e, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (size_t id = 0; id < c.grams.size(); ++id) {
      const auto& g = c.grams[id];
      const int64_t n = static_cast<int64_t>(g.size());
      double count = 0;
      if (n >= c.min_n && n <= c.max_n)
        for (int64_t s = 0; s <= (n == 1 ? 0 : c.max_skip); ++s)
          for (int64_t i = 0; i < cols; ++i) {
            bool match = i + (n - 1) * (s + 1) < cols;
            for (int64_t k = 0; match && k < n; ++k)
              match = tok[r * cols + i + k * (s + 1)] == g[k];
            count += match ? 1 : 0;
          }
      out[0].set(r * c.width + c.column[id], tfidf_value(c, id, count));
    }
}

// ---- StringNormalizer --------------------------------------------------------------------------

enum class Case { kLower, kUpper };

// Simple one-to-one case mapping of a code point: ASCII, Latin-1, Latin Extended-A, Greek and
// Cyrillic; everything else maps to itself.
char32_t map_case(char32_t c, Case to) {
  const bool up = to == Case::kUpper;
  if (c < 0x80) {
    if (up && c >= 'a' && c <= 'z') return c - 32;
    if (!up && c >= 'A' && c <= 'Z') return c + 32;
    return c;
  }
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return up ? c : c + 0x20;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return up ? c - 0x20 : c;
  if (c == 0xFF) return up ? 0x178 : c;
  if (c == 0x178) return up ? c : 0xFF;
  if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) {  // even upper, odd lower
    return up ? (c & ~char32_t{1}) : (c | 1);
  }
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) {  // odd upper, even lower
    const bool is_upper = (c & 1) != 0;
    return up ? (is_upper ? c : c - 1) : (is_upper ? c + 1 : c);
  }
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return up ? c : c + 0x20;
  if (c >= 0x3B1 && c <= 0x3C9) return up ? (c == 0x3C2 ? 0x3A3 : c - 0x20) : c;
  if (c >= 0x410 && c <= 0x42F) return up ? c : c + 0x20;
  if (c >= 0x430 && c <= 0x44F) return up ? c - 0x20 : c;
  if (c >= 0x400 && c <= 0x40F) return up ? c : c + 0x50;
  if (c >= 0x450 && c <= 0x45F) return up ? c - 0x50 : c;
  return c;
}

// Decodes one UTF-8 sequence at s[i]; returns its length, or 0 for an invalid sequence.
size_t utf8_decode(const std::string& s, size_t i, char32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = n == 1 ? c : c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  return n;
}

void utf8_encode(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string change_case(const std::string& s, Case to) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const size_t n = utf8_decode(s, i, cp);
    if (n == 0) {  // invalid byte: copied as is
      out.push_back(s[i++]);
      continue;
    }
    utf8_encode(map_case(cp, to), out);
    i += n;
  }
  return out;
}

struct NormalizerConfig {
  std::optional<Case> to;
  bool case_sensitive = false;
  std::vector<std::string> stopwords;  // lower-cased when not case-sensitive
};

NormalizerConfig normalizer_config(const Attrs& a) {
  NormalizerConfig c;
  const std::string& action = a.s("case_change_action");
  if (action == "LOWER")
    c.to = Case::kLower;
  else if (action == "UPPER")
    c.to = Case::kUpper;
  else if (action != "NONE")
    throw ShapeError(
        cat("StringNormalizer: case_change_action '", action, "' must be LOWER, UPPER or NONE"));
  c.case_sensitive = a.i("is_case_sensitive") != 0;
  c.stopwords = std::get<std::vector<std::string>>(a.all().at("stopwords"));
  if (!c.case_sensitive)
    for (auto& w : c.stopwords) w = change_case(w, Case::kLower);
  return c;
}

bool is_stopword(const NormalizerConfig& c, const std::string& s) {
  const std::string key = c.case_sensitive ? s : change_case(s, Case::kLower);
  return std::find(c.stopwords.begin(), c.stopwords.end(), key) != c.stopwords.end();
}

// The kept, case-changed strings of X; one empty string when none is kept.
std::vector<std::string> normalize(const Tensor& x, const NormalizerConfig& c) {
  const Shape& s = x.shape();
  if (s.empty() || s.size() > 2 || (s.size() == 2 && s[0] != 1))
    throw ShapeError(cat("StringNormalizer: input ", x.desc().str(), " must be [C] or [1, C]"));
  std::vector<std::string> out;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const std::string& w = x.strings()[i];
    if (is_stopword(c, w)) continue;
    out.push_back(c.to ? change_case(w, *c.to) : w);
  }
  if (out.empty()) out.emplace_back();
  return out;
}

Shape normalized_shape(const Shape& in, size_t n) {
  return in.size() == 2 ? Shape{1, static_cast<int64_t>(n)} : Shape{static_cast<int64_t>(n)};
}

std::vector<TensorType> normalizer_infer(const InferContext& ctx) {
  const NormalizerConfig c = normalizer_config(ctx.attrs);
  const Tensor& x = need_value(ctx, 0);
  return {{DType::kString, to_sym(normalized_shape(x.shape(), normalize(x, c).size()))}};
}

void normalizer_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                       std::span<Tensor> out) {
  const std::vector<std::string> v = normalize(in[0], normalizer_config(ctx.attr()));
  if (static_cast<int64_t>(v.size()) != out[0].numel())
    throw ShapeError(
        cat("StringNormalizer: ", v.size(), " strings kept, output is ", out[0].desc().str()));
  std::copy(v.begin(), v.end(), out[0].strings());
}

// Naive: one pass per input string, stopwords compared one by one (case folded per comparison).
void normalizer_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const std::string& action = a.s("case_change_action");
  const bool sensitive = a.i("is_case_sensitive") != 0;
  const auto& stop = std::get<std::vector<std::string>>(a.all().at("stopwords"));
  int64_t k = 0;
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    const std::string& w = in[0].strings()[i];
    bool drop = false;
    for (const std::string& s : stop)
      drop = drop ||
             (sensitive ? s == w : change_case(s, Case::kLower) == change_case(w, Case::kLower));
    if (drop) continue;
    out[0].strings()[k++] = action == "LOWER"   ? change_case(w, Case::kLower)
                            : action == "UPPER" ? change_case(w, Case::kUpper)
                                                : w;
  }
}

}  // namespace

void register_misc_text(Registry& r) {
  r.add(def_op("TfIdfVectorizer", 9)
            .input("X", "T")
            .output("Y", "f32")
            .attr("max_gram_length", AttrKind::kInt)
            .attr("max_skip_count", AttrKind::kInt)
            .attr("min_gram_length", AttrKind::kInt)
            .attr("mode", AttrKind::kString)
            .attr("ngram_counts", AttrKind::kInts)
            .attr("ngram_indexes", AttrKind::kInts)
            .attr("pool_int64s", AttrKind::kInts, std::vector<int64_t>{})
            .attr("pool_strings", AttrKind::kStrings, std::vector<std::string>{})
            .attr("weights", AttrKind::kFloats, std::vector<float>{})
            .type_constraint("T", {DType::kString, DType::kI32, DType::kI64})
            .describe("per row of X: counts (TF), weights (IDF) or weighted counts (TFIDF) of "
                      "the pool's n-grams, skips allowed")
            .infer(tfidf_infer)
            .host_kernel(tfidf_kernel)
            .reference(tfidf_reference));

  r.add(def_op("StringNormalizer", 10)
            .input("X", "string", Arity::kSingle, true)
            .output("Y", "string")
            .attr("case_change_action", AttrKind::kString, std::string("NONE"))
            .attr("is_case_sensitive", AttrKind::kInt, int64_t{0})
            .attr("locale", AttrKind::kString, std::string(""))
            .attr("stopwords", AttrKind::kStrings, std::vector<std::string>{})
            .describe("X without stopwords, lower/upper-cased (locale-independent UTF-8 "
                      "mapping); an empty result is [\"\"]")
            .infer(normalizer_infer)
            .host_kernel(normalizer_kernel)
            .reference(normalizer_reference));
}

}  // namespace asc

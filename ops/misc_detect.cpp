// NonMaxSuppression (10, 11) and Det (11).
//
// NonMaxSuppression layout: boxes [batch, spatial, 4] as [y1, x1, y2, x2] (any two opposite
// corners; center_point_box 1: [x_center, y_center, width, height]); scores [batch, classes,
// spatial]. Per (batch, class): candidates with score > score_threshold, by descending score
// (ties: lower box index first), are kept greedily unless their IoU with a kept box exceeds
// iou_threshold, up to max_output_boxes_per_class (absent or 0: none). Output [selected, 3] rows
// (batch, class, box) in that order. The output size depends on the values, so inference needs
// them.
//
// Det layout: [*, M, M] -> [*]; LU with partial pivoting in double.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>

#include "ops/misc.h"

namespace asc {
namespace {

using misc::has_input;

// ---- NonMaxSuppression -------------------------------------------------------------------------

struct Corners {
  double y0, x0, y1, x1;  // y0 <= y1, x0 <= x1
};

Corners corners(const Tensor& boxes, int64_t at, bool center) {
  const double a = boxes.at(at), b = boxes.at(at + 1), c = boxes.at(at + 2), d = boxes.at(at + 3);
  if (center) return {b - d / 2, a - c / 2, b + d / 2, a + c / 2};
  return {std::min(a, c), std::min(b, d), std::max(a, c), std::max(b, d)};
}

// IoU of two boxes; 0 when either has no area or they do not overlap.
double iou(const Corners& p, const Corners& q) {
  const double iy = std::min(p.y1, q.y1) - std::max(p.y0, q.y0);
  const double ix = std::min(p.x1, q.x1) - std::max(p.x0, q.x0);
  if (iy <= 0 || ix <= 0) return 0;
  const double ap = (p.y1 - p.y0) * (p.x1 - p.x0), aq = (q.y1 - q.y0) * (q.x1 - q.x0);
  if (ap <= 0 || aq <= 0) return 0;
  const double inter = iy * ix;
  return inter / (ap + aq - inter);
}

struct NmsParams {
  int64_t batch = 0, classes = 0, spatial = 0, max_out = 0;
  double iou_threshold = 0, score_threshold = 0;
  bool has_score_threshold = false;
};

NmsParams nms_params(const Shape& bs, const Shape& ss, std::span<const Tensor* const> opt) {
  if (bs.size() != 3 || bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
    throw ShapeError(cat("NonMaxSuppression: boxes ", to_string(bs), " and scores ", to_string(ss),
                         " must be [batch, spatial, 4] and [batch, classes, "
                         "spatial]"));
  NmsParams p;
  p.batch = bs[0];
  p.spatial = bs[1];
  p.classes = ss[1];
  if (opt[0]) p.max_out = misc::int_scalar_of(*opt[0], "NonMaxSuppression", "max_output_boxes");
  if (opt[1]) p.iou_threshold = misc::scalar_of(*opt[1], "NonMaxSuppression", "iou_threshold");
  if (opt[2]) {
    p.has_score_threshold = true;
    p.score_threshold = misc::scalar_of(*opt[2], "NonMaxSuppression", "score_threshold");
  }
  if (p.max_out < 0) p.max_out = 0;
  return p;
}

// The boxes kept so far for one (batch, class). A candidate is compared only with kept boxes that
// share a cell of a grid over the candidates' extent: an IoU above a threshold >= 0 needs an
// intersection of positive area, so the two boxes share the cell of a point inside both, and the
// boxes skipped would each have given IoU 0. The selection is the same as comparing with every kept
// box; SSD's batched NMS (one class of 90 x 300 boxes offset apart) drops from seconds to
// milliseconds. Few candidates, a negative threshold or a non-finite corner compare with all.
class KeptBoxes {
 public:
  void reset(const std::vector<Corners>& box, const std::vector<int64_t>& order, double iou_thr) {
    kept_.clear();
    big_.clear();
    thr_ = iou_thr;
    grid_ = order.size() >= kGridFrom && iou_thr >= 0 && set_grid(box, order);
  }

  size_t size() const { return kept_.size(); }

  bool suppressed(const Corners& p) const {
    if (!grid_) return suppressed_by(p, 0, kept_.size());
    for (int32_t q : big_)
      if (iou(p, kept_[q]) > thr_) return true;
    const Span s = span(p);
    if (s.cells() > kMaxSpan) return suppressed_by(p, 0, kept_.size());
    for (int64_t y = s.y0; y <= s.y1; ++y)
      for (int64_t x = s.x0; x <= s.x1; ++x)
        for (int32_t q : cells_[y * nx_ + x])
          if (iou(p, kept_[q]) > thr_) return true;
    return false;
  }

  void add(const Corners& p) {
    const auto q = static_cast<int32_t>(kept_.size());
    kept_.push_back(p);
    if (!grid_) return;
    const Span s = span(p);
    if (s.cells() > kMaxSpan) {
      big_.push_back(q);
      return;
    }
    for (int64_t y = s.y0; y <= s.y1; ++y)
      for (int64_t x = s.x0; x <= s.x1; ++x) cells_[y * nx_ + x].push_back(q);
  }

 private:
  static constexpr size_t kGridFrom = 256;  // candidates; below, the plain scan is as fast
  static constexpr int64_t kMaxSpan = 64;   // cells; a larger box is scanned or listed apart

  struct Span {
    int64_t x0, y0, x1, y1;
    int64_t cells() const { return (x1 - x0 + 1) * (y1 - y0 + 1); }
  };

  bool suppressed_by(const Corners& p, size_t from, size_t to) const {
    for (size_t q = from; q < to; ++q)
      if (iou(p, kept_[q]) > thr_) return true;
    return false;
  }

  int64_t cell(double v, double lo, double side, int64_t n) const {
    return std::clamp(static_cast<int64_t>(std::floor((v - lo) / side)), int64_t{0}, n - 1);
  }

  Span span(const Corners& p) const {
    return {cell(p.x0, x_, cw_, nx_), cell(p.y0, y_, ch_, ny_), cell(p.x1, x_, cw_, nx_),
            cell(p.y1, y_, ch_, ny_)};
  }

  // Cells about the candidates' mean size, no more of them than candidates (at most 512 a side).
  bool set_grid(const std::vector<Corners>& box, const std::vector<int64_t>& order) {
    double x0 = box[order[0]].x0, y0 = box[order[0]].y0, x1 = x0, y1 = y0, w = 0, h = 0;
    for (int64_t i : order) {
      const Corners& b = box[i];
      if (!std::isfinite(b.x0) || !std::isfinite(b.y0) || !std::isfinite(b.x1) ||
          !std::isfinite(b.y1))
        return false;
      x0 = std::min(x0, b.x0), y0 = std::min(y0, b.y0);
      x1 = std::max(x1, b.x1), y1 = std::max(y1, b.y1);
      w += b.x1 - b.x0, h += b.y1 - b.y0;
    }
    const auto n = static_cast<double>(order.size());
    const double ew = x1 - x0, eh = y1 - y0, even = std::sqrt(ew * eh / n);
    if (!std::isfinite(ew) || !std::isfinite(eh) || !std::isfinite(w + h)) return false;
    const auto side = [&](double mean, double extent) {
      const double s = std::max({mean, even, extent / 512});
      return s > 0 ? s : 1.0;
    };
    cw_ = side(w / n, ew), ch_ = side(h / n, eh);
    x_ = x0, y_ = y0;
    nx_ = std::min<int64_t>(static_cast<int64_t>(ew / cw_) + 1, 512);
    ny_ = std::min<int64_t>(static_cast<int64_t>(eh / ch_) + 1, 512);
    cells_.resize(static_cast<size_t>(nx_ * ny_));
    for (auto& c : cells_) c.clear();
    return true;
  }

  std::vector<Corners> kept_;
  std::vector<int32_t> big_;
  std::vector<std::vector<int32_t>> cells_;
  double thr_ = 0, x_ = 0, y_ = 0, cw_ = 1, ch_ = 1;
  int64_t nx_ = 1, ny_ = 1;
  bool grid_ = false;
};

// The selected (batch, class, box) triples. A batch's boxes are read once for all its classes,
// a class's scores once before its sort (Tensor::at per comparison made SSD's 90 classes x 3234
// boxes take most of a second).
std::vector<int64_t> nms_select(const Tensor& boxes, const Tensor& scores, const NmsParams& p,
                                bool center) {
  std::vector<int64_t> sel;
  std::vector<int64_t> order;
  std::vector<Corners> box(static_cast<size_t>(p.spatial));
  std::vector<double> score(static_cast<size_t>(p.spatial));
  KeptBoxes kept;
  for (int64_t b = 0; b < p.batch && p.max_out > 0; ++b) {
    for (int64_t i = 0; i < p.spatial; ++i)
      box[i] = corners(boxes, (b * p.spatial + i) * 4, center);
    for (int64_t c = 0; c < p.classes; ++c) {
      const int64_t base = (b * p.classes + c) * p.spatial;
      order.clear();
      for (int64_t i = 0; i < p.spatial; ++i) {
        score[i] = scores.at(base + i);
        if (!p.has_score_threshold || score[i] > p.score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t i, int64_t j) { return score[i] > score[j]; });
      if (!order.empty()) kept.reset(box, order, p.iou_threshold);
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= p.max_out) break;
        if (kept.suppressed(box[i])) continue;
        kept.add(box[i]);
        sel.insert(sel.end(), {b, c, i});
      }
    }
  }
  return sel;
}

std::vector<const Tensor*> nms_optional(std::span<const Tensor> in) {
  std::vector<const Tensor*> v;
  for (size_t k = 2; k < 5; ++k) v.push_back(has_input(in, k) ? &in[k] : nullptr);
  return v;
}

// The last selection made while inferring the output shape (which needs the values), with copies
// of what it was made from: the kernel that runs right after on the same inputs takes it instead
// of selecting again. Content compared, never pointers, so a stale entry is never used.
struct NmsMemo {
  std::mutex mu;
  std::vector<std::byte> boxes, scores;
  Shape box_shape, score_shape;
  DType box_dtype = DType::kUndefined, score_dtype = DType::kUndefined;
  NmsParams p;
  bool center = false;
  std::vector<int64_t> sel;
};

NmsMemo& nms_memo() {
  static NmsMemo m;
  return m;
}

bool same_bytes(const std::vector<std::byte>& kept, const Tensor& t) {
  return t.is_contiguous() && kept.size() == t.nbytes() &&
         (kept.empty() || std::memcmp(kept.data(), t.data(), kept.size()) == 0);
}

bool same_params(const NmsParams& a, const NmsParams& b) {
  return a.batch == b.batch && a.classes == b.classes && a.spatial == b.spatial &&
         a.max_out == b.max_out && a.iou_threshold == b.iou_threshold &&
         a.score_threshold == b.score_threshold && a.has_score_threshold == b.has_score_threshold;
}

std::vector<TensorType> nms_infer(const InferContext& c) {
  const Tensor& boxes = need_value(c, 0);
  const Tensor& scores = need_value(c, 1);
  std::vector<const Tensor*> opt;
  for (size_t k = 2; k < 5; ++k) opt.push_back(has_input(c, k) ? &need_value(c, k) : nullptr);
  const NmsParams p = nms_params(boxes.shape(), scores.shape(), opt);
  const bool center = c.attrs.i("center_point_box") != 0;
  auto sel = nms_select(boxes, scores, p, center);
  const auto rows = static_cast<int64_t>(sel.size() / 3);
  if (!boxes.is_contiguous() || !scores.is_contiguous())
    return {{DType::kI64, to_sym(Shape{rows, 3})}};
  NmsMemo& m = nms_memo();
  const std::lock_guard lock(m.mu);
  const auto* bb = static_cast<const std::byte*>(boxes.data());
  const auto* sb = static_cast<const std::byte*>(scores.data());
  m.boxes.assign(bb, bb + boxes.nbytes());
  m.scores.assign(sb, sb + scores.nbytes());
  m.box_shape = boxes.shape();
  m.score_shape = scores.shape();
  m.box_dtype = boxes.dtype();
  m.score_dtype = scores.dtype();
  m.p = p;
  m.center = center;
  m.sel = std::move(sel);
  return {{DType::kI64, to_sym(Shape{rows, 3})}};
}

void nms_run(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const NmsParams p = nms_params(in[0].shape(), in[1].shape(), nms_optional(in));
  const bool center = a.i("center_point_box") != 0;
  std::vector<int64_t> sel;
  {
    NmsMemo& m = nms_memo();
    const std::lock_guard lock(m.mu);
    if (m.center == center && same_params(m.p, p) && m.box_dtype == in[0].dtype() &&
        m.score_dtype == in[1].dtype() && m.box_shape == in[0].shape() &&
        m.score_shape == in[1].shape() && same_bytes(m.boxes, in[0]) && same_bytes(m.scores, in[1]))
      sel = m.sel;
  }
  if (sel.empty()) sel = nms_select(in[0], in[1], p, center);
  if (static_cast<int64_t>(sel.size()) != out[0].numel())
    throw ShapeError(cat("NonMaxSuppression: ", sel.size() / 3, " boxes selected, output is ",
                         out[0].desc().str()));
  std::copy(sel.begin(), sel.end(), out[0].data_as<int64_t>());
}

// Naive: for every (batch, class), repeatedly take the best remaining candidate (score above the
// threshold, highest score, lowest index) and drop every remaining box overlapping it too much.
void nms_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const NmsParams p = nms_params(in[0].shape(), in[1].shape(), nms_optional(in));
  const bool center = a.i("center_point_box") != 0;
  int64_t row = 0;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t c = 0; c < p.classes; ++c) {
      std::vector<bool> alive(static_cast<size_t>(p.spatial));
      for (int64_t i = 0; i < p.spatial; ++i)
        alive[i] = !p.has_score_threshold ||
                   in[1].at((b * p.classes + c) * p.spatial + i) > p.score_threshold;
      for (int64_t taken = 0; taken < p.max_out; ++taken) {
        int64_t best = -1;
        for (int64_t i = 0; i < p.spatial; ++i)
          if (alive[i] && (best < 0 || in[1].at((b * p.classes + c) * p.spatial + i) >
                                           in[1].at((b * p.classes + c) * p.spatial + best)))
            best = i;
        if (best < 0) break;
        const Corners kb = corners(in[0], (b * p.spatial + best) * 4, center);
        for (int64_t i = 0; i < p.spatial; ++i)
          if (alive[i] &&
              iou(kb, corners(in[0], (b * p.spatial + i) * 4, center)) > p.iou_threshold)
            alive[i] = false;
        alive[best] = false;
        for (int64_t v : {b, c, best}) out[0].set(row++, static_cast<double>(v));
      }
    }
}

// ---- Det ---------------------------------------------------------------------------------------

std::vector<TensorType> det_infer(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const SymShape& s = *x.shape;
  if (s.size() < 2 || (s[s.size() - 1].known() && s[s.size() - 2].known() &&
                       s[s.size() - 1].value() != s[s.size() - 2].value()))
    throw ShapeError(cat("Det: input ", x.str(), " must be [*, M, M]"));
  return {{x.dtype, SymShape(s.begin(), s.end() - 2)}};
}

void det_kernel(const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape& s = in[0].shape();
  const int64_t m = s.back(), nb = out[0].numel();
  std::vector<double> a(static_cast<size_t>(m * m));
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t e = 0; e < m * m; ++e) a[e] = in[0].at(b * m * m + e);
    double det = 1;
    for (int64_t col = 0; col < m && det != 0; ++col) {
      int64_t piv = col;
      for (int64_t r = col + 1; r < m; ++r)
        if (std::fabs(a[r * m + col]) > std::fabs(a[piv * m + col])) piv = r;
      if (a[piv * m + col] == 0) {
        det = 0;
        break;
      }
      if (piv != col) {
        for (int64_t j = 0; j < m; ++j) std::swap(a[piv * m + j], a[col * m + j]);
        det = -det;
      }
      const double d = a[col * m + col];
      det *= d;
      for (int64_t r = col + 1; r < m; ++r) {
        const double f = a[r * m + col] / d;
        if (f == 0) continue;
        for (int64_t j = col; j < m; ++j) a[r * m + j] -= f * a[col * m + j];
      }
    }
    out[0].set(b, det);
  }
}

// Laplace expansion along the first row (O(M!)): the naive definition.
double det_laplace(const std::vector<double>& a, int64_t m) {
  if (m == 0) return 1;
  if (m == 1) return a[0];
  double s = 0;
  std::vector<double> minor(static_cast<size_t>((m - 1) * (m - 1)));
  for (int64_t c = 0; c < m; ++c) {
    for (int64_t r = 1; r < m; ++r)
      for (int64_t j = 0, k = 0; j < m; ++j)
        if (j != c) minor[(r - 1) * (m - 1) + k++] = a[r * m + j];
    s += (c % 2 ? -1.0 : 1.0) * a[c] * det_laplace(minor, m - 1);
  }
  return s;
}

void det_reference(const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
  const int64_t m = in[0].shape().back();
  for (int64_t b = 0; b < out[0].numel(); ++b) {
    std::vector<double> a(static_cast<size_t>(m * m));
    for (int64_t e = 0; e < m * m; ++e) a[e] = in[0].at(b * m * m + e);
    out[0].set(b, det_laplace(a, m));
  }
}

}  // namespace

void register_misc_detect(Registry& r) {
  for (const int since : {10, 11}) {
    r.add(def_op("NonMaxSuppression", since, since == 10 ? 10 : INT_MAX)
              .input("boxes", "f32", Arity::kSingle, true)
              .input("scores", "f32", Arity::kSingle, true)
              .input("max_output_boxes_per_class", "i64", Arity::kOptional, true)
              .input("iou_threshold", "f32", Arity::kOptional, true)
              .input("score_threshold", "f32", Arity::kOptional, true)
              .output("selected_indices", "i64")
              .attr("center_point_box", AttrKind::kInt, int64_t{0})
              .describe("greedy per-class box selection by score, dropping boxes whose IoU with "
                        "a kept one exceeds iou_threshold; rows (batch, class, box)")
              .infer(nms_infer)
              .host_kernel([](const LaunchContext& ctx, std::span<const Tensor> in,
                              std::span<Tensor> out) { nms_run(ctx.attr(), in, out); })
              .reference(nms_reference));
  }

  r.add(def_op("Det", 11)
            .input("X", "T")
            .output("Y", "T")
            .type_constraint("T", float_types())
            .describe("Y = determinant of each [M, M] matrix of X [*, M, M]")
            .infer(det_infer)
            .host_kernel(det_kernel)
            .reference(det_reference));
}

}  // namespace asc

// Rotary embedding in the rotate_half spelling (Hugging Face apply_rotary_pos_emb) -> FusedRotary:
//
//   x1 = Slice(x, [0], [h], [-1])          x2 = Slice(x, [h], [>= D], [-1])      (D = 2h: x's last
//   rot = Concat(Neg(x2), x1, axis = -1)                                           dim, known)
//   y = Add(Mul(x, cos), Mul(rot, sin))    (operands of Mul and Add in either order)
//
// Slice's bounds are inputs (opset 10+) or attributes (before); steps, when given, are 1. x, cos
// and sin broadcast (numpy) as in the Muls and the Add.
#include <climits>

#include "registry/error.h"
#include "registry/infer.h"
#include "runtime/fusion.h"

namespace asc {
namespace {

// The ints of input k of node n when it is a constant (or attribute `attr` before opset 10).
bool slice_arg(const FuseGraph& fg, int n, size_t k, const char* attr, std::vector<int64_t>& out) {
  const Node& node = fg.graph().nodes[n];
  out.clear();
  if (node.attrs.has(attr)) {
    out = node.attrs.ints(attr);
    return true;
  }
  if (k >= node.inputs.size() || node.inputs[k] < 0) return false;
  const auto& c = fg.graph().values[node.inputs[k]].constant;
  if (!c || !dtype_is_integer(c->dtype())) return false;
  out = to_int64s(*c);
  return true;
}

// Slice n of x over the last axis: [begin, end) with end clamped to d; false when it is not one.
bool last_axis_slice(const FuseGraph& fg, int n, int x, int64_t d, int64_t& begin, int64_t& end) {
  const Node& node = fg.graph().nodes[n];
  if (node.inputs.empty() || node.inputs[0] != x) return false;
  const auto rank = static_cast<int64_t>(fg.type(x).shape->size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (!slice_arg(fg, n, 1, "starts", starts) || !slice_arg(fg, n, 2, "ends", ends)) return false;
  if (!slice_arg(fg, n, 3, "axes", axes)) axes = {rank - 1};  // absent: every axis (rank 1)
  if (slice_arg(fg, n, 4, "steps", steps) && !(steps.size() == 1 && steps[0] == 1)) return false;
  if (starts.size() != 1 || ends.size() != 1 || axes.size() != 1) return false;
  if (axes[0] != -1 && axes[0] != rank - 1) return false;
  begin = starts[0] < 0 ? starts[0] + d : starts[0];
  end = ends[0] < 0 ? ends[0] + d : std::min(ends[0], d);
  return true;
}

}  // namespace

int fuse_rotary(FuseGraph& fg) {
  Graph& g = fg.graph();
  int made = 0;
  for (int add = 0; add < fg.num_nodes(); ++add) {
    if (!is_op(fg, add, "Add") || g.nodes[add].inputs.size() != 2) continue;
    for (int order = 0; order < 2; ++order) {
      const int m_cos = fg.producer(g.nodes[add].inputs[order], "Mul");
      const int m_sin = fg.producer(g.nodes[add].inputs[1 - order], "Mul");
      if (m_cos < 0 || m_sin < 0 || m_cos == m_sin) continue;
      // rot * sin: rot from Concat(Neg(x2), x1).
      int concat = -1, sin = -1;
      for (int k = 0; k < 2 && concat < 0; ++k) {
        concat = fg.producer(g.nodes[m_sin].inputs[k], "Concat");
        sin = g.nodes[m_sin].inputs[1 - k];
      }
      if (concat < 0 || g.nodes[concat].inputs.size() != 2) continue;
      const int neg = fg.producer(g.nodes[concat].inputs[0], "Neg");
      const int s1 = fg.producer(g.nodes[concat].inputs[1], "Slice");
      const int s2 = neg >= 0 ? fg.producer(g.nodes[neg].inputs[0], "Slice") : -1;
      if (s1 < 0 || s2 < 0) continue;
      const int x = g.nodes[s1].inputs[0];
      const TensorType& xt = fg.type(x);
      if (!xt.shape || xt.shape->empty() || !xt.shape->back().known()) continue;
      if (xt.dtype != DType::kF32 && xt.dtype != DType::kF16 && xt.dtype != DType::kBF16) continue;
      const int64_t d = xt.shape->back().value(), h = d / 2;
      const auto rank = static_cast<int64_t>(xt.shape->size());
      const int64_t axis = g.nodes[concat].attrs.i("axis", 0);
      int64_t b1 = 0, e1 = 0, b2 = 0, e2 = 0;
      if (d % 2 != 0 || (axis != -1 && axis != rank - 1) ||
          !last_axis_slice(fg, s1, x, d, b1, e1) || !last_axis_slice(fg, s2, x, d, b2, e2) ||
          b1 != 0 || e1 != h || b2 != h || e2 != d)
        continue;
      const int cos = other_operand(g, m_cos, x);
      const int y = g.nodes[add].outputs[0];
      if (cos < 0 || cos == x || fg.type(cos).dtype != xt.dtype || fg.type(sin).dtype != xt.dtype)
        continue;
      const int nodes[] = {s1, s2, neg, concat, m_cos, m_sin, add};
      if (!can_fuse(fg, nodes, std::span<const int>(&y, 1))) continue;
      fg.replace(nodes, fused_node("FusedRotary", g.nodes[add].name, {x, cos, sin}, {y}));
      ++made;
      break;
    }
  }
  return made;
}

}  // namespace asc

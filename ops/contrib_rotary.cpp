// RotaryEmbedding (com.microsoft 1), ONNX Runtime's contrib semantics (and RotaryEmbedding-23 of
// ai.onnx, rope23_geom: inputs reordered, the caches optionally per token):
//
//   input       [B, S, N*H] (3-D) or [B, N, S, H] (4-D)
//   position_ids [B, S] (per token) or one element p0 (token s of every batch at p0 + s)
//   cos_cache, sin_cache [max_pos, R/2]
//   output = input with the first R elements of every head vector rotated by the angles of the
//   token's position (contrib.h, rotate); elements R.. pass through.
// R = rotary_embedding_dim, or 2 * cos_cache.shape[1] when 0. H = hidden / num_heads for 3-D
// input when num_heads is given, else R; 4-D input gives N and H. rotary_embedding_dim > 0 needs
// num_heads (as in ONNX Runtime). `scale` is accepted; as in ONNX Runtime's CPU kernel it does not
// change the result (it scales rebuilt caches, which this op never builds). `is_packed_batching`
// is accepted and does not change the dense layout handled here.
//
// A host kernel: the cache lookup is a gather by position value, which a DSL box cannot express.
// Tokens run in parallel; each rotates its N head vectors with the token's cos/sin row in f32
// (vectorised loops), f16/bf16 converted per row.
#include <vector>

#include "ops/contrib.h"
#include "registry/infer.h"
#include "registry/op_def.h"

namespace asc::contrib {
namespace {

struct RopeGeom {
  int64_t batch = 0, seq = 0, heads = 0, head = 0, rot = 0, max_pos = 0;
  bool transposed = false;   // [B, N, S, H]
  bool per_token = false;    // position_ids [B, S]
  bool direct = false;       // no position_ids: the caches are [B, S, R/2] (RotaryEmbedding-23)
  int64_t token_stride = 0;  // elements between tokens s and s + 1 of one head
  int64_t head_stride = 0;   // elements between heads n and n + 1 of one token
};

std::string shapes_str(const Shape& x, const Shape& pos, const Shape& cos, const Shape& sin) {
  return cat("input ", to_string(x), ", position_ids ", to_string(pos), ", cos_cache ",
             to_string(cos), ", sin_cache ", to_string(sin));
}

RopeGeom rope_geom(const Attrs& a, const Shape& x, const Shape& pos, const Shape& cos,
                   const Shape& sin) {
  auto fail = [&](const std::string& why) {
    return ShapeError(cat("RotaryEmbedding: ", why, " (", shapes_str(x, pos, cos, sin), ")"));
  };
  if (x.size() != 3 && x.size() != 4) throw fail("input must be 3-D or 4-D");
  if (cos.size() != 2 || cos != sin) throw fail("cos_cache and sin_cache must be equal 2-D shapes");
  const int64_t num_heads = a.i("num_heads"), rot_attr = a.i("rotary_embedding_dim");
  if (rot_attr > 0 && num_heads <= 0) throw fail("rotary_embedding_dim needs num_heads");
  RopeGeom g;
  g.batch = x[0];
  g.rot = rot_attr > 0 ? rot_attr : 2 * cos[1];
  g.max_pos = cos[0];
  g.transposed = x.size() == 4;
  if (g.transposed) {
    g.heads = x[1];
    g.seq = x[2];
    g.head = x[3];
  } else {
    g.seq = x[1];
    g.head = num_heads > 0 ? x[2] / num_heads : g.rot;
    if (g.head <= 0 || x[2] % g.head != 0)
      throw fail(cat("hidden size ", x[2], " is not a multiple of the head size ", g.head));
    g.heads = x[2] / g.head;
  }
  if (g.rot % 2 != 0 || g.rot > g.head || cos[1] != g.rot / 2)
    throw fail(cat("rotary dim ", g.rot, " must be even, <= head size ", g.head,
                   " and twice cos_cache.shape[1]"));
  if (numel(pos) == 1 && pos.size() <= 1) {
    g.per_token = false;
  } else if (pos == Shape{g.batch, g.seq}) {
    g.per_token = true;
  } else {
    throw fail("position_ids must have one element or be [batch, sequence]");
  }
  g.token_stride = g.transposed ? g.head : g.heads * g.head;
  g.head_stride = g.transposed ? g.seq * g.head : g.head;
  return g;
}

// RotaryEmbedding-23 (ai.onnx): inputs X, cos_cache, sin_cache, position_ids (optional). 3-D X
// needs num_heads (H = hidden / num_heads); R = rotary_embedding_dim or H. With position_ids
// [B, S] the caches are [max_pos, R/2]; without, [B, S, R/2] rows taken by token.
RopeGeom rope23_geom(const Attrs& a, const Shape& x, const Shape& cos, const Shape& sin,
                     const Shape* pos) {
  const Shape none;
  auto fail = [&](const std::string& why) {
    return ShapeError(
        cat("RotaryEmbedding-23: ", why, " (", shapes_str(x, pos ? *pos : none, cos, sin), ")"));
  };
  if (x.size() != 3 && x.size() != 4) throw fail("input must be 3-D or 4-D");
  const int64_t num_heads = a.i("num_heads"), rot_attr = a.i("rotary_embedding_dim");
  RopeGeom g;
  g.batch = x[0];
  g.transposed = x.size() == 4;
  if (g.transposed) {
    g.heads = x[1];
    g.seq = x[2];
    g.head = x[3];
  } else {
    if (num_heads <= 0) throw fail("a 3-D input needs num_heads");
    g.seq = x[1];
    g.heads = num_heads;
    if (x[2] % num_heads != 0)
      throw fail(cat("hidden size ", x[2], " is not a multiple of num_heads ", num_heads));
    g.head = x[2] / num_heads;
  }
  g.rot = rot_attr > 0 ? rot_attr : g.head;
  if (g.rot % 2 != 0 || g.rot > g.head)
    throw fail(cat("rotary dim ", g.rot, " must be even and <= head size ", g.head));
  if (cos != sin) throw fail("cos_cache and sin_cache must have one shape");
  if (pos) {
    if (cos.size() != 2 || cos[1] != g.rot / 2)
      throw fail(cat("with position_ids the caches must be [max_position, ", g.rot / 2, "]"));
    if (*pos != Shape{g.batch, g.seq}) throw fail("position_ids must be [batch, sequence]");
    g.per_token = true;
    g.max_pos = cos[0];
  } else {
    if (cos != Shape{g.batch, g.seq, g.rot / 2})
      throw fail(cat("without position_ids the caches must be [", g.batch, ", ", g.seq, ", ",
                     g.rot / 2, "]"));
    g.direct = true;
  }
  g.token_stride = g.transposed ? g.head : g.heads * g.head;
  g.head_stride = g.transposed ? g.seq * g.head : g.head;
  return g;
}

// Cache row of token (b, s); ShapeError when a position is outside the caches.
int64_t position(const RopeGeom& g, const Tensor& pos, int64_t b, int64_t s) {
  if (g.direct) return b * g.seq + s;
  const int64_t p = g.per_token ? static_cast<int64_t>(pos.at(b * g.seq + s))
                                : static_cast<int64_t>(pos.at(0)) + s;
  if (p < 0 || p >= g.max_pos)
    throw ShapeError(cat("RotaryEmbedding: position ", p, " of batch ", b, " token ", s,
                         " is outside the cos/sin caches of ", g.max_pos, " rows"));
  return p;
}

int64_t token_base(const RopeGeom& g, int64_t b, int64_t s) {
  return b * g.seq * g.heads * g.head + s * g.token_stride;
}

void rope_run(const LaunchContext& ctx, const RopeGeom& g, const Tensor& x, const Tensor& pos,
              const Tensor& cos, const Tensor& sin, Tensor& y) {
  const bool interleaved = ctx.attr().i("interleaved") != 0;
  const DType dt = x.dtype();
  for (int64_t b = 0; b < g.batch; ++b)  // positions first: errors before any work
    for (int64_t s = 0; s < g.seq; ++s) position(g, pos, b, s);
  ctx.parallel(g.batch * g.seq, [&](int64_t begin, int64_t end) {
    const int64_t half = g.rot / 2;
    std::vector<float> cs(static_cast<size_t>(2 * half)), row(static_cast<size_t>(g.head));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / g.seq, s = t % g.seq, p = position(g, pos, b, s);
      load_f32(cos.dtype(), cos.data(), p * half, half, cs.data());
      load_f32(sin.dtype(), sin.data(), p * half, half, cs.data() + half);
      for (int64_t n = 0; n < g.heads; ++n) {
        const int64_t at = token_base(g, b, s) + n * g.head_stride;
        if (dt == DType::kF32) {
          rotate(x.data_as<float>() + at, cs.data(), cs.data() + half, g.rot, g.head, interleaved,
                 y.data_as<float>() + at);
          continue;
        }
        load_f32(dt, x.data(), at, g.head, row.data());
        rotate(row.data(), cs.data(), cs.data() + half, g.rot, g.head, interleaved, row.data());
        store_f32(dt, y.data(), at, g.head, row.data());
      }
    }
  });
}

void rope_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &pos = in[1], &cos = in[2], &sin = in[3];
  rope_run(ctx, rope_geom(ctx.attr(), x.shape(), pos.shape(), cos.shape(), sin.shape()), x, pos,
           cos, sin, out[0]);
}

void rope23_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const bool has_pos = in.size() > 3 && in[3].defined();
  const Tensor none;
  const RopeGeom g = rope23_geom(ctx.attr(), in[0].shape(), in[1].shape(), in[2].shape(),
                                 has_pos ? &in[3].shape() : nullptr);
  rope_run(ctx, g, in[0], has_pos ? in[3] : none, in[1], in[2], out[0]);
}

void rope_reference_run(const Attrs& a, const RopeGeom& g, const Tensor& x, const Tensor& pos,
                        const Tensor& cos, const Tensor& sin, std::span<Tensor> out) {
  const int64_t half = g.rot / 2;
  std::vector<double> xv(static_cast<size_t>(g.head)), yv(xv.size()), c(static_cast<size_t>(half)),
      sn(c.size());
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t s = 0; s < g.seq; ++s) {
      const int64_t p = position(g, pos, b, s);
      for (int64_t k = 0; k < half; ++k) {
        c[static_cast<size_t>(k)] = cos.at(p * half + k);
        sn[static_cast<size_t>(k)] = sin.at(p * half + k);
      }
      for (int64_t n = 0; n < g.heads; ++n) {
        const int64_t at = token_base(g, b, s) + n * g.head_stride;
        for (int64_t k = 0; k < g.head; ++k) xv[static_cast<size_t>(k)] = x.at(at + k);
        rotate_ref(xv.data(), c.data(), sn.data(), g.rot, g.head, a.i("interleaved") != 0,
                   yv.data());
        for (int64_t k = 0; k < g.head; ++k) out[0].set(at + k, yv[static_cast<size_t>(k)]);
      }
    }
}

void rope_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &pos = in[1], &cos = in[2], &sin = in[3];
  rope_reference_run(a, rope_geom(a, x.shape(), pos.shape(), cos.shape(), sin.shape()), x, pos, cos,
                     sin, out);
}

void rope23_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const bool has_pos = in.size() > 3 && in[3].defined();
  const Tensor none;
  const RopeGeom g = rope23_geom(a, in[0].shape(), in[1].shape(), in[2].shape(),
                                 has_pos ? &in[3].shape() : nullptr);
  rope_reference_run(a, g, in[0], has_pos ? in[3] : none, in[1], in[2], out);
}

std::vector<TensorType> rope23_infer(const InferContext& c) {
  std::vector<std::optional<Shape>> s;
  for (const auto& t : c.inputs) s.push_back(t.shape ? to_concrete(*t.shape) : std::nullopt);
  const bool has_pos = c.inputs.size() > 3 && c.inputs[3].dtype != DType::kUndefined;
  if (s[0] && s[1] && s[2] && (!has_pos || s[3]))
    rope23_geom(c.attrs, *s[0], *s[1], *s[2], has_pos ? &*s[3] : nullptr);
  if (c.inputs[0].shape && c.inputs[0].shape->size() != 3 && c.inputs[0].shape->size() != 4)
    throw ShapeError(cat("RotaryEmbedding-23: input ", c.inputs[0].str(), " must be 3-D or 4-D"));
  return infer_unary(c);
}

std::vector<TensorType> rope_infer(const InferContext& c) {
  std::vector<std::optional<Shape>> s;
  for (const auto& t : c.inputs) s.push_back(t.shape ? to_concrete(*t.shape) : std::nullopt);
  if (s[0] && s[1] && s[2] && s[3]) rope_geom(c.attrs, *s[0], *s[1], *s[2], *s[3]);
  if (c.inputs[0].shape && c.inputs[0].shape->size() != 3 && c.inputs[0].shape->size() != 4)
    throw ShapeError(cat("RotaryEmbedding: input ", c.inputs[0].str(), " must be 3-D or 4-D"));
  return infer_unary(c);
}

}  // namespace

void add_rotary(Registry& r) {
  r.add(def_op("RotaryEmbedding", 1, INT_MAX, kDomain)
            .input("input", "T")
            .input("position_ids", "M")
            .input("cos_cache", "T")
            .input("sin_cache", "T")
            .output("output", "T")
            .attr("interleaved", AttrKind::kInt, int64_t{0})
            .attr("is_packed_batching", AttrKind::kInt, int64_t{0})
            .attr("num_heads", AttrKind::kInt, int64_t{0})
            .attr("rotary_embedding_dim", AttrKind::kInt, int64_t{0})
            .attr("scale", AttrKind::kFloat, 1.0f)
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .type_constraint("M", {DType::kI64})
            .describe("rotary position embedding of every head vector from cos/sin caches")
            .infer(rope_infer)
            .host_kernel(rope_kernel)
            .reference(rope_reference));
  r.add(def_op("RotaryEmbedding", 23)  // the ONNX form (rope23_geom)
            .input("X", "T")
            .input("cos_cache", "T")
            .input("sin_cache", "T")
            .input("position_ids", "M", Arity::kOptional)
            .output("Y", "T")
            .attr("interleaved", AttrKind::kInt, int64_t{0})
            .attr("num_heads", AttrKind::kInt, int64_t{0})
            .attr("rotary_embedding_dim", AttrKind::kInt, int64_t{0})
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .type_constraint("M", {DType::kI64})
            .describe("rotary position embedding of every head vector from cos/sin caches (rows "
                      "by position_ids, or per token)")
            .infer(rope23_infer)
            .host_kernel(rope23_kernel)
            .reference(rope23_reference));
}

}  // namespace asc::contrib

// DepthToSpace and SpaceToDepth on [N, C, H, W] with block size b. Both are a transpose of a 6-D
// view: a tile kernel over copy_view (ops/movement.h), the output written contiguously:
//   DepthToSpace DCR: x as [N, b, b, C/b², H, W] -> [N, C/b², H, b, W, b]   perm 0,3,4,1,5,2
//   DepthToSpace CRD: x as [N, C/b², b, b, H, W] -> [N, C/b², H, b, W, b]   perm 0,1,4,2,5,3
//   SpaceToDepth:     x as [N, C, H/b, b, W/b, b] -> [N, b, b, C, H/b, W/b]  perm 0,3,5,1,2,4
#include <climits>
#include <cstring>

#include "ops/movement.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

enum class SpaceKind : uint8_t { kDepthToSpace, kSpaceToDepth };

bool crd_mode(const Attrs& a, bool has_mode) {
  if (!has_mode) return false;
  const std::string& m = a.s("mode");
  if (m != "DCR" && m != "CRD")
    throw ShapeError(cat("DepthToSpace: mode '", m, "' is not DCR or CRD"));
  return m == "CRD";
}

std::vector<TensorType> infer_space(SpaceKind kind, bool has_mode, const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const char* op = kind == SpaceKind::kDepthToSpace ? "DepthToSpace" : "SpaceToDepth";
  const int64_t b = c.attrs.i("blocksize");
  crd_mode(c.attrs, has_mode);
  if (b <= 0) throw ShapeError(cat(op, ": blocksize ", b, " must be positive"));
  if (!x.shape) return {{x.dtype, SymShape(4, Dim())}};
  const SymShape& s = *x.shape;
  if (s.size() != 4) throw ShapeError(cat(op, ": input must be 4-D [N,C,H,W], got ", to_string(s)));
  SymShape out = s;
  auto scale = [](const Dim& d, int64_t num, int64_t den) {
    return d.known() ? Dim(d.value() * num / den) : Dim();
  };
  if (kind == SpaceKind::kDepthToSpace) {
    if (s[1].known() && s[1].value() % (b * b) != 0)
      throw ShapeError(cat(op, ": channels of ", to_string(s), " are not a multiple of ", b * b));
    out[1] = scale(s[1], 1, b * b);
    out[2] = scale(s[2], b, 1);
    out[3] = scale(s[3], b, 1);
  } else {
    for (int d : {2, 3})
      if (s[d].known() && s[d].value() % b != 0)
        throw ShapeError(cat(op, ": H and W of ", to_string(s), " are not multiples of ", b));
    out[1] = scale(s[1], b * b, 1);
    out[2] = scale(s[2], 1, b);
    out[3] = scale(s[3], 1, b);
  }
  return {{x.dtype, out}};
}

// The output as a strided view of the input (copy_view merges what stays contiguous).
CopyView space_view(SpaceKind kind, bool has_mode, const LaunchContext& ctx) {
  const Shape& s = ctx.inputs.at(0).shape;
  const int64_t b = ctx.attr().i("blocksize");
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  Shape view;
  std::vector<int> perm;
  if (kind == SpaceKind::kSpaceToDepth) {
    view = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
  } else if (crd_mode(ctx.attr(), has_mode)) {
    view = {n, c / (b * b), b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    view = {n, b, b, c / (b * b), h, w};
    perm = {0, 3, 4, 1, 5, 2};
  }
  const Shape vs = contiguous_strides(view);
  Shape dims, src_strides;
  for (int p : perm) {
    dims.push_back(view[p]);
    src_strides.push_back(vs[p]);
  }
  return copy_view(dims, src_strides, 0);
}

// Naive reference from the index formulas:
//   DepthToSpace: y[n, c, h*b + i, w*b + j] = x[n, DCR ? (i*b + j)*C' + c : c*b*b + i*b + j, h, w]
//   SpaceToDepth: y[n, (i*b + j)*C + c, h, w] = x[n, c, h*b + i, w*b + j]
void space_reference(SpaceKind kind, bool has_mode, const Attrs& a, std::span<const Tensor> in,
                     std::span<Tensor> out) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  const int64_t b = a.i("blocksize");
  const bool crd = crd_mode(a, has_mode);
  const Shape xs = contiguous_strides(x.shape());
  const size_t es = dtype_size(x.dtype());
  int64_t idx[4];
  for (int64_t e = 0; e < y.numel(); ++e) {
    unravel(e, y.shape(), idx);
    const int64_t n = idx[0], c = idx[1], hh = idx[2], ww = idx[3];
    int64_t src;
    if (kind == SpaceKind::kDepthToSpace) {
      const int64_t cy = y.shape()[1], i = hh % b, j = ww % b;
      const int64_t cx = crd ? c * b * b + i * b + j : (i * b + j) * cy + c;
      src = n * xs[0] + cx * xs[1] + (hh / b) * xs[2] + (ww / b) * xs[3];
    } else {
      const int64_t cx_n = x.shape()[1], blk = c / cx_n, cx = c % cx_n;
      const int64_t i = blk / b, j = blk % b;
      src = n * xs[0] + cx * xs[1] + (hh * b + i) * xs[2] + (ww * b + j) * xs[3];
    }
    std::memcpy(bytes_of(y) + e * es, bytes_of(x) + src * es, es);
  }
}

void add_space(Registry& r, SpaceKind kind, int since, int until, bool has_mode) {
  OpDef d =
      def_op(kind == SpaceKind::kDepthToSpace ? "DepthToSpace" : "SpaceToDepth", since, until);
  d.input("input", "T").output("output", "T").attr("blocksize", AttrKind::kInt);
  if (has_mode) d.attr("mode", AttrKind::kString, std::string("DCR"));
  d.type_constraint("T", movement_types())
      .trait(kMovement)
      .describe(kind == SpaceKind::kSpaceToDepth
                    ? "output = b x b spatial blocks of input moved into channels"
                : has_mode ? "output = channel blocks of input moved into b x b spatial blocks "
                             "(DCR or CRD order)"
                           : "output = channel blocks of input moved into b x b spatial blocks "
                             "(DCR order)")
      .infer([=](const InferContext& c) { return infer_space(kind, has_mode, c); })
      .tiling([=](const LaunchContext& ctx) {
        return copy_tiling(ctx, space_view(kind, has_mode, ctx));
      })
      .kernel([=](TileBuilder& t) { copy_kernel(t, space_view(kind, has_mode, t.ctx())); })
      .reference([=](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        space_reference(kind, has_mode, a, in, out);
      });
  r.add(std::move(d));
}

}  // namespace

void register_movement_space(Registry& r) {
  add_space(r, SpaceKind::kDepthToSpace, 1, 10, false);
  add_space(r, SpaceKind::kDepthToSpace, 11, INT_MAX, true);
  add_space(r, SpaceKind::kSpaceToDepth, 1, INT_MAX, false);
}

}  // namespace asc

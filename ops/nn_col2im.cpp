// Col2Im (18): column blocks summed back into an image, PyTorch's fold, for any number of spatial
// dims. A host kernel: the blocks overlap, so output elements accumulate a varying number of
// inputs (irregular, and Im2Col's inverse runs once per model at most in the exporters' graphs).
//
// Layout: input [N, C * prod(block), L] with the block offset b = (b_1..b_k) the inner part of
// dim 1 (row-major over block_shape) and the block index l = (l_1..l_k) row-major over the
// block grid n_i = (img_i + pb_i + pe_i - (d_i (block_i - 1) + 1)) / s_i + 1, L = prod n_i.
// Output [N, C, img...]: out[n, c, p] += in[n, c * B + b, l] at p_i = l_i s_i - pb_i + b_i d_i
// when 0 <= p_i < img_i.
#include <vector>

#include "ops/nn.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

struct Fold {
  std::vector<int64_t> img, block, s, d, pb, pe, grid;
  int64_t channels = 0;    // C
  int64_t block_size = 1;  // prod(block)
  int64_t blocks = 1;      // L
  int64_t image_size = 1;  // prod(img)
};

std::vector<int64_t> per_dim(const Attrs& a, const char* name, size_t n, int64_t dflt) {
  if (!a.has(name) || a.ints(name).empty()) return std::vector<int64_t>(n, dflt);
  const auto& v = a.ints(name);
  if (v.size() != n)
    throw ShapeError(cat("Col2Im: ", name, " ", to_string(Shape(v)), " does not have ", n,
                         " entries (one per spatial dim)"));
  return v;
}

// Checks the geometry against the input's dims (x: [N, C * B, L]; -1 where unknown).
Fold fold_of(const Attrs& a, const Shape& x, const std::vector<int64_t>& img,
             const std::vector<int64_t>& block) {
  Fold f;
  const size_t k = img.size();
  if (k == 0 || block.size() != k)
    throw ShapeError(cat("Col2Im: image_shape ", to_string(Shape(img)), " and block_shape ",
                         to_string(Shape(block)), " must be 1-D of the same size >= 1"));
  if (x.size() != 3)
    throw ShapeError(cat("Col2Im: input ", to_string(x), " is not [N, C * prod(block), L]"));
  f.img = img;
  f.block = block;
  f.s = per_dim(a, "strides", k, 1);
  f.d = per_dim(a, "dilations", k, 1);
  const std::vector<int64_t> pads = per_dim(a, "pads", 2 * k, 0);
  f.pb.assign(pads.begin(), pads.begin() + static_cast<int64_t>(k));
  f.pe.assign(pads.begin() + static_cast<int64_t>(k), pads.end());
  for (size_t i = 0; i < k; ++i) {
    if (img[i] < 0 || block[i] < 1 || f.s[i] < 1 || f.d[i] < 1 || f.pb[i] < 0 || f.pe[i] < 0)
      throw ShapeError(cat("Col2Im: image_shape ", to_string(Shape(img)), ", block_shape ",
                           to_string(Shape(block)),
                           ", strides, dilations and pads must be "
                           "positive (pads and image dims >= 0)"));
    const int64_t span = img[i] + f.pb[i] + f.pe[i] - (f.d[i] * (block[i] - 1) + 1);
    if (span < 0)
      throw ShapeError(cat("Col2Im: block ", to_string(Shape(block)), " (dilations ",
                           to_string(Shape(f.d)), ") is larger than the padded image ",
                           to_string(Shape(img))));
    f.grid.push_back(span / f.s[i] + 1);
    f.block_size *= block[i];
    f.blocks *= f.grid.back();
    f.image_size *= img[i];
  }
  if (x[1] >= 0 && x[1] % f.block_size != 0)
    throw ShapeError(cat("Col2Im: input dim 1 of ", to_string(x),
                         " is not a multiple of prod(block_shape) = ", f.block_size));
  if (x[2] >= 0 && x[2] != f.blocks)
    throw ShapeError(cat("Col2Im: input ", to_string(x), " has ", x[2], " blocks, the image ",
                         to_string(Shape(img)), " holds ", f.blocks));
  f.channels = x[1] >= 0 ? x[1] / f.block_size : -1;
  return f;
}

Fold fold_of(const Attrs& a, std::span<const Tensor> in) {
  return fold_of(a, in[0].shape(), to_int64s(in[1]), to_int64s(in[2]));
}

std::vector<TensorType> infer_col2im(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const std::vector<int64_t> img = to_int64s(need_value(c, 1));
  const std::vector<int64_t> block = to_int64s(need_value(c, 2));
  if (!x.shape) return {{x.dtype, std::nullopt}};
  const Fold f = fold_of(c.attrs, known_dims(*x.shape), img, block);
  SymShape out = {(*x.shape)[0], f.channels >= 0 ? Dim(f.channels) : Dim()};
  for (int64_t v : img) out.push_back(Dim(v));
  return {{x.dtype, out}};
}

// Calls f(offset of the input element, offset of the output element) for every input element
// that lands inside the image, one (n, c) plane after the other.
template <class F>
void for_each_fold(const Fold& f, int64_t planes, F&& fn) {
  const size_t k = f.img.size();
  std::vector<int64_t> b(k), l(k);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const int64_t in_plane = plane * f.block_size * f.blocks;
    const int64_t out_plane = plane * f.image_size;
    for (int64_t bi = 0; bi < f.block_size; ++bi) {
      for (int64_t r = bi, i = static_cast<int64_t>(k); i-- > 0;) {
        b[i] = r % f.block[i];
        r /= f.block[i];
      }
      for (int64_t li = 0; li < f.blocks; ++li) {
        for (int64_t r = li, i = static_cast<int64_t>(k); i-- > 0;) {
          l[i] = r % f.grid[i];
          r /= f.grid[i];
        }
        int64_t o = 0;
        bool inside = true;
        for (size_t i = 0; i < k && inside; ++i) {
          const int64_t p = l[i] * f.s[i] - f.pb[i] + b[i] * f.d[i];
          inside = p >= 0 && p < f.img[i];
          o = o * f.img[i] + p;
        }
        if (inside) fn(in_plane + bi * f.blocks + li, out_plane + o);
      }
    }
  }
}

void col2im_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  const Fold f = fold_of(ctx.attr(), in);
  const int64_t planes = in[0].shape()[0] * f.channels;
  with_compute(in[0].dtype(), [&](auto tag) {
    using C = decltype(tag);
    std::vector<C> scratch;
    const C* x = read_as(in[0], scratch, tag);
    std::vector<C> y(static_cast<size_t>(out[0].numel()), C(0));
    for_each_fold(f, planes, [&](int64_t i, int64_t o) { y[o] += x[i]; });
    write_as(out[0], y.data());
  });
}

void col2im_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Fold f = fold_of(a, in);
  std::vector<double> y(static_cast<size_t>(out[0].numel()), 0.0);
  for_each_fold(f, in[0].shape()[0] * f.channels,
                [&](int64_t i, int64_t o) { y[o] += in[0].at(i); });
  for (int64_t o = 0; o < out[0].numel(); ++o) out[0].set(o, y[o]);
}

}  // namespace

void register_nn_col2im(Registry& r) {
  r.add(def_op("Col2Im", 18)
            .input("input", "T")
            .input("image_shape", "i64", Arity::kSingle, true)
            .input("block_shape", "i64", Arity::kSingle, true)
            .output("output", "T")
            .attr("dilations", AttrKind::kInts, std::vector<int64_t>{})
            .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
            .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
            .type_constraint("T", numeric_types())
            .describe("output [N, C, image...] = sum of the column blocks of input "
                      "[N, C * prod(block), L] at their image positions (PyTorch's fold)")
            .infer(infer_col2im)
            .host_kernel(col2im_kernel)
            .reference(col2im_reference));
}

}  // namespace asc

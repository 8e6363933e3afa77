#include "runtime/weight_pack.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "ops/fused.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/fusion.h"
#include "runtime/precision.h"
#include "runtime/sym_infer.h"

namespace asc {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

bool reads_b(const Node& n) {
  return (n.op_type == "MatMul" && n.domain.empty()) ||
         (n.op_type == "FusedMatMulBias" && n.domain == "ai.asc");
}

}  // namespace

bool WeightPacking::empty() const {
  return std::none_of(kn.begin(), kn.end(), [](const Shape& s) { return !s.empty(); });
}

std::string WeightPacking::layout() const {
  return cat("panels", panel, "x", k_pack);
}

Shape WeightPacking::packed_shape(const Shape& s) const {
  return {ceil_div(s[1], panel), ceil_div(s[0], k_pack) * k_pack * panel};
}

namespace {

// Packs `cols` columns starting at panel q0 of a [k, ..] source (dtype w.dtype, row stride ldb;
// src points at the first of those columns) into p.
void pack_range(const WeightPacking& w, const void* src, int64_t ldb, int64_t k, int64_t cols,
                int64_t q0, Tensor& p) {
  const size_t es = dtype_size(w.dtype);
  cpu::gemm_pack_b(w.dtype, src, ldb, 1, k, cols,
                   static_cast<std::byte*>(p.data()) + q0 * p.shape()[1] * es);
}

constexpr int64_t kGrain = 8;  // panels per task

}  // namespace

Tensor WeightPacking::pack(const Tensor& b) const {
  if (b.dtype() != dtype || b.shape().size() != 2)
    throw Error(cat("weight packing: ", dtype_name(b.dtype()), " ", to_string(b.shape()),
                    " is not a [K, N] ", dtype_name(dtype), " weight"));
  const int64_t k = b.shape()[0], n = b.shape()[1], panels = ceil_div(n, panel);
  Tensor p = weight_storage(dtype, packed_shape(b.shape()));
  tbb::parallel_for(int64_t{0}, ceil_div(panels, kGrain), [&](int64_t t) {
    const int64_t j0 = t * kGrain * panel, cols = std::min(n, j0 + kGrain * panel) - j0;
    pack_range(*this, static_cast<const std::byte*>(b.data()) + j0 * dtype_size(dtype), n, k, cols,
               t * kGrain, p);
  });
  return p;
}

Tensor WeightPacking::pack_converted(const Tensor& w) const {
  if (w.dtype() == dtype) return pack(w);  // nothing to convert
  if (w.dtype() != DType::kF32 || w.shape().size() != 2 || dtype_size(dtype) != 2)
    throw Error(cat("weight packing: ", dtype_name(w.dtype()), " ", to_string(w.shape()),
                    " is not a [K, N] f32 weight to convert to ", dtype_name(dtype)));
  const int64_t k = w.shape()[0], n = w.shape()[1], panels = ceil_div(n, panel);
  Tensor p = weight_storage(dtype, packed_shape(w.shape()));
  const float* x = w.data_as<float>();
  tbb::parallel_for(int64_t{0}, ceil_div(panels, kGrain), [&](int64_t t) {
    const int64_t q0 = t * kGrain, q1 = std::min(panels, q0 + kGrain);
    const int64_t j0 = q0 * panel, cols = std::min(n, q1 * panel) - j0;
    std::vector<uint16_t> low(static_cast<size_t>(k * cols));  // these columns, converted
    for (int64_t r = 0; r < k; ++r)
      convert_values(x + r * n + j0, low.data() + r * cols, cols, dtype);
    pack_range(*this, low.data(), cols, k, cols, q0, p);
  });
  return p;
}

WeightPacking kernel_packing(DType to) {
  WeightPacking p;
  if (to != DType::kBF16 && to != DType::kF32) return p;  // f16 would pack widened
  const cpu::GemmKernel& kern = cpu::gemm_kernel(to);
  if (kern.packed != to) return p;  // this CPU widens bf16 to f32 panels
  p.dtype = to;
  p.panel = kern.nr;
  p.k_pack = kern.k_pack;
  return p;
}

Attrs packed_matmul_attrs(const WeightPacking& p, const Shape& kn) {
  Attrs a;
  a.set("k", kn[0]);
  a.set("n", kn[1]);
  a.set("panel", p.panel);
  a.set("k_pack", static_cast<int64_t>(p.k_pack));
  return a;
}

WeightPacking plan_weight_packing(const Graph& g, DType to, bool stored_too, int64_t copy_limit) {
  const bool convert = to == DType::kF16 || to == DType::kBF16;
  std::vector<int> as_b(g.values.size(), 0), other(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const int v = n.inputs[k];
      if (v < 0) continue;
      (k == 1 && reads_b(n) ? as_b : other)[v] += 1;
    }
  for (int v : g.outputs) other[v] += 1;
  // The candidates with the dtype each is stored in (`to` once converted, else its own), and
  // the elements per such dtype: the packing is that of the dtype with the most.
  std::vector<DType> stored(g.values.size(), DType::kUndefined);
  std::vector<bool> copied(g.values.size(), false);  // needs no conversion: packing copies it
  int64_t copy_bytes = 0;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (!val.constant || as_b[v] == 0 || other[v] > 0) continue;
    const DType own = val.constant->dtype();
    const DType d = convert && own == DType::kF32 ? to : own;
    const Shape& s = val.constant->shape();
    if ((d != DType::kF32 && d != DType::kBF16) || s.size() != 2 || s[0] <= 0 || s[1] <= 0)
      continue;
    stored[v] = d;
    copied[v] = d == own;
    if (d == own) copy_bytes += static_cast<int64_t>(val.constant->nbytes());
  }
  // Copies of mapped weights only into a weight cache, or when they are few bytes in all.
  const bool copy = stored_too || copy_bytes <= copy_limit;
  int64_t elems[2] = {0, 0};  // f32, bf16
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (copied[v] && !copy) stored[v] = DType::kUndefined;
    if (stored[v] == DType::kUndefined) continue;
    const Shape& s = g.values[v].constant->shape();
    elems[stored[v] == DType::kBF16] += s[0] * s[1];
  }
  WeightPacking p = kernel_packing(elems[1] > elems[0] ? DType::kBF16 : DType::kF32);
  if (p.dtype == DType::kUndefined) return p;
  p.kn.assign(g.values.size(), Shape{});
  for (size_t v = 0; v < g.values.size(); ++v)
    if (stored[v] == p.dtype) p.kn[v] = g.values[v].constant->shape();
  return p;
}

int use_packed_weights(Graph& g, const WeightPacking& p) {
  int rewritten = 0;
  for (Node& n : g.nodes) {
    if (!reads_b(n) || n.inputs.size() < 2 || !p.packs(n.inputs[1])) continue;
    const Shape& kn = p.kn[n.inputs[1]];
    Node r = fused_node("PackedMatMul", n.name, n.inputs, n.outputs, packed_matmul_attrs(p, kn));
    r.attrs.set("activation", n.attrs.has("activation") ? n.attrs.s("activation") : "none");
    n = std::move(r);
    ++rewritten;
  }
  for (size_t v = 0; v < g.values.size(); ++v)
    if (p.packs(static_cast<int>(v))) g.values[v].type.shape = to_sym(p.packed_shape(p.kn[v]));
  return rewritten;
}

namespace {

// Channels per block when a depthwise weight runs as a grouped conv of block-diagonal weights:
// a divisor of C (0: none fits). A tile is one block, its whole K in one step. On a small map
// (7x7, 14x14: a block's column matrix over the whole output plane, `cols_bytes` per channel,
// fits in L0B, and its block-diagonal weight, b x b taps of `tap_bytes`, in L0A) the cpu runs a
// block's channels in the 16 vector lanes and blocks of 12 make tiles too small to pay for their
// setup: there the block is the divisor that fills the lanes best, the larger on a tie, leaving
// at least 8 blocks (MobileNetV3-Large's 960 channels 5x5 on 7x7 in blocks of 64, its 200 on
// 14x14 in blocks of 25 rather than 8). Elsewhere whole micro-kernel panels first; 16 channels
// are one block, not two of 8 with half of every vector lane-idle (MobileNetV3's 16-channel 3x3/2
// on 112x112 alone: 0.086 -> 0.045 ms on one thread; the whole model 4 % faster).
int64_t depthwise_block(int64_t c, int64_t mr, int64_t cols_bytes, int64_t tap_bytes,
                        int64_t l0_bytes) {
  int64_t best = 0;
  double filled = 0;
  for (int64_t b = 8; cols_bytes > 0 && b <= c / 8; ++b) {
    if (c % b != 0 || b * cols_bytes > l0_bytes || b * b * tap_bytes > l0_bytes) continue;
    const double f = static_cast<double>(b) / static_cast<double>((b + 15) / 16 * 16);
    if (f >= filled) filled = f, best = b;
  }
  if (best > 0) return best;
  for (int64_t b : {mr, 2 * mr, int64_t{16}, int64_t{8}, int64_t{6}, int64_t{4}})
    if (b > 1 && c % b == 0 && (b < c || b == 16)) return b;
  return 0;
}

// W [C, 1, k..] -> [C, b, k..] with W'[c, c % b] = W[c, 0] and zeros elsewhere.
Tensor block_diagonal(const Tensor& w, int64_t b) {
  Shape shape = w.shape();
  shape[1] = b;
  Tensor d(w.dtype(), shape);
  const int64_t c = shape[0], win = w.numel() / c;
  const size_t es = dtype_size(w.dtype());
  std::memset(d.data(), 0, d.nbytes());
  for (int64_t ch = 0; ch < c; ++ch)
    std::memcpy(static_cast<std::byte*>(d.data()) + ((ch * b + ch % b) * win) * es,
                static_cast<const std::byte*>(w.data()) + ch * win * es, win * es);
  return d;
}

// Bytes of one input channel's column matrix over conv n's whole output plane: its window's
// `tap_bytes` (one channel's weights) per position; 0 where the output's spatial dims are not
// known.
int64_t column_bytes(const std::vector<TensorType>& types, const Node& n, size_t rank,
                     int64_t tap_bytes) {
  const auto& out = types[n.outputs[0]].shape;
  if (!out || out->size() != rank) return 0;
  int64_t bytes = tap_bytes;
  for (size_t j = 2; j < out->size(); ++j) {
    if (!(*out)[j].known()) return 0;
    bytes *= (*out)[j].value();
  }
  return bytes;
}

struct PackedConv {
  int value;
  int64_t group;
  Shape w_shape;
  bool diag;
  int64_t tail;  // elements after each panel's K (FusedConv's `tail`)
};

}  // namespace

int pack_conv_weights(Graph& g, int64_t l0_bytes) {
  std::vector<std::vector<int>> readers(g.values.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].inputs)
      if (v >= 0) readers[v].push_back(static_cast<int>(i));
  auto conv_weight = [&](int n) {
    const Node& node = g.nodes[n];
    return node.domain == fused::kDomain && node.op_type == "FusedConv" &&
           node.attrs.i("panel", 0) == 0 && node.inputs.size() > 1;
  };
  std::map<int, PackedConv> packed;  // weight value -> its packed form
  std::vector<TensorType> types;     // inferred at the first depthwise weight
  int made = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!conv_weight(static_cast<int>(i))) continue;
    const int w = g.nodes[i].inputs[1];
    if (w < 0 || !g.values[w].constant) continue;
    bool alone = true;
    for (int r : readers[w]) alone = alone && conv_weight(r) && g.nodes[r].inputs[1] == w;
    for (int o : g.outputs) alone = alone && o != w;
    Tensor wt = *g.values[w].constant;  // a handle: g.values grows below
    const cpu::GemmKernel& kern = cpu::gemm_kernel(wt.dtype());
    int64_t group = g.nodes[i].attrs.i("group", 1);
    if (!alone || kern.packed != wt.dtype() || wt.shape().size() < 3 || wt.shape()[0] == 0 ||
        group < 1 || wt.shape()[0] % group != 0)
      continue;
    auto it = packed.find(w);
    if (it == packed.end()) {
      // A depthwise weight becomes block-diagonal blocks of b channels: the cube multiplies b
      // times the useful products, still far faster than one channel row per product; the
      // conv's mmad is told (FusedConv's `diag`), and the cpu forms only the useful ones.
      bool diag = false;
      const Tensor taps = wt;  // a depthwise weight's own [C, 1, k..]
      if (group > 1 && group == wt.shape()[0] && wt.shape()[1] == 1) {
        if (types.empty()) types = infer_symbolic(g).types;
        const int64_t tap_bytes =
            static_cast<int64_t>(dtype_size(wt.dtype())) * (wt.numel() / wt.shape()[0]);
        const int64_t b = depthwise_block(
            group, kern.mr, column_bytes(types, g.nodes[i], wt.shape().size(), tap_bytes),
            tap_bytes, l0_bytes);
        if (b == 0) continue;  // the vector unit's form (ops/conv_depthwise.cpp)
        wt = block_diagonal(wt, b);
        group /= b;
        diag = true;
      }
      const int64_t mg = wt.shape()[0] / group, k = wt.numel() / wt.shape()[0];
      const int64_t kp = ceil_div(k, kern.k_pack) * kern.k_pack, panels = ceil_div(mg, kern.mr);
      // A block-diagonal weight's panels also carry their rows' taps compactly after K (tap t of
      // row i at (kp + t) * mr + i) where the kernels pack in single k: the cpu's depthwise
      // kernels read a tap of 16 channels from one or two lines there, not a line per channel
      // on the diagonal (MobileNetV3-Large's 960-channel 5x5 on 7x7 in the model: 0.12 -> 0.08 ms).
      const int64_t win = diag ? k / mg : 0, tail = diag && kern.k_pack == 1 ? win * kern.mr : 0;
      const int64_t row = kp * kern.mr + tail;
      Tensor p = weight_storage(wt.dtype(), {group, panels, row});
      const size_t es = dtype_size(wt.dtype());
      auto* dst = static_cast<std::byte*>(p.data());
      std::vector<std::byte> block(tail > 0 ? static_cast<size_t>(panels * kp * kern.mr) * es : 0);
      for (int64_t gi = 0; gi < group; ++gi) {
        const std::byte* src = static_cast<const std::byte*>(wt.data()) + gi * mg * k * es;
        if (tail == 0) {
          cpu::gemm_pack_a(wt.dtype(), src, k, 1, mg, k, dst + gi * panels * row * es);
          continue;
        }
        cpu::gemm_pack_a(wt.dtype(), src, k, 1, mg, k, block.data());
        for (int64_t q = 0; q < panels; ++q) {
          std::byte* at = dst + (gi * panels + q) * row * es;
          std::memcpy(at, block.data() + q * kp * kern.mr * es, kp * kern.mr * es);
          std::memset(at + kp * kern.mr * es, 0, tail * es);
          for (int64_t i = 0; i < std::min<int64_t>(kern.mr, mg - q * kern.mr); ++i)
            for (int64_t t = 0; t < win; ++t)
              std::memcpy(at + ((kp + t) * kern.mr + i) * es,
                          static_cast<const std::byte*>(taps.data()) +
                              ((gi * mg + q * kern.mr + i) * win + t) * es,
                          es);
        }
      }
      const int v = g.add_constant(cat(g.values[w].name, "/packed"), std::move(p));
      it = packed.emplace(w, PackedConv{v, group, wt.shape(), diag, tail}).first;
      ++made;
    }
    Node& n = g.nodes[i];
    n.attrs.set("w_shape", it->second.w_shape);
    n.attrs.set("group", it->second.group);
    n.attrs.set("panel", int64_t{kern.mr});
    n.attrs.set("k_pack", int64_t{kern.k_pack});
    if (it->second.diag) n.attrs.set("diag", int64_t{1});
    if (it->second.tail > 0) n.attrs.set("tail", it->second.tail);
    n.inputs[1] = it->second.value;
  }
  return made;
}

}  // namespace asc

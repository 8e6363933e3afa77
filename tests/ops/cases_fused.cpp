// Cases of the fused family (ai.asc): FusedRMSNorm with and without scale, scale with leading 1s,
// long rows; FusedMatMulBias with every activation, bias [N], [1, N] and one element, batch
// broadcast, 1-D A, empty M and K = 0, decode-shaped M = 1; FusedSwiGLU and FusedRotary with
// broadcast operands; PackedMatMul in the cpu kernels' layout; FusedConv with every activation,
// residuals and packed weights; FusedElementwise chains over
// broadcast, bool, integer and attribute steps. f32, f16 and bf16; odd sizes throughout.
#include "ops/fused.h"
#include "ops/op_cases.h"
#include "runtime/devices/cpu/gemm.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kI32 = DType::kI32;
const char* kAsc = "ai.asc";

OpCase asc_case(std::string op, std::vector<InputSpec> ins, Attrs a = {}, std::string label = "") {
  OpCase c{std::move(op), 1, std::move(ins), std::move(a), std::move(label)};
  c.domain = kAsc;
  return c;
}

void add_rms(std::vector<OpCase>& v) {
  auto rms = [&](DType dt, Shape x, std::optional<Shape> scale, std::string label) {
    std::vector<InputSpec> ins = {in(dt, x)};
    if (scale) ins.push_back(in(dt, *scale, 0.5, 1.5));
    v.push_back(asc_case("FusedRMSNorm", ins, {{"epsilon", 1e-6f}}, label));
  };
  rms(kF32, {2, 5, 7}, Shape{7}, "");
  rms(kF32, {3, 896}, Shape{1, 896}, "scale_1xH");
  rms(kF32, {4, 33}, std::nullopt, "no_scale");
  rms(kF32, {3, 9001}, Shape{9001}, "long_row");
  rms(kF32, {0, 8}, Shape{8}, "empty");
  rms(kF16, {3, 33}, Shape{33}, "");
  rms(kBF16, {2, 2, 65}, Shape{65}, "");
}

void add_matmul(std::vector<OpCase>& v) {
  auto mm = [&](DType dt, Shape a, Shape b, std::optional<Shape> bias, const char* act,
                std::string label) {
    std::vector<InputSpec> ins = {in(dt, a), in(dt, b)};
    if (bias) ins.push_back(in(dt, *bias));
    v.push_back(asc_case("FusedMatMulBias", ins, {{"activation", std::string(act)}}, label));
  };
  mm(kF32, {3, 5, 7}, {7, 9}, Shape{9}, "none", "bias");
  mm(kF32, {4, 6}, {6, 10}, Shape{1, 10}, "relu", "relu");
  mm(kF32, {2, 1, 3, 5}, {4, 5, 6}, Shape{6}, "sigmoid", "batch_bcast");
  mm(kF32, {5, 8}, {8, 3}, Shape{1}, "tanh", "bias1");
  mm(kF32, {7, 16}, {16, 33}, Shape{33}, "silu", "silu");
  mm(kF32, {3, 12}, {12, 5}, Shape{5}, "gelu", "gelu");
  mm(kF32, {3, 12}, {12, 5}, Shape{5}, "gelu_tanh", "gelu_tanh");
  mm(kF32, {6, 9}, {9, 4}, std::nullopt, "relu", "no_bias");
  mm(kF32, {7}, {7, 9}, Shape{9}, "none", "vector_a");
  mm(kF32, {0, 5}, {5, 3}, Shape{3}, "relu", "empty_m");
  mm(kF32, {3, 0}, {0, 4}, Shape{4}, "none", "k0");
  mm(kF32, {1, 1, 64}, {64, 97}, Shape{97}, "none", "decode");
  mm(kF32, {130, 70}, {70, 150}, Shape{150}, "silu", "multi_tile");
  mm(kF16, {5, 24}, {24, 17}, Shape{17}, "relu", "");
  mm(kBF16, {3, 40}, {40, 21}, Shape{21}, "silu", "");
}

// PackedMatMul in the layout the active cpu kernels read (runtime/weight_pack.h): B random in
// its packed shape (padding included: the kernels multiply it by A's zero padding or drop the
// columns). Decode-shaped one-row products (the panel GEMV: sets of four panels, then the
// rest), a few rows (A packed per call), many rows and k blocks (the packed mmad), odd K and N.
void add_packed_matmul(std::vector<OpCase>& v) {
  for (DType dt : {kF32, kBF16}) {
    const cpu::GemmKernel& g = cpu::gemm_kernel(dt);
    if (g.packed != dt) continue;  // bf16 widened to f32 panels here: never packed in bf16
    auto mm = [&](Shape a, int64_t k, int64_t n, bool bias, const char* act, std::string label) {
      const int64_t kp = (k + g.k_pack - 1) / g.k_pack * g.k_pack;
      std::vector<InputSpec> ins = {in(dt, a), in(dt, {(n + g.nr - 1) / g.nr, kp * g.nr})};
      if (bias) ins.push_back(in(dt, {n}));
      v.push_back(asc_case("PackedMatMul", ins,
                           {{"k", k},
                            {"n", n},
                            {"panel", int64_t{g.nr}},
                            {"k_pack", int64_t{g.k_pack}},
                            {"activation", std::string(act)}},
                           label));
    };
    mm({1, 1, 64}, 64, 97, true, "none", "decode");
    mm({1, 77}, 77, 300, false, "none", "decode_odd_k");
    mm({1, 5}, 5, 7, true, "silu", "decode_small");
    mm({3, 40}, 40, 21, true, "relu", "few_rows");
    mm({2, 3, 33}, 33, 65, false, "none", "batched");
    mm({7}, 7, 9, true, "none", "vector_a");
    mm({130, 301}, 301, 150, true, "silu", "multi_tile");
    mm({1, 1100}, 1100, 40, false, "none", "decode_long_k");
  }
}

// FusedConv: every activation, a residual with and without bias, groups, strides and pads,
// a pointwise conv, a scale and shift after the activation; and W stored packed in the cpu
// kernels' A layout (random padding: the kernels drop the rows past M/G and multiply k past K by
// zero columns).
void add_conv(std::vector<OpCase>& v) {
  using V = std::vector<int64_t>;
  auto conv = [&](DType dt, Shape x, Shape w, bool bias, bool z, const char* act, Attrs a,
                  std::string label, float alpha = 0, float beta = 0) {
    const int64_t oh = (x[2] + 2 - w[2]) / 1 + 1;  // pads 1, stride 1 unless `a` says otherwise
    std::vector<InputSpec> ins = {in(dt, x), in(dt, w)};
    ins.push_back(bias ? in(dt, {w[0]}) : absent());
    if (z) {
      Shape y = {x[0], w[0]};
      for (size_t i = 2; i < x.size(); ++i) y.push_back(oh);
      ins.push_back(in(dt, y));
    }
    a.set("activation", std::string(act));
    a.set("alpha", alpha);
    a.set("beta", beta);
    v.push_back(asc_case("FusedConv", ins, a, label));
  };
  const Attrs pad1{{"pads", V{1, 1, 1, 1}}};
  conv(kF32, {1, 5, 9, 9}, {7, 5, 3, 3}, true, true, "relu", pad1, "residual_relu");
  conv(kF32, {2, 6, 8, 8}, {6, 6, 3, 3}, false, true, "none", pad1, "residual");
  conv(kF32, {1, 4, 7, 7}, {8, 2, 3, 3}, true, false, "clip",
       {{"pads", V{1, 1, 1, 1}}, {"group", int64_t{2}}}, "grouped_clip", 0.f, 6.f);
  conv(kF32, {1, 3, 10, 10}, {5, 3, 3, 3}, true, false, "hardswish", pad1, "hardswish");
  conv(kF32, {1, 3, 6, 6}, {4, 3, 3, 3}, true, false, "hardsigmoid", pad1, "", 0.2f, 0.5f);
  conv(kF32, {1, 3, 6, 6}, {4, 3, 3, 3}, false, false, "leakyrelu", pad1, "", 0.1f);
  conv(kF32, {1, 3, 6, 6}, {4, 3, 3, 3}, true, false, "silu", pad1, "");
  conv(kF32, {1, 8, 6, 6}, {16, 8, 1, 1}, true, false, "sigmoid", {}, "pointwise");
  conv(kF32, {1, 3, 11, 11}, {4, 3, 3, 3}, true, false, "tanh",
       {{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}}, "stride2");
  conv(kF32, {1, 12, 9, 9}, {12, 1, 3, 3}, true, true, "hardswish",
       {{"pads", V{1, 1, 1, 1}}, {"group", int64_t{12}}}, "depthwise_residual");
  conv(
      kF32, {1, 8, 7, 7}, {8, 1, 3, 3}, true, false, "hardswish",
      {{"pads", V{1, 1, 1, 1}}, {"group", int64_t{8}}, {"post_scale", 1.7f}, {"post_shift", -0.3f}},
      "depthwise_post_affine");
  conv(kF32, {1, 5, 9, 9}, {7, 5, 3, 3}, false, true, "relu",
       {{"pads", V{1, 1, 1, 1}}, {"post_scale", -0.5f}, {"post_shift", 0.25f}},
       "residual_post_affine");
  conv(kF16, {1, 5, 9, 9}, {7, 5, 3, 3}, true, true, "relu", pad1, "");
  conv(kBF16, {1, 6, 9, 9}, {5, 6, 3, 3}, true, false, "relu", pad1, "");
  for (DType dt : {kF32, kBF16}) {
    const cpu::GemmKernel& g = cpu::gemm_kernel(dt);
    if (g.packed != dt) continue;  // bf16 widened to f32 panels here: never packed in bf16
    auto packed = [&](Shape x, Shape w, int64_t group, Attrs a, std::string label) {
      const int64_t mg = w[0] / group, k = numel(w) / w[0];
      const int64_t kp = (k + g.k_pack - 1) / g.k_pack * g.k_pack;
      a.set("group", group);
      a.set("panel", int64_t{g.mr});
      a.set("k_pack", int64_t{g.k_pack});
      a.set("w_shape", w);
      a.set("activation", std::string("relu"));
      v.push_back(
          asc_case("FusedConv",
                   {in(dt, x), in(dt, {group, (mg + g.mr - 1) / g.mr, kp * g.mr}), in(dt, {w[0]})},
                   a, label));
    };
    packed({1, 5, 9, 9}, {7, 5, 3, 3}, 1, pad1, "packed");
    packed({2, 37, 12, 11}, {26, 37, 3, 3}, 1, pad1, "packed_k_steps");
    v.back().atol = v.back().rtol = 1e-4;  // 333-term float sums, in k steps on small specs
    packed({1, 8, 6, 6}, {12, 4, 3, 3}, 2, pad1, "packed_grouped");
    packed({1, 24, 5, 5}, {30, 24, 1, 1}, 1, {}, "packed_pointwise");
    // Tiles over output channels and positions (the cpu keeps a column matrix across the
    // former: the map box changes with the latter).
    packed({2, 6, 14, 15}, {100, 6, 3, 3}, 1, pad1, "packed_m_tiles");
  }
}

// FusedConv5HD on NC1HWC0 maps (random lanes past C and random weight padding: the op is defined
// over all of them), 1x1, 3x3, the 7x7/2 stem, strides, dilation and asymmetric pads, M past a
// panel and not a multiple of 16, residuals, activations whose act(0) is not 0, K in steps; and
// the layout changes To5HD / From5HD with C past a multiple of 16.
void add_conv_5hd(std::vector<OpCase>& v) {
  using V = std::vector<int64_t>;
  const cpu::GemmKernel& g = cpu::gemm_kernel(kF32);
  auto conv = [&](Shape x, int64_t m, V k, Attrs a, bool bias, bool z, const char* act,
                  std::string label, float alpha = 0, float beta = 0, int64_t panel = 0) {
    if (panel == 0) panel = g.nr;
    const V s = a.has("strides") ? a.ints("strides") : V{1, 1};
    const V d = a.has("dilations") ? a.ints("dilations") : V{1, 1};
    const V p = a.has("pads") ? a.ints("pads") : V{0, 0, 0, 0};
    const int64_t m1 = (m + 15) / 16, kk = x[1] * k[0] * k[1] * 16;
    const int64_t kp = (kk + g.k_pack - 1) / g.k_pack * g.k_pack;
    const int64_t oh = (x[2] + p[0] + p[2] - (k[0] - 1) * d[0] - 1) / s[0] + 1;
    const int64_t ow = (x[3] + p[1] + p[3] - (k[1] - 1) * d[1] - 1) / s[1] + 1;
    std::vector<InputSpec> ins = {in(kF32, x),
                                  in(kF32, {(m1 * 16 + panel - 1) / panel, kp * panel})};
    ins.push_back(bias ? in(kF32, {m}) : absent());
    if (z) ins.push_back(in(kF32, {x[0], m1, oh, ow, 16}));
    a.set("m", m);
    a.set("kernel_shape", k);
    a.set("panel", panel);
    a.set("k_pack", int64_t{g.k_pack});
    a.set("activation", std::string(act));
    a.set("alpha", alpha);
    a.set("beta", beta);
    v.push_back(asc_case("FusedConv5HD", ins, a, label));
    v.back().atol = v.back().rtol = 1e-4;  // K of 256..1296 terms in f32
  };
  conv({1, 2, 7, 9, 16}, 40, {1, 1}, {}, true, true, "relu", "pointwise_residual");
  conv({2, 3, 8, 7, 16}, 20, {3, 3}, {{"pads", V{1, 1, 1, 1}}}, true, false, "relu", "3x3");
  conv({1, 2, 11, 10, 16}, 32, {3, 3}, {{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}}, false,
       false, "clip", "3x3_stride2", 0.f, 6.f);
  conv({1, 1, 20, 18, 16}, 16, {7, 7}, {{"pads", V{3, 3, 3, 3}}, {"strides", V{2, 2}}}, true, false,
       "relu", "stem");
  conv({1, 2, 9, 8, 16}, 17, {3, 3}, {{"pads", V{0, 1, 2, 1}}, {"dilations", V{2, 2}}}, true, true,
       "sigmoid", "dilated_asymmetric");
  conv({1, 4, 9, 9, 16}, 64, {1, 1}, {{"strides", V{2, 2}}}, true, false, "none", "downsample");
  conv({1, 9, 6, 5, 16}, 70, {3, 3}, {{"pads", V{1, 1, 1, 1}}}, true, true, "hardswish", "k_steps");
  // Panels of 64 columns (the cpu's 5HD kernel's, runtime/devices/cpu/conv_5hd.h).
  conv({1, 3, 7, 6, 16}, 80, {3, 3}, {{"pads", V{1, 1, 1, 1}}}, true, true, "relu", "panel64", 0.f,
       0.f, 64);
  conv({2, 2, 5, 9, 16}, 130, {1, 1}, {}, false, false, "none", "panel64_pointwise", 0.f, 0.f, 64);
  // ResNet-18's layer2.0 on its own maps (tiles of whole rows per core).
  conv({1, 4, 56, 56, 16}, 128, {3, 3}, {{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}}, true,
       false, "relu", "r18_l2_conv1", 0.f, 0.f, 64);
  conv({1, 4, 56, 56, 16}, 128, {1, 1}, {{"strides", V{2, 2}}}, true, false, "none",
       "r18_l2_downsample", 0.f, 0.f, 64);
  conv({1, 8, 28, 28, 16}, 128, {3, 3}, {{"pads", V{1, 1, 1, 1}}}, true, true, "relu",
       "r18_l2_conv2", 0.f, 0.f, 64);
  v.push_back(asc_case("To5HD", {in(kF32, {2, 20, 5, 7})}, {}, ""));
  v.push_back(asc_case("To5HD", {in(kF32, {1, 16, 3, 3})}, {}, "one_block"));
  v.push_back(asc_case("To5HD", {in(kF32, {1, 3, 4, 4})}, {}, "few_channels"));
  v.push_back(asc_case("From5HD", {in(kF32, {2, 2, 5, 7, 16})}, {{"channels", int64_t{20}}}, ""));
  v.push_back(asc_case("From5HD", {in(kF32, {1, 1, 3, 3, 16})}, {{"channels", int64_t{3}}},
                       "few_channels"));
}

void add_swiglu_rotary(std::vector<OpCase>& v) {
  v.push_back(asc_case("FusedSwiGLU", {in(kF32, {3, 17}), in(kF32, {3, 17})}));
  v.push_back(asc_case("FusedSwiGLU", {in(kF32, {4, 1, 5}), in(kF32, {3, 5})}, {}, "bcast"));
  v.push_back(asc_case("FusedSwiGLU", {in(kF32, {0, 3}), in(kF32, {0, 3})}, {}, "empty"));
  v.push_back(asc_case("FusedSwiGLU", {in(kF16, {2, 37}), in(kF16, {2, 37})}));
  v.push_back(asc_case("FusedSwiGLU", {in(kBF16, {5, 19}), in(kBF16, {5, 19})}));
  auto rot = [&](DType dt, Shape x, Shape cs, std::string label) {
    v.push_back(
        asc_case("FusedRotary", {in(dt, x), in(dt, cs, -1, 1), in(dt, cs, -1, 1)}, {}, label));
  };
  rot(kF32, {2, 3, 5, 16}, {2, 1, 5, 16}, "bnsd");  // cos/sin shared by the heads
  rot(kF32, {3, 8}, {3, 8}, "");
  rot(kF32, {2, 4, 6}, {2, 4, 1}, "cos_per_row");
  rot(kF32, {7, 2}, {2}, "d2");
  v.push_back(asc_case("FusedRotary",
                       {in(kF32, {1, 3, 16}), in(kF32, {2, 3, 16}, -1, 1), in(kF32, {3, 1}, -1, 1)},
                       {}, "x_bcast"));
  rot(kF32, {0, 4}, {0, 4}, "empty");
  rot(kF32, {1, 14, 3, 64}, {1, 1, 3, 64}, "qwen");
  rot(kF16, {2, 3, 5, 16}, {2, 1, 5, 16}, "");
  rot(kBF16, {1, 2, 7, 32}, {1, 1, 7, 32}, "");
}

// A FusedElementwise case: steps (type, operand codes, attributes) over the given inputs.
void add_chains(std::vector<OpCase>& v) {
  using fused::ChainStep;
  auto chain = [&](std::vector<ChainStep> steps, std::vector<InputSpec> ins, std::string label) {
    for (auto& s : steps) s.opset = s.opset ? s.opset : 17;
    v.push_back(asc_case("FusedElementwise", std::move(ins), fused::encode_chain(steps), label));
  };
  const int64_t s0 = fused::chain_step_code(0), s1 = fused::chain_step_code(1);
  // silu(x) * up: Sigmoid, Mul(x, s0), Mul(s1, up)
  chain({{"", "Sigmoid", 0, {0}, {}}, {"", "Mul", 0, {0, s0}, {}}, {"", "Mul", 0, {s1, 1}, {}}},
        {in(kF32, {3, 17}), in(kF32, {3, 17})}, "swiglu");
  // relu(x + b) * c with b [5] and c [4, 1, 5] broadcasting
  chain({{"", "Add", 0, {0, 1}, {}}, {"", "Relu", 0, {s0}, {}}, {"", "Mul", 0, {s1, 2}, {}}},
        {in(kF32, {3, 5}), in(kF32, {5}), in(kF32, {4, 1, 5})}, "bcast");
  // leaky_relu(x * 2.5 scalar input, alpha 0.2) - x: a float attribute and a reused input
  Attrs alpha{{"alpha", 0.2f}};
  chain(
      {{"", "Mul", 0, {0, 1}, {}}, {"", "LeakyRelu", 0, {s0}, alpha}, {"", "Sub", 0, {s1, 0}, {}}},
      {in(kF32, {6, 11}), in(kF32, {})}, "attr");
  // where(a > b, a, b): a bool intermediate
  chain({{"", "Greater", 0, {0, 1}, {}}, {"", "Where", 0, {s0, 0, 1}, {}}},
        {in(kF32, {4, 9}), in(kF32, {4, 9})}, "where");
  // integers: (a + b) * a
  chain({{"", "Add", 0, {0, 1}, {}}, {"", "Mul", 0, {s0, 0}, {}}},
        {in_int(kI32, {3, 7}, -20, 20), in_int(kI32, {3, 7}, -20, 20)}, "int");
  // Clip with an absent min: an absent operand
  chain({{"", "Exp", 0, {0}, {}}, {"", "Clip", 0, {s0, -1, 1}, {}}},
        {in(kF32, {5, 3}), in(kF32, {}, 1.0, 2.0)}, "absent");
  chain({{"", "Sigmoid", 0, {0}, {}}, {"", "Mul", 0, {0, s0}, {}}}, {in(kF32, {0, 4})}, "empty");
  chain({{"", "Sigmoid", 0, {0}, {}}, {"", "Mul", 0, {0, s0}, {}}, {"", "Add", 0, {s1, 1}, {}}},
        {in(kF16, {3, 33}), in(kF16, {33})}, "");
  chain({{"", "Tanh", 0, {0}, {}}, {"", "Mul", 0, {s0, 1}, {}}},
        {in(kBF16, {2, 3, 40}), in(kBF16, {2, 1, 40})}, "");
  // a fused op as a step: FusedSwiGLU then Add
  chain({{"ai.asc", "FusedSwiGLU", 1, {0, 1}, {}}, {"", "Add", 0, {s0, 0}, {}}},
        {in(kF32, {4, 10}), in(kF32, {4, 10})}, "fused_step");
}

}  // namespace

std::vector<OpCase> cases_fused() {
  std::vector<OpCase> v;
  add_rms(v);
  add_matmul(v);
  add_packed_matmul(v);
  add_conv(v);
  add_conv_5hd(v);
  add_swiglu_rotary(v);
  add_chains(v);
  return v;
}

}  // namespace asc::test

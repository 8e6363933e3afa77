// The fused family beyond the case table: the traced programs keep intermediates in local memory
// (one copy-in per fused input, one copy-out), FusedMatMulBias's epilogue is MatMul's cube
// program plus a bias row; the chain encoding round-trips; bad shapes, attributes and encodings
// give errors naming the op and the shapes.
#include <gtest/gtest.h>

#include "ops/fused.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

TileProgram plan(const std::string& domain, const std::string& op, int opset,
                 std::vector<TensorDesc> in, Attrs attrs = {}) {
  const OpDef& def = global_registry().lookup(domain, op, opset);
  const Attrs resolved = def.resolve(attrs);
  std::vector<Tensor> probes;
  for (const auto& d : in) probes.push_back(Tensor(d.dtype, d.shape));
  const auto out = infer_outputs(def, resolved, probes);
  return plan_tile_program(def, resolved, in, out, ascend910b());
}

int count(const TileProgram& p, InstrKind k) {
  int n = 0;
  for (const auto& in : p.instrs) n += in.kind == k;
  return n;
}

Tensor f32(Shape s) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, 0.25 * static_cast<double>(i % 9) - 1.0);
  return t;
}

// The error message of running the op, or "" when it runs.
std::string error_of(const std::string& op, std::vector<Tensor> ins, Attrs a = {}) {
  try {
    run_op(global_registry().lookup("ai.asc", op, 1), a, ins, device());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

std::vector<fused::ChainStep> swiglu_chain() {
  const int64_t s0 = fused::chain_step_code(0), s1 = fused::chain_step_code(1);
  return {{"", "Sigmoid", 17, {0}, {}}, {"", "Mul", 17, {0, s0}, {}}, {"", "Mul", 17, {s1, 1}, {}}};
}

TEST(FusedProgram, AChainCopiesEachInputInOnceAndOnlyTheResultOut) {
  const DType dt = DType::kBF16;
  const TileProgram p = plan("ai.asc", "FusedElementwise", 1, {{dt, {64, 4864}}, {dt, {64, 4864}}},
                             fused::encode_chain(swiglu_chain()));
  EXPECT_EQ(count(p, InstrKind::kCopyIn), 2);
  EXPECT_EQ(count(p, InstrKind::kCopyOut), 1);
  // The unfused nodes copy 5 tiles in and 3 out; every intermediate here stays in UB.
  int moved = 0;
  for (const char* op : {"Sigmoid", "Mul", "Mul"}) {
    const TileProgram q = plan("", op, 17,
                               std::string(op) == "Sigmoid"
                                   ? std::vector<TensorDesc>{{dt, {64, 4864}}}
                                   : std::vector<TensorDesc>{{dt, {64, 4864}}, {dt, {64, 4864}}});
    moved += count(q, InstrKind::kCopyIn) + count(q, InstrKind::kCopyOut);
  }
  EXPECT_EQ(moved, 8);
  for (const BufferDecl& b : p.buffers) EXPECT_EQ(b.pos, Pos::kUB) << b.name;
}

TEST(FusedProgram, MatMulEpilogueAddsABiasRowBeforeTheCopyOut) {
  const TileProgram p =
      plan("ai.asc", "FusedMatMulBias", 1,
           {{DType::kF16, {128, 896}}, {DType::kF16, {896, 1152}}, {DType::kF16, {1152}}},
           {{"activation", std::string("silu")}});
  EXPECT_EQ(count(p, InstrKind::kMmad), 1);
  EXPECT_EQ(count(p, InstrKind::kBcastMid), 1);
  EXPECT_EQ(count(p, InstrKind::kCopyOut), 1);
  bool bias_row = false;
  for (const auto& in : p.instrs)
    if (in.kind == InstrKind::kCopyIn && in.arg == 2) {
      EXPECT_EQ(p.buffers[in.dst].pos, Pos::kUB);
      EXPECT_EQ(p.buffers[in.dst].dims[0], 1);  // one row, broadcast over the tile
      bias_row = true;
    }
  EXPECT_TRUE(bias_row);
  EXPECT_LE(p.block_dim, ascend910b().cube_cores);
}

TEST(FusedProgram, RotaryLoadsHalvesAndWritesBoth) {
  const TileProgram p = plan("ai.asc", "FusedRotary", 1,
                             {{DType::kF32, {1, 14, 128, 64}},
                              {DType::kF32, {1, 1, 128, 64}},
                              {DType::kF32, {1, 1, 128, 64}}});
  EXPECT_EQ(count(p, InstrKind::kCopyIn), 6);
  EXPECT_EQ(count(p, InstrKind::kCopyOut), 2);
}

TEST(FusedChain, EncodingRoundTrips) {
  std::vector<fused::ChainStep> steps = swiglu_chain();
  steps[1].attrs.set("alpha", 0.1f);
  steps[1].attrs.set("fmod", int64_t{-3});
  steps[2].attrs.set("approximate", std::string("tanh"));
  steps.push_back({"ai.asc", "FusedSwiGLU", 1, {-4, -1}, {}});
  const std::vector<fused::ChainStep> back = fused::decode_chain(fused::encode_chain(steps));
  ASSERT_EQ(back.size(), steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    EXPECT_EQ(back[k].domain, steps[k].domain);
    EXPECT_EQ(back[k].type, steps[k].type);
    EXPECT_EQ(back[k].opset, steps[k].opset);
    EXPECT_EQ(back[k].args, steps[k].args);
    EXPECT_EQ(back[k].attrs.str(), steps[k].attrs.str());
  }
  EXPECT_EQ(back[1].attrs.f("alpha"), 0.1f);  // exactly
  EXPECT_FALSE(fused::chain_encodable({{"perm", std::vector<int64_t>{1, 0}}}));
}

TEST(FusedErrors, ChainEncodingsNameTheProblem) {
  const std::vector<Tensor> ins = {f32({2, 3}), f32({2, 3})};
  Attrs a = fused::encode_chain(swiglu_chain());
  a.set("arity", std::vector<int64_t>{1, 2});
  EXPECT_HAS(error_of("FusedElementwise", ins, a), "ops, opsets and arity must have one entry");
  a = fused::encode_chain(swiglu_chain());
  a.set("args", std::vector<int64_t>{0, 0, -3, -3, 1});
  EXPECT_HAS(error_of("FusedElementwise", ins, a), "step 1 reads a later step");
  a = fused::encode_chain({{"", "MatMul", 17, {0, 1}, {}}});
  EXPECT_HAS(error_of("FusedElementwise", ins, a), "step 0 (MatMul): not an elementwise tile op");
  a = fused::encode_chain({{"", "NoSuchOp", 17, {0}, {}}});
  EXPECT_HAS(error_of("FusedElementwise", ins, a), "step 0 (NoSuchOp): no such op at opset 17");
  a = fused::encode_chain({{"", "Relu", 17, {5}, {}}});
  EXPECT_HAS(error_of("FusedElementwise", ins, a), "reads input 5 of 2");
  a = fused::encode_chain(swiglu_chain());
  a.set("step_attrs", std::vector<std::string>{"1:x:alpha=2"});
  EXPECT_HAS(error_of("FusedElementwise", ins, a), "has kind 'x'");
  // A step's own inference error, named by step.
  a = fused::encode_chain({{"", "Add", 17, {0, 1}, {}}});
  EXPECT_HAS(error_of("FusedElementwise", {f32({2, 3}), f32({4})}, a),
             "FusedElementwise step 0 (Add)");
}

TEST(FusedErrors, ShapesAndAttributesNameTheOp) {
  EXPECT_HAS(error_of("FusedMatMulBias", {f32({3, 4}), f32({4, 5})},
                      {{"activation", std::string("swish")}}),
             "FusedMatMulBias(f32[3,4], f32[4,5]): activation 'swish' is not one of");
  EXPECT_HAS(error_of("FusedMatMulBias", {f32({3, 4}), f32({4, 5}), f32({3, 5})},
                      {{"activation", std::string("none")}}),
             "FusedMatMulBias: bias f32[3,5] must broadcast along the last dim of f32[3,5]");
  EXPECT_HAS(error_of("FusedMatMulBias", {f32({3, 4}), f32({4}), f32({1})},
                      {{"activation", std::string("none")}}),
             "a bias needs B of rank >= 2");
  EXPECT_HAS(error_of("FusedRotary", {f32({2, 7}), f32({2, 7}), f32({2, 7})}),
             "FusedRotary: X f32[2,7] needs a last dim of even size");
  EXPECT_HAS(error_of("FusedRotary", {f32({2, 8}), f32({2, 5}), f32({2, 8})}),
             "FusedRotary(f32[2,8], f32[2,5], f32[2,8])");
  EXPECT_HAS(error_of("FusedRMSNorm", {f32({2, 7}), f32({5})}),
             "FusedRMSNorm: scale f32[5] must have the shape of X f32[2,7] from axis 1");
  EXPECT_HAS(error_of("FusedSwiGLU", {f32({2, 7}), f32({3, 7})}), "[2,7]");
}

}  // namespace
}  // namespace asc

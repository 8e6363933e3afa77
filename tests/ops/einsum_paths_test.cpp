// Einsum's two paths: f32 / f16 / bf16 data run as EinsumPrep / EinsumMatMul / Transpose programs
// (listed by the op's launches for the sim device), other data, an empty input and a run without a
// device to launch programs on take the host kernel; both against the naive reference, on every
// Einsum case of the table and on seeded random equations (1-3 operands, repeated labels, ellipses
// with broadcast dims of size 1, implicit outputs, odd, empty and size-1 dims, scalars).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ops/op_cases.h"
#include "ops/ops.h"
#include "registry/tile_program.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

// A launch context for op's host kernel on these inputs (no launch_program).
LaunchContext host_context(const OpDef& op, const Attrs& resolved,
                           const std::vector<Tensor>& inputs, const Tensor& out) {
  LaunchContext ctx;
  ctx.op = &op;
  for (const Tensor& t : inputs) ctx.inputs.push_back(t.desc());
  ctx.outputs = {out.desc()};
  ctx.attrs = &resolved;
  ctx.spec = &device().spec();
  return ctx;
}

bool tile_dtype(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

std::string check(const Tensor& got, const Tensor& want, double scale) {
  double atol = 0, rtol = 0;
  default_tolerance(want.dtype(), atol, rtol);
  double big = 1;
  for (int64_t i = 0; i < want.numel(); ++i) big = std::max(big, std::abs(want.at(i)));
  return compare(got, want, atol * scale * big, rtol * scale);
}

// Runs c both ways against the reference; returns the programs the tile path launched.
std::vector<std::string> run_both(const OpCase& c, double scale) {
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  std::vector<std::string> launched;
  OpRunOptions o;
  o.on_program = [&](const TileProgram& p) { launched.push_back(p.op.substr(0, p.op.find('('))); };
  const auto got = run_op(op, c.attrs, inputs, device(), o);
  const auto want = run_reference(op, c.attrs, inputs);
  EXPECT_EQ(check(got[0], want[0], scale), "") << c.name() << " (tile path)";
  // The host kernel: no launch_program.
  const Attrs resolved = op.resolve(c.attrs);
  const LaunchContext ctx = host_context(op, resolved, inputs, want[0]);
  std::vector<Tensor> host{Tensor(want[0].dtype(), want[0].shape())};
  op.host_kernel_fn(ctx, inputs, host);
  EXPECT_EQ(check(host[0], want[0], scale), "") << c.name() << " (host kernel)";
  // The path taken, and the launches the sim device predicts are those programs.
  bool tile = want[0].numel() > 0;
  for (const Tensor& t : inputs) tile = tile && tile_dtype(t.dtype()) && t.numel() > 0;
  if (!tile) {
    EXPECT_TRUE(launched.empty()) << c.name();
    return launched;
  }
  EXPECT_FALSE(launched.empty()) << c.name();
  for (const std::string& name : launched)
    EXPECT_TRUE(name == "EinsumPrep" || name == "EinsumMatMul" || name == "Transpose")
        << c.name() << ": " << name;
  if (inputs.size() > 1) {
    EXPECT_NE(std::find(launched.begin(), launched.end(), "EinsumMatMul"), launched.end())
        << c.name();
  }
  EXPECT_EQ(op.launches_fn(ctx).size(), launched.size()) << c.name();
  return launched;
}

std::vector<OpCase> einsum_cases() {
  std::vector<OpCase> v;
  for (const OpCase& c : all_op_cases())
    if (c.domain.empty() && c.op == "Einsum") v.push_back(c);
  return v;
}

class EinsumPaths : public ::testing::TestWithParam<OpCase> {};

TEST_P(EinsumPaths, BothPathsMatchReference) {
  run_both(GetParam(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Ops, EinsumPaths, ::testing::ValuesIn(einsum_cases()), case_name);

// The launches of real models' equations and of the planner's other forms: operands read in place
// (permuted, diagonal, broadcast) wherever the strides allow, a prep only to sum a label one
// operand alone has, to chain summed labels, or to permute a product into the output.
TEST(EinsumPaths, LaunchesOfModelEquations) {
  const std::string P = "EinsumPrep", M = "EinsumMatMul", T = "Transpose";
  const std::vector<std::pair<std::string, std::vector<std::string>>> want = {
      {"bhid,bhjd->bhij", {M}},
      {"bhij,bhjd->bhid", {M}},
      {"bid,bjd->bij", {M}},
      {"ij,jk->ik", {M}},
      {"bij,jk->bik", {M}},
      {"...ij,...jk->...ik", {M}},
      {"i,i", {M}},
      {"i,j->ij", {M}},
      {"ij,jk->ki", {M}},
      {"ij->ji", {T}},
      {"ii->i", {P}},
      {"bn,anm,bm->ba", {M, M}},
      {"ij,jk,k->i", {M, M}},
      {"bij,bjk->ikb", {M, T}},
      {"ijk,kl->il", {P, M}},
      {"abc,cb->a", {T, M}},
      {"ii,ij->j", {M}}};
  for (const auto& [eq, programs] : want) {
    bool found = false;
    for (const OpCase& c : einsum_cases()) {
      if (c.label != eq || c.inputs[0].dtype != DType::kF32) continue;
      EXPECT_EQ(run_both(c, 1.0), programs) << eq;
      found = true;
      break;
    }
    EXPECT_TRUE(found) << eq << " is not in the case table";
  }
}

// Eight labels the operands lay out in opposite orders stay eight batch dims: with M and N more
// than a GM box takes (8), so the host kernel runs it and nothing is listed for the sim device.
TEST(EinsumPaths, TooManyDimsRunOnTheHost) {
  OpCase c{"Einsum", 12, {in(DType::kF32, Shape(8, 2)), in(DType::kF32, Shape(8, 2))}};
  c.attrs.set("equation", std::string("abcdefgh,hgfedcba->abcdefgh"));
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  int launched = 0;
  OpRunOptions o;
  o.on_program = [&](const TileProgram&) { ++launched; };
  const auto got = run_op(op, c.attrs, inputs, device(), o);
  const auto want = run_reference(op, c.attrs, inputs);
  EXPECT_EQ(check(got[0], want[0], 1.0), "");
  EXPECT_EQ(launched, 0);
  const Attrs resolved = op.resolve(c.attrs);
  const LaunchContext ctx = host_context(op, resolved, inputs, want[0]);
  EXPECT_TRUE(op.launches_fn(ctx).empty());
  // Six fit: six batch dims, M and N of one element; then a permute into the output.
  c.inputs = {in(DType::kF32, Shape(6, 3)), in(DType::kF32, Shape(6, 3))};
  c.attrs.set("equation", std::string("abcdef,fedcba->abcdef"));
  const auto l = run_both(c, 1.0);
  EXPECT_EQ(l, (std::vector<std::string>{"EinsumMatMul", "Transpose"}));
}

// Three operands contract the cheapest pair first: A B v as A (B v), two matrix-vector products.
TEST(EinsumPaths, CheapestPairFirst) {
  for (const OpCase& c : einsum_cases()) {
    if (c.label != "ij,jk,k->i") continue;
    const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
    std::vector<Shape> first_args;
    OpRunOptions o;
    o.on_program = [&](const TileProgram& p) {
      if (first_args.empty())
        for (const TensorDesc& d : p.args) first_args.push_back(d.shape);
    };
    const auto inputs = make_inputs(c);
    const auto got = run_op(op, c.attrs, inputs, device(), o);
    EXPECT_EQ(check(got[0], run_reference(op, c.attrs, inputs)[0], 1.0), "");
    ASSERT_EQ(first_args.size(), 3u);
    EXPECT_EQ(first_args[0], (Shape{30, 50}));  // B
    EXPECT_EQ(first_args[1], (Shape{50}));      // v
    return;
  }
  FAIL() << "ij,jk,k->i is not in the case table";
}

// A random valid equation over letters a..e (sizes odd, even, 1 and sometimes 0) and up to two
// ellipsis dims, with its inputs' shapes.
OpCase random_case(std::mt19937& rng, DType dt) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int letters = 1 + pick(5), n_in = 1 + pick(3), ell = pick(3);
  const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 13};
  std::vector<int64_t> size(static_cast<size_t>(letters)), esize(static_cast<size_t>(ell));
  for (auto& s : size) s = pick(24) == 0 ? 0 : sizes[pick(8)];
  for (auto& s : esize) s = 1 + pick(3);
  std::string eq;
  std::vector<InputSpec> ins;
  std::vector<bool> used(static_cast<size_t>(letters), false);
  bool any_dots = false;
  for (int k = 0; k < n_in; ++k) {
    std::string term;
    Shape shape;
    const int count = pick(4);
    const bool dots = ell > 0 && pick(2) == 0;
    const int at = pick(count + 1);
    for (int i = 0; i <= count; ++i) {
      if (i == at && dots) {
        term += "...";
        const int e = pick(ell + 1);
        for (int d = ell - e; d < ell; ++d) shape.push_back(pick(3) == 0 ? 1 : esize[d]);
        any_dots = true;
      }
      if (i == count) break;
      const int l = pick(letters);
      used[static_cast<size_t>(l)] = true;
      term += static_cast<char>('a' + l);
      shape.push_back(size[static_cast<size_t>(l)]);
    }
    eq += (k ? "," : "") + term;
    ins.push_back(in(dt, shape, -1.5, 1.5));
  }
  if (pick(4) != 0) {  // explicit output: some used letters in some order, maybe the ellipsis
    std::string out;
    for (int l = 0; l < letters; ++l)
      if (used[static_cast<size_t>(l)] && pick(2) == 0) out += static_cast<char>('a' + l);
    std::shuffle(out.begin(), out.end(), rng);
    if (any_dots && pick(4) != 0) out.insert(static_cast<size_t>(pick(int(out.size()) + 1)), "...");
    eq += "->" + out;
  }
  OpCase c{"Einsum", 12, std::move(ins)};
  c.attrs.set("equation", eq);
  c.label = eq;
  return c;
}

TEST(EinsumPaths, RandomEquations) {
  std::mt19937 rng(2112);
  int tiled = 0, f32 = 0;
  for (int i = 0; i < 300; ++i) {
    const DType dt = i % 5 == 3 ? DType::kF16 : i % 5 == 4 ? DType::kBF16 : DType::kF32;
    const OpCase c = random_case(rng, dt);
    SCOPED_TRACE(c.name());
    const auto launched = run_both(c, dt == DType::kF32 ? 1.0 : 4.0);
    f32 += dt == DType::kF32;
    tiled += dt == DType::kF32 && !launched.empty();
  }
  // Most f32 cases have no empty dim: they ran as programs.
  EXPECT_GT(tiled, f32 * 3 / 4);
}

}  // namespace
}  // namespace asc::test

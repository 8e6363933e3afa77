// RNN, GRU, LSTM (layouts and semantics: ops/reduce_rnn.h). Versions 1-6 (an `output_sequence`
// attribute without effect; GRU 1-2 without linear_before_reset), 7-13 and 14+ (the `layout`
// attribute). f32/f16/bf16 run as a sequence of tile programs (ops/rnn_tile.cpp: the input
// projection of every step as one Gemm, then an RnnStep per step); f64 on the host
// (ops/rnn_host.cpp).
#include "ops/reduce.h"
#include "ops/reduce_rnn.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"

namespace asc {
namespace {

std::vector<TensorType> infer_rnn(RnnKind kind, const InferContext& ctx) {
  const int n = rnn_outputs(kind);
  const DType dt = ctx.inputs[kRnnX].dtype;
  std::vector<Shape> shapes;
  std::vector<bool> present;
  bool concrete = true;
  for (const TensorType& t : ctx.inputs) {
    present.push_back(t.dtype != DType::kUndefined);
    std::optional<Shape> s;
    if (t.shape) s = to_concrete(*t.shape);
    if (present.back() && !s) concrete = false;
    shapes.push_back(s.value_or(Shape{}));
  }
  if (!concrete) {  // ranks only
    std::vector<TensorType> out(static_cast<size_t>(n), {dt, SymShape(3, Dim())});
    out[0].shape = SymShape(4, Dim());
    return out;
  }
  const RnnConfig c = rnn_config(kind, ctx.attrs, shapes, present);
  std::vector<TensorType> out;
  for (const Shape& s : rnn_output_shapes(c)) out.push_back({dt, to_sym(s)});
  return out;
}

void register_one(Registry& r, RnnKind kind, int since, int until) {
  OpDef def = def_op(rnn_name(kind), since, until);
  def.input("X", "T").input("W", "T").input("R", "T").input("B", "T", Arity::kOptional);
  def.input("sequence_lens", "i32", Arity::kOptional).input("initial_h", "T", Arity::kOptional);
  if (kind == RnnKind::kLstm)
    def.input("initial_c", "T", Arity::kOptional).input("P", "T", Arity::kOptional);
  def.output("Y", "T", Arity::kOptional).output("Y_h", "T", Arity::kOptional);
  if (kind == RnnKind::kLstm) def.output("Y_c", "T", Arity::kOptional);
  def.attr("activation_alpha", AttrKind::kFloats, std::vector<float>{})
      .attr("activation_beta", AttrKind::kFloats, std::vector<float>{})
      .attr("activations", AttrKind::kStrings, std::vector<std::string>{})
      .attr("clip", AttrKind::kFloat, 0.f)  // 0: no clipping
      .attr("direction", AttrKind::kString, std::string("forward"))
      .attr("hidden_size", AttrKind::kInt, int64_t{0});  // 0: from R
  if (since >= 14) def.attr("layout", AttrKind::kInt, int64_t{0});
  if (until < 7) def.attr("output_sequence", AttrKind::kInt, int64_t{0});  // Y is always computed
  if (kind == RnnKind::kGru && since >= 3)
    def.attr("linear_before_reset", AttrKind::kInt, int64_t{0});
  if (kind == RnnKind::kLstm) def.attr("input_forget", AttrKind::kInt, int64_t{0});
  def.type_constraint("T", float_types())
      .describe(kind == RnnKind::kRnn
                    ? "Y, Y_h = simple recurrent network: h = f(x W^T + h R^T + b)"
                : kind == RnnKind::kGru ? "Y, Y_h = gated recurrent unit over the sequence"
                                        : "Y, Y_h, Y_c = long short-term memory over the sequence")
      .infer([kind](const InferContext& c) { return infer_rnn(kind, c); })
      .host_kernel(
          [kind](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
            if (ctx.launch_program && in[kRnnX].dtype() != DType::kF64)
              rnn_tile_kernel(kind, ctx, in, out);
            else
              rnn_host_kernel(kind, ctx, in, out);
          })
      .launches([kind](const LaunchContext& ctx) { return rnn_launches(kind, ctx); })
      .reference([kind](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        rnn_reference(kind, a, in, out);
      });
  r.add(std::move(def));
}

}  // namespace

void register_rnn(Registry& r) {
  register_rnn_step(r);
  for (RnnKind k : {RnnKind::kRnn, RnnKind::kGru, RnnKind::kLstm}) {
    if (k == RnnKind::kGru) {
      register_one(r, k, 1, 2);  // no linear_before_reset
      register_one(r, k, 3, 6);
    } else {
      register_one(r, k, 1, 6);
    }
    register_one(r, k, 7, 13);
    register_one(r, k, 14, INT_MAX);
  }
}

}  // namespace asc

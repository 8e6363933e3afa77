// Cases of RNN / GRU / LSTM (opsets 1, 3, 7 and 14): forward, reverse, bidirectional; with and
// without bias, sequence_lens (including 0 and full lengths), initial states and peepholes; layout
// 0/1; non-default activations with alpha/beta, clip, linear_before_reset, input_forget; f32, f16,
// f64; a hidden size two cores split into whole column blocks (RT stored in them, RnnStep's
// `block`); and of RnnStep (ai.asc), the per-step tile program the family launches: every cell
// and stage, with and without its optional inputs, RT row-major or in column blocks. Called from
// cases_reduce_more().
#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

struct Dims {
  int64_t seq, batch, input, hidden;
};

struct Opts {
  const char* direction = "forward";
  bool bias = false, lens = false, h0 = false, c0 = false, peep = false;
  int64_t layout = 0;
  DType dt = DType::kF32;
  std::string label{};
};

InputSpec i32s(const std::vector<int32_t>& v) {
  Tensor t(DType::kI32, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int32_t>()[i] = v[i];
  return fixed_tensor(std::move(t));
}

OpCase rnn(const char* op, int opset, const Dims& d, const Opts& o, Attrs attrs = {}) {
  const int64_t gates = std::string(op) == "RNN" ? 1 : std::string(op) == "GRU" ? 3 : 4;
  const int64_t dirs = std::string(o.direction) == "bidirectional" ? 2 : 1;
  const int64_t gh = gates * d.hidden;
  const Shape x = o.layout ? Shape{d.batch, d.seq, d.input} : Shape{d.seq, d.batch, d.input};
  const Shape state = o.layout ? Shape{d.batch, dirs, d.hidden} : Shape{dirs, d.batch, d.hidden};
  std::vector<InputSpec> in{asc::test::in(o.dt, x, -1, 1),
                            asc::test::in(o.dt, {dirs, gh, d.input}, -0.6, 0.6),
                            asc::test::in(o.dt, {dirs, gh, d.hidden}, -0.6, 0.6)};
  in.push_back(o.bias ? asc::test::in(o.dt, {dirs, 2 * gh}, -0.5, 0.5) : absent());
  if (o.lens) {
    std::vector<int32_t> lens;
    for (int64_t b = 0; b < d.batch; ++b)
      lens.push_back(static_cast<int32_t>((b * 2 + 1) % (d.seq + 1)));  // 1, 3, .. incl. 0
    lens.back() = static_cast<int32_t>(d.seq);
    in.push_back(i32s(lens));
  } else {
    in.push_back(absent());
  }
  in.push_back(o.h0 ? asc::test::in(o.dt, state, -1, 1) : absent());
  if (gates == 4) {
    in.push_back(o.c0 ? asc::test::in(o.dt, state, -1, 1) : absent());
    in.push_back(o.peep ? asc::test::in(o.dt, {dirs, 3 * d.hidden}, -0.5, 0.5) : absent());
  }
  while (!in.empty() && in.back().dtype == DType::kUndefined) in.pop_back();
  attrs.set("direction", std::string(o.direction));
  attrs.set("hidden_size", d.hidden);
  if (opset >= 14) attrs.set("layout", o.layout);
  OpCase c{op, opset, std::move(in), std::move(attrs)};
  c.label = cat(o.direction, o.bias ? "/bias" : "", o.lens ? "/lens" : "", o.h0 ? "/h0" : "",
                o.c0 ? "/c0" : "", o.peep ? "/peep" : "", "/layout", o.layout, "/opset", opset,
                o.label.empty() ? "" : "/", o.label);
  if (o.dt == DType::kF16 || o.dt == DType::kBF16) c.atol = c.rtol = 2e-2;
  return c;
}

InputSpec f32s(DType dt, const std::vector<float>& v) {
  Tensor t(dt, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return fixed_tensor(std::move(t));
}

struct StepOpts {
  bool c = false, p = false, rbh = false, m = false, rh = false;
  int64_t block = 0;  // RT in column blocks of this many hidden units (RnnStep's `block`)
  DType dt = DType::kF32;
  std::string label{};
};

// RnnStep: XW [B, G*H], H [B, H], RT [G, H, H] (in blocks: [G, H / J * H, J]), C, P [3H],
// RBH [H], M [B] (1, 0, 1, ..), RH.
OpCase step(const char* cell, int64_t batch, int64_t hidden, const StepOpts& o, Attrs attrs = {}) {
  const std::string kind = cell;
  const int64_t gates = kind == "RNN" ? 1 : kind == "GRU" ? 3 : 4;
  const DType dt = o.dt;
  std::vector<InputSpec> in{
      asc::test::in(dt, {batch, gates * hidden}, -1, 1), asc::test::in(dt, {batch, hidden}, -1, 1),
      o.block > 0 ? asc::test::in(dt, {gates, hidden / o.block * hidden, o.block}, -0.6, 0.6)
                  : asc::test::in(dt, {gates, hidden, hidden}, -0.6, 0.6)};
  in.push_back(o.c ? asc::test::in(dt, {batch, hidden}, -1, 1) : absent());
  in.push_back(o.p ? asc::test::in(dt, {3 * hidden}, -0.5, 0.5) : absent());
  in.push_back(o.rbh ? asc::test::in(dt, {hidden}, -0.5, 0.5) : absent());
  std::vector<float> mask;
  for (int64_t b = 0; b < batch; ++b) mask.push_back(b % 2 == 0 ? 1.f : 0.f);
  in.push_back(o.m ? f32s(dt, mask) : absent());
  in.push_back(o.rh ? asc::test::in(dt, {batch, hidden}, -1, 1) : absent());
  while (!in.empty() && in.back().dtype == DType::kUndefined) in.pop_back();
  attrs.set("cell", kind);
  if (o.block > 0) attrs.set("block", o.block);
  OpCase c{"RnnStep", 1, std::move(in), std::move(attrs)};
  c.domain = "ai.asc";
  c.label = cat(cell, o.c ? "/c" : "", o.p ? "/p" : "", o.rbh ? "/rbh" : "", o.m ? "/m" : "",
                o.rh ? "/rh" : "", o.block > 0 ? cat("/block", o.block) : "",
                o.label.empty() ? "" : "/", o.label);
  if (dt == DType::kF16 || dt == DType::kBF16) c.atol = c.rtol = 2e-2;
  return c;
}

void add_step_cases(std::vector<OpCase>& v) {
  v.push_back(step("RNN", 3, 5, {}));
  Attrs clip;
  clip.set("clip", 0.4f);
  clip.set("activations", std::vector<std::string>{"Softsign"});
  v.push_back(step("RNN", 4, 33, {.m = true, .label = "clip"}, clip));
  Attrs lbr;
  lbr.set("linear_before_reset", int64_t{1});
  v.push_back(step("GRU", 3, 6, {.rbh = true, .m = true, .label = "lbr"}, lbr));
  v.push_back(step("GRU", 1, 37, {.label = "lbr"}, lbr));
  Attrs reset;
  reset.set("stage", std::string("reset"));
  v.push_back(step("GRU", 2, 7, {.label = "reset"}, reset));
  v.push_back(step("GRU", 3, 6, {.rbh = true, .m = true, .rh = true}));
  v.push_back(step("LSTM", 1, 7, {.c = true, .p = true, .m = true}));
  v.push_back(step("LSTM", 5, 40, {.c = true, .p = true}));
  v.push_back(step("LSTM", 3, 96, {.c = true, .p = true, .m = true, .block = 32}));
  v.push_back(step("GRU", 2, 64, {.rbh = true, .block = 32, .label = "lbr"}, lbr));
  v.push_back(step("GRU", 2, 64, {.block = 16, .label = "reset"}, reset));
  Attrs forget;
  forget.set("input_forget", int64_t{1});
  forget.set("activations", std::vector<std::string>{"HardSigmoid", "Elu", "Softplus"});
  forget.set("activation_alpha", std::vector<float>{0.3f, 0.8f});
  forget.set("clip", 1.5f);
  v.push_back(step("LSTM", 2, 9, {.p = true, .label = "forget"}, forget));
  v.push_back(step("LSTM", 2, 9, {.c = true, .dt = DType::kF16}));
  v.push_back(step("GRU", 3, 6, {.rbh = true, .rh = true, .dt = DType::kBF16}));
}

}  // namespace

std::vector<OpCase> cases_rnn() {
  std::vector<OpCase> v;
  const Dims small{3, 2, 4, 5}, odd{5, 3, 7, 6}, one{1, 1, 1, 1};
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    const bool lstm = std::string(op) == "LSTM";
    v.push_back(rnn(op, 1, small, {.bias = true, .lens = true}));  // output_sequence era
    v.push_back(rnn(op, 7, small, {}));
    v.push_back(rnn(op, 7, one, {.bias = true}));
    v.push_back(rnn(op, 7, odd, {.bias = true, .h0 = true, .c0 = lstm}));
    v.push_back(rnn(op, 7, odd, {.direction = "reverse", .bias = true, .lens = true}));
    v.push_back(rnn(op, 7, odd,
                    {.direction = "bidirectional",
                     .bias = true,
                     .lens = true,
                     .h0 = true,
                     .c0 = lstm,
                     .peep = lstm}));
    v.push_back(rnn(op, 14, odd,
                    {.direction = "bidirectional",
                     .bias = true,
                     .lens = true,
                     .h0 = true,
                     .c0 = lstm,
                     .peep = lstm,
                     .layout = 1}));
    v.push_back(rnn(op, 14, small, {.direction = "reverse", .h0 = true, .layout = 1}));
    v.push_back(rnn(op, 14, small, {.bias = true, .layout = 0}));
    v.push_back(rnn(op, 14, small, {.bias = true, .dt = DType::kF16}));
    v.push_back(rnn(op, 7, odd, {.direction = "bidirectional", .bias = true, .dt = DType::kF64}));
    // f64 runs on the host (no cube multiplies it): its lengths, states, peepholes and layout.
    v.push_back(rnn(op, 14, odd,
                    {.direction = "bidirectional",
                     .lens = true,
                     .h0 = true,
                     .c0 = lstm,
                     .peep = lstm,
                     .layout = 1,
                     .dt = DType::kF64}));
    v.push_back(rnn(op, 14, small, {.bias = true, .dt = DType::kBF16}));
    v.push_back(rnn(op, 7, {1, 1, 3, 17}, {.bias = true, .h0 = true, .label = "seq1"}));
    // 64 hidden units: two cores' tiles of 32, RT stored in those column blocks.
    v.push_back(rnn(op, 14, {4, 2, 8, 64},
                    {.direction = "bidirectional", .bias = true, .h0 = true, .label = "blocks"}));
    // sequence_lens 1, 0, 2, 2: a batch row that runs no step keeps its initial state.
    v.push_back(rnn(op, 14, {2, 4, 3, 5},
                    {.direction = "bidirectional",
                     .bias = true,
                     .lens = true,
                     .h0 = true,
                     .c0 = lstm,
                     .label = "len0"}));
    // Clipped gates.
    Attrs clip;
    clip.set("clip", 0.5f);
    v.push_back(rnn(op, 7, small, {.bias = true, .label = "clip"}, clip));
  }
  // Non-default activations, alpha/beta consumed in order by the activations that take them.
  Attrs rnn_acts;
  rnn_acts.set("activations", std::vector<std::string>{"LeakyRelu", "Affine"});
  rnn_acts.set("activation_alpha", std::vector<float>{0.2f, 0.7f});
  rnn_acts.set("activation_beta", std::vector<float>{0.1f});
  v.push_back(rnn("RNN", 7, small, {.direction = "bidirectional", .label = "acts"}, rnn_acts));
  Attrs relu;
  relu.set("activations", std::vector<std::string>{"Relu"});
  v.push_back(rnn("RNN", 14, small, {.bias = true, .label = "relu"}, relu));
  Attrs gru_acts;
  gru_acts.set("activations", std::vector<std::string>{"HardSigmoid", "Softsign"});
  v.push_back(rnn("GRU", 7, small, {.bias = true, .label = "acts"}, gru_acts));
  Attrs lbr;
  lbr.set("linear_before_reset", int64_t{1});
  v.push_back(rnn("GRU", 7, odd, {.bias = true, .h0 = true, .label = "lbr"}, lbr));
  v.push_back(rnn("GRU", 3, odd, {.bias = true, .h0 = true, .label = "lbr"}, lbr));
  v.push_back(
      rnn("GRU", 14, odd,
          {.direction = "bidirectional", .bias = true, .lens = true, .layout = 1, .label = "lbr"},
          lbr));
  Attrs lstm_acts;
  lstm_acts.set("activations", std::vector<std::string>{"Sigmoid", "ScaledTanh", "Elu",
                                                        "ThresholdedRelu", "Softplus", "Tanh"});
  lstm_acts.set("activation_alpha", std::vector<float>{0.9f, 0.5f, 0.1f});
  lstm_acts.set("activation_beta", std::vector<float>{1.2f});
  v.push_back(rnn("LSTM", 7, small, {.direction = "bidirectional", .bias = true, .label = "acts"},
                  lstm_acts));
  Attrs forget;
  forget.set("input_forget", int64_t{1});
  v.push_back(
      rnn("LSTM", 7, odd, {.bias = true, .c0 = true, .peep = true, .label = "forget"}, forget));
  add_step_cases(v);
  return v;
}

}  // namespace asc::test

// Recurrent ops (RNN, GRU, LSTM; opsets 7-13 and 14+ with `layout`): the configuration shared
// by the host kernels (rnn.cpp) and the naive references (rnn_reference.cpp).
//
// Layouts (D = directions, G = gates, H = hidden size, layout 0 / layout 1):
//   X         [seq, batch, input]        / [batch, seq, input]
//   W         [D, G*H, input]   R [D, G*H, H]   B [D, 2*G*H] (Wb then Rb)   P [D, 3*H] (LSTM)
//   initial_h, initial_c, Y_h, Y_c  [D, batch, H]  / [batch, D, H]
//   Y         [seq, D, batch, H]     / [batch, seq, D, H]
// Gate order: GRU z, r, h; LSTM i, o, f, c; peepholes i, o, f. Direction 1 of a bidirectional op
// runs in reverse. Batch b runs sequence_lens[b] steps (all when absent); Y is 0 past them and
// Y_h / Y_c hold the state after the last step (the initial state when there is none).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "registry/attr.h"
#include "registry/op_def.h"
#include "registry/registry.h"
#include "registry/shape.h"
#include "registry/tensor.h"

namespace asc {

enum class RnnKind : uint8_t { kRnn, kGru, kLstm };

// Inputs by position.
enum RnnInput : int { kRnnX, kRnnW, kRnnR, kRnnB, kRnnLens, kRnnH0, kRnnC0, kRnnP };

struct RnnActivation {
  enum class Fn : uint8_t {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,           // alpha * x + beta
    kLeakyRelu,        // x < 0 ? alpha * x : x
    kThresholdedRelu,  // x > alpha ? x : 0
    kScaledTanh,       // alpha * tanh(beta * x)
    kHardSigmoid,      // clamp(alpha * x + beta, 0, 1)
    kElu,              // x < 0 ? alpha * (exp(x) - 1) : x
    kSoftsign,         // x / (1 + |x|)
    kSoftplus,         // log(1 + exp(x))
  };
  Fn fn = Fn::kTanh;
  float alpha = 0, beta = 0;
};

struct RnnConfig {
  RnnKind kind = RnnKind::kRnn;
  int64_t dirs = 1, seq = 0, batch = 0, input = 0, hidden = 0;
  int64_t gates = 1;         // G: 1 (RNN), 3 (GRU), 4 (LSTM)
  bool batch_first = false;  // layout 1
  bool reverse = false;      // direction "reverse" (a one-direction op running backwards)
  // Per direction: f (RNN); f, g (GRU); f, g, h (LSTM).
  std::vector<std::vector<RnnActivation>> acts;
  float clip = 0;                    // > 0: gate pre-activations are clamped to [-clip, clip]
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM: f = 1 - i
};

// Activations by ONNX name (any case) with explicit alpha and beta, one each: RnnStep's form.
std::vector<RnnActivation> rnn_activations(const std::vector<std::string>& names,
                                           const std::vector<float>& alpha,
                                           const std::vector<float>& beta);
// act(clip(x)) in double (clip <= 0: none): the references' activation.
double rnn_activation_ref(const RnnActivation& f, double clip, double x);
// The activations' ONNX names, for RnnStep's `activations` attribute.
std::string rnn_activation_name(RnnActivation::Fn fn);

const char* rnn_name(RnnKind k);
int rnn_outputs(RnnKind k);  // Y, Y_h (+ Y_c for LSTM)

// The configuration of a node from its attributes and input shapes (absent inputs: empty
// Shape with `present` false); throws ShapeError naming the op and the offending shapes.
RnnConfig rnn_config(RnnKind kind, const Attrs& a, std::span<const Shape> shapes,
                     const std::vector<bool>& present);

// The output shapes of a configuration: Y, Y_h (, Y_c).
std::vector<Shape> rnn_output_shapes(const RnnConfig& c);

// The steps batch b runs: sequence_lens[b] (checked against [0, seq]) or seq.
int64_t rnn_steps(const RnnConfig& c, const Tensor* lens, int64_t b);

// The kernels: as tile programs launched through ctx.launch_program (rnn_tile.cpp; f32, f16,
// bf16), or on the host (rnn_host.cpp). rnn_launches lists the programs the first runs, in order
// (OpDef::launches_fn).
void rnn_tile_kernel(RnnKind kind, const LaunchContext& ctx, std::span<const Tensor> in,
                     std::span<Tensor> out);
void rnn_host_kernel(RnnKind kind, const LaunchContext& ctx, std::span<const Tensor> in,
                     std::span<Tensor> out);
std::vector<ProgramLaunches> rnn_launches(RnnKind kind, const LaunchContext& ctx);
// RnnStep (ai.asc): one step of one direction as a tile program (rnn_step.cpp).
void register_rnn_step(Registry& r);

// Naive reference in double (rnn_reference.cpp): every output of the node.
void rnn_reference(RnnKind kind, const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out);

}  // namespace asc

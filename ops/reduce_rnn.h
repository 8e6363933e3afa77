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

// Naive reference in double (rnn_reference.cpp): every output of the node.
void rnn_reference(RnnKind kind, const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out);

}  // namespace asc

// Small models whose run time is the runtime's fixed cost per node, per run and per control-flow
// body, not arithmetic (bench/small_models_vs_ort.mjs, docs/PERFORMANCE.md "Small models"). Seeded
// normal weights, inline; opset 17.
//
// vad: shaped like Silero VAD v5 (~100 nodes). Inputs input f32[1, 576] (512 new samples behind 64
// of context at 16 kHz; 288 at 8 kHz), state f32[2, 1, 128] (h and c), sr i64[]. Outputs output
// f32[1, 1] (speech probability) and stateN f32[2, 1, 128].
//   If(Equal(sr, 16000)) picks one of two branches of the same structure (16 kHz: window 256,
//   hop 128; 8 kHz: window 128, hop 64):
//     spec   = Conv1d(Pad(Unsqueeze(input)), stft [2F, 1, window], stride hop)   (F = window/2+1)
//     mag    = Sqrt(re^2 + im^2) of spec's halves (Slice)                          [1, F, T]
//     enc    = 4 x Relu(Conv1d k=3 pad 1): F -> 128 -> 64 (stride 2) -> 64 (stride 2) -> 128
//     x      = If(Equal(Gather(Shape(enc), 2), 1)) then Squeeze(enc, 2) else ReduceMean over 2
//              (a shape check like the exporter's, its condition known from shapes)      [1, 128]
//     LSTM cell on (x, state): gates = x Wi + h Wh + b -> Split 4 -> Sigmoid / Tanh,
//              c' = f c + i g, h' = o Tanh(c')
//     output = Sigmoid(Relu(h') Wo + bo), stateN = Concat(h', c')
// loop: an RNN as a Loop over the steps of xs f32[steps, 1, 64] (steps symbolic) from h0 f32[1,
//   64]: M = Shape(xs)[0], the body (9 nodes) computes h = Tanh(xs[i] U + h W + b) and scans
//   y = Sigmoid(h V). Outputs h f32[1, 64], ys f32[steps, 1, 64].
// chain: x f32[1, 64] through `blocks` blocks of 5 nodes each (h = (act(h Wk + bk) + h) * sk, act
//   Relu / Tanh / Sigmoid in turn): 100 nodes for 20 blocks. Output y f32[1, 64].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace asc::models {

struct SmallModelOptions {
  uint64_t seed = 0;
  int chain_blocks = 20;  // chain only
};

// The names write_small_model knows: "vad", "loop", "chain".
std::vector<std::string> small_model_names();
// Writes model `name` to `path`. Throws std::invalid_argument for an unknown name (listing the
// known ones), std::runtime_error when the file cannot be written.
void write_small_model(const std::string& name, const std::string& path,
                       const SmallModelOptions& options = {});

}  // namespace asc::models

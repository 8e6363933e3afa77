#include "models/small_models.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <stdexcept>

#include "models/onnx_writer.h"

namespace asc::models {
namespace {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

OnnxWriter::Options writer_options(uint64_t seed) {
  OnnxWriter::Options o;
  o.seed = seed;
  o.producer = "asc-make-small-models";
  return o;
}

// A weight drawn with std 1/sqrt(fan_in), so activations stay O(1) through the layers.
std::string weight(OnnxWriter& w, const std::string& name, const std::vector<int64_t>& dims,
                   int64_t fan_in) {
  return w.weight(name, ElemType::kF32, dims, 0.0f,
                  static_cast<float>(1.0 / std::sqrt(static_cast<double>(fan_in))));
}

// Conv1d over [1, cin, T] with kernel k, stride s and symmetric padding p.
std::string conv1d(OnnxWriter& w, const std::string& name, const std::string& x, int64_t cin,
                   int64_t cout, int64_t k, int64_t s, int64_t p, bool bias) {
  std::vector<std::string> ins = {x, weight(w, name + ".weight", {cout, cin, k}, cin * k)};
  if (bias)
    ins.push_back(w.const_values(name + ".bias", ElemType::kF32, {cout},
                                 std::vector<float>(static_cast<size_t>(cout), 0.01f)));
  return w.op("Conv", name, ins,
              {Attr::ints("kernel_shape", {k}), Attr::ints("strides", {s}),
               Attr::ints("pads", {p, p}), Attr::ints("dilations", {1}), Attr::i("group", 1)});
}

// One VAD branch (see small_models.h); `p` prefixes every name so the two branches never clash.
onnx::GraphProto vad_branch(uint64_t seed, const std::string& p, int64_t window) {
  OnnxWriter w(writer_options(seed));
  const int64_t hop = window / 2, bins = window / 2 + 1, hidden = 128;
  const std::string x = w.op("Unsqueeze", p + "unsqueeze", {"input", w.const_i64(p + "ax1", {1})});
  const std::string padded =
      w.op("Pad", p + "pad", {x, w.const_i64(p + "pads", {0, 0, 0, 0, 0, window / 4})},
           {Attr::s("mode", "constant")});
  const std::string spec = conv1d(w, p + "stft", padded, 1, 2 * bins, window, hop, 0, false);
  const std::string axis1 = w.const_i64(p + "axis1", {1});
  const std::string re =
      w.op("Slice", p + "re",
           {spec, w.const_i64(p + "zero", {0}), w.const_i64(p + "bins", {bins}), axis1});
  const std::string im = w.op(
      "Slice", p + "im",
      {spec, w.const_i64(p + "bins_lo", {bins}), w.const_i64(p + "bins_hi", {2 * bins}), axis1});
  const std::string power = w.op(
      "Add", p + "power", {w.op("Mul", p + "re2", {re, re}), w.op("Mul", p + "im2", {im, im})});
  std::string h = w.op("Sqrt", p + "magnitude", {power});
  // Encoder: 4 x Relu(Conv1d k=3 pad 1).
  const int64_t chans[] = {bins, 128, 64, 64, hidden}, strides[] = {1, 2, 2, 1};
  for (int i = 0; i < 4; ++i) {
    const std::string name = p + "encoder." + std::to_string(i);
    h = w.op("Relu", name + ".relu",
             {conv1d(w, name + ".conv", h, chans[i], chans[i + 1], 3, strides[i], 1, true)});
  }
  // The exporter's shape check: one frame left -> Squeeze it, else average the frames.
  const std::string frames =
      w.op("Gather", p + "frames",
           {w.op("Shape", p + "shape", {h}), w.const_i64(p + "two", {2}, /*scalar=*/true)},
           {Attr::i("axis", 0)});
  const std::string one_frame =
      w.op("Equal", p + "one_frame", {frames, w.const_i64(p + "one", {1}, /*scalar=*/true)});
  OnnxWriter squeeze(writer_options(seed)), mean(writer_options(seed));
  squeeze.op_to("Squeeze", p + "squeeze", {h, squeeze.const_i64(p + "ax2", {2})}, {p + "sq_out"});
  squeeze.output(p + "sq_out", kF32, {1, hidden});
  mean.op_to("ReduceMean", p + "mean", {h}, {p + "mean_out"},
             {Attr::ints("axes", {2}), Attr::i("keepdims", 0)});
  mean.output(p + "mean_out", kF32, {1, hidden});
  const std::string feat = p + "features";
  w.op_to("If", p + "squeeze_if", {one_frame}, {feat},
          {Attr::g("then_branch", squeeze.graph()), Attr::g("else_branch", mean.graph())});
  // LSTM cell on the state's h and c.
  const std::string h0 =
      w.op("Gather", p + "h0", {"state", w.const_i64(p + "idx0", {0}, true)}, {Attr::i("axis", 0)});
  const std::string c0 =
      w.op("Gather", p + "c0", {"state", w.const_i64(p + "idx1", {1}, true)}, {Attr::i("axis", 0)});
  const std::string xi =
      w.op("MatMul", p + "lstm.xi", {feat, weight(w, p + "lstm.wi", {hidden, 4 * hidden}, hidden)});
  const std::string hi =
      w.op("MatMul", p + "lstm.hi", {h0, weight(w, p + "lstm.wh", {hidden, 4 * hidden}, hidden)});
  const std::string gates =
      w.op("Add", p + "lstm.gates",
           {w.op("Add", p + "lstm.sum", {xi, hi}),
            w.const_values(p + "lstm.b", ElemType::kF32, {4 * hidden},
                           std::vector<float>(static_cast<size_t>(4 * hidden), 0.0f))});
  std::vector<std::string> g;
  for (const char* k : {"i", "f", "g", "o"}) g.push_back(p + "lstm.gate_" + k);
  w.op_to("Split", p + "lstm.split", {gates}, g, {Attr::i("axis", 1)});
  const std::string i = w.op("Sigmoid", p + "lstm.i", {g[0]});
  const std::string f = w.op("Sigmoid", p + "lstm.f", {g[1]});
  const std::string gg = w.op("Tanh", p + "lstm.g", {g[2]});
  const std::string o = w.op("Sigmoid", p + "lstm.o", {g[3]});
  const std::string c1 =
      w.op("Add", p + "lstm.c",
           {w.op("Mul", p + "lstm.fc", {f, c0}), w.op("Mul", p + "lstm.ig", {i, gg})});
  const std::string h1 = w.op("Mul", p + "lstm.h", {o, w.op("Tanh", p + "lstm.tanh_c", {c1})});
  const std::string ax0 = w.const_i64(p + "ax0", {0});
  w.op_to(
      "Concat", p + "state_out",
      {w.op("Unsqueeze", p + "h_state", {h1, ax0}), w.op("Unsqueeze", p + "c_state", {c1, ax0})},
      {p + "stateN"}, {Attr::i("axis", 0)});
  const std::string logit = w.op(
      "Add", p + "head.add",
      {w.op("MatMul", p + "head.matmul",
            {w.op("Relu", p + "head.relu", {h1}), weight(w, p + "head.w", {hidden, 1}, hidden)}),
       w.const_values(p + "head.b", ElemType::kF32, {1}, {0.0f})});
  w.op_to("Sigmoid", p + "prob", {logit}, {p + "output"});
  w.output(p + "output", kF32, {1, 1});
  w.output(p + "stateN", kF32, {2, 1, hidden});
  return w.graph();
}

void write_vad(const SmallModelOptions& opt, const std::string& path) {
  OnnxWriter w(writer_options(opt.seed));
  w.input("input", kF32, {1, "samples"});
  w.input("state", kF32, {2, 1, 128});
  w.input("sr", kI64, {});
  const std::string is16k = w.op("Equal", "is_16k", {"sr", w.const_i64("16000", {16000}, true)});
  w.op_to("If", "by_rate", {is16k}, {"output", "stateN"},
          {Attr::g("then_branch", vad_branch(opt.seed, "hi.", 256)),
           Attr::g("else_branch", vad_branch(opt.seed, "lo.", 128))});
  w.output("output", kF32, {1, 1});
  w.output("stateN", kF32, {2, 1, 128});
  w.save(path);
}

void write_loop(const SmallModelOptions& opt, const std::string& path) {
  constexpr int64_t kDim = 64;
  OnnxWriter w(writer_options(opt.seed));
  w.input("xs", kF32, {"steps", 1, kDim});
  w.input("h0", kF32, {1, kDim});
  const std::string trips =
      w.op("Gather", "trips",
           {w.op("Shape", "xs_shape", {"xs"}), w.const_i64("zero", {0}, /*scalar=*/true)},
           {Attr::i("axis", 0)});
  onnx::TensorProto* yes = w.graph().add_initializer();
  yes->set_name("true");
  yes->set_data_type(kBool);
  yes->set_raw_data(std::string(1, '\1'));

  OnnxWriter b(writer_options(opt.seed));
  b.input("i", kI64, {});
  b.input("cond_in", kBool, {});
  b.input("h", kF32, {1, kDim});
  const std::string x = b.op("Gather", "body.x", {"xs", "i"}, {Attr::i("axis", 0)});
  const std::string s =
      b.op("Add", "body.sum",
           {b.op("MatMul", "body.xu", {x, weight(b, "body.u", {kDim, kDim}, kDim)}),
            b.op("MatMul", "body.hw", {"h", weight(b, "body.w", {kDim, kDim}, kDim)})});
  b.op_to("Tanh", "body.tanh",
          {b.op("Add", "body.bias",
                {s, b.const_values("body.b", ElemType::kF32, {kDim},
                                   std::vector<float>(static_cast<size_t>(kDim), 0.01f))})},
          {"h_out"});
  b.op_to("Sigmoid", "body.y",
          {b.op("MatMul", "body.hv", {"h_out", weight(b, "body.v", {kDim, kDim}, kDim)})}, {"y"});
  b.op_to("Identity", "body.cond", {"cond_in"}, {"cond_out"});
  b.output("cond_out", kBool, {});
  b.output("h_out", kF32, {1, kDim});
  b.output("y", kF32, {1, kDim});
  w.op_to("Loop", "rnn", {trips, "true", "h0"}, {"h", "ys"}, {Attr::g("body", b.graph())});
  w.output("h", kF32, {1, kDim});
  w.output("ys", kF32, {"steps", 1, kDim});
  w.save(path);
}

void write_chain(const SmallModelOptions& opt, const std::string& path) {
  constexpr int64_t kDim = 64;
  OnnxWriter w(writer_options(opt.seed));
  w.input("x", kF32, {1, kDim});
  std::string h = "x";
  const char* acts[] = {"Relu", "Tanh", "Sigmoid"};
  for (int k = 0; k < opt.chain_blocks; ++k) {
    const std::string p = "block" + std::to_string(k) + ".";
    const std::string m = w.op("MatMul", p + "matmul", {h, weight(w, p + "w", {kDim, kDim}, kDim)});
    const std::string a =
        w.op("Add", p + "bias",
             {m, w.const_values(p + "b", ElemType::kF32, {kDim},
                                std::vector<float>(static_cast<size_t>(kDim), 0.01f))});
    const std::string r = w.op("Add", p + "residual", {w.op(acts[k % 3], p + "act", {a}), h});
    h = w.op("Mul", p + "scale", {r, w.const_scalar(p + "s", ElemType::kF32, 0.5f)});
  }
  w.op_to("Identity", "y", {h}, {"y"});
  w.output("y", kF32, {1, kDim});
  w.save(path);
}

}  // namespace

std::vector<std::string> small_model_names() {
  return {"vad", "loop", "chain"};
}

void write_small_model(const std::string& name, const std::string& path,
                       const SmallModelOptions& options) {
  if (name == "vad") return write_vad(options, path);
  if (name == "loop") return write_loop(options, path);
  if (name == "chain") return write_chain(options, path);
  std::string known;
  for (const std::string& n : small_model_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument(str_cat("unknown small model '", name, "' (known: ", known, ")"));
}

}  // namespace asc::models

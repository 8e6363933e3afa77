// asc-check's side of ONNX Runtime: the "mark all" rewrite of a model (every node output becomes
// a graph output, as Polygraphy and msit compare do) and the run through tools/ort/bridge.mjs
// (Node.js + npm onnxruntime-node, CPU execution provider, graph optimisations disabled).
//
// The exchange is files in a work folder: inputs as TensorProto input_K.pb files (raw_data),
// outputs as output_K.pb plus outputs.json naming them (docs/CHECK.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/model.h"

namespace asc::check {

// A fresh folder under $TMPDIR (default /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "asc-check");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes the model at `model_path` to `out_path` with every named node output of its main graph
// appended to the graph outputs (name only; ONNX Runtime infers the type), except what
// onnxruntime-node cannot return: values ONNX's shape inference types as sequences, maps or
// optionals, and element types without a typed array. bfloat16 values (onnxruntime-node has no
// bfloat16, and refuses a model with such an output) are fetched through an added Cast to f32,
// which is exact. Throws ModelError when the file cannot be read or parsed, UnsupportedError
// for a graph input or output onnxruntime-node cannot pass.
struct MarkedModel {
  std::vector<std::string> added;              // value names made outputs, in node order
  std::map<std::string, std::string> via_f32;  // ORT output name -> the bf16 value it casts
  std::map<std::string, std::string> skipped;  // value name -> why it is not an output
  bool external_data = false;                  // a tensor lives in an external data file
};
MarkedModel write_marked_model(const std::string& model_path, const std::string& out_path);

struct OrtOptions {
  std::string node = "node";  // the Node.js executable (PATH lookup)
  std::string bridge;         // bridge.mjs; empty: default_bridge()
  int threads = 0;            // intra-op threads; 0: ONNX Runtime's default
};

// $ASC_ORT_BRIDGE when set, else tools/ort/bridge.mjs of the source tree asc was built from.
std::string default_bridge();

struct OrtResult {
  std::string version;                         // onnxruntime-node's, e.g. "1.30.0"
  std::map<std::string, Tensor> outputs;       // by name
  std::map<std::string, std::string> skipped;  // name -> why the Node binding cannot return it
};

// Runs `model_path` in ONNX Runtime on `inputs`, fetching every output of the model. `work_dir`
// holds the exchanged files. `external_data_dir`, when given, is where the model's external data
// files are (the original model's folder, for a rewritten copy elsewhere). Throws Error with the
// bridge's message when Node.js, the bridge or onnxruntime-node is missing or ONNX Runtime fails.
OrtResult run_ort(const std::string& model_path, const std::vector<NamedTensor>& inputs,
                  const OrtOptions& options, const std::string& work_dir,
                  const std::string& external_data_dir = "");

}  // namespace asc::check

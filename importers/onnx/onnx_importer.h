// ONNX importer: ModelProto -> Graph. The only room that reads ONNX protobufs; everything
// downstream sees the Graph.
//
// What the Graph holds after import:
// - Graph::opsets: one entry per imported domain; "" stands for both "" and "ai.onnx".
// - Initializers, Constant nodes and graph inputs that have an initializer (their default)
//   become constant values; they are never fed and never appear in Graph::inputs.
// - Every other node becomes a Node whose `def` is the registry's newest version <= the
//   model's opset for the node's domain.
// - An empty input or output name ("") is -1 in Node::inputs / Node::outputs.
// - Weights stored in external data files are memory-mapped read-only and viewed, not copied
//   (a tensor whose offset is misaligned for its dtype is the one exception: it is copied).
//   Constant tensors must therefore never be written to.
//
// Errors: ModelError for a malformed or unsafe model (message names the file, and the tensor,
// node or path concerned); UnsupportedError listing every node asc cannot run.
#pragma once

#include <cstddef>
#include <string>

#include "runtime/graph.h"

namespace asc {

struct ImportOptions {
  // Shape-only weights (asc-run --timing-only): tensors stored in external data files are never
  // opened nor read; each is a view of zero pages (an anonymous read-only mapping that costs no
  // memory until touched) with the declared dtype and shape. The location must still resolve
  // inside the model's folder; the file itself may be missing.
  bool shape_only_weights = false;
};

// Reads `path` (memory-mapped); external data resolves relative to the file's folder.
Graph import_onnx_file(const std::string& path, const ImportOptions& options = {});

// Parses a serialized ModelProto. External data resolves relative to `base_dir`; an empty
// `base_dir` refuses external data.
Graph import_onnx_bytes(const void* data, size_t size, const std::string& base_dir,
                        const ImportOptions& options = {});

}  // namespace asc

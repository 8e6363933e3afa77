// Graph-level passes run at load: constant folding on the cpu device, dead-node elimination, and
// trimming the logits to the last position for generation (fusion: runtime/fusion.h).
#pragma once

#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/graph.h"

namespace asc {

// Runs every node whose inputs are all constants once, on `device`, and turns its outputs into
// constants; folded nodes are removed. Outputs larger than `max_bytes` are left to run time.
// Returns the number of nodes folded.
int fold_constants(Graph& g, const cpu::CpuDevice& device, int64_t max_bytes = 64 << 20);

// Keeps the nodes with keep[i] (in order) and renumbers the values' producers; the outputs of
// dropped nodes are left without a producer.
void compact(Graph& g, const std::vector<bool>& keep);

// Removes nodes none of whose outputs reach a graph output or a value of `keep`. Returns the
// number removed.
int eliminate_dead_nodes(Graph& g, const std::vector<int>& keep = {});

// Inference Dropouts (opset 7-11; 12+ without training_mode, with a constant false one or a
// constant ratio 0; 1-6 with is_test set) copy their input: their readers read the input instead,
// and the node goes. Not when output 0 is a graph output or in `keep`, the mask is read or a graph
// output, or a reader runs subgraphs (they name the value). Returns the number removed.
int bypass_inference_dropouts(Graph& g, const std::vector<int>& keep = {});

// Generation reads only the last position's logits: when graph output `output` (declared rank
// >= 2) is a MatMul of an activation [..., s, h] by a constant [h, vocab], a Slice keeps the
// activation's last row first (the output becomes [..., 1, vocab]), so a prefill of s tokens
// computes one logits row, not s.
// Returns true when the graph was changed; false (unchanged) when the output has another form.
bool keep_last_position(Graph& g, const std::string& output);

}  // namespace asc

// Graph-level passes run at load: constant folding on the cpu device and dead-node elimination
// (fusion: runtime/fusion.h).
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

}  // namespace asc

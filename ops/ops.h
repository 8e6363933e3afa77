// Op families. Each registers its ops explicitly; register_all_ops calls every family once.
#pragma once

#include "registry/registry.h"

namespace asc {

void register_elementwise_binary(Registry& r);
void register_elementwise_unary(Registry& r);
void register_cast_where(Registry& r);
void register_softmax(Registry& r);
void register_reduce(Registry& r);
void register_matmul(Registry& r);
void register_transpose(Registry& r);
void register_movement(Registry& r);
void register_indexing(Registry& r);
void register_normalization(Registry& r);
void register_nn(Registry& r);
void register_activations(Registry& r);
void register_logical(Registry& r);
void register_reduce_more(Registry& r);
void register_misc(Registry& r);
void register_contrib(Registry& r);
void register_fused_attention(Registry& r);
void register_attention(Registry& r);     // Attention-23 (attention.cpp)
void register_sequence(Registry& r);      // sequences and optionals (host objects)
void register_control_flow(Registry& r);  // If, Loop, Scan: executed by the runtime
void register_fused(Registry& r);         // ai.asc: what the graph fusion passes create

void register_all_ops(Registry& r);

// The process-wide registry holding every op asc ships, built on first use.
const Registry& global_registry();

}  // namespace asc

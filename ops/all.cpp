#include "ops/ops.h"

namespace asc {

void register_all_ops(Registry& r) {
  register_elementwise_binary(r);
  register_elementwise_unary(r);
  register_cast_where(r);
  register_softmax(r);
  register_reduce(r);
  register_matmul(r);
  register_transpose(r);
  register_movement(r);
  register_indexing(r);
  register_normalization(r);
  register_nn(r);
  register_activations(r);
  register_logical(r);
  register_reduce_more(r);
  register_misc(r);
  register_contrib(r);
  register_fused_attention(r);
  register_attention(r);
  register_control_flow(r);
  register_sequence(r);
  register_fused(r);
}

const Registry& global_registry() {
  static const Registry r = [] {
    Registry reg;
    register_all_ops(reg);
    return reg;
  }();
  return r;
}

}  // namespace asc

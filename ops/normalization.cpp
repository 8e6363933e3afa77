// Normalizations and losses: LogSoftmax, Hardmax, LayerNormalization, BatchNormalization,
// InstanceNormalization, GroupNormalization, MeanVarianceNormalization, LRN,
// SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss.
#include "ops/ops.h"

namespace asc {

void register_normalization(Registry& r) {
  (void)r;
}

}  // namespace asc

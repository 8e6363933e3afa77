// Normalizations and losses: LogSoftmax (softmax.cpp), Hardmax, LayerNormalization,
// BatchNormalization, InstanceNormalization, GroupNormalization, MeanVarianceNormalization, LRN,
// SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss. The family's files are listed in
// normalization.h.
#include "ops/normalization.h"

#include "ops/ops.h"

namespace asc {

void register_normalization(Registry& r) {
  register_normalization_rows(r);
  register_normalization_batch(r);
  register_normalization_misc(r);
  register_normalization_loss(r);
}

}  // namespace asc

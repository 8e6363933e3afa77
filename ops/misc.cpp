// Quantization, signal processing, detection and training-domain ops: QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, window functions, DFT,
// STFT, MelWeightMatrix, NonMaxSuppression, Det, TfIdfVectorizer, Adagrad, Adam, Momentum.
#include "ops/ops.h"

namespace asc {

void register_misc(Registry& r) {
  (void)r;
}

}  // namespace asc

// Reductions beyond Sum/Mean/Max, on the ReduceX engine of ops/reduce.cpp: ReduceMin, ReduceProd,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare (axes: non-negative attribute
// in 1-10, attribute in 11-17, optional input from 18; 12/13 only widen the types, as ReduceMin-20
// does with bool); and the rest
// of the family: ArgMax/ArgMin (reduce_arg.cpp), RNN/GRU/LSTM (rnn*.cpp),
// Einsum (einsum.cpp).
#include <vector>

#include "ops/ops.h"
#include "ops/reduce.h"

namespace asc {

void register_reduce_more(Registry& r) {
  const std::pair<const char*, ReduceKind> ops[] = {
      {"ReduceMin", ReduceKind::kMin},
      {"ReduceProd", ReduceKind::kProd},
      {"ReduceL1", ReduceKind::kL1},
      {"ReduceL2", ReduceKind::kL2},
      {"ReduceLogSum", ReduceKind::kLogSum},
      {"ReduceLogSumExp", ReduceKind::kLogSumExp},
      {"ReduceSumSquare", ReduceKind::kSumSquare},
  };
  std::vector<ReduceVersion> versions;
  for (const auto& [name, kind] : ops) {
    versions.push_back({name, kind, 1, 10, AxesFrom::kAttrNonNegative});
    versions.push_back({name, kind, 11, 17, AxesFrom::kAttr});
    if (kind == ReduceKind::kMin) {  // ReduceMin-20 adds bool
      versions.push_back({name, kind, 18, 19, AxesFrom::kInput});
      versions.push_back({name, kind, 20, INT_MAX, AxesFrom::kInput});
    } else {
      versions.push_back({name, kind, 18, INT_MAX, AxesFrom::kInput});
    }
  }
  register_reduce_versions(r, versions);
  register_arg_reduce(r);
  register_rnn(r);
  register_einsum(r);
}

}  // namespace asc

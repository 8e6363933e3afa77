// Indexing and data-dependent ops: Gather*, Scatter*, OneHot, Compress, NonZero, Unique,
// ReverseSequence, TopK, CumSum. The definitions live in ops/indexing_*.cpp.
#include "ops/indexing.h"

#include "ops/ops.h"

namespace asc {

void register_indexing(Registry& r) {
  register_indexing_gather(r);
  register_indexing_scatter(r);
  register_indexing_select(r);
  register_indexing_sort(r);
}

}  // namespace asc
